/* SPDX-License-Identifier: MIT */
/*
 * trisolv: forward substitution, solve L*x = b for a lower triangular N x N
 * matrix L (strict upper part not read).  VLA extents.
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_trisolv(n, L, x, b);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("x", (const void *)x, (long)(n));
#else
  printf("== x\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", x[i]);
#endif

  free(L);
  free(x);
  free(b);
  return 0;
}
