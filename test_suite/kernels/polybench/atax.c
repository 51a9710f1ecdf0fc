/* SPDX-License-Identifier: MIT */
/*
 * atax: matrix transpose times matrix-vector product, y := A^T * (A * x).
 * A is M x N.  The kernel takes VLA extents A[m][n].
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 76
#endif
#ifndef N
# define N 90
#endif

static void init_array(int m, int n, double A[m][n], double x[n])
{
  int i, j;

  for (i = 0; i < n; i++)
    x[i] = 1.0 + (double)i / n;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, double A[m][n], double x[n],
                        double y[n], double tmp[m])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    y[i] = 0.0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  double (*A)[n] = malloc(sizeof(double[m][n]));
  double *x = malloc(sizeof(double[n]));
  double *y = malloc(sizeof(double[n]));
  double *tmp = malloc(sizeof(double[m]));
  int i;

  if (!A || !x || !y || !tmp)
    return 1;
  init_array(m, n, A, x);
  kernel_atax(m, n, A, x, y, tmp);

  printf("== y\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", y[i]);
  printf("== tmp\n");
  for (i = 0; i < m; i++)
    printf("%.17g\n", tmp[i]);

  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
