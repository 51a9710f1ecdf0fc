/* SPDX-License-Identifier: MIT */
/*
 * gemm: general matrix-matrix product C := alpha*A*B + beta*C.
 * A is NI x NK, B is NK x NJ, C is NI x NJ.  Constant array extents.
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

#ifndef NI
# define NI 60
#endif
#ifndef NJ
# define NJ 70
#endif
#ifndef NK
# define NK 80
#endif

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)(i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*C)[NJ] = (double (*)[NJ])malloc(sizeof(double[NI][NJ]));
  double (*A)[NK] = (double (*)[NK])malloc(sizeof(double[NI][NK]));
  double (*B)[NJ] = (double (*)[NJ])malloc(sizeof(double[NK][NJ]));
  int i, j;

  if (!C || !A || !B)
    return 1;
  init_array(NI, NJ, NK, &alpha, &beta, C, A, B);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("C", (const void *)C, (long)(NI) * (long)(NJ));
#else
  printf("== C\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", C[i][j]);
#endif

  free(C);
  free(A);
  free(B);
  return 0;
}
