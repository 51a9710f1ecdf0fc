# SPDX-License-Identifier: MIT
"""The compile core: one parsed module through the polyhedral path and a target.

Input: a front-end `Module`, the `CompileOptions`, a `Target` (clangpass.targets)
and the `Output` wanted from it. Output: a `CompileResult`: one `RegionOutcome` per
region of the module (clangpass.regions, source order), the diagnostics those
outcomes give (-Wpencil warnings for fallbacks, every -Rpass=pencil and
-Rpass-missed=pencil remark) as values, and the target's `Artifact` holding exactly
the optimized regions' code (and, under -fpencil-emit-c, each one's code as C).

What it decides: each region's outcome, once. A region that cannot be outlined,
that the caller leaves out (`left_out`), that the polyhedral path does not model,
or on which a pass fails, falls back with the reason; when the target fails, every
region it was given falls back with the target's reason, and the artifact is that
of no region. Nobody relabels an outcome afterwards.

It prints nothing and touches no files: dumps go to the caller's `DumpSink` (none
by default), the target's own messages come back in the artifact, and the caller
(clangpass.driver; clangpass.compile_file and clangpass.compile through it) applies its diagnostic policy
(-Werror, -Wno-pencil, which remarks) and prints. It is the only place that
sequences the passes and the target.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Mapping, Optional, Protocol

from clangpass.diagnostics import Diagnostic, DiagnosticEngine
from clangpass.dumps import DumpSink
from clangpass.emit_c import optional_source
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.passes.manager import Pipeline, build_pipeline, optimise_region, pass_names
from clangpass.regions import OptRegion, find_regions
from clangpass.rejects import Reject
from clangpass.report import RegionOutcome, fallback, report_outcomes
from clangpass.targets import Artifact, Output, Target


@dataclass(frozen=True)
class CompileResult:
    outcomes: tuple[RegionOutcome, ...]
    diagnostics: tuple[Diagnostic, ...]
    artifact: Artifact

    @property
    def optimized(self) -> tuple[RegionOutcome, ...]:
        return tuple(o for o in self.outcomes if o.status == "optimized")


class Progress(Protocol):
    """Told what the core starts next (the driver bounds each step's time in its analysis child)."""

    def region(self, index: int) -> None:
        """The polyhedral path starts on region `index` (its position among the module's regions)."""
        ...

    def back_end(self, units: int) -> None:
        """The target starts emitting the artifact of `units` optimized regions."""
        ...

    # Optional (read with getattr): `decided(outcomes)`, told every region's outcome before the
    # target emits the optimized ones; the driver starts the host's compile of the rewritten
    # file then, beside the back end (clangpass.driver.ahead).


class _Unobserved:
    def region(self, index: int) -> None:
        pass

    def back_end(self, units: int) -> None:
        pass


def compile_module(module: N.Module, options: CompileOptions, target: Target,
                   output: Output = Output.OBJECT, *, dumps: Optional[DumpSink] = None,
                   progress: Progress = _Unobserved(), left_out: Optional[Mapping[int, Reject]] = None,
                   reraise: bool = False) -> CompileResult:
    """Optimise every region of `module` with `target`'s pipeline and emit `output` for the
    optimized ones. `left_out` maps region indices to the reason they fall back without being
    analysed (a registered reject id and its text); `reraise`: a failure of a pass or of the target propagates instead of making the
    regions fall back (PENCILCC_DEBUG=1)."""
    dumps = dumps if dumps is not None else DumpSink()
    left_out = left_out or {}
    # Checked before any region: an inconsistent pipeline raises PipelineError here.
    pipeline = build_pipeline(pass_names(options, target), options.disabled_passes, traits=target.traits)
    outcomes: list[RegionOutcome] = []
    for index, region in enumerate(module_regions(module, options)):
        if region.problems:
            # One region, one id: the first problem's (each reason is in the text).
            outcomes.append(fallback(region, region.problems[0].id, "; ".join(p.reason for p in region.problems)))
        elif index in left_out:
            outcomes.append(fallback(region, left_out[index].id, left_out[index].reason))
        else:
            progress.region(index)
            outcomes.append(_optimise(region, module, options, dumps, pipeline, reraise))
    units = [o.unit for o in outcomes if o.status == "optimized"]
    decided = getattr(progress, "decided", None)
    if decided is not None:
        decided(outcomes)
    progress.back_end(len(units))
    artifact = Artifact(output)
    # Ordering: an empty LLVM module is still the -S -emit-llvm output of a file with no
    # optimized region; an object or assembly of no region is not needed.
    if units or output is Output.LLVM_IR:
        try:
            artifact = target.emit(units, options, output, module.file, dumps)
        except Exception as exc:  # a back-end bug must not stop a build: its regions fall back
            if reraise:
                raise
            why = (f"internal error in the back end ({type(exc).__name__}: {exc}); please report it "
                   "(PENCILCC_DEBUG=1 shows the traceback)")
            outcomes = [_fall_back(o, why) if o.status == "optimized" else o for o in outcomes]
            if output is Output.LLVM_IR:
                artifact = target.emit([], options, output, module.file, dumps)
    if options.emit_c:
        outcomes = [_with_c_source(o, options) if o.status == "optimized" else o for o in outcomes]
    mappings = dict(artifact.mappings)
    outcomes = [replace(o, target=target.name, mapping=mappings.get(o.region.symbol, {}))
                if o.status == "optimized" else o for o in outcomes]
    engine = DiagnosticEngine()
    report_outcomes(engine, outcomes, remarks=True, missed_remarks=True)
    return CompileResult(tuple(outcomes), tuple(engine.diagnostics), artifact)


def module_regions(module: N.Module, options: CompileOptions) -> list[OptRegion]:
    """The regions of `module`: the marked ones (clangpass.regions) and, under -fpencil-detect,
    the loop nests of its ordinary functions (clangpass.detect), in source order per function."""
    regions = find_regions(module, options.debug_prefix_map)
    if not options.detect:
        return regions
    from clangpass.detect import detect_regions

    order = {id(fn): k for k, fn in enumerate(module.functions)}
    return sorted(regions + detect_regions(module, options),
                  key=lambda r: (order.get(id(r.function), len(order)), r.extent.start_offset if r.extent else 0))


def _optimise(region: OptRegion, module: N.Module, options: CompileOptions, dumps: DumpSink,
              pipeline: Pipeline, reraise: bool) -> RegionOutcome:
    try:
        return optimise_region(region, module, options, dumps, pipeline)
    except Exception as exc:  # a bug in a pass must not stop a build: fall back, say why
        if reraise:
            raise
        return fallback(region, "pencil-internal-error",
                        f"internal error in the polyhedral path ({type(exc).__name__}: {exc}); please "
                        "report it (PENCILCC_DEBUG=1 shows the traceback)")


def _with_c_source(outcome: RegionOutcome, options: CompileOptions) -> RegionOutcome:
    """`outcome` with its code as C (-fpencil-emit-c), or why it has none."""
    region = outcome.region
    unused = (*region.iterators, *(d.name for d in region.privatized))
    source, why = optional_source(outcome.unit, options.parallel, unused)
    return replace(outcome, c_source=source, c_unprintable=why)


def _fall_back(outcome: RegionOutcome, why: str) -> RegionOutcome:
    """`outcome`'s region as a fallback for `why`, keeping the time its passes took."""
    return replace(fallback(outcome.region, "pencil-internal-error", why),
                   pass_seconds=outcome.pass_seconds, scheduling_seconds=outcome.scheduling_seconds)
