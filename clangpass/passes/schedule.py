# SPDX-License-Identifier: MIT
"""Pass `schedule`: a new schedule from isl's scheduler (Pluto-style, with coincidence).

Input: Scop + dependences. Output: Scop whose `schedule` maximises outer
parallelism and locality while respecting every dependence: validity,
proximity and coincidence constraints are all the dependences, as in PPCG
(Verdoolaege et al., "Polyhedral parallel code generation for CUDA", TACO 2013,
section 5.1; Bondhugula et al., Pluto, PLDI 2008). The resulting bands carry
`permutable` and `coincident` flags that `tile` and `mark-parallel` read.
When `relax-false-deps` ran, the false dependences of local storage become
conditional validity constraints on their live ranges and leave the coincidence
constraints (thesis ch. 2; clangpass.poly.live_ranges).
Knobs: fusion ('max': isl's clustering fuses what it can; 'min':
schedule_serialize_sccs, one strongly connected component at a time),
max_coefficient, outer_coincidence, isl_max_operations (when exceeded the region
keeps its original schedule and a note says so; so it does when isl's scheduler
gives up on a problem).
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason, nest_depth, proximity_affordable
from clangpass.poly.dependences import dependences


@register
class IslSchedule(Pass):
    """Reschedule with isl_schedule_constraints_compute_schedule."""

    name = "schedule"
    requires = frozenset({"scop", "dependences"})
    provides = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        options = ctx.options
        domain = scop.domain                                   # [P] -> { S[i..] }
        deps = dependences(scop, options.isl_max_operations).all   # [P] -> { S[i..] -> T[j..] }
        constraints = isl.ScheduleConstraints.on_domain(domain).set_context(scop.context)
        if unit.relaxed is None:
            constraints = constraints.set_validity(deps).set_proximity(deps).set_coincidence(deps)
        else:
            # Ordering: relax-false-deps ran before. False dependences of local storage hold only
            # where the live ranges they guard would cross the band (conditional validity); they
            # do not limit parallelism, since each thread gets its own copy of local storage.
            # Proximity is the enforced dependences too: relaxed false dependences as proximity
            # constraints made isl's scheduler crash (random program seed 20135).
            relaxed = unit.relaxed
            constraints = (constraints.set_validity(relaxed.enforced)
                           .set_proximity(relaxed.enforced)
                           .set_conditional_validity(relaxed.live_ranges, relaxed.relaxed)
                           .set_coincidence(relaxed.enforced))
        if not proximity_affordable(domain):
            # Locality is worth little next to isl's time on deep nests (clangpass.poly.budget).
            constraints = constraints.set_proximity(isl.UnionMap.empty(deps.get_space()))
            scop = scop.with_note(f"{nest_depth(domain)}-deep nest: scheduled without proximity constraints")
        ic = ctx.isl_ctx
        saved = (ic.get_schedule_serialize_sccs(), ic.get_schedule_max_coefficient(),
                 ic.get_schedule_outer_coincidence())
        ic.set_schedule_serialize_sccs(options.fusion == "min")
        ic.set_schedule_max_coefficient(options.max_coefficient)
        ic.set_schedule_outer_coincidence(options.outer_coincidence)
        try:
            with isl_budget(ic, options.isl_max_operations, "scheduling"):
                schedule = constraints.compute_schedule()
        except BudgetExceeded as exc:
            return replace(unit, scop=scop.with_note(f"{exc}: original schedule kept"))
        except isl.Error as exc:
            # isl's scheduler sometimes gives up ("unable to carry dependences", seen on strided
            # loops); the source order is always a valid schedule.
            return replace(unit, scop=scop.with_note(f"isl scheduler failed ({isl_error_reason(exc)}): "
                                                     f"original schedule kept"))
        finally:
            ic.set_schedule_serialize_sccs(saved[0])
            ic.set_schedule_max_coefficient(saved[1])
            ic.set_schedule_outer_coincidence(saved[2])
        return replace(unit, scop=scop.with_schedule(schedule))

