/* SPDX-License-Identifier: MIT */
/*
 * Image resize with bilinear interpolation (pixel-centre alignment, clamped
 * borders), the "image resize" kernel of the PENCIL image processing
 * benchmark.  The interpolation is done in 11-bit fixed point so that the
 * result is exact and does not depend on floating-point contraction.
 *
 * Destination pixel (i, j) samples the source at
 *     y = (i + 0.5) * rows / r_rows - 0.5,   x = (j + 0.5) * cols / r_cols - 0.5
 * written as exact fractions ny / (2 r_rows) and nx / (2 r_cols).  The
 * floor of a possibly negative fraction and the clamped neighbour indices
 * are non static-affine, as in the benchmark.
 *
 * main() checks the kernel against an independent plain-C implementation
 * (weight tables + four-term weighted sum) for an up-scale and a
 * down-scale, and against two exact properties: resizing to the same size
 * is the identity, halving is a rounded 2x2 box average.
 * Sizes: -DROWS=... -DCOLS=... (use even values for the halving check).
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 40
#endif
#ifndef COLS
#define COLS 52
#endif

#define RESIZE_BITS 11
#define RESIZE_ONE (1 << RESIZE_BITS)

/* ---------------------------------------------------------------- PENCIL */

void resize_bilinear_u8(int rows, int cols,
                        const unsigned char src[pencil_array rows][cols],
                        int r_rows, int r_cols,
                        unsigned char dst[pencil_array r_rows][r_cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(r_rows > 0);
    __pencil_assume(r_cols > 0);
    __pencil_kill(dst);

    for (int i = 0; i < r_rows; i++) {
        for (int j = 0; j < r_cols; j++) {
            int ny = (2 * i + 1) * rows - r_rows;
            int dy = 2 * r_rows;
            int nx = (2 * j + 1) * cols - r_cols;
            int dx = 2 * r_cols;

            /* floor(ny / dy) and floor(nx / dx), also for negative values. */
            int y0 = ny >= 0 ? ny / dy : -((dy - 1 - ny) / dy);
            int x0 = nx >= 0 ? nx / dx : -((dx - 1 - nx) / dx);
            int fy = ((ny - y0 * dy) * RESIZE_ONE) / dy;
            int fx = ((nx - x0 * dx) * RESIZE_ONE) / dx;

            int r0 = clamp(y0, 0, rows - 1);
            int r1 = clamp(y0 + 1, 0, rows - 1);
            int c0 = clamp(x0, 0, cols - 1);
            int c1 = clamp(x0 + 1, 0, cols - 1);

            int top = src[r0][c0] * (RESIZE_ONE - fx) + src[r0][c1] * fx;
            int bottom = src[r1][c0] * (RESIZE_ONE - fx) + src[r1][c1] * fx;
            int v = top * (RESIZE_ONE - fy) + bottom * fy;
            dst[i][j] = (unsigned char)((v + (1 << (2 * RESIZE_BITS - 1))) >>
                                        (2 * RESIZE_BITS));
        }
    }
    __pencil_kill(src);
}

/* ------------------------------------------------------------ plain C */

struct tap {
    int lo, hi, w; /* neighbour indices and weight of `hi` (/RESIZE_ONE) */
};

/* One axis: destination index d of dn maps to source coordinate in [0, sn). */
static void make_taps(int sn, int dn, struct tap *t)
{
    for (int d = 0; d < dn; d++) {
        long num = (long)(2 * d + 1) * sn - dn;
        long den = 2L * dn;
        long f = (long)floor((double)num / (double)den);
        t[d].w = (int)(((num - f * den) << RESIZE_BITS) / den);
        t[d].lo = f < 0 ? 0 : f > sn - 1 ? sn - 1 : (int)f;
        t[d].hi = f + 1 < 0 ? 0 : f + 1 > sn - 1 ? sn - 1 : (int)(f + 1);
    }
}

static void reference_resize(int rows, int cols, const unsigned char *src,
                             int r_rows, int r_cols, unsigned char *dst)
{
    struct tap *ty = malloc(sizeof *ty * (size_t)r_rows);
    struct tap *tx = malloc(sizeof *tx * (size_t)r_cols);
    if (!ty || !tx)
        exit(1);
    make_taps(rows, r_rows, ty);
    make_taps(cols, r_cols, tx);
    for (int i = 0; i < r_rows; i++)
        for (int j = 0; j < r_cols; j++) {
            long wy1 = ty[i].w, wy0 = RESIZE_ONE - wy1;
            long wx1 = tx[j].w, wx0 = RESIZE_ONE - wx1;
            long acc = src[ty[i].lo * cols + tx[j].lo] * wy0 * wx0 +
                       src[ty[i].lo * cols + tx[j].hi] * wy0 * wx1 +
                       src[ty[i].hi * cols + tx[j].lo] * wy1 * wx0 +
                       src[ty[i].hi * cols + tx[j].hi] * wy1 * wx1;
            dst[i * r_cols + j] =
                (unsigned char)((acc + (1L << (2 * RESIZE_BITS - 1))) >>
                                (2 * RESIZE_BITS));
        }
    free(ty);
    free(tx);
}

/* Runs the kernel for one output size; returns the number of mismatches. */
static int check_size(int rows, int cols, const unsigned char *src,
                      int r_rows, int r_cols, const char *what)
{
    unsigned char(*out)[r_cols] = malloc(sizeof(unsigned char[r_rows][r_cols]));
    unsigned char *ref = malloc((size_t)r_rows * (size_t)r_cols);
    int bad = 0;
    unsigned long sum = 0;
    if (!out || !ref)
        exit(1);

    resize_bilinear_u8(rows, cols, (const unsigned char(*)[cols])src, r_rows,
                       r_cols, out);
    reference_resize(rows, cols, src, r_rows, r_cols, ref);

    for (int i = 0; i < r_rows; i++)
        for (int j = 0; j < r_cols; j++) {
            int expect = ref[i * r_cols + j];
            if (r_rows == rows && r_cols == cols)
                expect = src[i * cols + j]; /* identity */
            if (2 * r_rows == rows && 2 * r_cols == cols) {
                const unsigned char *p = src + 2 * i * cols + 2 * j;
                expect = (p[0] + p[1] + p[cols] + p[cols + 1] + 2) / 4;
            }
            if (out[i][j] != expect || out[i][j] != ref[i * r_cols + j]) {
                if (bad++ < 5)
                    printf("%s mismatch at (%d,%d): %d, reference %d, "
                           "expected %d\n",
                           what, i, j, out[i][j], ref[i * r_cols + j], expect);
            }
            sum = sum * 31u + out[i][j];
        }
    printf("resize %s %dx%d -> %dx%d checksum %lu\n", what, rows, cols,
           r_rows, r_cols, sum);
    free(out);
    free(ref);
    return bad;
}

int main(void)
{
    int rows = ROWS, cols = COLS, bad = 0;
    unsigned char *src = malloc((size_t)rows * (size_t)cols);
    if (!src)
        return 1;
    unsigned int seed = 2024u;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            seed = seed * 1664525u + 1013904223u;
            src[i * cols + j] =
                (unsigned char)(((i * 255) / rows + (j * 5) + (seed >> 27)) &
                                255);
        }

    bad += check_size(rows, cols, src, rows * 3 / 2 + 1, cols * 5 / 3, "up");
    bad += check_size(rows, cols, src, rows / 3 + 1, cols / 4 + 1, "down");
    bad += check_size(rows, cols, src, rows, cols, "same");
    if (rows % 2 == 0 && cols % 2 == 0)
        bad += check_size(rows, cols, src, rows / 2, cols / 2, "half");
    printf("%s\n", bad ? "FAILED" : "OK");
    free(src);
    return bad ? 1 : 0;
}
