# SPDX-License-Identifier: MIT
"""The AST of a schedule with wavefronts is generated once, by `codegen`, under the wavefront's
share of the isl budget (clangpass.passes.wavefront.ast_trial_budget); when it does not fit, the
passes after `wavefront` run again on the unit before the skew (`RunAgainAfter`), and the region
gets the code it has with pass `wavefront` disabled, with a note saying why."""
from __future__ import annotations

from pathlib import Path

from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.passes import wavefront
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen import format_ast
from clangpass.regions import find_regions

JACOBI_2D = Path(__file__).resolve().parents[2] / "kernels" / "polybench" / "jacobi-2d.c"


def _optimised(options: CompileOptions):
    result = parse_file(str(JACOBI_2D))
    assert result.ok, result.diagnostics
    region = next(r for r in find_regions(result.module) if r.function.name.startswith("kernel_"))
    outcome = optimise_region(region, result.module, options, DumpSink())
    assert outcome.status == "optimized", outcome.reason
    return outcome


def test_the_wavefront_ast_fits_its_budget():
    outcome = _optimised(CompileOptions(opt_level=3))
    assert outcome.unit.wavefronts == 1
    assert "no wavefront" not in outcome.reason


def test_over_its_budget_the_passes_run_again_without_the_wavefront(monkeypatch):
    monkeypatch.setattr(wavefront, "ast_trial_budget", lambda options: 1)
    outcome = _optimised(CompileOptions(opt_level=3))
    without = _optimised(CompileOptions(opt_level=3, disabled_passes=frozenset({"wavefront"})))
    assert outcome.unit.wavefronts == 0
    assert f"{wavefront.AST_STEP} exceeded 1 isl operations: no wavefront" in outcome.reason
    # The tiles stay: the same AST as without the pass.
    assert format_ast(outcome.unit) == format_ast(without.unit)
    assert "tile" in format_ast(outcome.unit)
