/* SPDX-License-Identifier: MIT */
/*
 * 2mm: two chained matrix products, D := alpha*A*B*C + beta*D.
 * tmp := alpha*A*B (NI x NJ), then D := beta*D + tmp*C (NI x NL).
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
# define NI 40
#endif
#ifndef NJ
# define NJ 50
#endif
#ifndef NK
# define NK 70
#endif
#ifndef NL
# define NL 80
#endif

static void init_array(int ni, int nj, int nk, int nl, double *alpha,
                       double *beta, double A[NI][NK], double B[NK][NJ],
                       double C[NJ][NL], double D[NI][NL])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 1) % nj) / nj;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (double)((i * (j + 3) + 1) % nl) / nl;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double)(i * (j + 2) % nk) / nk;
}

static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha,
                       double beta, double tmp[NI][NJ], double A[NI][NK],
                       double B[NK][NJ], double C[NJ][NL], double D[NI][NL])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (k = 0; k < nj; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*tmp)[NJ] = (double (*)[NJ])malloc(sizeof(double[NI][NJ]));
  double (*A)[NK] = (double (*)[NK])malloc(sizeof(double[NI][NK]));
  double (*B)[NJ] = (double (*)[NJ])malloc(sizeof(double[NK][NJ]));
  double (*C)[NL] = (double (*)[NL])malloc(sizeof(double[NJ][NL]));
  double (*D)[NL] = (double (*)[NL])malloc(sizeof(double[NI][NL]));
  int i, j;

  if (!tmp || !A || !B || !C || !D)
    return 1;
  init_array(NI, NJ, NK, NL, &alpha, &beta, A, B, C, D);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_2mm(NI, NJ, NK, NL, alpha, beta, tmp, A, B, C, D);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("tmp", (const void *)tmp, (long)(NI) * (long)(NJ));
  pencilcc_bench_checksum("D", (const void *)D, (long)(NI) * (long)(NL));
#else
  printf("== tmp\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", tmp[i][j]);
  printf("== D\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      printf("%.17g\n", D[i][j]);
#endif

  free(tmp);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
