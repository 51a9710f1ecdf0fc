/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.3.4.i, independent directive, Example 1: the frontier
 * expansion of a breadth-first search.  Two nodes of the frontier may
 * update the same neighbour, but they write the same values, so the race
 * is benign and the loop is marked independent.
 *
 * The thesis prints only the loop; it is wrapped here in a function whose
 * parameters declare the arrays it uses (types chosen by us).
 */
#include "pencil.h"

void expand_frontier(int n_nodes, int n_edges,
                     int frontier[pencil_array n_nodes],
                     int edge_idx[pencil_array n_nodes],
                     int edge_cnt[pencil_array n_nodes],
                     int dst_node_index[pencil_array n_edges],
                     int visited[pencil_array n_nodes],
                     int cost[pencil_array n_nodes],
                     int next_frontier[pencil_array n_nodes])
{
    /* Examine nodes adjacent to current frontier */
#pragma pencil independent
    for (int i = 0; i < n_nodes; i++) {
        if (frontier[i] == 1) {
            frontier[i] = 0;
            /* For each adjacent edge j */
            for (int j = edge_idx[i];
                 j < edge_idx[i] + edge_cnt[i]; j++) {
                int dst_node = dst_node_index[j];
                if (visited[dst_node] == 0) {
                    cost[dst_node] = cost[i] + 1;
                    next_frontier[dst_node] = 1;
                }
            }
        }
    }
}
