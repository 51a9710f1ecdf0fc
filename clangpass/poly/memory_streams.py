# SPDX-License-Identifier: MIT
"""Matrices a schedule streams from memory more often than the source order does.

Input: a Scop and a schedule of its compute statements. Output: the names of the
matrices (arrays of two or more dimensions) that the source order reads from memory
once and the schedule more than once (`restreamed_matrices`).

Model. Only regions whose deepest statements run in two loops count (matrix-vector
products: atax, bicg, gesummv, mvt, gemver, trisolv), and only the accesses of those
statements. In such a region one iteration of the outermost loop of a nest touches
at most a row or a column of a matrix, which stays in cache until the next iteration
(the capacity argument of Wolf & Lam, "A data locality optimizing algorithm", PLDI
1991, section 4, which `keep-streams` also uses). So an element of a matrix comes
from memory once when every pair of accesses that touches it does so within one
iteration of one outermost loop (*near* reuse), and again for every pair that
touches it in different outermost nests or different outermost iterations (*far*
reuse: between them the loop has walked the rest of the matrix, larger than the
cache at the sizes where it matters). A matrix is restreamed when all its reuse is
near in the source order and some of it is far in the schedule: atax's
`tmp[i] += A[i][j] * x[j]` and `y[j] += A[i][j] * tmp[i]` read row `i` of `A` twice
within one iteration of the source's `i` loop, and isl's schedule puts them in two
separately parallel nests, which read all of `A` twice.

Why it matters: these nests are memory bound, and a second pass over a matrix costs
as much as the first, while a second thread does not double the memory bandwidth
(measured in docs/passes/source-order.md).
"""
from __future__ import annotations

import islpy as isl

from clangpass.poly.scop import Scop

#: The depth of the deepest statements of the regions the model judges.
MODELLED_DEPTH = 2


def restreamed_matrices(scop: Scop, schedule: isl.Schedule) -> list[str]:
    """The matrices whose reuse is all near in the source order and partly far in `schedule`."""
    deepest = _deepest_statements(scop)
    if not deepest:
        return []
    accesses = scop.reads.union(scop.writes).intersect_domain(deepest)   # [P] -> { S[i, j] -> A[a..] }
    source = outer_iterations(scop.original_compute_schedule())           # [P] -> { S[i..] -> [nest, t] }
    transformed = outer_iterations(schedule)                              # [P] -> { S[i..] -> [nest, t] }
    restreamed: list[str] = []
    for name, matrix in sorted(_matrix_accesses(accesses).items()):
        same = matrix.apply_range(matrix.reverse())     # [P] -> { S[i..] -> T[j..] : same element }
        same = same.intersect_params(scop.context)
        if _all_near(same, source) and not _all_near(same, transformed):
            restreamed.append(name)
    return restreamed


def matrix_passes(scop: Scop, schedule: isl.Schedule) -> int:
    """In a region whose deepest statements run in two loops: how many outermost nests of
    `schedule` each matrix is read or written in, summed over the matrices (each such nest
    streams the matrix from memory once, by the capacity argument above); 0 in other regions."""
    deepest = _deepest_statements(scop)
    if deepest.is_empty():
        return 0
    accesses = scop.reads.union(scop.writes).intersect_domain(deepest)   # [P] -> { S[i, j] -> A[a..] }
    nests = outer_iterations(schedule)                                   # [P] -> { S[i..] -> [nest, t] }
    passes = 0
    for matrix in _matrix_accesses(accesses).values():
        used = matrix.domain().apply(nests)                              # [P] -> { [nest, t] }
        sets = used.get_set_list()
        ids: set[int] = set()
        for k in range(sets.n_set()):
            nest = sets.get_at(k).project_out(isl.dim_type.set, 1, 1).intersect_params(scop.context)
            ids |= set(_values(nest))
        passes += len(ids)
    return passes


def _values(nest: isl.Set) -> list[int]:
    """The values of the one-dimensional set `nest` (a handful of nest numbers)."""
    if nest.is_empty():
        return []
    high = nest.dim_max_val(0)
    if not high.is_int():
        return []
    space = nest.get_space()
    return [k for k in range(int(high.to_python()) + 1)
            if not nest.intersect(isl.Set.universe(space).fix_val(
                isl.dim_type.set, 0, isl.Val.int_from_si(nest.get_ctx(), k))).is_empty()]


def outer_iterations(schedule: isl.Schedule) -> isl.UnionMap:
    """[P] -> { S[i..] -> [nest, t] }: the outermost nest (numbered in schedule order) and the date of
    its outermost loop at which each instance runs; t = 0 for statements outside any loop."""
    pieces: list[isl.UnionMap] = []

    def key(instances: isl.UnionMap, nest: int) -> isl.UnionMap:
        # { [t] -> [nest, t] } after the outer date
        tag = isl.Map(f"{{ [t] -> [{nest}, t] }}", context=schedule.get_ctx())
        return instances.apply_range(isl.UnionMap.from_map(tag))

    def visit(node: isl.ScheduleNode) -> None:
        kind = node.get_type()
        if kind == isl.schedule_node_type.band and node.band_n_member() > 0:
            date = node.band_get_partial_schedule().get_union_pw_aff(0)     # [P] -> { S[i..] -> [(t)] }
            dates = isl.UnionMap.from_union_pw_aff(date).intersect_domain(node.get_domain())
            pieces.append(key(dates, len(pieces)))
            return
        if kind == isl.schedule_node_type.leaf:
            zero = isl.UnionSet(isl.Set("{ [0] }", context=schedule.get_ctx()))
            pieces.append(key(isl.UnionMap.from_domain_and_range(node.get_domain(), zero), len(pieces)))
            return
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())
    out = isl.UnionMap.empty(schedule.get_domain().get_space())
    for piece in pieces:
        out = out.union(piece)
    return out


def _all_near(same: isl.UnionMap, outer: isl.UnionMap) -> bool:
    """Whether every pair in `same` runs in one iteration of one outermost loop under `outer`."""
    keyed = same.apply_domain(outer).apply_range(outer)   # [P] -> { [nest, t] -> [nest', t'] }
    if keyed.is_empty():
        return True
    zero = isl.UnionSet(isl.Set("{ [0, 0] }", context=same.get_ctx()))
    return keyed.deltas().is_subset(zero)


def _deepest_statements(scop: Scop) -> isl.UnionSet:
    """[P] -> { S[i, j] }: the compute statements with the most loops, if that is MODELLED_DEPTH."""
    depth = max((s.domain.dim(isl.dim_type.set) for s in scop.compute_statements), default=0)
    out = isl.UnionSet.empty(scop.context.get_space())
    if depth != MODELLED_DEPTH:
        return out
    for s in scop.compute_statements:
        if s.domain.dim(isl.dim_type.set) == depth:
            out = out.union(isl.UnionSet.from_set(s.domain))
    return out


def _matrix_accesses(accesses: isl.UnionMap) -> dict[str, isl.UnionMap]:
    """The accesses to each array of two or more dimensions, by array name."""
    out: dict[str, isl.UnionMap] = {}
    maps: list[isl.Map] = []
    accesses.foreach_map(maps.append)
    for m in maps:
        if m.dim(isl.dim_type.out) >= 2:
            name = m.get_tuple_name(isl.dim_type.out)
            piece = isl.UnionMap.from_map(m)
            out[name] = out[name].union(piece) if name in out else piece
    return out
