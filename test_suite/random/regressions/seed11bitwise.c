#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 11: 2 nests; depth 2; 6 statements; 5 arrays (0 int); n=5, m=6; bitwise reduction pragma; builtin; guard; independent; overlapping arguments; reduction pragma; scalar target; pencilcc -fpencil-target=opencl */
static void kernel(int n, int m, double s0, double A[n][m], double B[n], double C[n][n + 1][n], double D[m], double E[n][m])
{
  int i0, i1;
  double t0;
  int q0;

  t0 = 0.0;
  q0 = -1;
#pragma scop
  for (i0 = 0; i0 < m; i0++) {
    D[i0] += D[i0] * A[3][i0] + D[i0] * A[3][i0];
    if (i0 % 2 == 0) {
      t0 = t0 * (double)i0 / 8.0;
      C[2][2][0] = (0.75 * E[0][i0] + sqrt(fabs(D[i0])) + D[i0] * A[3][m - i0 - 1]) / 3.0;
    }
    { double td = 0.25 * A[3][i0] - 0.1 * D[i0] + 1.5 * (double)i0; E[0][1] = td; }
  }
#pragma pencil independent reduction(&: q0)
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      q0 = i1 & q0;
  D[0] = q0 % 1000;
#pragma endscop
}

int main(void)
{
  int n = 5;
  int m = 6;
  double s0 = 0.3;
  int i0, i1, i2;
  double (*A)[m] = malloc(sizeof(double) * n * m);
  double *B = malloc(sizeof(double) * n);
  double (*C)[n + 1][n] = malloc(sizeof(double) * n * (n + 1) * n);
  double *D = malloc(sizeof(double) * m);
  double (*E)[m] = malloc(sizeof(double) * n * m);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      A[i0][i1] = (double)((11 * i0 + 10 * i1 + 2) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    B[i0] = (double)((10 * i0 + 6) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < n; i2++)
        C[i0][i1][i2] = (double)((4 * i0 + 10 * i1 + 1 * i2 + 7) % 23) / 23.0 - 0.5;
  for (i0 = 0; i0 < m; i0++)
    D[i0] = (double)((8 * i0 + 0) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      E[i0][i1] = (double)((13 * i0 + 4 * i1 + 8) % 23) / 23.0 - 0.5;
  kernel(n, m, s0, A, B, C, D, A);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", A[i0][i1]);
  printf("== B\n");
  for (i0 = 0; i0 < n; i0++)
    printf("%.17g\n", B[i0]);
  printf("== C\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", C[i0][i1][i2]);
  printf("== D\n");
  for (i0 = 0; i0 < m; i0++)
    printf("%.17g\n", D[i0]);
  printf("== E\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", E[i0][i1]);
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  return 0;
}
