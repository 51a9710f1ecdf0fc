/* SPDX-License-Identifier: MIT */
/*
 * fdtd-2d: 2-D finite-difference time-domain (Yee) scheme for the TE mode:
 * each of TMAX steps sets the ey boundary row from a source signal, updates
 * ey and ex from the curl of hz, then hz from ex and ey.  Constant extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef TMAX
# define TMAX 20
#endif
#ifndef NX
# define NX 60
#endif
#ifndef NY
# define NY 70
#endif

static void init_array(int tmax, int nx, int ny, double ex[NX][NY],
                       double ey[NX][NY], double hz[NX][NY], double fict[TMAX])
{
  int i, j;

  for (i = 0; i < tmax; i++)
    fict[i] = (double)i;
  for (i = 0; i < nx; i++)
    for (j = 0; j < ny; j++) {
      ex[i][j] = ((double)i * (j + 1)) / nx;
      ey[i][j] = ((double)i * (j + 2)) / ny;
      hz[i][j] = ((double)i * (j + 3)) / nx;
    }
}

static void kernel_fdtd_2d(int tmax, int nx, int ny, double ex[NX][NY],
                           double ey[NX][NY], double hz[NX][NY],
                           double fict[TMAX])
{
  int t, i, j;

#pragma scop
  for (t = 0; t < tmax; t++) {
    for (j = 0; j < ny; j++)
      ey[0][j] = fict[t];
    for (i = 1; i < nx; i++)
      for (j = 0; j < ny; j++)
        ey[i][j] = ey[i][j] - 0.5 * (hz[i][j] - hz[i - 1][j]);
    for (i = 0; i < nx; i++)
      for (j = 1; j < ny; j++)
        ex[i][j] = ex[i][j] - 0.5 * (hz[i][j] - hz[i][j - 1]);
    for (i = 0; i < nx - 1; i++)
      for (j = 0; j < ny - 1; j++)
        hz[i][j] = hz[i][j] - 0.7 * (ex[i][j + 1] - ex[i][j]
                                     + ey[i + 1][j] - ey[i][j]);
  }
#pragma endscop
}

int main(void)
{
  double (*ex)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double (*ey)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double (*hz)[NY] = (double (*)[NY])malloc(sizeof(double[NX][NY]));
  double *fict = (double *)malloc(sizeof(double[TMAX]));
  int i, j;

  if (!ex || !ey || !hz || !fict)
    return 1;
  init_array(TMAX, NX, NY, ex, ey, hz, fict);
  kernel_fdtd_2d(TMAX, NX, NY, ex, ey, hz, fict);

  printf("== ex\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", ex[i][j]);
  printf("== ey\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", ey[i][j]);
  printf("== hz\n");
  for (i = 0; i < NX; i++)
    for (j = 0; j < NY; j++)
      printf("%.17g\n", hz[i][j]);

  free(ex);
  free(ey);
  free(hz);
  free(fict);
  return 0;
}
