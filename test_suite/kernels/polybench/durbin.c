/* SPDX-License-Identifier: MIT */
/*
 * durbin: Levinson-Durbin recursion, solves the Yule-Walker system T*y = -r
 * where T is the symmetric Toeplitz matrix with unit diagonal and
 * off-diagonals r[0], r[1], ...  The scalars alpha, beta and sum are written
 * inside the scop; the inner loops read y in reversed order (y[k-i-1]).
 * VLA (1-D) extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 100
#endif

/* r[k] = 1 / (2 (k+2)^2): the Toeplitz matrix is diagonally dominant. */
static void init_array(int n, double r[n])
{
  int i;

  for (i = 0; i < n; i++)
    r[i] = 1.0 / (double)(2 * (i + 2) * (i + 2));
}

static void kernel_durbin(int n, double r[n], double y[n], double z[n])
{
  int i, k;
  double alpha, beta, sum;

#pragma scop
  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];
  for (k = 1; k < n; k++) {
    beta = (1.0 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++)
      sum += r[k - i - 1] * y[i];
    alpha = -(r[k] + sum) / beta;
    for (i = 0; i < k; i++)
      z[i] = y[i] + alpha * y[k - i - 1];
    for (i = 0; i < k; i++)
      y[i] = z[i];
    y[k] = alpha;
  }
#pragma endscop
}

int main(void)
{
  double *r = (double *)malloc(sizeof(double[N]));
  double *y = (double *)malloc(sizeof(double[N]));
  double *z = (double *)malloc(sizeof(double[N]));
  int i;

  if (!r || !y || !z)
    return 1;
  for (i = 0; i < N; i++)
    z[i] = 0.0;
  init_array(N, r);
  kernel_durbin(N, r, y, z);

  printf("== y\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", y[i]);

  free(r);
  free(y);
  free(z);
  return 0;
}
