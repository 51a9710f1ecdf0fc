#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 20135: 4 nests; depth 3; 15 statements; 3 arrays (0 int); n=6; builtin; decreasing; diagonal; guard; step2; triangular */
static void kernel(int n, double s0, double A[n][n + 1], double B[n][n], double C[n][n][n])
{
  int i0, i1, i2;

#pragma scop
  for (i0 = 0; i0 < n; i0++) {
    C[i0][i0][i0] *= s0;
    for (i1 = 0; i1 <= n - 1; i1++)
      for (i2 = 0; i2 < n - 1; i2++) {
        if (i1 + i0 < n - 2)
          { double td = C[n - i0 - 1][i1][i2] - 3.0 * s0; B[i0][i0] = td; }
        if (i0 < n - 3)
          A[i1][i1] = 0.5 * ((double)(2 * i1 + 1) * s0 + fmin(B[i0][n - i2 - 1], 0.125) - 0.25 * C[i0][2][i0]);
        C[i0][i0][i0] = (1.25 * A[i0][i1] + 1.25 * C[i2][i2][n - i2 - 1]) / 3.0;
      }
  }
  for (i0 = 0; i0 < n - 2; i0++) {
    { double td = 0.0001 * (C[i0][i0][i0] * A[i0][i0 + 1] + B[i0][i0 + 1] / 7.0); A[i0][i0] = td; }
    A[i0][0] = C[i0][n - i0 - 2][n - i0 - 1] * s0 - C[i0 + 1][i0][n - i0 - 1] / 3.0;
    if (i0 % 2 == 0)
      B[i0][i0] = 0.0001 * (A[i0][i0 + 1] * C[i0][i0 + 1][i0 + 1] + s0 * C[i0][i0][i0]);
    B[i0][i0] = 0.0001 * (A[i0 + 2][i0] * C[i0][i0][i0] + B[i0 + 2][i0] * C[1][i0][i0]);
  }
  for (i0 = 0; i0 < n; i0++)
    for (i1 = i0 - 1; i1 > -1; i1--) {
      for (i2 = n - 1; i2 >= 0; i2--) {
        { double td = 0.1 * (double)(2 * i2) + (double)(2 * i0) + 0.1 * A[i1][i0]; C[i0][i1][i2] += td; }
        C[i2][1][i1] += 0.01 * (fmax(A[i0][i0], 1.25) - B[i2][i1] * s0);
        A[i2][i0] = 0.01 * (0.5 * A[2][i0] + A[i0][i0 + 1] * (double)(i0 + 2 * i1) - 0.5 * (double)(2 * i0 + 2 * i1 + 1));
      }
      for (i2 = 0; i2 < n; i2++)
        B[i1][i0] = (C[n - i1 - 1][i0][i0] / 7.0 + C[i1][3][n - i0 - 1] * s0 - A[i1][i0]) / 2.0;
    }
  for (i0 = n - 3; i0 >= 1; i0--) {
    A[i0][i0] -= A[n - i0 - 3][i0] * (double)i0 - 1.25 * (double)i0;
    for (i1 = 0; i1 < n; i1 += 2)
      C[i1][i1][i0] = C[i0][i1][n - i0 - 1];
    for (i1 = 0; i1 < n; i1++)
      if (i1 + i0 < n - 2)
        { double td = 1e-08 * (A[0][3] * B[n - i0 - 1][i1 + i0] + s0 + B[i1][i1 + i0] * B[i0][i1]); A[i1 + i0][i1] += td; }
  }
#pragma endscop
}

int main(void)
{
  int n = 6;
  double s0 = 0.5;
  int i0, i1, i2;
  double (*A)[n + 1] = malloc(sizeof(double) * n * (n + 1));
  double (*B)[n] = malloc(sizeof(double) * n * n);
  double (*C)[n][n] = malloc(sizeof(double) * n * n * n);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      A[i0][i1] = (double)((9 * i0 + 4 * i1 + 0) % 23) / 23.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      B[i0][i1] = (double)((5 * i0 + 4 * i1 + 7) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      for (i2 = 0; i2 < n; i2++)
        C[i0][i1][i2] = (double)((5 * i0 + 6 * i1 + 1 * i2 + 7) % 23) / 23.0 - 0.5;
  kernel(n, s0, A, B, C);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      printf("%.17g\n", A[i0][i1]);
  printf("== B\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", B[i0][i1]);
  printf("== C\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", C[i0][i1][i2]);
  free(A);
  free(B);
  free(C);
  return 0;
}
