/* SPDX-License-Identifier: MIT */
/*
 * LU decomposition in single-assignment style (reuse-in-place, the PRA of Guo et al.):
 * each step k defines a new matrix B from A -- the column below the pivot divided,
 * every other element copied -- then A dies (__pencil_kill) and B is copied back; a
 * second definition updates the trailing sub-matrix the same way. B is caller scratch,
 * killed at the end. Every read of A that is not in place (A[k][k], A[i][k], A[k][j])
 * falls in the part of A that the step only copies: B can live in A's memory, the
 * copies and copy-backs disappear, and the loops over i and j stay parallel.
 * Sizes: -DN=...;
 * -DBENCH: the memory benchmark's size (python -m test_suite.bench --kernels memory, whose
 * medium dataset it is: gcc -O3 about 1-3 s); -DPENCILCC_BENCH: that benchmark's build
 * (the kernel call timed, checksums printed instead of every element).
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <stdio.h>
#include <pencil.h>
#ifdef PENCILCC_BENCH
# include <time.h>

/* Benchmark build (test_suite/bench, the memory group): time the kernel call,
 * print one checksum line set per output array instead of every element. */
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

#ifdef BENCH
# define N 700
#endif
#ifndef N
# define N 40
#endif

static void lu_ssa(int n, double A[static const restrict n][n], double B[static const restrict n][n])
{
#pragma scop
  for (int k = 0; k < n; k++) {
    /* B = A with column k divided by the pivot below the diagonal. */
    for (int i = 0; i <= k; i++)
      for (int j = 0; j < n; j++)
        B[i][j] = A[i][j];
    for (int i = k + 1; i < n; i++) {
      for (int j = 0; j < k; j++)
        B[i][j] = A[i][j];
      B[i][k] = A[i][k] / A[k][k];
      for (int j = k + 1; j < n; j++)
        B[i][j] = A[i][j];
    }
    __pencil_kill(A);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i][j] = B[i][j];
    __pencil_kill(B);
    /* B = A with the trailing sub-matrix updated. */
    for (int i = 0; i <= k; i++)
      for (int j = 0; j < n; j++)
        B[i][j] = A[i][j];
    for (int i = k + 1; i < n; i++) {
      for (int j = 0; j <= k; j++)
        B[i][j] = A[i][j];
      for (int j = k + 1; j < n; j++)
        B[i][j] = A[i][j] - A[i][k] * A[k][j];
    }
    __pencil_kill(A);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i][j] = B[i][j];
    __pencil_kill(B);
  }
#pragma endscop
}

int main(void)
{
  static double A[N][N], B[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i == j) ? N + 1.0 : ((i * 7 + j * 3) % 11) / 11.0 - 0.4;
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  lu_ssa(N, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  pencilcc_bench_checksum("A", (const void *)A, (long)N * N);
#else
  printf("== A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
#endif
  return 0;
}
