/* SPDX-License-Identifier: MIT */
/* Issue 27 (OpenCL target): a parallel loop calling a function the device cannot run (a C
   function described by a pencil_access summary) stays on the host, and says so.
   See test_suite/e2e/test_opencl_host_loops.py. */
#include <stdio.h>
#include <pencil.h>
#define N 32
void halve_row_summary(int n, int m, int i, double A[pencil_array n][m]);
void halve_row(int n, int m, int i, double A[pencil_array n][m]) ACCESS(halve_row_summary);
void halve_row_summary(int n, int m, int i, double A[pencil_array n][m])
{
  for (int j = 0; j < m; j++)
    USE(A[i][j]);
  for (int j = 0; j < m; j++)
    DEF(A[i][j]);
}
static void rows(int n, double A[static const restrict N][N])
{
  for (int i = 0; i < n; i++)
    halve_row(n, n, i, A);
}
void halve_row(int n, int m, int i, double A[pencil_array n][m])
{
  (void)n;
  for (int j = 0; j < m; j++)
    A[i][j] = A[i][j] / 2 + j;
}
int main(void)
{
  static double A[N][N];
  printf("== out\n");
  for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) A[i][j] = i * j % 17;
  rows(N, A);
  for (int i = 0; i < N; i += 3) printf("%.17g\n", A[i][(i * 5) % N]);
  return 0;
}
