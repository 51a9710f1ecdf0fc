# SPDX-License-Identifier: MIT
"""Scheduling passes and the pass manager: schedule, tile, mark-parallel, verify-schedule, pipelines."""
from __future__ import annotations

import io
import re

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region, run_pipeline
from clangpass.passes.registry import PASSES, PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen import format_ast
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.live_ranges import live_ranges
from clangpass.poly.validity import PARALLEL_MARK, dependence_violations, parallel_violations
from clangpass.targets import get_target

from test_suite.unit.poly.snippets import optimise, region_of, scop_of

GEMM = """\
void gemm(int ni, int nj, int nk, double alpha, double beta,
          double C[static const restrict ni][nj], double A[static const restrict ni][nk],
          double B[static const restrict nk][nj]) {
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
}
"""

CARRIED = """\
void f(int n, double A[static const restrict n]) {
  for (int i = 1; i < n; i++)
    A[i] = A[i - 1] + 1.0;
}
"""


def _parallel_marks_above_for(ast_text: str) -> bool:
    lines = [line.strip() for line in ast_text.splitlines()]
    return all(lines[k + 1].startswith("for ") for k, line in enumerate(lines) if line == "// parallel")


def test_gemm_is_tiled_and_parallel_at_O3(tmp_path):
    outcome = optimise(tmp_path, GEMM, opt_level=3, tile_size=32)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["tiled_bands"] >= 1 and set(outcome.facts["tile_sizes"]) == {32}
    assert outcome.facts["parallel_loops"] >= 1
    text = format_ast(outcome.unit)
    assert "// tile" in text and "// point" in text and "// parallel" in text
    assert _parallel_marks_above_for(text)
    assert outcome.unit.parallel_loops == text.count("// parallel")
    # the compute statements, and the copies of pack-panels' buffers (B and alpha * A)
    assert {s for s in outcome.unit.statements if not s.startswith("P_")} == {"S_0", "S_1"}
    assert {s for s in outcome.unit.statements if s.startswith("P_")} == {"P___pencil_pack0_A", "P___pencil_pack1_B"}
    assert outcome.unit.statements["S_1"].iterators[:3] == ("i", "k", "j")  # then the buffer indices
    assert list(outcome.pass_seconds) == list(get_target("cpu").pipeline(3))


def test_gemm_keeps_the_source_order_at_O1(tmp_path):
    outcome = optimise(tmp_path, GEMM, opt_level=1)
    assert outcome.status == "optimized"
    assert (outcome.facts["tiled_bands"], outcome.facts["parallel_loops"], outcome.facts["tile_sizes"]) == (0, 0, ())
    assert format_ast(outcome.unit).splitlines() == [
        "for (int c0 = 0; c0 < ni; c0 += 1) {",
        "  for (int c1 = 0; c1 < nj; c1 += 1)",
        "    S_0(c0, c1);",
        "  for (int c1 = 0; c1 < nk; c1 += 1)",
        "    for (int c2 = 0; c2 < nj; c2 += 1)",
        "      S_1(c0, c1, c2);",
        "}",
    ]


def test_knobs_and_disabled_passes(tmp_path):
    untiled = optimise(tmp_path, GEMM, opt_level=3, tile_size=0)
    assert untiled.facts["tiled_bands"] == 0 and untiled.facts["parallel_loops"] >= 1
    serial = optimise(tmp_path, GEMM, opt_level=3, parallel=False)
    assert serial.facts["parallel_loops"] == 0 and serial.facts["tiled_bands"] >= 1
    no_tile = optimise(tmp_path, GEMM, opt_level=3, disabled_passes=frozenset({"tile"}))
    assert no_tile.facts["tiled_bands"] == 0 and "tile" not in no_tile.pass_seconds
    # Without the scheduler, tile and mark-parallel (which need its band flags) are skipped too.
    no_schedule = optimise(tmp_path, GEMM, opt_level=3, disabled_passes=frozenset({"schedule"}))
    assert no_schedule.status == "optimized"
    assert set(no_schedule.pass_seconds) == {"extract", "alias-check", "demote-scalars", "index-set-split",
                                             "privatize-arrays", "reuse-in-place", "contract-arrays", "expand-scalars",
                                             "dependences", "live-ranges", "relax-false-deps", "cluster-stmts", "load-schedule",
                                             "verify-schedule", "codegen"}
    no_codegen = optimise(tmp_path, GEMM, opt_level=3, disabled_passes=frozenset({"codegen"}))
    assert no_codegen.status == "fallback" and no_codegen.reason == "pass 'codegen' is disabled"


def test_carried_dependence_is_not_parallel(tmp_path):
    outcome = optimise(tmp_path, CARRIED, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["parallel_loops"] == 0


def test_validity_check_rejects_an_invalid_schedule(tmp_path):
    scop = scop_of(tmp_path, CARRIED)
    deps = compute_dependences(scop).all
    ctx = scop.context.get_ctx()
    reversed_loop = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(
        isl.MultiUnionPwAff.read_from_str(ctx, "[n] -> [{ S_0[i] -> [(-i)] }]"))
    assert dependence_violations(scop.schedule, deps) == []
    assert dependence_violations(reversed_loop, deps) == [
        "[n] -> { S_0[i] -> S_0[i' = 1 + i] : 0 < i <= -2 + n }"]
    marked = scop.schedule.get_root().child(0).insert_mark(isl.Id(PARALLEL_MARK, context=ctx)).get_schedule()
    assert dependence_violations(marked, deps) == []
    assert len(parallel_violations(marked, deps)) == 1

    # The verify-schedule pass puts the source order back, and says why.
    region, module = region_of(tmp_path, CARRIED)
    pass_ctx = PassContext(CompileOptions(opt_level=3), ctx)
    for bad in (reversed_loop, marked):
        unit = PolyUnit(region, module, scop=scop.with_schedule(bad), dependences=compute_dependences(scop),
                        live_ranges=live_ranges(scop))
        fixed = PASSES["verify-schedule"]().run(unit, pass_ctx)
        assert fixed.scop.schedule.plain_is_equal(scop.original_compute_schedule())
        assert fixed.notes and fixed.notes[0].startswith("invalid schedule replaced by the original one")


def test_scheduler_budget_keeps_the_original_schedule(tmp_path):
    region, module = region_of(tmp_path, GEMM)
    ctx = PassContext(CompileOptions(opt_level=3), isl.Context())
    unit = run_pipeline(PolyUnit(region, module), ["extract", "dependences"], ctx, DumpSink(), {})
    starved = PassContext(CompileOptions(opt_level=3, isl_max_operations=1), ctx.isl_ctx)
    scheduled = PASSES["schedule"]().run(unit, starved)
    assert scheduled.scop.schedule.plain_is_equal(unit.scop.schedule)
    assert scheduled.notes == ("scheduling exceeded 1 isl operations: original schedule kept",)
    assert ctx.isl_ctx.get_max_operations() == 0


def test_dumps_are_headed_and_in_pipeline_order(tmp_path):
    region, module = region_of(tmp_path, GEMM)
    stream = io.StringIO()
    sink = DumpSink(stages=frozenset({"scop", "deps", "schedule", "ast"}), stream=stream)
    options = CompileOptions(opt_level=3, dump_after=frozenset({"tile"}))
    outcome = optimise_region(region, module, options, sink)
    assert outcome.status == "optimized"
    heads = re.findall(r"^;; pencilcc (\S+) 'gemm' after (\S+)$", stream.getvalue(), re.M)
    assert heads == [("scop", "extract"), ("scop", "alias-check"), ("scop", "demote-scalars"), ("scop", "index-set-split"),
                     ("scop", "privatize-arrays"), ("scop", "reuse-in-place"), ("scop", "contract-arrays"),
                     ("scop", "expand-scalars"), ("deps", "dependences"),
                     ("deps", "relax-false-deps"), ("deps", "cluster-stmts"), ("schedule", "load-schedule"),
                     ("schedule", "schedule"), ("schedule", "keep-streams"),
                     ("schedule", "tile"), ("scop", "tile"), ("schedule", "wavefront"), ("schedule", "mark-parallel"),
                     ("schedule", "source-order"), ("schedule", "row-blocks"), ("schedule", "point-loop-order"),
                     ("schedule", "register-tile"), ("schedule", "pack-panels"), ("schedule", "mark-vector"), ("schedule", "reduction-jam"),
                     ("schedule", "verify-schedule"), ("scop", "contract-scheduled"), ("schedule", "thread-team"),
                     ("ast", "codegen")]
    text = stream.getvalue()
    for heading in ("Context:", "Arrays {", "Statements {", "Domain :=", "Schedule :=", "MustWriteAccess :=",
                    "ReadAccess :=", "Flow :=", "Anti :=", "Output :="):
        assert heading in text
