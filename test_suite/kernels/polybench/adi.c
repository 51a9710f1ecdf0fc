/* SPDX-License-Identifier: MIT */
/*
 * adi: alternating direction implicit solver for 2-D heat diffusion.  Each
 * of TSTEPS steps does a column sweep (tridiagonal solves along columns of u
 * into v, Thomas algorithm with a forward elimination into p/q and a
 * decreasing back-substitution loop) and then a row sweep (v into u).
 * The scheme coefficients are scalars computed at the start of the scop.
 * Constant array extents.
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
# define N 60
#endif
#ifndef TSTEPS
# define TSTEPS 10
#endif

static void init_array(int n, double u[N][N])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      u[i][j] = (double)(i + n - j) / n;
}

static void kernel_adi(int tsteps, int n, double u[N][N], double v[N][N],
                       double p[N][N], double q[N][N])
{
  int t, i, j;
  double DX, DY, DT, B1, B2, mul1, mul2, a, b, c, d, e, f;

#pragma scop
  DX = 1.0 / n;
  DY = 1.0 / n;
  DT = 1.0 / tsteps;
  B1 = 2.0;
  B2 = 1.0;
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);
  a = -mul1 / 2.0;
  b = 1.0 + mul1;
  c = a;
  d = -mul2 / 2.0;
  e = 1.0 + mul2;
  f = d;
  for (t = 1; t <= tsteps; t++) {
    /* column sweep */
    for (i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i]
                   - f * u[j][i + 1] - a * q[i][j - 1])
                  / (a * p[i][j - 1] + b);
      }
      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    }
    /* row sweep */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j]
                   - c * v[i + 1][j] - d * q[i][j - 1])
                  / (d * p[i][j - 1] + e);
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
    }
  }
#pragma endscop
}

int main(void)
{
  /* calloc: the sweeps never write some border cells of v, p and q. */
  double (*u)[N] = (double (*)[N])calloc(1, sizeof(double[N][N]));
  double (*v)[N] = (double (*)[N])calloc(1, sizeof(double[N][N]));
  double (*p)[N] = (double (*)[N])calloc(1, sizeof(double[N][N]));
  double (*q)[N] = (double (*)[N])calloc(1, sizeof(double[N][N]));
  int i, j;

  if (!u || !v || !p || !q)
    return 1;
  init_array(N, u);
#ifdef PENCILCC_BENCH
  double pencilcc_bench_start = pencilcc_bench_now();
#endif
  kernel_adi(TSTEPS, N, u, v, p, q);
#ifdef PENCILCC_BENCH
  fprintf(stderr, "pencilcc-bench-seconds: %.6f\n", pencilcc_bench_now() - pencilcc_bench_start);
#endif

#ifdef PENCILCC_BENCH
  pencilcc_bench_checksum("u", (const void *)u, (long)(N) * (long)(N));
  pencilcc_bench_checksum("v", (const void *)v, (long)(N) * (long)(N));
#else
  printf("== u\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", u[i][j]);
  printf("== v\n");
  for (i = 0; i < N; i++)
    for (j = 0; j < N; j++)
      printf("%.17g\n", v[i][j]);
#endif

  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}
