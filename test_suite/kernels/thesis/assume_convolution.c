/* SPDX-License-Identifier: MIT */
/*
 * Thesis Figure 4.2, "General 2D convolution" (section 4.3.5.iii,
 * __pencil_assume, Example 1): assuming the kernel matrix is at most
 * 15 x 15 lets a GPU compiler keep it in shared memory.
 *
 * The figure prints only the statements; they are wrapped in a function
 * whose parameters declare the arrays, and `row` / `col` are declared.
 */
#include "pencil.h"

#define clampi(val, min, max) \
    (val < min) ? (min) : (val > max ) ? (max):(val)

void convolution(int rows, int cols, float src[pencil_array rows][cols],
                 int ker_mat_rows, int ker_mat_cols,
                 float kern_mat[pencil_array ker_mat_rows][ker_mat_cols],
                 float conv[pencil_array rows][cols])
{
    int row, col;

    __pencil_assume(ker_mat_rows <= 15);
    __pencil_assume(ker_mat_cols <= 15);

    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float prod = 0.;
            for (int e = 0; e < ker_mat_rows; e++)
                for (int r = 0; r < ker_mat_cols; r++) {
                    row = clampi(i+e-ker_mat_rows/2, 0, rows-1);
                    col = clampi(j+r-ker_mat_cols/2, 0, cols-1);
                    prod += src[row][col] * kern_mat[e][r];
                }
            conv[i][j] = prod;
        }
}
