/* SPDX-License-Identifier: MIT */
/*
 * jacobi-1d: 3-point Jacobi stencil on a 1-D grid, TSTEPS time steps, each
 * step ping-ponging between A and B (boundary cells fixed).  VLA extents.
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
# define N 120
#endif
#ifndef TSTEPS
# define TSTEPS 20
#endif

static void init_array(int n, double A[n], double B[n])
{
  int i;

  for (i = 0; i < n; i++) {
    A[i] = ((double)i + 2) / n;
    B[i] = ((double)i + 3) / n;
  }
}

static void kernel_jacobi_1d(int tsteps, int n, double A[n], double B[n])
{
  int t, i;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
#pragma endscop
}

int main(void)
{
  double *A = (double *)malloc(sizeof(double[N]));
  double *B = (double *)malloc(sizeof(double[N]));
  int i;

  if (!A || !B)
    return 1;
  init_array(N, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_jacobi_1d(TSTEPS, N, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(N));
  pencilcc_bench_checksum("B", (const void *)B, (long)(N));
#else
  printf("== A\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", A[i]);
  printf("== B\n");
  for (i = 0; i < N; i++)
    printf("%.17g\n", B[i]);
#endif

  free(A);
  free(B);
  return 0;
}
