/* SPDX-License-Identifier: MIT */
/* Issue 27 (OpenCL target): see test_suite/e2e/test_opencl_host_loops.py. */
#include <stdio.h>
#include <pencil.h>
static void both(int n, double A[static const restrict 200], double B[static const restrict 200],
                 double M[static const restrict 200][200], double x[static const restrict 200], double y[static const restrict 200])
{
  for (int t = 0; t < 5; t++) {
    for (int i = 1; i < n - 1; i++) B[i] = 0.33333 * (A[i-1] + A[i] + A[i+1]);
    for (int i = 1; i < n - 1; i++) A[i] = 0.33333 * (B[i-1] + B[i] + B[i+1]);
  }
  for (int i = 0; i < n; i++) {
    y[i] = 0;
    for (int j = 0; j < n; j++) y[i] += M[i][j] * x[j];
  }
}
int main(void) {
  printf("== out\n");
  static double A[200], B[200], M[200][200], x[200], y[200];
  for (int i = 0; i < 200; i++) { A[i] = i % 7; B[i] = 0; x[i] = i % 3; for (int j = 0; j < 200; j++) M[i][j] = (i + j) % 5; }
  both(200, A, B, M, x, y);
  for (int i = 0; i < 200; i += 7) printf("%.17g\n%.17g\n", A[i], y[i]);
  return 0;
}
