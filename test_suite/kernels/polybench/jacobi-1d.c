/* SPDX-License-Identifier: MIT */
/*
 * jacobi-1d: 3-point Jacobi stencil on a 1-D grid, TSTEPS time steps, each
 * step ping-ponging between A and B (boundary cells fixed).  VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 120
#endif
#ifndef TSTEPS
# define TSTEPS 20
#endif

static void init_array(int n, double A[n], double B[n])
{
  int i;

  for (i = 0; i < n; i++) {
    A[i] = ((double)i + 2) / n;
    B[i] = ((double)i + 3) / n;
  }
}

static void kernel_jacobi_1d(int tsteps, int n, double A[n], double B[n])
{
  int t, i;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}

int main(void)
{
  double *A = (double *)malloc(sizeof(double[N]));
  double *B = (double *)malloc(sizeof(double[N]));
  int i;

  if (!A || !B)
    return 1;
  init_array(N, A, B);
  kernel_jacobi_1d(TSTEPS, N, A, B);

  printf("== A\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", A[i]);
  printf("== B\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", B[i]);

  free(A);
  free(B);
  return 0;
}
