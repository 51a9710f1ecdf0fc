/* SPDX-License-Identifier: MIT */
/*
 * PENCIL lu: in-place LU decomposition without pivoting of a diagonally
 * dominant matrix.  Only the update of row i of U (the j loop from i) is
 * independent; the rest carries dependences.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 90
#endif

static void init_array(int n, double A[n][n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i * (j + 1) + j) % 11 + 1) / (2 * n);
    A[i][i] = 8.0 + (double)(i % 5) / 5;
  }
}

static void kernel_lu(int n, double A[static const restrict n][n])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
#pragma pencil independent
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  int i, j;

  if (!A)
    return 1;
  init_array(N, A);
  kernel_lu(N, A);

  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);

  free(A);
  return 0;
}
