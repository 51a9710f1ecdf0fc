/* SPDX-License-Identifier: MIT */
/*
 * Plane folds with an array accumulator (reuse-in-place, the in-place folding of van
 * Cuyck & Scholz): a 3-D array folded along its first dimension into a 2-D accumulator,
 * each step writing `next = acc (+) X[k]` and copying `next` back into `acc`. `next` is
 * dead after the fold (killed, or local to the region): it can live in `acc`'s memory,
 * the copy back disappears, one accumulator is left, and the loops over the plane stay
 * parallel. fold_sum folds with +, fold_max with max (a local row buffer for each plane
 * row), keep_next must keep its scratch: the caller reads it after the region.
 * Sizes: -DP=... -DN=... -DM=...;
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

/* Benchmark build (test_suite/bench, the memory group): time the kernel calls,
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
# define P 512
# define N 512
# define M 512
#endif
#ifndef P
# define P 9
#endif
#ifndef N
# define N 13
#endif
#ifndef M
# define M 11
#endif

static void fold_sum(int p, int n, int m, const double X[static const restrict p][n][m],
                     double acc[static const restrict n][m], double next[static const restrict n][m])
{
#pragma scop
  for (int k = 0; k < p; k++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        next[i][j] = acc[i][j] + X[k][i][j];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        acc[i][j] = next[i][j];
  }
  __pencil_kill(next);
#pragma endscop
}

static void fold_max(int p, const double X[static const restrict p][N][M], double acc[static const restrict N][M])
{
#pragma scop
  {
    double next[N][M];
    for (int k = 0; k < p; k++) {
      for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
          next[i][j] = acc[i][j] > X[k][i][j] ? acc[i][j] : X[k][i][j];
      for (int i = 0; i < N; i++)
        for (int j = 0; j < M; j++)
          acc[i][j] = next[i][j];
    }
  }
#pragma endscop
}

static void keep_next(int p, int n, int m, const double X[static const restrict p][n][m],
                      double acc[static const restrict n][m], double next[static const restrict n][m])
{
#pragma scop
  for (int k = 0; k < p; k++) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        next[i][j] = acc[i][j] * 0.5 + X[k][i][j];
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        acc[i][j] = next[i][j];
  }
#pragma endscop
}

static void print(const char *name, int n, int m, double a[n][m])
{
#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum(name, (const void *)a, (long)n * m);
#else
  printf("== %s\n", name);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      printf("%.17g\n", a[i][j]);
#endif
}

int main(void)
{
  static double X[P][N][M], acc[N][M], next[N][M], amax[N][M], acc2[N][M];
  for (int k = 0; k < P; k++)
    for (int i = 0; i < N; i++)
      for (int j = 0; j < M; j++)
        X[k][i][j] = ((k * 31 + i * 7 + j * 3) % 23) / 4.0 - 2.5;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      acc[i][j] = i - j * 0.25;
      amax[i][j] = -1.0;
      acc2[i][j] = 1.0;
    }
#ifdef PENCILCC_BENCH
  /* The three folds timed together (one clock_gettime before and after, as --callgrind
   * needs); each accumulator is final once its fold returns, so its checksum can wait. */
  double pencilcc_bench_start = pencilcc_bench_now();
  fold_sum(P, N, M, X, acc, next);
  fold_max(P, X, amax);
  keep_next(P, N, M, X, acc2, next);
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  print("acc", N, M, acc);
  print("amax", N, M, amax);
#else
  fold_sum(P, N, M, X, acc, next);
  print("acc", N, M, acc);
  fold_max(P, X, amax);
  print("amax", N, M, amax);
  keep_next(P, N, M, X, acc2, next);
#endif
  print("acc2", N, M, acc2);
  print("next", N, M, next);
  return 0;
}
