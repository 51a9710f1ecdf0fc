/* SPDX-License-Identifier: MIT */
/*
 * Colour conversion (RGB -> gray), the pixel-wise kernel of the image
 * processing benchmark of the PENCIL evaluation.
 *
 * Two PENCIL kernels:
 *   rgb_to_gray_u8  - 8-bit result in 14-bit fixed point (exact, integer);
 *   rgb_to_gray_f32 - float result with the BT.601 luma weights.
 * Both are static-affine; __pencil_kill tells the compiler that the previous
 * contents of the output are dead (no copy-in needed).
 *
 * main() builds a deterministic image, runs the kernels and an independent
 * plain-C reference, compares, prints checksums and returns 0 on success.
 * Sizes: -DROWS=... -DCOLS=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 48
#endif
#ifndef COLS
#define COLS 64
#endif

/* Fixed-point luma weights: round(w * 2^14) for w = 0.299, 0.587, 0.114. */
#define GRAY_SHIFT 14
#define GRAY_WR 4899
#define GRAY_WG 9617
#define GRAY_WB 1868

/* ---------------------------------------------------------------- PENCIL */

void rgb_to_gray_u8(int rows, int cols,
                    const unsigned char src[pencil_array rows][cols][3],
                    unsigned char dst[pencil_array rows][cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_kill(dst);
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            int y = GRAY_WR * src[i][j][0] + GRAY_WG * src[i][j][1] +
                    GRAY_WB * src[i][j][2];
            dst[i][j] = (unsigned char)min((y + (1 << (GRAY_SHIFT - 1))) >>
                                               GRAY_SHIFT,
                                           255);
        }
    }
}

void rgb_to_gray_f32(int rows, int cols,
                     const unsigned char src[pencil_array rows][cols][3],
                     float dst[pencil_array rows][cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_kill(dst);
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            float r = src[i][j][0];
            float g = src[i][j][1];
            float b = src[i][j][2];
            dst[i][j] = 0.299f * r + 0.587f * g + 0.114f * b;
        }
    }
}

/* ------------------------------------------------------------ plain C */

static int close_enough(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-5 * (scale > 1.0 ? scale : 1.0);
}

static void reference_gray(int n, const unsigned char *rgb,
                           unsigned char *gray8, float *grayf)
{
    for (int p = 0; p < n; p++) {
        const unsigned char *px = rgb + 3 * p;
        long y = (long)GRAY_WR * px[0] + (long)GRAY_WG * px[1] +
                 (long)GRAY_WB * px[2];
        long g = (y + 8192) / 16384;
        gray8[p] = (unsigned char)(g > 255 ? 255 : g);
        grayf[p] = (float)(0.299 * px[0] + 0.587 * px[1] + 0.114 * px[2]);
    }
}

int main(void)
{
    int rows = ROWS, cols = COLS, n = ROWS * COLS, bad = 0;
    unsigned char(*rgb)[cols][3] = malloc(sizeof(unsigned char[rows][cols][3]));
    unsigned char(*gray8)[cols] = malloc(sizeof(unsigned char[rows][cols]));
    float(*grayf)[cols] = malloc(sizeof(float[rows][cols]));
    unsigned char *ref8 = malloc((size_t)n);
    float *reff = malloc(sizeof(float) * (size_t)n);
    if (!rgb || !gray8 || !grayf || !ref8 || !reff) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }

    /* Deterministic input: a gradient mixed with a small LCG. */
    unsigned int seed = 12345u;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            for (int c = 0; c < 3; c++) {
                seed = seed * 1103515245u + 12345u;
                rgb[i][j][c] = (unsigned char)((i * 7 + j * 3 + c * 85 +
                                                (int)((seed >> 16) & 63u)) &
                                               255);
            }
    rgb[0][0][0] = rgb[0][0][1] = rgb[0][0][2] = 255; /* saturation edge */

    const unsigned char(*in)[cols][3] = (const unsigned char(*)[cols][3])rgb;
    rgb_to_gray_u8(rows, cols, in, gray8);
    rgb_to_gray_f32(rows, cols, in, grayf);
    reference_gray(n, &rgb[0][0][0], ref8, reff);

    unsigned long sum8 = 0;
    double sumf = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int p = i * cols + j;
            if (gray8[i][j] != ref8[p]) {
                if (bad++ < 5)
                    printf("mismatch u8 at (%d,%d): %d != %d\n", i, j,
                           gray8[i][j], ref8[p]);
            }
            if (!close_enough(grayf[i][j], reff[p])) {
                if (bad++ < 5)
                    printf("mismatch f32 at (%d,%d): %.7g != %.7g\n", i, j,
                           grayf[i][j], reff[p]);
            }
            sum8 += gray8[i][j] * (unsigned long)(p % 251 + 1);
            sumf += grayf[i][j];
        }
    printf("color_convert %dx%d\n", rows, cols);
    printf("gray_u8 checksum %lu\n", sum8);
    printf("gray_f32 sum %.3f\n", sumf);
    printf("%s\n", bad ? "FAILED" : "OK");

    free(rgb);
    free(gray8);
    free(grayf);
    free(ref8);
    free(reff);
    return bad ? 1 : 0;
}
