/* SPDX-License-Identifier: MIT */
/*
 * Dilate (grey-level morphology): each output pixel is the maximum of the
 * input over the non-zero cells of a structuring element centred on it,
 * borders replicated.  This is the "dilate" kernel of the PENCIL image
 * processing benchmark; the test `if (se[e][r] != 0)` guarding the max is
 * the non static-affine conditional the thesis uses as its example, and the
 * structuring element is assumed smaller than 16 x 16 so that a GPU
 * compiler can keep it in shared memory.
 *
 * main() checks against an independent plain-C implementation (a list of
 * active offsets, explicit border tests) for a cross-shaped and a
 * diagonal structuring element, and, for a full rectangle, against the
 * separable row-max-then-column-max formulation.  All checks are exact.
 * Sizes: -DROWS=... -DCOLS=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 45
#endif
#ifndef COLS
#define COLS 61
#endif

/* ---------------------------------------------------------------- PENCIL */

void dilate(int rows, int cols, const unsigned char img[pencil_array rows][cols],
            int se_rows, int se_cols,
            const unsigned char se[pencil_array se_rows][se_cols],
            unsigned char dst[pencil_array rows][cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(se_rows > 0);
    __pencil_assume(se_cols > 0);
    __pencil_assume(se_rows < 16);
    __pencil_assume(se_cols < 16);
    __pencil_kill(dst);

    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            int sup = 0;
            for (int e = 0; e < se_rows; e++) {
                for (int r = 0; r < se_cols; r++) {
                    int cand_row = clamp(i + e - se_rows / 2, 0, rows - 1);
                    int cand_col = clamp(j + r - se_cols / 2, 0, cols - 1);
                    if (se[e][r] != 0)
                        sup = max(sup, img[cand_row][cand_col]);
                }
            }
            dst[i][j] = (unsigned char)sup;
        }
    }
}

/* ------------------------------------------------------------ plain C */

static int clamp_index(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void reference_dilate(int rows, int cols, const unsigned char *img,
                             int sr, int sc, const unsigned char *se,
                             unsigned char *dst)
{
    int *dy = malloc(sizeof(int) * (size_t)(sr * sc));
    int *dx = malloc(sizeof(int) * (size_t)(sr * sc));
    int n = 0;
    if (!dy || !dx)
        exit(1);
    for (int e = 0; e < sr; e++)
        for (int r = 0; r < sc; r++)
            if (se[e * sc + r]) {
                dy[n] = e - sr / 2;
                dx[n] = r - sc / 2;
                n++;
            }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            unsigned char m = 0;
            for (int k = 0; k < n; k++) {
                unsigned char v = img[clamp_index(i + dy[k], rows) * cols +
                                      clamp_index(j + dx[k], cols)];
                if (v > m)
                    m = v;
            }
            dst[i * cols + j] = m;
        }
    free(dy);
    free(dx);
}

/* Full sr x sc rectangle, computed as a row max followed by a column max. */
static void reference_dilate_rect(int rows, int cols, const unsigned char *img,
                                  int sr, int sc, unsigned char *dst)
{
    unsigned char *t = malloc((size_t)rows * (size_t)cols);
    if (!t)
        exit(1);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            unsigned char m = 0;
            for (int r = 0; r < sc; r++) {
                unsigned char v = img[i * cols + clamp_index(j + r - sc / 2, cols)];
                m = v > m ? v : m;
            }
            t[i * cols + j] = m;
        }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            unsigned char m = 0;
            for (int e = 0; e < sr; e++) {
                unsigned char v = t[clamp_index(i + e - sr / 2, rows) * cols + j];
                m = v > m ? v : m;
            }
            dst[i * cols + j] = m;
        }
    free(t);
}

static int run_case(int rows, int cols, const unsigned char *img, int sr,
                    int sc, const unsigned char *se, int rect, const char *what)
{
    unsigned char(*out)[cols] = malloc(sizeof(unsigned char[rows][cols]));
    unsigned char *ref = malloc((size_t)rows * (size_t)cols);
    unsigned long sum = 0;
    int bad = 0, grew = 0;
    if (!out || !ref)
        exit(1);
    dilate(rows, cols, (const unsigned char(*)[cols])img, sr, sc,
           (const unsigned char(*)[sc])se, out);
    if (rect)
        reference_dilate_rect(rows, cols, img, sr, sc, ref);
    else
        reference_dilate(rows, cols, img, sr, sc, se, ref);
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            if (out[i][j] != ref[i * cols + j] && bad++ < 5)
                printf("%s mismatch at (%d,%d): %d != %d\n", what, i, j,
                       out[i][j], ref[i * cols + j]);
            grew += out[i][j] > img[i * cols + j];
            sum = sum * 33u + out[i][j];
        }
    printf("dilate %s %dx%d se %dx%d grown %d checksum %lu\n", what, rows,
           cols, sr, sc, grew, sum);
    free(out);
    free(ref);
    return bad;
}

int main(void)
{
    int rows = ROWS, cols = COLS, bad = 0;
    unsigned char *img = malloc((size_t)rows * (size_t)cols);
    unsigned char cross[5 * 5], diag[3 * 7], rect[3 * 5];
    if (!img)
        return 1;
    /* Dark background with scattered bright specks. */
    unsigned int seed = 31337u;
    for (int p = 0; p < rows * cols; p++) {
        seed = seed * 1103515245u + 12345u;
        unsigned int v = (seed >> 16) & 255u;
        img[p] = (unsigned char)(v > 240u ? v : v / 8u);
    }
    for (int e = 0; e < 5; e++)
        for (int r = 0; r < 5; r++)
            cross[e * 5 + r] = (unsigned char)(e == 2 || r == 2);
    for (int e = 0; e < 3; e++)
        for (int r = 0; r < 7; r++)
            diag[e * 7 + r] = (unsigned char)(r == 2 * e || r == 6 - e);
    for (int k = 0; k < 3 * 5; k++)
        rect[k] = 1;

    bad += run_case(rows, cols, img, 5, 5, cross, 0, "cross");
    bad += run_case(rows, cols, img, 3, 7, diag, 0, "diagonal");
    bad += run_case(rows, cols, img, 3, 5, rect, 1, "rectangle");
    printf("%s\n", bad ? "FAILED" : "OK");
    free(img);
    return bad ? 1 : 0;
}
