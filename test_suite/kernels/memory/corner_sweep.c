/* SPDX-License-Identifier: MIT */
/*
 * The reverse L of Darte, Isoard & Yuki (RR-8840, section 2) as a program: step t
 * computes the L of a region-local N x N array A made of row t (right of the
 * diagonal) and column t (below it), each element from the element of the L
 * before it (A[t - 1][j], A[i][t - 1]); out gets each value, doubled, at its transposed place. At any time the live
 * elements are those of two successive L's: a row and a column of the array,
 * so the widths along i and along j are N - 1 whatever the order (no canonical
 * mapping folds A), while along (1, -1) the width is 2N - 2 and then, on the
 * differences with i = j, 1: contract-arrays' general basis stores A in
 * A[(a0 - a1) mod (2N - 1)][a0 mod 2], 2(2N - 1) elements instead of N^2, where
 * i - j is negative below the diagonal (the residue is taken non-negative).
 * Sizes: -DN=... (a constant: the moduli must be).
 */
#include <pencil.h>

#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 7
#endif

static void corner_sweep(const double in[static const restrict N][N], double out[static const restrict N][N])
{
  double A[N][N];
  for (int j = 0; j < N; j++)
    A[0][j] = in[0][j];
  for (int i = 1; i < N; i++)
    A[i][0] = in[i][0];
  for (int j = 0; j < N; j++)
    out[j][0] = 2.0 * A[0][j];
  for (int i = 1; i < N; i++)
    out[0][i] = 2.0 * A[i][0];
  for (int t = 1; t < N; t++) {
    for (int j = t; j < N; j++)
      A[t][j] = in[t][j] + 0.5 * A[t - 1][j];
    for (int i = t + 1; i < N; i++)
      A[i][t] = in[i][t] - 0.25 * A[i][t - 1];
    for (int j = t; j < N; j++)
      out[j][t] = 2.0 * A[t][j];
    for (int i = t + 1; i < N; i++)
      out[t][i] = 2.0 * A[i][t];
  }
}

int main(void)
{
  double (*in)[N] = malloc(sizeof(double) * N * N), (*out)[N] = malloc(sizeof(double) * N * N);
  if (!in || !out)
    return 1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      in[i][j] = (double)((i * 37 + j * 11) % 101) / 7.0;
  corner_sweep(in, out);
  printf("== out\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", out[i][j]);
  free(in);
  free(out);
  return 0;
}
