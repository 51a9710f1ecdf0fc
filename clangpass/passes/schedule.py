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
choice and its reason are the pass's record (`ScheduleRecord`: the optimisation
record's `fusion`, `fusion_reason`). With relaxed false dependences, a candidate that
interrupts a live range of local storage (isl's conditional validity does not
always prevent it under maximal fusion) is dropped before the choice, as long as
the other is valid: `verify-schedule` would otherwise put the source order back.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.passes.cluster_stmts import cluster, coarser
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.band_merge import joined_nested_bands, relaxed_storage
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason, nest_depth, proximity_affordable
from clangpass.poly.clustering import Clustering
from clangpass.poly.dependences import Dependences, relaxed_order
from clangpass.poly.fusion import FusionChoice, choose_fusion, dependence_components
from clangpass.poly.live_ranges import RelaxedDependences, relaxed_criterion_violations
from clangpass.poly.member_order import order_parallel_members
from clangpass.poly.scop import Scop, instances_of, statement_names
from clangpass.poly.sequence_order import source_ordered_sequences
from clangpass.poly.validity import maps_of, tree_problem, union_of

#: -fpencil-fusion= values and the isl schedule_serialize_sccs setting of each computed candidate.
SERIALIZE_SCCS = {"max": False, "min": True}


# The share of the isl budget maximal fusion gets when each component is scheduled whole.
WHOLE_COMPONENT_SHARE = 4


@dataclass(frozen=True)
class ScheduleRecord(PassRecord):
    """The fusion the schedule kept ('max', 'min'; '' if none) and why (the fusion model's costs,
    the user's option, or the budget)."""

    fusion: str = ""
    fusion_reason: str = ""
    #: Bands whose parallel members were put in the order of their accesses (clangpass.poly.member_order).
    ordered_bands: int = 0


@register
class IslSchedule(Pass):
    """Reschedule with isl_schedule_constraints_compute_schedule."""

    name = "schedule"
    rewrites_schedule = True
    requires = frozenset({"scop", "dependences"})
    provides = frozenset({"schedule"})
    record = ScheduleRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        options = ctx.options
        clustering = unit.clustering if unit.clustering is not None and unit.clustering.clusters else None
        limit = options.isl_max_operations
        deps = unit.dependences
        candidates, failures, notes = _schedule_candidates(unit, clustering, ctx,
                                                           scheduling_problem(scop, deps, unit.relaxed, clustering, limit))
        unit = replace(unit, notes=unit.notes + notes)
        heuristic = coarser(unit.clustering)
        if _over_budget(candidates, failures) and heuristic is not None:
            # Ordering: cluster-stmts ran before; over the budget, the next coarser heuristic's
            # macro-statements are tried (thesis ch. 3), then each loop nest alone.
            try:
                coarse = cluster(scop, deps, heuristic, None, options.isl_max_operations)
            except BudgetExceeded as exc:
                failures.append(str(exc))
            else:
                unit = unit.with_note(f"{failures[0]}: rescheduled with {heuristic} clustering "
                                      f"({coarse.scheduled_statements} statements scheduled)")
                clustering, unit = coarse, replace(unit, clustering=coarse)
                candidates, failures, notes = _schedule_candidates(unit, clustering, ctx, scheduling_problem(
                    scop, deps, unit.relaxed, clustering, limit))
                unit = replace(unit, notes=unit.notes + notes)
        if _over_budget(candidates, failures):
            schedule, why = _per_nest_schedule(unit, clustering, ctx)
            if schedule is not None:
                schedule, ordered = _parallel_members_ordered(schedule, scop, options.isl_max_operations)
                return replace(unit, scop=scop.with_schedule(schedule)).with_record(ScheduleRecord("max", (
                    f"{failures[0]}: each top-level loop nest scheduled alone, in source order"), ordered))
            failures.append(why)
        if not candidates:
            return unit.with_note(f"{failures[0]}: original schedule kept")
        if options.fusion != "auto":
            choice = FusionChoice(options.fusion, f"-fpencil-fusion={options.fusion}")
        elif len(candidates) == 1 and not failures:
            choice = FusionChoice(next(iter(candidates)), "one strongly connected component: max and min coincide")
        elif len(candidates) == 1:
            kept = next(iter(candidates))
            choice = FusionChoice(kept, f"the only valid schedule computed ({'; '.join(failures)})")
        else:
            # Ordering: the model reads the candidates' bands as `tile` and `point-loop-order`
            # will see them (permutable bands of two or more members are tiled and reordered).
            try:
                with isl_budget(ctx.isl_ctx, options.isl_max_operations, "fusion model"):
                    choice = choose_fusion(scop, candidates)
            except BudgetExceeded as exc:
                choice = FusionChoice(next(iter(candidates)), f"{exc}: default kept")
        # Ordering: after the fusion choice, which reads each band's innermost member, and that
        # stays where it was unless the whole band is parallel.
        schedule, ordered = _parallel_members_ordered(candidates[choice.strategy], scop, options.isl_max_operations)
        return replace(unit, scop=scop.with_schedule(schedule)).with_record(
            ScheduleRecord(choice.strategy, choice.reason, ordered))


Problem = tuple[isl.UnionSet, isl.UnionSet, isl.UnionMap, Optional[RelaxedDependences], isl.UnionMap]


def scheduling_problem(scop: Scop, dependences: Dependences, relaxed: Optional[RelaxedDependences],
                       clustering: Optional[Clustering], max_operations: int) -> Problem:
    """The statements ([P] -> { S[i..] }) and what isl schedules: the domain (the statements, or the
    macro-statements' [P] -> { M[i..] }), the dependences it enforces (all of `dependences`; with `relaxed`,
    relax-false-deps' enforced part) and the relaxed ones, mapped onto the macro-statements under
    `clustering` (its `macro_relaxed`, which leaves out what one macro-statement instance keeps), and
    the validity constraints: the enforced dependences, less the update pairs of exact reductions
    (`Dependences.ordering`; without clustering only) that stay coincidence constraints."""
    statements = scop.domain                                   # [P] -> { S[i..] }
    domain = statements if clustering is None else clustering.domain
    if relaxed is not None:
        if clustering is not None:
            relaxed = clustering.macro_relaxed(relaxed, scop, max_operations)
            return statements, domain, relaxed.enforced, relaxed, relaxed.enforced
        return statements, domain, relaxed.enforced, relaxed, relaxed_order(relaxed.enforced, dependences)
    deps = dependences.all                                     # [P] -> { S[i..] -> T[j..] }
    if clustering is not None:
        deps = clustering.macro(deps, max_operations)          # [P] -> { M[i..] -> N[j..] }
        return statements, domain, deps, None, deps
    return statements, domain, deps, None, dependences.ordering


def schedule_constraints(problem: Problem, context: isl.Set) -> isl.ScheduleConstraints:
    """isl's constraints for `problem` (`scheduling_problem`) under `context` ([P] -> { : .. }): every
    dependence it enforces a proximity and coincidence constraint, and a validity constraint unless
    it only orders two updates of an exact reduction; relaxed false dependences conditional validity
    constraints on the live ranges they guard."""
    _, domain, deps, relaxed, validity = problem
    constraints = (isl.ScheduleConstraints.on_domain(domain).set_context(context)
                   .set_validity(validity).set_proximity(deps).set_coincidence(deps))
    if relaxed is None:
        return constraints
    # Ordering: relax-false-deps ran before. False dependences of local storage hold only where
    # the live ranges they guard would cross the band (conditional validity); they do not limit
    # parallelism, since each thread gets its own copy of local storage. Proximity is the
    # enforced dependences only: relaxed false dependences as proximity constraints made isl's
    # scheduler crash (random program seed 20135).
    return constraints.set_conditional_validity(relaxed.live_ranges, relaxed.relaxed)


def _over_budget(candidates: dict[str, isl.Schedule], failures: list[str]) -> bool:
    return not candidates and bool(failures) and all("isl operations" in f for f in failures)


def _per_nest_schedule(unit: PolyUnit, clustering: Optional[Clustering],
                       ctx: PassContext) -> tuple[Optional[isl.Schedule], str]:
    """Each top-level loop nest of the source scheduled alone, the nests kept in source order (every
    dependence between two nests goes forward in it): the cheapest strategy before the original
    schedule. None and why when the region is one nest or a nest is still over the budget."""
    scop = unit.scop
    top = scop.original_compute_schedule().get_root().child(0)
    if top.get_type() != isl.schedule_node_type.sequence:
        return None, "one loop nest: no per-nest scheduling"
    domain = scop.domain if clustering is None else clustering.domain            # [P] -> { S[i..] } or { M[i..] }
    deps = unit.dependences.all                                                  # [P] -> { S[i..] -> T[j..] }
    if clustering is not None:
        deps = clustering.macro(deps, ctx.options.isl_max_operations)            # [P] -> { M[i..] -> N[j..] }
    macro_of = {name: macro for cluster, macro in zip(clustering.clusters, clustering.names)
                for name in cluster} if clustering is not None else {}
    nests = [top.child(k).child(0).get_domain() for k in range(top.n_children())]   # [P] -> { S[i..] } each
    nest_of = {macro_of.get(name, name): k for k, nest in enumerate(nests) for name in statement_names(nest)}

    def split(umap: isl.UnionMap) -> list[isl.UnionMap]:
        """`umap`'s maps within one nest, nest by nest (those between nests hold in source order)."""
        buckets: list[list[isl.Map]] = [[] for _ in nests]
        for m in maps_of(umap):
            k = nest_of.get(m.get_tuple_name(isl.dim_type.in_))
            if k is not None and k == nest_of.get(m.get_tuple_name(isl.dim_type.out)):
                buckets[k].append(m)
        return [union_of(b, umap.get_space()) for b in buckets]

    # Every dependence is enforced, false ones of local storage included: a live range from one
    # nest to a later one is no constraint of either nest's problem, so relaxing the false
    # dependences that guard it within a nest could interrupt it.
    deps_of = split(deps)
    schedule: Optional[isl.Schedule] = None
    for k, nest in enumerate(nests):
        mine = frozenset(name for name, at in nest_of.items() if at == k)
        problem = (nest, instances_of(domain, mine), deps_of[k], None, deps_of[k])
        candidates, failures, _ = _schedule_candidates(unit, clustering, ctx, problem, first_only=True)
        if not candidates:
            return None, f"loop nest {k + 1}: {failures[0]}"
        part = next(iter(candidates.values()))
        schedule = part if schedule is None else schedule.sequence(part)
    return schedule, ""


def _schedule_candidates(unit: PolyUnit, clustering: Optional[Clustering], ctx: PassContext, problem: Problem,
                         first_only: bool = False) -> tuple[dict[str, isl.Schedule], list[str], tuple[str, ...]]:
    """The schedules of `problem`'s statements computed by isl for each fusion strategy tried (with
    `first_only`, the first), the failures, and notes for the record. With `clustering`, isl schedules
    its macro-statements (thesis Algorithm 1) and each statement's schedule is recovered from its
    macro-statement's."""
    options = ctx.options
    scop = unit.scop
    statements, domain, deps, relaxed, _ = problem
    constraints = schedule_constraints(problem, scop.context)
    notes: tuple[str, ...] = ()
    if not proximity_affordable(domain):
        # Locality is worth little next to isl's time on deep nests (clangpass.poly.budget).
        constraints = constraints.set_proximity(isl.UnionMap.empty(deps.get_space()))
        notes = (f"{nest_depth(domain)}-deep nest: scheduled without proximity constraints",)
    ic = ctx.isl_ctx
    saved = (ic.get_schedule_serialize_sccs(), ic.get_schedule_max_coefficient(),
             ic.get_schedule_outer_coincidence(), ic.get_schedule_whole_component())
    ic.set_schedule_max_coefficient(options.max_coefficient)
    ic.set_schedule_outer_coincidence(options.outer_coincidence)
    # With conditional validity constraints, isl's incremental clustering of a component
    # (schedule_whole_component = 0, its default) corrupted the heap or returned a tree with a
    # childless `set` node under maximal fusion (random program seed 4001050: a crash in 2 to 3
    # runs of 6); scheduling each component whole did not, in 8 runs of 8.
    ic.set_schedule_whole_component(relaxed is not None)
    strategies = list(SERIALIZE_SCCS) if options.fusion == "auto" else [options.fusion]
    if first_only:
        strategies = strategies[:1]
    if options.fusion == "auto" and len(dependence_components(sorted(statement_names(domain)), deps)) <= 1:
        # Minimal fusion would schedule the one component as maximal fusion does: save the run.
        strategies = strategies[:1]
    candidates: dict[str, isl.Schedule] = {}
    failures: list[str] = []
    try:
        for strategy in strategies:
            ic.set_schedule_serialize_sccs(SERIALIZE_SCCS[strategy])
            try:
                limit = options.isl_max_operations
                if relaxed is not None and not SERIALIZE_SCCS[strategy]:
                    # Whole-component maximal fusion can take long (seed 4002360: 8.6 s within
                    # the full budget, 0.7 s cut at a quarter, minimal fusion then kept).
                    limit //= WHOLE_COMPONENT_SHARE
                with isl_budget(ic, limit, "scheduling"):
                    candidate = constraints.compute_schedule()  # [P] -> { S[i..] -> [t..] }
                malformed = tree_problem(candidate)
                if malformed:
                    failures.append(f"isl scheduler produced a malformed schedule ({malformed})")
                    continue
                if clustering is not None:
                    candidate = clustering.statement_schedule(candidate, statements)
                if unit.relaxed is not None and unit.relaxed.active:
                    candidate = _joined(candidate, scop, unit.relaxed, options.isl_max_operations)
                candidates[strategy] = _in_source_order(candidate, scop, unit.dependences, options.isl_max_operations)
            except BudgetExceeded as exc:
                failures.append(str(exc))
            except isl.Error as exc:
                # isl's scheduler sometimes gives up ("unable to carry dependences", seen on
                # strided loops); the other candidate, or the source order, is still valid.
                failures.append(f"isl scheduler failed ({isl_error_reason(exc)})")
        if unit.relaxed is not None and len(candidates) > 1 and not first_only:
            _drop_interrupting(candidates, scop, unit.relaxed, options.isl_max_operations, failures)
    finally:
        ic.set_schedule_serialize_sccs(saved[0])
        ic.set_schedule_max_coefficient(saved[1])
        ic.set_schedule_outer_coincidence(saved[2])
        ic.set_schedule_whole_component(saved[3])
    return candidates, failures, notes


def _joined(schedule: isl.Schedule, scop: Scop, relaxed: RelaxedDependences, max_operations: int) -> isl.Schedule:
    """`schedule` with the nested bands isl split over relaxed false dependences joined again
    (clangpass.poly.band_merge); as it is when that exceeds the budget."""
    try:
        with isl_budget(schedule.get_ctx(), max_operations, "joining nested bands"):
            return joined_nested_bands(schedule, relaxed.enforced, relaxed_storage(scop, relaxed))
    except BudgetExceeded:
        return schedule


def _parallel_members_ordered(schedule: isl.Schedule, scop: Scop, max_operations: int) -> tuple[isl.Schedule, int]:
    """`schedule` with the parallel members of its permutable bands in the order of their accesses,
    not of the source (clangpass.poly.member_order), and the number of bands changed; as it is when
    that exceeds the budget."""
    try:
        with isl_budget(scop.context.get_ctx(), max_operations, "parallel member order"):
            return order_parallel_members(schedule, scop.reads.union(scop.writes))
    except BudgetExceeded:
        return schedule, 0


def _in_source_order(schedule: isl.Schedule, scop: Scop, dependences: Dependences,
                     max_operations: int) -> isl.Schedule:
    """`schedule` with its sequences in source order where `dependences` allow
    (clangpass.poly.sequence_order); as it is when that exceeds the budget."""
    rank = {s.name: k for k, s in enumerate(scop.statements)}
    try:
        deps = dependences.ordering                               # [P] -> { S[i..] -> T[j..] }
        with isl_budget(scop.context.get_ctx(), max_operations, "source-ordered sequences"):
            return source_ordered_sequences(schedule, deps, rank)
    except BudgetExceeded:
        return schedule


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
