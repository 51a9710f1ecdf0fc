#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 107: 4 nests; depth 2; 10 statements; 5 arrays (2 int); n=14; affine local; builtin; data guard; decreasing; diagonal; guard; int wrap; scalar target; step2 */
static void kernel(int n, double s0, double s1, double A[n][n], double B[n + 1][n], int C[n], int D[n][n], double E[n + 1][n + 1])
{
  int i0, i1;
  double t0;

  t0 = 0.5;
#pragma scop
  for (i0 = n - 3; i0 >= 0; i0--)
    for (i1 = 1; i1 < n - 2; i1++) {
      t0 = D[i0][3];
      E[i0][i1] = (double)(3 * i0 + i1 + 1) / 3.0;
      { double td = (s0 + C[i0 + 2] * B[i1][i0] - t0) / 16.0; t0 = td; }
      { double td = 0.125 * B[i0][i1]; B[i0][i1] = td; }
    }
  for (i0 = 0; i0 < n - 1; i0 += 2) {
    int j0 = n - i0 - 1;
    if (i0 % 3 == 0)
      E[j0][j0] += s1 / 5.0 - sqrt(fabs(E[j0][i0 + 1]));
  }
  for (i0 = 0; i0 <= n - 1; i0 += 2) {
    int j0 = n - i0 - 1;
    C[j0] -= i0 % 1000;
    if (B[j0][i0] < 0.3 && B[j0][i0] < 0.1) {
      C[j0] = (C[n - i0 - 1] * D[i0][j0] + D[j0][i0]) % 1000;
    }
    for (i1 = 0; i1 <= n - 2; i1++)
      if (i1 % 2 == 1)
        A[i0][i1] = D[i0][j0] / 7.0 + C[i1];
    for (i1 = 0; i1 < j0 + 1; i1++)
      C[j0] = D[j0][j0];
  }
  for (i0 = 0; i0 < n; i0++)
    for (i1 = n - 1; i1 >= 0; i1--)
      if (i1 + i0 < n)
        C[i1] = ((2 * i1 + 1) - C[i0]) % 1000;
#pragma endscop
}

int main(void)
{
  int n = 14;
  double s0 = 0.75;
  double s1 = 0.9;
  int i0, i1;
  double (*A)[n] = malloc(sizeof(double) * n * n);
  double (*B)[n] = malloc(sizeof(double) * (n + 1) * n);
  int *C = malloc(sizeof(int) * n);
  int (*D)[n] = malloc(sizeof(int) * n * n);
  double (*E)[n + 1] = malloc(sizeof(double) * (n + 1) * (n + 1));

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      A[i0][i1] = (double)((5 * i0 + 5 * i1 + 9) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n; i1++)
      B[i0][i1] = (double)((3 * i0 + 12 * i1 + 8) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    C[i0] = (2 * i0 + 7) % 19 - 9;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      D[i0][i1] = (2 * i0 + 10 * i1 + 4) % 29 - 14;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      E[i0][i1] = (double)((3 * i0 + 4 * i1 + 3) % 17) / 17.0 - 0.5;
  kernel(n, s0, s1, A, B, C, D, E);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", A[i0][i1]);
  printf("== B\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", B[i0][i1]);
  printf("== C\n");
  for (i0 = 0; i0 < n; i0++)
    printf("%d\n", C[i0]);
  printf("== D\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%d\n", D[i0][i1]);
  printf("== E\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      printf("%.17g\n", E[i0][i1]);
  free(A);
  free(B);
  free(C);
  free(D);
  free(E);
  return 0;
}
