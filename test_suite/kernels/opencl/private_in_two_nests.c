/* SPDX-License-Identifier: MIT */
/* Issue 27 (OpenCL target): see test_suite/e2e/test_opencl_host_loops.py. */
#include <stdio.h>
#include <pencil.h>
#define N 64
static void two(int n, double A[static const restrict N][N], double B[static const restrict N][N],
                double C[static const restrict N], double D[static const restrict N][N])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) C[j] = A[i][j] * 2;
    for (int j = 0; j < n; j++) B[i][j] = C[j] + C[n - 1 - j];
  }
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) C[j] = B[i][j] + 1;
    for (int j = 0; j < n; j++) D[i][j] = C[j] * C[n - 1 - j];
  }
}
int main(void) {
  printf("== out\n");
  static double A[N][N], B[N][N], C[N], D[N][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = (i * 7 + j) % 11;
  two(N, A, B, C, D);
  for (int i = 0; i < N; i += 5) printf("%.17g\n%.17g\n%.17g\n", B[i][i], D[i][N - 1 - i], C[i]);
  return 0;
}
