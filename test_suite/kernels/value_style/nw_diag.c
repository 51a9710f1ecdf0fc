/* SPDX-License-Identifier: MIT */
/*
 * Needleman-Wunsch in value style (reuse-in-place, the PRA of Guo et al., section 4.2):
 * the score matrix is rebuilt for every anti-diagonal d -- the cells of diagonal d
 * computed from their north, west and north-west neighbours, every other cell copied --
 * into a scratch matrix that is copied back; the scratch is killed at the end. The
 * cells read lie on diagonals d-1 and d-2, which the step only copies: the scratch
 * can live in the score matrix's memory, and each step only computes its diagonal.
 * Sizes: -DN=... -DM=...;
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

#ifdef BENCH
# define N 900
# define M 900
#endif
#ifndef N
# define N 37
#endif
#ifndef M
# define M 29
#endif
#define GAP 2

static void nw_diag(int n, int m, const int a[static const restrict n], const int b[static const restrict m],
                    int H[static const restrict n + 1][m + 1], int T[static const restrict n + 1][m + 1])
{
#pragma scop
  for (int d = 2; d <= n + m; d++) {
    for (int i = 0; i <= n; i++)
      for (int j = 0; j <= m; j++)
        if (i >= 1 && j >= 1 && i + j == d) {
          int diag = H[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 3 : -1);
          int up = H[i - 1][j] - GAP;
          int left = H[i][j - 1] - GAP;
          T[i][j] = diag > up ? (diag > left ? diag : left) : (up > left ? up : left);
        } else {
          T[i][j] = H[i][j];
        }
    __pencil_kill(H);
    for (int i = 0; i <= n; i++)
      for (int j = 0; j <= m; j++)
        H[i][j] = T[i][j];
  }
  __pencil_kill(T);
#pragma endscop
}

int main(void)
{
  static int a[N], b[M], H[N + 1][M + 1], T[N + 1][M + 1];
  for (int i = 0; i < N; i++)
    a[i] = (i * 7 + 3) % 4;
  for (int j = 0; j < M; j++)
    b[j] = (j * 5 + 1) % 4;
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= M; j++)
      H[i][j] = (i == 0) ? -GAP * j : (j == 0) ? -GAP * i : 0;
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  nw_diag(N, M, a, b, H, T);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  pencilcc_bench_checksum_int("H", (const void *)H, (long)(N + 1) * (M + 1));
#else
  printf("== H\n");
  for (int i = 0; i <= N; i++)
    for (int j = 0; j <= M; j++)
      printf("%d\n", H[i][j]);
#endif
  return 0;
}
