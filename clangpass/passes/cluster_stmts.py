# SPDX-License-Identifier: MIT
"""Pass `cluster-stmts`: offline statement clustering before scheduling (thesis ch. 3).

Input: Scop + dependences. Output: the unit's `clustering` (clangpass.poly.clustering):
macro-statements that `schedule` schedules instead of the statements (Algorithm 1),
each statement's schedule then recovered from its macro-statement's. The decision of
what to cluster comes from one of the thesis's heuristics (section 3.6) or from the
user, and is judged by `decision_problems` (section 3.6.1):
- `scc` (-fpencil-cluster=scc): the statements of one basic block that form a strongly
  connected component of the dependence graph of their loop body at every loop depth
  (dependences within one iteration of the outer loops), and a dense one: at each
  depth the component stays strongly connected through dependences of distance 0 or
  1 along that loop, so that every later instance of a member is reached (section
  3.6.2). Only a component that lies within one basic block is clustered;
- `bb` (-fpencil-cluster=bb): all the statements of each basic block (section 3.6.3);
  also what a region of more than CLUSTER_ABOVE_STATEMENTS statements gets under
  `none` (CLUSTER_ABOVE_RELAXED_STATEMENTS when `relax-false-deps` relaxed some false
  dependences; clangpass.poly.budget), what a region gets under `scc` when SCC clustering
  leaves more statements than that to schedule (the limit is on what the scheduler sees),
  and what `schedule` tries when scheduling exceeds the budget;
- a user's decision (-fpencil-cluster-decision=FILE, JSON: a list of clusters for every
  region, or an object from region labels to such lists; statement names as in the
  `scop` dump). An invalid one is not applied: the region is scheduled unclustered and
  the record and an error diagnostic say why.
The heuristics' decisions are valid by construction; they are checked all the same
(an assertion). Knobs: `cluster`, `cluster_decision`; the work is bounded by
`isl_max_operations` (over it: no clustering, and a note).
The record gets `scheduled_statements`, the dependence relations before and after,
and the pass's time (`clustering_time`; `scheduling_time` is the `schedule` pass's).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import CLUSTER_ABOVE_RELAXED_STATEMENTS, CLUSTER_ABOVE_STATEMENTS, BudgetExceeded, isl_budget
from clangpass.poly.clustering import (Clustering, SourceStructure, apply_decision, decision_problems, dependence_pairs,
                                       pairs_within, relation_count, same_iteration, shared_loops, source_structure,
                                       strongly_connected)
from clangpass.poly.dependences import Dependences
from clangpass.poly.scop import Scop


@register
class ClusterStatements(Pass):
    """Group statements into macro-statements for the scheduler (-fpencil-cluster, -fpencil-cluster-decision)."""

    name = "cluster-stmts"
    requires = frozenset({"scop", "dependences"})
    provides = frozenset({"clustering"})
    dump_stage = "deps"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        options = ctx.options
        user = user_decision(options.cluster_decision, unit.region.label)
        scop = unit.scop
        heuristic = options.cluster
        relaxed = unit.relaxed is not None and unit.relaxed.active
        limit = CLUSTER_ABOVE_RELAXED_STATEMENTS if relaxed else CLUSTER_ABOVE_STATEMENTS
        more_than = f"more than {limit}{' with relaxed false dependences' if relaxed else ''}"
        if heuristic == "none" and user is None:
            statements = len(scop.compute_statements)
            if statements <= limit:
                return unit
            heuristic = "bb"
            unit = unit.with_note(f"{statements} statements: clustered by basic blocks ({more_than})")
        try:
            clustering = cluster(scop, unit.dependences, heuristic, user, options.isl_max_operations)
            if user is None and heuristic == "scc" and clustering.scheduled_statements > limit:
                # The limit is on what isl's scheduler sees: SCC clustering that leaves more
                # statements than an unclustered region may have is coarsened to basic blocks.
                unit = unit.with_note(f"scc clustering left {clustering.scheduled_statements} statements to "
                                      f"schedule: clustered by basic blocks ({more_than})")
                clustering = cluster(scop, unit.dependences, "bb", None, options.isl_max_operations)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: statements scheduled unclustered")
        if clustering.problems:
            unit = unit.with_note("clustering decision not applied: " + "; ".join(clustering.problems))
        return replace(unit, clustering=clustering)


def cluster(scop: Scop, d: Dependences, heuristic: str, user: Optional[list[list[str]]],
            max_operations: int = 0) -> Clustering:
    """`scop`'s clustering, given its dependences `d`: the user's decision when given (unclustered,
    with the problems, if invalid), else the heuristic's."""
    deps = d.flow.union(d.anti).union(d.output)               # [P] -> { S[i..] -> T[j..] }
    ctx = scop.context.get_ctx()
    with isl_budget(ctx, max_operations, "statement clustering"):
        structure = source_structure(scop)
    pairs = dependence_pairs(deps)
    # Each step under its own budget: the decision's and the check's isl work is one emptiness
    # test per statement pair of a loop body, the renaming one map per statement.
    with isl_budget(ctx, max_operations, "statement clustering"):
        if user is not None:
            problems = decision_problems(scop, deps, user, structure)
            decision, heuristic = ([], "user") if problems else (user, "user")
        else:
            decision = scc_decision(structure, pairs) if heuristic == "scc" else bb_decision(structure)
    if user is None:
        with isl_budget(ctx, max_operations, "statement clustering"):
            problems = decision_problems(scop, deps, decision, structure)
        assert not problems, f"the {heuristic} heuristic made an invalid decision: {problems}"
    with isl_budget(ctx, max_operations, "statement clustering"):
        clustering = apply_decision(scop, decision, heuristic, structure)
    with isl_budget(ctx, max_operations, "statement clustering"):
        # Only counted: the macro-statements' dependences are `schedule`'s to build (with local
        # storage, its relaxed parts rather than these).
        after = clustering.macro_relation_count(deps)
    return replace(clustering, problems=tuple(problems), dependences_before=relation_count(deps),
                   dependences_after=after)


def bb_decision(structure: SourceStructure) -> list[list[str]]:
    """Basic-block clustering (thesis section 3.6.3): every basic block is one cluster."""
    return [list(block) for block in structure.blocks if len(block) > 1]


def scc_decision(structure: SourceStructure, pairs: dict[tuple[str, str], isl.Map]) -> list[list[str]]:
    """SCC clustering (thesis section 3.6.2): the dense strongly connected components of each loop
    body's dependence graph that lie within one basic block."""
    decision: list[list[str]] = []
    for block in structure.blocks:
        depth = len(structure.loops[block[0]])
        if len(block) < 2 or depth == 0:
            continue
        body = [n for n in structure.order if shared_loops(structure, n, block[0]) >= depth]
        successors: dict[str, set[str]] = {}
        for (source, sink), dep in pairs_within(pairs, body):
            # Within one iteration of the loops outside the innermost one: the graph at that depth.
            if source != sink and same_iteration(dep, depth - 1):
                successors.setdefault(source, set()).add(sink)
        members = set(block)
        for component in strongly_connected(body, successors):
            if len(component) > 1 and set(component) <= members and _dense(component, pairs, depth):
                decision.append(component)
    return decision


def _dense(component: list[str], pairs: dict[tuple[str, str], isl.Map], depth: int) -> bool:
    """Whether `component` stays strongly connected, at each loop depth, through dependences that
    reach the same or the next iteration of that loop (the outer loops' iterations fixed)."""
    deepest = {(source, sink): _deepest_reach(pairs[(source, sink)], depth)
               for source in component for sink in component if source != sink and (source, sink) in pairs}
    for k in range(depth):
        successors: dict[str, set[str]] = {}
        for (source, sink), reach in deepest.items():
            if reach >= k:
                successors.setdefault(source, set()).add(sink)
        if len(strongly_connected(component, successors)) != 1:
            return False
    return True


def _deepest_reach(dep: isl.Map, depth: int) -> int:
    """The deepest loop k < `depth` at which `_reaches_next(dep, k)`, or -1. The test is monotone in
    k (a pair equal in the first k dimensions at distance 0 or 1 along dimension k is equal in the
    first k - 1 at distance 0 along k - 1), so it runs from the innermost loop outwards and stops at
    the first success: one emptiness test for the usual dependence within one iteration."""
    for k in reversed(range(depth)):
        if _reaches_next(dep, k):
            return k
    return -1


def _reaches_next(dep: isl.Map, k: int) -> bool:
    """Whether `dep` ([P] -> { S[i..] -> T[j..] }) has pairs with equal first `k` dimensions and a
    distance of 0 or 1 along dimension `k`."""
    for m in range(k):
        dep = dep.equate(isl.dim_type.in_, m, isl.dim_type.out, m)
    near = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(dep.get_space()))   # i_k - j_k + 1 >= 0
    near = (near.set_coefficient_val(isl.dim_type.in_, k, isl.Val.one(dep.get_ctx()))
            .set_coefficient_val(isl.dim_type.out, k, isl.Val.negone(dep.get_ctx()))
            .set_constant_val(isl.Val.one(dep.get_ctx())))
    return not dep.add_constraint(near).is_empty()


def coarser(clustering: Optional[Clustering]) -> Optional[str]:
    """The heuristic to try when scheduling under `clustering` (None: unclustered) exceeds the
    budget: basic blocks, unless they are what was scheduled or the decision was the user's."""
    if clustering is None or clustering.heuristic in ("", "scc"):
        return "bb"
    return None


def user_decision(decisions: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...],
                  label: str) -> Optional[list[list[str]]]:
    """The user's clusters for region `label` (`decisions`: (label, clusters) pairs, '*': every
    region), or None."""
    for where, clusters in decisions:
        if where == label:
            return [list(c) for c in clusters]
    for where, clusters in decisions:
        if where == "*":
            return [list(c) for c in clusters]
    return None
