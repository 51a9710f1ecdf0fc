/* SPDX-License-Identifier: MIT */
/*
 * PENCIL lu: in-place LU decomposition without pivoting of a diagonally
 * dominant matrix.  Only the update of row i of U (the j loop from i) is
 * independent; the rest carries dependences.
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

static void init_array(int n, double A[n][n])
{
  int i, j;

  for (i = 0; i < n; i++) {
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i * (j + 1) + j) % 11 + 1) / (2 * n);
    A[i][i] = 8.0 + (double)(i % 5) / 5;
  }
}

static void kernel_lu(int n, double A[static const restrict n][n])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++) {
      for (int k = 0; k < j; k++)
        A[i][j] -= A[i][k] * A[k][j];
      A[i][j] /= A[j][j];
    }
#pragma pencil independent
    for (int j = i; j < n; j++)
      for (int k = 0; k < i; k++)
        A[i][j] -= A[i][k] * A[k][j];
  }
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  int i, j;

  if (!A)
    return 1;
  init_array(N, A);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_lu(N, A);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(N) * (long)(N));
#else
  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
#endif

  free(A);
  return 0;
}
