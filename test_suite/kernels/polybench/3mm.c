/* SPDX-License-Identifier: MIT */
/*
 * 3mm: three matrix products, G := (A*B) * (C*D).
 * E := A*B (NI x NJ), F := C*D (NJ x NL), G := E*F (NI x NL).
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
# define NK 60
#endif
#ifndef NL
# define NL 70
#endif
#ifndef NM
# define NM 80
#endif

/* Static global storage, as PolyBench does without heap allocation. */
static double A[NI][NK];
static double B[NK][NJ];
static double C[NJ][NM];
static double D[NM][NL];
static double E[NI][NJ];
static double F[NJ][NL];
static double G[NI][NL];

static void init_array(int ni, int nj, int nk, int nl, int nm,
                       double A[NI][NK], double B[NK][NJ], double C[NJ][NM],
                       double D[NM][NL])
{
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)((i * j + 1) % ni) / (5 * ni);
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)((i * (j + 1) + 2) % nj) / (5 * nj);
  for (i = 0; i < nj; i++)
    for (j = 0; j < nm; j++)
      C[i][j] = (double)(i * (j + 3) % nl) / (5 * nl);
  for (i = 0; i < nm; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double)((i * (j + 2) + 2) % nk) / (5 * nk);
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm,
                       double E[NI][NJ], double A[NI][NK], double B[NK][NJ],
                       double F[NJ][NL], double C[NJ][NM], double D[NM][NL],
                       double G[NI][NL])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < nm; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < nj; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
#pragma endscop
}

int main(void)
{
  int i, j;

  init_array(NI, NJ, NK, NL, NM, A, B, C, D);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_3mm(NI, NJ, NK, NL, NM, E, A, B, F, C, D, G);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("E", (const void *)E, (long)(NI) * (long)(NJ));
  pencilcc_bench_checksum("F", (const void *)F, (long)(NJ) * (long)(NL));
  pencilcc_bench_checksum("G", (const void *)G, (long)(NI) * (long)(NL));
#else
  printf("== E\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", E[i][j]);
  printf("== F\n");
  for (i = 0; i < NJ; i++)
    for (j = 0; j < NL; j++)
      printf("%.17g\n", F[i][j]);
  printf("== G\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NL; j++)
      printf("%.17g\n", G[i][j]);
#endif
  return 0;
}
