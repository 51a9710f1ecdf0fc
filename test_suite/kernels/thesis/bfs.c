/* SPDX-License-Identifier: MIT */
/*
 * Thesis section 4.4.1, "BFS Example": a parallel breadth-first search in
 * PENCIL.  The initialisation is ordinary code, the search itself is a
 * `#pragma pencil region`, and the frontier expansion loop is marked
 * `#pragma pencil independent` (the race on cost[] / updating_front[] is
 * benign: all conflicting writes store the same value).
 *
 * Transcribed as printed; `cost` is declared with no_of_edges elements but
 * indexed by node, as in the thesis (callers pass no_of_edges >= no_of_nodes).
 */
#include "pencil.h"

void parallel_version(int no_of_nodes,
                      int edge_start_no[pencil_array no_of_nodes],
                      int edge_count[pencil_array no_of_nodes],
                      int no_of_edges,
                      int dst_node_index[pencil_array no_of_edges],
                      int cost[pencil_array no_of_edges],
                      char front[pencil_array no_of_nodes],
                      char updating_front[pencil_array no_of_nodes],
                      char visited[pencil_array no_of_nodes],
                      int src_index, int quiet)
{
    unsigned int carry_on = 1;

    for (int i = 0; i < no_of_nodes; i++)
    {
        front[i] = 0;
        updating_front[i] = 0;
        visited[i] = 0;
        cost[i] = -1;
    }

    front[src_index] = 1;
    visited[src_index] = 1;
    cost[src_index] = 0;

#pragma pencil region
    {
        while (carry_on == 1)
        {
            carry_on = 0;

#pragma pencil independent
            for (int i = 0; i < no_of_nodes; i++) {
                if (front[i] == 1) {
                    front[i] = 0;
                    for (int j = edge_start_no[i];
                         j < (edge_start_no[i] + edge_count[i]); j++) {
                        int dst_node = dst_node_index[j];
                        if (visited[dst_node] == 0) {
                            cost[dst_node] = cost[i] + 1;
                            updating_front[dst_node] = 1;
                        }
                    }
                }
            }

            for (int i = 0; i < no_of_nodes; i++) {
                if (updating_front[i] == 1) {
                    front[i] = 1;
                    visited[i] = 1;
                    carry_on = 1;
                    updating_front[i] = 0;
                }
            }
        } /* while */
    } /* #pragma pencil region */
}
