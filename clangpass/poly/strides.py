# SPDX-License-Identifier: MIT
"""How far each memory access moves when one loop of a band advances by one.

Input: a band node of a schedule tree, one of its members and access relations
`[P] -> { S[i..] -> A[a..] }`. Output: for each access, its `Stride` along that
loop with every other loop (outer bands, the band's other members) fixed:
`INVARIANT` (the same element: a register), `UNIT` (the next element in the
last, contiguous dimension of a row-major C array: a vector lane or the next
cache-line word) or `OTHER` (a jump, a new cache line per iteration).

The stride is exact and needs no closed form of the schedule: relate each
schedule date `T` to the element it accesses, step the date by one along the
member, and take the differences of the elements accessed at `T` and at the next
date (`deltas`). Tiled point loops (`i mod 32`) work unchanged because the tile
loops are part of the fixed prefix. This is the spatial/temporal locality model
of Wolf & Lam ("A data locality optimizing algorithm", PLDI 1991, section 3),
restricted to the innermost loop, as in Kennedy & McKinley's loop permutation
cost ("Optimizing for parallelism and data locality", ICS 1992).
"""
from __future__ import annotations

import enum
from typing import Callable, Optional

import islpy as isl


class Stride(enum.Enum):
    INVARIANT = 0
    UNIT = 1
    OTHER = 2


def band_dates(band: isl.ScheduleNode) -> isl.UnionMap:
    """[P] -> { S[i..] -> [outer dates, band dates] } for the instances reaching `band`."""
    prefix = band.get_prefix_schedule_union_map()             # [P] -> { S[i..] -> [outer] }
    partial = band.band_get_partial_schedule_union_map()      # [P] -> { S[i..] -> [band] }
    return prefix.flat_range_product(partial).intersect_domain(band.get_domain())


def access_strides(band: isl.ScheduleNode, member: int, accesses: isl.UnionMap) -> list[Stride]:
    """The stride along band member `member` of every access (basic map) of `accesses`
    (`stride_table(band, accesses)[member]`, without the other members' rows)."""
    return [_classify(move(member)) for _, _, move in _access_moves(band, accesses)]


def stride_table(band: isl.ScheduleNode, accesses: isl.UnionMap, members: Optional[int] = None) -> list[list[Stride]]:
    """`strides[m][k]`: the stride along band member m of the k-th access (basic map) of `accesses`.
    With `members`, the last `members` schedule dimensions at `band` count as its members (a
    band split in two, the outer part's members first), each advanced with the others fixed."""
    n = band.band_n_member() if members is None else members
    strides: list[list[Stride]] = [[] for _ in range(n)]
    for _, moves in _member_moves(band, accesses, n):
        for m in range(n):
            strides[m].append(_classify(moves[m]))
    return strides


def displacement_table(band: isl.ScheduleNode, accesses: isl.UnionMap) -> list[tuple[str, list[Optional[tuple[int, ...]]]]]:
    """For every access (basic map) of `accesses`, in `stride_table`'s order: its array and, per
    band member, the element displacement when that member advances by one (`(0, .., -2)`: two
    elements back in the last dimension), or None when it is not one constant vector."""
    return [(array, [_constant(moves[m]) for m in range(len(moves))]) for array, moves in _member_moves(band, accesses)]


def _member_moves(band: isl.ScheduleNode, accesses: isl.UnionMap,
                  members: Optional[int] = None) -> list[tuple[str, list[isl.UnionSet]]]:
    """Per access (basic map) of `accesses` under `band`: its array and, per band member (the
    last `members` dimensions of its dates, default its own members), the set of element
    differences `{ A[a' - a] }` between consecutive dates along the member."""
    return [(array, [move(m) for m in range(n)]) for array, n, move in _access_moves(band, accesses, members)]


class StrideRows:
    """`stride_table(band, accesses, members)` computed entry by entry as asked (`all_are`, `row`): a
    question about one member stops at the first access that answers it. Each entry costs a
    composition through the band's dates (fdtd-2d's skewed point band: 0.01 s of isl work)."""

    def __init__(self, band: isl.ScheduleNode, accesses: isl.UnionMap, members: Optional[int] = None) -> None:
        self._moves = _access_moves(band, accesses, members)
        self._known: dict[tuple[int, int], Stride] = {}

    def __len__(self) -> int:
        """The accesses (basic maps): the length of every row."""
        return len(self._moves)

    def entry(self, member: int, k: int) -> Stride:
        """The stride of access `k` along `member`."""
        if (member, k) not in self._known:
            self._known[member, k] = _classify(self._moves[k][2](member))
        return self._known[member, k]

    def all_are(self, member: int, stride: Stride) -> bool:
        """Whether every access has `stride` along `member` (True when nothing is accessed)."""
        return all(self.entry(member, k) is stride for k in range(len(self._moves)))

    def row(self, member: int) -> list[Stride]:
        """`stride_table(..)[member]`."""
        return [self.entry(member, k) for k in range(len(self._moves))]


def _access_moves(band: isl.ScheduleNode, accesses: isl.UnionMap, members: Optional[int] = None
                  ) -> list[tuple[str, int, Callable[[int], isl.UnionSet]]]:
    """Per access (basic map) of `accesses` under `band`: its array, the number of members, and
    the function of a member that gives `_member_moves`' set for it (computed when called: each
    member's composition through the dates costs isl as much as the others, fdtd-2d's skewed
    point band 0.01 s)."""
    dates = band_dates(band)                                  # [P] -> { S[i..] -> [T] }
    maps = dates.get_map_list()
    n = band.band_n_member() if members is None else members
    if maps.n_map() == 0:
        return []
    date_space = maps.get_at(0).get_space().range()           # [P] -> { [T] }
    outer = date_space.dim(isl.dim_type.set) - n
    steps = [_step(date_space, outer + m) for m in range(n)]  # [P] -> { [T] -> [T + e_m] }
    moves: list[tuple[str, int, Callable[[int], isl.UnionSet]]] = []
    accessed = accesses.intersect_domain(band.get_domain()).get_map_list()
    for k in range(accessed.n_map()):
        # One basic map per access: a statement's reads of A[i][j] and A[i][j - 1] share one
        # map, and their union would pair each element with the other's (a stride of 0..2).
        pieces = accessed.get_at(k).get_basic_map_list()
        for b in range(pieces.n_basic_map()):
            piece = pieces.get_at(b)
            access = isl.UnionMap.from_basic_map(piece)              # [P] -> { S[i..] -> A[a..] }
            element = dates.reverse().apply_range(access)            # [P] -> { [T] -> A[a..] }
            before = element.reverse()                               # [P] -> { A[a..] -> [T] }

            def move(m: int, before: isl.UnionMap = before, element: isl.UnionMap = element) -> isl.UnionSet:
                return before.apply_range(steps[m]).apply_range(element).deltas()

            moves.append((piece.get_tuple_name(isl.dim_type.out), n, move))
    return moves


def _constant(differences: isl.UnionSet) -> Optional[tuple[int, ...]]:
    """The one vector of `differences` ({ A[d..] } with d fixed), else None; zeros when empty
    (the member never advances with this access)."""
    sets = differences.get_set_list()
    if sets.n_set() != 1:
        return None if sets.n_set() else ()
    delta = sets.get_at(0)
    values = []
    for d in range(delta.dim(isl.dim_type.set)):
        value = delta.plain_get_val_if_fixed(isl.dim_type.set, d)
        if value.is_nan():
            return None
        values.append(value.to_python())
    return tuple(values)


def member_costs(band: isl.ScheduleNode, strides: list[list[Stride]]) -> list[tuple[int, int]]:
    """How bad each member is as the innermost loop, from `stride_table`: (accesses that jump,
    1 if the member is not coincident)."""
    return [(sum(1 for s in along if s is Stride.OTHER), 0 if band.band_member_get_coincident(m) else 1)
            for m, along in enumerate(strides)]


def preferred_innermost(costs: list[tuple[int, int]]) -> int:
    """The member with the lowest cost (`member_costs`); ties go to the innermost one."""
    return min(range(len(costs)), key=lambda m: (costs[m], -m))


def _step(date_space: isl.Space, position: int) -> isl.UnionMap:
    """[P] -> { [T] -> [T'] : T' = T except T'[position] = T[position] + 1 }."""
    identity = isl.MultiAff.identity(isl.Space.map_from_set(date_space))
    moved = identity.get_aff(position).add_constant_val(isl.Val.one(date_space.get_ctx()))
    return isl.UnionMap.from_map(isl.Map.from_multi_aff(identity.set_aff(position, moved)))


def _classify(differences: isl.UnionSet) -> Stride:
    """INVARIANT for { A[0..0] }, UNIT for { A[0..0, +-1] }, OTHER for anything else."""
    sets = differences.get_set_list()
    if sets.n_set() == 0:
        return Stride.INVARIANT          # the loop never advances with this access (one iteration)
    if sets.n_set() > 1:
        return Stride.OTHER
    delta = sets.get_at(0)                                    # [P] -> { A[d..] }
    rank = delta.dim(isl.dim_type.set)
    zero = _point(delta.get_space(), rank, 0)
    if delta.is_subset(zero):
        return Stride.INVARIANT
    if rank > 0 and (delta.is_subset(_point(delta.get_space(), rank, 1))
                     or delta.is_subset(_point(delta.get_space(), rank, -1))):
        return Stride.UNIT
    return Stride.OTHER


def _point(space: isl.Space, rank: int, last: int) -> isl.Set:
    """[P] -> { A[0, ..., 0, last] } in `space` (the zero point when rank is 0)."""
    point = isl.Set.universe(space)
    for d in range(rank):
        value = last if d == rank - 1 else 0
        point = point.fix_val(isl.dim_type.set, d, isl.Val.int_from_si(space.get_ctx(), value))
    return point
