/* SPDX-License-Identifier: MIT */
/* Issue 27 (OpenCL target): see test_suite/e2e/test_opencl_host_loops.py. A loop writes B and a
   max reduction reads it, in one region; the reduced value is a region-local scalar. */
#include <stdio.h>
#include <math.h>
#include <pencil.h>
#define N 100000
/* `mx` ends in m[0]: demote-scalars makes the reduction one of m[0]. */
static void peak(int n, const double A[static const restrict N], double B[static const restrict N],
                 double m[static const restrict 1])
{
  double mx = -1e300;
  for (int i = 0; i < n; i++)
    B[i] = sqrt(A[i] * A[i] + 1.0) - 0.5 * A[i];
#pragma pencil independent reduction(max: mx)
  for (int i = 0; i < n; i++)
    mx = fmax(mx, B[i]);
  m[0] = mx;
}
/* `mx` is used otherwise: it stays the region's, and its loop runs in order. */
static void peak_scaled(int n, const double A[static const restrict N], double B[static const restrict N],
                        double m[static const restrict 2])
{
  double mx = -1e300;
  for (int i = 0; i < n; i++)
    B[i] = A[i] * A[i] - 3.0 * A[i];
#pragma pencil independent reduction(max: mx)
  for (int i = 0; i < n; i++)
    mx = fmax(mx, B[i]);
  m[0] = mx + 1.0;
  m[1] = 2 * mx;
}
int main(void) {
  printf("== out\n");
  static double A[N], B[N];
  double m[2] = {0, 0};
  for (int i = 0; i < N; i++) A[i] = ((i * 7919) % 1000) * 0.01 - 5.0 + (i == 61234) * 40.0;
  peak(N, A, B, m);
  double s = 0; for (int i = 0; i < N; i++) s += B[i] * (i % 3 + 1);
  printf("%.17g\n%.17g\n", m[0], s);
  peak_scaled(N, A, B, m);
  s = 0; for (int i = 0; i < N; i++) s += B[i] * (i % 5 + 1);
  printf("%.17g\n%.17g\n%.17g\n", m[0], m[1], s);
  return 0;
}
