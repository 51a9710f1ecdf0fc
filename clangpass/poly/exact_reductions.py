# SPDX-License-Identifier: MIT
"""Exact reductions: array elements every write of which is an update with one exact operator.

Input: a `Scop`. Output: its `ExactReduction`s, and from them the dependence pairs whose
order does not matter (`reordering_pairs`) and the order that stays (`reduction_reads`).

Found without any annotation: an array A of integer elements is reduced when each of its
update statements (a compute statement whose only write is one element A[w] of A) is
`A[w] = A[w] op e` for one operator op of `&`, `|`, `^`, `min`, `max` (the PENCIL builtins,
`fmin`/`fmax` not: they are floating point, and `?:` spellings such as `A[w] >= e ? A[w] :
e`, PolyBench's `max_score`) or, on unsigned types, `+` (`-`, `+=`, `-=`) and `*`, computed
in A's element type, and e never reads the element A[w] of the same instance (its reads of
A are affine and differ from A[w]: `table[i][j] = max(table[i][j], table[i][k] +
table[k+1][j])` with k < j). Every update statement of A must use the same operator. These
operators are associative and commutative, and exact (unsigned arithmetic wraps; min, max
and the bitwise ones never overflow), so the updates of one element give the same final
value in any order. Signed `+` and `*` do not count: their overflow is undefined in C and
the back end marks them `nsw`, so a reordered sum could overflow where the source's did
not. Floating-point operators never count: `+` and `*` round, and `?:`, fmin and fmax give
a NaN operand or +0 against -0 a result that depends on the order.

What may change and what may not: two updates of the same element may run in either order
(`reordering_pairs`: the pairs of update instances on one element, less those that also
conflict through another access, e.g. when e of one reads what the other writes). Every
other access keeps its order: a read of the element other than by its own updates (by
another statement, or by e of another update) must follow every update before it in the
source, not just the last one (`reduction_reads`, added to the ordering constraints since
value-based flow only names the last), and the first update must follow earlier writes (the
output and flow dependences from them are kept). Only the order is relaxed: two updates of
one element in different iterations of a loop still make it carry a dependence, so the
pairs stay in `Dependences.all`, which decides parallel and vector loops; the back end does
not privatise such elements (the annotated reductions of clangpass.poly.annotations are
scalars of the caller it does privatise).
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import iter_exprs, strip_implicit_casts
from clangpass.poly.affine import access_of
from clangpass.poly.annotations import COMBINERS, update_operands
from clangpass.poly.scop import Scop, ScopStatement, accesses_through
from clangpass.poly.validity import earlier_pairs, maps_of

#: The operators an exact reduction may use, in the order they are tried; '-' updates are '+'.
EXACT_OPERATORS = ("+", "*", "&", "|", "^", "min", "max")
#: Those that may overflow: exact on unsigned types only, whose arithmetic wraps. On a signed
#: type C leaves overflow undefined and the back end marks the operation `nsw`: a reordered sum
#: could overflow where the source's did not.
WRAPPING_ONLY = frozenset({"+", "*"})


@dataclass(frozen=True)
class ExactReduction:
    """The updates of one array, all with `operator`."""

    array: str
    operator: str                  # one of EXACT_OPERATORS
    statements: tuple[str, ...]    # the update statements, every statement writing `array`
    updates: isl.UnionMap          # [P] -> { S[i..] -> A[w] }: the element each update instance reduces into
    operands: isl.UnionMap         # [P] -> { S[i..] -> A[a..] }: the updates' other reads of A (in e)

    def as_record(self) -> dict:
        return {"array": self.array, "operator": self.operator, "statements": list(self.statements)}


def exact_reductions(scop: Scop) -> tuple[ExactReduction, ...]:
    """The arrays of `scop` reduced with one exact operator (see the module doc), by name."""
    out: list[ExactReduction] = []
    for info in scop.arrays:
        if info.rank == 0 or info.local or not isinstance(info.element, T.IntType):
            continue
        found = _array_reduction(scop, info.name)
        if found is not None:
            out.append(found)
    return tuple(out)


def _array_reduction(scop: Scop, array: str) -> ExactReduction | None:
    names = frozenset({array})
    writers = sorted({m.get_tuple_name(isl.dim_type.in_) for m in maps_of(accesses_through(scop.writes, names))})
    if not writers or not accesses_through(scop.kills, names).is_empty():
        return None
    operator = ""
    updates = isl.UnionMap.empty(scop.context.get_space())
    operands = isl.UnionMap.empty(scop.context.get_space())
    for name in writers:
        found = _update(scop, scop.statement(name), array, operator)
        if found is None:
            return None
        operator, update, operand = found
        updates = updates.union(isl.UnionMap.from_map(update))
        operands = operands.union(operand)
    return ExactReduction(array, operator, tuple(writers), updates.coalesce(), operands.coalesce())


def _update(scop: Scop, stmt: ScopStatement, array: str,
            operator: str) -> tuple[str, isl.Map, isl.UnionMap] | None:
    """The operator of update statement `stmt` of `array` (`operator` if it is set: the one of the
    updates seen before), its access to the reduced element and its other reads of the array;
    None when `stmt` is no such update."""
    if stmt.kind != "compute" or stmt.opaque or not isinstance(stmt.body, N.ExprStmt):
        return None
    e = stmt.body.expr
    if not scop.may_writes.intersect_domain(isl.UnionSet.from_set(stmt.domain)).is_empty():
        return None
    written = maps_of(scop.must_writes.intersect_domain(isl.UnionSet.from_set(stmt.domain)))
    if len(written) != 1 or written[0].get_tuple_name(isl.dim_type.out) != array:
        return None
    found = _operator_and_operand(e, operator)
    if found is None:
        return None
    op, target, other = found
    rank = scop.array(array).rank
    space = written[0].get_space()                                   # [P] -> { S[i..] -> A[a..] }
    target_chain = strip_implicit_casts(target)
    if _chain(target_chain, array, rank) is None:
        return None
    update = access_of(target_chain, stmt.iterators, space).intersect_domain(stmt.domain)
    if update.is_empty() or not update.is_equal(written[0]):
        return None
    # e reads A only through whole, affine subscripts, none of them the reduced element.
    chains = [x for x in iter_exprs(other) if _chain(x, array, rank) is not None]
    mentions = sum(1 for x in iter_exprs(other) if isinstance(x, N.VarRef) and x.name == array)
    if mentions != len(chains):
        return None
    operand = isl.UnionMap.empty(scop.context.get_space())
    for chain in chains:
        access = access_of(chain, stmt.iterators, space).intersect_domain(stmt.domain)
        if access.is_empty() or not access.intersect(update).is_empty():
            return None
        operand = operand.union(isl.UnionMap.from_map(access))
    # The model agrees: the statement reads A at the reduced element and at e's elements only.
    reads = accesses_through(scop.reads, frozenset({array})).intersect_domain(isl.UnionSet.from_set(stmt.domain))
    if not reads.is_subset(operand.union(isl.UnionMap.from_map(update))):
        return None
    return op, update, operand


def _chain(e: N.Expr, array: str, rank: int) -> N.Subscript | None:
    """`e` when it is `array[a0]..[a(rank-1)]`, a whole element of `array`; else None."""
    node, depth = e, 0
    while isinstance(node, N.Subscript):
        node, depth = strip_implicit_casts(node.base), depth + 1
    return e if depth == rank and isinstance(node, N.VarRef) and node.name == array else None


def _operator_and_operand(e: N.Expr, operator: str) -> tuple[str, N.Expr, N.Expr] | None:
    """(operator, target, e) when `e` is an update `target = target op e` computed in target's
    integer type (with `operator` when it is set; `+` and `*` on unsigned types only); else None."""
    if isinstance(e, N.Unary) and e.op in ("++", "--", "post++", "post--"):
        return None                       # `A[w]++` reads no operand: nothing to gain, not modelled
    if not isinstance(e, N.Assign) or e.target.type != e.type or not isinstance(e.target.type, T.IntType):
        return None
    target = e.target
    for op in ([operator] if operator else EXACT_OPERATORS):
        if op in WRAPPING_ONLY and target.type.signed:
            continue
        if e.op != "=":
            compound = {"+": ("+=", "-="), "*": ("*=",), "&": ("&=",), "|": ("|=",), "^": ("^=",)}.get(op, ())
            if e.op in compound and (e.compute_type is None or e.compute_type == target.type):
                return op, target, e.value
            continue
        value = strip_implicit_casts(e.value)
        if value.type != target.type:
            continue
        for mine, other in update_operands(value, COMBINERS[op], conditionals=True):
            if strip_implicit_casts(mine) == target and strip_implicit_casts(other).type == target.type:
                return op, target, other
    return None


def reordering_pairs(reductions: tuple[ExactReduction, ...]) -> isl.UnionMap | None:
    """[P] -> { U[i..] -> V[j..] }: pairs of update instances of one element whose order does not
    matter: both update it, and neither reads through e what the other writes. None if none."""
    out = None
    for r in reductions:
        same = r.updates.apply_range(r.updates.reverse())                     # { U -> V : same element }
        other = r.updates.apply_range(r.operands.reverse())                   # { U -> V : V's e reads U's element }
        other = other.union(other.reverse())
        pairs = same.subtract(other)
        out = pairs if out is None else out.union(pairs)
    return out.coalesce() if out is not None else None


def reduction_reads(scop: Scop, reductions: tuple[ExactReduction, ...], dates: isl.UnionMap) -> isl.UnionMap:
    """[P] -> { U[i..] -> R[j..] }: each update to each later read (in the source order `dates`:
    [P] -> { S[i..] -> [t..] }) of its element other than by the accumulator of an update.

    Value-based flow reaches such a read from the last update before it only; once the updates
    may run in any order, every one of them must precede it."""
    out = isl.UnionMap.empty(scop.context.get_space())
    for r in reductions:
        reads = accesses_through(scop.reads, frozenset({r.array}))            # { S -> A[a..] }
        update_instances = r.updates.domain()
        readers = reads.subtract_domain(update_instances).union(r.operands)   # the accumulators left out
        out = out.union(earlier_pairs(r.updates.apply_range(readers.reverse()), dates))
    return out.coalesce()
