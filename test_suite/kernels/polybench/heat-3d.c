/* SPDX-License-Identifier: MIT */
/*
 * heat-3d: explicit heat equation on an N x N x N grid, 7-point stencil,
 * TSTEPS steps each updating B from A then A from B (boundary fixed).
 * VLA extents (3-D).  Time loop runs from 1 to TSTEPS inclusive.
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
# define N 34
#endif
#ifndef TSTEPS
# define TSTEPS 10
#endif

static void init_array(int n, double A[n][n][n], double B[n][n][n])
{
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        A[i][j][k] = B[i][j][k] = (double)(i + j + (n - k)) * 10 / n;
}

static void kernel_heat_3d(int tsteps, int n, double A[n][n][n],
                           double B[n][n][n])
{
  int t, i, j, k;

#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          B[i][j][k] = 0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k])
                     + 0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k])
                     + 0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1])
                     + A[i][j][k];
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++)
          A[i][j][k] = 0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k])
                     + 0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k])
                     + 0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1])
                     + B[i][j][k];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  double (*A)[n][n] = malloc(sizeof(double[n][n][n]));
  double (*B)[n][n] = malloc(sizeof(double[n][n][n]));
  int i, j, k;

  if (!A || !B)
    return 1;
  init_array(n, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_heat_3d(TSTEPS, n, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(n) * (long)(n) * (long)(n));
  pencilcc_bench_checksum("B", (const void *)B, (long)(n) * (long)(n) * (long)(n));
#else
  printf("== A\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        printf("%.17g\n", A[i][j][k]);
  printf("== B\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        printf("%.17g\n", B[i][j][k]);
#endif

  free(A);
  free(B);
  return 0;
}
