/* SPDX-License-Identifier: MIT */
/*
 * Gaussian smoothing, separable: a horizontal then a vertical 1D pass with
 * normalised Gaussian weights and replicated borders (the "gaussian
 * smoothing" kernel of the PENCIL image processing benchmark).
 *
 * PENCIL kernels:
 *   gaussian_weights - the normalised 1D weights (uses the expf builtin);
 *   gaussian_blur    - the two passes through the scratch image `tmp`,
 *                      which is killed before and after use so that a GPU
 *                      compiler never copies it between host and device.
 *
 * main() compares against an independent plain-C implementation: a direct
 * (non-separable) 2D convolution with the outer product of weights computed
 * in double precision (tolerance 1e-5 relative).
 * Sizes: -DROWS=... -DCOLS=... -DKSIZE=... (odd, <= 31) -DSIGMA=...
 */
#include "pencil.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef ROWS
#define ROWS 36
#endif
#ifndef COLS
#define COLS 50
#endif
#ifndef KSIZE
#define KSIZE 7
#endif
#ifndef SIGMA
#define SIGMA 1.4
#endif

/* ---------------------------------------------------------------- PENCIL */

void gaussian_weights(int ksize, float sigma, float w[pencil_array ksize])
{
    __pencil_assume(ksize > 0);
    __pencil_assume(ksize <= 31);
    float total = 0.0f;
    for (int k = 0; k < ksize; k++) {
        float d = (float)(k - ksize / 2);
        float v = expf(-(d * d) / (2.0f * sigma * sigma));
        w[k] = v;
        total += v;
    }
    for (int k = 0; k < ksize; k++)
        w[k] = w[k] / total;
}

void gaussian_blur(int rows, int cols, const float src[pencil_array rows][cols],
                   int ksize, const float w[pencil_array ksize],
                   float tmp[pencil_array rows][cols],
                   float dst[pencil_array rows][cols])
{
    __pencil_assume(rows > 0);
    __pencil_assume(cols > 0);
    __pencil_assume(ksize > 0);
    __pencil_assume(ksize <= 31);
    __pencil_assume(ksize % 2 == 1);
    __pencil_kill(tmp);
    __pencil_kill(dst);

    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            float acc = 0.0f;
            for (int k = 0; k < ksize; k++)
                acc += w[k] * src[i][clamp(j + k - ksize / 2, 0, cols - 1)];
            tmp[i][j] = acc;
        }
    }
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++) {
            float acc = 0.0f;
            for (int k = 0; k < ksize; k++)
                acc += w[k] * tmp[clamp(i + k - ksize / 2, 0, rows - 1)][j];
            dst[i][j] = acc;
        }
    }
    __pencil_kill(tmp);
}

/* ------------------------------------------------------------ plain C */

static int close_enough(double a, double b)
{
    double scale = fabs(a) > fabs(b) ? fabs(a) : fabs(b);
    return fabs(a - b) <= 1e-5 * (scale > 1.0 ? scale : 1.0);
}

static int clamp_index(int v, int n) { return v < 0 ? 0 : v >= n ? n - 1 : v; }

static void reference_gaussian(int rows, int cols, const float *src, int ksize,
                               double sigma, double *dst)
{
    double *g = malloc(sizeof(double) * (size_t)ksize);
    double total = 0.0;
    int h = ksize / 2;
    if (!g)
        exit(1);
    for (int k = 0; k < ksize; k++) {
        g[k] = exp(-(double)((k - h) * (k - h)) / (2.0 * sigma * sigma));
        total += g[k];
    }
    for (int k = 0; k < ksize; k++)
        g[k] /= total;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            double acc = 0.0;
            for (int a = -h; a <= h; a++)
                for (int b = -h; b <= h; b++)
                    acc += g[a + h] * g[b + h] *
                           src[clamp_index(i + a, rows) * cols +
                               clamp_index(j + b, cols)];
            dst[i * cols + j] = acc;
        }
    free(g);
}

int main(void)
{
    int rows = ROWS, cols = COLS, ksize = KSIZE, bad = 0;
    float sigma = (float)SIGMA;
    float *src = malloc(sizeof(float) * (size_t)rows * (size_t)cols);
    float(*tmp)[cols] = malloc(sizeof(float[rows][cols]));
    float(*out)[cols] = malloc(sizeof(float[rows][cols]));
    double *ref = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    float *w = malloc(sizeof(float) * (size_t)ksize);
    if (!src || !tmp || !out || !ref || !w)
        return 1;

    /* Deterministic input: smooth pattern plus LCG noise, in [0, 255]. */
    unsigned int seed = 99u;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            seed = seed * 1664525u + 1013904223u;
            src[i * cols + j] =
                (float)((i * 13 + j * 7) % 200 + (int)(seed >> 26));
        }

    gaussian_weights(ksize, sigma, w);
    double wsum = 0.0;
    for (int k = 0; k < ksize; k++) {
        wsum += w[k];
        if (k > 0 && k <= ksize / 2 && !(w[k] > w[k - 1])) {
            printf("weights not increasing towards the centre at %d\n", k);
            bad++;
        }
        if (!close_enough(w[k], w[ksize - 1 - k])) {
            printf("weights not symmetric at %d\n", k);
            bad++;
        }
    }
    if (!close_enough(wsum, 1.0)) {
        printf("weights sum to %.8g\n", wsum);
        bad++;
    }

    gaussian_blur(rows, cols, (const float(*)[cols])src, ksize, w, tmp, out);
    reference_gaussian(rows, cols, src, ksize, SIGMA, ref);

    double sum = 0.0;
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            if (!close_enough(out[i][j], ref[i * cols + j]) && bad++ < 5)
                printf("mismatch at (%d,%d): %.8g != %.8g\n", i, j, out[i][j],
                       ref[i * cols + j]);
            sum += out[i][j];
        }
    printf("gaussian %dx%d ksize %d sigma %.2f\n", rows, cols, ksize,
           (double)sigma);
    printf("weights centre %.6f edge %.6f\n", (double)w[ksize / 2],
           (double)w[0]);
    printf("blurred sum %.3f\n", sum);
    printf("%s\n", bad ? "FAILED" : "OK");
    free(src);
    free(tmp);
    free(out);
    free(ref);
    free(w);
    return bad ? 1 : 0;
}
