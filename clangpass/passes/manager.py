# SPDX-License-Identifier: MIT
"""The pass manager: the -O0..-O3 pipelines and `optimise_region`, the compile core's entry point.

Input: an `OptRegion`, its `Module`, the `CompileOptions`, the `DumpSink` and the
pipeline (a target's, clangpass.targets: its pass names and its traits).
Output: a `RegionOutcome`: `optimized` with the `CodegenUnit` the back end
lowers, or `fallback` with the reason the region stays with the host compiler.

Each pipeline is a plain list of pass names (classes in this package, looked
up in `PASSES`), held by its target (llvm_backend/<target>/pipeline.py). Before anything runs, `build_pipeline` checks each pass's
`requires` against what earlier passes `provide` (less the analyses a pass that
changes the model drops), and leaves out passes named by --disable-pass and those
that need what a disabled pass would have provided: a missing provider is an
error of the pipeline, never of a region. While it runs, the manager checks that
a pass that changed the model declared it and dropped the analyses of the old one,
times every pass (-ftime-report), emits the stage dumps
(-fpencil-dump=scop|deps|schedule|ast) and --dump-before/--dump-after=NAME, and
names the pass in any exception it lets through (a note; the exception itself is
untouched).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Optional, Sequence, Union

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.passes.plugins import PluginError, resolve
from clangpass.passes.registry import PASSES, Pass, PassContext, load_passes
from clangpass.passes.unit import MODEL_ANALYSES, PolyUnit, RunAgainAfter, Stage
from clangpass.poly.alias_check import format_alias_check, unchecked_overlap
from clangpass.poly.annotations import annotation_reductions, pragma_uses
from clangpass.poly.codegen import format_ast
from clangpass.poly.budget import BudgetExceeded, is_quota_error
from clangpass.poly.clustering import format_clustering
from clangpass.poly.dependences import Dependences, format_deps
from clangpass.poly.extract import NotModelled
from clangpass.poly.live_ranges import format_live_ranges, format_relaxed
from clangpass.poly.schedule_files import schedule_file_text
from clangpass.poly.schedule_loops import schedule_loops
from clangpass.poly.scop import format_schedule, format_scop
from clangpass.regions import OptRegion
from clangpass.report import RegionOutcome, Status, fallback
from clangpass.targets import Target, TargetTraits, get_target

# Importing a pass's module registers it: every module of the package is imported here.
load_passes()

# The passes whose time makes up `RegionOutcome.scheduling_seconds`.
SCHEDULING_PASSES = frozenset({"demote-scalars", "expand-scalars", "index-set-split", "relax-false-deps", "cluster-stmts", "schedule", "keep-streams", "tile", "wavefront",
                               "mark-parallel", "source-order", "row-blocks", "point-loop-order", "register-tile", "pack-panels",
                               "mark-vector", "reduction-jam", "verify-schedule"})


class PipelineError(Exception):
    """A pipeline is inconsistent (a pass requires what no earlier pass provides), or a pass broke
    its declaration (it changed the model without `changes_model`, or kept an analysis of the old one)."""


@dataclass(frozen=True)
class Pipeline:
    """A checked pipeline of a target: the passes that run, in order (`build_pipeline`), and the
    target's traits, which they read."""

    names: tuple[str, ...]              # as asked for
    passes: tuple[type[Pass], ...]      # those that run: disabled ones and their dependents left out
    traits: TargetTraits = TargetTraits()


def build_pipeline(names: Sequence[str], disabled: frozenset[str] = frozenset(),
                   given: frozenset[str] = frozenset(), traits: TargetTraits = TargetTraits()) -> Pipeline:
    """The passes `names` checked against each other: every `requires` met by an earlier pass's
    `provides` (or by `given`, what the unit they run on holds already), not dropped since by a
    pass that changes the model (raises PipelineError). A pass in `disabled` is left out, and so
    is every pass that needs what a left-out pass would have provided."""
    if any(name not in PASSES for name in names):
        try:
            resolve(names)      # a name no pencilcc pass has may be an installed plugin's
        except PluginError as exc:
            raise PipelineError(str(exc)) from None
    available: set[str] = set(given)
    skipped: set[str] = set()         # facts a left-out pass would have provided
    dropped: dict[str, str] = {}      # analysis -> the pass that last dropped it
    passes: list[type[Pass]] = []
    for name in names:
        cls = PASSES.get(name)
        if cls is None:
            raise PipelineError(f"unknown pass '{name}'")
        if name in disabled:
            skipped |= cls.provides
            continue
        missing = cls.requires - available
        if missing:
            if missing <= skipped:
                skipped |= cls.provides
                continue
            why = "".join(f"; '{dropped[m]}' changes the model, which drops '{m}'" for m in sorted(missing)
                          if m in dropped)
            why += "".join(f"; {_providers(m)}" for m in sorted(missing) if m not in dropped)
            raise PipelineError(f"pass '{name}' requires {sorted(missing)}, which no earlier pass provides{why}")
        if cls.changes_model:
            dropped.update((m, name) for m in MODEL_ANALYSES & available)
            available -= MODEL_ANALYSES
        available |= cls.provides
        passes.append(cls)
    return Pipeline(tuple(names), tuple(passes), traits)


def _providers(fact: str) -> str:
    """Which passes provide `fact`, for the message of a pipeline that lacks it."""
    names = [name for name, cls in PASSES.items() if fact in cls.provides]
    if not names:
        return f"no pass provides '{fact}'"
    return f"'{fact}' is provided by {' or '.join(f'pass {n!r}' for n in names)}"


def pass_names(options: CompileOptions, target: Target) -> Sequence[str]:
    """The passes `options` run with `target`: -fpencil-passes= (or the target's pipeline with the
    passes of -fpencil-pass-plugin modules, as the driver put it there), else the target's
    pipeline of the -O level."""
    return options.passes or target.pipeline(options.opt_level)


def optimise_region(region: OptRegion, module: N.Module, options: CompileOptions, dumps: DumpSink,
                    pipeline: Union[Pipeline, Sequence[str], None] = None) -> RegionOutcome:
    """Run `pipeline` (default: `pass_names` of `options.target`; pass names run
    with that target's traits) on `region`; never raises for unsupported input (raises
    PipelineError for an inconsistent pipeline, before any pass runs)."""
    if not isinstance(pipeline, Pipeline):
        target = get_target(options.target)
        pipeline = build_pipeline(pipeline if pipeline is not None else pass_names(options, target),
                                  options.disabled_passes, traits=target.traits)
    ctx = PassContext(options, isl.Context(), pipeline.traits)
    seconds: dict[str, float] = {}
    # isl work outside the passes' budgeted steps is bounded too, each pass's and each stretch
    # between two steps by `isl_max_operations` (clangpass.poly.budget); not the back end's,
    # which only reads the AST.
    ctx.isl_ctx.set_max_operations(options.isl_max_operations)
    try:
        unit = run_pipeline(PolyUnit(region, module), pipeline, ctx, dumps, seconds)
    except NotModelled as exc:
        return _with_timings(fallback(region, exc.id, exc.reason), seconds)
    except BudgetExceeded as exc:
        return _with_timings(fallback(region, "pencil-isl-budget", str(exc)), seconds)
    finally:
        ctx.isl_ctx.set_max_operations(0)
    if unit.codegen is None:
        missing = [p for p in ("extract", "codegen") if p in options.disabled_passes]
        why = f"pass '{missing[0] if missing else 'codegen'}' is disabled"
        return _with_timings(fallback(region, "pencil-pass-disabled", why), seconds)
    unchecked = unchecked_overlap(region) if unit.alias_check is None else ""
    if unchecked:
        return _with_timings(fallback(region, "pencil-pass-disabled", unchecked), seconds)
    cg = replace(unit.codegen, alias_check=unit.alias_check)
    deps = unit.dependences
    notes = ((deps.note,) if deps is not None and deps.note else ()) + unit.notes
    wanted = options.save_schedule_dir or options.report_file
    saved = schedule_file_text(region, unit.scop.schedule) if wanted else ""
    return RegionOutcome(region, Status.OPTIMIZED, reason="; ".join(notes), unit=cg, records=unit.records,
                         schedule_text=saved, **(_report_fields(unit) if options.report_file else {}),
                         statements=len(unit.scop.compute_statements),
                         pragmas=pragma_uses(unit.scop, deps.declared if deps is not None else None,
                                             deps.reductions if deps is not None else annotation_reductions(unit.scop)),
                         scheduling_seconds=sum(s for p, s in seconds.items() if p in SCHEDULING_PASSES),
                         pass_seconds=seconds, **_clustering_fields(unit, deps))


def _report_fields(unit: PolyUnit) -> dict:
    """-fpencil-report: the loops of the final schedule and the statements' lines; no loops when isl
    cannot answer (the page then says so)."""
    deps = unit.dependences.all if unit.dependences is not None else None
    try:
        loops = schedule_loops(unit.scop.schedule, deps, unit.scop.original_schedule)
    except isl.Error:
        loops = ()
    return dict(loops=loops, statement_lines=tuple((s.name, s.loc.line) for s in unit.scop.compute_statements
                                                   if s.loc.file == unit.region.loc.file))


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


def run_pipeline(unit: PolyUnit, pipeline: Union[Pipeline, Sequence[str]], ctx: PassContext, dumps: DumpSink,
                 seconds: dict[str, float]) -> PolyUnit:
    """Run `pipeline` (a list of names is checked first, `build_pipeline`) on `unit`, filling
    `seconds` with each pass's time."""
    options = ctx.options
    if not isinstance(pipeline, Pipeline):
        pipeline = build_pipeline(pipeline, options.disabled_passes, unit.provided)
    previous = "start"
    position = 0
    while position < len(pipeline.passes):
        cls = pipeline.passes[position]
        position += 1
        name = cls.name
        if cls.rewrites_schedule and unit.schedule_file:
            continue    # Ordering: load-schedule ran before and gave the region its final schedule
        if name in options.dump_before:
            _dump_unit(unit, dumps, previous)
        before = unit
        start = time.perf_counter()
        ctx.isl_ctx.reset_operations()
        try:
            unit = cls().run(unit, ctx)
        except (NotModelled, BudgetExceeded):
            raise
        except RunAgainAfter as again:
            # The passes after `again.after` once more, on the unit it gives (wavefront's trial).
            names = [c.name for c in pipeline.passes]
            if again.after not in names[:position - 1]:
                raise PipelineError(f"pass '{name}' asked to run the passes after '{again.after}' "
                                    "again, which did not run before it") from None
            position = names.index(again.after) + 1
            unit = replace(again.unit, provided=again.unit.provided | pipeline.passes[position - 1].provides)
            previous = again.after
            continue
        except isl.Error as exc:
            if not is_quota_error(exc):
                exc.add_note(f"in pencilcc pass '{name}' on region {unit.region.label}")
                raise
            raise BudgetExceeded(f"pass '{name}' exceeded {ctx.isl_ctx.get_max_operations()} isl operations "
                                 "outside its budgeted steps") from None
        except Exception as exc:
            exc.add_note(f"in pencilcc pass '{name}' on region {unit.region.label}")
            raise
        finally:
            seconds[name] = seconds.get(name, 0.0) + time.perf_counter() - start
        _check_model_change(cls, before, unit)
        unit = replace(unit, provided=unit.provided | cls.provides)
        if cls.dump_stage and dumps.wants(cls.dump_stage):
            dumps.emit(cls.dump_stage, unit.region.label, name, format_stage(unit, cls.dump_stage))
        if name in options.dump_after:
            _dump_unit(unit, dumps, name)
        previous = name
    return unit


def _check_model_change(cls: type[Pass], before: PolyUnit, after: PolyUnit) -> None:
    """Raise PipelineError when `cls` changed the model of `before` without declaring it, or kept
    an analysis of the old model."""
    if before.scop is None or after.scop is None or all(
            old is new for old, new in zip(before.scop.model, after.scop.model)):
        return
    if not cls.changes_model:
        raise PipelineError(f"pass '{cls.name}' changed the model without declaring `changes_model`")
    kept = [name for name in ("dependences", "live_ranges", "relaxed", "clustering")
            if getattr(before, name) is not None and getattr(after, name) is getattr(before, name)]
    if kept:
        raise PipelineError(f"pass '{cls.name}' changed the model but kept {kept} of the old one "
                            "(`PolyUnit.with_model` drops them)")


def format_stage(unit: PolyUnit, stage: str) -> str:
    """The canonical text of `unit` at dump stage `stage` ('scop', 'deps', 'schedule', 'ast')."""
    if stage == "ast":
        return format_ast(unit.codegen)
    if stage == "deps":
        text = format_deps(unit.dependences)
        text += "\n" + format_relaxed(unit.relaxed) if unit.relaxed is not None else ""
        return text + ("\n" + format_clustering(unit.clustering) if unit.clustering is not None else "")
    if stage == "schedule":
        return format_schedule(unit.scop.schedule)
    return _format_model(unit)


def _format_model(unit: PolyUnit) -> str:
    """The `scop` stage: the model, and the alias check once `alias-check` has planned it."""
    text = format_scop(unit.scop, unit.notes)
    return text + "\n" + format_alias_check(unit.alias_check) if unit.alias_check is not None else text


def _dump_unit(unit: PolyUnit, dumps: DumpSink, after: str) -> None:
    """--dump-before/--dump-after: the whole unit in the form of its stage."""
    if unit.stage is Stage.REGION:
        return
    if unit.stage is Stage.AST:
        dumps.emit("ast", unit.region.label, after, format_ast(unit.codegen), force=True)
        return
    text = _format_model(unit)
    if unit.dependences is not None:
        text += "\nDependences {\n" + format_deps(unit.dependences) + "\n}"
    if unit.live_ranges is not None:
        text += "\n" + format_live_ranges(unit.live_ranges)
    dumps.emit("scop", unit.region.label, after, text, force=True)


def _with_timings(outcome: RegionOutcome, seconds: dict[str, float]) -> RegionOutcome:
    return replace(outcome, pass_seconds=seconds,
                   scheduling_seconds=sum(s for p, s in seconds.items() if p in SCHEDULING_PASSES))
