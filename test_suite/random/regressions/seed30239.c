#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 30239: 4 nests; depth 3; 6 statements; 5 arrays (1 int); n=19, m=20; builtin; guard; int wrap; step2; window */
static void kernel(int n, int m, double s0, double A[n][m][n], int B[n][n], double C[m][n][n], double D[n + 1][m][m], double E[m][n])
{
  int i0, i1, i2;

#pragma scop
  for (i0 = 2; i0 <= m - 2; i0++)
    for (i1 = 0; i1 <= n - 2; i1++) {
      B[i1][i1] += B[n - i1 - 1][i1] * 3 % 1000;
      if (i0 % 3 == 0)
        C[i0][i1][i1] = A[i1][m - i0 - 1][i1];
    }
  for (i0 = 0; i0 < n - 1; i0 += 2)
    for (i1 = 0; i1 < m; i1++)
      if (i1 <= i0 - 1 && i1 >= 1)
        for (i2 = 0; i2 < n; i2++)
          { double td = sqrt(fabs(E[i1][i2])) - (double)i1 * (double)i1; C[m - i1 - 1][i0][i2] = td; }
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 2; i1 < n; i1++) {
      B[i1][i1] = (B[i1][i1] + (3 * i0) + 2 * B[i1][n - i1 - 1]) % 1000;
      if (i1 < n - 2)
        E[m - i0 - 1][i1] = sqrt(fabs(D[i1 + 1][m - i0 - 1][i0])) - s0 * s0;
    }
  for (i0 = 2; i0 <= n - 3; i0++)
    for (i1 = 0; i1 < m - 1; i1++)
      for (i2 = i1; i2 < i1 + 2; i2++)
        { double td = 1e-06 * (s0 / 2.0 - A[i0 - 2][i1][n - i0 - 1] * B[i0][i0]); A[i0][i1][i0] = td; }
#pragma endscop
}

int main(void)
{
  int n = 19;
  int m = 20;
  double s0 = 0.75;
  int i0, i1, i2;
  double (*A)[m][n] = malloc(sizeof(double) * n * m * n);
  int (*B)[n] = malloc(sizeof(int) * n * n);
  double (*C)[n][n] = malloc(sizeof(double) * m * n * n);
  double (*D)[m][m] = malloc(sizeof(double) * (n + 1) * m * m);
  double (*E)[n] = malloc(sizeof(double) * m * n);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        A[i0][i1][i2] = (double)((2 * i0 + 9 * i1 + 13 * i2 + 10) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      B[i0][i1] = (9 * i0 + 8 * i1 + 7) % 19 - 9;
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      for (i2 = 0; i2 < n; i2++)
        C[i0][i1][i2] = (double)((6 * i0 + 3 * i1 + 9 * i2 + 4) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < m; i2++)
        D[i0][i1][i2] = (double)((9 * i0 + 12 * i1 + 4 * i2 + 1) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      E[i0][i1] = (double)((11 * i0 + 11 * i1 + 6) % 29) / 29.0 - 0.5;
  kernel(n, m, s0, A, B, C, D, E);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", A[i0][i1][i2]);
  printf("== B\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%d\n", B[i0][i1]);
  printf("== C\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      for (i2 = 0; i2 < n; i2++)
        printf("%.17g\n", C[i0][i1][i2]);
  printf("== D\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < m; i2++)
        printf("%.17g\n", D[i0][i1][i2]);
  printf("== E\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", E[i0][i1]);
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  return 0;
}
