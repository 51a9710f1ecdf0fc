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
Knobs: fusion ('auto', the default: both schedules below are computed and the
fusion model of clangpass.poly.fusion keeps the one with fewer strided innermost
accesses, then more outer parallelism, then more tiling, then more reuse; 'max':
isl's clustering fuses what it can; 'min': schedule_serialize_sccs, one strongly
connected component at a time), max_coefficient, outer_coincidence,
isl_max_operations (when exceeded the region keeps its original schedule and a
note says so; so it does when isl's scheduler gives up on a problem). The
choice and its reason go to the Scop (`fusion`, `fusion_reason`) and from there
to the optimisation record. With relaxed false dependences, a candidate that
interrupts a live range of local storage (isl's conditional validity does not
always prevent it under maximal fusion) is dropped before the choice, as long as
the other is valid: `verify-schedule` would otherwise put the source order back.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason, nest_depth, proximity_affordable
from clangpass.poly.dependences import dependences
from clangpass.poly.fusion import FusionChoice, choose_fusion, dependence_components
from clangpass.poly.live_ranges import RelaxedDependences, relaxed_criterion_violations
from clangpass.poly.scop import Scop
from clangpass.poly.validity import tree_problem

#: -fpencil-fusion= values and the isl schedule_serialize_sccs setting of each computed candidate.
SERIALIZE_SCCS = {"max": False, "min": True}


# The share of the isl budget maximal fusion gets when each component is scheduled whole.
WHOLE_COMPONENT_SHARE = 4


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
                 ic.get_schedule_outer_coincidence(), ic.get_schedule_whole_component())
        ic.set_schedule_max_coefficient(options.max_coefficient)
        ic.set_schedule_outer_coincidence(options.outer_coincidence)
        # With conditional validity constraints, isl's incremental clustering of a component
        # (schedule_whole_component = 0, its default) corrupted the heap or returned a tree with a
        # childless `set` node under maximal fusion (random program seed 4001050: a crash in 2 to 3
        # runs of 6); scheduling each component whole did not, in 8 runs of 8.
        ic.set_schedule_whole_component(unit.relaxed is not None)
        strategies = list(SERIALIZE_SCCS) if options.fusion == "auto" else [options.fusion]
        validity = deps if unit.relaxed is None else unit.relaxed.enforced   # [P] -> { S[i..] -> T[j..] }
        single_component = len(dependence_components([s.name for s in scop.compute_statements], validity)) <= 1
        if options.fusion == "auto" and single_component:
            # Minimal fusion would schedule the one component as maximal fusion does: save the run.
            strategies = strategies[:1]
        candidates: dict[str, isl.Schedule] = {}
        failures: list[str] = []
        try:
            for strategy in strategies:
                ic.set_schedule_serialize_sccs(SERIALIZE_SCCS[strategy])
                try:
                    limit = options.isl_max_operations
                    if unit.relaxed is not None and not SERIALIZE_SCCS[strategy]:
                        # Whole-component maximal fusion can take long (seed 4002360: 8.6 s within
                        # the full budget, 0.7 s cut at a quarter, minimal fusion then kept).
                        limit //= WHOLE_COMPONENT_SHARE
                    with isl_budget(ic, limit, "scheduling"):
                        candidate = constraints.compute_schedule()  # [P] -> { S[i..] -> [t..] }
                    malformed = tree_problem(candidate)
                    if malformed:
                        failures.append(f"isl scheduler produced a malformed schedule ({malformed})")
                    else:
                        candidates[strategy] = candidate
                except BudgetExceeded as exc:
                    failures.append(str(exc))
                except isl.Error as exc:
                    # isl's scheduler sometimes gives up ("unable to carry dependences", seen on
                    # strided loops); the other candidate, or the source order, is still valid.
                    failures.append(f"isl scheduler failed ({isl_error_reason(exc)})")
            if unit.relaxed is not None and len(candidates) > 1:
                _drop_interrupting(candidates, scop, unit.relaxed, options.isl_max_operations, failures)
            if not candidates:
                return replace(unit, scop=scop.with_note(f"{failures[0]}: original schedule kept"))
            if options.fusion != "auto":
                choice = FusionChoice(options.fusion, f"-fpencil-fusion={options.fusion}")
            elif single_component:
                choice = FusionChoice(strategies[0], "one strongly connected component: max and min coincide")
            elif len(candidates) == 1:
                kept = next(iter(candidates))
                choice = FusionChoice(kept, f"the only valid schedule computed ({'; '.join(failures)})")
            else:
                # Ordering: the model reads the candidates' bands as `tile` and `point-loop-order`
                # will see them (permutable bands of two or more members are tiled and reordered).
                try:
                    with isl_budget(ic, options.isl_max_operations, "fusion model"):
                        choice = choose_fusion(scop, candidates)
                except BudgetExceeded as exc:
                    choice = FusionChoice(strategies[0], f"{exc}: default kept")
            schedule = candidates[choice.strategy]
        finally:
            ic.set_schedule_serialize_sccs(saved[0])
            ic.set_schedule_max_coefficient(saved[1])
            ic.set_schedule_outer_coincidence(saved[2])
            ic.set_schedule_whole_component(saved[3])
        return replace(unit, scop=scop.with_schedule(schedule, fusion=choice.strategy,
                                                     fusion_reason=choice.reason))



def _drop_interrupting(candidates: dict[str, isl.Schedule], scop: Scop, relaxed: RelaxedDependences,
                       max_operations: int, failures: list[str]) -> None:
    """Drop from `candidates` each schedule that interrupts a live range of local storage
    (the relaxed permutability criterion), as long as one is left: `verify-schedule` would
    put the source order back for it, losing what the other candidate gives. Seen with
    maximal fusion of inlined PENCIL calls (test_pencil_functions: the scalar parameter
    `a` of an inlined call, written between two loops, overwritten while still live)."""
    for strategy in list(candidates):
        if len(candidates) == 1:
            return
        try:
            problems = relaxed_criterion_violations(candidates[strategy], scop, relaxed, max_operations)
        except BudgetExceeded:
            continue                                  # unknown: left to verify-schedule
        if problems:
            del candidates[strategy]
            failures.append(f"{strategy} fusion: {problems[0]}")
