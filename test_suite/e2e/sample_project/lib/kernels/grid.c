/* SPDX-License-Identifier: MIT */
/*
 * Ordinary C in the same library as the kernels: heap memory, pointer
 * arithmetic, a switch, recursion.  Nothing here is PENCIL; pencilcc hands it
 * to the host compiler.
 */
#include <stdlib.h>

#include "sample/grid.h"

struct grid *grid_new(int rows, int cols)
{
  struct grid *g = malloc(sizeof *g);

  if (!g)
    return NULL;
  g->rows = rows;
  g->cols = cols;
  g->cells = calloc((size_t)rows * (size_t)cols, sizeof *g->cells);
  if (!g->cells) {
    free(g);
    return NULL;
  }
  return g;
}

void grid_free(struct grid *g)
{
  if (g)
    free(g->cells);
  free(g);
}

void grid_fill(struct grid *g, enum grid_pattern pattern, int seed)
{
  double *cell = g->cells;

  for (int i = 0; i < g->rows; i++)
    for (int j = 0; j < g->cols; j++, cell++) {
      switch (pattern) {
      case GRID_ZERO:
        *cell = 0.0;
        break;
      case GRID_RAMP:
        *cell = (double)((i * 3 + j * 5 + seed) % 17) - 8.0;
        break;
      case GRID_CHECKER:
        *cell = ((i + j + seed) % 2) ? 1.0 : -1.0;
        break;
      case GRID_HOTSPOT:
        *cell = (i == g->rows / 2 && j == g->cols / 2) ? 64.0 * seed : 0.0;
        break;
      default:
        *cell = -1.0;
        break;
      }
    }
}

static double pairwise_sum(const double *first, size_t count)
{
  size_t half;

  if (count == 0)
    return 0.0;
  if (count == 1)
    return *first;
  half = count / 2;
  return pairwise_sum(first, half) + pairwise_sum(first + half, count - half);
}

double grid_sum(const struct grid *g)
{
  return pairwise_sum(g->cells, (size_t)g->rows * (size_t)g->cols);
}

const char *grid_pattern_name(enum grid_pattern pattern)
{
  switch (pattern) {
  case GRID_ZERO:
    return "zero";
  case GRID_RAMP:
    return "ramp";
  case GRID_CHECKER:
    return "checker";
  case GRID_HOTSPOT:
    return "hotspot";
  }
  return "unknown";
}
