/* SPDX-License-Identifier: MIT */
/*
 * Affine warp: every destination pixel (i, j) is sampled from the source at
 *     x = M[0][0] * j + M[0][1] * i + M[0][2]
 *     y = M[1][0] * j + M[1][1] * i + M[1][2]
 * (the inverse map) with bilinear interpolation and replicated borders; the
 * "affine warping" kernel of the PENCIL image processing benchmark.  The
 * floor of the coordinates and the clamped neighbours make both the
 * conditionals and the reads non static-affine.  Coordinates are computed
 * in double precision; pixels are floats in [0, 1].
 *
 * main() checks against an independent plain-C implementation (explicit
 * four-weight bilinear formula in double, tolerance 1e-5 relative) for a
 * rotation + scale + translation, and checks that the identity matrix and an
 * integer translation reproduce the input exactly.
 * Sizes: -DROWS=... -DCOLS=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 42
#endif
#ifndef COLS
#define COLS 58
#endif

/* ---------------------------------------------------------------- PENCIL */

void warp_affine(int rows, int cols, const float src[pencil_array rows][cols],
                 const double M[pencil_array 2][3], int d_rows, int d_cols,
                 float dst[pencil_array d_rows][d_cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(d_rows > 0);
    __pencil_assume(d_cols > 0);
    __pencil_kill(dst);

    for (int i = 0; i < d_rows; i++) {
        for (int j = 0; j < d_cols; j++) {
            double x = M[0][0] * j + M[0][1] * i + M[0][2];
            double y = M[1][0] * j + M[1][1] * i + M[1][2];
            /* Keep the floors in int range before converting. */
            double xf = fclamp(floor(x), -1.0, (double)cols);
            double yf = fclamp(floor(y), -1.0, (double)rows);
            float ax = (float)fclamp(x - xf, 0.0, 1.0);
            float ay = (float)fclamp(y - yf, 0.0, 1.0);
            int c0 = clamp((int)xf, 0, cols - 1);
            int c1 = clamp((int)xf + 1, 0, cols - 1);
            int r0 = clamp((int)yf, 0, rows - 1);
            int r1 = clamp((int)yf + 1, 0, rows - 1);
            float top = mixf(src[r0][c0], src[r0][c1], ax);
            float bottom = mixf(src[r1][c0], src[r1][c1], ax);
            dst[i][j] = mixf(top, bottom, ay);
        }
    }
}

/* ------------------------------------------------------------ plain C */

static int close_enough(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-5 * (scale > 1.0 ? scale : 1.0);
}

static double pixel(const float *src, int rows, int cols, long y, long x)
{
    if (y < 0)
        y = 0;
    if (y > rows - 1)
        y = rows - 1;
    if (x < 0)
        x = 0;
    if (x > cols - 1)
        x = cols - 1;
    return src[y * cols + x];
}

static void reference_warp(int rows, int cols, const float *src,
                           const double m[6], int d_rows, int d_cols,
                           double *dst)
{
    for (int i = 0; i < d_rows; i++)
        for (int j = 0; j < d_cols; j++) {
            double x = m[0] * j + m[1] * i + m[2];
            double y = m[3] * j + m[4] * i + m[5];
            double fx = floor(x), fy = floor(y);
            /* Far outside the image every neighbour is the border pixel. */
            if (fx < -1.0)
                fx = -1.0;
            if (fx > cols)
                fx = cols;
            if (fy < -1.0)
                fy = -1.0;
            if (fy > rows)
                fy = rows;
            double wx = x - fx, wy = y - fy;
            if (wx > 1.0)
                wx = 1.0;
            if (wx < 0.0)
                wx = 0.0;
            if (wy > 1.0)
                wy = 1.0;
            if (wy < 0.0)
                wy = 0.0;
            long x0 = (long)fx, y0 = (long)fy;
            dst[i * d_cols + j] =
                (1 - wy) * (1 - wx) * pixel(src, rows, cols, y0, x0) +
                (1 - wy) * wx * pixel(src, rows, cols, y0, x0 + 1) +
                wy * (1 - wx) * pixel(src, rows, cols, y0 + 1, x0) +
                wy * wx * pixel(src, rows, cols, y0 + 1, x0 + 1);
        }
}

static int run_case(int rows, int cols, const float *src, double m[6],
                    int d_rows, int d_cols, int shift_y, int shift_x,
                    int exact, const char *what)
{
    float(*out)[d_cols] = malloc(sizeof(float[d_rows][d_cols]));
    double *ref = malloc(sizeof(double) * (size_t)d_rows * (size_t)d_cols);
    double M[2][3] = {{m[0], m[1], m[2]}, {m[3], m[4], m[5]}};
    double sum = 0.0;
    int bad = 0;
    if (!out || !ref)
        exit(1);
    warp_affine(rows, cols, (const float(*)[cols])src,
                (const double(*)[3])M, d_rows, d_cols, out);
    reference_warp(rows, cols, src, m, d_rows, d_cols, ref);
    for (int i = 0; i < d_rows; i++)
        for (int j = 0; j < d_cols; j++) {
            double want = ref[i * d_cols + j];
            int ok;
            if (exact) {
                /* Translation by whole pixels: a shifted, clamped copy. */
                double copy = pixel(src, rows, cols, i + shift_y, j + shift_x);
                ok = out[i][j] == copy && close_enough(want, copy);
                want = copy;
            } else {
                ok = close_enough(out[i][j], want);
            }
            if (!ok && bad++ < 5)
                printf("%s mismatch at (%d,%d): %.8g != %.8g\n", what, i, j,
                       out[i][j], want);
            sum += out[i][j];
        }
    printf("warp_affine %s %dx%d -> %dx%d sum %.5f\n", what, rows, cols,
           d_rows, d_cols, sum);
    free(out);
    free(ref);
    return bad;
}

int main(void)
{
    int rows = ROWS, cols = COLS, bad = 0;
    float *src = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    if (!src)
        return 1;
    unsigned int seed = 8086u;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            seed = seed * 1103515245u + 12345u;
            src[i * cols + j] =
                (float)((i * 5 + j * 3) % 64 + (int)((seed >> 16) % 64u)) /
                128.0f;
        }

    /* Inverse map of a 20 degree rotation about the centre, scale 0.8. */
    double a = 20.0 * 3.14159265358979323846 / 180.0, s = 1.0 / 0.8;
    double cx = cols / 2.0, cy = rows / 2.0;
    double rot[6] = {s * cos(a), s * sin(a), 0.0, -s * sin(a), s * cos(a), 0.0};
    rot[2] = cx - rot[0] * cx - rot[1] * cy + 0.25;
    rot[5] = cy - rot[3] * cx - rot[4] * cy - 0.5;
    double ident[6] = {1.0, 0.0, 0.0, 0.0, 1.0, 0.0};
    double shift[6] = {1.0, 0.0, 3.0, 0.0, 1.0, -2.0};

    bad += run_case(rows, cols, src, rot, rows + 6, cols - 4, 0, 0, 0,
                    "rotate");
    bad += run_case(rows, cols, src, ident, rows, cols, 0, 0, 1, "identity");
    bad += run_case(rows, cols, src, shift, rows, cols, -2, 3, 1, "shift");
    printf("%s\n", bad ? "FAILED" : "OK");
    free(src);
    return bad ? 1 : 0;
}
