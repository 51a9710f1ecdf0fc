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
from typing import Optional

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
from clangpass.poly.scop import statement_names
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
        unit = _components_in_source_order(unit, ctx, original)
        scop = unit.scop
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


def _components_in_source_order(unit: PolyUnit, ctx: PassContext, original: isl.Schedule) -> PolyUnit:
    """`unit` with each independent component of its schedule (a filter of the root's set or
    sequence) that gained nothing (no tiled band, parallel loop or wavefront) in the source
    order, when the source order has a parallel loop there: the rule of the whole region,
    applied per component. A region holding a three-point stencil and a matrix-vector
    product got a skewed, fused stencil nest (no parallel loop: on the OpenCL target, host
    code) beside the product's parallel loop; alone in a region the same stencil runs its two
    sweeps as parallel loops. The source order is valid for the instances of any one
    component, and the order between components is the schedule's."""
    top = unit.scop.schedule.get_root()
    if top.n_children() != 1:
        return unit
    top = top.child(0)
    if top.get_type() not in (isl.schedule_node_type.set, isl.schedule_node_type.sequence):
        return unit
    idle = [k for k in range(top.n_children()) if not _subtree_marks(top.child(k))]
    if not idle or len(idle) == top.n_children():
        return unit
    ordered = _source_order(unit, ctx, original, "")
    if ordered.scop.schedule is original:
        return unit
    source = ordered.scop.schedule.get_root()
    node, replaced = top, []
    try:
        for k in idle:
            within = node.child(k).filter_get_filter()
            piece = source.child(0)
            if not _subtree_marks(piece, within):
                continue
            leaf = node.child(k).child(0).cut()
            node = graft(leaf, piece, within).parent().parent()
            replaced.append(within)
    except CannotGraft:
        return unit
    if not replaced:
        return unit
    parts = isl.UnionSet.empty(original.get_domain().get_space())
    for within in replaced:
        parts = parts.union(within)
    names = statement_names(parts)
    kept = tuple(r for r in unit.scop.reductions if not set(r.statements) & names)
    found = tuple(r for r in ordered.scop.reductions if set(r.statements) <= names)
    scop = unit.scop.with_schedule(node.get_schedule(), reductions=kept + found)
    return replace(unit, scop=scop).with_record(SourceOrderRecord(
        False, f"schedule kept, but {len(replaced)} of its independent parts in the source order, where they have "
               f"parallel loops and in the schedule none"))


class CannotGraft(Exception):
    """A schedule tree node the graft does not copy (context, guard, expansion, extension)."""


def _subtree_marks(node: isl.ScheduleNode, within: Optional[isl.UnionSet] = None) -> bool:
    """Whether the tree below `node` has a tile, parallel or wavefront mark (with `within`:
    one above instances of `within`; filters disjoint from it are skipped)."""
    kind = node.get_type()
    if kind == isl.schedule_node_type.mark and node.mark_get_id().get_name() in (TILE_MARK, PARALLEL_MARK,
                                                                                WAVEFRONT_MARK):
        return True
    if within is not None and kind == isl.schedule_node_type.filter:
        within = within.intersect(node.filter_get_filter())
        if within.is_empty():
            return False
    return any(_subtree_marks(node.child(k), within) for k in range(node.n_children()))


def graft(leaf: isl.ScheduleNode, source: isl.ScheduleNode, within: isl.UnionSet) -> isl.ScheduleNode:
    """A copy of the tree below `source` (its instances in `within`) inserted at `leaf`; the node
    at `leaf`'s position. Filters disjoint from `within` are left out, and a sequence or set with
    one branch left is that branch."""
    kind = source.get_type()
    types = isl.schedule_node_type
    if kind == types.leaf:
        return leaf
    if kind == types.band:
        node = leaf.insert_partial_schedule(source.band_get_partial_schedule().intersect_domain(within))
        node = node.band_set_permutable(source.band_get_permutable())
        for k in range(source.band_n_member()):
            node = node.band_member_set_coincident(k, source.band_member_get_coincident(k))
        return graft(node.child(0), source.child(0), within).parent()
    if kind == types.mark:
        node = leaf.insert_mark(source.mark_get_id())
        return graft(node.child(0), source.child(0), within).parent()
    if kind == types.filter:
        return graft(leaf, source.child(0), within.intersect(source.filter_get_filter()))
    if kind in (types.sequence, types.set):
        branches = [(k, within.intersect(source.child(k).filter_get_filter())) for k in range(source.n_children())]
        branches = [(k, f) for k, f in branches if not f.is_empty()]
        if not branches:
            return leaf
        if len(branches) == 1:
            return graft(leaf, source.child(branches[0][0]).child(0), branches[0][1])
        filters = isl.UnionSetList.alloc(leaf.get_ctx(), len(branches))
        for _, f in branches:
            filters = filters.add(f)
        node = leaf.insert_sequence(filters) if kind == types.sequence else leaf.insert_set(filters)
        for j, (k, f) in enumerate(branches):
            node = graft(node.child(j).child(0), source.child(k).child(0), f).parent().parent()
        return node
    raise CannotGraft(str(kind))


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
