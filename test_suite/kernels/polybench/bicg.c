/* SPDX-License-Identifier: MIT */
/*
 * bicg: the two matrix-vector products of a BiCG step, s := A^T * r and
 * q := A * p, computed in one sweep over A (N x M).  VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 82
#endif
#ifndef N
# define N 96
#endif

static void init_array(int m, int n, double A[n][m], double r[n], double p[m])
{
  int i, j;

  for (i = 0; i < m; i++)
    p[i] = (double)(i % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (double)(i % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (double)(i * (j + 1) % n) / n;
  }
}

static void kernel_bicg(int m, int n, double A[n][m], double s[m],
                        double q[n], double p[m], double r[n])
{
  int i, j;

#pragma scop
  for (i = 0; i < m; i++)
    s[i] = 0.0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
#pragma endscop
}

int main(void)
{
  double (*A)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  double *s = (double *)malloc(sizeof(double[M]));
  double *q = (double *)malloc(sizeof(double[N]));
  double *p = (double *)malloc(sizeof(double[M]));
  double *r = (double *)malloc(sizeof(double[N]));
  int i;

  if (!A || !s || !q || !p || !r)
    return 1;
  init_array(M, N, A, r, p);
  kernel_bicg(M, N, A, s, q, p, r);

  printf("== s\n");
  for (i = 0; i < M; i++)
    printf("%.17g\n", s[i]);
  printf("== q\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", q[i]);

  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
