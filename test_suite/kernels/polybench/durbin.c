/* SPDX-License-Identifier: MIT */
/*
 * durbin: Levinson-Durbin recursion, solves the Yule-Walker system T*y = -r
 * where T is the symmetric Toeplitz matrix with unit diagonal and
 * off-diagonals r[0], r[1], ...  The scalars alpha, beta and sum are written
 * inside the scop; the inner loops read y in reversed order (y[k-i-1]).
 * VLA (1-D) extents.
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_durbin(N, r, y, z);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("y", (const void *)y, (long)(N));
#else
  printf("== y\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", y[i]);
#endif

  free(r);
  free(y);
  free(z);
  return 0;
}
