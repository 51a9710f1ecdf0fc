# SPDX-License-Identifier: MIT
"""Fusion chosen per region: candidate schedules scored by a locality and parallelism model.

Input: a Scop and candidate schedules of it (isl's scheduler with maximal
fusion and with one strongly connected component at a time). Output: the
candidate to keep and a one-line reason (the optimisation record's `fusion`
and `fusion_reason`).

Maximal fusion is not always a gain. In 3mm it fuses the producer of `E` into
the consumer `G += E * F`, and the only legal order for the fused nest walks `G`
and `E` down a column in the innermost loop; in 2mm it leaves the products in a
band that cannot be tiled. Fusion pays when the fused statements share data
(reuse in cache) and it costs when the fused nest loses stride-1 access or outer
parallelism. The model counts, for the statements that dominate the run time
(those with the most enclosing loops):

1. `strided_accesses`: accesses that jump (neither the same element nor the
   next one, `clangpass.poly.strides`) along the statement's innermost loop. In
   a permutable band of two or more members with a coincident one, the innermost
   loop is the member with the fewest such accesses over all the band's
   statements, since tiling and `point-loop-order` may choose any member of it
   for the innermost point loop, one for all of them (a band with no coincident
   member keeps its order: 3AC gemver's maximal fusion, one skewed sequential
   band whose innermost loop walks `A` by columns, counted no strided access
   when each statement picked its own member, and ran 6x slower than minimal fusion) (Wolf & Lam, "A data
   locality optimizing algorithm", PLDI 1991, section 3; Kennedy & McKinley,
   "Optimizing for parallelism and data locality", ICS 1992, loop permutation);
2. `serial_statements`: statements with no coincident member in any band around
   them: no loop of theirs runs on threads at all. A time loop is never
   coincident, but the thread-team pass runs it inside one team around the parallel
   loops below it: a matrix-vector product `s = 0; for k: s += A[i][k] * x[k];
   y[i] = s;` then `x[i] = f(y[i])` under `for t` keeps its rows parallel under
   minimal fusion, while maximal fusion shifts the second loop into the first
   (`x` after every row) and leaves the rows sequential;
   `sequential_statements`: statements whose outermost band has no coincident
   member: no thread team around them (or one per outer iteration);
3. `untiled_statements`: statements outside any permutable band of two or more
   members, which `tile` leaves alone;
4. `shared_arrays`: reuse gained by fusion, the arrays that two or more
   statements touch under the same outermost band (Kennedy & McKinley,
   "Maximizing loop parallelism and improving data locality via loop fusion and
   distribution", LCPC 1993, where fusion is worth the reuse it brings unless it
   costs parallelism);
5. `matrix_passes`, in regions whose deepest statements run in two loops only
   (matrix-vector products, `clangpass.poly.memory_streams`): how many outermost
   nests read or write each matrix, summed. Such regions are bound by memory
   bandwidth (or by add latency, which `reduction-jam` removes), and each nest
   streams its matrices from memory once: gemver's maximal fusion updates `A` and
   reads it for `x` in one nest (two passes over `A` instead of three), which ran
   6.2-6.5 ms against 8.6-8.7 (gcc -O3 9.2) at N=2000 on one thread, although it
   leaves `w`'s nest sequential. It counts after the strided accesses (deriche's
   maximal fusion saves passes over its images but walks 10 of them with a stride,
   and its 20 sequential statements cost the threads).

Candidates compare by these, in this order (fewer strided accesses, then whether any dominant
statement has a parallel loop at all, then fewer matrix passes, then fewer serial statements, then fewer sequential statements, then fewer untiled ones, then more shared arrays),
and, last, whether any statement at all has a parallel loop: where no dominant statement can
have one and the costs are otherwise equal, a candidate that distributes 3AC trisolv's
`x[i] = b[i]` into a parallel loop of its own (as the original kernel's schedule does) beats
the one that fuses it into the skewed sequential band of the solve. (Counting such statements
rather than asking whether there is one made PolyBench adi's minimal fusion win, 14 parallel
loops against 4, and run 10% slower.) Equal costs keep the first
candidate (maximal fusion), the historical default. A candidate
that leaves every dominant statement without a parallel loop loses to one that does not, before
the matrix passes count: a saved pass over a matrix is worth at most the third of a memory-bound
run (three passes to two), all the threads are worth more, and such a schedule rarely keeps a
tiled band either, so that `source-order` gives it up for the source order, not for the other
candidate. 3AC gemver: maximal fusion saved two passes over `A` with one skewed band and no
parallel loop for its 13 dominant statements; minimal fusion has 2 tiled bands and 4 parallel
loops, like the original kernel's schedule, where the source order came instead.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Iterator

import islpy as isl

from clangpass.poly.memory_streams import matrix_passes
from clangpass.poly.scop import Scop, instances_of, statement_names
from clangpass.poly.strides import Stride, stride_table


@dataclass(frozen=True)
class ScheduleCost:
    """What a candidate schedule costs the statements that dominate the run time."""

    strided_accesses: int
    sequential_statements: int
    untiled_statements: int
    shared_arrays: int
    matrix_passes: int = 0
    serial_statements: int = 0
    statements: int = 0             # the dominant statements counted
    parallel_loops: bool = True     # whether any statement at all, dominant or not, has a parallel loop

    @property
    def threadless(self) -> bool:
        """No dominant statement has a parallel loop."""
        return self.statements > 0 and self.serial_statements == self.statements

    def key(self) -> tuple[int, ...]:
        """Smaller is better."""
        return (self.strided_accesses, int(self.threadless), self.matrix_passes, self.serial_statements,
                self.sequential_statements, self.untiled_statements, -self.shared_arrays,
                int(not self.parallel_loops))

    def describe(self) -> str:
        passes = f"{self.matrix_passes} matrix passes, " if self.matrix_passes else ""
        serial = f"{self.serial_statements} with no parallel loop, " if self.serial_statements else ""
        others = "" if self.parallel_loops else ", no parallel loop at all"
        return (f"{passes}{self.strided_accesses} strided accesses, {serial}{self.sequential_statements} sequential and "
                f"{self.untiled_statements} untiled statements, {self.shared_arrays} shared arrays{others}")


@dataclass(frozen=True)
class FusionChoice:
    """The candidate kept (its name: 'max', 'min') and why."""

    strategy: str
    reason: str


def _bands(node: isl.ScheduleNode, depth: int = 0) -> Iterator[tuple[isl.ScheduleNode, int]]:
    """Every band node under `node`, outermost first, with the number of bands above it."""
    if node.get_type() == isl.schedule_node_type.band:
        yield node, depth
        depth += 1
    for k in range(node.n_children()):
        yield from _bands(node.child(k), depth)


def _statements(node: isl.ScheduleNode) -> set[str]:
    """Names of the statements whose instances reach `node`."""
    return set(statement_names(node.get_domain()))


def _dominant_statements(scop: Scop) -> set[str]:
    """The statements with the most enclosing loops: they run the most instances."""
    deepest = max((s.domain.dim(isl.dim_type.set) for s in scop.compute_statements), default=0)
    return {s.name for s in scop.compute_statements if s.domain.dim(isl.dim_type.set) == deepest}


def _fewest_jumps(band: isl.ScheduleNode, members: Iterable[int], accesses: isl.UnionMap) -> int:
    """The fewest accesses of `accesses` that jump (`Stride.OTHER`) along one of `members`; the
    strides of every member come from one stride table."""
    table = stride_table(band, accesses)
    return min(sum(stride is Stride.OTHER for stride in table[m]) for m in members)


def schedule_cost(scop: Scop, schedule: isl.Schedule) -> ScheduleCost:
    """The cost of `schedule` (a schedule of `scop`'s compute statements) under the model above."""
    dominant = _dominant_statements(scop)
    outermost: dict[str, isl.ScheduleNode] = {}
    innermost: dict[str, isl.ScheduleNode] = {}
    tiled: set[str] = set()
    parallel: set[str] = set()
    anywhere = False                                          # a coincident band, over any statement
    id_of: dict[str, int] = {}                                # statement -> its innermost band's number
    for number, (band, _) in enumerate(_bands(schedule.get_root())):
        coincident = any(band.band_member_get_coincident(m) for m in range(band.band_n_member()))
        anywhere = anywhere or coincident
        for name in _statements(band) & dominant:
            outermost.setdefault(name, band)
            innermost[name] = band
            id_of[name] = number
            if coincident:
                parallel.add(name)
            if band.band_get_permutable() and band.band_n_member() >= 2:
                tiled.add(name)
    accesses = scop.reads.union(scop.writes)                  # [P] -> { S[i..] -> A[a..] }
    strided = sequential = untiled = serial = counted = 0
    # One innermost member per band, for all its statements (point-loop-order permutes the
    # band as a whole, and only a band with a coincident member).
    sharing: dict[int, list[str]] = {}
    for statement in scop.compute_statements:
        if statement.name in dominant and statement.name in innermost:
            sharing.setdefault(id_of[statement.name], []).append(statement.name)
    for names in sharing.values():
        band = innermost[names[0]]
        own = accesses.intersect_domain(instances_of(scop.domain, set(names)))  # { S[i..] -> A[a..] }
        movable = (band.band_get_permutable() and band.band_n_member() >= 2
                   and any(band.band_member_get_coincident(m) for m in range(band.band_n_member())))
        members = range(band.band_n_member()) if movable else [band.band_n_member() - 1]
        strided += _fewest_jumps(band, members, own)
    for statement in scop.compute_statements:
        name = statement.name
        if name not in dominant or name not in innermost:
            # No loop at all around it (a zero-dimensional region): nothing to walk or share.
            continue
        # Any tiled band around it counts: a reduction loop below a tiled band of the loops
        # around its initialisation (PRE's `t = 0; for k: t += ...; C[i][j] = t;`) is tiled there.
        counted += 1
        untiled += name not in tiled
        outer = outermost[name]
        sequential += not any(outer.band_member_get_coincident(m) for m in range(outer.band_n_member()))
        serial += name not in parallel
    return ScheduleCost(strided, sequential, untiled, _shared_arrays(scop, schedule),
                        matrix_passes(scop, schedule), serial, counted, anywhere)


def _shared_arrays(scop: Scop, schedule: isl.Schedule) -> int:
    """Arrays touched by two or more statements under one outermost band, summed over those bands."""
    accesses = scop.reads.union(scop.writes)                  # [P] -> { S[i..] -> A[a..] }
    shared = 0
    for band, depth in _bands(schedule.get_root()):
        if depth:
            continue
        users: dict[str, set[str]] = {}
        touched = accesses.intersect_domain(band.get_domain())    # { S[i..] -> A[a..] } under this band
        maps = touched.get_map_list()
        for access in (maps.get_at(k) for k in range(maps.n_map())):
            users.setdefault(access.get_tuple_name(isl.dim_type.out), set()).add(
                access.get_tuple_name(isl.dim_type.in_))
        shared += sum(len(statements) >= 2 for statements in users.values())
    return shared


def dependence_components(statements: list[str], validity: isl.UnionMap) -> list[set[str]]:
    """The strongly connected components of the statement graph of `validity`.

    With a single component, minimal fusion has nothing to separate and gives
    isl's maximal-fusion schedule again, so the second scheduling run is skipped.
    """
    successors: dict[str, set[str]] = {name: set() for name in statements}
    maps = validity.get_map_list()                            # [P] -> { S[i..] -> T[j..] }
    for k in range(maps.n_map()):
        dep = maps.get_at(k)
        source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
        if source in successors and sink in successors:
            successors[source].add(sink)

    def reach(start: str) -> set[str]:
        seen, todo = {start}, [start]
        while todo:
            for nxt in successors[todo.pop()] - seen:
                seen.add(nxt)
                todo.append(nxt)
        return seen

    # A few statements per region: reachability sets are cheap and plainly correct.
    reachable = {name: reach(name) for name in statements}
    components: list[set[str]] = []
    for name in statements:
        if not any(name in c for c in components):
            components.append({other for other in reachable[name] if name in reachable[other]})
    return components


def choose_fusion(scop: Scop, candidates: dict[str, isl.Schedule]) -> FusionChoice:
    """The cheapest candidate (the first among equals) and why."""
    names = list(candidates)
    first = candidates[names[0]]
    if all(first.plain_is_equal(candidates[n]) for n in names[1:]):
        return FusionChoice(names[0], f"{' and '.join(names)} fusion give the same schedule")
    costs = {name: schedule_cost(scop, s) for name, s in candidates.items()}
    best = min(names, key=lambda n: costs[n].key())
    return FusionChoice(best, "fusion model: " + "; ".join(f"{n}: {costs[n].describe()}" for n in names))
