/* SPDX-License-Identifier: MIT */
/*
 * gesummv: sum of two scaled matrix-vector products,
 * y := alpha*A*x + beta*B*x.  A and B are N x N, VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 90
#endif

static void init_array(int n, double *alpha, double *beta, double A[n][n],
                       double B[n][n], double x[n])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, double alpha, double beta, double A[n][n],
                           double B[n][n], double tmp[n], double x[n],
                           double y[n])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  double alpha, beta;
  double (*A)[n] = malloc(sizeof(double[n][n]));
  double (*B)[n] = malloc(sizeof(double[n][n]));
  double *tmp = malloc(sizeof(double[n]));
  double *x = malloc(sizeof(double[n]));
  double *y = malloc(sizeof(double[n]));
  int i;

  if (!A || !B || !tmp || !x || !y)
    return 1;
  init_array(n, &alpha, &beta, A, B, x);
  kernel_gesummv(n, alpha, beta, A, B, tmp, x, y);

  printf("== tmp\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", tmp[i]);
  printf("== y\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", y[i]);

  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
