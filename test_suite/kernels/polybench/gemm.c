/* SPDX-License-Identifier: MIT */
/*
 * gemm: general matrix-matrix product C := alpha*A*B + beta*C.
 * A is NI x NK, B is NK x NJ, C is NI x NJ.  Constant array extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NI
# define NI 60
#endif
#ifndef NJ
# define NJ 70
#endif
#ifndef NK
# define NK 80
#endif

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)(i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[NI][NJ], double A[NI][NK], double B[NK][NJ])
{
  int i, j, k;

#pragma scop
  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
#pragma endscop
}

int main(void)
{
  double alpha, beta;
  double (*C)[NJ] = (double (*)[NJ])malloc(sizeof(double[NI][NJ]));
  double (*A)[NK] = (double (*)[NK])malloc(sizeof(double[NI][NK]));
  double (*B)[NJ] = (double (*)[NJ])malloc(sizeof(double[NK][NJ]));
  int i, j;

  if (!C || !A || !B)
    return 1;
  init_array(NI, NJ, NK, &alpha, &beta, C, A, B);
  kernel_gemm(NI, NJ, NK, alpha, beta, C, A, B);

  printf("== C\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", C[i][j]);

  free(C);
  free(A);
  free(B);
  return 0;
}
