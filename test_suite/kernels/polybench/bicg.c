/* SPDX-License-Identifier: MIT */
/*
 * bicg: the two matrix-vector products of a BiCG step, s := A^T * r and
 * q := A * p, computed in one sweep over A (N x M).  VLA extents.
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
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_bicg(M, N, A, s, q, p, r);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("s", (const void *)s, (long)(M));
  pencilcc_bench_checksum("q", (const void *)q, (long)(N));
#else
  printf("== s\n");
  for (i = 0; i < M; i++)
    printf("%.17g\n", s[i]);
  printf("== q\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", q[i]);
#endif

  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
