# SPDX-License-Identifier: MIT
"""The pass manager: the -O0..-O3 pipelines and `optimise_region`, the compile core's entry point.

Input: an `OptRegion`, its `Module`, the `CompileOptions`, the `DumpSink` and the
pipeline (a target's, clangpass.targets; the CPU target's are `PIPELINES`).
Output: a `RegionOutcome`: `optimized` with the `CodegenUnit` the back end
lowers, or `fallback` with the reason the region stays with the host compiler.

Each pipeline is a plain list of pass names (classes in this package, looked
up in `PASSES`). The manager checks each pass's `requires` against what earlier
passes `provide`, skips passes named by --disable-pass (and those that need
what a disabled pass would have provided), times every pass (-ftime-report),
emits the stage dumps (-fpencil-dump=scop|deps|schedule|ast) and
--dump-before/--dump-after=NAME, and names the pass in any exception it lets
through (a note; the exception itself is untouched).
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Optional, Sequence

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
# Importing the pass modules registers them.
from clangpass.passes import index_set_split, keep_streams, reduction_jam, register_tile, source_order  # noqa: F401
from clangpass.passes import (alias_check, cluster_stmts, codegen, demote_scalars, dependences, extract, mark_parallel,  # noqa: F401
                              mark_vector, point_loop_order, privatize_arrays, relax_false_deps, schedule, tile,
                              thread_team, verify_schedule, wavefront)
from clangpass.passes.registry import PASSES, PassContext
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.alias_check import unchecked_overlap
from clangpass.poly.annotations import pragma_uses
from clangpass.poly.codegen import format_ast
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.clustering import format_clustering
from clangpass.poly.dependences import Dependences, cached_dependences, dependences as scop_dependences, format_deps
from clangpass.poly.extract import NotModelled
from clangpass.poly.live_ranges import format_relaxed
from clangpass.poly.scop import format_schedule, format_scop
from clangpass.regions import OptRegion
from clangpass.report import RegionOutcome, fallback

# Ordering:
# - `dependences` before `schedule`: the scheduler's constraints are the dependences;
# - `relax-false-deps` between them: it splits the dependences the scheduler then reads;
# - `cluster-stmts` right before `schedule`: it reads every dependence and the source's basic
#   blocks, and `schedule` schedules its macro-statements (relaxed dependences mapped onto them);
# - `keep-streams` between `schedule` and `tile`: it splits the two-deep bands that tiling would
#   only slow down, so that `tile` skips them;
# - `tile` before `mark-parallel`: tiling keeps the coincident flags, so the parallel mark
#   lands on the outermost tile loop (coarse-grained parallelism) rather than on a point loop;
# - `wavefront` between them: it rewrites tile bands that `tile` produced and flags the
#   coincident tile loop that `mark-parallel` then marks;
# - `point-loop-order` after `mark-parallel`: it permutes only bands with no band below them,
#   never the threads' loop, and `mark-vector` then marks the innermost loop it chose;
# - `register-tile` between them: it needs the unit-stride loop innermost in the point band, and
#   it makes that loop a band of its own, which `mark-vector` then marks (partial tiles);
# - `verify-schedule` after every schedule transformation, so that it judges the final one;
# - `thread-team` after `verify-schedule`: it only groups the parallel loops that survived it
#   under one fork, which changes no execution order;
# - `codegen` last: it reads the final schedule.
# - `demote-scalars` right after `alias-check`, before every pass that reads dependences: it
#   replaces scalars by array elements in the model they compute;
# - `alias-check` right after `extract`, at every level: without it a region whose arrays may
#   overlap falls back (it reads only the model's accesses, which no later pass changes).
# -O0 and -O1 keep the source order: no scheduling, tiling or parallel marks. -O1 still
# computes dependences (they validate the model and appear in the `deps` dump).
PIPELINES: dict[int, list[str]] = {
    0: ["extract", "alias-check", "codegen"],
    1: ["extract", "alias-check", "dependences", "codegen"],
    2: ["extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "dependences", "relax-false-deps", "cluster-stmts", "schedule", "keep-streams", "tile",
        "wavefront", "mark-parallel", "source-order", "point-loop-order", "register-tile", "mark-vector", "reduction-jam", "verify-schedule",
        "thread-team", "codegen"],
    3: ["extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "dependences", "relax-false-deps", "cluster-stmts", "schedule", "keep-streams", "tile",
        "wavefront", "mark-parallel", "source-order", "point-loop-order", "register-tile", "mark-vector", "reduction-jam", "verify-schedule",
        "thread-team", "codegen"],
}

# The OpenCL target's (llvm_backend.opencl): a kernel maps the iterations of the outermost
# parallel loop to work-items, so no tiling (its tile loop would give one work-item per
# tile), and none of the CPU's thread and register passes; -O0/-O1 as the CPU's.
OPENCL_PIPELINES: dict[int, list[str]] = {
    0: PIPELINES[0],
    1: PIPELINES[1],
    2: ["extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "dependences", "relax-false-deps", "cluster-stmts", "schedule",
        "mark-parallel", "source-order", "verify-schedule", "codegen"],
    3: ["extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "dependences", "relax-false-deps", "cluster-stmts", "schedule",
        "mark-parallel", "source-order", "verify-schedule", "codegen"],
}

# The passes whose time makes up `RegionOutcome.scheduling_seconds`.
SCHEDULING_PASSES = frozenset({"demote-scalars", "index-set-split", "relax-false-deps", "cluster-stmts", "schedule", "keep-streams", "tile", "wavefront",
                               "mark-parallel", "source-order", "point-loop-order", "register-tile", "mark-vector", "reduction-jam", "verify-schedule"})


class PipelineError(Exception):
    """A pipeline is inconsistent (a pass requires what no earlier pass provides)."""


def pipeline_for(opt_level: int) -> list[str]:
    """The pipeline of `opt_level` (-Os/-Oz are 2; levels above 3 are 3)."""
    return PIPELINES[max(0, min(3, opt_level))]


def opencl_pipeline_for(opt_level: int) -> list[str]:
    """The OpenCL target's pipeline of `opt_level`."""
    return OPENCL_PIPELINES[max(0, min(3, opt_level))]


def optimise_region(region: OptRegion, module: N.Module, options: CompileOptions, dumps: DumpSink,
                    pipeline: Optional[Sequence[str]] = None) -> RegionOutcome:
    """Run `pipeline` (default: the one of `options.opt_level`) on `region`; never raises for
    unsupported input."""
    ctx = PassContext(options, isl.Context())
    seconds: dict[str, float] = {}
    names = list(pipeline) if pipeline is not None else pipeline_for(options.opt_level)
    try:
        unit = run_pipeline(PolyUnit(region, module), names, ctx, dumps, seconds)
    except NotModelled as exc:
        return _with_timings(fallback(region, exc.reason), seconds)
    except BudgetExceeded as exc:
        return _with_timings(fallback(region, str(exc)), seconds)
    if unit.codegen is None:
        missing = [p for p in ("extract", "codegen") if p in options.disabled_passes]
        return _with_timings(fallback(region, f"pass '{missing[0] if missing else 'codegen'}' is disabled"),
                             seconds)
    unchecked = unchecked_overlap(region) if unit.alias_check is None else ""
    if unchecked:
        return _with_timings(fallback(region, unchecked), seconds)
    cg = replace(unit.codegen, alias_check=unit.alias_check)
    deps = cached_dependences(unit.scop)
    notes = ((deps.note,) if deps is not None and deps.note else ()) + unit.scop.notes
    return RegionOutcome(region, "optimized", reason="; ".join(notes), unit=cg,
                         statements=len(unit.scop.compute_statements), tiled_bands=cg.tiled_bands,
                         tile_sizes=cg.tile_sizes, parallel_loops=cg.parallel_loops, wavefronts=cg.wavefronts,
                         fusion=unit.scop.fusion, fusion_reason=unit.scop.fusion_reason,
                         streaming_bands=unit.scop.streaming_bands, source_order=unit.scop.source_order,
                         source_order_reason=unit.scop.source_order_reason,
                         reordered_bands=cg.reordered_bands, vector_loops=cg.vector_loops,
                         register_tiled_bands=register_tile.register_tiled_bands(unit.scop.schedule),
                         jammed_loops=unit.scop.jammed_loops, untiled_reason=unit.scop.untiled_reason,
                         split_statements=unit.scop.split_statements,
                         approximated_accesses=unit.scop.approximated_accesses,
                         privatized_arrays=unit.scop.private_arrays, demoted_scalars=unit.scop.demoted_scalars,
                         pragmas=pragma_uses(unit.scop, deps.declared if deps is not None else None),
                         scheduling_seconds=sum(s for p, s in seconds.items() if p in SCHEDULING_PASSES),
                         pass_seconds=seconds, **_clustering_fields(unit, deps))


def _clustering_fields(unit: PolyUnit, deps: Optional[Dependences]) -> dict:
    """The record's clustering fields: what the scheduler saw, with and without clustering."""
    statements = len(unit.scop.compute_statements) if "schedule" in unit.provided else 0
    before = 0 if deps is None else deps.flow.union(deps.anti).union(deps.output).n_map()
    clustering = unit.clustering
    if clustering is None:
        return dict(scheduled_statements=statements, dependences_before_clustering=before,
                    dependences_after_clustering=before)
    return dict(clustering=clustering.heuristic if clustering.clusters else "",
                scheduled_statements=clustering.scheduled_statements,
                dependences_before_clustering=clustering.dependences_before,
                dependences_after_clustering=clustering.dependences_after,
                clustering_problems=clustering.problems)


def run_pipeline(unit: PolyUnit, names: list[str], ctx: PassContext, dumps: DumpSink,
                 seconds: dict[str, float]) -> PolyUnit:
    """Run the passes `names` in order on `unit`, filling `seconds` with each pass's time."""
    options = ctx.options
    skipped: set[str] = set()        # facts a disabled pass would have provided
    previous = "start"
    for name in names:
        cls = PASSES.get(name)
        if cls is None:
            raise PipelineError(f"unknown pass '{name}'")
        if name in options.disabled_passes:
            skipped |= cls.provides
            continue
        missing = cls.requires - unit.provided
        if missing:
            if missing <= skipped:
                skipped |= cls.provides
                continue
            raise PipelineError(f"pass '{name}' requires {sorted(missing)}, which no earlier pass provides")
        if name in options.dump_before:
            _dump_unit(unit, dumps, previous)
        start = time.perf_counter()
        try:
            unit = cls().run(unit, ctx)
        except (NotModelled, BudgetExceeded):
            raise
        except Exception as exc:
            exc.add_note(f"in pencilcc pass '{name}' on region {unit.region.label}")
            raise
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start
        unit = replace(unit, provided=unit.provided | cls.provides)
        if dumps.wants(cls.dump_stage):
            dumps.emit(cls.dump_stage, unit.region.label, name, format_stage(unit, cls.dump_stage, options))
        if name in options.dump_after:
            _dump_unit(unit, dumps, name)
        previous = name
    return unit


def format_stage(unit: PolyUnit, stage: str, options: CompileOptions) -> str:
    """The canonical text of `unit` at dump stage `stage` ('scop', 'deps', 'schedule', 'ast')."""
    if stage == "ast":
        return format_ast(unit.codegen)
    if stage == "deps":
        text = format_deps(scop_dependences(unit.scop, options.isl_max_operations))
        text += "\n" + format_relaxed(unit.relaxed) if unit.relaxed is not None else ""
        return text + ("\n" + format_clustering(unit.clustering) if unit.clustering is not None else "")
    if stage == "schedule":
        return format_schedule(unit.scop.schedule)
    return format_scop(unit.scop)


def _dump_unit(unit: PolyUnit, dumps: DumpSink, after: str) -> None:
    """--dump-before/--dump-after: the whole unit in the form of its stage."""
    if unit.stage is Stage.REGION:
        return
    if unit.stage is Stage.AST:
        dumps.emit("ast", unit.region.label, after, format_ast(unit.codegen), force=True)
        return
    text = format_scop(unit.scop)
    cached = cached_dependences(unit.scop)
    if cached is not None:
        text += "\nDependences {\n" + format_deps(cached) + "\n}"
    dumps.emit("scop", unit.region.label, after, text, force=True)


def _with_timings(outcome: RegionOutcome, seconds: dict[str, float]) -> RegionOutcome:
    return replace(outcome, pass_seconds=seconds,
                   scheduling_seconds=sum(s for p, s in seconds.items() if p in SCHEDULING_PASSES))
