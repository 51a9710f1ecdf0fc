# SPDX-License-Identifier: MIT
"""Pass `index-set-split`: split a statement at the hyperplanes its dependences pivot on.

Input: Scop after `alias-check` (the model as extracted). Output: the same Scop, or one
in which a statement `S` is replaced by the pieces of its domain on either side of, and
on, each hyperplane `x_a = x_b` (two of its loop iterators equal) on which its
self-dependences pivot, with its record's `split_statements` counting the statements
split.

Which hyperplanes: a dependence of `S` on itself whose sources (or sinks) all lie on
`x_a = x_b`, an equality that the domain of `S` does not imply. Floyd-Warshall's
`path[i][j] = min(path[i][j], path[i][k] + path[k][j])` in `for k, i, j` has four:
row `k` is written at `i = k` and read by every other row of the same `k` (a flow
dependence from `i = k` to the rows after it, an anti dependence from the rows before
it to `i = k`), and column `k` likewise at `j = k`. They are the only dependences
between different rows, yet they make the `i` loop sequential, and those at `j = k`
make the `j` loop sequential too. On the pieces `i < k`, `i = k` and `i > k` (times
the same for `j`) the scheduler sees them as dependences between statements: each
piece's `i` loop is parallel and its `j` loop is a vector loop, and the pieces run in
the order the dependences ask (rows before `k`, row `k`, rows after).

This is index-set splitting (Griebl, Feautrier & Lengauer, "Index set splitting",
IJPP 2000; Bondhugula, Baskaran et al., "Automatic transformations for communication-
minimized parallelization and locality optimization", and Pluto's `--iss`), applied to
the one pattern above: hyperplanes found from the dependences' sources and sinks, not
from a search. At most `MAX_HYPERPLANES` per statement (3^2 pieces), only in a
statement with at least three iterators (a pivot loop around the two it relates), and
in at most `MAX_STATEMENTS` statements of a region.

Legality: the pieces partition the statement's domain and keep its body, accesses and
position in the source order (their dates are the statement's: the source order and
every schedule on the unsplit statement are schedules of the pieces); dependences are
recomputed on the new model (when nothing is split, the dependences computed here are handed
on to the `dependences` pass). Knob: --disable-pass=index-set-split. Regions with
`#pragma pencil` loop annotations are left alone (the annotations name statements).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product
from typing import Optional

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.dependences import Dependences, compute_dependences
from clangpass.poly.live_ranges import scalar_accesses, scalar_units
from clangpass.poly.scop import Scop, ScopStatement, statement_names
from clangpass.poly.validity import maps_of

MAX_HYPERPLANES = 2
MIN_ITERATORS = 3
# Statements split per region, in textual order (a three-address unit whole, the first one even
# when it has more: 3AC floyd-warshall's 5): each split one becomes up to nine, and the
# scheduler's problem grows with them.
MAX_STATEMENTS = 4


@dataclass(frozen=True)
class IndexSetSplitRecord(PassRecord):
    """The statements cut into pieces at pivot hyperplanes."""

    split_statements: int = 0


@register
class IndexSetSplit(Pass):
    """Split statements at the `x_a = x_b` hyperplanes their self-dependences pivot on."""

    name = "index-set-split"
    requires = frozenset({"scop"})
    changes_model = True
    record = IndexSetSplitRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        if scop.annotations:
            return unit
        dependences = unit.dependences
        try:
            if dependences is None:
                dependences = compute_dependences(scop, ctx.options.isl_max_operations, ctx.exact_reductions)
            units = _units(scop)
            # Only statements of units with enough iterators can pivot: the dependences among
            # them, pair by pair, never the whole region's (`Dependences.all` of a 1,000-statement
            # region is one large union to coalesce; the pairs in a unit are few).
            candidates = [members for members in units if members[0].domain.dim(isl.dim_type.set) >= MIN_ITERATORS]
            pairs = _pairs_within(dependences, candidates)
            planes: dict[str, list[tuple[int, int]]] = {}
            for members in candidates:
                if planes and len(planes) + len(members) > MAX_STATEMENTS:
                    continue
                # Each unit under its own budget: the work grows with the units, not their square.
                with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "index-set splitting"):
                    found = _pivots_of(members, pairs)
                if found:
                    planes.update((s.name, found) for s in members)
            if not planes:
                return replace(unit, dependences=dependences)
            unit_of = {s.name: members[0].name for members in units for s in members}
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "index-set splitting"):
                split, count = split_statements(scop, planes, unit_of)
        except BudgetExceeded as exc:
            return replace(unit.with_note(f"{exc}: no statement split"), dependences=dependences)
        if not count:
            return replace(unit, dependences=dependences)
        done = unit.record(IndexSetSplitRecord).split_statements + count
        return unit.with_model(split).with_record(IndexSetSplitRecord(done))


def pivots(members: list[ScopStatement], deps: isl.UnionMap) -> list[tuple[int, int]]:
    """The hyperplanes `x_a = x_b` (iterator positions a < b) on which all the sources or all
    the sinks of one of the dependences `deps` among `members` (one statement, or the statements
    of one three-address unit, which share their loops) lie, and their domains do not imply."""
    names = {s.name for s in members}
    pairs: dict[tuple[str, str], isl.Map] = {}
    for m in maps_of(deps):
        key = (m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))
        if key[0] in names and key[1] in names:
            pairs[key] = m
    return _pivots_of(members, pairs)


def _pairs_within(dependences: Dependences, units: list[list[ScopStatement]]) -> dict[tuple[str, str], isl.Map]:
    """(source, sink) -> [P] -> { S[i..] -> T[j..] }: every dependence (flow, anti, output) between
    two statements of one of `units`, the kinds united in the order of `Dependences.all` (which
    `_pivots_of` then coalesces as `all` does), found in one walk over the dependences."""
    unit_of = {s.name: k for k, members in enumerate(units) for s in members}
    parts: dict[tuple[str, str], isl.Map] = {}
    for kind in (dependences.flow, dependences.anti, dependences.output):
        for m in maps_of(kind):
            source, sink = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
            if source in unit_of and unit_of[source] == unit_of.get(sink):
                key = (source, sink)
                parts[key] = parts[key].union(m) if key in parts else m
    return parts


def _pivots_of(members: list[ScopStatement], pairs: dict[tuple[str, str], isl.Map]) -> list[tuple[int, int]]:
    """`pivots` of `members` from their dependences by statement pair (`_pairs_within`); the pieces
    are those of the coalesced pair, as in `Dependences.all`."""
    found: list[tuple[int, int]] = []
    for source, sink in product(members, members):
        dependence = pairs.get((source.name, sink.name))
        if dependence is None:
            continue
        pieces: list[isl.BasicMap] = []
        dependence.coalesce().foreach_basic_map(pieces.append)       # [P] -> { S[i..] -> T[j..] }
        for piece in pieces:
            for ends, owner in ((piece.domain(), source), (piece.range(), sink)):
                for a, b in _equal_iterators(ends):
                    plane = _plane(owner.domain.get_space(), a, b)
                    if (a, b) not in found and not owner.domain.is_subset(plane):
                        found.append((a, b))
    return found[:MAX_HYPERPLANES]


def _units(scop: Scop) -> list[list[ScopStatement]]:
    """The compute statements in textual order, joined into the three-address units of
    `scalar_units` among the statements of the same loops (3AC floyd-warshall's `t1 = ..;
    t2 = ..; ..; paths[i][j] = t4;`): the dependences that pivot on a hyperplane run between
    the unit's statements, and its pieces are only split together."""
    by_name = {s.name: s for s in scop.compute_statements}
    loops: dict[tuple[str, ...], list[str]] = {}
    for s in scop.compute_statements:
        loops.setdefault(s.iterators, []).append(s.name)
    accesses = scalar_accesses(scop)
    units = [[by_name[n] for n in unit] for names in loops.values() for unit in scalar_units(names, accesses)]
    rank = {s.name: k for k, s in enumerate(scop.compute_statements)}
    return sorted(units, key=lambda members: rank[members[0].name])


def split_statements(scop: Scop, planes: dict[str, list[tuple[int, int]]],
                     unit_of: Optional[dict[str, str]] = None) -> tuple[Scop, int]:
    """`scop` with each statement named in `planes` replaced by its non-empty pieces: for every
    hyperplane `x_a = x_b`, the part with `x_b < x_a`, `x_b = x_a` or `x_b > x_a`, and how many
    statements were cut (0: `scop` itself). The first piece keeps the statement's name, the
    others get new `S_<n>` names."""
    next_index = 1 + max((int(s.name[2:]) for s in scop.compute_statements), default=-1)
    statements: list[ScopStatement] = []
    sides: dict[str, tuple[str, tuple[int, ...]]] = {}      # piece -> (statement, side of each plane)
    rename = isl.UnionMap.empty(scop.context.get_space())   # [P] -> { piece[i..] -> S[i..] }
    split = 0
    for s in scop.statements:
        if s.name not in planes:
            statements.append(s)
            identity = isl.Map.identity(isl.Space.map_from_set(s.domain.get_space())).intersect_domain(s.domain)
            rename = rename.union(isl.UnionMap.from_map(identity))
            continue
        parts = [(side, p) for side, p in _pieces(s.domain, planes[s.name]) if not p.is_empty()]
        if len(parts) > 1:
            split += 1
        for k, (side, part) in enumerate(parts):
            name = s.name if k == 0 else f"S_{next_index}"
            next_index += 0 if k == 0 else 1
            sides[name] = (s.name, side)
            domain = part.set_tuple_name(name)
            statements.append(replace(s, name=name, domain=domain))
            to_statement = isl.Map.identity(isl.Space.map_from_set(s.domain.get_space())).intersect_domain(part)
            rename = rename.union(isl.UnionMap.from_map(to_statement.set_tuple_name(isl.dim_type.in_, name)))
    if not split:
        return scop, 0
    pullback = isl.UnionPwMultiAff.from_union_map(rename)   # [P] -> { piece[i..] -> S[i..] }
    every = rename.domain()
    compute = isl.UnionSet.empty(scop.context.get_space())
    for s in statements:
        if s.kind == "compute":
            compute = compute.union(isl.UnionSet.from_set(s.domain))
    original = scop.original_schedule.pullback_union_pw_multi_aff(pullback).intersect_domain(every)
    original = _split_loops(original, planes, sides, unit_of or {})
    return scop.with_model(statements=tuple(statements),
                           reads=rename.apply_range(scop.reads), must_writes=rename.apply_range(scop.must_writes),
                           may_writes=rename.apply_range(scop.may_writes), kills=rename.apply_range(scop.kills),
                           original_schedule=original, schedule=original.intersect_domain(compute)), split


def _split_loops(schedule: isl.Schedule, planes: dict[str, list[tuple[int, int]]],
                 sides: dict[str, tuple[str, tuple[int, ...]]], unit_of: dict[str, str]) -> isl.Schedule:
    """The source order `schedule` of the pieces with the loop over `x_b` of each plane
    `x_a = x_b` cut in three, one loop per side (a sequence above the loop's band): the same
    execution order, since `x_a` is fixed by an outer loop and the loop visits the values of
    `x_b` below `x_a`, then `x_a`, then those above it (in reverse for a decreasing loop). It
    is done only where every instance the loop runs belongs to pieces of one statement, or of
    the statements of one unit (`unit_of`: statement -> its unit's first statement), split alike."""

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band and node.band_n_member() == 1:
            filters = _side_filters(node, planes, sides, unit_of)
            if filters is not None:
                node = node.insert_sequence(filters)
        for k in range(node.n_children()):
            node = visit(node.child(k)).parent()
        return node

    return visit(schedule.get_root()).get_schedule()


def _side_filters(band: isl.ScheduleNode, planes: dict[str, list[tuple[int, int]]],
                  sides: dict[str, tuple[str, tuple[int, ...]]], unit_of: dict[str, str]) -> isl.UnionSetList | None:
    """The instances under `band` on each side of a plane whose `x_b` the band iterates, in
    the band's order; None when the band iterates no such `x_b` or runs other statements."""
    instances = band.get_domain()
    names = statement_names(instances)
    owners = {unit_of.get(sides[n][0], sides[n][0]) for n in names if n in sides}
    if len(owners) != 1 or not names <= set(sides):
        return None
    owner = owners.pop()
    date = band.band_get_partial_schedule().get_union_pw_aff(0)          # [P] -> { S[i..] -> [(t)] }
    sets = instances.get_set_list()
    pieces = [sets.get_at(k) for k in range(sets.n_set())]             # one per statement
    for index, (_, b) in enumerate(planes[owner]):
        signs = set()
        for piece in pieces:
            space = piece.get_space()
            value = date.extract_pw_aff(isl.Space.from_domain(space).add_dims(isl.dim_type.out, 1))
            var = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(space), isl.dim_type.set, b)
            if piece.is_subset(value.eq_set(var)):
                signs.add(1)
            elif piece.is_subset(value.eq_set(var.neg())):
                signs.add(-1)
            else:
                signs.add(0)
        if signs not in ({1}, {-1}):
            continue
        order = (0, 1, 2) if signs == {1} else (2, 1, 0)
        groups = [isl.UnionSet.empty(instances.get_space()) for _ in order]
        for piece in pieces:
            side = order.index(sides[piece.get_tuple_name()][1][index])
            groups[side] = groups[side].union(isl.UnionSet.from_set(piece))
        kept = [g for g in groups if not g.is_empty()]
        if len(kept) < 2:
            continue                    # all on one side of this plane (a copy already cut by it)
        filters = isl.UnionSetList.alloc(band.get_ctx(), len(kept))
        for g in kept:
            filters = filters.add(g)
        return filters
    return None


def _pieces(domain: isl.Set, planes: list[tuple[int, int]]) -> list[tuple[tuple[int, ...], isl.Set]]:
    """`domain` cut by every plane into `x_b < x_a` (side 0), `x_b = x_a` (1), `x_b > x_a` (2),
    with the side of each plane, in that order."""
    space = domain.get_space()
    sides = []
    for a, b in planes:
        plane = _plane(space, a, b)
        below = isl.Set.universe(space).add_constraint(_difference(space, b, a, 1))    # x_b < x_a
        above = isl.Set.universe(space).add_constraint(_difference(space, a, b, 1))    # x_b > x_a
        sides.append((below, plane, above))
    out = []
    for choice in product(*(enumerate(three) for three in sides)):
        part = domain
        for _, side in choice:
            part = part.intersect(side)
        out.append((tuple(k for k, _ in choice), part))
    return out


def _plane(space: isl.Space, a: int, b: int) -> isl.Set:
    """{ S[x..] : x_a = x_b } in `space`."""
    c = isl.Constraint.equality_alloc(isl.LocalSpace.from_space(space))
    c = c.set_coefficient_val(isl.dim_type.set, a, isl.Val.one(space.get_ctx()))
    c = c.set_coefficient_val(isl.dim_type.set, b, isl.Val.negone(space.get_ctx()))
    return isl.Set.universe(space).add_constraint(c)


def _difference(space: isl.Space, low: int, high: int, gap: int) -> isl.Constraint:
    """x_high - x_low - gap >= 0."""
    ctx = space.get_ctx()
    c = isl.Constraint.inequality_alloc(isl.LocalSpace.from_space(space))
    c = c.set_coefficient_val(isl.dim_type.set, high, isl.Val.one(ctx))
    c = c.set_coefficient_val(isl.dim_type.set, low, isl.Val.negone(ctx))
    return c.set_constant_val(isl.Val.int_from_si(ctx, -gap))


def _equal_iterators(ends: isl.BasicSet) -> list[tuple[int, int]]:
    """The pairs (a, b), a < b, of set dimensions that an equality of `ends` makes equal
    (`x_a - x_b = 0`, no parameter, no constant, no other dimension)."""
    pairs: list[tuple[int, int]] = []
    n = ends.dim(isl.dim_type.set)
    params = ends.dim(isl.dim_type.param)
    divs = ends.dim(isl.dim_type.div)

    def look(c: isl.Constraint) -> None:
        if not c.is_equality() or not c.get_constant_val().is_zero():
            return
        if any(not c.get_coefficient_val(isl.dim_type.param, p).is_zero() for p in range(params)):
            return
        if any(not c.get_coefficient_val(isl.dim_type.div, d).is_zero() for d in range(divs)):
            return
        used = [(d, c.get_coefficient_val(isl.dim_type.set, d).to_python()) for d in range(n)
                if not c.get_coefficient_val(isl.dim_type.set, d).is_zero()]
        if len(used) == 2 and used[0][1] == -used[1][1] and abs(used[0][1]) == 1:
            pairs.append((used[0][0], used[1][0]))

    ends.foreach_constraint(look)
    return pairs
