/* SPDX-License-Identifier: MIT */
/*
 * mvt: two matrix-vector products with the same matrix, one transposed:
 * x1 := x1 + A * y1 and x2 := x2 + A^T * y2.  A is N x N, VLA extents.
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

static void init_array(int n, double x1[n], double x2[n], double y1[n],
                       double y2[n], double A[n][n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    x1[i] = (double)(i % n) / n;
    x2[i] = (double)((i + 1) % n) / n;
    y1[i] = (double)((i + 3) % n) / n;
    y2[i] = (double)((i + 4) % n) / n;
    for (j = 0; j < n; j++)
      A[i][j] = (double)(i * j % n) / n;
  }
}

static void kernel_mvt(int n, double x1[n], double x2[n], double y1[n],
                       double y2[n], double A[n][n])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double *x1 = (double *)malloc(sizeof(double[N]));
  double *x2 = (double *)malloc(sizeof(double[N]));
  double *y1 = (double *)malloc(sizeof(double[N]));
  double *y2 = (double *)malloc(sizeof(double[N]));
  int i;

  if (!A || !x1 || !x2 || !y1 || !y2)
    return 1;
  init_array(N, x1, x2, y1, y2, A);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_mvt(N, x1, x2, y1, y2, A);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("x1", (const void *)x1, (long)(N));
  pencilcc_bench_checksum("x2", (const void *)x2, (long)(N));
#else
  printf("== x1\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", x1[i]);
  printf("== x2\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", x2[i]);
#endif

  free(A);
  free(x1);
  free(x2);
  free(y1);
  free(y2);
  return 0;
}
