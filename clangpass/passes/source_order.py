# SPDX-License-Identifier: MIT
"""Pass `source-order`: a schedule that gained nothing the source order lacks is not used.

Input: Scop after `schedule`, `keep-streams`, `tile`, `wavefront` and `mark-parallel`.
Output: the same Scop, or, when its schedule has no tiled band, no parallel loop and
no wavefront, the source order (`Scop.original_compute_schedule`), with its record's
`source_order` set (and the tile record's tiles gone) and its independent loops that
hold loops marked `parallel` (`_source_order`).

Why: what a polyhedral schedule buys a CPU is locality through tiling and threads
through parallel loops; without either, isl's schedule differs from the source
only by fusion, interchange or skewing chosen for proximity, and LLVM's vectoriser
handles the loops a programmer wrote better than skewed, fused ones with a
dependence between their statements. jacobi-1d (TSTEPS=500, N=2000), whose skewed
two-deep band keep-streams leaves untiled, ran 1.26 ms against gcc's 0.37 ms with
the rescheduled nest (S_0 and S_1 interleaved in one loop, not vectorised); see
docs/benchmarks.md for the kernels this pass changes. The later passes
(`point-loop-order`, `mark-vector`) still run on the source order, so its innermost
independent loops are still handed to the vectoriser.

A schedule that did gain tiles or parallel loops is also given up, with
`-fpencil-source-order=streams` (the default), when it reads a matrix of a two-deep region
from memory more often than the source order does (`clangpass.poly.memory_streams`): in a
memory-bound matrix-vector nest tiling buys no reuse (keep-streams' capacity argument) and
a second pass over a matrix costs more than a second thread brings. atax and bicg: isl's
schedule splits the two products that read one row of `A` in one source iteration into two
parallel nests, each streaming all of `A` (docs/passes/source-order.md). A wavefront
schedule is never given up this way (its statements are three-deep). The record says why
(`source_order_reason`). Except when the schedule makes scratch arrays contractible: a
producer fused into its consumer so that an array whose values die in the region folds onto
a few rows against the schedule (clangpass.poly.contraction, as `contract-scheduled` will
on the final schedule): the memory saved, and the whole scratch array not streamed out and
back, weigh more than a matrix read twice (test_suite/kernels/memory/image_pipeline2.c; the
record's `source_order_reason` then says why the schedule was kept).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes.contract_arrays import MEMORY_MODES
from clangpass.passes.mark_parallel import mark_parallel_loops, with_coincidence
from clangpass.passes.index_set_split import IndexSetSplitRecord
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.tile import TILE_MARK, without_tiles
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.codegen_unit import WAVEFRONT_MARK
from clangpass.poly.contraction import contract_arrays
from clangpass.poly.memory_streams import restreamed_matrices
from clangpass.poly.validity import PARALLEL_MARK


def gained_marks(schedule: isl.Schedule) -> set[str]:
    """The tile, parallel and wavefront marks in `schedule`."""
    found: set[str] = set()

    def look(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            name = node.mark_get_id().get_name()
            if name in (TILE_MARK, PARALLEL_MARK, WAVEFRONT_MARK):
                found.add(name)
        return True

    schedule.get_root().foreach_descendant_top_down(look)
    return found


@dataclass(frozen=True)
class SourceOrderRecord(PassRecord):
    """Whether the source order was kept instead of the schedule, and why (the schedule gained
    nothing, or it streams matrices from memory more often)."""

    source_order: bool = False
    source_order_reason: str = ""


@register
class SourceOrder(Pass):
    """Keep the source order when the schedule has no tiled band, parallel loop or wavefront, or
    when it streams a matrix from memory more often than the source order."""

    name = "source-order"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences", "live-ranges"})
    record = SourceOrderRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        original = scop.original_compute_schedule()
        if scop.schedule.plain_is_equal(original):
            return unit
        gained = gained_marks(scop.schedule)
        if not gained:
            reason = "the schedule has no tiled band, parallel loop or wavefront"
            return _source_order(unit, ctx, original, reason)
        if unit.record(IndexSetSplitRecord).split_statements and not gained & {PARALLEL_MARK, WAVEFRONT_MARK}:
            # index-set-split's pieces in their split source order: isl's scheduler fuses and
            # skews the pieces (floyd-warshall: tiles, no parallel loop, column walks).
            # The pieces' independent loops decide, whether or not threads are on: without them
            # (-fno-pencil-parallel) the rows of the split source order still run their columns
            # as vector loops, where isl's skewed schedule walks columns (floyd-warshall LARGE
            # took 86 s, gcc 12.5 s).
            reason = "the source order of the split statements has parallel loops, the schedule none"
            pieces = _source_order(unit, ctx, original, reason, threads=True)
            if PARALLEL_MARK in gained_marks(pieces.scop.schedule):
                if not ctx.options.parallel:
                    pieces = _source_order(unit, ctx, original, reason)
                return pieces
        if ctx.options.source_order != "streams" or WAVEFRONT_MARK in gained:
            return unit
        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "memory-stream model"):
                restreamed = restreamed_matrices(scop, scop.schedule)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: schedule kept")
        if not restreamed:
            return unit
        reason = f"the schedule streams {', '.join(restreamed)} from memory more than once, the source order once"
        folded = _folded_scratch(scop, ctx)
        if folded:
            # Memory saved weighs more than a matrix streamed twice: the schedule fuses a
            # producer into its consumer so that a scratch array folds onto a few rows
            # (contract-scheduled folds them on the final schedule), which saves the stream
            # of the whole scratch array out to memory and back, and its memory.
            return unit.with_record(SourceOrderRecord(False, f"schedule kept: {reason}, but against it "
                                                             f"{', '.join(folded)} fold onto fewer rows"))
        return _source_order(unit, ctx, original, reason)


def _folded_scratch(scop, ctx: PassContext) -> list[str]:
    """The arrays whose values die in the region that the conflict sets of `scop`'s schedule
    fold and the source order's did not (clangpass.poly.contraction; the vector loops
    `mark-vector` adds later are not known yet: an estimate, contract-scheduled decides)."""
    if ctx.options.memory not in MEMORY_MODES or "contract-scheduled" in ctx.options.disabled_passes:
        return []
    _, contraction = contract_arrays(scop, ctx.options.isl_max_operations, scop.schedule)
    return [a.mapping for a in contraction.arrays]


def _source_order(unit: PolyUnit, ctx: PassContext, original: isl.Schedule, reason: str,
                  threads: bool = False) -> PolyUnit:
    """The unit with the source order `original`, for `reason`, its outermost independent loops that hold a
    loop marked `parallel` (as `mark-parallel` marks isl's schedules, from coincidence flags
    computed against the dependences the scheduler had as coincidence constraints). An
    independent innermost loop is left to `mark-vector` on the CPU: in the source order it sits in a
    sequential loop (jacobi-1d's, durbin's) and one vector loop's work pays for no barrier
    (jacobi-1d LARGE ran 9% slower as a team that never forked, its loops not vectorised).
    With `threads`, the loops are marked even under -fno-pencil-parallel (to see whether there
    are any)."""
    # The source order has no tiles, and no reduction of the schedule given up: the record
    # must not count them.
    scop = unit.scop.with_schedule(original, reductions=())
    unit = without_tiles(unit).with_record(SourceOrderRecord(True, reason))
    if not (ctx.options.parallel or threads) or "mark-parallel" in ctx.options.disabled_passes:
        return replace(unit, scop=scop)
    deps = unit.relaxed.enforced if unit.relaxed is not None else None
    try:
        with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "parallel loops of the source order"):
            if deps is None:
                deps = unit.dependences.all
            flagged = with_coincidence(original, deps)
    except BudgetExceeded as exc:
        return replace(unit, scop=scop).with_note(f"{exc}: no parallel loop marked")
    # A target that runs an innermost parallel loop as a kernel (OpenCL: jacobi-1d's sweeps) has it marked.
    marked, note = mark_parallel_loops(scop, flagged, unit.live_ranges, unit.dependences.reductions,
                                       ctx.options.isl_max_operations, innermost=ctx.traits.innermost_parallel,
                                       second=ctx.traits.coincident_pairs)
    return replace(unit, scop=marked).with_note(note) if note else replace(unit, scop=marked)
