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
    assert kept.status == "optimized" and kept.source_order and kept.vector_loops == 2
    lines = [line.strip() for line in format_ast(kept.unit).splitlines()]
    # The time loop around two loops, S_0's before S_1's, as written.
    assert lines.count("// vector") == 2 and lines.index("S_0(c0, c1);") < lines.index("S_1(c0, c1);")
    rescheduled = _outcome("jacobi-1d", disabled_passes=frozenset({"source-order"}))
    assert not rescheduled.source_order and format_ast(rescheduled.unit) != format_ast(kept.unit)


def test_a_tiled_or_parallel_schedule_is_kept() -> None:
    for name in ("gemm", "trisolv", "nussinov"):
        outcome = _outcome(name)
        assert outcome.status == "optimized" and not outcome.source_order, name
        assert outcome.tiled_bands or outcome.parallel_loops, name
