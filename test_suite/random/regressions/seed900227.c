#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 900227: 4 nests; depth 3; 11 statements; 3 arrays (1 int); n=24, m=14, p=36; decreasing; diagonal; guard; int wrap; step2; triangular */
static void kernel(int n, int m, int p, double s0, int s1, double A[n], double B[m + 2], int C[n + 1][p])
{
  int i0, i1, i2;

#pragma scop
  for (i0 = 0; i0 < n; i0++)
    A[3] *= s0;
  for (i0 = 0; i0 <= n - 2; i0++) {
    { double td = 0.5 * (A[i0] + A[i0 + 1]); A[i0] = td; }
    if (i0 > 2)
      B[3] -= 0.01 * (A[i0] / 7.0 + (double)(3 * i0) * A[i0] - 0.75 * A[i0]);
  }
  for (i0 = 0; i0 <= p - 1; i0++) {
    B[3] = (double)i0 * (double)(2 * i0);
    { int ti = C[3][i0] % 1000; C[3][i0] = ti; }
    B[3] *= 0.75;
    C[3][i0] = (s1 * C[0][p - i0 - 1] - 5 * C[2][3] + (2 * i0 + 1)) % 1000;
  }
  for (i0 = n - 1; i0 > 0; i0 -= 2)
    if (i0 > 3)
      for (i1 = 0; i1 <= m - 3; i1++) {
        for (i2 = 1; i2 < n; i2++)
          if (i0 + i2 < n - 1 && i0 <= n - 1)
            B[i1] += 0.001 * A[i0 - 1];
        for (i2 = i1 + 1; i2 <= p - 2; i2++) {
          { int ti = i2 + (2 * i0); C[i0][i2] = ti; }
          { double td = s0; A[i0] *= td; }
          { double td = 0.001 * (0.75 + A[n - i0] * C[n - i0 - 1][i2]); B[i1] = td; }
        }
      }
#pragma endscop
}

int main(void)
{
  int n = 24;
  int m = 14;
  int p = 36;
  double s0 = -0.25;
  int s1 = 1;
  int i0, i1;
  double *A = malloc(sizeof(double) * n);
  double *B = malloc(sizeof(double) * (m + 2));
  int (*C)[p] = malloc(sizeof(int) * (n + 1) * p);

  for (i0 = 0; i0 < n; i0++)
    A[i0] = (double)((13 * i0 + 2) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < m + 2; i0++)
    B[i0] = (double)((7 * i0 + 0) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < p; i1++)
      C[i0][i1] = (8 * i0 + 11 * i1 + 6) % 19 - 9;
  kernel(n, m, p, s0, s1, A, B, C);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    printf("%.17g\n", A[i0]);
  printf("== B\n");
  for (i0 = 0; i0 < m + 2; i0++)
    printf("%.17g\n", B[i0]);
  printf("== C\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < p; i1++)
      printf("%d\n", C[i0][i1]);
  free(A);
  free(B);
  free(C);
  return 0;
}
