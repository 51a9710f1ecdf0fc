/* SPDX-License-Identifier: MIT */
/*
 * Time-expanded 1-D Jacobi in value style: every step t writes a new row
 * A[t + 1] of a scratch array the host allocates (tsteps + 1 rows of n) and
 * that is killed after the region, so only the result `out` leaves it.
 * contract-arrays folds A's time dimension: A[t mod 2][i], two rows.
 * Sizes: -DTSTEPS=... -DN=...; -DBENCH: a size for the memory benchmark.
 */
#include <pencil.h>

#include <stdio.h>
#include <stdlib.h>

#ifdef BENCH
# define TSTEPS 2000
# define N 40000
#endif
#ifndef TSTEPS
# define TSTEPS 9
#endif
#ifndef N
# define N 23
#endif

static void jacobi_1d_expanded(int tsteps, int n, const double in[static const restrict n],
                               double out[static const restrict n],
                               double A[static const restrict tsteps + 1][n])
{
  __pencil_assume(tsteps >= 0);
  for (int i = 0; i < n; i++)
    A[0][i] = in[i];
  for (int t = 0; t < tsteps; t++) {
    A[t + 1][0] = A[t][0];
    for (int i = 1; i < n - 1; i++)
      A[t + 1][i] = (A[t][i - 1] + A[t][i] + A[t][i + 1]) / 3.0;
    A[t + 1][n - 1] = A[t][n - 1];
  }
  for (int i = 0; i < n; i++)
    out[i] = A[tsteps][i];
  __pencil_kill(A);
}

int main(void)
{
  double *in = malloc(sizeof(double) * N), *out = malloc(sizeof(double) * N);
  double (*A)[N] = malloc(sizeof(double) * (TSTEPS + 1) * N);
  if (!in || !out || !A)
    return 1;
  for (int i = 0; i < N; i++)
    in[i] = (double)((i * 37) % 101) / 7.0;
  jacobi_1d_expanded(TSTEPS, N, in, out, A);
  printf("== out\n");
  for (int i = 0; i < N; i++)
    printf("%.17g\n", out[i]);
  free(in);
  free(out);
  free(A);
  return 0;
}
