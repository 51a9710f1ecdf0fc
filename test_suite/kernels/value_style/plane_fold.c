/* SPDX-License-Identifier: MIT */
/*
 * Plane folds with an array accumulator (reuse-in-place, the in-place folding of van
 * Cuyck & Scholz): a 3-D array folded along its first dimension into a 2-D accumulator,
 * each step writing `next = acc (+) X[k]` and copying `next` back into `acc`. `next` is
 * dead after the fold (killed, or local to the region): it can live in `acc`'s memory,
 * the copy back disappears, one accumulator is left, and the loops over the plane stay
 * parallel. fold_sum folds with +, fold_max with max (a local row buffer for each plane
 * row), keep_next must keep its scratch: the caller reads it after the region.
 */
#include <stdio.h>
#include <pencil.h>

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
  printf("== %s\n", name);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      printf("%.17g\n", a[i][j]);
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
  fold_sum(P, N, M, X, acc, next);
  print("acc", N, M, acc);
  fold_max(P, X, amax);
  print("amax", N, M, amax);
  keep_next(P, N, M, X, acc2, next);
  print("acc2", N, M, acc2);
  print("next", N, M, next);
  return 0;
}
