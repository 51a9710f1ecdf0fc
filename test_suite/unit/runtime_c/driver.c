/* SPDX-License-Identifier: MIT */
/*
 * Test driver of runtime/pencilcc_runtime.c (test_suite/unit/test_opencl_runtime.py).
 *
 * It calls the runtime the way generated host code does, with hand-written
 * kernels, falls back to the same loops on the CPU when a launch is refused,
 * checks every result against a CPU computation and prints facts as
 * "key=value" lines on stdout. The exit status is 0 when every result is right.
 *
 *   driver axpy N R      R regions of y = 2x + y on the same arrays
 *   driver grid          2-D and 3-D kernels over extents that are not
 *                        multiples of any work-group size
 *   driver tohost N      to_host inside a region, host writes, host_wrote,
 *                        a second launch, region_end
 *   driver resize        the same arrays launched with a smaller size
 *   driver threads T N R T threads, each R regions on its own arrays
 *   driver builderror    a program that does not compile, launched twice
 *   driver noregion      region calls without any launch
 */
#define _POSIX_C_SOURCE 200809L

#include "pencilcc_runtime.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char PROGRAM[] =
    "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
    "__kernel void axpy(long n, double a, __global const double *x, __global double *y)\n"
    "{\n"
    "  long i = get_global_id(0);\n"
    "  if (i >= n)\n"
    "    return;\n"
    "  y[i] = a * x[i] + y[i];\n"
    "}\n"
    "__kernel void scale2d(long n, long m, double a, __global double *A)\n"
    "{\n"
    "  long j = get_global_id(0), i = get_global_id(1);\n"
    "  if (i >= n || j >= m)\n"
    "    return;\n"
    "  A[i * m + j] = a * A[i * m + j] + (double)j;\n"
    "}\n"
    "__kernel void fill3d(long n0, long n1, long n2, __global int *B)\n"
    "{\n"
    "  long k = get_global_id(0), j = get_global_id(1), i = get_global_id(2);\n"
    "  if (i >= n0 || j >= n1 || k >= n2)\n"
    "    return;\n"
    "  B[(i * n1 + j) * n2 + k] = (int)(i * 10000 + j * 100 + k);\n"
    "}\n";

static const char BROKEN[] =
    "__kernel void broken(__global int *p)\n"
    "{\n"
    "  p[get_global_id(0)] = this_is_not_declared;\n"
    "}\n";

static int device_launches, cpu_launches;

static int close_enough(double a, double b)
{
  return fabs(a - b) <= 1e-12 * (fabs(a) + fabs(b) + 1.0);
}

/* y = a*x + y over n elements, on the device when it takes the launch. */
static void axpy(long n, double a, const double *x, double *y)
{
  pencilcc_cl_arg args[4];
  uint64_t global[1];
  long i;
  args[0].data = &n;
  args[0].size = sizeof n;
  args[0].kind = PENCILCC_CL_VALUE;
  args[0].access = 0;
  args[1].data = &a;
  args[1].size = sizeof a;
  args[1].kind = PENCILCC_CL_VALUE;
  args[1].access = 0;
  args[2].data = x;
  args[2].size = (uint64_t)n * sizeof *x;
  args[2].kind = PENCILCC_CL_BUFFER;
  args[2].access = PENCILCC_CL_READ;
  args[3].data = y;
  args[3].size = (uint64_t)n * sizeof *y;
  args[3].kind = PENCILCC_CL_BUFFER;
  args[3].access = PENCILCC_CL_READ | PENCILCC_CL_WRITE;
  global[0] = (uint64_t)n;
  if (pencilcc_cl_run(PROGRAM, "axpy", 4, args, 1, global) == 0) {
    device_launches++;
    return;
  }
  cpu_launches++;
  for (i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

static void init(long n, double *x, double *y, double salt)
{
  long i;
  for (i = 0; i < n; i++) {
    x[i] = 0.5 * (double)i + salt;
    y[i] = (double)(1 + i % 7);
  }
}

/* The first index where y differs from `ref`, or -1. */
static long first_difference(long n, const double *y, const double *ref)
{
  long i;
  for (i = 0; i < n; i++)
    if (!close_enough(y[i], ref[i]))
      return i;
  return -1;
}

static int report(const char *what, long bad)
{
  if (bad < 0)
    printf("%s=ok\n", what);
  else
    printf("%s=WRONG at %ld\n", what, bad);
  return bad < 0;
}

static int mode_axpy(long n, int regions)
{
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *ref = malloc((size_t)n * sizeof *ref);
  int r, ok;
  long i;
  printf("available=%d\n", pencilcc_cl_available());
  init(n, x, y, 0.0);
  for (i = 0; i < n; i++)
    ref[i] = y[i];
  for (r = 0; r < regions; r++) {
    pencilcc_cl_region_begin();
    axpy(n, 2.0, x, y);
    pencilcc_cl_region_end();
    for (i = 0; i < n; i++)
      ref[i] = 2.0 * x[i] + ref[i];
    /* The host writes x between regions: region_begin must upload it again. */
    for (i = 0; i < n; i++)
      x[i] += 1.0;
  }
  ok = report("result", first_difference(n, y, ref));
  printf("device_launches=%d\ncpu_launches=%d\n", device_launches, cpu_launches);
  free(x);
  free(y);
  free(ref);
  return ok ? 0 : 1;
}

static int mode_grid(void)
{
  const long n = 37, m = 101, n0 = 5, n1 = 9, n2 = 67;
  double *A = malloc((size_t)(n * m) * sizeof *A), *refA = malloc((size_t)(n * m) * sizeof *A);
  int *B = malloc((size_t)(n0 * n1 * n2) * sizeof *B);
  double a = 3.0;
  pencilcc_cl_arg args[4];
  uint64_t global[3];
  long i, j, k, bad = -1;
  int ok;
  for (i = 0; i < n * m; i++)
    A[i] = refA[i] = (double)(i % 13);
  for (i = 0; i < n0 * n1 * n2; i++)
    B[i] = -1;
  pencilcc_cl_region_begin();
  args[0].data = &n; args[0].size = sizeof n; args[0].kind = PENCILCC_CL_VALUE; args[0].access = 0;
  args[1].data = &m; args[1].size = sizeof m; args[1].kind = PENCILCC_CL_VALUE; args[1].access = 0;
  args[2].data = &a; args[2].size = sizeof a; args[2].kind = PENCILCC_CL_VALUE; args[2].access = 0;
  args[3].data = A; args[3].size = (uint64_t)(n * m) * sizeof *A;
  args[3].kind = PENCILCC_CL_BUFFER; args[3].access = PENCILCC_CL_READ | PENCILCC_CL_WRITE;
  global[0] = (uint64_t)m;
  global[1] = (uint64_t)n;
  if (pencilcc_cl_run(PROGRAM, "scale2d", 4, args, 2, global) == 0) {
    device_launches++;
  } else {
    cpu_launches++;
    for (i = 0; i < n; i++)
      for (j = 0; j < m; j++)
        A[i * m + j] = a * A[i * m + j] + (double)j;
  }
  args[0].data = &n0; args[0].size = sizeof n0;
  args[1].data = &n1; args[1].size = sizeof n1;
  args[2].data = &n2; args[2].size = sizeof n2;
  args[3].data = B; args[3].size = (uint64_t)(n0 * n1 * n2) * sizeof *B;
  args[3].access = PENCILCC_CL_WRITE;
  global[0] = (uint64_t)n2;
  global[1] = (uint64_t)n1;
  global[2] = (uint64_t)n0;
  if (pencilcc_cl_run(PROGRAM, "fill3d", 4, args, 3, global) == 0) {
    device_launches++;
  } else {
    cpu_launches++;
    for (i = 0; i < n0; i++)
      for (j = 0; j < n1; j++)
        for (k = 0; k < n2; k++)
          B[(i * n1 + j) * n2 + k] = (int)(i * 10000 + j * 100 + k);
  }
  pencilcc_cl_region_end();
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      refA[i * m + j] = a * refA[i * m + j] + (double)j;
  ok = report("grid2d", first_difference(n * m, A, refA));
  for (i = 0; i < n0 && bad < 0; i++)
    for (j = 0; j < n1 && bad < 0; j++)
      for (k = 0; k < n2 && bad < 0; k++)
        if (B[(i * n1 + j) * n2 + k] != (int)(i * 10000 + j * 100 + k))
          bad = (i * n1 + j) * n2 + k;
  ok = report("grid3d", bad) && ok;
  printf("device_launches=%d\ncpu_launches=%d\n", device_launches, cpu_launches);
  free(A);
  free(refA);
  free(B);
  return ok ? 0 : 1;
}

static int mode_tohost(long n)
{
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *ref = malloc((size_t)n * sizeof *ref);
  long i;
  int ok;
  init(n, x, y, 0.25);
  for (i = 0; i < n; i++)
    ref[i] = 2.0 * x[i] + y[i];
  pencilcc_cl_region_begin();
  axpy(n, 2.0, x, y);
  /* Host code inside the region reads y: it must see the kernel's result. */
  pencilcc_cl_to_host(y);
  ok = report("tohost", first_difference(n, y, ref));
  /* ... and writes it: the next launch must upload it. */
  for (i = 0; i < n; i++) {
    y[i] += 1.0;
    ref[i] = 2.0 * x[i] + (ref[i] + 1.0);
  }
  pencilcc_cl_host_wrote(y);
  axpy(n, 2.0, x, y);
  pencilcc_cl_region_end();
  ok = report("result", first_difference(n, y, ref)) && ok;
  printf("device_launches=%d\ncpu_launches=%d\n", device_launches, cpu_launches);
  free(x);
  free(y);
  free(ref);
  return ok ? 0 : 1;
}

static int mode_resize(void)
{
  const long n = 3000;
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *ref = malloc((size_t)n * sizeof *ref);
  long i;
  int ok;
  init(n, x, y, 1.0);
  for (i = 0; i < n; i++)
    ref[i] = 2.0 * x[i] + y[i];
  pencilcc_cl_region_begin();
  axpy(n, 2.0, x, y);
  pencilcc_cl_region_end();
  /* Same addresses, fewer elements: new device buffers of the new size. */
  pencilcc_cl_region_begin();
  axpy(n / 3, 2.0, x, y);
  pencilcc_cl_region_end();
  for (i = 0; i < n / 3; i++)
    ref[i] = 2.0 * x[i] + ref[i];
  ok = report("result", first_difference(n, y, ref));
  printf("device_launches=%d\ncpu_launches=%d\n", device_launches, cpu_launches);
  free(x);
  free(y);
  free(ref);
  return ok ? 0 : 1;
}

struct job {
  long n;
  int regions;
  double salt;
  int ok;
};

static void *thread_main(void *p)
{
  struct job *job = p;
  long n = job->n, i;
  double *x = malloc((size_t)n * sizeof *x), *y = malloc((size_t)n * sizeof *y);
  double *ref = malloc((size_t)n * sizeof *ref);
  int r;
  init(n, x, y, job->salt);
  for (i = 0; i < n; i++)
    ref[i] = y[i];
  for (r = 0; r < job->regions; r++) {
    pencilcc_cl_region_begin();
    axpy(n, 2.0, x, y);
    axpy(n, -0.5, x, y);
    pencilcc_cl_region_end();
    for (i = 0; i < n; i++)
      ref[i] = -0.5 * x[i] + (2.0 * x[i] + ref[i]);
  }
  job->ok = first_difference(n, y, ref) < 0;
  free(x);
  free(y);
  free(ref);
  return NULL;
}

static int mode_threads(int threads, long n, int regions)
{
  pthread_t tid[16];
  struct job jobs[16];
  int t, ok = 1;
  if (threads > 16)
    threads = 16;
  for (t = 0; t < threads; t++) {
    jobs[t].n = n + t; /* different sizes: no two threads share a buffer */
    jobs[t].regions = regions;
    jobs[t].salt = (double)t;
    jobs[t].ok = 0;
    if (pthread_create(&tid[t], NULL, thread_main, &jobs[t]) != 0)
      return 2;
  }
  for (t = 0; t < threads; t++) {
    pthread_join(tid[t], NULL);
    printf("thread%d=%s\n", t, jobs[t].ok ? "ok" : "WRONG");
    ok = ok && jobs[t].ok;
  }
  printf("device_launches=%d\ncpu_launches=%d\n", device_launches, cpu_launches);
  return ok ? 0 : 1;
}

static int mode_builderror(void)
{
  int p[64];
  pencilcc_cl_arg arg;
  uint64_t global[1] = {64};
  int i, rc1, rc2;
  arg.data = p;
  arg.size = sizeof p;
  arg.kind = PENCILCC_CL_BUFFER;
  arg.access = PENCILCC_CL_WRITE;
  pencilcc_cl_region_begin();
  rc1 = pencilcc_cl_run(BROKEN, "broken", 1, &arg, 1, global);
  rc2 = pencilcc_cl_run(BROKEN, "broken", 1, &arg, 1, global);
  if (rc2 != 0)
    for (i = 0; i < 64; i++)
      p[i] = i;
  pencilcc_cl_region_end();
  printf("rc1=%d\nrc2=%d\n", rc1 != 0, rc2 != 0);
  return report("result", p[63] == 63 ? -1 : 63) ? 0 : 1;
}

static int mode_noregion(void)
{
  double x[4] = {1, 2, 3, 4};
  pencilcc_cl_region_begin();
  pencilcc_cl_to_host(x);
  x[0] = 5;
  pencilcc_cl_host_wrote(x);
  pencilcc_cl_region_end();
  return report("result", x[0] == 5 ? -1 : 0) ? 0 : 1;
}

/* The mapping the runtime chose (pencilcc_cl_mapping), twice: it is decided once. */
static int mode_mapping(void)
{
  int first = pencilcc_cl_mapping();
  printf("available=%d\n", pencilcc_cl_available());
  printf("mapping=%d\n", first);
  return report("result", pencilcc_cl_mapping() == first ? -1 : 0) ? 0 : 1;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (strcmp(mode, "axpy") == 0 && argc == 4)
    return mode_axpy(atol(argv[2]), atoi(argv[3]));
  if (strcmp(mode, "grid") == 0)
    return mode_grid();
  if (strcmp(mode, "tohost") == 0 && argc == 3)
    return mode_tohost(atol(argv[2]));
  if (strcmp(mode, "resize") == 0)
    return mode_resize();
  if (strcmp(mode, "threads") == 0 && argc == 5)
    return mode_threads(atoi(argv[2]), atol(argv[3]), atoi(argv[4]));
  if (strcmp(mode, "builderror") == 0)
    return mode_builderror();
  if (strcmp(mode, "noregion") == 0)
    return mode_noregion();
  if (strcmp(mode, "mapping") == 0)
    return mode_mapping();
  fprintf(stderr, "usage: driver axpy N R | grid | tohost N | resize | threads T N R | "
                  "builderror | noregion | mapping\n");
  return 2;
}
