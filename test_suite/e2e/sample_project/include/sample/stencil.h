/* SPDX-License-Identifier: MIT */
/* Heat-diffusion stencil of libkernels (a #pragma scop region in plain C). */
#ifndef SAMPLE_STENCIL_H
#define SAMPLE_STENCIL_H

/* tsteps double sweeps of a 5-point stencil over the interior of the n x n
 * grid A, with B as scratch; the border cells keep their values. */
void sample_heat2d(int tsteps, int n, double A[n][n], double B[n][n]);

#endif
