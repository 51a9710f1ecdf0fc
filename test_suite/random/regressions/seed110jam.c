#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 110: 4 nests; depth 2; 7 statements; 3 arrays (0 int); n=40, m=34; builtin; decreasing; guard; scalar reduction; written with bound macros, for macros; pencilcc --cache-sizes=1K,2K */
#define PB_N n
#define PB_M m
#define FOR_UP(i, lo, hi) for (i = lo; i < hi; i++)
#define FOR_DOWN(i, hi, lo) for (i = hi; i >= lo; i--)

static void kernel(int n, int m, double s0, double s1, double A[m][n], double B[PB_N + 1], double C[PB_N + 1][PB_M])
{
  int i0, i1;
  double t0;

  t0 = 0.0;
#pragma scop
  for (i0 = PB_M - 1; i0 >= 1; i0--) {
    t0 = C[1][1] + fmax(s1, A[0][2]);
    FOR_UP(i1, 0, PB_N - 1)
      t0 += 2.0 * 0.125 - A[m - i0 - 1][i1 + 1] * A[i0][i1];
    C[2][i0] = fmax(C[1][i0], t0);
  }
  FOR_UP(i0, 1, PB_M)
    for (i1 = 0; i1 < PB_N; i1++) {
      { double td = 0.01 * (B[i1] + (double)(3 * i0 + 2 * i1) * (double)(3 * i1) + B[i1] * (double)i0); B[0] = td; }
      A[i0][n - i1 - 1] -= 0.0001 * (A[i0 - 1][i1] + A[i0][i1] * (double)(3 * i1) + sqrt(fabs(A[i0][n - i1 - 1])));
    }
  for (i0 = 0; i0 < m; i0++)
    { double td = s1; C[1][i0] = td; }
  for (i0 = PB_N - 1; i0 >= 0; i0--)
    if (i0 % 2 == 0 && i0 % 2 == 0)
      { double td = 1.5 / 2.0; A[3][i0] *= td; }
#pragma endscop
}

int main(void)
{
  int n = 40;
  int m = 34;
  double s0 = 0.9;
  double s1 = 0.75;
  int i0, i1;
  double (*A)[n] = malloc(sizeof(double) * m * n);
  double *B = malloc(sizeof(double) * (n + 1));
  double (*C)[m] = malloc(sizeof(double) * (n + 1) * m);

  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      A[i0][i1] = (double)((9 * i0 + 7 * i1 + 8) % 23) / 23.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    B[i0] = (double)((3 * i0 + 7) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < m; i1++)
      C[i0][i1] = (double)((6 * i0 + 9 * i1 + 1) % 29) / 29.0 - 0.5;
  kernel(n, m, s0, s1, A, B, C);
  printf("== A\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", A[i0][i1]);
  printf("== B\n");
  for (i0 = 0; i0 < n + 1; i0++)
    printf("%.17g\n", B[i0]);
  printf("== C\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", C[i0][i1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
