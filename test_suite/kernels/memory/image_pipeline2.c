/* SPDX-License-Identifier: MIT */
/*
 * A two-stage image pipeline over one whole-image scratch array the host
 * allocates and kills after the region: a horizontal blur into t1, a vertical
 * blur of t1 into out (image_pipeline.c without its third stage).
 * In the source order the first stage finishes before the second starts, so
 * contract-arrays leaves t1; the scheduler fuses the stages (the second shifted
 * by one row) and contract-scheduled folds t1 onto three rows (issue 26, item 5).
 * Sizes: -DH=... -DW=...;
 * -DBENCH: the memory benchmark's size (python -m test_suite.bench --kernels memory, whose
 * medium dataset it is: gcc -O3 about 1-3 s); -DPENCILCC_BENCH: that benchmark's build
 * (the kernel call timed, checksums printed instead of every element).
 */
#ifdef PENCILCC_BENCH
# define _POSIX_C_SOURCE 199309L
#endif
#include <pencil.h>

#include <stdio.h>
#include <stdlib.h>
#ifdef PENCILCC_BENCH
# include <time.h>

/* Benchmark build (test_suite/bench, the memory group): time the kernel call,
 * print one checksum line set per output array instead of every element. */
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

#ifdef BENCH
# define H 6000
# define W 6000
#endif
#ifndef H
# define H 13
#endif
#ifndef W
# define W 17
#endif

static void image_pipeline2(int h, int w, const double in[static const restrict h][w],
                           double out[static const restrict h][w],
                           double t1[static const restrict h][w])
{
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      t1[y][x] = (in[y][max(x - 1, 0)] + 2.0 * in[y][x] + in[y][min(x + 1, w - 1)]) * 0.25;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[y][x] = (t1[max(y - 1, 0)][x] + 2.0 * t1[y][x] + t1[min(y + 1, h - 1)][x]) * 0.25;
  __pencil_kill(t1);
}

int main(void)
{
  double (*in)[W] = malloc(sizeof(double) * H * W), (*out)[W] = malloc(sizeof(double) * H * W);
  double (*t1)[W] = malloc(sizeof(double) * H * W);
  if (!in || !out || !t1)
    return 1;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      in[y][x] = (double)((y * 13 + x * 7) % 64) / 8.0;
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  image_pipeline2(H, W, in, out, t1);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
  pencilcc_bench_checksum("out", (const void *)out, (long)H * W);
#else
  printf("== out\n");
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      printf("%.17g\n", out[y][x]);
#endif
  free(in);
  free(out);
  free(t1);
  return 0;
}
