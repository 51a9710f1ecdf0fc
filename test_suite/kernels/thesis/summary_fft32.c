/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.2, Example 1: a loop of ABF (adaptive beamformer)
 * calls the library function fft32, which is not PENCIL; its summary
 * function says that each call reads and writes only in[i][j][0..31], which
 * lets the compiler parallelise the loops.
 *
 * Changes from the printed text: `pencil_attributes` is spelled
 * `pencil_array`; the stray `;` after the summary's parameter list is
 * removed; the summary is declared before it is named in the attribute;
 * ABF returns 0 (the printed function has no return statement).
 */
#include "pencil.h"

void summary_fft32(int i, int j, int n,
                   float in[pencil_array n][n][n]);

__attribute__((pencil_access(summary_fft32)))
void fft32(int i, int j, int n,
           float in[pencil_array n][n][n]);

int ABF(int n, float in[pencil_array n][n][n])
{
    // ...
    for (int i = 0; i < n; i++)
    {
        // ...
        for (int j = 0; j < n; j++)
            fft32(i, j, n, in);
    }
    // ...
    return 0;
}

void summary_fft32(int i, int j, int n,
                   float in[pencil_array n][n][n])
{
    for (int k = 0; k < 32; k++)
        __pencil_use(in[i][j][k]);
    for (int k = 0; k < 32; k++)
        __pencil_def(in[i][j][k]);
}
