/* SPDX-License-Identifier: MIT */
/*
 * Runs the kernels of libkernels on deterministic data and prints every result
 * with "%.17g", in sections headed "== NAME", so that two builds of the program
 * can be compared line by line.
 */
#include <stdio.h>

#include "sample/grid.h"
#include "sample/matmul.h"
#include "sample/stencil.h"

#define NI 24
#define NJ 20
#define NK 28
#define N 32
#define TSTEPS 6

static void print_grid(const char *name, const struct grid *g)
{
  const double *cell = g->cells;

  printf("== %s\n", name);
  for (int k = 0; k < g->rows * g->cols; k++)
    printf("%.17g\n", cell[k]);
}

int main(void)
{
  struct grid *a = grid_new(NI, NK);
  struct grid *b = grid_new(NK, NJ);
  struct grid *c = grid_new(NI, NJ);
  struct grid *heat = grid_new(N, N);
  struct grid *scratch = grid_new(N, N);
  int status = 1;

  if (!a || !b || !c || !heat || !scratch)
    goto out;

  grid_fill(a, GRID_RAMP, 1);
  grid_fill(b, GRID_RAMP, 2);
  grid_fill(c, GRID_CHECKER, 0);
  sample_matmul(NI, NJ, NK, 0.25, (double (*)[NJ])c->cells,
                (double (*)[NK])a->cells, (double (*)[NJ])b->cells);
  print_grid("matmul", c);

  grid_fill(heat, GRID_RAMP, 3);
  grid_fill(scratch, GRID_ZERO, 0);
  sample_heat2d(TSTEPS, N, (double (*)[N])heat->cells, (double (*)[N])scratch->cells);
  print_grid("heat2d", heat);

  printf("== sums\n");
  printf("%s %.17g\n", grid_pattern_name(GRID_RAMP), grid_sum(a));
  printf("%s %.17g\n", "matmul", grid_sum(c));
  printf("%s %.17g\n", "heat2d", grid_sum(heat));
  status = 0;
out:
  grid_free(a);
  grid_free(b);
  grid_free(c);
  grid_free(heat);
  grid_free(scratch);
  return status;
}
