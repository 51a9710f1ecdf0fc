/* SPDX-License-Identifier: MIT */
/*
 * PENCIL syrk: lower-triangular symmetric rank-k update
 * C := alpha*A*A^T + beta*C (C N x N, A N x M); the row loop is independent
 * and the inner j loops have the triangular bound j <= i.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 70
#endif
#ifndef N
# define N 84
#endif

static void init_array(int n, int m, double C[n][n], double A[n][m])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (double)((i * j + 1) % n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double C[static const restrict n][n],
                        double A[static const restrict n][m])
{
#pragma pencil independent
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}

int main(void)
{
  double (*C)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double (*A)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  int i, j;

  if (!C || !A)
    return 1;
  init_array(N, M, C, A);
  kernel_syrk(N, M, 1.5, 1.2, C, A);

  printf("== C\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);

  free(C);
  free(A);
  return 0;
}
