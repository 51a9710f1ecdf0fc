#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#ifdef __PENCILCC__
#include <pencil.h>
#else
#define __pencil_kill(x) ((void)sizeof(&(x)))
#define __pencil_assume(e) ((void)sizeof((e) ? 1 : 0))
#endif

/* pencilcc random differential test, seed 9100035: 7 nests; depth 3; 11 statements; 8 arrays (2 int); n=9, m=9, p=10; 3-stage pipeline; affine local; builtin; decreasing; diagonal; guard; int wrap; pencil kill; scalar reduction; step2; triangular; written with bound macros */
#define CAT(a, b) a##b
#define PAREN(x) (x)
#define ARR1(name, d1) name[PAREN(d1)]
#define ARR2(name, d1, d2) name[d1 + 0][d2 + 0]
#define ARR3(name, d1, d2, d3) name[(d1)][d2 + 0][PAREN(d3)]
#define BOUND(x) CAT(BOUND_, x)
#define BOUND_n n
#define BOUND_m m
#define BOUND_p p

static void kernel(int n, int m, int p, double s0, double *r0, double A[BOUND(p) + 1], int B[BOUND(m) + 1], double C[BOUND(p)][BOUND(p)][BOUND(m)], int D[BOUND(m)][BOUND(m) + 1], double L[BOUND(n)][BOUND(m)], double J[BOUND(n)][BOUND(m)], double K[n][m], double O[n][m])
{
  int i0, i1, i2;
  double t1;

  t1 = 0.0;
#pragma scop
  __pencil_assume(n >= 5 && m >= 5 && p >= 5);
  for (i0 = 0; i0 < m; i0++) {
    int j0 = p - 2;
    if (i0 >= 2 && i0 % 2 == 0)
      for (i1 = 0; i1 < j0 + 1; i1++)
        for (i2 = 0; i2 <= i1 - 1; i2++) {
          if (i0 > i1 - 1 && i2 + i1 < p - 1)
            { int ti = (B[i0 + 1] - (2 * i2)) % 1000; B[i0] += ti; }
          if (i2 + i1 < p)
            D[i0][i0] = (2 * B[i0] - (i2 + 1) * B[i0]) % 1000;
        }
  }
  for (i0 = 1; i0 < BOUND(p); i0++) {
    { double td = 0.125 * A[i0]; t1 = td; }
    for (i1 = 0; i1 < p; i1++)
      t1 += 1.25 * A[p - i1 - 1];
    { double td = (A[i0] * t1 + C[i0][i0][1] + sqrt(fabs(*r0))) / 2.0; C[i0][i0][3] = td; }
  }
  for (i0 = 0; i0 < BOUND(p); i0 += 2)
    for (i1 = m - 1; i1 >= 0; i1--)
      B[i1] = (B[m - i1 - 1] - B[m - i1 - 1]) % 1000;
  for (i0 = 0; i0 < BOUND(n); i0++)
    for (i1 = 0; i1 < BOUND(m); i1++)
      J[i0][i1] = 0.5 * L[i0][i1] + 0.25;
  for (i1 = 0; i1 < BOUND(m); i1++) {
    K[0][i1] = J[0][i1];
    K[n - 1][i1] = J[n - 1][i1];
  }
  for (i0 = 1; i0 < BOUND(n) - 1; i0++)
    for (i1 = 0; i1 < BOUND(m); i1++)
      K[i0][i1] = 0.25 * (J[i0 - 1][i1] + 2.0 * J[i0][i1] + J[i0 + 1][i1]);
  for (i0 = 0; i0 < BOUND(n); i0++)
    for (i1 = 0; i1 < BOUND(m); i1++)
      O[i0][i1] = 0.5 * K[i0][i1] - 0.25 * J[i0][i1];
  __pencil_kill(J);
  __pencil_kill(K);
#pragma endscop
}

int main(void)
{
  int n = 9;
  int m = 9;
  int p = 10;
  double s0 = 0.5;
  double r0 = 0.0;
  int i0, i1, i2;
  double *A = malloc(sizeof(double) * (p + 1));
  int *B = malloc(sizeof(int) * (m + 1));
  double (*C)[p][m] = malloc(sizeof(double) * p * p * m);
  int (*D)[m + 1] = malloc(sizeof(int) * m * (m + 1));
  double (*L)[m] = malloc(sizeof(double) * n * m);
  double (*J)[m] = malloc(sizeof(double) * n * m);
  double (*K)[m] = malloc(sizeof(double) * n * m);
  double (*O)[m] = malloc(sizeof(double) * n * m);

  for (i0 = 0; i0 < p + 1; i0++)
    A[i0] = (double)((7 * i0 + 4) % 23) / 23.0 - 0.5;
  for (i0 = 0; i0 < m + 1; i0++)
    B[i0] = (3 * i0 + 0) % 19 - 9;
  for (i0 = 0; i0 < p; i0++)
    for (i1 = 0; i1 < p; i1++)
      for (i2 = 0; i2 < m; i2++)
        C[i0][i1][i2] = (double)((4 * i0 + 7 * i1 + 1 * i2 + 6) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m + 1; i1++)
      D[i0][i1] = (1 * i0 + 10 * i1 + 8) % 19 - 9;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      L[i0][i1] = (double)((8 * i0 + 6 * i1 + 8) % 17) / 17.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      J[i0][i1] = (double)((8 * i0 + 8 * i1 + 8) % 23) / 23.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      K[i0][i1] = (double)((9 * i0 + 5 * i1 + 0) % 19) / 19.0 - 0.5;
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      O[i0][i1] = (double)((13 * i0 + 12 * i1 + 0) % 19) / 19.0 - 0.5;
  kernel(n, m, p, s0, &r0, A, B, C, D, L, J, K, O);
  printf("== A\n");
  for (i0 = 0; i0 < p + 1; i0++)
    printf("%.17g\n", A[i0]);
  printf("== B\n");
  for (i0 = 0; i0 < m + 1; i0++)
    printf("%d\n", B[i0]);
  printf("== C\n");
  for (i0 = 0; i0 < p; i0++)
    for (i1 = 0; i1 < p; i1++)
      for (i2 = 0; i2 < m; i2++)
        printf("%.17g\n", C[i0][i1][i2]);
  printf("== D\n");
  for (i0 = 0; i0 < m; i0++)
    for (i1 = 0; i1 < m + 1; i1++)
      printf("%d\n", D[i0][i1]);
  printf("== L\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", L[i0][i1]);
  printf("== O\n");
  for (i0 = 0; i0 < n; i0++)
    for (i1 = 0; i1 < m; i1++)
      printf("%.17g\n", O[i0][i1]);
  printf("== r0\n%.17g\n", r0);
  free(A);
  free(B);
  free(C);
  free(D);
  free(L);
  free(J);
  free(K);
  free(O);
  return 0;
}
