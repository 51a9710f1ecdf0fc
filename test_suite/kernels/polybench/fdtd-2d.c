/* SPDX-License-Identifier: MIT */
/*
 * fdtd-2d: 2-D finite-difference time-domain (Yee) scheme for the TE mode:
 * each of TMAX steps sets the ey boundary row from a source signal, updates
 * ey and ex from the curl of hz, then hz from ex and ey.  Constant extents.
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

#ifndef TMAX
# define TMAX 20
#endif
#ifndef NX
# define NX 60
#endif
#ifndef NY
# define NY 70
#endif

static void init_array(int tmax, int nx, int ny, double ex[NX][NY],
                       double ey[NX][NY], double hz[NX][NY], double fict[TMAX])
{
  int i, j;

  for (i = 0; i < tmax; i++)
    fict[i] = (double)i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = ((double)i * (j + 1)) / nx;
      ey[i][j] = ((double)i * (j + 2)) / ny;
      hz[i][j] = ((double)i * (j + 3)) / nx;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
                           double ey[NX][NY], double hz[NX][NY],
                           double fict[TMAX])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j]
                                     + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(void)
{
  double (*ex)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double (*ey)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double (*hz)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double *fict = (double *)malloc(sizeof(double[TMAX]));
  int i, j;

  if (!ex || !ey || !hz || !fict)
    return 1;
  init_array(TMAX, NX, NY, ex, ey, hz, fict);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("ex", (const void *)ex, (long)(NX) * (long)(NY));
  pencilcc_bench_checksum("ey", (const void *)ey, (long)(NX) * (long)(NY));
  pencilcc_bench_checksum("hz", (const void *)hz, (long)(NX) * (long)(NY));
#else
  printf("== ex\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", ex[i][j]);
  printf("== ey\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", ey[i][j]);
  printf("== hz\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", hz[i][j]);
#endif

  free(ex);
  free(ey);
  free(hz);
  free(fict);
  return 0;
}
