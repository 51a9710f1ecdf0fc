/* SPDX-License-Identifier: MIT */
/*
 * floyd-warshall: all-pairs shortest path lengths on a dense weighted graph
 * of N nodes (int weights, 999 meaning "no edge").  The relaxation
 * min(paths[i][j], paths[i][k] + paths[k][j]) is written as a
 * data-dependent ternary.  int data, VLA extents.
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
# define N 90
#endif

static void init_array(int n, int paths[n][n])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      paths[i][j] = i * j % 7 + 1 + (i + 2 * j) % 17;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 3 == 0)
        paths[i][j] = 999;
    }
}

static void kernel_floyd_warshall(int n, int paths[n][n])
{
  int i, j, k;

#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        paths[i][j] = paths[i][j] < paths[i][k] + paths[k][j]
                          ? paths[i][j]
                          : paths[i][k] + paths[k][j];
#pragma endscop
}

int main(void)
{
  int n = N;
  int (*paths)[n] = malloc(sizeof(int[n][n]));
  int i, j;

  if (!paths)
    return 1;
  init_array(n, paths);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_floyd_warshall(n, paths);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum_int("paths", (const void *)paths, (long)(n) * (long)(n));
#else
  printf("== paths\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%d\n", paths[i][j]);
#endif

  free(paths);
  return 0;
}
