# SPDX-License-Identifier: MIT
"""The order of a permutable band's parallel members, from the accesses rather than the source.

Input: a schedule (isl's, from the `schedule` pass) and the region's accesses
`[P] -> { S[i..] -> A[a..] }`. Output: the schedule with, in every permutable band, the
leading run of coincident members sorted so that the member whose accesses jump most
in memory (`clangpass.poly.strides`: accesses that neither stay on one element nor step
to the next contiguous one) is outermost, the most contiguous one innermost; members
that cost the same keep isl's order, and so do the members after the first
non-coincident one.

Why: isl's scheduler takes the first solution its search meets, and among equally good
hyperplanes that is the one of the first loop in the source. The same gemm written
`i-k-j` and `j-k-i` then got tile bands `(i, j, k)` and `(j, i, k)`: the threads split C
by rows in one and by columns in the other, and the tile sizes, chosen per position,
fell on different loops. Ordered by the accesses both get `(i, j, k)`, the order Pluto's
and PPCG's cost models prefer too (the loop with spatial reuse inside, Bondhugula et al.,
PLDI 2008, section 5; Kennedy & McKinley, ICS 1992).

Legality: the members of a permutable band may be permuted freely (every dependence
has a non-negative distance along each of them once the outer bands are fixed; Wolf &
Lam, IEEE TPDS 1991), and a coincident member has distance zero along it for every
dependence the outer bands leave, whatever the order of the band's members, so each
member keeps its flag.
"""
from __future__ import annotations

import islpy as isl

from clangpass.poly.strides import member_costs, stride_table


def order_parallel_members(schedule: isl.Schedule, accesses: isl.UnionMap) -> tuple[isl.Schedule, int]:
    """`schedule` with the coincident prefix of its permutable bands ordered as the module says,
    and the number of bands that changed."""
    changed = 0

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        nonlocal changed
        if node.get_type() == isl.schedule_node_type.band and node.band_get_permutable():
            order = member_order(node, accesses)
            if order is not None:
                node = permute_band(node, order)
                changed += 1
        for k in range(node.n_children()):
            node = visit(node.child(k)).parent()
        return node

    result = visit(schedule.get_root()).get_schedule()
    return (result, changed) if changed else (schedule, 0)


def member_order(band: isl.ScheduleNode, accesses: isl.UnionMap) -> list[int] | None:
    """The new order of `band`'s members (old indices, outermost first), or None to keep it."""
    n = band.band_n_member()
    prefix = 0
    while prefix < n and band.band_member_get_coincident(prefix):
        prefix += 1
    if prefix < 2:
        return None
    jumps = [cost for cost, _ in member_costs(band, stride_table(band, accesses))]
    order = sorted(range(prefix), key=lambda m: -jumps[m]) + list(range(prefix, n))
    return None if order == list(range(n)) else order


def permute_band(band: isl.ScheduleNode, order: list[int], *, outward_keeps_coincidence: bool = True) -> isl.ScheduleNode:
    """`band` with its members in `order` (old member indices, outermost first), the new band node
    at the same position. A member keeps its coincident flag; with `outward_keeps_coincidence`
    False, only if it did not move outwards (point-loop-order: a member moved out past a
    non-coincident one may carry what that one carried)."""
    partial = band.band_get_partial_schedule()                 # [P] -> [{ S[i..] -> [(t_k)] }, ...]
    coincident = [band.band_member_get_coincident(m) for m in range(band.band_n_member())]
    affs = isl.UnionPwAffList.alloc(band.get_ctx(), len(order))
    for m in order:
        affs = affs.add(partial.get_union_pw_aff(m))
    node = band.delete().insert_partial_schedule(isl.MultiUnionPwAff.from_union_pw_aff_list(partial.get_space(), affs))
    node = node.band_set_permutable(1)
    for position, m in enumerate(order):
        node = node.band_member_set_coincident(position, coincident[m] and (outward_keeps_coincidence or position >= m))
    return node
