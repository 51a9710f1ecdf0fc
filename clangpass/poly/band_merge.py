# SPDX-License-Identifier: MIT
"""Nested bands joined again: a band whose only child is a band becomes one band where the
relaxed criterion of thesis ch. 2 allows it.

Input: a computed schedule tree, the dependences isl had to respect
`[P] -> { S[i..] -> T[j..] }` (every flow dependence and the false ones of storage that is not
relaxed: `RelaxedDependences.enforced`) and the live ranges of the relaxed local storage
(`RelaxedDependences.live_ranges`). Output: the same tree where each band whose only child is a
band is one permutable band of both bands' members, coincidence flags kept, when

1. every enforced dependence between the band's instances with equal dates above it has a
   non-negative distance along every member of both bands (Pluto's tiling condition), and
2. every live range with an end among the band's instances and equal dates above it has both ends
   there and a zero distance along every member: each value lives within one iteration of the
   joined band, so no order of its iterations interleaves two live ranges of one location (the
   thesis's live-range non-interference, section 2.4), whatever the relaxed false dependences
   between them.

Why: isl's scheduler reads a conditional validity constraint that a band member would violate as
a reason to end the band (it cannot tell a live range it may cross from one it may not), so
three-address code gets a band per loop where the original form gets one band: 3AC doitgen's
`for p { for s { t1 = A[r][q][s] * C4[s][p]; t2 = sum[p] + t1; sum[p] = t2; } }` got `p` and `s`
as two bands of one member, which `tile` and `point-loop-order` cannot interchange, where the
original's `sum[p] += A[r][q][s] * C4[s][p]` got one band `(p, s)`, reordered to a vectorised
innermost `p`. The joined band is what the scheduler would have built without the temporaries'
false dependences, and the conditions above are those under which they cannot matter.

Work: per pair of nested bands, one distance set of the enforced dependences and one of the live
ranges (the caller's isl budget applies).
"""
from __future__ import annotations

import islpy as isl

from clangpass.poly.live_ranges import RelaxedDependences
from clangpass.poly.scop import Scop, accesses_through

# Per relaxed array: its live ranges and its false dependences, [P] -> { S[i..] -> T[j..] } each.
Storage = list[tuple[isl.UnionMap, isl.UnionMap]]


def relaxed_storage(scop: Scop, relaxed: RelaxedDependences) -> Storage:
    """`relaxed`'s live ranges and false dependences, array by array: those between instances that
    write and read, or access and write, one element of the array (a pair of instances that does
    so for two arrays counts for both, which only makes `_joinable` stricter)."""
    out: Storage = []
    for name in relaxed.arrays:
        one = frozenset({name})
        writes = accesses_through(scop.writes, one)                    # [P] -> { S[i..] -> a[e..] }
        reads = accesses_through(scop.reads, one)
        out.append((relaxed.live_ranges.intersect(writes.apply_range(reads.reverse())),
                    relaxed.relaxed.intersect(writes.union(reads).apply_range(writes.reverse()))))
    return out


def joined_nested_bands(schedule: isl.Schedule, enforced: isl.UnionMap, storage: Storage) -> isl.Schedule:
    """`schedule` with each band whose only child is a band joined to it where allowed (module doc)."""
    node = schedule.get_root()
    while True:
        if node.get_type() == isl.schedule_node_type.band and node.n_children() == 1 \
                and node.child(0).get_type() == isl.schedule_node_type.band and _joinable(node, enforced, storage):
            node = _join(node)
            continue
        if node.has_children():
            node = node.first_child()
            continue
        while not node.has_next_sibling():
            if not node.has_parent():
                return node.get_schedule()
            node = node.parent()
        node = node.next_sibling()


def _joinable(band: isl.ScheduleNode, enforced: isl.UnionMap, storage: Storage) -> bool:
    if not band.band_get_permutable() or not band.child(0).band_get_permutable():
        return False
    instances = band.get_domain()                                   # [P] -> { S[i..] } under the band
    prefix = band.get_prefix_schedule_union_map()                   # [P] -> { S[i..] -> [outer dates] }
    same_outer = prefix.apply_range(prefix.reverse())               # [P] -> { S[i..] -> T[j..] }
    dates = isl.UnionMap.from_multi_union_pw_aff(_members(band))    # [P] -> { S[i..] -> [t..] }
    if _some_distance(_within(enforced, instances, same_outer), dates, negative_only=True):
        return False
    for live, false in storage:
        live = live.intersect(same_outer)
        touching = live.intersect_domain(instances).union(live.intersect_range(instances))
        inside = touching.intersect_domain(instances).intersect_range(instances)
        if touching.is_subset(inside) and not _some_distance(inside, dates, negative_only=False):
            continue          # every value lives within one iteration: its false dependences are free
        if _some_distance(_within(false, instances, same_outer), dates, negative_only=True):
            return False
    return True


def _within(pairs: isl.UnionMap, instances: isl.UnionSet, same_outer: isl.UnionMap) -> isl.UnionMap:
    return pairs.intersect_domain(instances).intersect_range(instances).intersect(same_outer)


def _members(band: isl.ScheduleNode) -> isl.MultiUnionPwAff:
    """Both bands' partial schedules as one: [P] -> [{ S[i..] -> [(t0)] }, ...]."""
    return band.band_get_partial_schedule().flat_range_product(band.child(0).band_get_partial_schedule())


def _some_distance(pairs: isl.UnionMap, dates: isl.UnionMap, negative_only: bool) -> bool:
    """Whether a pair of `pairs` has a negative (`negative_only`) or a non-zero distance along some
    member of `dates`."""
    if pairs.is_empty():
        return False
    distances: list[isl.Set] = []
    pairs.apply_domain(dates).apply_range(dates).deltas().foreach_set(distances.append)   # [P] -> { [d..] }
    for d in distances:
        for k in range(d.dim(isl.dim_type.set)):
            below = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(d.get_space()))
            below = below.set_coefficient_val(isl.dim_type.set, k, -1).set_constant_val(-1)   # d_k <= -1
            if not d.add_constraint(below).is_empty():
                return True
            if not negative_only:
                above = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(d.get_space()))
                above = above.set_coefficient_val(isl.dim_type.set, k, 1).set_constant_val(-1)  # d_k >= 1
                if not d.add_constraint(above).is_empty():
                    return True
    return False


def _join(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """The band and its child band replaced by one permutable band of their members."""
    flags = [band.band_member_get_coincident(k) for k in range(band.band_n_member())]
    inner = band.child(0)
    flags += [inner.band_member_get_coincident(k) for k in range(inner.band_n_member())]
    members = _members(band)
    node = band.delete().delete().insert_partial_schedule(members).band_set_permutable(1)
    for k, flag in enumerate(flags):
        node = node.band_member_set_coincident(k, flag)
    return node
