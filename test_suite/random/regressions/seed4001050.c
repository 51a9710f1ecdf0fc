#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 4001050: 4 nests; depth 3; 12 statements; 4 arrays (2 int); n=19, m=7; guard; int wrap; scalar reduction; scalar target; triangular */
static void kernel(int n, int m, double s0, double A[n][m][m], int B[n][m][n], int C[m], double D[m])
{
  int i0, i1, i2;
  double t0;
  double t1;

  t0 = 0.5;
  t1 = 0.5;
#pragma scop
  for (i0 = 1; i0 <= m - 1; i0++) {
    D[i0] = 0.1 * B[2][i0][3] - A[1][i0][i0] * s0 + A[1][i0][i0] * 1.5;
    D[i0] = t1;
    { int ti = (5 + C[m - i0] + i0) % 1000; C[i0] += ti; }
  }
  for (i0 = 1; i0 <= m - 1; i0++)
    for (i1 = 0; i1 < n; i1++) {
      t1 = 0.75 * B[i1][m - i0 - 1][i1];
      for (i2 = 0; i2 < n - 2; i2++)
        t1 -= 0.01 * (t1 / 3.0);
      { int ti = ((3 * i1) - C[m - i0 - 1] * 4 + C[i0]) % 1000; C[i0] -= ti; }
    }
  for (i0 = 0; i0 < m; i0++) {
    D[i0] += t1;
    t1 = A[3][i0][m - i0 - 1] * C[i0];
  }
  for (i0 = 0; i0 < m; i0++)
    for (i1 = i0 + 1; i1 < n; i1++) {
      B[i1][i0][i1] = i1 + 3 * i0;
      A[i1][i0][i0] = B[n - i1 - 1][m - i0 - 1][i1] * t0;
      if (i0 % 2 == 0)
        { int ti = C[m - i0 - 1] % 1000; C[i0] = ti; }
      t1 += 3.0 * 1.5 + (double)i0 / 5.0;
    }
#pragma endscop
}

int main(void)
{
  int n = 19;
  int m = 7;
  double s0 = -0.25;
  int i0, i1, i2;
  double (*A)[m][m] = malloc(sizeof(double) * n * m * m);
  int (*B)[m][n] = malloc(sizeof(int) * n * m * n);
  int *C = malloc(sizeof(int) * m);
  double *D = malloc(sizeof(double) * m);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < m; i2++)
        A[i0][i1][i2] = (double)((8 * i0 + 9 * i1 + 3 * i2 + 7) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        B[i0][i1][i2] = (6 * i0 + 3 * i1 + 8 * i2 + 6) % 23 - 11;
  for (i0 = 0; i0 < m; i0++)
    C[i0] = (2 * i0 + 6) % 17 - 8;
  for (i0 = 0; i0 < m; i0++)
    D[i0] = (double)((3 * i0 + 10) % 17) / 17.0 - 0.5;
  kernel(n, m, s0, A, B, C, D);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < m; i2++)
        printf("%.17g\n", A[i0][i1][i2]);
  printf("== B\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%d\n", B[i0][i1][i2]);
  printf("== C\n");
  for (i0 = 0; i0 < m; i0++)
    printf("%d\n", C[i0]);
  printf("== D\n");
  for (i0 = 0; i0 < m; i0++)
    printf("%.17g\n", D[i0]);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
