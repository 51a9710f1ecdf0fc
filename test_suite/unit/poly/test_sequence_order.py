# SPDX-License-Identifier: MIT
"""Sequences of a computed schedule put back in source order where the dependences allow
(clangpass.poly.sequence_order)."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.poly.sequence_order import source_ordered_sequences
from test_suite.unit.poly.snippets import optimise

RANK = {"A": 0, "B": 1, "C": 2}


def _sequence_under_band(order: list[str]) -> isl.Schedule:
    """{ A[i]; B[i]; C[i] } under one band [i], their sequence in `order`."""
    ctx = isl.Context()
    domain = isl.UnionSet.read_from_str(ctx, "[n] -> { A[i] : 0 <= i < n; B[i] : 0 <= i < n; C[i] : 0 <= i < n }")
    band = isl.MultiUnionPwAff.read_from_str(ctx, "[n] -> [{ A[i] -> [(i)]; B[i] -> [(i)]; C[i] -> [(i)] }]")
    filters = isl.UnionSetList.alloc(ctx, len(order))
    for name in order:
        filters = filters.add(isl.UnionSet.read_from_str(ctx, f"{{ {name}[i] }}"))
    node = isl.Schedule.from_domain(domain).get_root().child(0).insert_partial_schedule(band).child(0)
    return node.insert_sequence(filters).get_schedule()


def _order(schedule: isl.Schedule) -> list[str]:
    sequence = schedule.get_root().child(0).child(0)
    assert sequence.get_type() == isl.schedule_node_type.sequence
    return [sequence.child(k).filter_get_filter().get_set_list().get_at(0).get_tuple_name()
            for k in range(sequence.n_children())]


@pytest.mark.parametrize("deps, expected", [
    ("{ }", ["A", "B", "C"]),                                  # free: the source's order
    ("[n] -> { C[i] -> A[i] }", ["B", "C", "A"]),              # C feeds A in the same iteration
    ("[n] -> { C[i] -> A[i + 1] }", ["A", "B", "C"]),          # carried by the band: free again
    ("[n] -> { B[i] -> C[i]; C[i] -> B[i] }", ["C", "B", "A"]),  # a cycle: kept as built
])
def test_children_follow_the_source_unless_a_dependence_says_otherwise(deps, expected):
    built = _sequence_under_band(["C", "B", "A"])
    relation = isl.UnionMap.read_from_str(built.get_ctx(), deps)
    assert _order(source_ordered_sequences(built, relation, RANK)) == expected


def test_initialisation_before_three_address_code(tmp_path):
    # isl's scheduler puts C[i][j] *= beta after t1 and t2's statements at k == 0; back in
    # source order it runs before the k loop, and the three-address statements are one call.
    outcome = optimise(tmp_path, """\
        void f(int n, int m, double alpha, double beta, double C[static const restrict n][n],
               double A[static const restrict n][m]) {
          double t1, t2;
          for (int i = 0; i < n; i++) {
            for (int j = 0; j <= i; j++)
              C[i][j] *= beta;
            for (int k = 0; k < m; k++)
              for (int j = 0; j <= i; j++) {
                t1 = alpha * A[i][k];
                t2 = t1 * A[j][k];
                C[i][j] += t2;
              }
          }
        }
    """, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.unit.groups == {"S_1": ("S_1", "S_2", "S_3")}
