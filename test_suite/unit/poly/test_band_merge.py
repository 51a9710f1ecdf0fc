# SPDX-License-Identifier: MIT
"""Nested bands joined under the relaxed criterion (clangpass.poly.band_merge)."""
from __future__ import annotations

import islpy as isl

from clangpass.poly.band_merge import joined_nested_bands, relaxed_storage
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.live_ranges import live_ranges, relax_false_dependences
from test_suite.unit.poly.snippets import scop_of

# Three-address matrix-vector product: `t1`, `t2` live within one (i, j) iteration.
MV_3AC = """\
void f(int n, int m, double A[n][m], double x[m], double y[n]) {
  double t1, t2;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      t1 = A[i][j] * x[j];
      t2 = y[i] + t1;
      y[i] = t2;
    }
#pragma endscop
}
"""

# `t` carries a value from one j iteration to the next (and from the last j of one row to the
# first of the next): interchanging i and j would hand each row another row's value.
CARRIED = """\
void f(int n, int m, double A[n][m], double B[n][m]) {
  double t;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      B[i][j] = t;
      t = A[i][j];
    }
#pragma endscop
}
"""

# Each value of `t` lives from one j iteration to the next within a row (a non-negative
# distance), but the anti and output dependences of `t` between rows go back along j: with j
# outside i, row i + 1 would overwrite `t` before row i reads it.
WITHIN_ROWS = """\
void f(int n, int m, double A[n][m], double B[n][m]) {
  double t;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      if (j > 0)
        B[i][j] = t;
      t = A[i][j];
    }
#pragma endscop
}
"""


def _nested_bands(scop) -> isl.Schedule:
    """`i` and `j` as two permutable bands of one member each, the statements in source order."""
    names = [s.name for s in scop.compute_statements]
    params = ", ".join(scop.context.get_space().get_var_names(isl.dim_type.param))

    def band(k: int) -> isl.MultiUnionPwAff:
        pieces = "; ".join(f"{n}[i, j] -> [({'ij'[k]})]" for n in names)
        return isl.MultiUnionPwAff.read_from_str(scop.context.get_ctx(), f"[{params}] -> [{{ {pieces} }}]")

    filters = isl.UnionSetList.alloc(scop.context.get_ctx(), len(names))
    for s in scop.compute_statements:
        filters = filters.add(isl.UnionSet.from_set(s.domain))
    node = isl.Schedule.from_domain(scop.domain).get_root().child(0).insert_sequence(filters)
    node = node.insert_partial_schedule(band(1)).band_set_permutable(1)
    node = node.insert_partial_schedule(band(0)).band_set_permutable(1)
    return node.get_schedule()


def _joined(tmp_path, source) -> isl.ScheduleNode:
    scop = scop_of(tmp_path, source)
    relaxed = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    assert relaxed.active
    return joined_nested_bands(_nested_bands(scop), relaxed.enforced, relaxed_storage(scop, relaxed)).get_root().child(0)


def test_bands_over_iteration_private_temporaries_are_joined(tmp_path):
    band = _joined(tmp_path, MV_3AC)
    assert band.get_type() == isl.schedule_node_type.band and band.band_n_member() == 2
    assert band.band_get_permutable()
    assert band.child(0).get_type() == isl.schedule_node_type.sequence


def test_bands_over_a_value_carried_across_iterations_stay_apart(tmp_path):
    band = _joined(tmp_path, CARRIED)
    assert band.band_n_member() == 1 and band.child(0).get_type() == isl.schedule_node_type.band


def test_false_dependences_of_a_value_living_across_iterations_keep_the_bands_apart(tmp_path):
    band = _joined(tmp_path, WITHIN_ROWS)
    assert band.band_n_member() == 1 and band.child(0).get_type() == isl.schedule_node_type.band
