/* SPDX-License-Identifier: MIT */
/*
 * syr2k: symmetric rank-2k update of the lower triangle of C,
 * C := alpha*A*B^T + alpha*B*A^T + beta*C, with C N x N, A and B N x M.
 * Constant array extents.
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
# define N 76
#endif

static void init_array(int n, int m, double *alpha, double *beta,
                       double C[N][N], double A[N][M], double B[N][M])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 3) % n) / m;
}

static void kernel_syr2k(int n, int m, double alpha, double beta,
                         double C[N][N], double A[N][M], double B[N][M])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*C)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double (*A)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  double (*B)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  int i, j;

  if (!C || !A || !B)
    return 1;
  init_array(N, M, &alpha, &beta, C, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_syr2k(N, M, alpha, beta, C, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("C", (const void *)C, (long)(N) * (long)(N));
#else
  printf("== C\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);
#endif

  free(C);
  free(A);
  free(B);
  return 0;
}
