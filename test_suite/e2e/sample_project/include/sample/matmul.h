/* SPDX-License-Identifier: MIT */
/* Matrix product kernel of libkernels (a PENCIL function). */
#ifndef SAMPLE_MATMUL_H
#define SAMPLE_MATMUL_H

/* C := alpha * A * B, with A ni x nk, B nk x nj and C ni x nj. */
void sample_matmul(int ni, int nj, int nk, double alpha,
                   double C[static const restrict ni][nj],
                   double A[static const restrict ni][nk],
                   double B[static const restrict nk][nj]);

#endif
