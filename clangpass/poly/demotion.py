# SPDX-License-Identifier: MIT
"""Scalar accumulators demoted to the array element they end in: scalar replacement undone where
its live range spans a loop.

Input: a `Scop`. Output: the same region in which each region-local scalar `t` that accumulates a
value across an inner loop and is then stored, `X[f(x)] = t`, is replaced by that element in
every statement of its live range, and what was done (`Demotion`s). PRE's 2mm

    t1 = 0.0;  for (k ..) t1 += alpha * A[i][k] * B[k][j];  tmp[i][j] = t1;

becomes `tmp[i][j] = 0.0; for (k ..) tmp[i][j] += alpha * A[i][k] * B[k][j]; tmp[i][j] =
tmp[i][j];`, the original form (the last store is a copy of the element onto itself, which LLVM
removes).

Why: a scalar live across a whole loop cannot be tiled without interrupting its live ranges
(thesis section 2.4, Table 2.2: PRE's 2-deep reductions are not tiled even with the relaxation);
scalar expansion would make it an array. When the scalar ends in an array element that nothing
else touches while it lives, that element is already such storage, with no new memory: the
array's dependences are exact ones, which the scheduler handles as in the original program.
This is the inverse of scalar replacement (Carr & Kennedy, "Scalar replacement in the presence
of conditional control flow", SPE 1994); the scalar's registers come back with `register-tile`
and LLVM's promotion of the element in the innermost loop.

Conditions, for a store `W: X[f(x)] = t;` in loops `x` (`f` affine, `X` an array whose element
type is `t`'s), checked on the model:
- the block of `t`: the statements linked to `W` by live ranges of `t`, all inside the loops `x`
  and one of them inside a further loop (a live range within one iteration is left to
  `relax-false-deps`, which handles it without any rewrite);
- every live range of `t` with an end in the block has both ends in the block instances of one
  iteration `x`, and every read of `t` there has a source: the block computes the value from
  scratch, and nothing else reads it (value-based flow, `local_live_ranges`); `t` has no
  conditional write;
- no instance other than `W` accesses `X[f(x)]` while the block of iteration `x` runs (after
  its first instance, before `W`; its first instance may read it: `t2 = D[i][j]`).
Demotions are applied one at a time, each on the model the previous one left, whose live
ranges are computed when an anchor first needs them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.printer import format_expr
from clangpass.ir.walk import base_variable, iter_exprs, transform
from clangpass.poly.budget import isl_budget
from clangpass.poly.live_ranges import LiveRanges, live_ranges
from clangpass.poly.scop import LoopAnnotation, Scop, ScopStatement, accesses_through
from clangpass.poly.validity import earlier_pairs, maps_of


@dataclass(frozen=True)
class Demotion:
    """One scalar replaced by an array element."""

    scalar: str
    element: str                     # the element, as the store writes it: `tmp[i][j]`
    statements: tuple[str, ...]      # the statements that now access the element instead

    def describe(self) -> str:
        return f"{self.scalar} -> {self.element}"


def demote_scalars(scop: Scop, max_operations: int = 0, live: Optional[LiveRanges] = None
                   ) -> tuple[Scop, tuple[Demotion, ...], Optional[LiveRanges]]:
    """`scop` with its demotable scalars replaced (module doc), what was done, and the live ranges
    of the scop returned if they were computed (`live`: those of `scop`, if known).
    Raises BudgetExceeded."""
    done: list[Demotion] = []
    tried: set[str] = set()
    known = [live]                                   # the live ranges of the current `scop`

    def live_of(current: Scop) -> isl.UnionMap:
        if known[0] is None:
            known[0] = live_ranges(current, max_operations)
        return known[0].get()

    while True:
        found = _next_demotion(scop, tried, max_operations, live_of)
        if found is None:
            return scop, tuple(done), known[0]
        anchor, scalar, block = found
        tried.add(anchor.name)
        if block:
            scop, demotion = _demoted(scop, anchor, scalar, block)
            known[0] = None
            done.append(demotion)


def _next_demotion(scop: Scop, tried: set[str], max_operations: int, live_of: Callable[[Scop], isl.UnionMap]
                   ) -> Optional[tuple[ScopStatement, str, list[ScopStatement]]]:
    """The next anchor to try (not in `tried`), its scalar and its block (empty: not demotable)."""
    local = scop.local_scalars
    scalars = {a.name: a for a in scop.arrays if a.name in local}
    arrays = {a.name: a for a in scop.arrays if a.extents}
    for anchor in scop.compute_statements:
        if anchor.name in tried:
            continue
        copied = _copy(anchor.body, frozenset(scalars))
        if copied is None:
            continue
        value, scalar, stores = copied
        base = base_variable(value) if stores else None
        if (base is None or base.name not in arrays or arrays[base.name].element != scalars[scalar].element) \
                if stores else value.type != scalars[scalar].element:
            return anchor, scalar, []
        with isl_budget(scop.context.get_ctx(), max_operations, "scalar demotion"):
            block = _block(scop, anchor, scalar, base.name if stores else "", live_of)
        return anchor, scalar, block
    return None


def _copy(body: Optional[N.Stmt], scalars: frozenset[str]) -> Optional[tuple[N.Expr, str, bool]]:
    """(X[f], t, True) when `body` is the store `X[f] = t;`, (e, t, False) when it is the
    definition `t = e;` of a side-effect-free `e`, with `t` one of `scalars`."""
    if not isinstance(body, N.ExprStmt) or not isinstance(body.expr, N.Assign) or body.expr.op != "=":
        return None
    target, value = body.expr.target, body.expr.value
    stored = value
    while isinstance(stored, N.Cast) and stored.implicit:
        stored = stored.operand
    if isinstance(stored, N.VarRef) and stored.name in scalars and isinstance(target, N.Subscript):
        return target, stored.name, True
    if isinstance(target, N.VarRef) and target.name in scalars and _pure(value):
        return value, target.name, False
    return None


def _pure(e: N.Expr) -> bool:
    """Whether evaluating `e` has no effect but its value (no assignment, increment or call)."""
    return not any(isinstance(x, (N.Assign, N.Call)) or (isinstance(x, N.Unary) and x.op in _INCREMENTS)
                   for x in iter_exprs(e))


_INCREMENTS = frozenset({"++", "--", "post++", "post--"})


def _block(scop: Scop, anchor: ScopStatement, scalar: str, array: str,
           live_of: Callable[[Scop], isl.UnionMap]) -> list[ScopStatement]:
    """The statements whose accesses to `scalar` go to the element `anchor` stores (`array`), or
    whose reads of it become the expression the anchor defines it by (`array` empty), in textual
    order, the anchor included; empty when a condition of the module doc does not hold."""
    stores = bool(array)
    one = frozenset({scalar})
    if not accesses_through(scop.may_writes, one).is_empty():
        return []
    writes = accesses_through(scop.must_writes, one)                 # [P] -> { S[i..] -> t[] }
    reads = accesses_through(scop.reads, one)
    live = live_of(scop).intersect(writes.apply_range(reads.reverse()))
    members = {anchor.name}
    while True:
        linked = {n for m in maps_of(live) for n in (m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))}
        grown = members | {n for n in linked if _linked(live, n, members)}
        if grown == members:
            break
        members = grown
    block = [s for s in scop.compute_statements if s.name in members]
    depth = len(anchor.iterators)
    if any(s.iterators[:depth] != anchor.iterators for s in block) or all(len(s.iterators) == depth for s in block):
        return []
    named = {v.name for v in iter_exprs(_copy(anchor.body, one)[0]) if isinstance(v, N.VarRef)}
    if any(named & set(s.iterators[depth:]) for s in block):
        return []                    # an inner loop's iterator would shadow a name of the element
    instances = isl.UnionSet.empty(scop.context.get_space())
    for s in block:
        instances = instances.union(isl.UnionSet.from_set(s.domain))
    own = isl.UnionSet.from_set(anchor.domain)
    if not stores and not writes.intersect_domain(instances).subtract_domain(own).is_empty():
        return []                    # a defined `t` is only read
    to_x = iteration_prefix(block, depth)                            # [P] -> { S[x, y] -> [x] }
    same_x = to_x.apply_range(to_x.reverse())                        # [P] -> { S[x, y] -> T[x, y'] }
    touching = live.intersect_domain(instances).union(live.intersect_range(instances))
    if not touching.is_subset(same_x):
        return []
    if not reads.intersect_domain(instances).domain().intersect_params(scop.context).is_subset(live.range()):
        return []
    # The element: nothing but the block of its iteration touches it from the block's first instance
    # to its last (the blocks of other iterations that store to the same element included, as they
    # will access it); a definition's operands: nothing writes them from the definition to the
    # block's last read.
    dates = scop.original_schedule.get_map()                         # [P] -> { S[i..] -> [t..] }
    anchor_x = iteration_prefix([anchor], depth)                     # [P] -> { A[x] -> [x] }
    block_of = to_x.apply_range(anchor_x.reverse())                  # [P] -> { b -> A[x] : b in block of x }
    if stores:
        element = accesses_through(scop.must_writes, frozenset({array})).intersect_domain(own)   # { W[x] -> X[f(x)] }
        if not element.is_single_valued():
            return []
        late = earlier_pairs(block_of.reverse(), dates)              # { W[x] -> b : the store runs first }
        if not writes.intersect_domain(late.range()).is_empty():
            return []                # `t` changes after the store: the element keeps the stored value
        touches = accesses_through(scop.must_writes.union(scop.may_writes).union(scop.reads), frozenset({array}))
        demoted = block_of.apply_range(element)                      # { b -> X[f(x)] }: the block's, once demoted
        others = element.apply_range(touches.subtract_domain(own).reverse()).union(
            element.apply_range(demoted.reverse()).subtract(block_of.reverse()))       # { W[x] -> e }
    else:
        element = scop.reads.intersect_domain(own)                   # [P] -> { I[x] -> Y[g(x)] }
        touches = scop.must_writes.union(scop.may_writes).subtract_domain(own)
        others = element.apply_range(touches.reverse())              # [P] -> { I[x] -> e }
    after_first = block_of.reverse().apply_range(earlier_pairs(block_of.apply_range(others), dates))
    before_last = earlier_pairs(others.reverse().apply_range(block_of.reverse()), dates).apply_range(block_of)
    inside = after_first.intersect(before_last.reverse())            # { A[x] -> e : b < e < b' in B(x) }
    return block if inside.is_empty() else []


def _linked(live: isl.UnionMap, name: str, members: set[str]) -> bool:
    """Whether a live range joins statement `name` to one of `members`."""
    for m in maps_of(live):
        ends = {m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)}
        if name in ends and ends & members:
            return True
    return False


def iteration_prefix(statements: list[ScopStatement], depth: int) -> isl.UnionMap:
    """[P] -> { S[x, y] -> [x] }: each statement's instances to their first `depth` iterators."""
    out: Optional[isl.UnionMap] = None
    for s in statements:
        space = s.domain.get_space()
        n = s.domain.dim(isl.dim_type.set)
        project = isl.Map.identity(isl.Space.map_from_set(space)).intersect_domain(s.domain)
        project = project.project_out(isl.dim_type.out, depth, n - depth).reset_tuple_id(isl.dim_type.out)
        piece = isl.UnionMap.from_map(project)
        out = piece if out is None else out.union(piece)
    assert out is not None
    return out


def _demoted(scop: Scop, anchor: ScopStatement, scalar: str, block: list[ScopStatement]) -> tuple[Scop, Demotion]:
    """`scop` with `scalar` replaced in `block` by the element `anchor` copies, and the anchor,
    then a copy of the element onto itself, removed."""
    element, _, stores = _copy(anchor.body, frozenset({scalar}))    # X[f(x)] or e, in the anchor's loops
    anchored = isl.UnionSet.from_set(anchor.domain)
    if stores:
        to_element = accesses_through(scop.must_writes, frozenset({base_variable(element).name}))
    else:
        to_element = scop.reads                                      # what evaluating e reads
    to_element = to_element.intersect_domain(anchored)               # [P] -> { A[x] -> X[f(x)] }
    one = frozenset({scalar})
    reads, writes = scop.reads, scop.must_writes
    statements = {s.name: s for s in scop.statements}
    depth = len(anchor.iterators)
    for s in block:
        if s.name == anchor.name:
            continue
        own = isl.UnionSet.from_set(s.domain)
        n = s.domain.dim(isl.dim_type.set)
        to_anchor = isl.MultiAff.identity_on_domain_space(s.domain.get_space()).drop_dims(
            isl.dim_type.out, depth, n - depth).set_tuple_name(isl.dim_type.out, anchor.name)   # { S[x, y] -> A[x] }
        mine = to_element.preimage_domain_multi_aff(to_anchor).intersect_domain(own)   # { S[x, y] -> X[..] }
        reads, writes = redirected(reads, one, own, mine), redirected(writes, one, own, mine)
        body = transform(s.body, lambda node: element if isinstance(node, N.VarRef) and node.name == scalar else node)
        statements[s.name] = replace(s, body=body)
    del statements[anchor.name]
    removed = isl.UnionSet.from_set(anchor.domain)
    kept = scop.original_schedule.get_domain().subtract(removed)
    annotations = tuple(_renamed(replace(a, statements=tuple(n for n in a.statements if n != anchor.name)),
                                 scalar, base_variable(element).name if stores else "")
                        for a in scop.annotations)
    demotion = Demotion(scalar, format_expr(element), tuple(s.name for s in block if s.name != anchor.name))
    return scop.with_model(statements=tuple(statements.values()), reads=reads.subtract_domain(removed),
                           must_writes=writes.subtract_domain(removed),
                           may_writes=scop.may_writes.subtract_domain(removed),
                           original_schedule=scop.original_schedule.intersect_domain(kept),
                           schedule=scop.schedule.intersect_domain(kept), annotations=annotations), demotion


def _renamed(annotation: LoopAnnotation, scalar: str, array: str) -> LoopAnnotation:
    """`annotation` with a reduction clause's `scalar` now the array it was demoted to: its
    updates write that array's element, whose dependences the clause now speaks of (a clause left
    naming the vanished scalar would let the pragma drop the element's dependences unreduced);
    a target that cannot reduce the element keeps them (clangpass.poly.annotations)."""
    if not array or scalar not in annotation.reductions:
        return annotation
    written = annotation.written or annotation.reductions
    return replace(annotation, reductions=tuple(array if v == scalar else v for v in annotation.reductions),
                   written=written)


def redirected(accesses: isl.UnionMap, scalar: frozenset[str], instances: isl.UnionSet,
                element: isl.UnionMap) -> isl.UnionMap:
    """`accesses` with those of `instances` to `scalar` replaced by `element`'s (for the instances
    that had one), if there are any."""
    through = accesses_through(accesses, scalar).intersect_domain(instances)
    if through.is_empty():
        return accesses
    return accesses.subtract(through).union(element.intersect_domain(through.domain()))
