# SPDX-License-Identifier: MIT
"""Pass `mark-vector`: mark the innermost loop of each nest whose iterations are independent.

Input: Scop after `point-loop-order` (the innermost loops are chosen) and
`mark-parallel`. Output: for each band with no band below it whose last member
carries no dependence (`clangpass.poly.validity.carries_dependence`, with the
outer bands and the band's other members fixed), that member split into a band of
its own under a `vector` mark. The CPU back end lowers a marked loop with its
loads and stores of shared arrays in one access group listed as
`llvm.loop.parallel_accesses` and with `llvm.loop.vectorize.enable`: the loop
vectoriser then needs no run-time alias or dependence checks (the array
arguments of a PENCIL function may share storage as far as LLVM can tell), which
is what kept it from vectorising most point loops. This is the innermost-loop
half of PPCG's parallelism detection (Verdoolaege et al., TACO 2013, section 5.1)
handed to LLVM's vectoriser instead of thread-level code.

A loop under `#pragma pencil ivdep` ignores the dependences it carries here
(clangpass.poly.annotations): the pragma says they do not prevent vector lanes.

A band directly under a `parallel` mark runs on threads and is left alone; the
mark is checked again by `verify-schedule` like a parallel loop's.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.annotations import vector_independent
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.dependences import dependences
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK, carries_dependence


@register
class MarkVector(Pass):
    """Insert a `vector` mark above the innermost member of each innermost band that carries no dependence."""

    name = "mark-vector"
    requires = frozenset({"schedule", "dependences"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        marked = [0]
        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "mark-vector"):
                # The dependences verify-schedule holds parallel loops to: after relax-false-deps
                # the enforced ones (local storage is not in the loop's access group: LLVM
                # checks it itself).
                deps = (unit.relaxed.enforced if unit.relaxed is not None
                        else dependences(scop, ctx.options.isl_max_operations).all)   # [P] -> { S -> T }
                if scop.annotations:
                    deps = deps.subtract(vector_independent(scop))   # `ivdep` loops (and `independent`)

                def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
                    """Mark under `node`; returns the node now at `node`'s position."""
                    if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() in (
                            PARALLEL_MARK, VECTOR_MARK) and is_innermost_band(node.child(0)):
                        return node              # the threads' loop, or already marked
                    if node.get_type() == isl.schedule_node_type.band and is_innermost_band(node):
                        last = node.band_n_member() - 1
                        if not carries_dependence(node, deps, last):
                            marked[0] += 1
                            return _mark_last(node)
                        return node
                    for k in range(node.n_children()):
                        node = visit(node.child(k)).parent()
                    return node

                schedule = visit(scop.schedule.get_root()).get_schedule()
        except BudgetExceeded as exc:
            return replace(unit, scop=scop.with_note(f"{exc}: no vector loop marked"))
        if not marked[0]:
            return unit
        return replace(unit, scop=scop.with_schedule(schedule))


def is_innermost_band(node: isl.ScheduleNode) -> bool:
    """Whether `node` is a band with no band below it."""
    if node.get_type() != isl.schedule_node_type.band:
        return False
    below = [False]

    def look(descendant: isl.ScheduleNode) -> bool:
        if descendant.get_type() == isl.schedule_node_type.band and not descendant.is_equal(node):
            below[0] = True
        return not below[0]

    node.foreach_descendant_top_down(look)
    return not below[0]


def _mark_last(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """Split off `band`'s last member and mark it; returns the node at `band`'s position."""
    n = band.band_n_member()
    node = band.band_split(n - 1).child(0) if n > 1 else band
    node = node.insert_mark(isl.Id(VECTOR_MARK, context=node.get_ctx()))
    return node.parent() if n > 1 else node
