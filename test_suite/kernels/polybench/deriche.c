/* SPDX-License-Identifier: MIT */
/*
 * deriche: Deriche recursive edge-detection / smoothing filter on a W x H
 * image.  A causal and an anti-causal second-order IIR filter run along
 * each row (j increasing, then j decreasing), their sum forms an
 * intermediate image, and the same is done along columns.  The filter
 * coefficients are computed inside the scop with exp(), and the IIR state is
 * carried in scalars written inside the scop.  Constant array extents.
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

#ifndef W
# define W 72
#endif
#ifndef H
# define H 54
#endif

static void init_array(int w, int h, double *alpha, double imgIn[W][H])
{
  int i, j;

  *alpha = 0.25;
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgIn[i][j] = (double)((313 * i + 991 * j) % 65536) / 65535.0;
}

static void kernel_deriche(int w, int h, double alpha, double imgIn[W][H],
                           double imgOut[W][H], double Y1[W][H],
                           double Y2[W][H])
{
  int i, j;
  double k, a1, a2, a3, a4, a5, a6, a7, a8, b1, b2, c1, c2;
  double xm1, tm1, ym1, ym2, xp1, xp2, tp1, tp2, yp1, yp2;

#pragma scop
  k = (1.0 - exp(-alpha)) * (1.0 - exp(-alpha))
      / (1.0 + 2.0 * alpha * exp(-alpha) - exp(-2.0 * alpha));
  a1 = k;
  a5 = k;
  a2 = k * exp(-alpha) * (alpha - 1.0);
  a6 = a2;
  a3 = k * exp(-alpha) * (alpha + 1.0);
  a7 = a3;
  a4 = -k * exp(-2.0 * alpha);
  a8 = a4;
  b1 = 2.0 * exp(-alpha);
  b2 = -exp(-2.0 * alpha);
  c1 = 1.0;
  c2 = 1.0;

  /* causal filter along rows */
  for (i = 0; i < w; i++) {
    ym1 = 0.0;
    ym2 = 0.0;
    xm1 = 0.0;
    for (j = 0; j < h; j++) {
      Y1[i][j] = a1 * imgIn[i][j] + a2 * xm1 + b1 * ym1 + b2 * ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = Y1[i][j];
    }
  }
  /* anti-causal filter along rows */
  for (i = 0; i < w; i++) {
    yp1 = 0.0;
    yp2 = 0.0;
    xp1 = 0.0;
    xp2 = 0.0;
    for (j = h - 1; j >= 0; j--) {
      Y2[i][j] = a3 * xp1 + a4 * xp2 + b1 * yp1 + b2 * yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = Y2[i][j];
    }
  }
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgOut[i][j] = c1 * (Y1[i][j] + Y2[i][j]);

  /* causal filter along columns */
  for (j = 0; j < h; j++) {
    tm1 = 0.0;
    ym1 = 0.0;
    ym2 = 0.0;
    for (i = 0; i < w; i++) {
      Y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 + b1 * ym1 + b2 * ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = Y1[i][j];
    }
  }
  /* anti-causal filter along columns */
  for (j = 0; j < h; j++) {
    tp1 = 0.0;
    tp2 = 0.0;
    yp1 = 0.0;
    yp2 = 0.0;
    for (i = w - 1; i >= 0; i--) {
      Y2[i][j] = a7 * tp1 + a8 * tp2 + b1 * yp1 + b2 * yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = Y2[i][j];
    }
  }
  for (i = 0; i < w; i++)
    for (j = 0; j < h; j++)
      imgOut[i][j] = c2 * (Y1[i][j] + Y2[i][j]);
#pragma endscop
}

int main(void)
{
  double alpha;
  double (*imgIn)[H] = (double (*)[H])malloc(sizeof(double[W][H]));
  double (*imgOut)[H] = (double (*)[H])malloc(sizeof(double[W][H]));
  double (*Y1)[H] = (double (*)[H])malloc(sizeof(double[W][H]));
  double (*Y2)[H] = (double (*)[H])malloc(sizeof(double[W][H]));
  int i, j;

  if (!imgIn || !imgOut || !Y1 || !Y2)
    return 1;
  init_array(W, H, &alpha, imgIn);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_deriche(W, H, alpha, imgIn, imgOut, Y1, Y2);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("imgOut", (const void *)imgOut, (long)(W) * (long)(H));
#else
  printf("== imgOut\n");
  for (i = 0; i < W; i++)
    for (j = 0; j < H; j++)
      printf("%.17g\n", imgOut[i][j]);
#endif

  free(imgIn);
  free(imgOut);
  free(Y1);
  free(Y2);
  return 0;
}
