/* SPDX-License-Identifier: MIT */
/*
 * gramschmidt: QR decomposition of an M x N matrix (M >= N) by modified
 * Gram-Schmidt: A = Q*R with Q having orthonormal columns and R upper
 * triangular.  A is overwritten by the residuals.  The scalar nrm is written
 * inside the scop.  Uses sqrt.  Constant array extents.
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <math.h>
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

#ifndef M
# define M 72
#endif
#ifndef N
# define N 60
#endif

static void init_array(int m, int n, double A[M][N], double R[N][N],
                       double Q[M][N])
{
  int i, j;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * j) % m) / m + (i == j ? 10.0 : 0.0);
      Q[i][j] = 0.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
}

static void kernel_gramschmidt(int m, int n, double A[M][N], double R[N][N],
                               double Q[M][N])
{
  int i, j, k;
  double nrm;

#pragma scop
  for (k = 0; k < n; k++) {
    nrm = 0.0;
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
#pragma endscop
}

int main(void)
{
  double (*A)[N] = (double (*)[N])malloc(sizeof(double[M][N]));
  double (*R)[N] = (double (*)[N])malloc(sizeof(double[N][N]));
  double (*Q)[N] = (double (*)[N])malloc(sizeof(double[M][N]));
  int i, j;

  if (!A || !R || !Q)
    return 1;
  init_array(M, N, A, R, Q);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_gramschmidt(M, N, A, R, Q);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("R", (const void *)R, (long)(N) * (long)(N));
  pencilcc_bench_checksum("Q", (const void *)Q, (long)(M) * (long)(N));
  pencilcc_bench_checksum("A", (const void *)A, (long)(M) * (long)(N));
#else
  printf("== R\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", R[i][j]);
  printf("== Q\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", Q[i][j]);
  printf("== A\n");
  for (i = 0; i < M; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", A[i][j]);
#endif

  free(A);
  free(R);
  free(Q);
  return 0;
}
