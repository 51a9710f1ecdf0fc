/* SPDX-License-Identifier: MIT */
/*
 * PENCIL spmv: power-iteration-style sparse matrix-vector products on a CSR
 * matrix, TSTEPS times y := A x, x := y / 2 + 1 / 4.  The bounds of the loop
 * over a row's non-zeros are array values (rowptr[i], rowptr[i + 1]) and x is
 * gathered through col[k]: pencilcc runs that loop whole as one opaque
 * statement per row, so the rows are still parallel (issue 8).  Row lengths
 * vary: 1 to 2 DEG non-zeros, every 97th row 20 DEG more.
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
# define N 1000
#endif
#ifndef DEG
# define DEG 8
#endif
#ifndef TSTEPS
# define TSTEPS 3
#endif

static int row_length(int i, int deg)
{
  return 1 + (int)(((long)i * 7919) % (2 * deg)) + (i % 97 == 0 ? 20 * deg : 0);
}

static void init_matrix(int n, int deg, int rowptr[n + 1], int *col, double *val, double x[n])
{
  int i, k, nnz = 0;

  for (i = 0; i < n; i++) {
    int len = row_length(i, deg);
    rowptr[i] = nnz;
    for (k = 0; k < len; k++) {
      col[nnz] = (int)(((long)i * 31 + (long)k * 1031) % n);
      val[nnz] = (double)((i + k) % 5 + 1) / (5.0 * len);
      nnz++;
    }
    x[i] = (double)(i % 13) / 13.0;
  }
  rowptr[n] = nnz;
}

static void kernel_spmv(int tsteps, int n, int nnz, const int rowptr[static const restrict n + 1],
                        const int col[static const restrict nnz], const double val[static const restrict nnz],
                        double x[static const restrict n], double y[static const restrict n])
{
  for (int t = 0; t < tsteps; t++) {
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
        s += val[k] * x[col[k]];
      y[i] = s;
    }
    for (int i = 0; i < n; i++)
      x[i] = 0.5 * y[i] + 0.25;
  }
}

int main(void)
{
  int n = N, deg = DEG, tsteps = TSTEPS;
  long total = 0;
  int i;

  for (i = 0; i < n; i++)
    total += row_length(i, deg);
  int nnz = (int)total;
  int *rowptr = malloc(sizeof(int[n + 1]));
  int *col = malloc(sizeof(int) * (size_t)nnz);
  double *val = malloc(sizeof(double) * (size_t)nnz);
  double *x = malloc(sizeof(double[n]));
  double *y = malloc(sizeof(double[n]));

  if (!rowptr || !col || !val || !x || !y)
    return 1;
  init_matrix(n, deg, rowptr, col, val, x);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_spmv(tsteps, n, nnz, rowptr, col, val, x, y);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("x", (const void *)x, (long)(n));
  pencilcc_bench_checksum("y", (const void *)y, (long)(n));
#else
  printf("== x\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", x[i]);
  printf("== y\n");
  for (i = 0; i < n; i++)
    printf("%.17g\n", y[i]);
#endif

  free(rowptr);
  free(col);
  free(val);
  free(x);
  free(y);
  return 0;
}
