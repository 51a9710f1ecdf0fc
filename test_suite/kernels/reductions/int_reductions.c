/* SPDX-License-Identifier: MIT */
/*
 * Updates of integer array elements written the way C programs spell them:
 * a PolyBench-style max_score macro, a MIN macro, an unsigned compound sum, xor,
 * and (never reordered) a signed int sum, whose overflow C leaves undefined, an
 * fmax and a double sum, floating point. pencilcc finds the others as exact reductions
 * (clangpass.poly.exact_reductions); the output must equal gcc -O0's.
 */
#include <math.h>
#include <stdio.h>

#ifndef N
# define N 37
#endif

#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
#define MIN(a, b) ((a) < (b) ? (a) : (b))

static int w[N][N];
static int best[N][N];
static int low[N];
static unsigned total[N];
static int ssum[N];
static int bits[N];
static double peak[N];
static double sum[N];

static void kernel(int n)
{
  int i, j, k;

#pragma scop
  for (i = n - 1; i >= 0; i--)
    for (j = i + 1; j < n; j++) {
      best[i][j] = max_score(best[i][j], best[i][j - 1]);
      for (k = i + 1; k < j; k++)
        best[i][j] = max_score(best[i][j], best[i][k] + w[k][j] - 3);
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      low[j] = MIN(low[j], w[i][j] - i);
      total[j] += (unsigned)(w[i][j] * (i - j));
      total[j] -= (unsigned)i;
      ssum[j] += w[i][j] - i;
      bits[i] ^= w[i][j] << (j % 5);
      peak[j] = fmax(peak[j], w[i][j] * 0.1 - i);
      sum[j] = sum[j] + w[i][j] * 0.1;
    }
#pragma endscop
}

int main(void)
{
  int i, j;

  for (i = 0; i < N; i++) {
    low[i] = 1000;
    total[i] = i;
    ssum[i] = -i;
    bits[i] = 7 * i;
    peak[i] = -1e9;
    sum[i] = 0.5;
    for (j = 0; j < N; j++) {
      w[i][j] = (i * 13 + j * 7) % 17 - 5;
      best[i][j] = (i * j) % 3;
    }
  }
  kernel(N);
  printf("== best\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%d\n", best[i][j]);
  printf("== low total ssum bits\n");
  for (i = 0; i < N; i++)
    printf("%d\n%u\n%d\n%d\n", low[i], total[i], ssum[i], bits[i]);
  printf("== peak sum\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n%.17g\n", peak[i], sum[i]);
  return 0;
}
