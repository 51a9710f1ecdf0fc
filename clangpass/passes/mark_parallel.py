# SPDX-License-Identifier: MIT
"""Pass `mark-parallel`: mark the outermost parallel loop of each loop nest.

Input: Scop whose schedule bands carry the scheduler's `coincident` flags (a
coincident member has zero dependence distance once the outer members are
fixed, so its iterations may run concurrently: PPCG, TACO 2013, section 5.1).
Output: the band split so that the outermost coincident member is a band of its
own, with a `parallel` mark directly above it; the AST then has `mark parallel`
directly above that for loop (contract of clangpass.poly.codegen_unit). Members
that take a single value for each outer iteration are not loops and are
skipped, and so is a loop out of which a value of region-local storage flows
(threads work on private copies of local storage, which are not copied back). Nested parallel loops are left unmarked: the back end runs only the
outermost on threads. Knob: `parallel` (-fno-pencil-parallel disables).
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.live_ranges import local_live_ranges, values_leaving
from clangpass.poly.validity import PARALLEL_MARK


@register
class MarkParallel(Pass):
    """Insert a `parallel` mark above the outermost coincident band member of each nest."""

    name = "mark-parallel"
    requires = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if not ctx.options.parallel:
            return unit
        try:
            live = local_live_ranges(unit.scop, ctx.options.isl_max_operations)   # [P] -> { W -> R }
        except BudgetExceeded as exc:
            return replace(unit, scop=unit.scop.with_note(f"{exc}: no parallel loop marked"))
        marked = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Mark under `node`; returns the node now at `node`'s position."""
            if node.get_type() == isl.schedule_node_type.band:
                member = _outermost_parallel_member(node)
                # Threads get private copies of local storage: a local value that flows out of
                # the loop would be lost, so such a loop stays sequential (inner ones may not).
                if member is not None and values_leaving(node, live, member + 1).is_empty():
                    marked[0] += 1
                    return _mark(node, member)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(unit.scop.schedule.get_root()).get_schedule()
        if not marked[0]:
            return unit
        return replace(unit, scop=unit.scop.with_schedule(schedule))


def _outermost_parallel_member(band: isl.ScheduleNode) -> int | None:
    for k in range(band.band_n_member()):
        if band.band_member_get_coincident(k) and not _is_degenerate(band, k):
            return k
    return None


def _is_degenerate(band: isl.ScheduleNode, member: int) -> bool:
    """Whether member `member` takes at most one value per iteration of the loops around it."""
    instances = band.get_domain()                              # [P] -> { S[i..] }
    outer = band.get_prefix_schedule_union_map()               # [P] -> { S[i..] -> [outer dates] }
    partial = band.band_get_partial_schedule()                 # [P] -> [{ S[i..] -> [(t0)] }, ...]
    for k in range(member):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k)))
    date = isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(member))   # [P] -> { S[i..] -> [t] }
    values = outer.intersect_domain(instances).reverse().apply_range(date)   # [P] -> { [outer] -> [t] }
    return values.is_single_valued()


def _mark(band: isl.ScheduleNode, member: int) -> isl.ScheduleNode:
    """Split `band` around `member` and mark it; returns the node at `band`'s position."""
    node = band
    if member > 0:
        node = node.band_split(member).child(0)
    if node.band_n_member() > 1:
        node = node.band_split(1)
    node = node.insert_mark(isl.Id(PARALLEL_MARK, context=node.get_ctx()))
    return node.parent() if member > 0 else node
