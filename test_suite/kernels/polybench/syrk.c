/* SPDX-License-Identifier: MIT */
/*
 * syrk: symmetric rank-k update of the lower triangle of C,
 * C := alpha*A*A^T + beta*C, with C N x N and A N x M.  VLA extents.
 * The strictly upper triangle of C is left untouched.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 70
#endif
#ifndef N
# define N 84
#endif

static void init_array(int n, int m, double *alpha, double *beta,
                       double C[n][n], double A[n][m])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (double)((i * j + 1) % n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta,
                        double C[n][n], double A[n][m])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*C)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double (*A)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  int i, j;

  if (!C || !A)
    return 1;
  init_array(N, M, &alpha, &beta, C, A);
  kernel_syrk(N, M, alpha, beta, C, A);

  printf("== C\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);

  free(C);
  free(A);
  return 0;
}
