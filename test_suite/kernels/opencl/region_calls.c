/* SPDX-License-Identifier: MIT */
/* Issue 27 (OpenCL target): see test_suite/e2e/test_opencl_host_loops.py. */
#include <stdio.h>
#include <pencil.h>
#define N 4096
static void update(int n, const double A[static const restrict N], const double B[static const restrict N], double C[static const restrict N])
{
  for (int i = 0; i < n; i++) C[i] = C[i] * 0.5 + A[i] * B[i];
}
int main(int argc, char **argv __attribute__((unused))) {
  printf("== out\n");
  static double A[N], B[N], C[N];
  int touch = argc > 1;
  for (int i = 0; i < N; i++) { A[i] = i % 13; B[i] = (i % 7) * 0.25; C[i] = 0; }
  pencil_keep_device_data(1);
  for (int t = 0; t < 20; t++) {
    update(N, A, B, C);
    if (touch && t % 5 == 0) { A[t] += 100.0; B[N - 1 - t] = -1.0; pencil_host_touch(A); pencil_host_touch(B); }
  }
  pencil_keep_device_data(0);
  double s = 0; for (int i = 0; i < N; i++) s += C[i] * (i % 3 + 1);
  printf("%.17g\n%.17g\n%.17g\n", s, C[5], C[N - 2]);
  return 0;
}
