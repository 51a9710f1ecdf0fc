/* SPDX-License-Identifier: MIT */
/* Ordinary C part of libkernels: heap-allocated grids and their statistics. */
#ifndef SAMPLE_GRID_H
#define SAMPLE_GRID_H

enum grid_pattern { GRID_ZERO, GRID_RAMP, GRID_CHECKER, GRID_HOTSPOT };

struct grid {
  int rows;
  int cols;
  double *cells;               /* rows * cols values, row-major */
};

struct grid *grid_new(int rows, int cols);
void grid_free(struct grid *g);
void grid_fill(struct grid *g, enum grid_pattern pattern, int seed);
double grid_sum(const struct grid *g);       /* pairwise (recursive) sum */
const char *grid_pattern_name(enum grid_pattern pattern);

#endif
