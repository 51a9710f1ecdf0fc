/* SPDX-License-Identifier: MIT */
/*
 * Plain C with a `#pragma scop` region: the region is a static control part
 * (affine loops and subscripts) that pencilcc optimises; the pragma is ignored
 * by gcc.
 */
#include "sample/stencil.h"
#include "stencil_weights.h"

void sample_heat2d(int tsteps, int n, double A[n][n], double B[n][n])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = STENCIL_CENTER * A[i][j]
                  + STENCIL_NEIGHBOUR * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = STENCIL_CENTER * B[i][j]
                  + STENCIL_NEIGHBOUR * (B[i - 1][j] + B[i + 1][j] + B[i][j - 1] + B[i][j + 1]);
  }
#pragma endscop
}
