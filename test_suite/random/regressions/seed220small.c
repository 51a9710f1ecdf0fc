#include <stdio.h>
#include <stdlib.h>
#include <math.h>

/* pencilcc random differential test, seed 220: 4 nests; depth 3; 10 statements; 3 arrays (0 int); n=10, m=6, p=9; affine local; builtin; decreasing; diagonal; guard; triangular; window; written with typedef rows, bound macros, loop pragmas; pencilcc -fpencil-target=opencl -fpencil-cluster=bb; its C from -fpencil-emit-c checked too */
#define CAT(a, b) a##b
#define PAREN(x) (x)
#define ARR1(name, d1) name[PAREN(d1)]
#define ARR2(name, d1, d2) name[d1 + 0][d2 + 0]
#define ARR3(name, d1, d2, d3) name[(d1)][d2 + 0][PAREN(d3)]
#define BOUND(x) CAT(BOUND_, x)
#define BOUND_n n
#define BOUND_m m
#define BOUND_p p
#define A_DIM1 6
#define A_DIM2 9
typedef double A_plane_t[A_DIM1][A_DIM2];
#define B_DIM1 11
#define B_DIM2 9
typedef double B_plane_t[B_DIM1][B_DIM2];

static void kernel(int n, int m, int p, double s0, double *r0, A_plane_t *A, B_plane_t *B, double C[BOUND(n) + 1])
{
  int i0, i1, i2;

#pragma scop
  for (i0 = n - 2; i0 >= 0; i0--)
    for (i1 = 0; i1 < BOUND(m) - 1; i1++) {
      int j1 = n - i0 - 1;
      if (i0 <= i1 + 1)
        A[i1][i1][0] = (fmin(C[n - i0 - 1], C[n - i0]) + A[i1 + 1][i1][2] * 1.5 + B[0][j1][2] * B[0][j1][0]) / 3.0;
      C[1] *= B[3][j1][3];
      { double td = 1.25 - A[i1 + 1][m - i1 - 1][1]; A[i1][i1][1] = td; }
    }
#pragma GCC unroll 4
  for (i0 = 0; i0 < BOUND(m) - 2; i0++) {
    int j0 = m - 2;
    A[i0][j0][2] = A[j0][i0 + 2][3] / 5.0 - 0.125 * A[j0][j0 - 1][0];
  }
#pragma GCC unroll 4
  for (i0 = 1; i0 < BOUND(p) - 2; i0++) {
    for (i1 = i0; i1 < BOUND(p) - 2; i1++)
      for (i2 = 2; i2 <= m - 1; i2++) {
        int j2 = n - 2;
        if (i0 + i1 < p - 2)
          A[i2][i2][i0] += (sqrt(fabs(C[j2 - 1])) - fmin(C[j2], A[i2][i2][2]) - 1.5 * (*r0)) / 3.0;
        B[p - i0 - 1][j2][i1] *= 0.25;
      }
    if (i0 % 2 == 1)
      for (i1 = BOUND(p) - 3; i1 >= 0; i1--)
        A[1][1][i0] += A[0][0][i0] / 3.0;
    B[i0][0][i0] -= ((double)(i0 + 1) + sqrt(fabs(B[i0 + 1][3][i0 + 2]))) / 3.0;
  }
  for (i0 = 0; i0 <= n - 1; i0++) {
#pragma GCC unroll 4
    for (i1 = i0; i1 < i0 + 3; i1++) {
      int j1 = p - 1;
      for (i2 = 0; i2 < j1 + 1; i2++) {
        C[i0] += 0.1 * (C[n - i0 - 1] + (*r0) * B[j1][i0][j1]);
        if (i0 + i1 < n - 2)
          { double td = (B[3][i0][i2] + sqrt(fabs((double)(i1 + 3 * i0))) + C[n - i0 - 1]) / 2.0; B[p - i2 - 1][i0][j1] = td; }
      }
    }
  }
#pragma endscop
}

int main(void)
{
  int n = 10;
  int m = 6;
  int p = 9;
  double s0 = 0.75;
  double r0 = 0.0;
  int i0, i1, i2;
  double (*A)[m][p] = malloc(sizeof(double) * m * m * p);
  double (*B)[n + 1][p] = malloc(sizeof(double) * p * (n + 1) * p);
  double *C = malloc(sizeof(double) * (n + 1));

  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < p; i2++)
        A[i0][i1][i2] = (double)((6 * i0 + 4 * i1 + 8 * i2 + 2) % 29) / 29.0 - 0.5;
  for (i0 = 0; i0 < p; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < p; i2++)
        B[i0][i1][i2] = (double)((11 * i0 + 9 * i1 + 5 * i2 + 4) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n + 1; i0++)
    C[i0] = (double)((1 * i0 + 3) % 23) / 23.0 - 0.5;
  kernel(n, m, p, s0, &r0, A, B, C);
  printf("== A\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m; i1++)
      for (i2 = 0; i2 < p; i2++)
        printf("%.17g\n", A[i0][i1][i2]);
  printf("== B\n");
  for (i0 = 0; i0 < p; i0++)
    for (i1 = 0; i1 < n + 1; i1++)
      for (i2 = 0; i2 < p; i2++)
        printf("%.17g\n", B[i0][i1][i2]);
  printf("== C\n");
  for (i0 = 0; i0 < n + 1; i0++)
    printf("%.17g\n", C[i0]);
  printf("== r0\n%.17g\n", r0);
  free(A);
  free(B);
  free(C);
  return 0;
}
