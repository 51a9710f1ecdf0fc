/* SPDX-License-Identifier: MIT */
/*
 * Time-expanded 1-D Jacobi in value style: every step t writes a new row
 * A[t + 1] of a scratch array the host allocates (tsteps + 1 rows of n) and
 * that is killed after the region, so only the result `out` leaves it.
 * contract-arrays folds A's time dimension: A[t mod 2][i], two rows.
 * Sizes: -DTSTEPS=... -DN=...;
 * -DBENCH: the memory benchmark's size (python -m test_suite.bench --kernels memory, whose
 * medium dataset it is: gcc -O3 about 1-3 s); -DPENCILCC_BENCH: that benchmark's build
 * (the kernel call timed, checksums printed instead of every element).
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <pencil.h>

#include <stdio.h>
#include <stdlib.h>
#ifdef PENCILCC_BENCH
# include <time.h>

/* Benchmark build (test_suite/bench, the memory group): time the kernel call,
 * print one checksum line set per output array instead of every element. */
static double pencilcc_bench_now(void)
{
  struct timespec t;

  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void pencilcc_bench_checksum(const char *name, const void *array, long count)
{
  const double *x = (const double *)array;
  double sum = 0.0, abs_sum = 0.0, weighted = 0.0;
  long k;

  for (k = 0; k < count; k++) {
    sum += x[k];
    abs_sum += x[k] < 0 ? -x[k] : x[k];
    weighted += (double)(k % 11 + 1) * x[k];
  }
  printf("== %s\n%ld\n%.17g\n%.17g\n%.17g\n", name, count, sum, abs_sum, weighted);
}
#endif

#ifdef BENCH
# define TSTEPS 3000
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  jacobi_1d_expanded(TSTEPS, N, in, out, A);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  pencilcc_bench_checksum("out", (const void *)out, (long)N);
#else
  printf("== out\n");
  for (int i = 0; i < N; i++)
    printf("%.17g\n", out[i]);
#endif
  free(in);
  free(out);
  free(A);
  return 0;
}
