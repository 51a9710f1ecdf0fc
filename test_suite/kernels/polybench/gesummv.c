/* SPDX-License-Identifier: MIT */
/*
 * gesummv: sum of two scaled matrix-vector products,
 * y := alpha*A*x + beta*B*x.  A and B are N x N, VLA extents.
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

static void init_array(int n, double *alpha, double *beta, double A[n][n],
                       double B[n][n], double x[n])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, double alpha, double beta, double A[n][n],
                           double B[n][n], double tmp[n], double x[n],
                           double y[n])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
#pragma endscop
}

int main(void)
{
  int n = N;
  double alpha, beta;
  double (*A)[n] = malloc(sizeof(double[n][n]));
  double (*B)[n] = malloc(sizeof(double[n][n]));
  double *tmp = malloc(sizeof(double[n]));
  double *x = malloc(sizeof(double[n]));
  double *y = malloc(sizeof(double[n]));
  int i;

  if (!A || !B || !tmp || !x || !y)
    return 1;
  init_array(n, &alpha, &beta, A, B, x);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_gesummv(n, alpha, beta, A, B, tmp, x, y);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("tmp", (const void *)tmp, (long)(n));
  pencilcc_bench_checksum("y", (const void *)y, (long)(n));
#else
  printf("== tmp\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", tmp[i]);
  printf("== y\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", y[i]);
#endif

  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
