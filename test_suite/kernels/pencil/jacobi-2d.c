/* SPDX-License-Identifier: MIT */
/*
 * PENCIL jacobi-2d: 5-point Jacobi stencil, TSTEPS steps ping-ponging
 * between A and B.  The time loop is sequential; the row loops inside it
 * are independent.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 90
#endif
#ifndef TSTEPS
# define TSTEPS 20
#endif

static void init_array(int n, double A[n][n], double B[n][n])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = ((double)i * (j + 2) + 2) / n;
      B[i][j] = ((double)i * (j + 3) + 3) / n;
    }
}

static void kernel_jacobi_2d(int tsteps, int n,
                             double A[static const restrict n][n],
                             double B[static const restrict n][n])
{
  for (int t = 0; t < tsteps; t++) {
#pragma pencil independent
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j]
                         + A[i - 1][j]);
#pragma pencil independent
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j]
                         + B[i - 1][j]);
  }
}

int main(void)
{
  int n = N;
  double (*A)[n] = malloc(sizeof(double[n][n]));
  double (*B)[n] = malloc(sizeof(double[n][n]));
  int i, j;

  if (!A || !B)
    return 1;
  init_array(n, A, B);
  kernel_jacobi_2d(TSTEPS, n, A, B);

  printf("== A\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", A[i][j]);
  printf("== B\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", B[i][j]);

  free(A);
  free(B);
  return 0;
}
