# SPDX-License-Identifier: MIT
"""clangpass.poly.memory_streams: matrices a schedule reads from memory more often than the source."""
from __future__ import annotations

from pathlib import Path

import islpy as isl

from clangpass.poly.memory_streams import outer_iterations, restreamed_matrices
from test_suite.unit.poly.snippets import scop_of

ATAX = """
void f(int m, int n, double A[m][n], double x[n], double y[n], double t[m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
#pragma endscop
}
"""

TWO_NESTS = """
void f(int n, double A[n][n], double x[n], double y[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x[i] = x[i] + A[i][j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j];
#pragma endscop
}
"""

THREE_DEEP = """
void f(int n, double A[n][n], double B[n][n], double C[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] = C[i][j] + A[i][k] * B[k][j];
#pragma endscop
}
"""


def _split(scop) -> isl.Schedule:
    """atax's two products in two nests, as isl's scheduler orders them: S_2's nest, then S_3's."""
    ctx = scop.context.get_ctx()
    sched = isl.UnionMap("[m, n] -> { S_0[i] -> [0, i, 0]; S_1[i] -> [1, i, 0]; S_2[i, j] -> [1, i, j];"
                         " S_3[i, j] -> [2, j, i] }", context=ctx)
    return isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(sched.intersect_domain(scop.domain)))


def test_two_products_in_one_source_iteration_read_a_once(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, ATAX)
    assert restreamed_matrices(scop, scop.original_compute_schedule()) == []


def test_outer_iterations_of_the_source_order(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, ATAX)
    outer = outer_iterations(scop.original_compute_schedule())      # [m, n] -> { S[i..] -> [nest, t] }
    expected = isl.UnionMap("[m, n] -> { S_0[i] -> [0, i]; S_1[i] -> [1, i]; S_2[i, j] -> [1, i];"
                            " S_3[i, j] -> [1, i] }", context=outer.get_ctx())
    assert outer.is_equal(expected.intersect_domain(scop.domain))


def test_splitting_the_products_restreams_a(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, ATAX)
    # One band whose outer member sends S_2 and S_3 to different dates: A's rows meet in
    # different outer iterations. Vectors (x, y, t) never count.
    assert restreamed_matrices(scop, _split(scop)) == ["A"]


def test_a_matrix_the_source_already_reads_twice_is_not_restreamed(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, TWO_NESTS)
    ctx = scop.context.get_ctx()
    fused = isl.UnionMap("[n] -> { S_0[i, j] -> [i, j, 0]; S_1[i, j] -> [i, j, 1] }", context=ctx)
    fused_schedule = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(fused.intersect_domain(scop.domain)))
    assert restreamed_matrices(scop, fused_schedule) == []
    assert restreamed_matrices(scop, scop.original_compute_schedule()) == []


def test_three_deep_regions_are_not_judged(tmp_path: Path) -> None:
    scop = scop_of(tmp_path, THREE_DEEP)
    ctx = scop.context.get_ctx()
    interchanged = isl.UnionMap("[n] -> { S_0[i, j, k] -> [k, i, j] }", context=ctx)
    schedule = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.from_union_map(interchanged.intersect_domain(scop.domain)))
    assert restreamed_matrices(scop, schedule) == []
