# SPDX-License-Identifier: MIT
"""Pass `source-order`: a schedule without tiles, parallel loops or wavefronts gives way to the source order."""
from __future__ import annotations

from pathlib import Path

from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen import format_ast
from clangpass.regions import find_regions

POLYBENCH = Path(__file__).resolve().parents[2] / "kernels" / "polybench"


def _outcome(name: str, **options):
    source = POLYBENCH / f"{name}.c"
    module = parse_file(str(source)).module
    [region] = find_regions(module)
    return optimise_region(region, module, CompileOptions(opt_level=3, **options), DumpSink(stages=frozenset()))


def test_jacobi_1d_keeps_its_two_source_loops_and_vectorises_them() -> None:
    kept = _outcome("jacobi-1d")
    assert kept.status == "optimized" and kept.facts["source_order"] and kept.facts["vector_loops"] == 2
    # Its loops are independent but innermost, in the time loop: vector loops, not threads.
    assert kept.facts["parallel_loops"] == 0 and kept.thread_teams == 0
    lines = [line.strip() for line in format_ast(kept.unit).splitlines()]
    # The time loop around two loops, S_0's before S_1's, as written.
    assert lines.count("// vector") == 2 and lines.index("S_0(c0, c1);") < lines.index("S_1(c0, c1);")
    rescheduled = _outcome("jacobi-1d", disabled_passes=frozenset({"source-order"}))
    assert not rescheduled.facts["source_order"] and format_ast(rescheduled.unit) != format_ast(kept.unit)


def test_a_tiled_or_parallel_schedule_is_kept() -> None:
    for name in ("gemm", "trisolv", "nussinov"):
        outcome = _outcome(name)
        assert outcome.status == "optimized" and not outcome.facts["source_order"], name
        assert outcome.facts["tiled_bands"] or outcome.facts["parallel_loops"], name


def test_atax_and_bicg_keep_the_source_order_that_reads_a_once() -> None:
    # isl's schedule puts the two products over A in two parallel nests: A is read twice.
    # (`row-blocks` then runs the source order in blocks of rows: test_row_blocks.py.)
    alone = frozenset({"row-blocks"})
    for name in ("atax", "bicg"):
        kept = _outcome(name, disabled_passes=alone)
        assert kept.status == "optimized" and kept.facts["source_order"], name
        assert "streams A from memory more than once" in kept.facts["source_order_reason"], name
        assert kept.facts["parallel_loops"] == 0 and kept.facts["tiled_bands"] == 0 and kept.facts["tile_sizes"] == (), name
        rescheduled = _outcome(name, source_order="gain", disabled_passes=alone)
        assert not rescheduled.facts["source_order"] and rescheduled.facts["source_order_reason"] == "", name
        # The row product (one accumulation chain) is left untiled for reduction-jam, the
        # column product tiled.
        assert rescheduled.facts["parallel_loops"] == 2, name
        assert rescheduled.facts["tiled_bands"] + rescheduled.facts["streaming_bands"] == 2, name


def test_a_schedule_that_reads_each_matrix_as_often_as_the_source_is_kept() -> None:
    # gesummv: isl fuses the two products (A and B once each); mvt and gemver already read A in
    # separate source nests, so their schedules restream nothing.
    for name in ("gesummv", "mvt", "gemver"):
        outcome = _outcome(name)
        assert outcome.status == "optimized" and not outcome.facts["source_order"], name
        assert outcome.facts["parallel_loops"], name


def test_the_no_gain_case_says_why() -> None:
    kept = _outcome("jacobi-1d")
    assert kept.facts["source_order_reason"] == "the schedule has no tiled band, parallel loop or wavefront"
