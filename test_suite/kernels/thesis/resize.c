/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.4.2, "Image Resizing Example": bilinear image resize in
 * PENCIL, with __pencil_assume facts about the image sizes and
 * __pencil_kill on the output (before) and on the input (after).
 * Transcribed as printed (`#include <pencil.h>`: compile with -I include).
 */
#include <pencil.h>

#define bilinear(A00, A01, A11, A10, r, c) \
    ((1-c) * ((1-r) * A00 + r*A10) + c*((1-r)*A01 + r*A11))

static void resize(const int rows,
                   const int cols,
                   const int step,
                   const unsigned char original[pencil_array rows][step],
                   const int r_rows,
                   const int r_cols,
                   const int r_step,
                   unsigned char resampled[pencil_array r_rows][r_step])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(step >= cols);
    __pencil_assume(r_rows > 0);
    __pencil_assume(r_cols > 0);
    __pencil_assume(r_step >= r_cols);

    __pencil_kill(resampled);

    int o_h = rows;
    int o_w = cols;
    int n_h = r_rows;
    int n_w = r_cols;

    for (int n_r = 0; n_r < r_rows; n_r++)
    {
        for (int n_c = 0; n_c < r_cols; n_c++)
        {
            float o_r = (n_r + 0.5) * (o_h) / (n_h) - 0.5;
            float o_c = (n_c + 0.5) * (o_w) / (n_w) - 0.5;

            float r = o_r - floor(o_r);
            float c = o_c - floor(o_c);

            int coord_00_r = clamp((int) floor(o_r), 0, o_h - 1);
            int coord_00_c = clamp((int) floor(o_c), 0, o_w - 1);

            int coord_01_r = coord_00_r;
            int coord_01_c = clamp(coord_00_c + 1, 0, o_w - 1);

            int coord_10_r = clamp(coord_00_r + 1, 0, o_h - 1);
            int coord_10_c = coord_00_c;

            int coord_11_r = clamp(coord_00_r + 1, 0, o_h - 1);
            int coord_11_c = clamp(coord_00_c + 1, 0, o_w - 1);

            unsigned char A00 = original[coord_00_r][coord_00_c];
            unsigned char A10 = original[coord_10_r][coord_10_c];
            unsigned char A01 = original[coord_01_r][coord_01_c];
            unsigned char A11 = original[coord_11_r][coord_11_c];

            resampled[n_r][n_c] = bilinear(A00, A01, A11, A10, r, c);
        }
    }
    __pencil_kill(original);
}

/* Not in the thesis: an external entry point so that the static kernel is
 * used (and can be called from a test driver). */
void resize_entry(int rows, int cols, int step,
                  const unsigned char original[pencil_array rows][step],
                  int r_rows, int r_cols, int r_step,
                  unsigned char resampled[pencil_array r_rows][r_step])
{
    resize(rows, cols, step, original, r_rows, r_cols, r_step, resampled);
}
