# SPDX-License-Identifier: MIT
"""Pass `verify-schedule`: check the final schedule against every dependence.

Input: Scop with a (possibly rescheduled, tiled, parallel-marked) schedule.
Output: the same Scop when every dependence is ordered source-before-sink and no
`parallel` loop carries one (clangpass.poly.validity) — or, after relax-false-deps,
when the relaxed criterion holds (clangpass.poly.live_ranges); otherwise the original
schedule, with a note naming the violation. The scheduler is trusted to be
correct; this pass makes a bug in it, or in a later transformation, cost
performance instead of wrong results.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.dependences import dependences
from clangpass.poly.live_ranges import interference_violations, local_live_ranges, privatization_violations
from clangpass.poly.validity import dependence_violations, parallel_violations


@register
class VerifySchedule(Pass):
    """Fall back to the original schedule if the current one breaks a dependence."""

    name = "verify-schedule"
    requires = frozenset({"scop", "dependences"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        live = local_live_ranges(scop, ctx.options.isl_max_operations)     # [P] -> { W[..] -> R[..] }
        if unit.relaxed is None:
            deps = dependences(scop, ctx.options.isl_max_operations).all   # [P] -> { S[i..] -> T[j..] }
            problems = (dependence_violations(scop.schedule, deps) + parallel_violations(scop.schedule, deps)
                        + privatization_violations(scop.schedule, live))
        else:
            # The relaxed criterion (thesis section 2.4): enforced dependences hold, no live range
            # of local storage is interrupted, and none leaves a parallel loop (threads' copies).
            enforced = unit.relaxed.enforced                                 # [P] -> { S[i..] -> T[j..] }
            problems = (dependence_violations(scop.schedule, enforced)
                        + interference_violations(scop.schedule, scop, unit.relaxed)
                        + parallel_violations(scop.schedule, enforced)
                        + privatization_violations(scop.schedule, live))
        if not problems:
            return unit
        original = scop.original_compute_schedule()
        note = f"invalid schedule replaced by the original one: {problems[0]}"
        return replace(unit, scop=scop.with_schedule(original, tiled_bands=0, tile_sizes=()).with_note(note))
