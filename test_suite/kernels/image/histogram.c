/* SPDX-License-Identifier: MIT */
/*
 * Basic image histogram (256 bins of an 8-bit image), the "basic histogram"
 * kernel of the PENCIL image processing benchmark, whose data-dependent
 * write `hist[img[i][j]]` keeps a polyhedral compiler from proving any loop
 * parallel: the thesis reports that the `independent` directive is what
 * makes it parallelisable.
 *
 * PENCIL kernels:
 *   histogram_basic - the sequential formulation;
 *   histogram_rows  - one partial histogram per row; the row loop is marked
 *                     `#pragma pencil independent` (each iteration only
 *                     writes its own row of `part`, which the compiler
 *                     cannot see through the non-affine subscript);
 *   histogram_merge - sums the partial histograms bin by bin;
 *   image_sum       - total intensity, a scalar reduction marked
 *                     `#pragma pencil independent reduction(+: total)`.
 *
 * main() checks all of them against a plain-C reference and exact
 * invariants (bins sum to the pixel count, sum of bin*count equals the
 * image sum).  Sizes: -DROWS=... -DCOLS=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 64
#endif
#ifndef COLS
#define COLS 80
#endif

#define HIST_BINS 256

/* ---------------------------------------------------------------- PENCIL */

void histogram_basic(int rows, int cols,
                     const unsigned char img[pencil_array rows][cols],
                     int hist[pencil_array HIST_BINS])
{
    for (int b = 0; b < HIST_BINS; b++)
        hist[b] = 0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            hist[img[i][j]] += 1;
}

void histogram_rows(int rows, int cols,
                    const unsigned char img[pencil_array rows][cols],
                    int part[pencil_array rows][HIST_BINS])
{
    __pencil_kill(part);
#pragma pencil independent
    for (int i = 0; i < rows; i++) {
        for (int b = 0; b < HIST_BINS; b++)
            part[i][b] = 0;
        for (int j = 0; j < cols; j++)
            part[i][img[i][j]] += 1;
    }
}

void histogram_merge(int rows, const int part[pencil_array rows][HIST_BINS],
                     int hist[pencil_array HIST_BINS])
{
    __pencil_kill(hist);
    for (int b = 0; b < HIST_BINS; b++) {
        int count = 0;
        for (int i = 0; i < rows; i++)
            count += part[i][b];
        hist[b] = count;
    }
}

long image_sum(int rows, int cols,
               const unsigned char img[pencil_array rows][cols])
{
    long total = 0;
#pragma pencil independent reduction(+: total)
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            total += img[i][j];
    return total;
}

/* ------------------------------------------------------------ plain C */

static void reference_histogram(int n, const unsigned char *pix, int *hist)
{
    for (int b = 0; b < HIST_BINS; b++)
        hist[b] = 0;
    for (const unsigned char *p = pix; p != pix + n; p++)
        hist[*p]++;
}

int main(void)
{
    int rows = ROWS, cols = COLS, n = ROWS * COLS, bad = 0;
    unsigned char(*img)[cols] = malloc(sizeof(unsigned char[rows][cols]));
    int(*part)[HIST_BINS] = malloc(sizeof(int[rows][HIST_BINS]));
    int hist_basic[HIST_BINS], hist_par[HIST_BINS], ref[HIST_BINS];
    if (!img || !part)
        return 1;

    /* Skewed distribution: a ramp plus a squared LCG term, some bins empty. */
    unsigned int seed = 4242u;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            seed = seed * 1664525u + 1013904223u;
            unsigned int r = (seed >> 24) & 15u;
            img[i][j] = (unsigned char)((i + j + r * r) % 200);
        }
    const unsigned char(*in)[cols] = (const unsigned char(*)[cols])img;

    histogram_basic(rows, cols, in, hist_basic);
    histogram_rows(rows, cols, in, part);
    histogram_merge(rows, (const int(*)[HIST_BINS])part, hist_par);
    long total = image_sum(rows, cols, in);
    reference_histogram(n, &img[0][0], ref);

    long count = 0, weighted = 0, ref_total = 0;
    int used = 0, peak = 0;
    for (int b = 0; b < HIST_BINS; b++) {
        if (hist_basic[b] != ref[b] || hist_par[b] != ref[b]) {
            if (bad++ < 5)
                printf("mismatch in bin %d: basic %d, parallel %d, "
                       "reference %d\n",
                       b, hist_basic[b], hist_par[b], ref[b]);
        }
        count += hist_par[b];
        weighted += (long)b * hist_par[b];
        used += hist_par[b] != 0;
        if (hist_par[b] > hist_par[peak])
            peak = b;
    }
    for (int p = 0; p < n; p++)
        ref_total += (&img[0][0])[p];
    if (count != n) {
        printf("bins sum to %ld, expected %d\n", count, n);
        bad++;
    }
    if (total != ref_total || weighted != ref_total) {
        printf("image_sum %ld, weighted bins %ld, reference %ld\n", total,
               weighted, ref_total);
        bad++;
    }
    printf("histogram %dx%d: %d bins used, peak bin %d (%d pixels)\n", rows,
           cols, used, peak, hist_par[peak]);
    printf("image sum %ld\n", total);
    printf("%s\n", bad ? "FAILED" : "OK");
    free(img);
    free(part);
    return bad ? 1 : 0;
}
