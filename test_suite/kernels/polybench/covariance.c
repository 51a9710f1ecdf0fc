/* SPDX-License-Identifier: MIT */
/*
 * covariance: sample covariance matrix of M variables observed N times.
 * data is N x M (one observation per row); each column is centred on its
 * mean, then cov[i][j] := sum_k data[k][i]*data[k][j] / (N - 1), filled
 * symmetrically.  Constant array extents.
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
# define M 60
#endif
#ifndef N
# define N 72
#endif

static void init_array(int m, int n, double *float_n, double data[N][M])
{
  int i, j;

  *float_n = (double)n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double)(i * j % m) / m + (double)((i + 2 * j) % 7);
}

static void kernel_covariance(int m, int n, double float_n, double data[N][M],
                              double cov[M][M], double mean[M])
{
  int i, j, k;

#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];
  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
#pragma endscop
}

int main(void)
{
  double float_n;
  double (*data)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  double (*cov)[M] = (double (*)[M])malloc(sizeof(double[M][M]));
  double *mean = (double *)malloc(sizeof(double[M]));
  int i, j;

  if (!data || !cov || !mean)
    return 1;
  init_array(M, N, &float_n, data);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_covariance(M, N, float_n, data, cov, mean);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("cov", (const void *)cov, (long)(M) * (long)(M));
  pencilcc_bench_checksum("mean", (const void *)mean, (long)(M));
#else
  printf("== cov\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      printf("%.17g\n", cov[i][j]);
  printf("== mean\n");
  for (i = 0; i < M; i++)
    printf("%.17g\n", mean[i]);
#endif

  free(data);
  free(cov);
  free(mean);
  return 0;
}
