#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 4002360: 4 nests; depth 3; 15 statements; 2 arrays (0 int); n=19; builtin; decreasing; diagonal; guard; step2; triangular; window */
static void kernel(int n, double s0, double s1, double A[n], double B[n][n + 1][n])
{
  int i0, i1, i2;

#pragma scop
  for (i0 = n - 2; i0 >= 1; i0--) {
    for (i1 = i0 + 1; i1 < n; i1++)
      if (i1 + i0 < n - 1)
        for (i2 = i1; i2 < i1 + 3; i2 += 2) {
          if (i2 >= i1)
            B[i1][i2 - 1][i0] = s0 + B[i2 - 2][i1 + i0][i2 - 2] * s1 - (double)(3 * i1 + 2 * i0);
          { double td = 0.01 * (2.0 + A[i0] * (double)(2 * i0) + A[n - i0]); B[i2 - 2][i2 - 2][i2 - 2] = td; }
        }
    for (i1 = 0; i1 <= n - 1; i1++)
      if (i0 + i1 < n - 1)
        for (i2 = 0; i2 <= n - 2; i2++) {
          { double td = (A[i2 + 1] / 5.0 + 3.0 * A[i0] + B[i1][i0 + 2][n - i0] * s0) / 4.0; A[0] = td; }
          if (i0 + i2 < n - 2 && i2 % 2 == 1)
            B[2][i2][i0 + i2] += 0.01 * (0.125 * A[i0]);
        }
  }
  for (i0 = 0; i0 < n; i0++)
    if (i0 % 2 == 1)
      for (i1 = 0; i1 < n - 1; i1++)
        for (i2 = i1; i2 < i1 + 2; i2++) {
          B[3][i1][i1] = fmin((double)(2 * i1 + 2 * i2), A[i1]);
          { double td = 0.01 * B[i2][i1][n - i0 - 1]; A[i0] += td; }
          { double td = 0.5 * (fmin(B[i2][n - i2 - 1][i1 + 1], A[i0]) - B[i2][i2][i2] * 0.5 + 0.125 * B[i1][n - i0][0]); B[i2][i2][i1] = td; }
          B[i0][i0][i2] *= 0.1;
        }
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n - 2; i1++) {
      if (i0 + i1 < n)
        A[i1] = 1.5 * A[n - i0 - 1] / 2.0;
      { double td = A[i0] / 4.0; B[1][i0][i0] = td; }
      if (i1 >= i0)
        B[i1][i0][i1] += (double)(3 * i1 + 1) + s0;
    }
  for (i0 = 0; i0 < n; i0 += 2) {
    if (i0 > 1)
      B[i0][i0][i0] = s0;
    for (i1 = 1; i1 < n; i1++)
      if ((i0 + i1) % 2 == 1)
        for (i2 = 0; i2 <= n - 2; i2++) {
          { double td = sqrt(fabs(s1)); B[i2][i2][i0] = td; }
          B[i2][0][i0] += s0 * A[i0] + (double)(i0 + 1);
          { double td = 0.0001 * ((double)(3 * i0) * B[i2][i0][3]); B[i2][i2][i0] += td; }
        }
  }
#pragma endscop
}

int main(void)
{
  int n = 19;
  double s0 = -0.25;
  double s1 = 0.9;
  int i0, i1, i2;
  double *A = malloc(sizeof(double) * n);
  double (*B)[n + 1][n] = malloc(sizeof(double) * n * (n + 1) * n);

  for (i0 = 0; i0 < n; i0++)
    A[i0] = (double)((9 * i0 + 6) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < n; i2++)
        B[i0][i1][i2] = (double)((8 * i0 + 7 * i1 + 4 * i2 + 7) % 29) / 29.0 - 0.5;
  kernel(n, s0, s1, A, B);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    printf("%.17g\n", A[i0]);
  printf("== B\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", B[i0][i1][i2]);
  free(A);
  free(B);
  return 0;
}
