/* SPDX-License-Identifier: MIT */
/*
 * Caller arrays and scalars used as per-iteration temporaries (privatize-arrays):
 * each function's temporary gets a private copy per iteration of its outer loop,
 * and the caller sees the value of its last write, as in the source.
 */
#include <stdio.h>

#ifndef N
# define N 7
#endif
#ifndef M
# define M 5
#endif

/* doitgen: sum[] is rewritten for every (r, q). */
void doitgen(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np])
{
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

/* Element t[j] is last written at row min(j, n - 1): the last values come from many rows. */
void triangle(int n, int m, double a[n][m], double b[n][m], double t[m])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = i; j < m; j++)
      t[j] = a[i][j] * 2.0 + i;
    for (int j = i; j < m; j++)
      b[i][j] = t[j] * 3.0 - t[m - 1];
  }
#pragma endscop
}

/* A scalar of the caller, read after the region. */
double scalar(int n, double a[n], double b[n])
{
  double t = -1.0;
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    t = a[i] * 2.0;
    b[i] = t + 1.0;
  }
#pragma endscop
  return t;
}

/* Values enter the region: not privatized, still correct. */
void live_in(int n, int m, double a[n][m], double t[m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      t[j] = t[j] * 0.5 + a[i][j];
      a[i][j] = t[j];
    }
#pragma endscop
}

static void print(const char *name, const double *x, int count)
{
  printf("== %s\n", name);
  for (int k = 0; k < count; k++)
    printf("%.17g\n", x[k]);
}

int main(void)
{
  static double A[N][M][M + 1], C4[M + 1][M + 1], sum[M + 1], a[N][M], b[N][M], t[M], v[N], w[N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++) {
      for (int k = 0; k < M + 1; k++)
        A[i][j][k] = (double)((i * j + k) % 7) / 7;
      a[i][j] = (double)((i + 2 * j) % 5) / 5;
      b[i][j] = -1.0;
    }
  for (int i = 0; i < M + 1; i++) {
    sum[i] = 42.0;
    for (int j = 0; j < M + 1; j++)
      C4[i][j] = (double)(i * j % 3) / 3;
  }
  for (int j = 0; j < M; j++)
    t[j] = 9.0 + j;
  for (int i = 0; i < N; i++) {
    v[i] = i * 0.25;
    w[i] = 0.0;
  }
  doitgen(N, M, M + 1, A, C4, sum);
  print("A", &A[0][0][0], N * M * (M + 1));
  print("sum", sum, M + 1);
  triangle(N, M, a, b, t);
  print("b", &b[0][0], N * M);
  print("t", t, M);
  double last = scalar(N, v, w);
  print("w", w, N);
  printf("== last\n%.17g\n", last);
  live_in(N, M, a, t);
  print("a", &a[0][0], N * M);
  print("t_after_live_in", t, M);
  return 0;
}
