/* SPDX-License-Identifier: MIT */
/*
 * correlation: Pearson correlation matrix of M variables observed N times.
 * data is N x M.  Columns are centred and scaled by sqrt(N) * stddev, with
 * a near-zero standard deviation replaced by 1 (data-dependent ternary), then
 * corr[i][j] := sum_k data[k][i]*data[k][j], unit diagonal.  Uses sqrt.
 * Constant array extents.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef M
# define M 64
#endif
#ifndef N
# define N 78
#endif

static void init_array(int m, int n, double *float_n, double data[N][M])
{
  int i, j;

  *float_n = (double)n;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] = (double)(i * j % m) / m + (double)((3 * i + j) % 11);
  /* One constant column: its standard deviation is 0 and must be clamped. */
  for (i = 0; i < n; i++)
    data[i][m / 2] = 3.0;
}

static void kernel_correlation(int m, int n, double float_n, double data[N][M],
                               double corr[M][M], double mean[M],
                               double stddev[M])
{
  int i, j, k;
  double eps = 0.1;

#pragma scop
  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }
  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = sqrt(stddev[j]);
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }
  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += data[k][i] * data[k][j];
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
#pragma endscop
}

int main(void)
{
  double float_n;
  double (*data)[M] = (double (*)[M])malloc(sizeof(double[N][M]));
  double (*corr)[M] = (double (*)[M])malloc(sizeof(double[M][M]));
  double *mean = (double *)malloc(sizeof(double[M]));
  double *stddev = (double *)malloc(sizeof(double[M]));
  int i, j;

  if (!data || !corr || !mean || !stddev)
    return 1;
  init_array(M, N, &float_n, data);
  kernel_correlation(M, N, float_n, data, corr, mean, stddev);

  printf("== corr\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < M; j++)
      printf("%.17g\n", corr[i][j]);
  printf("== stddev\n");
  for (i = 0; i < M; i++)
    printf("%.17g\n", stddev[i]);

  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
