/* SPDX-License-Identifier: MIT */
/*
 * correlation: Pearson correlation matrix of M variables observed N times.
 * data is N x M.  Columns are centred and scaled by sqrt(N) * stddev, with
 * a near-zero standard deviation replaced by 1 (data-dependent ternary), then
 * corr[i][j] := sum_k data[k][i]*data[k][j], unit diagonal.  Uses sqrt.
 * Constant array extents.
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <math.h>
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
# define M 64
#endif
#ifndef N
# define N 78
#endif

static void init_array(int m, int n, double *float_n, double data[N][M])
{
  int i, j;

  *float_n = (double)n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double)(i * j % m) / m + (double)((3 * i + j) % 11);
  /* One constant column: its standard deviation is 0 and must be clamped. */
  for (i = 0; i < n; i++)
    data[i][m / 2] = 3.0;
}

static void kernel_correlation(int m, int n, double float_n, double data[N][M],
                               double corr[M][M], double mean[M],
                               double stddev[M])
{
  int i, j, k;
  double eps = 0.1;

#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = sqrt(stddev[j]);
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }
  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

int main(void)
{
  double float_n;
  double (*data)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  double (*corr)[M] = (double (*)[M])malloc(sizeof(double[M][M]));
  double *mean = (double *)malloc(sizeof(double[M]));
  double *stddev = (double *)malloc(sizeof(double[M]));
  int i, j;

  if (!data || !corr || !mean || !stddev)
    return 1;
  init_array(M, N, &float_n, data);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_correlation(M, N, float_n, data, corr, mean, stddev);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("corr", (const void *)corr, (long)(M) * (long)(M));
  pencilcc_bench_checksum("stddev", (const void *)stddev, (long)(M));
#else
  printf("== corr\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      printf("%.17g\n", corr[i][j]);
  printf("== stddev\n");
  for (i = 0; i < M; i++)
    printf("%.17g\n", stddev[i]);
#endif

  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
