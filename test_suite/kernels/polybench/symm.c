/* SPDX-License-Identifier: MIT */
/*
 * symm: symmetric matrix-matrix product C := alpha*A*B + beta*C, where A is
 * M x M symmetric and only its lower triangle (diagonal included) is read;
 * B and C are M x N.  Constant array extents.  The scalar acc accumulates
 * the contribution of the mirrored upper triangle inside the scop.
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

static void init_array(int m, int n, double *alpha, double *beta,
                       double C[M][N], double A[M][M], double B[M][N])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (double)((i + j) % 100) / m;
      B[i][j] = (double)((n + i - j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (double)((i + j) % 100) / m;
    for (j = i + 1; j < m; j++)
      A[i][j] = -999.0; /* never read */
  }
}

static void kernel_symm(int m, int n, double alpha, double beta,
                        double C[M][N], double A[M][M], double B[M][N])
{
  int i, j, k;
  double acc;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      acc = 0.0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        acc += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * acc;
    }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*C)[N] = (double (*)[N])malloc(sizeof(double[M][N]));
  double (*A)[M] = (double (*)[M])malloc(sizeof(double[M][M]));
  double (*B)[N] = (double (*)[N])malloc(sizeof(double[M][N]));
  int i, j;

  if (!C || !A || !B)
    return 1;
  init_array(M, N, &alpha, &beta, C, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_symm(M, N, alpha, beta, C, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("C", (const void *)C, (long)(M) * (long)(N));
#else
  printf("== C\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);
#endif

  free(C);
  free(A);
  free(B);
  return 0;
}
