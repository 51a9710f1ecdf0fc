/* SPDX-License-Identifier: MIT */
/*
 * floyd-warshall: all-pairs shortest path lengths on a dense weighted graph
 * of N nodes (int weights, 999 meaning "no edge").  The relaxation
 * min(paths[i][j], paths[i][k] + paths[k][j]) is written as a
 * data-dependent ternary.  int data, VLA extents.
 */
#include <stdio.h>
#include <stdlib.h>

#ifndef N
# define N 90
#endif

static void init_array(int n, int paths[n][n])
{
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      paths[i][j] = i * j % 7 + 1 + (i + 2 * j) % 17;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 3 == 0)
        paths[i][j] = 999;
    }
}

static void kernel_floyd_warshall(int n, int paths[n][n])
{
  int i, j, k;

#pragma scop
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        paths[i][j] = paths[i][j] < paths[i][k] + paths[k][j]
                          ? paths[i][j]
                          : paths[i][k] + paths[k][j];
#pragma endscop
}

int main(void)
{
  int n = N;
  int (*paths)[n] = malloc(sizeof(int[n][n]));
  int i, j;

  if (!paths)
    return 1;
  init_array(n, paths);
  kernel_floyd_warshall(n, paths);

  printf("== paths\n");
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      printf("%d\n", paths[i][j]);

  free(paths);
  return 0;
}
