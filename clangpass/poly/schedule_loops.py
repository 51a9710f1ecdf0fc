# SPDX-License-Identifier: MIT
"""The loops of a final schedule tree, one `LoopFact` per band member, for people to read.

Input: the schedule tree the region's code is generated from (after every pass) and the
region's dependences (or None when the pipeline computed none). Output: the band members in
the order the generated loops nest (depth first, outer before inner), each with the
statements it iterates, the source iterators its dates follow, and what the passes decided
for it: its roles in a tiling (`tile` / `point` / `register-tile`, from the marks above it,
clangpass.poly.codegen_unit) and the marks that sit directly above it (`parallel`, `vector`,
`wavefront`, `thread-team`, `coincident`). Whether the member carries a dependence is
answered with isl (clangpass.poly.validity.carries_dependence) for each member that is not
marked parallel, so that the report can say why a loop stayed sequential. Given the region's
source order too, a loop is `fused` when it runs, along one iterator, statements that were in
different loops of the source.

A member along which no statement's date depends on its iterators is not a loop (isl prints
no `for` for it) and is left out. Plain values only: the facts cross the driver's process
boundary (clangpass.driver.isolate) and are printed by clangpass.report_html.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.passes.tile import POINT_MARK, TILE_MARK
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK, TEAM_MARK, WAVEFRONT_MARK
from clangpass.poly.validity import COINCIDENT_MARK, PARALLEL_MARK, VECTOR_MARK, carries_dependence

# Marks that say what the band members below them are (until the next such mark).
_ROLE_MARKS = (TILE_MARK, POINT_MARK, REGISTER_TILE_MARK)
# Marks that say something about the band directly below them.
_LOOP_MARKS = (PARALLEL_MARK, VECTOR_MARK, WAVEFRONT_MARK, TEAM_MARK, COINCIDENT_MARK)


@dataclass(frozen=True)
class LoopFact:
    """One loop of the generated code: a member of a band of the final schedule tree."""

    depth: int                          # loops around it
    statements: tuple[str, ...]         # the statements it iterates (S_0, ...), in name order
    iterators: tuple[str, ...]          # the source iterators its dates follow ('i', 'k'), in first-use order
    schedule: str                       # its partial schedule, as isl prints it
    # Its place in a tiling: () for an untiled loop, ('tile',) for a loop over tiles, ('point',) for a
    # loop inside a tile, with 'register-tile' after it inside an unroll-and-jammed point band.
    roles: tuple[str, ...] = ()
    marks: tuple[str, ...] = ()         # of _LOOP_MARKS, those directly above its band (first member only)
    coincident: bool = False            # the scheduler's (or a pass's) coincident flag
    # Whether it carries a dependence between the instances it runs (None: not asked, because the
    # loop is marked parallel, or the region has no dependences to ask).
    carries_dependence: Optional[bool] = None
    innermost: bool = False             # no loop below it
    # Whether it runs statements that were in different loops of the source (fusion put them
    # in one); False when no source order was given.
    fused: bool = False


def schedule_loops(schedule: isl.Schedule, deps: Optional[isl.UnionMap],
                   source: Optional[isl.Schedule] = None) -> tuple[LoopFact, ...]:
    """The loops of `schedule`, outermost first, depth first (see the module's doc); `source`, the
    region's source order, tells which loops fuse loops of the source."""
    facts: list[LoopFact] = []
    _walk(schedule.get_root(), deps, role=(), pending=(), depth=0, out=facts)
    if source is None:
        return tuple(facts)
    loops = source_loops(source)
    return tuple(replace(f, fused=_fuses(f, loops)) for f in facts)


def source_loops(source: isl.Schedule) -> dict[tuple[str, str], tuple[int, ...]]:
    """(statement, iterator) -> the loop of the source order `source` that iterator belongs to,
    named by the band member's position in the tree (child positions from the root, then member)."""
    out: dict[tuple[str, str], tuple[int, ...]] = {}

    def walk(node: isl.ScheduleNode, path: tuple[int, ...]) -> None:
        if node.get_type() == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()
            instances = node.get_domain()
            for member in range(node.band_n_member()):
                dates = partial.get_union_pw_aff(member).intersect_domain(instances)
                for statement, iterators in _iterated_by_statement(dates).items():
                    for name in iterators:
                        out.setdefault((statement, name), (*path, member))
        for k in range(node.n_children()):
            walk(node.child(k), (*path, k))

    walk(source.get_root(), ())
    return out


def _fuses(loop: LoopFact, loops: dict[tuple[str, str], tuple[int, ...]]) -> bool:
    """Whether `loop` runs, along one of its iterators, statements from two loops of the source."""
    for name in loop.iterators:
        found = {loops[(s, name)] for s in loop.statements if (s, name) in loops}
        if len(found) > 1:
            return True
    return False


def _walk(node: isl.ScheduleNode, deps: Optional[isl.UnionMap], role: tuple[str, ...], pending: tuple[str, ...],
          depth: int, out: list[LoopFact]) -> bool:
    """Append the loops of `node`'s subtree to `out`; True when it holds a loop."""
    kind = node.get_type()
    if kind == isl.schedule_node_type.mark:
        name = node.mark_get_id().get_name()
        if name in _ROLE_MARKS:
            roles = (*role, name) if name == REGISTER_TILE_MARK else (name,)
            return _walk(node.child(0), deps, roles, pending, depth, out)
        if name in _LOOP_MARKS:
            return _walk(node.child(0), deps, role, (*pending, name), depth, out)
        return _walk(node.child(0), deps, role, pending, depth, out)       # unknown marks are transparent
    if kind == isl.schedule_node_type.band:
        return _band(node, deps, role, pending, depth, out)
    found = False
    for k in range(node.n_children()):
        found = _walk(node.child(k), deps, role, (), depth, out) or found
    return found


def _band(node: isl.ScheduleNode, deps: Optional[isl.UnionMap], role: tuple[str, ...], marks: tuple[str, ...],
          depth: int, out: list[LoopFact]) -> bool:
    partial = node.band_get_partial_schedule()
    instances = node.get_domain()
    mine: list[int] = []
    for member in range(node.band_n_member()):
        dates = partial.get_union_pw_aff(member).intersect_domain(instances)
        statements, iterators = _iterated(dates)
        if not statements:
            continue
        on_it = marks if not mine else ()
        asked = deps is not None and PARALLEL_MARK not in on_it
        carried = carries_dependence(node, deps, member) if asked else None
        mine.append(len(out))
        out.append(LoopFact(depth=depth + len(mine) - 1, statements=statements, iterators=iterators,
                            schedule=str(dates), roles=role, marks=on_it,
                            coincident=bool(node.band_member_get_coincident(member)),
                            carries_dependence=carried))
    inner = _walk(node.child(0), deps, role, (), depth + len(mine), out) if node.n_children() else False
    if mine and not inner:
        last = mine[-1]
        out[last] = replace(out[last], innermost=True)
    return bool(mine) or inner


def _iterated(dates: isl.UnionPwAff) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The statements whose date in `dates` depends on their iterators, and those iterators' names."""
    by_statement = _iterated_by_statement(dates)
    iterators = [name for names in by_statement.values() for name in names]
    return tuple(sorted(by_statement)), tuple(dict.fromkeys(iterators))


def _iterated_by_statement(dates: isl.UnionPwAff) -> dict[str, tuple[str, ...]]:
    """For each statement whose date in `dates` depends on its iterators, those iterators' names."""
    out: dict[str, tuple[str, ...]] = {}
    pieces = dates.get_pw_aff_list()
    for k in range(pieces.n_pw_aff()):
        date = pieces.get_at(k)
        space = date.get_domain_space()
        n = date.dim(isl.dim_type.in_)
        used: set[int] = set()

        def piece(_: isl.Set, aff: isl.Aff) -> None:
            used.update(d for d in range(n) if aff.involves_dims(isl.dim_type.in_, d, 1))

        date.foreach_piece(piece)
        if used:
            out[space.get_tuple_name(isl.dim_type.set)] = tuple(
                space.get_dim_name(isl.dim_type.set, d) or f"i{d}" for d in sorted(used))
    return out
