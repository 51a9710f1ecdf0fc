/* SPDX-License-Identifier: MIT */
/*
 * General 2D convolution: each output pixel is the weighted sum of the
 * ker_rows x ker_cols neighbourhood around it (borders replicated), the
 * "2D convolution" kernel of the PENCIL image processing benchmark.
 *
 * As in the thesis, __pencil_assume tells the compiler that the kernel
 * matrix is at most 15 x 15 (so it can live in GPU shared memory), and the
 * clamped neighbour indices make the read of `src` non static-affine.
 *
 * main() compares against an independent plain-C implementation with linear
 * indexing and explicit border tests (tolerance 1e-5 relative), for a 5x5 and
 * a non-square 3x7 kernel, and checks that a centred unit impulse kernel is
 * the exact identity.  Sizes: -DROWS=... -DCOLS=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 40
#endif
#ifndef COLS
#define COLS 56
#endif

/* ---------------------------------------------------------------- PENCIL */

void filter2d(int rows, int cols, const float src[pencil_array rows][cols],
              int ker_rows, int ker_cols,
              const float kern[pencil_array ker_rows][ker_cols],
              float dst[pencil_array rows][cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(ker_rows > 0);
    __pencil_assume(ker_cols > 0);
    __pencil_assume(ker_rows <= 15);
    __pencil_assume(ker_cols <= 15);
    __pencil_kill(dst);

    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            float acc = 0.0f;
            for (int e = 0; e < ker_rows; e++) {
                for (int r = 0; r < ker_cols; r++) {
                    int y = clamp(i + e - ker_rows / 2, 0, rows - 1);
                    int x = clamp(j + r - ker_cols / 2, 0, cols - 1);
                    acc += src[y][x] * kern[e][r];
                }
            }
            dst[i][j] = acc;
        }
    }
}

/* ------------------------------------------------------------ plain C */

static int close_enough(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-5 * (scale > 1.0 ? scale : 1.0);
}

static void reference_filter2d(int rows, int cols, const float *src, int kr,
                               int kc, const float *kern, float *dst)
{
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float acc = 0.0f;
            const float *w = kern;
            for (int e = 0; e < kr; e++)
                for (int r = 0; r < kc; r++, w++) {
                    int y = i + e - kr / 2;
                    int x = j + r - kc / 2;
                    if (y < 0)
                        y = 0;
                    if (y >= rows)
                        y = rows - 1;
                    if (x < 0)
                        x = 0;
                    if (x >= cols)
                        x = cols - 1;
                    acc += src[y * cols + x] * *w;
                }
            dst[i * cols + j] = acc;
        }
}

/* Runs one kernel shape; exact != 0 requires bit-identical results. */
static int run_case(int rows, int cols, const float *src, int kr, int kc,
                    const float *kern, int exact, const char *what)
{
    float(*out)[cols] = malloc(sizeof(float[rows][cols]));
    float *ref = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    int bad = 0;
    double sum = 0.0;
    if (!out || !ref)
        exit(1);
    filter2d(rows, cols, (const float(*)[cols])src, kr, kc,
             (const float(*)[kc])kern, out);
    if (exact)
        for (int p = 0; p < rows * cols; p++)
            ref[p] = src[p];
    else
        reference_filter2d(rows, cols, src, kr, kc, kern, ref);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float want = ref[i * cols + j];
            int ok = exact ? out[i][j] == want : close_enough(out[i][j], want);
            if (!ok && bad++ < 5)
                printf("%s mismatch at (%d,%d): %.8g != %.8g\n", what, i, j,
                       out[i][j], want);
            sum += out[i][j];
        }
    printf("filter2d %s %dx%d kernel %dx%d sum %.4f\n", what, rows, cols, kr,
           kc, sum);
    free(out);
    free(ref);
    return bad;
}

int main(void)
{
    int rows = ROWS, cols = COLS, bad = 0;
    float *src = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    float k55[5 * 5], k37[3 * 7], id33[3 * 3] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    if (!src)
        return 1;
    unsigned int seed = 7u;
    for (int p = 0; p < rows * cols; p++) {
        seed = seed * 1103515245u + 12345u;
        src[p] = (float)((seed >> 16) % 256u);
    }
    /* Non-negative, non-symmetric weights (sum to 1). */
    for (int e = 0; e < 5; e++)
        for (int r = 0; r < 5; r++)
            k55[e * 5 + r] = (float)(1 + (3 * e + 5 * r) % 7) / 100.0f;
    for (int e = 0; e < 3; e++)
        for (int r = 0; r < 7; r++)
            k37[e * 7 + r] = (float)(e + 2 * r + 1) / 64.0f;

    bad += run_case(rows, cols, src, 5, 5, k55, 0, "5x5");
    bad += run_case(rows, cols, src, 3, 7, k37, 0, "3x7");
    bad += run_case(rows, cols, src, 3, 3, id33, 1, "identity");
    printf("%s\n", bad ? "FAILED" : "OK");
    free(src);
    return bad ? 1 : 0;
}
