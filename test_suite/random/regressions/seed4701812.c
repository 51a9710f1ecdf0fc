#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 4701812: 4 nests; depth 3; 7 statements; 4 arrays (1 int); n=17, m=28; affine local; data guard; data guard else; decreasing; guard; int wrap; step2; temp array; window */
static void kernel(int n, int m, double s0, double A[n][m][n], int B[m], double C[m][m], double T[m])
{
  int i0, i1, i2;
  int k1;

  k1 = 3;
#pragma scop
  for (i0 = 0; i0 < m; i0++)
    if (i0 % 2 == 1 && i0 <= m - 1)
      for (i1 = 0; i1 < n; i1++)
        if (i1 < i0 - 1 && i0 < i1 - 1)
          B[i0] -= (B[i0] + (2 * i0) * 1) % 1000;
  for (i0 = 0; i0 < n; i0++)
    if (i0 % 2 == 1)
      for (i1 = i0; i1 < i0 + 2; i1++)
        for (i2 = 1; i2 <= m - 1; i2 += 2)
          A[i0][i2][i0] -= (double)(i1 + 1) / 4.0 + B[3];
  for (i0 = 2; i0 < m; i0++) {
    int j0 = i0 + 1;
    for (i1 = i0 + 1; i1 > i0 - 1; i1 -= 2) {
      int j1 = n - 2;
      if (B[i1 - 1] % 2 != 0 && i1 % 2 == 1) {
        B[j0 - 1] = (B[i0] - i1 + k1) % 1000;
      } else {
        A[j1][i1 - 2][j1] += C[i1 - 2][i1 - 1] - A[j1][i1 - 2][j1 + 1] / 4.0;
      }
    }
  }
  for (i0 = 0; i0 < m; i0++) {
    for (i1 = 0; i1 < m; i1++)
      T[i1] = 0.5 * C[i0][i1] + 0.25;
    for (i1 = 0; i1 < m; i1++)
      T[i1] = 0.5 * T[i1] + 0.25 * C[i0][m - i1 - 1];
    for (i1 = 0; i1 < m; i1++)
      C[i0][i1] = T[i1];
  }
#pragma endscop
}

int main(void)
{
  int n = 17;
  int m = 28;
  double s0 = 0.3;
  int i0, i1, i2;
  double (*A)[m][n] = malloc(sizeof(double) * n * m * n);
  int *B = malloc(sizeof(int) * m);
  double (*C)[m] = malloc(sizeof(double) * m * m);
  double *T = malloc(sizeof(double) * m);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        A[i0][i1][i2] = (double)((1 * i0 + 12 * i1 + 13 * i2 + 2) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < m; i0++)
    B[i0] = (1 * i0 + 7) % 19 - 9;
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m; i1++)
      C[i0][i1] = (double)((4 * i0 + 6 * i1 + 3) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < m; i0++)
    T[i0] = (double)((3 * i0 + 1) % 19) / 19.0 - 0.5;
  kernel(n, m, s0, A, B, C, T);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", A[i0][i1][i2]);
  printf("== B\n");
  for (i0 = 0; i0 < m; i0++)
    printf("%d\n", B[i0]);
  printf("== C\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", C[i0][i1]);
  printf("== T\n");
  for (i0 = 0; i0 < m; i0++)
    printf("%.17g\n", T[i0]);
  free(A);
  free(B);
  free(C);
  free(T);
  return 0;
}
