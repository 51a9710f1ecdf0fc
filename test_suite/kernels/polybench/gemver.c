/* SPDX-License-Identifier: MIT */
/*
 * gemver: rank-2 update followed by two matrix-vector products,
 *   A := A + u1*v1^T + u2*v2^T,  x := x + beta*A^T*y + z,  w := w + alpha*A*x.
 * A is N x N, VLA extents.
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

#ifndef N
# define N 100
#endif

static void init_array(int n, double *alpha, double *beta, double A[n][n],
                       double u1[n], double v1[n], double u2[n], double v2[n],
                       double w[n], double x[n], double y[n], double z[n])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++) {
    u1[i] = (double)i / n;
    u2[i] = (double)((i + 1) / 2) / n;
    v1[i] = (double)((i + 1) / 4) / n;
    v2[i] = (double)((i + 1) / 6) / n;
    y[i] = (double)((i + 1) / 8) / n;
    z[i] = (double)((i + 1) / 9) / n;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double)(i * j % n) / n;
  }
}

static void kernel_gemver(int n, double alpha, double beta, double A[n][n],
                          double u1[n], double v1[n], double u2[n],
                          double v2[n], double w[n], double x[n], double y[n],
                          double z[n])
{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];
  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double *u1 = (double *)malloc(sizeof(double[N]));
  double *v1 = (double *)malloc(sizeof(double[N]));
  double *u2 = (double *)malloc(sizeof(double[N]));
  double *v2 = (double *)malloc(sizeof(double[N]));
  double *w = (double *)malloc(sizeof(double[N]));
  double *x = (double *)malloc(sizeof(double[N]));
  double *y = (double *)malloc(sizeof(double[N]));
  double *z = (double *)malloc(sizeof(double[N]));
  int i, j;

  if (!A || !u1 || !v1 || !u2 || !v2 || !w || !x || !y || !z)
    return 1;
  init_array(N, &alpha, &beta, A, u1, v1, u2, v2, w, x, y, z);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_gemver(N, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(N) * (long)(N));
  pencilcc_bench_checksum("x", (const void *)x, (long)(N));
  pencilcc_bench_checksum("w", (const void *)w, (long)(N));
#else
  printf("== A\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
  printf("== x\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", x[i]);
  printf("== w\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", w[i]);
#endif

  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
