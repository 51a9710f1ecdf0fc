/* SPDX-License-Identifier: MIT */
/*
 * doitgen: multiresolution analysis kernel (MADNESS).  Every row A[r][q][:]
 * of a 3-D tensor is replaced by its product with the NP x NP matrix C4:
 * A[r][q][p] := sum_s A[r][q][s] * C4[s][p].  VLA extents (3-D).
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

#ifndef NR
# define NR 24
#endif
#ifndef NQ
# define NQ 20
#endif
#ifndef NP
# define NP 36
#endif

static void init_array(int nr, int nq, int np, double A[nr][nq][np],
                       double C4[np][np])
{
  int i, j, k;

  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (double)((i * j + k) % np) / np;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (double)(i * j % np) / np;
}

static void kernel_doitgen(int nr, int nq, int np, double A[nr][nq][np],
                           double C4[np][np], double sum[np])
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  int nr = NR, nq = NQ, np = NP;
  double (*A)[nq][np] = malloc(sizeof(double[nr][nq][np]));
  double (*C4)[np] = malloc(sizeof(double[np][np]));
  double *sum = malloc(sizeof(double[np]));
  int i, j, k;

  if (!A || !C4 || !sum)
    return 1;
  init_array(nr, nq, np, A, C4);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_doitgen(nr, nq, np, A, C4, sum);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("A", (const void *)A, (long)(nr) * (long)(nq) * (long)(np));
  pencilcc_bench_checksum("sum", (const void *)sum, (long)(np));
#else
  printf("== A\n");
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        printf("%.17g\n", A[i][j][k]);
  printf("== sum\n");
  for (i = 0; i < np; i++)
    printf("%.17g\n", sum[i]);
#endif

  free(A);
  free(C4);
  free(sum);
  return 0;
}
