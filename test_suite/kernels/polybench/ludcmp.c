/* SPDX-License-Identifier: MIT */
/*
 * ludcmp: solve A*x = b by an in-place LU decomposition of A (no pivoting,
 * Crout-style with a scalar accumulator w), forward substitution L*y = b and
 * backward substitution U*x = y (a decreasing loop).  VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 70
#endif

static void init_array(int n, double A[n][n], double b[n], double x[n],
                       double y[n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    b[i] = 4.0 + (double)(i + 1) / (2 * n);
    x[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i + 3 * j) % 13 + 1) / (2 * n);
    A[i][i] = 9.0 + (double)(i % 4) / 4;
  }
}

static void kernel_ludcmp(int n, double A[n][n], double b[n], double x[n],
                          double y[n])
{
  int i, j, k;
  double w;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double *b = (double *)malloc(sizeof(double[N]));
  double *x = (double *)malloc(sizeof(double[N]));
  double *y = (double *)malloc(sizeof(double[N]));
  int i, j;

  if (!A || !b || !x || !y)
    return 1;
  init_array(N, A, b, x, y);
  kernel_ludcmp(N, A, b, x, y);

  printf("== x\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", x[i]);
  printf("== y\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", y[i]);
  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);

  free(A);
  free(b);
  free(x);
  free(y);
  return 0;
}
