# SPDX-License-Identifier: MIT
"""relax-false-deps and the relaxed permutability criterion (thesis ch. 2, section 2.4)."""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import run_pipeline
from clangpass.passes.registry import PASSES, PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen import format_ast
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.live_ranges import (interference_violations, live_ranges, local_live_ranges,
                                        privatization_violations, relax_false_dependences)
from clangpass.poly.scop import format_scop
from clangpass.poly.validity import PARALLEL_MARK

from test_suite.unit.poly.snippets import optimise, region_of, scop_of

# Three-address code: temporaries declared in the loop body (PENCIL style).
THREE_ADDRESS = """\
void gray(int rows, int cols, const float src[static const restrict rows][cols][3],
          float dst[static const restrict rows][cols]) {
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++) {
      float r = src[i][j][0];
      float g = src[i][j][1];
      dst[i][j] = 0.5f * r + 0.25f * g;
    }
}
"""

# A local whose last value is read after the loop: not privatisable in that loop.
LIVE_OUT = """\
void last(int n, double A[static const restrict n], double B[static const restrict 1]) {
  double t = 0;
  for (int i = 0; i < n; i++) {
    t = A[i];
    A[i] = 2 * t;
  }
  B[0] = t;
}
"""


def test_temporaries_no_longer_prevent_tiling_and_parallelism(tmp_path):
    relaxed = optimise(tmp_path, THREE_ADDRESS, opt_level=3)
    assert relaxed.status == "optimized" and relaxed.reason == ""
    assert relaxed.facts["parallel_loops"] == 1 and relaxed.facts["tiled_bands"] == 1
    strict = optimise(tmp_path, THREE_ADDRESS, opt_level=3, disabled_passes=frozenset({"relax-false-deps"}))
    assert strict.facts["parallel_loops"] == 0 and strict.facts["tiled_bands"] == 0


def test_split_of_the_dependences(tmp_path):
    scop = scop_of(tmp_path, THREE_ADDRESS)
    split = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    assert split.arrays == ("g", "r")
    # Live ranges stay inside one (i, j) iteration; what is enforced is the flow only.
    ctx = scop.context.get_ctx()
    same_iteration = isl.UnionMap.read_from_str(
        ctx, "[rows, cols] -> { S_0[i, j] -> S_2[i, j]; S_1[i, j] -> S_2[i, j] }")
    assert split.live_ranges.is_subset(same_iteration) and not split.live_ranges.is_empty()
    assert split.enforced.is_equal(compute_dependences(scop).flow)
    assert not split.relaxed.is_empty()


def test_interference_is_detected_when_live_ranges_are_interleaved(tmp_path):
    scop = scop_of(tmp_path, THREE_ADDRESS)
    split = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    ctx = scop.context.get_ctx()
    # Loop distribution: every write of r and g first, then every use: live ranges interleave.
    distributed = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.read_from_str(
            ctx, "[rows, cols] -> [{ S_0[i, j] -> [(0)]; S_1[i, j] -> [(0)]; S_2[i, j] -> [(1)] }, "
                 "{ S_0[i, j] -> [(i)]; S_1[i, j] -> [(i)]; S_2[i, j] -> [(i)] }, "
                 "{ S_0[i, j] -> [(j)]; S_1[i, j] -> [(j)]; S_2[i, j] -> [(j)] }]"))
    assert interference_violations(distributed, scop, split)
    assert interference_violations(scop.original_compute_schedule(), scop, split) == []


def test_a_local_live_after_a_parallel_loop_is_refused(tmp_path):
    scop = scop_of(tmp_path, LIVE_OUT)
    split = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    root = scop.original_compute_schedule().get_root()
    loop = root.child(0).child(1).child(0)          # sequence -> filter of the loop -> its band
    assert loop.get_type() == isl.schedule_node_type.band
    marked = loop.insert_mark(isl.Id(PARALLEL_MARK, context=scop.context.get_ctx())).get_schedule()
    assert privatization_violations(marked, split.live_ranges)
    outcome = optimise(tmp_path, LIVE_OUT, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["parallel_loops"] == 0


STAGED = """\
void staged(int n, double out[static const restrict n], double in[static const restrict n]) {
  double tmp[n];
  for (int i = 0; i < n; i++) tmp[i] = in[i] * 2.0;
  for (int i = 0; i < n; i++) out[i] = tmp[i] + tmp[n - 1 - i];
}
"""


def test_a_loop_whose_local_values_are_read_later_is_not_marked_parallel(tmp_path):
    # Without relaxation too: each thread would fill its own copy of tmp, lost after the loop.
    for disabled in (frozenset(), frozenset({"relax-false-deps"})):
        outcome = optimise(tmp_path, STAGED, opt_level=3, disabled_passes=disabled)
        assert outcome.status == "optimized" and outcome.facts["parallel_loops"] == 1, outcome
        ast = format_ast(outcome.unit)
        assert ast.count("// parallel") == 1 and ast.index("S_0(") < ast.index("// parallel") < ast.index("S_1(")
    scop = scop_of(tmp_path, STAGED)
    assert not local_live_ranges(scop).is_empty()


# One temporary carrying two values per iteration: S_0 writes t, S_1 reads it, S_2 writes it
# again, S_3 reads the second value.
TWO_VALUES = """\
void two(int n, double A[static const restrict n], double B[static const restrict n],
         double C[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    double t = A[i];
    B[i] = t;
    t = 2 * A[i];
    C[i] = t;
  }
}
"""


def _schedule(scop, tree: str) -> isl.Schedule:
    """The schedule tree `tree` (isl syntax, below the domain node) over `scop`'s statements."""
    return isl.Schedule.read_from_str(scop.context.get_ctx(), f'{{ domain: "{scop.domain}", child: {tree} }}')


ONE_DATE = '{ schedule: "[n] -> [{ S_0[i] -> [(i)]; S_1[i] -> [(i)]; S_2[i] -> [(i)]; S_3[i] -> [(i)] }]" }'
SECOND_WRITE_FIRST = ('{ schedule: "[n] -> [{ S_0[i] -> [(i)]; S_1[i] -> [(i)]; S_2[i] -> [(i)]; S_3[i] -> [(i)] }]", '
                      'child: { sequence: [ { filter: "[n] -> { S_0[i] }" }, { filter: "[n] -> { S_2[i] }" }, '
                      '{ filter: "[n] -> { S_1[i] }" }, { filter: "[n] -> { S_3[i] }" } ] } }')


def test_equal_dates_count_as_interleaved(tmp_path):
    # With no sequence below the loop the four statements of an iteration share one date, so
    # the AST may run the second write of t between the first write and its read.
    scop = scop_of(tmp_path, TWO_VALUES)
    split = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    assert interference_violations(_schedule(scop, ONE_DATE), scop, split)
    assert interference_violations(scop.original_compute_schedule(), scop, split) == []


def test_a_superset_of_live_ranges_does_not_reject_the_source_order(tmp_path):
    # Memory-based live ranges (the fallback over budget) also pair the first write of t with
    # the second read; the second write sits between them in source order, which is no violation.
    scop = scop_of(tmp_path, TWO_VALUES)
    split = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    dates = scop.original_schedule.get_map()                                  # [n] -> { S[i] -> [t..] }
    memory_based = scop.must_writes.apply_range(scop.reads.reverse()).intersect(dates.lex_lt_union_map(dates))
    assert split.live_ranges.is_strict_subset(memory_based)
    wide = replace(split, live_ranges=memory_based)
    assert interference_violations(scop.original_compute_schedule(), scop, wide) == []
    # Moving the second write before the first read interrupts the first value's live range.
    assert interference_violations(_schedule(scop, SECOND_WRITE_FIRST), scop, wide)
    assert interference_violations(_schedule(scop, SECOND_WRITE_FIRST), scop, split)


def _verified(tmp_path, source: str, schedule_text: str):
    """verify-schedule run on `source`'s region with its schedule replaced by `schedule_text`."""
    region, module = region_of(tmp_path, source)
    ctx = PassContext(CompileOptions(opt_level=3), isl.Context())
    unit = run_pipeline(PolyUnit(region, module), ["extract", "dependences", "live-ranges", "relax-false-deps"], ctx,
                        DumpSink(), {})
    bad = isl.Schedule.read_from_str(ctx.isl_ctx, schedule_text)
    return unit, PASSES["verify-schedule"]().run(replace(unit, scop=unit.scop.with_schedule(bad)), ctx)


def test_verify_schedule_rejects_interleaved_live_ranges(tmp_path):
    # Loop distribution of the three-address kernel: every r and g written before any is read.
    unit, verified = _verified(tmp_path, THREE_ADDRESS,
                               '{ domain: "[rows, cols] -> { S_0[i, j] : 0 <= i < rows and 0 <= j < cols; '
                               'S_1[i, j] : 0 <= i < rows and 0 <= j < cols; S_2[i, j] : 0 <= i < rows and '
                               '0 <= j < cols }", child: { sequence: [ { filter: "[rows, cols] -> { S_0[i, j]; '
                               'S_1[i, j] }", child: { schedule: "[rows, cols] -> [{ S_0[i, j] -> [(i)]; '
                               'S_1[i, j] -> [(i)] }, { S_0[i, j] -> [(j)]; S_1[i, j] -> [(j)] }]", child: { '
                               'sequence: [ { filter: "[rows, cols] -> { S_0[i, j] }" }, { filter: '
                               '"[rows, cols] -> { S_1[i, j] }" } ] } } }, { filter: "[rows, cols] -> { S_2[i, j] }", '
                               'child: { schedule: "[rows, cols] -> [{ S_2[i, j] -> [(i)] }, { S_2[i, j] -> [(j)] }]" '
                               '} } ] } }')
    assert verified.scop.schedule.plain_is_equal(unit.scop.original_compute_schedule())
    assert verified.notes[-1].startswith("invalid schedule replaced by the original one: live range interrupted")


def test_verify_schedule_rejects_a_broken_flow_dependence_and_keeps_a_legal_schedule(tmp_path):
    # tmp[] is local: its anti/output dependences may be relaxed, its flow dependences never.
    unit, verified = _verified(tmp_path, STAGED,
                               '{ domain: "[n] -> { S_0[i] : 0 <= i < n; S_1[i] : 0 <= i < n }", child: { '
                               'schedule: "[n] -> [{ S_0[i] -> [(i)]; S_1[i] -> [(i)] }]", child: { sequence: [ '
                               '{ filter: "[n] -> { S_0[i] }" }, { filter: "[n] -> { S_1[i] }" } ] } } }')
    assert verified.notes[-1].startswith("invalid schedule replaced by the original one: dependence broken: ")
    assert verified.scop.schedule.plain_is_equal(unit.scop.original_compute_schedule())
    # Interchanging the three-address kernel's loops keeps each live range inside its iteration.
    unit, verified = _verified(tmp_path, THREE_ADDRESS,
                               '{ domain: "[rows, cols] -> { S_0[i, j] : 0 <= i < rows and 0 <= j < cols; '
                               'S_1[i, j] : 0 <= i < rows and 0 <= j < cols; S_2[i, j] : 0 <= i < rows and '
                               '0 <= j < cols }", child: { schedule: "[rows, cols] -> [{ S_0[i, j] -> [(j)]; '
                               'S_1[i, j] -> [(j)]; S_2[i, j] -> [(j)] }, { S_0[i, j] -> [(i)]; S_1[i, j] -> [(i)]; '
                               'S_2[i, j] -> [(i)] }]", child: { sequence: [ { filter: "[rows, cols] -> { S_0[i, j] }" }, '
                               '{ filter: "[rows, cols] -> { S_1[i, j] }" }, { filter: "[rows, cols] -> { S_2[i, j] }" } '
                               '] } } }')
    assert verified.notes == unit.notes
    assert not verified.scop.schedule.plain_is_equal(unit.scop.original_compute_schedule())


# `__pencil_kill` makes data dead (thesis section 4.3.5): an array whose every written element is
# killed after its last write leaves no value to the caller.
KILLS = """\
#include <pencil.h>
void f(int n, double A[static const restrict n], double dead[static const restrict n],
       double partly[static const restrict n], double early[static const restrict n],
       double each[static const restrict n], double kept[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    dead[i] = A[i];
    partly[i] = A[i];
    early[i] = A[i];
    each[i] = A[i] + 1.0;
    A[i] = dead[i] + partly[i] + each[i];
    __pencil_kill(each);
  }
  __pencil_kill(dead);
  for (int i = 1; i < n; i++)
    __pencil_kill(partly[i]);
  __pencil_kill(early);
  early[0] = 1.0;
  kept[0] = 2.0;
}
"""


def test_arrays_killed_after_their_last_write_are_not_live_out(tmp_path):
    scop = scop_of(tmp_path, KILLS)
    flags = {a.name: (a.killed, a.live_out) for a in scop.arrays}
    assert flags == {"A": (False, True), "dead": (True, False), "partly": (True, True),
                     "early": (True, True), "each": (True, False), "kept": (False, True)}
    assert "    double dead[n];  // killed" in format_scop(scop).splitlines()


def test_interruptions_within_the_shared_prefix_of_the_live_ranges():
    # Live ranges W[i] -> R[i] of one scalar t, each within one value of the first date; a write
    # W2[i] of t interrupts them where it runs between W[i] and R[i] under the same first date,
    # never where it runs after R[i] or at another first date (only the writes of the live
    # range's own prefix are candidates: `_shared_prefix`).
    from clangpass.poly.live_ranges import _interruptions, _shared_prefix
    live = isl.UnionMap("[n] -> { W[i] -> R[i] : 0 <= i < n }")
    writes = isl.UnionMap("[n] -> { W[i] -> t[] : 0 <= i < n; W2[i] -> t[] : 0 <= i < n }")
    source = isl.UnionMap("[n] -> { W[i] -> [i, 0]; R[i] -> [i, 1]; W2[i] -> [i, 2] }")
    order = source.lex_lt_union_map(source)
    context = isl.Set("[n] -> { : n > 0 }")
    between = isl.UnionMap("[n] -> { W[i] -> [i, 0]; W2[i] -> [i, 1]; R[i] -> [i, 2] }")
    assert _shared_prefix(live, between) == 1
    assert _interruptions(live, writes, between, order, context)
    assert _interruptions(live, writes, source, order, context) == []
    # W2[i] at the next first date, after R[i + 1]: outside every live range; before it, inside
    # the live range of the next first date.
    shifted = isl.UnionMap("[n] -> { W[i] -> [i, 0]; R[i] -> [i, 2]; W2[i] -> [i + 1, 3] }")
    assert _interruptions(live, writes, shifted, order, context) == []
    inside = isl.UnionMap("[n] -> { W[i] -> [i, 0]; R[i] -> [i, 2]; W2[i] -> [i + 1, 1] }")
    assert _interruptions(live, writes, inside, order, context)
    # Live ranges across the first date: no shared prefix, every write a candidate.
    across = isl.UnionMap("[n] -> { W[i] -> [i, 0]; W2[i] -> [i + 1, 1]; R[i] -> [i + 2, 0] }")
    assert _shared_prefix(live, across) == 0
    assert _interruptions(live, writes, across, order, context)
