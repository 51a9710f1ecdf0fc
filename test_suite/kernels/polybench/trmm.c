/* SPDX-License-Identifier: MIT */
/*
 * trmm: triangular matrix-matrix product B := alpha * A^T * B, where A is
 * M x M unit lower triangular (its diagonal and upper part are not read)
 * and B is M x N.  VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 64
#endif
#ifndef N
# define N 78
#endif

static void init_array(int m, int n, double *alpha, double A[m][m],
                       double B[m][n])
{
  int i, j;

  *alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (double)((i + j) % m) / m;
    A[i][i] = 1.0;
    for (j = i + 1; j < m; j++)
      A[i][j] = 0.0;
    for (j = 0; j < n; j++)
      B[i][j] = (double)((n + (i - j)) % n) / n;
  }
}

static void kernel_trmm(int m, int n, double alpha, double A[m][m],
                        double B[m][n])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  double alpha;
  double (*A)[m] = malloc(sizeof(double[m][m]));
  double (*B)[n] = malloc(sizeof(double[m][n]));
  int i, j;

  if (!A || !B)
    return 1;
  init_array(m, n, &alpha, A, B);
  kernel_trmm(m, n, alpha, A, B);

  printf("== B\n");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", B[i][j]);

  free(A);
  free(B);
  return 0;
}
