# SPDX-License-Identifier: MIT
"""Sequences of a computed schedule put back in source order where the dependences allow
(clangpass.poly.sequence_order)."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.poly.sequence_order import source_ordered_sequences
from clangpass.poly.codegen import format_ast
from test_suite.unit.poly.snippets import optimise, optimised_and_checked

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


def _set_under_band(order: list[str]) -> isl.Schedule:
    """{ A[i]; B[i]; C[i] } under one band [i], each its own child of a set node, in `order`."""
    schedule = _sequence_under_band(order)
    sequence = schedule.get_root().child(0).child(0)
    filters = isl.UnionSetList.alloc(schedule.get_ctx(), len(order))
    for k in range(sequence.n_children()):
        filters = filters.add(sequence.child(k).filter_get_filter())
    band = isl.Schedule.from_domain(schedule.get_domain()).get_root().child(0).insert_partial_schedule(
        schedule.get_root().child(0).band_get_partial_schedule())
    return band.child(0).insert_set(filters).get_schedule()


def _set_order(schedule: isl.Schedule) -> list[str]:
    node = schedule.get_root().child(0).child(0)
    assert node.get_type() == isl.schedule_node_type.set
    return [node.child(k).filter_get_filter().get_set_list().get_at(0).get_tuple_name()
            for k in range(node.n_children())]


def test_set_children_listed_in_source_order():
    # A set's children are independent: listed in source order whatever the dependences say
    # (a dependence between them at equal dates cannot exist in a valid schedule).
    built = _set_under_band(["C", "A", "B"])
    assert _set_order(built) == ["C", "A", "B"]
    ordered = source_ordered_sequences(built, isl.UnionMap.read_from_str(built.get_ctx(), "{ }"), RANK)
    assert _set_order(ordered) == ["A", "B", "C"]
    ast = isl.AstBuild.from_context(isl.Set.read_from_str(built.get_ctx(), "[n] -> { : }"))
    assert ast.node_from_schedule(ordered).to_C_str().split("\n")[1:4] == ["  A(c0);", "  B(c0);", "  C(c0);"]


def test_independent_reductions_in_source_order(tmp_path):
    # Three-address gesummv: the `tmp` and `y` chains are independent components of the inner
    # loop (isl lists them in a set, `y` first); they run as written, `tmp`'s first.
    from test_suite.e2e import harness
    source = (harness.KERNELS_DIR / "three_address" / "polybench_3ac" / "gesummv.c").read_text()
    outcome = optimised_and_checked(tmp_path, source)
    ast = format_ast(outcome.unit)
    inner = ast[ast.index("for (int c1"):]
    assert inner.index("S_2(") < inner.index("S_5("), ast
