# SPDX-License-Identifier: MIT
"""Pass `point-loop-order`: choose the innermost loop of each innermost permutable band.

Input: Scop after `tile` (and `mark-parallel`): the point bands of tiled nests and
any other permutable band with no band below it. Output: each such band with its
members permuted so that the innermost loop is the one whose accesses move least
in memory (`clangpass.poly.strides`: fewest accesses that jump, i.e. neither stay
on the same element nor step to the next contiguous one), a coincident member
winning a tie, so that the vectoriser gets a parallel loop with unit-stride loads
and stores. The other members keep their relative order, so a reduction loop
moved out of the innermost position sits just outside it (gemm's point loops
`i, j, k` become `i, k, j`: `C[i][j] += A[i][k] * B[k][j]` runs along rows of C
and B with A[i][k] in a register).

Legality: every member of a permutable band has a non-negative dependence
distance once the outer bands are fixed, so any order of its members respects
every dependence (Wolf & Lam, "A loop transformation theory and an algorithm to
maximize parallelism", IEEE TPDS 1991, section 3; Bondhugula et al., Pluto, PLDI
2008, section 4: a tiling hyperplane band is fully permutable). A member keeps its
`coincident` flag when it moves inwards (fewer instances share its outer dates);
the members that move outwards lose it, a conservative answer `mark-vector` and
`verify-schedule` re-check against the dependences. The permutation is only made
when the new innermost member is strictly better than the current one. Bands
directly under a `parallel` mark are a single member and are left alone, and so
are bands with no coincident member (the point bands of wavefront-tiled stencils):
no order gives them a vector loop, and their skewed, tiled dates made the stride
computation the costliest pass on heat-3d (2.7 s).

Sinking below the statements' own loops: a permutable band of two or more members
whose child is a sequence (or set) of statements, each with at most one loop of its
own (a one-member band with nothing below), has no innermost band to permute, yet
its last member may be the better innermost loop of those statements: gramschmidt's
(k, j) wavefront tiles hold `R[k][j] += Q[i][k] * A[i][j]` and `A[i][j] -= Q[i][k] *
R[k][j]` in loops over `i` of their own, columns of A walked at a stride of a row.
The band's last member is then split off and sunk below the statements' loops
(isl's `band_sink`: a copy in every branch, `i` outside `j`), which distributes it
over the sequence. That is kept only when, statement loop by statement loop, the
sunk member jumps in memory no more often than the loop it goes under and strictly
less for at least one, and when the whole schedule still satisfies every check of
`verify-schedule` (`schedule_violations`: distributing a loop over a sequence is not
always legal, and the dependences decide; a schedule that orders every dependence
needs no more, which spares gramschmidt most of the check's 0.3 s).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes.mark_vector import is_innermost_band
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.member_order import permute_band
from clangpass.poly.strides import member_costs, preferred_innermost, stride_table
from clangpass.passes.verify_schedule import schedule_violations
from clangpass.poly.validity import breaks_dependences


@dataclass(frozen=True)
class PointLoopOrderRecord(PassRecord):
    """The bands whose members were permuted."""

    reordered_bands: int = 0


@register
class PointLoopOrder(Pass):
    """Put the loop with the most contiguous accesses innermost in innermost permutable bands."""

    name = "point-loop-order"
    rewrites_schedule = True
    requires = frozenset({"schedule"})
    record = PointLoopOrderRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        accesses = scop.reads.union(scop.writes)               # [P] -> { S[i..] -> A[a..] }
        permuted: list[list[int]] = []

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Reorder under `node`; returns the node now at `node`'s position."""
            sunk = sink_last_member(node, accesses, unit, ctx)
            if sunk is not None:
                permuted.append([node.band_n_member() - 1])
                return sunk
            if (node.get_type() == isl.schedule_node_type.band and node.band_n_member() >= 2
                    and node.band_get_permutable() and is_innermost_band(node)
                    and any(node.band_member_get_coincident(m) for m in range(node.band_n_member()))):
                order = innermost_first_order(node, accesses)
                if order is not None:
                    permuted.append(order)
                    return permute_band(node, order, outward_keeps_coincidence=False)
                return node
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "point-loop-order"):
                schedule = visit(scop.schedule.get_root()).get_schedule()
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: point loops keep their order")
        if not permuted:
            return unit
        done = unit.record(PointLoopOrderRecord).reordered_bands + len(permuted)
        return replace(unit, scop=scop.with_schedule(schedule)).with_record(PointLoopOrderRecord(done))


def innermost_first_order(band: isl.ScheduleNode, accesses: isl.UnionMap) -> list[int] | None:
    """The new order of `band`'s members (old member indices, outermost first), or None to keep it."""
    n = band.band_n_member()
    costs = member_costs(band, stride_table(band, accesses))
    best = preferred_innermost(costs)
    if best == n - 1 or not costs[best] < costs[n - 1]:
        return None
    return [m for m in range(n) if m != best] + [best]


def _statement_loops(band: isl.ScheduleNode) -> list[isl.ScheduleNode] | None:
    """The one-member bands of the statements under `band` (see the module docstring), or None
    when `band`'s child is no sequence or set of such statements or none has a loop."""
    if band.n_children() != 1:
        return None
    seq = band.child(0)
    if seq.get_type() not in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        return None
    loops = []
    for k in range(seq.n_children()):
        filt = seq.child(k)
        if filt.n_children() == 0 or filt.child(0).get_type() == isl.schedule_node_type.leaf:
            continue
        loop = filt.child(0)
        if (loop.get_type() != isl.schedule_node_type.band or loop.band_n_member() != 1
                or loop.child(0).get_type() != isl.schedule_node_type.leaf):
            return None
        loops.append(loop)
    return loops or None


def _jumps(band: isl.ScheduleNode, member: int, accesses: isl.UnionMap) -> int:
    return member_costs(band, stride_table(band, accesses))[member][0]


def sink_last_member(band: isl.ScheduleNode, accesses: isl.UnionMap, unit: PolyUnit,
                     ctx: PassContext) -> isl.ScheduleNode | None:
    """`band` with its last member sunk below the statements' own loops (module docstring), or
    None when the shape does not fit, nothing improves or the result is not valid."""
    if (band.get_type() != isl.schedule_node_type.band or band.band_n_member() < 2
            or not band.band_get_permutable()):
        return None
    loops = _statement_loops(band)
    if loops is None:
        return None
    n = band.band_n_member()
    split = band.band_split(n - 1)
    inner = split.child(0)                            # the last member, above the sequence
    counts = [(_jumps(inner, 0, accesses.intersect_domain(loop.get_domain())),
               _jumps(loop, 0, accesses.intersect_domain(loop.get_domain()))) for loop in loops]
    # sunk below a statement's loop, the member moves as it did at the sequence (its dates are
    # the same), and the statement's loop as it did under the member: compare the two counts
    if not all(member <= own for member, own in counts) or not any(member < own for member, own in counts):
        return None
    sunk = inner.band_sink()
    schedule = sunk.get_schedule()
    # every dependence ordered from source to sink is enough (the cheap, common case); else the
    # relaxed criterion and the rest of verify-schedule's checks decide
    deps = unit.dependences.all if unit.dependences is not None else None
    if deps is None or breaks_dependences(schedule, deps):
        if schedule_violations(unit, schedule, ctx):
            return None
    return sunk.parent()
