# SPDX-License-Identifier: MIT
"""Live ranges of region-local storage and the relaxed permutability criterion.

Baghdadi, PhD thesis (2015), chapter 2, section 2.4: the anti and output
dependences of scalars and temporaries (three-address code, PRE) are *false*
dependences; they only serve to keep the live ranges of one storage location
from interfering. A schedule is legal if it respects the flow dependences and
the false dependences of non-local storage, and if no live range of local
storage is interleaved with another write to the same element ("live range
non-interference", section 2.4.3). The isl scheduler expresses exactly this with
conditional validity constraints (condition: the live ranges; conditional
validity: the false dependences), as PPCG's live-range reordering does.

Relaxed storage is the region's *local* arrays and scalars (declared inside the
region, so never live-in or live-out). Inside a parallel loop the back end gives
each thread its own copy of them (copy-in at entry, no copy-back), which is why
`mark-parallel` never marks a loop out of which a local value flows
(`values_leaving`) and `privatization_violations` checks it on any schedule.

Input: a `Scop`, its `Dependences` and its `LiveRanges` (the `live-ranges` pass puts them on
the compilation unit). Output: `RelaxedDependences` and the checks
the `verify-schedule` pass runs on every transformed schedule: the relaxed
criterion on the unrelaxed dependences (`relaxed_criterion_violations`, with
`interference_violations`) and `privatization_violations`.

Live-out storage (`live_out_arrays`, read by model extraction): the arrays whose
values the region leaves to its caller. A caller's element written in the region
is dead at the exit when a kill follows each of its writes in the source order
(`__pencil_kill`, thesis section 4.3.5: the killed data holds no value the program
reads again), so an array whose every written element is killed after its last
write is not live-out; privatize-arrays then needs no last-value copy-out for it
(clangpass.poly.privatization finds the last write or kill of each element).

Dead data at the region's boundary (`entry_dead_arrays`, `exit_dead_arrays`, read by the
OpenCL target to leave out transfers, thesis section 4.3.5.ii): an array the region never
reads the caller's values of, whose every element it kills or must-write, needs no copy to
a device; one it leaves dead (written, not live-out) needs no copy back.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import islpy as isl

from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.dependences import Dependences
from clangpass.poly.memo import IdentityMemo
from clangpass.poly.scop import ArrayInfo, Scop, accesses_through, sorted_pieces, statement_names
from clangpass.poly.validity import (PARALLEL_MARK, breaks_dependences, dates_by_statement, dependence_violations,
                                     earlier_pairs, maps_of, ordered_pair, union_of)


@dataclass(frozen=True)
class RelaxedDependences:
    arrays: tuple[str, ...]      # local arrays and scalars whose false dependences are relaxed
    live_ranges: isl.UnionMap    # [P] -> { W[..] -> R[..] }: value-based flow through `arrays`
    relaxed: isl.UnionMap        # [P] -> { S[..] -> T[..] }: anti/output dependences through `arrays`
    enforced: isl.UnionMap       # [P] -> { S[..] -> T[..] }: every flow + false deps of other storage

    @property
    def active(self) -> bool:
        return not self.relaxed.is_empty()


def false_dependences(reads: isl.UnionMap, writes: isl.UnionMap, earlier: isl.UnionMap) -> isl.UnionMap:
    """Memory-based anti and output dependences of the given accesses, in source order."""
    anti = reads.apply_range(writes.reverse()).intersect(earlier)     # { R -> W : same element }
    output = writes.apply_range(writes.reverse()).intersect(earlier)  # { W -> W' : same element }
    return anti.union(output)


@dataclass(frozen=True)
class LiveRanges:
    """The live ranges of region-local storage (`local_live_ranges`), or why they are unknown."""

    flow: Optional[isl.UnionMap]   # [P] -> { W[..] -> R[..] }; None when the analysis exceeded the budget
    exceeded: str = ""             # the BudgetExceeded message then

    def get(self) -> isl.UnionMap:
        """[P] -> { W[..] -> R[..] } (raises BudgetExceeded when the analysis exceeded the budget)."""
        if self.flow is None:
            raise BudgetExceeded(self.exceeded)
        return self.flow


def live_ranges(scop: Scop, max_operations: int = 0) -> LiveRanges:
    """`local_live_ranges` of `scop`, or why they are unknown."""
    try:
        return LiveRanges(local_live_ranges(scop, max_operations))
    except BudgetExceeded as exc:
        return LiveRanges(None, str(exc))


# Up to this many statements the verification orders every pair of statements at once (cheapest on
# tiled schedules of a few statements: doitgen, ludcmp), under half the caller's isl budget; beyond,
# or over that half, only the pairs that share storage, one local array or one dependence at a time
# (three-address code: 3AC nussinov's 20 statements 1.07 s -> 0.30 s, and within the isl budget;
# 3AC fdtd-2d's 15 statements, each store a copy of its own temporary, exceeded it at once).
SMALL_REGION_STATEMENTS = 16


def local_live_ranges(scop: Scop, max_operations: int = 0) -> isl.UnionMap:
    """[P] -> { W[..] -> R[..] }: value-based flow through region-local storage.

    Raises BudgetExceeded when even the memory-based superset exceeds `max_operations`.
    """
    names = _local_names(scop)
    ctx = scop.context.get_ctx()
    reads_l = accesses_through(scop.reads, names, True)              # [P] -> { S[i..] -> t[..] }
    must_l = accesses_through(scop.must_writes, names, True)
    may_l = accesses_through(scop.may_writes, names, True)
    try:
        with isl_budget(ctx, max_operations, "live-range analysis"):
            live = (isl.UnionAccessInfo.from_sink(reads_l).set_must_source(must_l).set_may_source(may_l)
                    .set_kill(scop.kills).set_schedule(scop.original_schedule)
                    .compute_flow().get_may_dependence())
    except (BudgetExceeded, isl.Error):
        # Memory-based flow is a superset: more live ranges, so more (still legal) constraints.
        dates = scop.original_schedule.get_map()             # [P] -> { S[i..] -> [t..] }
        with isl_budget(ctx, max_operations, "live-range analysis"):
            live = must_l.union(may_l).apply_range(reads_l.reverse()).intersect(dates.lex_lt_union_map(dates))
    return _simplified(live, scop.context)


def live_out_arrays(writes: isl.UnionMap, kills: isl.UnionMap, schedule: isl.Schedule,
                    context: isl.Set, candidates: frozenset[str]) -> frozenset[str]:
    """The arrays of `candidates` with an element written in the region and not killed after it.

    `writes` are must and may writes, `schedule` is the source order over every statement,
    kills included. Arrays no kill touches are live-out when written, without isl work; when
    isl fails on the others they count as live-out too (a superset: nothing is lost).
    """
    written: set[str] = set()
    writes.foreach_map(lambda m: written.add(m.get_tuple_name(isl.dim_type.out)))
    killed: set[str] = set()
    kills.foreach_map(lambda m: killed.add(m.get_tuple_name(isl.dim_type.out)))
    live = {name for name in written & candidates if name not in killed}
    examined = frozenset(written & candidates & killed)
    if not examined:
        return frozenset(live)
    try:
        mine = accesses_through(writes, examined)                    # [P] -> { W[i..] -> A[a..] }
        dates = schedule.get_map()                                   # [P] -> { S[i..] -> [t..] }
        # [P] -> { W[i..] -> K[j..] : W runs before K in the source order }
        before_kill = dates.lex_lt_union_map(dates.intersect_domain(kills.domain()))
        # [P] -> { [W[i..] -> A[a..]] -> K[j..] : K kills A[a..] after W wrote it }
        killed_later = (mine.range_map().apply_range(kills.reverse())
                        .intersect(mine.domain_map().apply_range(before_kill)))
        surviving = mine.wrap().subtract(killed_later.domain()).intersect_params(context)
        surviving.unwrap().foreach_map(
            lambda m: None if m.is_empty() else live.add(m.get_tuple_name(isl.dim_type.out)))
    except isl.Error:
        live |= examined
    return frozenset(live)


def _local_names(scop: Scop) -> frozenset[str]:
    return frozenset(a.name for a in scop.arrays if a.local)


# relax-false-deps computes the split, and verify-schedule computes it again from the unrelaxed
# dependences: from the same objects, the same split (clangpass.poly.memo).
_RELAXED = IdentityMemo[RelaxedDependences]()


def relax_false_dependences(scop: Scop, deps: Dependences, live: LiveRanges, max_operations: int) -> RelaxedDependences:
    """Split the dependences of `scop` into enforced ones and relaxable false ones, given its live
    ranges (raises BudgetExceeded)."""
    return _RELAXED.get((*scop.model, deps, live, max_operations),
                        lambda: _relax_false_dependences(scop, deps, live, max_operations))


def _relax_false_dependences(scop: Scop, deps: Dependences, live: LiveRanges,
                             max_operations: int) -> RelaxedDependences:
    names = _local_names(scop)
    ctx = scop.context.get_ctx()
    dates = scop.original_schedule.get_map()                 # [P] -> { S[i..] -> [t..] }
    with isl_budget(ctx, max_operations, "live-range analysis"):
        relaxed = _source_ordered_false_dependences(accesses_through(scop.reads, names, True),
                                                    accesses_through(scop.writes, names, True), dates)
        other = _source_ordered_false_dependences(accesses_through(scop.reads, names, False),
                                                  accesses_through(scop.writes, names, False), dates)
        other = other.subtract(deps.independent)   # `#pragma pencil independent` loops
    return RelaxedDependences(tuple(sorted(names)), live.get(), _simplified(relaxed, scop.context),
                              _simplified(deps.flow.union(other), scop.context))


def _source_ordered_false_dependences(reads: isl.UnionMap, writes: isl.UnionMap,
                                      dates: isl.UnionMap) -> isl.UnionMap:
    """`false_dependences` with the source order of `dates` ([P] -> { S[i..] -> [t..] }) applied
    only to the statement pairs that share an element (validity.earlier_pairs): ordering every
    pair of 100 three-address statements at once exceeded the isl budget (3AC deriche)."""
    same = reads.apply_range(writes.reverse()).union(writes.apply_range(writes.reverse()))  # { S -> T }
    return earlier_pairs(same, dates)


def _simplified(umap: isl.UnionMap, context: isl.Set) -> isl.UnionMap:
    return umap.intersect_params(context).coalesce()


def interference_violations(schedule: isl.Schedule, scop: Scop, relaxed: RelaxedDependences) -> list[str]:
    """Live ranges of local storage that another write to the same element may interrupt under `schedule`.

    A live range W -> R is interrupted by a write W2 of the element W wrote when W2
    is not scheduled strictly before W or strictly after R (thesis section 2.4.3,
    live range non-interference). Two instances with equal dates count as
    interleaved: the AST may run them in either order. A W2 that already ran
    between W and R in source order interrupts nothing new (W is then a may-write,
    or the live ranges are the memory-based superset): the value R reads is the
    same as long as the dependences of W2's own live range hold, and those are
    checked as live ranges too.
    """
    if relaxed.live_ranges.is_empty():
        return []
    dates = schedule.get_map()                                        # [P] -> { S[i..] -> [t..] }
    # What does not depend on `schedule` is computed once per region: the schedule pass checks
    # each candidate, verify-schedule the final schedule (clangpass.poly.memo).
    key = (scop.original_schedule, scop.reads, scop.must_writes, scop.may_writes, relaxed.live_ranges,
           relaxed.arrays)
    if dates.n_map() <= SMALL_REGION_STATEMENTS:
        ctx = scop.context.get_ctx()
        try:
            with isl_budget(ctx, ctx.get_max_operations() // 2, "live-range interference"):
                writes, source_order, involved = _WHOLE_REGION.get(key, lambda: _whole_region(scop, relaxed))
                # Ordered: only the statements that write the relaxed storage or read it in a live
                # range (the order of the others meets no candidate of `_interruptions`), their
                # maps as they are (no intersection with their domains when every statement is).
                by_statement = dates_by_statement(dates)
                if not set(by_statement) <= involved:
                    dates = union_of([m for name, m in by_statement.items() if name in involved], dates.get_space())
                return _interruptions(relaxed.live_ranges, writes, dates, source_order, scop.context)
        except BudgetExceeded:
            pass
    problems: list[str] = []
    # One local array at a time, ordering only the instances that write or read it: three-address
    # code has many temporaries, each used by two or three statements, and ordering every pair of
    # a large region's statements at once exceeded the isl budget (3AC nussinov, heat-3d).
    for live, writes, involved, source_order in _PER_ARRAY.get(key, lambda: _per_array(scop, relaxed)):
        problems += _interruptions(live, writes, dates.intersect_domain(involved), source_order, scop.context)
    return problems


_WHOLE_REGION = IdentityMemo[tuple[isl.UnionMap, isl.UnionMap, frozenset[str]]]()
_PER_ARRAY = IdentityMemo[list[tuple[isl.UnionMap, isl.UnionMap, isl.UnionSet, isl.UnionMap]]]()


def _whole_region(scop: Scop, relaxed: RelaxedDependences) -> tuple[isl.UnionMap, isl.UnionMap, frozenset[str]]:
    """The writes of the relaxed storage ([P] -> { W[i..] -> t[..] }), the strict source order
    of every instance and the statements involved (the writers and the live ranges' readers):
    what `interference_violations` needs besides the schedule's own order."""
    writes = accesses_through(scop.writes, frozenset(relaxed.arrays), True)
    involved = statement_names(writes.domain().union(relaxed.live_ranges.range()))
    return writes, _strict_order_of(scop.original_schedule.get_map()), frozenset(involved)


def _per_array(scop: Scop, relaxed: RelaxedDependences) -> list[tuple[isl.UnionMap, isl.UnionMap, isl.UnionSet, isl.UnionMap]]:
    """Per relaxed array with live ranges: the live ranges, the writes, the instances involved
    and their strict source order (`interference_violations` one array at a time)."""
    source_dates = scop.original_schedule.get_map()                   # [P] -> { S[i..] -> [t..] }
    out = []
    for name in relaxed.arrays:
        writes = accesses_through(scop.writes, frozenset({name}), True)    # [P] -> { W[i..] -> t[..] }
        readers = accesses_through(scop.reads, frozenset({name}), True).domain()
        live = relaxed.live_ranges.intersect_domain(writes.domain()).intersect_range(readers)
        if live.is_empty():
            continue
        involved = writes.domain().union(live.range())                 # [P] -> { S[i..] }
        out.append((live, writes, involved, _strict_order_of(source_dates.intersect_domain(involved))))
    return out


def _interruptions(live: isl.UnionMap, writes: isl.UnionMap, dates: isl.UnionMap, source: isl.UnionMap,
                   context: isl.Set) -> list[str]:
    """The live ranges `live` ([P] -> { W -> R }) of one array, each with a write of `writes` that
    may interrupt it under the schedule `dates` ([P] -> { S[i..] -> [t..] }) and did not already
    in the source order `source`."""
    order = dates
    shared = _shared_prefix(live, dates)
    if shared:
        # Every live range starts and ends at the same first `shared` dates: a write W2 of other
        # first dates than W's runs strictly before W or strictly after R. Only the writes of W's
        # own prefix are candidates, and the dates after the prefix order them (the element's
        # other writes in one strip of reduction-jam's scalar tiles, not those of every other
        # tile: ordering all of those cost isl 24 s on symm).
        n = _date_count(dates)
        tagged = writes.range_product(_dates_slice(dates, 0, shared))  # [P] -> { W -> [element -> prefix] }
        same_element = tagged.apply_range(tagged.reverse()).detect_equalities()
        order = _dates_slice(dates, shared, n)
    else:
        same_element = writes.apply_range(writes.reverse())           # [P] -> { W -> W2 : same element }
    producer = live.domain_map()                                      # [P] -> { [W -> R] -> W }
    consumer = live.range_map()                                       # [P] -> { [W -> R] -> R }
    candidates = producer.apply_range(same_element)                   # [P] -> { [W -> R] -> W2 }
    # [P] -> { [W -> R] -> W2 : W2 surely outside the live range under `order` }: only the pairs
    # (W2, W) and (R, W2) of the candidates are ordered.
    after = _strict_order_of(order)
    first = candidates.range_product(producer).range().unwrap().intersect(after)   # { W2 -> W : W2 first }
    last = consumer.range_product(candidates).range().unwrap().intersect(after)    # { R -> W2 : R first }
    outside = (producer.apply_range(first.reverse()).union(consumer.apply_range(last))
               .union(producer).union(consumer))
    inside_in_source = producer.apply_range(source).intersect(consumer.apply_range(source.reverse()))
    broken = candidates.subtract(outside).subtract(inside_in_source).intersect_params(context)
    if broken.is_empty():
        return []
    return [f"live range interrupted: {p}" for p in sorted_pieces(broken)]


def _date_count(dates: isl.UnionMap) -> int:
    """The number of dates of `dates` ([P] -> { S[i..] -> [t..] }), -1 when they differ."""
    counts = {m.dim(isl.dim_type.out) for m in maps_of(dates)}
    return counts.pop() if len(counts) == 1 else -1


def _dates_slice(dates: isl.UnionMap, first: int, end: int) -> isl.UnionMap:
    """`dates` ([P] -> { S[i..] -> [t..] }) reduced to the dates first .. end - 1."""
    out = None
    for m in maps_of(dates):
        n = m.dim(isl.dim_type.out)
        m = isl.UnionMap.from_map(m.project_out(isl.dim_type.out, end, n - end).project_out(isl.dim_type.out, 0, first))
        out = m if out is None else out.union(m)
    return out


def _shared_prefix(live: isl.UnionMap, dates: isl.UnionMap) -> int:
    """How many leading dates of `dates` ([P] -> { S[i..] -> [t..] }) the two ends of every live
    range of `live` ([P] -> { W -> R }) share: 0 when none, when the dates differ in length or
    when an end is not scheduled."""
    n = _date_count(dates)
    if n <= 1 or live.is_empty() or not live.domain().union(live.range()).is_subset(dates.domain()):
        return 0
    ends = live.apply_domain(dates).apply_range(dates)                # [P] -> { [t..] -> [t'..] }
    if ends.n_map() != 1:
        return 0
    pairs = isl.Map.from_union_map(ends)
    equal = isl.Map.universe(pairs.get_space())
    for k in range(n - 1):
        equal = equal.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        if not pairs.is_subset(equal):
            return k
    return n - 1


def _strict_order_of(dates: isl.UnionMap) -> isl.UnionMap:
    """[P] -> { X -> Y : X runs strictly before Y } for the instances of `dates` ([P] -> { S[i..] -> [t..] })."""
    return dates.lex_lt_union_map(dates)


def relaxed_criterion_violations(schedule: isl.Schedule, scop: Scop, split: RelaxedDependences,
                                 max_operations: int) -> list[str]:
    """The relaxed permutability criterion (thesis section 2.4.4) under `schedule`.

    `split` is `relax_false_dependences` of the unrelaxed dependences. Every
    dependence of `split.enforced` (all flow dependences, the anti/output ones of
    storage that is not region-local) must go forward; an anti/output dependence
    of local storage (`split.relaxed`) may be broken only where no live range of
    that storage is interrupted (`interference_violations`). Raises
    BudgetExceeded when the check exceeds `max_operations`.
    """
    with isl_budget(scop.context.get_ctx(), max_operations, "schedule verification"):
        return relaxed_violations(schedule, scop, split)


def breaks_relaxed_criterion(schedule: isl.Schedule, scop: Scop, split: RelaxedDependences) -> bool:
    """Whether `relaxed_violations` is not empty, under the caller's isl budget: the live ranges
    are not looked at when a dependence is broken, and nothing broken is printed."""
    return breaks_dependences(schedule, split.enforced) or bool(interference_violations(schedule, scop, split))


def relaxed_violations(schedule: isl.Schedule, scop: Scop, split: RelaxedDependences) -> list[str]:
    """`relaxed_criterion_violations` under the caller's isl budget."""
    return [f"dependence broken: {p}" for p in _unordered(schedule, split.enforced)] + \
        interference_violations(schedule, scop, split)


def _unordered(schedule: isl.Schedule, deps: isl.UnionMap) -> list[str]:
    """The dependences of `deps` (printed, sorted) that `schedule` does not run source first, one
    statement pair at a time: ordering only the pairs a dependence relates is cheaper than
    ordering every pair of statements when three-address code has many (3AC nussinov)."""
    dates = schedule.get_map()                                        # [P] -> { S[i..] -> [t..] }
    if dates.n_map() <= SMALL_REGION_STATEMENTS:
        return dependence_violations(schedule, deps)
    by_statement = dates_by_statement(dates)                          # S -> [P] -> { S[i..] -> [t..] }
    broken = [b for b in (m.subtract(ordered_pair(m, by_statement)) for m in maps_of(deps)) if not b.is_empty()]
    return sorted(str(b) for b in broken)


def values_leaving(node: isl.ScheduleNode, live_ranges: isl.UnionMap, members: int = 0) -> isl.UnionMap:
    """[P] -> { W -> R }: live ranges of local storage written in one iteration of a parallel loop
    and read outside that iteration of that execution of the loop.

    `node` is a band whose member `members - 1` would be the parallel loop (or a `parallel` mark,
    whose band's only member is). A thread's private copy lives for one execution of the loop, so
    a value read in another execution (another iteration of an enclosing loop: random program
    seed 4002360) is lost as surely as one read after the loop.
    """
    band = node.child(0) if node.get_type() == isl.schedule_node_type.mark else node
    inside = node.get_domain()                                          # [P] -> { S[i..] } under node
    written = live_ranges.intersect_domain(inside)
    if band.get_type() != isl.schedule_node_type.band:
        return written.subtract_range(inside)
    return written.subtract(_same_iteration(band, members or band.band_n_member()))


def iteration_locals(scop: Scop, live_ranges: isl.UnionMap) -> frozenset[str]:
    """The region-local arrays whose values never cross an iteration of a `parallel` loop of
    `scop`'s schedule: under every parallel mark, each value of the array read there was
    written in the same iteration of that loop, and none written there is read elsewhere
    (`live_ranges`: [P] -> { W -> R }, the flow through local storage). A target may give each
    iteration of such a loop an uninitialised copy of its own, even where other loops of the
    region use the array too (a privatized temporary of two loop nests). The flow is taken
    between the statements that write and read the array (conservative: other arrays' flow
    between them counts too). Raises isl.Error."""
    marks: list[isl.ScheduleNode] = []

    def find(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK:
            marks.append(node)
            return
        for k in range(node.n_children()):
            find(node.child(k))

    find(scop.schedule.get_root())
    found: set[str] = set()
    for array in scop.arrays:
        if not array.local or not array.extents:
            continue
        names = frozenset({array.name})
        writers = accesses_through(scop.must_writes.union(scop.may_writes), names).domain()
        readers = accesses_through(scop.reads, names).domain()
        flow = live_ranges.intersect_domain(writers).intersect_range(readers)
        crossing = False
        for mark in marks:
            inside = mark.get_domain()
            entering = flow.intersect_range(inside).subtract_domain(inside)
            if not values_leaving(mark, flow, 1).is_empty() or not entering.is_empty():
                crossing = True
                break
        if not crossing:
            found.add(array.name)
    return frozenset(found)


def _same_iteration(band: isl.ScheduleNode, members: int) -> isl.UnionMap:
    """[P] -> { S -> T }: pairs of instances under `band` in one iteration of its first `members`
    members (and of every loop around it)."""
    inside = band.get_domain()
    dates = band.get_prefix_schedule_union_map()                        # [P] -> { S[i..] -> [outer] }
    partial = band.band_get_partial_schedule()
    for k in range(members):
        dates = dates.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k)))
    same = dates.apply_range(dates.reverse())                           # [P] -> { S -> T : same loop iteration }
    return same.intersect_domain(inside).intersect_range(inside)


def iteration_private_scalars(band: isl.ScheduleNode, scop: Scop, live_ranges: LiveRanges,
                              max_operations: int = 0) -> frozenset[str]:
    """The region-local scalars used under `band` whose every value lives within one iteration
    of the band (all its members): written before it is read in the same iteration, never read
    in another. Three-address temporaries (`t1 = alpha * A[i][k]; t2 = t1 * B[k][j];
    C[i][j] += t2;`) are such scalars: LLVM keeps them in registers, so a pass that looks at
    the band's memory accesses (strides, accumulators) may leave them out. An accumulator that
    lives across a loop of the band (`t = 0` before the `k` loop) is not one.

    Raises BudgetExceeded when `live_ranges` are unknown.
    """
    names = scop.local_scalars
    inside = band.get_domain()                                          # [P] -> { S[i..] }
    writes = accesses_through(scop.writes, names).intersect_domain(inside)
    reads = accesses_through(scop.reads, names).intersect_domain(inside)
    used = sorted({m.get_tuple_name(isl.dim_type.out) for m in maps_of(writes.union(reads))})
    if not used:
        return frozenset()
    live = live_ranges.get()
    ctx = scop.context.get_ctx()
    with isl_budget(ctx, max_operations, "iteration-private scalars"):
        crossing = (live.intersect_domain(inside).union(live.intersect_range(inside))
                    .subtract(_same_iteration(band, band.band_n_member())))
        private = []
        for name in used:
            one = frozenset({name})
            writers = accesses_through(scop.writes, one).domain()
            readers = accesses_through(scop.reads, one).domain()
            if crossing.intersect_domain(writers).intersect_range(readers).is_empty():
                private.append(name)
    return frozenset(private)


def scalar_units(names: list[str], accesses: tuple[tuple[str, str], ...]) -> list[list[str]]:
    """`names` (in textual order) joined into units by the region-local scalars they share
    (`accesses`: the region's `scalar_accesses`): the statements of one three-address expression
    (`t1 = ..; t2 = t1 * ..; A[i][j] = t2;`), whose temporaries live within an iteration, go into
    one loop together; each unit in textual order, the units in the order of their first
    statements."""
    owner = {n: n for n in names}

    def find(n: str) -> str:
        while owner[n] != n:
            n = owner[n]
        return n

    holders: dict[str, str] = {}
    for statement, scalar in accesses:
        if statement not in owner:
            continue
        if scalar in holders:
            owner[find(statement)] = find(holders[scalar])
        else:
            holders[scalar] = statement
    units: dict[str, list[str]] = {}
    for n in names:
        units.setdefault(find(n), []).append(n)
    return sorted(units.values(), key=lambda unit: names.index(unit[0]))


def scalar_accesses(scop: Scop) -> tuple[tuple[str, str], ...]:
    """(statement, scalar) for each statement's reads and writes of a region-local scalar: what
    `scalar_units` joins statements by (a pass that asks per band computes this once: a
    1,000-statement region has hundreds of innermost bands)."""
    accesses = accesses_through(scop.reads.union(scop.writes), scop.local_scalars)   # { S[i..] -> t[] }
    return tuple((a.get_tuple_name(isl.dim_type.in_), a.get_tuple_name(isl.dim_type.out)) for a in maps_of(accesses))


def privatization_violations(schedule: isl.Schedule, live_ranges: isl.UnionMap) -> list[str]:
    """Parallel loops out of which a live range of local storage flows.

    The back end gives each thread its own copy of local storage (copied in at the
    loop's entry, never copied back), so such a value would be lost.
    """
    problems: list[str] = []

    def check(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK:
            leaving = values_leaving(node, live_ranges)
            if not leaving.is_empty():
                problems.append(f"a local value leaves a parallel loop: {sorted_pieces(leaving)[0]}")
        return True

    schedule.get_root().foreach_descendant_top_down(check)
    return problems


def format_live_ranges(live: LiveRanges) -> str:
    """The unit's live ranges in `--dump-before`/`--dump-after`: one flow piece a line, or why
    they are unknown."""
    if live.flow is None:
        return f"LiveRanges := (unknown: {live.exceeded})"
    pieces = sorted_pieces(live.flow)
    return "\n".join(["LiveRanges :="] + [f"    {p};" for p in pieces] + ([] if pieces else ["    (none)"]))


def format_relaxed(relaxed: RelaxedDependences) -> str:
    """The `deps` dump after relax-false-deps: what is enforced and what may be relaxed."""
    lines = [f"Relaxed storage: {', '.join(relaxed.arrays) or '(none)'}"]
    for heading, umap in (("LiveRanges", relaxed.live_ranges), ("RelaxedFalse", relaxed.relaxed),
                          ("Enforced", relaxed.enforced)):
        lines.append(f"{heading} :=")
        pieces = sorted_pieces(umap)
        lines.extend(f"    {p};" for p in pieces)
        if not pieces:
            lines.append("    (none)")
    return "\n".join(lines)


def entry_dead_arrays(scop: Scop) -> frozenset[str]:
    """The caller arrays whose values at the region's entry are dead: no read can see one
    (every read has a must-write or a kill before it, in the source order), and every
    element of the declared extents is must-written or killed in the region. A device copy
    of such an array needs nothing from the host (what the region leaves in elements it only
    killed is undefined). isl failures or unknown extents: not dead."""
    dead: set[str] = set()
    for array in scop.arrays:
        if array.local or array.read_only or any(e is None for e in array.extents):
            continue
        try:
            dead.update(_entry_dead(scop, array))
        except isl.Error:
            pass
    return frozenset(dead)


def reads_values_from_entry(scop: Scop, array: ArrayInfo, within: Optional[isl.Set] = None) -> bool:
    """Whether some read of `array` may see a value it had at the region's entry: no must-write
    nor kill of the element before the read, in the source order; only reads of the elements
    `within` count when given (raises isl.Error)."""
    names = frozenset({array.name})
    reads = accesses_through(scop.reads, names)
    if reads.is_empty():
        return False
    covering = accesses_through(scop.must_writes.union(scop.kills), names)    # [P] -> { S[i..] -> A[a..] }
    exposed = (isl.UnionAccessInfo.from_sink(reads)
               .set_must_source(covering)
               .set_may_source(accesses_through(scop.may_writes, names))
               .set_schedule(scop.original_schedule)
               .compute_flow().get_may_no_source())
    if within is not None:
        exposed = exposed.intersect_range(isl.UnionSet.from_set(within))
    return not exposed.intersect_params(scop.context).is_empty()


def _entry_dead(scop: Scop, array: ArrayInfo) -> set[str]:
    names = frozenset({array.name})
    covering = accesses_through(scop.must_writes.union(scop.kills), names)    # [P] -> { S[i..] -> A[a..] }
    if reads_values_from_entry(scop, array):
        return set()
    declared = declared_elements(scop, array)
    covered = covering.range().intersect_params(scop.context)
    missing = isl.UnionSet.from_set(declared.intersect_params(scop.context)).subtract(covered)
    return set() if not missing.is_empty() else {array.name}


def exit_dead_arrays(scop: Scop) -> frozenset[str]:
    """The caller arrays the region writes and leaves dead (every written element killed
    after its last write): nothing needs them back from a device."""
    return frozenset(a.name for a in scop.arrays if not a.local and not a.read_only and not a.live_out)


def declared_elements(scop: Scop, array: ArrayInfo) -> isl.Set:
    """[P] -> { A[a..] : 0 <= a_k < extent_k } (those extents known)."""
    space = isl.Space.set_alloc(scop.context.get_ctx(), 0, array.rank).set_tuple_name(isl.dim_type.set, array.name)
    space = space.align_params(scop.context.get_space())
    declared = isl.Set.universe(space)
    for k, extent in enumerate(array.extents):
        if extent is None:
            continue
        to_params = isl.MultiAff.zero(space.map_from_domain_and_range(extent.get_domain_space().align_params(space)))
        index = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, k)
        bound = extent.align_params(space).pullback_multi_aff(to_params)
        declared = declared.intersect(index.ge_set(index.zero_on_domain(isl.LocalSpace.from_space(space)))
                                      .intersect(index.lt_set(bound)))
    return declared


def device_footprints(scop: Scop) -> tuple[dict[str, isl.PwAff], frozenset[str]]:
    """What a device copy of each caller array must hold: (rows, beyond).

    C lets a pointer parameter's array be longer than its declaration says, so the region
    may touch rows past the declared first extent (`double E[NI][NJ]` accessed for i < ni):
    `rows[A]` is then the number of rows it may touch, [P] -> { [(max first index + 1)] }; so
    is it for an array `contract-arrays` folded (the rows of its box).
    `beyond` holds the arrays no copy of whole rows can serve: a negative first subscript,
    no bound on the first subscript (a non-affine one), unknown row extents; isl failures
    count as beyond."""
    rows: dict[str, isl.PwAff] = {}
    beyond: set[str] = set()
    accesses = scop.reads.union(scop.must_writes).union(scop.may_writes)
    for array in scop.arrays:
        if array.local or array.rank == 0:
            continue
        try:
            touched = accesses_through(accesses, frozenset({array.name})).range().intersect_params(scop.context)
            if touched.is_empty():
                continue
            # C keeps the inner subscripts within their rows (`E[i][j]` is `(*(E + i))[j]`, an
            # access of an array of NJ): only the rows' extents must be known.
            if any(e is None for e in array.extents[1:]):
                beyond.add(array.name)
                continue
            # A contracted array (`ArrayInfo.storage`) touches only the rows of its box: its copy
            # is that many rows, the device buffer of the reduced size.
            if array.extents[0] is not None and not array.storage and \
                    touched.is_subset(isl.UnionSet.from_set(declared_elements(scop, array))):
                continue
            first = isl.Set.from_union_set(touched).project_out(isl.dim_type.set, 1, array.rank - 1)
            if not first.upper_bound_val(isl.dim_type.set, 0, isl.Val.int_from_si(first.get_ctx(), -1)).is_empty():
                beyond.add(array.name)
                continue
            last = first.dim_max(0)
            if last.involves_nan():
                beyond.add(array.name)
                continue
            zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(last.get_domain_space())))
            one = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(last.get_domain_space()))
                                     .set_constant_val(isl.Val.int_from_si(last.get_ctx(), 1)))
            rows[array.name] = last.add(one).union_max(zero)      # 0 where nothing is touched
        except isl.Error:
            beyond.add(array.name)
    return rows, frozenset(beyond)
