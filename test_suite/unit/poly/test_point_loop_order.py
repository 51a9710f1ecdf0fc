# SPDX-License-Identifier: MIT
"""Strides of accesses along band members, `point-loop-order` and `mark-vector` on tiny inputs."""
from __future__ import annotations

import copy

import islpy as isl
import numpy as np

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import run_pipeline
from clangpass.passes.registry import PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen import format_ast
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.strides import Stride, StrideRows, access_strides, stride_table
from clangpass.poly.validity import VECTOR_MARK, dependence_violations, parallel_violations
from test_suite.unit.poly.interpreter import AstInterpreter, RegionInterpreter, initial_memory
from clangpass.passes.mark_vector import _grouped
from clangpass.poly.scop import statement_names
from test_suite.unit.poly.snippets import optimise, optimised_and_checked, region_of, scop_of
from test_suite.unit.poly.test_schedule import GEMM

# Row sweep: j carries the dependence, i is parallel but jumps a row per iteration.
ROW_RECURRENCE = """\
void f(int n, double A[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 1; j < n; j++)
      A[i][j] = A[i][j - 1] * 0.5 + A[i][j];
}
"""

# Transpose: whichever loop is innermost, one of the two accesses jumps.
TRANSPOSE = """\
void f(int n, double A[static const restrict n][n], double B[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      B[j][i] = A[i][j];
}
"""


def _tiled(tmp_path, source: str):
    region, module = region_of(tmp_path, source)
    ctx = PassContext(CompileOptions(opt_level=3, tile_size=32), isl.Context())
    return run_pipeline(PolyUnit(region, module), ["extract", "dependences", "schedule", "tile"], ctx,
                        DumpSink(), {})


def _innermost_band(schedule: isl.Schedule) -> isl.ScheduleNode:
    bands: list[isl.ScheduleNode] = []

    def collect(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            bands.append(node.copy())   # the callback's node is only borrowed
        return True

    schedule.get_root().foreach_descendant_top_down(collect)
    return bands[-1]


def test_strides_along_gemm_point_loops(tmp_path):
    unit = _tiled(tmp_path, GEMM)
    point = _innermost_band(unit.scop.schedule)                 # (i mod 32, j mod 32, k mod 32)
    assert point.band_n_member() == 3
    # One access map at a time: S_1's reads of A and B and its write of C.
    for array, along_i, along_j, along_k in (("A", Stride.OTHER, Stride.INVARIANT, Stride.UNIT),
                                             ("B", Stride.INVARIANT, Stride.UNIT, Stride.OTHER)):
        access = unit.scop.reads.extract_map(
            isl.Space.create_from_names(point.get_ctx(), in_=["i", "k", "j"], out=["a0", "a1"],
                                        params=["ni", "nj", "nk"]).set_tuple_name(isl.dim_type.in_, "S_1")
            .set_tuple_name(isl.dim_type.out, array))
        accesses = isl.UnionMap.from_map(access)
        assert [access_strides(point, m, accesses) for m in range(3)] == [[along_i], [along_j], [along_k]]


def test_stride_rows_are_the_table_entry_by_entry(tmp_path):
    unit = _tiled(tmp_path, GEMM)
    point = _innermost_band(unit.scop.schedule)
    accesses = unit.scop.reads.union(unit.scop.writes)
    table = stride_table(point, accesses)
    rows = StrideRows(point, accesses)
    assert len(rows) == len(table[0]) > 2
    # A question about a member stops at the first access that answers it.
    assert not rows.all_are(0, Stride.INVARIANT)
    assert sum(1 for m, _ in rows._known if m == 0) < len(rows)
    assert [rows.row(m) for m in range(3)] == table
    assert [access_strides(point, m, accesses) for m in range(3)] == table


def test_gemm_reduction_leaves_the_innermost_position(tmp_path):
    outcome = optimise(tmp_path, GEMM, opt_level=3, tile_size=32)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["reordered_bands"] == 1 and outcome.facts["vector_loops"] >= 1
    text = format_ast(outcome.unit)
    # S_1(i, k, j): in the full tiles (the first call), the loop right around the call is j's.
    lines = [line.strip() for line in text.splitlines()]
    first_call = next(n for n, line in enumerate(lines) if line.startswith("S_1("))
    enclosing = [line.split()[2] for line in lines[:first_call] if line.startswith("for (int")][-1]
    assert lines[first_call].rstrip(");").split(", ")[2].endswith(enclosing)
    assert "invalid schedule" not in outcome.reason


def test_no_permutation_when_no_member_is_better(tmp_path):
    for source in (TRANSPOSE, ROW_RECURRENCE):
        outcome = optimise(tmp_path, source, opt_level=3, tile_size=32)
        assert outcome.status == "optimized" and outcome.facts["reordered_bands"] == 0


def test_a_loop_that_carries_a_dependence_gets_no_vector_mark(tmp_path):
    outcome = optimise(tmp_path, ROW_RECURRENCE, opt_level=3, tile_size=0)
    assert outcome.status == "optimized" and outcome.facts["vector_loops"] == 0
    assert outcome.facts["parallel_loops"] == 1


def test_disabled_passes_leave_the_schedule_alone(tmp_path):
    outcome = optimise(tmp_path, GEMM, opt_level=3, tile_size=32,
                       disabled_passes=frozenset({"point-loop-order", "mark-vector"}))
    assert outcome.facts["reordered_bands"] == 0 and outcome.facts["vector_loops"] == 0
    assert "// vector" not in format_ast(outcome.unit)
    assert "point-loop-order" not in outcome.pass_seconds


def test_untiled_band_is_reordered_below_its_parallel_loop(tmp_path):
    outcome = optimise(tmp_path, GEMM, opt_level=3, tile_size=0)
    assert outcome.status == "optimized" and outcome.facts["tiled_bands"] == 0
    assert outcome.facts["reordered_bands"] == 1 and outcome.facts["vector_loops"] >= 1 and outcome.facts["parallel_loops"] == 1


def test_verification_rejects_a_vector_mark_on_a_carried_loop(tmp_path):
    scop = scop_of(tmp_path, ROW_RECURRENCE)
    deps = compute_dependences(scop).all
    ctx = scop.context.get_ctx()
    inner = scop.schedule.get_root().child(0).child(0)         # the j loop of the source order
    assert inner.get_type() == isl.schedule_node_type.band
    marked = inner.insert_mark(isl.Id(VECTOR_MARK, context=ctx)).get_schedule()
    assert dependence_violations(marked, deps) == []
    assert len(parallel_violations(marked, deps)) == 1
    outer = scop.schedule.get_root().child(0).insert_mark(isl.Id(VECTOR_MARK, context=ctx)).get_schedule()
    assert parallel_violations(outer, deps) == []


# jacobi-2d in three-address form (the thesis's): each update five temporaries and a copy.
JACOBI_3AC = """\
void f(int tsteps, int n, double A[static const restrict n][n], double B[static const restrict n][n]) {
  double t1, t2, t3, t4, t5, t6, t7, t8, t9, t10;
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        t1 = A[i][j] + A[i][j - 1];
        t2 = t1 + A[i][j + 1];
        t3 = t2 + A[i + 1][j];
        t4 = t3 + A[i - 1][j];
        t5 = 0.2 * t4;
        B[i][j] = t5;
      }
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++) {
        t6 = B[i][j] + B[i][j - 1];
        t7 = t6 + B[i][j + 1];
        t8 = t7 + B[i + 1][j];
        t9 = t8 + B[i - 1][j];
        t10 = 0.2 * t9;
        A[i][j] = t10;
      }
  }
}
"""


def test_a_skewed_three_address_stencil_splits_into_one_vector_loop_per_update(tmp_path):
    # The wavefront's innermost point loop runs both updates, shifted by one: split per
    # statement, the temporaries' live ranges would be cut (no split, no vector loop); split
    # per unit of statements sharing temporaries, each update is a vector loop.
    region, module = region_of(tmp_path, JACOBI_3AC)
    outcome = optimise(tmp_path, JACOBI_3AC, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["wavefronts"] == 1 and outcome.facts["vector_loops"] == 2
    for n in (3, 6, 11):
        memory = initial_memory(region, n)
        expected, actual = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(expected).run(region.body)
        AstInterpreter(outcome.unit, actual).run()
        assert np.array_equal(expected["A"], actual["A"]) and np.array_equal(expected["B"], actual["B"]), n


def test_recurrences_split_off_together_stay_in_one_loop(tmp_path):
    # PRE adi: isl puts `v[n-1][i] = 1.0` (S_31) in the band of the forward sweep at date (n, i),
    # so the j loop carries a dependence and mark-vector distributes it: S_31 gets its vector
    # loop, but the `p` and `q` recurrences (S_22, S_23), neither a vector loop, keep one loop
    # (split, their chains of divisions ran one after the other: 0.75 of the original's speed).
    from test_suite.e2e import harness
    source = (harness.KERNELS_DIR / "three_address" / "polybench_pre" / "adi.c").read_text()
    outcome = optimised_and_checked(tmp_path, source, sizes=(5,))
    lines = [line.strip() for line in format_ast(outcome.unit).splitlines()]
    sweep = next(k for k, line in enumerate(lines) if line.startswith("S_22("))
    assert lines[sweep - 1].startswith("for (int c2") and lines[sweep + 1].startswith("S_23("), lines
    assert all(lines[k + 1].startswith("for (") for k, line in enumerate(lines) if line == "// vector"), lines


def test_grouped_joins_runs_of_pieces_without_a_vector_loop():
    ctx = isl.Context()
    pieces = [isl.UnionSet.read_from_str(ctx, f"{{ S_{k}[i] }}") for k in range(5)]
    grouped = _grouped(pieces, [False, False, True, False, False])
    assert [sorted(statement_names(g)) for g in grouped] == [["S_0", "S_1"], ["S_2"], ["S_3", "S_4"]]
    assert len(_grouped(pieces, [True] * 5)) == 5
