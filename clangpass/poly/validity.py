# SPDX-License-Identifier: MIT
"""Is a schedule legal? Dependence satisfaction and parallel-loop checks, done with isl.

Input: an isl schedule tree and the dependences `[P] -> { S[i..] -> T[j..] }`.
Output: the list of violations (empty: legal). A schedule is legal when every
dependence goes from an earlier to a later date, i.e. the difference of the
schedule at its ends is lexicographically positive (Feautrier, "Some efficient
solutions to the affine scheduling problem, part I", IJPP 1992, section 2); a loop
marked `parallel` is legal when no dependence between instances sharing the outer
dates has a non-zero distance along it (the coincidence condition of Verdoolaege &
Janssens, "Scheduling for PPCG", 2017, section 4).
"""
from __future__ import annotations

from typing import Optional

import islpy as isl

PARALLEL_MARK = "parallel"
# An innermost loop whose iterations are independent, handed to the vectoriser
# (clangpass.passes.mark_vector); held to the same condition as a parallel loop.
VECTOR_MARK = "vector"
# Under a `parallel` mark, above the next member of the same band when it is coincident too
# (OpenCL target only: the two loops become one two-dimensional kernel); transparent elsewhere.
COINCIDENT_MARK = "coincident"


def dependence_violations(schedule: isl.Schedule, deps: isl.UnionMap) -> list[str]:
    """The dependences (printed) that `schedule` does not order from source to sink."""
    if deps.is_empty():
        return []
    dates = schedule.get_map()                       # [P] -> { S[i..] -> [t..] }
    if all_ordered(deps, dates):
        return []
    broken = deps.subtract(earlier_pairs(deps, dates))   # [P] -> { S[i..] -> T[j..] : not ordered }
    if broken.is_empty():
        return []
    pieces: list[str] = []
    broken.foreach_map(lambda m: pieces.append(str(m)))
    return sorted(pieces)


def breaks_dependences(schedule: isl.Schedule, deps: isl.UnionMap) -> bool:
    """Whether `dependence_violations(schedule, deps)` is not empty, found pair by pair and without
    the broken pieces: the passes that only accept or reject a transformed schedule need no more
    (reduction-jam's rejected jams of ludcmp: 0.1 s of CPU for the pieces they never read)."""
    if deps.is_empty():
        return False
    by_statement = dates_by_statement(schedule.get_map())
    for pair in maps_of(deps):
        if pair.get_tuple_name(isl.dim_type.in_) not in by_statement \
                or pair.get_tuple_name(isl.dim_type.out) not in by_statement:
            if not pair.is_empty():
                return True     # a statement the schedule does not run: nothing orders it
        elif not pair_ordered(pair, by_statement):
            return True
    return False


# Up to this many statements, ordering every pair of them at once (`lex_lt_union_map`) is cheap;
# beyond, only the pairs asked for are ordered, one at a time (1,000 statements: 24 s for every
# pair, 1.2 s for the 12,600 that share an array, docs/passes/clustering.md).
ALL_PAIRS_MAX_STATEMENTS = 64


def earlier_pairs(pairs: isl.UnionMap, dates: isl.UnionMap) -> isl.UnionMap:
    """The pairs of `pairs` ([P] -> { S[i..] -> T[j..] }) whose source runs before their sink under
    `dates` ([P] -> { S[i..] -> [t..] })."""
    if pairs.is_empty():
        return pairs.intersect(dates.lex_lt_union_map(dates))
    by_statement = dates_by_statement(dates)
    if dates.n_map() <= ALL_PAIRS_MAX_STATEMENTS:
        # The order of only the statement pairs `pairs` relates, each as isl orders every pair
        # (`lex_lt_map` of their dates), and the one intersection: the same union map as with
        # every pair ordered, for less work (most pairs of a region share no dependence).
        return pairs.intersect(union_of([_dates_order(by_statement, space)
                                         for space in _statement_pairs(pairs, by_statement)], dates.get_space()))
    return union_of([ordered_pair(m, by_statement) for m in maps_of(pairs)], pairs.get_space())


def all_ordered(pairs: isl.UnionMap, dates: isl.UnionMap) -> bool:
    """Whether every pair of `pairs` ([P] -> { S[i..] -> T[j..] }) has its source before its sink
    under `dates` ([P] -> { S[i..] -> [t..] }): `pairs` equals `earlier_pairs(pairs, dates)`, found
    pair by pair. `earlier_pairs` orders every two statements of a small region at once, most of
    which no dependence joins (a verify-schedule, wavefront or reduction-jam check of a PolyBench
    kernel: ~0.03 s of CPU of its compile on average, against a few milliseconds here)."""
    by_statement = dates_by_statement(dates)
    for pair in maps_of(pairs):
        if pair.get_tuple_name(isl.dim_type.in_) not in by_statement \
                or pair.get_tuple_name(isl.dim_type.out) not in by_statement:
            return False        # a statement the schedule does not run: nothing orders it
        if not pair_ordered(pair, by_statement):
            return False
    return True


def pair_ordered(pair: isl.Map, dates: dict[str, isl.Map]) -> bool:
    """Whether every pair of `pair` ([P] -> { S[i..] -> T[j..] }) runs its source before its sink
    under `dates` (per statement, both present): `pair` equals `ordered_pair(pair, dates)`. With
    dates of one length, no pair may have its source at or after its sink (`lex_ge_map`, one
    intersection and an emptiness test) and every instance must have a date: the subset test
    against the ordered part subtracts the `lex_lt_map` disjunction, which cost 1.5 to 2 times
    as much (verify-schedule's and wavefront's checks of jacobi-2d 0.051 s against 0.035 s,
    fdtd-2d 0.094 s against 0.071 s, heat-3d 0.107 s against 0.056 s of CPU)."""
    source, sink = dates[pair.get_tuple_name(isl.dim_type.in_)], dates[pair.get_tuple_name(isl.dim_type.out)]
    if source.range_tuple_dim() != sink.range_tuple_dim():
        return pair.is_subset(ordered_pair(pair, dates))
    if not pair.domain().is_subset(source.domain()) or not pair.range().is_subset(sink.domain()):
        return False            # instances without a date: nothing orders them
    return pair.intersect(source.lex_ge_map(sink)).is_empty()


def _statement_pairs(pairs: isl.UnionMap, dates: dict[str, isl.Map]) -> list[isl.Space]:
    """The spaces ([P] -> { S[i..] -> T[j..] }) of the maps of `pairs` whose statements both have dates."""
    return [m.get_space() for m in maps_of(pairs)
            if m.get_tuple_name(isl.dim_type.in_) in dates and m.get_tuple_name(isl.dim_type.out) in dates]


def _dates_order(dates: dict[str, isl.Map], space: isl.Space) -> isl.Map:
    """[P] -> { S[i..] -> T[j..] : S[i..] runs before T[j..] } under `dates` (per statement), for
    the statements S and T of `space`."""
    first = dates[space.get_tuple_name(isl.dim_type.in_)]
    second = dates[space.get_tuple_name(isl.dim_type.out)]
    if first.range_tuple_dim() != second.range_tuple_dim():
        return isl.UnionMap.from_map(first).lex_lt_union_map(isl.UnionMap.from_map(second)).extract_map(space)
    return first.lex_lt_map(second)


def dates_by_statement(dates: isl.UnionMap) -> dict[str, isl.Map]:
    """`dates` ([P] -> { S[i..] -> [t..] }) as one map per statement."""
    return {m.get_tuple_name(isl.dim_type.in_): m for m in maps_of(dates)}


def ordered_pair(pair: isl.Map, dates: dict[str, isl.Map]) -> isl.Map:
    """The part of `pair` ([P] -> { S[i..] -> T[j..] }) whose source runs before its sink."""
    source, sink = dates[pair.get_tuple_name(isl.dim_type.in_)], dates[pair.get_tuple_name(isl.dim_type.out)]
    if source.range_tuple_dim() != sink.range_tuple_dim():
        return pair.intersect(isl.UnionMap.from_map(source).lex_lt_union_map(isl.UnionMap.from_map(sink))
                              .extract_map(pair.get_space()))
    return pair.intersect(source.lex_lt_map(sink))


def maps_of(umap: isl.UnionMap) -> list[isl.Map]:
    """The maps of a union map, one per pair of spaces."""
    maps: list[isl.Map] = []
    umap.foreach_map(maps.append)
    return maps


def union_of(maps: list[isl.Map], space: isl.Space) -> isl.UnionMap:
    """The union of `maps`, built pairwise (adding maps one by one to a growing union copies it
    each time: 7.6 s for 6,600 maps against 0.05 s)."""
    level = [isl.UnionMap.from_map(m) for m in maps if not m.is_empty()]
    if not level:
        return isl.UnionMap.empty(space)
    while len(level) > 1:
        level = [level[k].union(level[k + 1]) if k + 1 < len(level) else level[k] for k in range(0, len(level), 2)]
    return level[0]


def parallel_violations(schedule: isl.Schedule, deps: isl.UnionMap,
                        vector_ignored: Optional[isl.UnionMap] = None) -> list[str]:
    """Loops marked `parallel` or `vector` that carry a dependence, each named by its partial schedule.
    A `vector` loop is held to `deps` less `vector_ignored` (the pairs `ivdep` loops ignore)."""
    problems: list[str] = []
    vector_deps = deps.subtract(vector_ignored) if vector_ignored is not None else deps

    def check(node: isl.ScheduleNode) -> bool:
        if node.get_type() != isl.schedule_node_type.mark or node.mark_get_id().get_name() not in (PARALLEL_MARK, VECTOR_MARK):
            return True
        band = node.child(0)
        if band.get_type() != isl.schedule_node_type.band:
            problems.append(f"a '{node.mark_get_id().get_name()}' mark is not above a band")
            return True
        if carries_dependence(band, vector_deps if node.mark_get_id().get_name() == VECTOR_MARK else deps):
            problems.append(f"loop {band.band_get_partial_schedule()} carries a dependence")
        return True

    schedule.get_root().foreach_descendant_top_down(check)
    return problems


def carries_dependence(band: isl.ScheduleNode, deps: isl.UnionMap, member: int = 0) -> bool:
    """Whether member `member` of `band` carries a dependence between instances reaching it
    (the outer bands and the band's members before `member` fixed)."""
    return carries_local(band, local_dependences(band, deps, member), member)


def local_dependences(band: isl.ScheduleNode, deps: isl.UnionMap, member: int = 0) -> isl.UnionMap:
    """The dependences of `deps` between instances reaching `band` with equal dates down to member
    `member` (the outer bands and the band's members before `member`): what `carries_dependence`
    weighs. Restricted to statement sets A and B (`intersect_domain(A).intersect_range(B)`), it
    is the local dependences of `deps` restricted so, computed once for several such sets
    (mark-vector's per-statement loops of fdtd-2d: four restrictions of one band's)."""
    instances = band.get_domain()                            # [P] -> { S[i..] } reaching the band
    prefix = band.get_prefix_schedule_union_map()            # [P] -> { S[i..] -> [outer dates] }
    partial = band.band_get_partial_schedule()               # [P] -> [{ S[i..] -> [(t0)] }, ...]
    for k in range(member):
        prefix = prefix.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k)))
    same_outer = prefix.apply_range(prefix.reverse())        # [P] -> { S[i..] -> T[j..] : equal outer dates }
    return deps.intersect_domain(instances).intersect_range(instances).intersect(same_outer)


def carries_local(band: isl.ScheduleNode, local: isl.UnionMap, member: int = 0) -> bool:
    """Whether member `member` of `band` carries one of `local` (`local_dependences` of the band
    and member, or a restriction of them): `carries_dependence` with the local part known."""
    if local.is_empty():
        return False
    partial = band.band_get_partial_schedule()               # [P] -> [{ S[i..] -> [(t0)] }, ...]
    date = isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(member))   # [P] -> { S[i..] -> [t] }
    distances = local.apply_domain(date).apply_range(date).deltas()   # [P] -> { [t' - t] }
    zero = isl.UnionSet.from_set(isl.Set.universe(_one_dim_space(distances)).fix_val(
        isl.dim_type.set, 0, isl.Val.zero(local.get_ctx())))          # [P] -> { [0] }
    return not distances.is_subset(zero)


def _one_dim_space(uset: isl.UnionSet) -> isl.Space:
    spaces: list[isl.Space] = []
    uset.foreach_set(lambda s: spaces.append(s.get_space()))
    return spaces[0]


def mark_count(schedule: isl.Schedule, name: str) -> int:
    """How many marks named `name` `schedule` has."""
    found = [0]

    def look(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == name:
            found[0] += 1
        return True

    schedule.get_root().foreach_descendant_top_down(look)
    return found[0]


def tree_problem(schedule: isl.Schedule) -> str:
    """Why `schedule`'s tree cannot be walked ('' if it can): isl's scheduler has produced a
    `set` node with no children (random program seed 4001050), whose child isl cannot return."""
    def walk(node: isl.ScheduleNode) -> str:
        for k in range(node.n_children()):
            try:
                child = node.child(k)
            except isl.Error:
                return f"a {node.get_type().name} node of the schedule tree has no child {k}"
            problem = walk(child)
            if problem:
                return problem
        return ""

    return walk(schedule.get_root())
