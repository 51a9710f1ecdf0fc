#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 397: 2 nests; depth 3; 8 statements; 5 arrays (1 int); n=34; affine local; data guard; decreasing; guard; int wrap; triangular scalar chain; written with typedef rows, bound macros, loop pragmas */
#define CAT(a, b) a##b
#define PAREN(x) (x)
#define ARR1(name, d1) name[PAREN(d1)]
#define ARR2(name, d1, d2) name[d1 + 0][d2 + 0]
#define ARR3(name, d1, d2, d3) name[(d1)][d2 + 0][PAREN(d3)]
#define BOUND(x) CAT(BOUND_, x)
#define BOUND_n n
#define SA_COLS 34
typedef double SA_row_t[SA_COLS];
#define SC_COLS 34
typedef double SC_row_t[SC_COLS];

static void kernel(int n, double s0, int s1, double A[BOUND(n)][BOUND(n)], int B[BOUND(n) + 1][BOUND(n) + 1], SA_row_t *SA, double SB[BOUND(n)][BOUND(n)], SC_row_t *SC)
{
  int i0, i1, i2;
  double y0;

  y0 = 0.0;
#pragma scop
#pragma GCC unroll 4
  for (i0 = 0; i0 < BOUND(n); i0++) {
    int j0 = n - i0 - 2;
    if (i0 > 2 && i0 > 2)
      for (i1 = 0; i1 < j0 + 1; i1++) {
#pragma GCC unroll 4
        for (i2 = n - 1; i2 > -1; i2--) {
          int j2 = i1 + 2;
          if (A[i1 + 1][j0 + 1] > 0.45) {
            A[i2][i2] += 1e-09 * (B[j2 - 2][i2] * A[i1][i2]);
          }
        }
      }
    for (i1 = 0; i1 < BOUND(n); i1++) {
      A[i0][j0 + 1] *= 0.5;
      if (i1 > i0 + 1)
        B[j0 + 1][i0] += 5 % 1000;
      B[j0 + 2][i1] -= (B[i1][j0 + 2] + (2 * i1 + i0)) % 1000;
    }
  }
#pragma GCC unroll 4
  for (i0 = 0; i0 < BOUND(n); i0++)
    for (i1 = 0; i1 < n; i1++) {
      y0 = 0.0;
      for (i2 = 0; i2 < i0; i2++) {
        SC[i2][i1] += 0.5 * SB[i0][i1] * SA[i0][i2];
        y0 += SB[i2][i1] * SA[i0][i2];
      }
      SC[i0][i1] = 0.5 * SC[i0][i1] + 0.25 * y0;
    }
#pragma endscop
}

int main(void)
{
  int n = 34;
  double s0 = -0.25;
  int s1 = 4;
  int i0, i1;
  double (*A)[n] = malloc(sizeof(double) * n * n);
  int (*B)[n + 1] = malloc(sizeof(int) * (n + 1) * (n + 1));
  double (*SA)[n] = malloc(sizeof(double) * n * n);
  double (*SB)[n] = malloc(sizeof(double) * n * n);
  double (*SC)[n] = malloc(sizeof(double) * n * n);

  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      A[i0][i1] = (double)((4 * i0 + 12 * i1 + 6) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      B[i0][i1] = (7 * i0 + 11 * i1 + 0) % 23 - 11;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      SA[i0][i1] = (double)((9 * i0 + 4 * i1 + 9) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      SB[i0][i1] = (double)((4 * i0 + 6 * i1 + 5) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      SC[i0][i1] = (double)((7 * i0 + 10 * i1 + 8) % 19) / 19.0 - 0.5;
  kernel(n, s0, s1, A, B, SA, SB, SC);
  printf("== A\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", A[i0][i1]);
  printf("== B\n");
  for (i0 = 0; i0 < n + 1; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      printf("%d\n", B[i0][i1]);
  printf("== SA\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", SA[i0][i1]);
  printf("== SB\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", SB[i0][i1]);
  printf("== SC\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < n; i1++)
      printf("%.17g\n", SC[i0][i1]);
  free(A);
  free(B);
  free(SA);
  free(SB);
  free(SC);
  return 0;
}
