/* SPDX-License-Identifier: MIT */
/*
 * PENCIL jacobi-2d: 5-point Jacobi stencil, TSTEPS steps ping-ponging
 * between A and B.  The time loop is sequential; the row loops inside it
 * are independent.
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_jacobi_2d(TSTEPS, n, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(n) * (long)(n));
  pencilcc_bench_checksum("B", (const void *)B, (long)(n) * (long)(n));
#else
  printf("== A\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", A[i][j]);
  printf("== B\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", B[i][j]);
#endif

  free(A);
  free(B);
  return 0;
}
