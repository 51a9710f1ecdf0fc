/* SPDX-License-Identifier: MIT */
/*
 * Time-expanded 2-D five-point stencil in value style: step t writes the new
 * plane A[t + 1] of a scratch array the host allocates (tsteps + 1 planes of
 * n x m) and kills after the region. contract-arrays folds the time
 * dimension: A[t mod 2][i][j], two planes.
 * Sizes: -DTSTEPS=... -DN=... -DM=...;
 * -DBENCH: the memory benchmark's size (python -m test_suite.bench --kernels memory, whose
 * medium dataset it is: gcc -O3 about 1-3 s); -DPENCILCC_BENCH: that benchmark's build
 * (the kernel call timed, checksums printed instead of every element).
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <pencil.h>

#include <stdio.h>
#include <stdlib.h>
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
# define TSTEPS 150
# define N 1000
# define M 1000
#endif
#ifndef TSTEPS
# define TSTEPS 6
#endif
#ifndef N
# define N 11
#endif
#ifndef M
# define M 9
#endif

static void stencil_2d_expanded(int tsteps, int n, int m, const double in[static const restrict n][m],
                                double out[static const restrict n][m],
                                double A[static const restrict tsteps + 1][n][m])
{
  __pencil_assume(tsteps >= 0);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[0][i][j] = in[i][j];
  for (int t = 0; t < tsteps; t++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < m; j++)
        if (i == 0 || i == n - 1 || j == 0 || j == m - 1)
          A[t + 1][i][j] = A[t][i][j];
        else
          A[t + 1][i][j] = 0.2 * (A[t][i][j] + A[t][i - 1][j] + A[t][i + 1][j]
                                  + A[t][i][j - 1] + A[t][i][j + 1]);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      out[i][j] = A[tsteps][i][j];
  __pencil_kill(A);
}

int main(void)
{
  double (*in)[M] = malloc(sizeof(double) * N * M), (*out)[M] = malloc(sizeof(double) * N * M);
  double (*A)[N][M] = malloc(sizeof(double) * (TSTEPS + 1) * N * M);
  if (!in || !out || !A)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      in[i][j] = (double)((i * 31 + j * 17) % 97) / 9.0;
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  stencil_2d_expanded(TSTEPS, N, M, in, out, A);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  pencilcc_bench_checksum("out", (const void *)out, (long)N * M);
#else
  printf("== out\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      printf("%.17g\n", out[i][j]);
#endif
  free(in);
  free(out);
  free(A);
  return 0;
}
