# SPDX-License-Identifier: MIT
"""Pass `thread-team`: start threads once around a sequential loop that holds parallel loops.

Input: Scop whose schedule carries `parallel` marks (`mark-parallel`). Output: a
`thread-team` mark (clangpass.poly.codegen_unit.TEAM_MARK) directly above each
outermost band that has a `parallel` mark below it but none above it: the
sequential loop around the parallel ones (the time loop of adi, the k loop of
durbin, the wavefront loop of a tiled stencil). The CPU back end then forks the
threads once per execution of that loop, not once per iteration, and separates
the parallel loops inside with barriers (llvm_backend.cpu.parallel; the
`omp parallel` hoisted out of a sequential loop around an `omp for`, as OpenMP
programmers write it and as the SPMD code of PPCG's and Pluto's OpenMP back ends
is organised: Bondhugula et al., PLDI 2008, section 6). Outside every band, a
sequence (or set) with two or more children that hold parallel loops gets the
mark too, above the sequence: a region made of several parallel loops one after
the other (deriche's six row and column sweeps, 2mm's two products) starts its
threads once, and the granularity model weighs the work of all of them against
the cost of waking the threads, not each loop's alone. A lone parallel loop with
no sequential loop around it gets no team mark: its own fork is already once per
region call. Knob: --disable-pass=thread-team (one fork per parallel loop
execution, as before); it does nothing when `parallel` is off.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen_unit import TEAM_MARK
from clangpass.poly.validity import PARALLEL_MARK


@register
class ThreadTeam(Pass):
    """Mark the outermost sequential band around parallel loops, or a top-level sequence of them:
    one thread team per execution of it."""

    name = "thread-team"
    rewrites_schedule = True
    requires = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if not ctx.options.parallel:
            return unit
        marked = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Mark under `node`; returns the node now at `node`'s position."""
            if _is_parallel_mark(node):
                return node
            if (node.get_type() == isl.schedule_node_type.band and _holds_parallel_mark(node)) \
                    or _parallel_children(node) >= 2:
                marked[0] += 1
                return node.insert_mark(isl.Id(TEAM_MARK, context=node.get_ctx()))
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(unit.scop.schedule.get_root()).get_schedule()
        if not marked[0]:
            return unit
        return replace(unit, scop=unit.scop.with_schedule(schedule))


def _is_parallel_mark(node: isl.ScheduleNode) -> bool:
    return node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK


def _parallel_children(node: isl.ScheduleNode) -> int:
    """How many children of a sequence or set node hold a parallel loop (0 for other nodes)."""
    if node.get_type() not in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        return 0
    return sum(1 for k in range(node.n_children()) if _holds_parallel_mark(node.child(k)))


def _holds_parallel_mark(node: isl.ScheduleNode) -> bool:
    return any(_is_parallel_mark(child) or _holds_parallel_mark(child)
               for child in (node.child(k) for k in range(node.n_children())))
