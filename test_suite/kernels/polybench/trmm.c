/* SPDX-License-Identifier: MIT */
/*
 * trmm: triangular matrix-matrix product B := alpha * A^T * B, where A is
 * M x M unit lower triangular (its diagonal and upper part are not read)
 * and B is M x N.  VLA extents.
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
# define M 64
#endif
#ifndef N
# define N 78
#endif

static void init_array(int m, int n, double *alpha, double A[m][m],
                       double B[m][n])
{
  int i, j;

  *alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (double)((i + j) % m) / m;
    A[i][i] = 1.0;
    for (j = i + 1; j < m; j++)
      A[i][j] = 0.0;
    for (j = 0; j < n; j++)
      B[i][j] = (double)((n + (i - j)) % n) / n;
  }
}

static void kernel_trmm(int m, int n, double alpha, double A[m][m],
                        double B[m][n])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
#pragma endscop
}

int main(void)
{
  int m = M, n = N;
  double alpha;
  double (*A)[m] = malloc(sizeof(double[m][m]));
  double (*B)[n] = malloc(sizeof(double[m][n]));
  int i, j;

  if (!A || !B)
    return 1;
  init_array(m, n, &alpha, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_trmm(m, n, alpha, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("B", (const void *)B, (long)(m) * (long)(n));
#else
  printf("== B\n");
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      printf("%.17g\n", B[i][j]);
#endif

  free(A);
  free(B);
  return 0;
}
