# SPDX-License-Identifier: MIT
"""The pass contract (clangpass.passes.manager): pipelines checked before they run, analyses
dropped with the model they were computed from."""
from __future__ import annotations

from dataclasses import replace

import islpy as isl
import pytest

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import PipelineError, build_pipeline, run_pipeline
from clangpass.passes.registry import PASSES, Pass, PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.targets import TARGET_MODULES, get_target

from test_suite.unit.poly.snippets import region_of

THREE_ADDRESS = """\
void f(int n, double A[static const restrict n], double B[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    double t = A[i] * 2.0;
    B[i] = t + 1.0;
  }
}
"""


def test_every_target_pipeline_is_consistent():
    for name in TARGET_MODULES:
        for level in range(4):
            names = list(get_target(name).pipeline(level))
            assert [cls.name for cls in build_pipeline(names).passes] == names


def test_a_missing_provider_is_an_error_of_the_pipeline():
    with pytest.raises(PipelineError, match="'relax-false-deps' requires \\['live-ranges'\\]"):
        build_pipeline(["extract", "dependences", "relax-false-deps"])
    # An analysis a later pass drops must be computed again before its next reader.
    with pytest.raises(PipelineError, match="'privatize-arrays' changes the model, which drops 'dependences'"):
        build_pipeline(["extract", "dependences", "live-ranges", "privatize-arrays", "relax-false-deps"])
    with pytest.raises(PipelineError, match="unknown pass 'tiling'"):
        build_pipeline(["extract", "tiling"])


def test_disabled_passes_leave_out_their_dependents():
    names = list(get_target("cpu").pipeline(3))
    kept = [cls.name for cls in build_pipeline(names, frozenset({"live-ranges"})).passes]
    assert "relax-false-deps" not in kept and "verify-schedule" not in kept and "schedule" in kept
    kept = [cls.name for cls in build_pipeline(names, frozenset({"dependences"})).passes]
    assert kept == ["extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "reuse-in-place",
                    "contract-arrays", "expand-scalars", "live-ranges", "codegen"]


def test_a_pass_that_changes_the_model_must_say_so_and_drop_the_analyses(tmp_path):
    region, module = region_of(tmp_path, THREE_ADDRESS)
    ctx = PassContext(CompileOptions(opt_level=3), isl.Context())
    unit = run_pipeline(PolyUnit(region, module), ["extract", "dependences", "live-ranges"], ctx, DumpSink(), {})
    assert unit.dependences is not None and unit.live_ranges is not None

    class Undeclared(Pass):
        name = "undeclared-model-change"

        def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
            return replace(unit, scop=unit.scop.with_model(reads=unit.scop.reads.union(unit.scop.must_writes)))

    class Stale(Undeclared):
        name = "stale-analyses"
        changes_model = True

    class Declared(Undeclared):
        name = "declared-model-change"
        changes_model = True

        def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
            return unit.with_model(super().run(unit, ctx).scop)

    try:
        for cls in (Undeclared, Stale, Declared):
            PASSES[cls.name] = cls
        with pytest.raises(PipelineError, match="without declaring"):
            run_pipeline(unit, [Undeclared.name], ctx, DumpSink(), {})
        with pytest.raises(PipelineError, match="kept \\['dependences', 'live_ranges'\\]"):
            run_pipeline(unit, [Stale.name], ctx, DumpSink(), {})
        changed = run_pipeline(unit, [Declared.name], ctx, DumpSink(), {})
        assert changed.dependences is None and changed.live_ranges is None
        assert "dependences" not in changed.provided
    finally:
        for cls in (Undeclared, Stale, Declared):
            del PASSES[cls.name]
