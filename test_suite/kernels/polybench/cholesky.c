/* SPDX-License-Identifier: MIT */
/*
 * cholesky: in-place Cholesky factorisation A = L*L^T of a symmetric
 * positive definite matrix; L overwrites the lower triangle (diagonal
 * included), the strict upper triangle is left as it was.  Uses sqrt.
 * Constant array extents.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 80
#endif

/* Symmetric and strictly diagonally dominant with a positive diagonal,
 * hence positive definite. */
static void init_array(int n, double A[N][N])
{
  int i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i * j) % 7 + 1) / n;
    A[i][i] = 8.0 + (double)(i % 3);
  }
}

static void kernel_cholesky(int n, double A[N][N])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[j][k];
      A[i][j] /= A[j][j];
    }
    for (k = 0; k < i; k++)
      A[i][i] -= A[i][k] * A[i][k];
    A[i][i] = sqrt(A[i][i]);
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  int i, j;

  if (!A)
    return 1;
  init_array(N, A);
  kernel_cholesky(N, A);

  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);

  free(A);
  return 0;
}
