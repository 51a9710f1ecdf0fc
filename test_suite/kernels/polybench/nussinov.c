/* SPDX-License-Identifier: MIT */
/*
 * nussinov: RNA secondary-structure prediction by dynamic programming
 * (maximum number of complementary base pairs).  table[i][j] is the best
 * score for the subsequence seq[i..j]; i runs backwards.  The scop has
 * affine if/else conditions, data-dependent max ternaries and int arrays.
 * Bases are encoded 0..3 and b1, b2 pair when b1 + b2 == 3.  Constant
 * array extents.
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

static void pencilcc_bench_checksum_int(const char *name, const void *array, long count)
{
  const int *x = (const int *)array;
  long long sum = 0, abs_sum = 0, weighted = 0;
  long k;

  for (k = 0; k < count; k++) {
    sum += x[k];
    abs_sum += x[k] < 0 ? -(long long)x[k] : x[k];
    weighted += (long long)(k % 11 + 1) * x[k];
  }
  printf("== %s\n%ld\n%lld\n%lld\n%lld\n", name, count, sum, abs_sum, weighted);
}
#endif

#ifndef N
# define N 80
#endif

static int seq[N];
static int table[N][N];

static void init_array(int n, int seq[N], int table[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    seq[i] = (i * 7 + i / 3 + 1) % 4;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n, int seq[N], int table[N][N])
{
  int i, j, k;

#pragma scop
  for (i = n - 1; i >= 0; i--) {
    for (j = i + 1; j < n; j++) {
      if (j - 1 >= 0)
        table[i][j] = table[i][j] >= table[i][j - 1] ? table[i][j]
                                                     : table[i][j - 1];
      if (i + 1 < n)
        table[i][j] = table[i][j] >= table[i + 1][j] ? table[i][j]
                                                     : table[i + 1][j];
      if (j - 1 >= 0 && i + 1 < n) {
        if (i < j - 1)
          table[i][j] =
              table[i][j] >= table[i + 1][j - 1] + (seq[i] + seq[j] == 3 ? 1 : 0)
                  ? table[i][j]
                  : table[i + 1][j - 1] + (seq[i] + seq[j] == 3 ? 1 : 0);
        else
          table[i][j] = table[i][j] >= table[i + 1][j - 1]
                            ? table[i][j]
                            : table[i + 1][j - 1];
      }
      for (k = i + 1; k < j; k++)
        table[i][j] = table[i][j] >= table[i][k] + table[k + 1][j]
                          ? table[i][j]
                          : table[i][k] + table[k + 1][j];
    }
  }
#pragma endscop
}

int main(void)
{
  int i, j;

  init_array(N, seq, table);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_nussinov(N, seq, table);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum_int("table", (const void *)table, (long)(N) * (long)(N));
#else
  printf("== table\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%d\n", table[i][j]);
#endif
  return 0;
}
