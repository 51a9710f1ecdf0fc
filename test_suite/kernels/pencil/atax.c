/* SPDX-License-Identifier: MIT */
/*
 * PENCIL atax: y := A^T * (A * x), written as two independent loops (tmp by
 * rows of A, then y by columns of A) so that both outer loops are parallel.
 * Each y[j] is accumulated over i in increasing order, as in the
 * PolyBench-style version.
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

#ifndef M
# define M 76
#endif
#ifndef N
# define N 90
#endif

static void init_array(int m, int n, double A[m][n], double x[n])
{
  int i, j;

  for (i = 0; i < n; i++)
    x[i] = 1.0 + (double)i / n;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, double A[static const restrict m][n],
                        double x[static const restrict n],
                        double y[static const restrict n],
                        double tmp[static const restrict m])
{
#pragma pencil independent
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
  }
#pragma pencil independent
  for (int j = 0; j < n; j++) {
    y[j] = 0.0;
    for (int i = 0; i < m; i++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}

int main(void)
{
  int m = M, n = N;
  double (*A)[n] = malloc(sizeof(double[m][n]));
  double *x = malloc(sizeof(double[n]));
  double *y = malloc(sizeof(double[n]));
  double *tmp = malloc(sizeof(double[m]));
  int i;

  if (!A || !x || !y || !tmp)
    return 1;
  init_array(m, n, A, x);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_atax(m, n, A, x, y, tmp);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("y", (const void *)y, (long)(n));
  pencilcc_bench_checksum("tmp", (const void *)tmp, (long)(m));
#else
  printf("== y\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", y[i]);
  printf("== tmp\n");
  for (i = 0; i < m; i++)
    printf("%.17g\n", tmp[i]);
#endif

  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
