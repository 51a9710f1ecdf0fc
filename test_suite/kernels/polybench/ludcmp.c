/* SPDX-License-Identifier: MIT */
/*
 * ludcmp: solve A*x = b by an in-place LU decomposition of A (no pivoting,
 * Crout-style with a scalar accumulator w), forward substitution L*y = b and
 * backward substitution U*x = y (a decreasing loop).  VLA extents.
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
# define N 70
#endif

static void init_array(int n, double A[n][n], double b[n], double x[n],
                       double y[n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    b[i] = 4.0 + (double)(i + 1) / (2 * n);
    x[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i + 3 * j) % 13 + 1) / (2 * n);
    A[i][i] = 9.0 + (double)(i % 4) / 4;
  }
}

static void kernel_ludcmp(int n, double A[n][n], double b[n], double x[n],
                          double y[n])
{
  int i, j, k;
  double w;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++)
        w -= A[i][k] * A[k][j];
      A[i][j] = w;
    }
  }
  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }
  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double *b = (double *)malloc(sizeof(double[N]));
  double *x = (double *)malloc(sizeof(double[N]));
  double *y = (double *)malloc(sizeof(double[N]));
  int i, j;

  if (!A || !b || !x || !y)
    return 1;
  init_array(N, A, b, x, y);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_ludcmp(N, A, b, x, y);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("x", (const void *)x, (long)(N));
  pencilcc_bench_checksum("y", (const void *)y, (long)(N));
  pencilcc_bench_checksum("A", (const void *)A, (long)(N) * (long)(N));
#else
  printf("== x\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", x[i]);
  printf("== y\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", y[i]);
  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
#endif

  free(A);
  free(b);
  free(x);
  free(y);
  return 0;
}
