/* SPDX-License-Identifier: MIT */
/*
 * trisolv: forward substitution, solve L*x = b for a lower triangular N x N
 * matrix L (strict upper part not read).  VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 100
#endif

static void init_array(int n, double L[n][n], double x[n], double b[n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = -999.0; /* overwritten by the kernel */
    b[i] = (double)i;
    for (j = 0; j < i; j++)
      L[i][j] = (double)((i + n - j + 1) % 7 + 1) / n;
    L[i][i] = 8.0 + (double)(i % 3);
    for (j = i + 1; j < n; j++)
      L[i][j] = 0.0;
  }
}

static void kernel_trisolv(int n, double L[n][n], double x[n], double b[n])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  double (*L)[n] = malloc(sizeof(double[n][n]));
  double *x = malloc(sizeof(double[n]));
  double *b = malloc(sizeof(double[n]));
  int i;

  if (!L || !x || !b)
    return 1;
  init_array(n, L, x, b);
  kernel_trisolv(n, L, x, b);

  printf("== x\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", x[i]);

  free(L);
  free(x);
  free(b);
  return 0;
}
