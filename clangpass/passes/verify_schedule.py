# SPDX-License-Identifier: MIT
"""Pass `verify-schedule`: check the final schedule against every dependence.

Input: Scop with a (possibly rescheduled, tiled, parallel-marked) schedule.
Output: the same Scop when the relaxed permutability criterion holds on the
*unrelaxed* dependences (clangpass.poly.live_ranges.relaxed_criterion_violations:
every flow dependence and every false dependence of non-local storage goes
forward; a false dependence of region-local storage is broken only where no live
range it guards is interrupted), no `parallel` loop carries a dependence that must
hold (clangpass.poly.validity) and no local value leaves one; otherwise the
original schedule, with a note naming the violation. The criterion is the same
whether or not relax-false-deps ran, and is recomputed from the accesses rather
than taken from that pass; the update pairs of exact reductions need no order
(clangpass.poly.exact_reductions), but a parallel loop may not carry one. The
scheduler is trusted to be correct; this pass makes a bug in it, or in a later transformation, cost performance instead of
wrong results. A check that exceeds the isl budget rejects the schedule too.
The checks are `schedule_violations`, which pass `load-schedule` makes of a schedule
read from a file (-fpencil-load-schedule) as well.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.tile import without_tiles
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.dependences import relaxed_order
from clangpass.poly.live_ranges import (privatization_violations, relax_false_dependences,
                                        relaxed_criterion_violations)
from clangpass.poly.validity import parallel_violations


@register
class VerifySchedule(Pass):
    """Fall back to the original schedule if the current one breaks a dependence."""

    name = "verify-schedule"
    rewrites_schedule = True
    requires = frozenset({"scop", "dependences", "live-ranges"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        original = scop.original_compute_schedule()
        if scop.schedule.plain_is_equal(original):
            return unit
        problems = schedule_violations(unit, scop.schedule, ctx)
        if not problems:
            return unit
        note = f"invalid schedule replaced by the original one: {problems[0]}"
        return without_tiles(replace(unit, scop=scop.with_schedule(original))).with_note(note)


def schedule_violations(unit: PolyUnit, schedule: isl.Schedule, ctx: PassContext) -> list[str]:
    """Why `schedule` may not run `unit`'s region (empty: it may): the checks of this pass, which
    pass `load-schedule` makes of a schedule read from a file too. A check that exceeds the isl
    budget is a problem of its own."""
    scop = unit.scop
    limit = ctx.options.isl_max_operations
    try:
        # Recomputed from the unrelaxed dependences, not taken from relax-false-deps.
        split = relax_false_dependences(scop, unit.dependences, unit.live_ranges, limit)
        # The updates of an exact reduction may run in any order, but no parallel loop may carry two.
        with isl_budget(ctx.isl_ctx, limit, "schedule verification"):
            order = replace(split, enforced=relaxed_order(split.enforced, unit.dependences))
        problems = relaxed_criterion_violations(schedule, scop, order, limit)
        with isl_budget(ctx.isl_ctx, limit, "schedule verification"):
            # A parallel loop may carry false dependences of local storage (each thread has its
            # own copy of it), but no local value may leave it.
            ivdep = unit.dependences.vector_independent if scop.annotations else None
            problems += (parallel_violations(schedule, split.enforced, ivdep)
                         + privatization_violations(schedule, split.live_ranges))
    except BudgetExceeded as exc:
        problems = [f"{exc}, so it could not be verified"]
    return problems
