/* SPDX-License-Identifier: MIT */
/* Function-scope scalars whose values do not cross a region's boundary are the region's own
 * (clangpass.regions._privatize, issue 9 item 1): test_suite/e2e/test_region_liveness.py. */
#include <stdio.h>
#include <pencil.h>

/* t is set and printed before the region, and overwritten after it before any read; u is
   killed after it (__pencil_kill): both the region's own. */
static double after(int n, double a[n], double b[n])
{
  int i;
  double t, u;
  t = 1.0;
  printf("== before\n%.17g\n", t);
#pragma scop
  for (i = 0; i < n; i++) {
    t = a[i] * 2.0;
    u = t + 1.0;
    b[i] = t * u;
  }
#pragma endscop
  t = 3.0;
  __pencil_kill(u);
  return t;
}

/* alpha is a parameter passed by value: after its first write, the region's own. */
static void param(int n, double alpha, double a[n])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++) {
    alpha = a[i] * 0.5;
    a[i] = alpha + 1.0;
  }
#pragma endscop
}

/* s is read before written (reduction seed) and returned: kept. */
static double kept(int n, double a[n])
{
  int i;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++)
    s = s + a[i];
#pragma endscop
  return s;
}

/* w is written first in each call of the region, inside a loop of the function. */
static void looped(int n, double a[n])
{
  int i, r;
  double w;
  for (r = 0; r < 3; r++) {
#pragma scop
    for (i = 0; i < n; i++) {
      w = a[i] * 0.25;
      a[i] = a[i] + w;
    }
#pragma endscop
  }
}

int main(void)
{
  static double a[100], b[100];
  for (int i = 0; i < 100; i++)
    a[i] = (i % 7) * 0.5;
  double t = after(100, a, b);
  param(100, 2.0, a);
  double s = kept(100, a);
  looped(100, a);
  printf("== a\n");
  for (int i = 0; i < 100; i++)
    printf("%.17g\n", a[i]);
  printf("== b\n");
  for (int i = 0; i < 100; i++)
    printf("%.17g\n", b[i]);
  printf("== results\n%.17g\n%.17g\n", t, s);
  return 0;
}
