/* SPDX-License-Identifier: MIT */
/*
 * seidel-2d: in-place Gauss-Seidel sweeps of a 9-point averaging stencil on
 * an N x N grid, TSTEPS times (each point uses already-updated neighbours).
 * Constant array extents; the loop bounds are written with <=.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 80
#endif
#ifndef TSTEPS
# define TSTEPS 10
#endif

static void init_array(int n, double A[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = ((double)i * (j + 2) + 2) / n;
}

static void kernel_seidel_2d(int tsteps, int n, double A[N][N])
{
  int t, i, j;

#pragma scop
  for (t = 0; t <= tsteps - 1; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1]
                   + A[i][j - 1] + A[i][j] + A[i][j + 1]
                   + A[i + 1][j - 1] + A[i + 1][j] + A[i + 1][j + 1]) / 9.0;
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  int i, j;

  if (!A)
    return 1;
  init_array(N, A);
  kernel_seidel_2d(TSTEPS, N, A);

  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);

  free(A);
  return 0;
}
