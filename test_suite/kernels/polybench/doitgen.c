/* SPDX-License-Identifier: MIT */
/*
 * doitgen: multiresolution analysis kernel (MADNESS).  Every row A[r][q][:]
 * of a 3-D tensor is replaced by its product with the NP x NP matrix C4:
 * A[r][q][p] := sum_s A[r][q][s] * C4[s][p].  VLA extents (3-D).
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef NR
# define NR 24
#endif
#ifndef NQ
# define NQ 20
#endif
#ifndef NP
# define NP 36
#endif

static void init_array(int nr, int nq, int np, double A[nr][nq][np],
                       double C4[np][np])
{
  int i, j, k;

  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (double)((i * j + k) % np) / np;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (double)(i * j % np) / np;
}

static void kernel_doitgen(int nr, int nq, int np, double A[nr][nq][np],
                           double C4[np][np], double sum[np])
{
  int r, q, p, s;

#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}

int main(void)
{
  int nr = NR, nq = NQ, np = NP;
  double (*A)[nq][np] = malloc(sizeof(double[nr][nq][np]));
  double (*C4)[np] = malloc(sizeof(double[np][np]));
  double *sum = malloc(sizeof(double[np]));
  int i, j, k;

  if (!A || !C4 || !sum)
    return 1;
  init_array(nr, nq, np, A, C4);
  kernel_doitgen(nr, nq, np, A, C4, sum);

  printf("== A\n");
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        printf("%.17g\n", A[i][j][k]);
  printf("== sum\n");
  for (i = 0; i < np; i++)
    printf("%.17g\n", sum[i]);

  free(A);
  free(C4);
  free(sum);
  return 0;
}
