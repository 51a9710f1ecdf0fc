/* SPDX-License-Identifier: MIT */
/* Issue 27 item 3 (OpenCL target): see test_suite/e2e/test_opencl_resident_loops.py.
   `resident` marks the calls in loops pencilcc proves write no array on the host between
   region calls; `uploads` the calls in loops it cannot prove. */
#include <stdio.h>
#include <string.h>
#include <pencil.h>
#define N 4096
static void update(int n, const double A[static const restrict N], const double B[static const restrict N], double C[static const restrict N])
{
  for (int i = 0; i < n; i++) C[i] = C[i] * 0.5 + A[i] * B[i];
}
static void scale(int n, double A[static const restrict N], const double C[static const restrict N])
{
  for (int i = 0; i < n; i++) A[i] = 0.75 * A[i] + 0.001 * C[i];
}
static void plain(double *A, double *B, double *C)
{
  for (int t = 0; t < 20; t++)
    update(N, A, B, C); /* resident */
}
static void host_write(double *A, double *B, double *C)
{
  for (int t = 0; t < 20; t++) {
    update(N, A, B, C); /* uploads */
    A[t] += 1.0;
  }
}
static void pointer_moves(double *A, double *B, double *C)
{
  double *p = A, *q = B, *r;
  for (int t = 0; t < 20; t++) {
    update(N, p, q, C); /* uploads */
    r = p; p = q; q = r;
  }
}
static void nested(double *A, double *B, double *C)
{
  int s, t = 0;
  for (s = 0; s < 4; s++)
    while (t < 5 * (s + 1)) { if (t % 2) update(N, A, B, C); /* resident */ else scale(N, A, C); /* resident */ t++; }
}
static void keep(double *A, double *B, double *C)
{
  pencil_keep_device_data(1);
  for (int t = 0; t < 10; t++) update(N, A, B, C); /* resident */
  for (int t = 0; t < 10; t++) { update(N, A, B, C); /* uploads */ A[t] -= 0.5; pencil_host_touch(A); }
  pencil_keep_device_data(0);
}
void guarded(int n, double *A, double *C)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) C[i] = C[i] * 0.5 + A[i];
#pragma endscop
}
void outside(int n, double A[restrict n], double C[restrict n])
{
  int i;
  A[0] += 1;
#pragma scop
  for (i = 0; i < n; i++) C[i] = C[i] * 0.5 + A[i];
#pragma endscop
}
static void callee_problems(double *A, double *C)
{
  for (int t = 0; t < 10; t++) guarded(N, A, C); /* uploads */
  for (int t = 0; t < 10; t++) outside(N, A, C); /* uploads */
}
int main(int argc, char **argv) {
  static double A[N], B[N], C[N];
  const char *mode = argc > 1 ? argv[1] : "plain";
  printf("== out\n");
  for (int i = 0; i < N; i++) { A[i] = i % 13; B[i] = (i % 7) * 0.25; C[i] = 0; }
  if (strcmp(mode, "plain") == 0) plain(A, B, C);
  else if (strcmp(mode, "host-write") == 0) host_write(A, B, C);
  else if (strcmp(mode, "pointer") == 0) pointer_moves(A, B, C);
  else if (strcmp(mode, "nested") == 0) nested(A, B, C);
  else if (strcmp(mode, "keep") == 0) keep(A, B, C);
  else if (strcmp(mode, "callee") == 0) callee_problems(A, C);
  double s = 0; for (int i = 0; i < N; i++) s += (C[i] + A[i] - B[i]) * (i % 3 + 1);
  printf("%.17g\n%.17g\n%.17g\n%.17g\n", s, C[5], C[N - 2], A[7]);
  printf("== line\n%d\n", __LINE__);
  return 0;
}
