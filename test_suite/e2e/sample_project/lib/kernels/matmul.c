/* SPDX-License-Identifier: MIT */
/*
 * A PENCIL function: every array parameter is `static const restrict` with its
 * extents given by earlier parameters, loops are affine, no pointers.  pencilcc
 * compiles it through its polyhedral path; gcc compiles it as the C99 it is.
 */
#include "sample/matmul.h"

void sample_matmul(int ni, int nj, int nk, double alpha,
                   double C[static const restrict ni][nj],
                   double A[static const restrict ni][nk],
                   double B[static const restrict nk][nj])
{
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] = 0.0;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}
