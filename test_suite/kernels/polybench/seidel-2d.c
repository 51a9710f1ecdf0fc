/* SPDX-License-Identifier: MIT */
/*
 * seidel-2d: in-place Gauss-Seidel sweeps of a 9-point averaging stencil on
 * an N x N grid, TSTEPS times (each point uses already-updated neighbours).
 * Constant array extents; the loop bounds are written with <=.
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <stdlib.h>
#ifdef PENCILCC_BENCH
# include <time.h>

/* Benchmark build (test_suite/bench): time the kernel call, print one
 * checksum line set per output array instead of every element. */
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_seidel_2d(TSTEPS, N, A);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(N) * (long)(N));
#else
  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
#endif

  free(A);
  return 0;
}
