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
(threads work on private copies of local storage, which are not copied back).
Nested parallel loops are left unmarked: the back end runs only the outermost on
threads. Knob: `parallel` (-fno-pencil-parallel disables).

Reductions (`#pragma pencil independent reduction(op: v)`, clangpass.poly.annotations):
the dependences between updates of v in different iterations of the annotated loop
are not in the scheduler's constraints, so a loop may be coincident only because
they are gone. When the loop to mark runs such a pair of updates in different
iterations (with the loops around it at the same iteration), it becomes a parallel
reduction: `Scop.reductions` gets v, its operator and the update statements under
the loop, and the back end gives each thread a private partial result
(clangpass.poly.codegen_unit). The loop is left unmarked (its inner loops are
tried) if a statement under it touches v other than by those updates, or if two
reductions of v under it disagree on the operator or the element.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.mark_vector import is_innermost_band
from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.annotations import ThreadReductions, carried_pairs
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.live_ranges import LiveRanges, values_leaving
from clangpass.poly.scop import LoopReduction, Scop, accesses_through, instances_of, statement_names
from clangpass.poly.validity import COINCIDENT_MARK, PARALLEL_MARK, carries_dependence


@register
class MarkParallel(Pass):
    """Insert a `parallel` mark above the outermost coincident band member of each nest."""

    name = "mark-parallel"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences", "live-ranges"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if not ctx.options.parallel:
            return unit
        scop = unit.scop
        marked, note = mark_parallel_loops(scop, scop.schedule, unit.live_ranges, unit.dependences.reductions,
                                           ctx.options.isl_max_operations, scop.reductions,
                                           second=ctx.traits.coincident_pairs)
        return replace(unit, scop=marked).with_note(note) if note else replace(unit, scop=marked)


def mark_parallel_loops(scop: Scop, schedule: isl.Schedule, live_ranges: LiveRanges,
                        usable: tuple[ThreadReductions, ...], max_operations: int,
                        reductions: tuple[LoopReduction, ...] = (), innermost: bool = True,
                        second: bool = False) -> tuple[Scop, str]:
    """`scop` with `schedule`, its outermost coincident loops marked `parallel`, and
    `reductions` (the reductions of an earlier schedule are the caller's to keep or drop)
    plus the parallel reductions the marked loops perform, given the live ranges of local
    storage and the `thread_reductions` of each annotation (`usable`,
    `Dependences.reductions`). With `innermost` false, a loop
    with no loop inside it is not marked (it is left to `mark-vector`). With `second`, the
    next member of a marked one's band, when coincident too (and no reduction is performed),
    is marked `coincident` (the OpenCL target's two-dimensional kernels); and a note when no loop
    could be marked ('' otherwise)."""
    try:
        live = live_ranges.get()                                 # [P] -> { W -> R }
    except BudgetExceeded as exc:
        return scop.with_schedule(schedule, reductions=reductions), f"{exc}: no parallel loop marked"
    found: list[LoopReduction] = []
    candidates = any(mine for mine, _ in usable)

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        """Mark under `node`; returns the node now at `node`'s position."""
        if node.get_type() == isl.schedule_node_type.band:
            member = _outermost_parallel_member(node)
            if member == node.band_n_member() - 1 and not innermost and is_innermost_band(node):
                member = None
            # Threads get private copies of local storage: a local value that flows out of
            # the loop would be lost, so such a loop stays sequential (inner ones may not).
            if member is not None and values_leaving(node, live, member + 1).is_empty():
                performed = _loop_reductions(scop, usable, node, member, max_operations) if candidates else []
                if performed is not None:
                    found.extend(performed)
                    inner = member + 1
                    if second and not performed and inner < node.band_n_member() \
                            and node.band_member_get_coincident(inner) and not _is_degenerate(node, inner) \
                            and values_leaving(node, live, inner + 1).is_empty():
                        return _mark_pair(node, member)
                    if second and not performed and inner == node.band_n_member() and node.n_children() == 1:
                        # The next loop is a band of its own (the source order's nests).
                        child = node.child(0)
                        if child.get_type() == isl.schedule_node_type.band \
                                and child.band_member_get_coincident(0) and not _is_degenerate(child, 0) \
                                and values_leaving(child, live, 1).is_empty():
                            if child.band_n_member() > 1:
                                child = child.band_split(1)
                            node = child.insert_mark(isl.Id(COINCIDENT_MARK, context=child.get_ctx())).parent()
                    return _mark(node, member)
        for k in range(node.n_children()):
            node = visit(node.child(k)).parent()
        return node

    return scop.with_schedule(visit(schedule.get_root()).get_schedule(), reductions=reductions + tuple(found)), ""


def marked_reductions(scop: Scop, schedule: isl.Schedule, usable: tuple[ThreadReductions, ...],
                      max_operations: int) -> tuple[tuple[LoopReduction, ...], list[str]]:
    """The parallel reductions the loops `schedule` marks `parallel` perform (a schedule whose marks
    were set elsewhere: read from a file, pass `load-schedule`), found as `mark_parallel_loops`
    finds them, in the same order; and the marked loops that cannot run on threads for that
    reason (a reduced variable touched other than by its updates, the isl budget)."""
    found: list[LoopReduction] = []
    problems: list[str] = []
    if not any(mine for mine, _ in usable):
        return (), problems

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK \
                and node.child(0).get_type() == isl.schedule_node_type.band:
            band = node.child(0)
            performed = _loop_reductions(scop, usable, band, 0, max_operations)
            if performed is None:
                problems.append(f"loop {band.band_get_partial_schedule()} cannot run on threads: it updates "
                                "a reduction variable other than by the reduction")
            else:
                found.extend(performed)
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    return tuple(found), problems


def with_coincidence(schedule: isl.Schedule, deps: isl.UnionMap) -> isl.Schedule:
    """`schedule` with the `coincident` flag of every band member that carries none of `deps`
    (the flags isl's scheduler sets on the bands it builds; a schedule built otherwise, such as
    the source order, has none until this computes them)."""

    def flag(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            for m in range(node.band_n_member()):
                node = node.band_member_set_coincident(m, not carries_dependence(node, deps, m))
        for k in range(node.n_children()):
            node = flag(node.child(k)).parent()
        return node

    return flag(schedule.get_root()).get_schedule()


def _loop_reductions(scop: Scop, usable: tuple[ThreadReductions, ...], band: isl.ScheduleNode, member: int,
                     max_operations: int) -> list[LoopReduction] | None:
    """The reductions that member `member` of `band` performs if it runs on threads, or None if
    it cannot be a parallel loop: a reduced variable is touched under it other than by the
    updates, two reductions of one variable under it differ, or the isl budget ran out."""
    try:
        with isl_budget(band.get_ctx(), max_operations, "parallel reductions"):
            return _separated_reductions(scop, usable, band, member)
    except BudgetExceeded:
        return None


def _separated_reductions(scop: Scop, usable: tuple[ThreadReductions, ...], band: isl.ScheduleNode,
                          member: int) -> list[LoopReduction] | None:
    instances = band.get_domain()                              # [P] -> { S[i..] } under the band
    outer = band.get_prefix_schedule_union_map()               # [P] -> { S[i..] -> [outer dates] }
    partial = band.band_get_partial_schedule()
    for k in range(member):
        outer = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k)))
    dates = outer.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(member)))
    outer = outer.intersect_domain(instances)
    dates = dates.intersect_domain(instances)
    same_outer = outer.apply_range(outer.reverse())            # [P] -> { S -> T : same outer iteration }
    same_loop = dates.apply_range(dates.reverse())             # ... and same iteration of the member
    under = statement_names(instances)
    by_variable: dict[str, list[LoopReduction]] = {}
    for annotation, (mine_usable, _) in zip(scop.annotations, usable):
        for r in mine_usable:
            mine = frozenset(r.statements) & under
            if not mine:
                continue
            updates = instances_of(instances, mine)
            pairs = carried_pairs(scop, annotation).intersect_domain(updates).intersect_range(updates)
            if pairs.intersect(same_outer).subtract(same_loop).is_empty():
                continue                                       # no two updates of v on different threads
            by_variable.setdefault(r.variable, []).append(replace(r, statements=tuple(sorted(mine))))
    performed = []
    for v, found in sorted(by_variable.items()):
        if any((r.operator, r.target) != (found[0].operator, found[0].target) for r in found):
            return None
        statements = frozenset(n for r in found for n in r.statements)
        touching = accesses_through(scop.reads.union(scop.writes).union(scop.kills), frozenset({v}))
        if not statement_names(touching.domain().intersect(instances)) <= statements:
            return None
        performed.append(replace(found[0], statements=tuple(sorted(statements))))
    return performed


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


def _mark_pair(band: isl.ScheduleNode, member: int) -> isl.ScheduleNode:
    """Split `band` around members `member` and `member + 1`, mark the first `parallel` and the
    second `coincident`; returns the node at `band`'s position."""
    node = band
    if member > 0:
        node = node.band_split(member).child(0)
    if node.band_n_member() > 2:
        node = node.band_split(2)
    node = node.band_split(1)                      # [member] above [member + 1]
    node = node.child(0).insert_mark(isl.Id(COINCIDENT_MARK, context=node.get_ctx())).parent()
    node = node.insert_mark(isl.Id(PARALLEL_MARK, context=node.get_ctx()))
    return node.parent() if member > 0 else node


def _mark(band: isl.ScheduleNode, member: int) -> isl.ScheduleNode:
    """Split `band` around `member` and mark it; returns the node at `band`'s position."""
    node = band
    if member > 0:
        node = node.band_split(member).child(0)
    if node.band_n_member() > 1:
        node = node.band_split(1)
    node = node.insert_mark(isl.Id(PARALLEL_MARK, context=node.get_ctx()))
    return node.parent() if member > 0 else node
