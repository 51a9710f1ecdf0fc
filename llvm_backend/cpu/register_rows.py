# SPDX-License-Identifier: MIT
"""Which arrays do the rows of a register tile access at disjoint elements?

Input: a `CodegenUnit`, the for node of a register tile's row loop (the loop directly above
its `vector` mark, constant bounds: `lower_ast` unrolls it itself) and the for and if nodes
that enclose it in the unit's AST (`Enclosing`). Output: the names of the arrays written
under the row loop whose elements row `r` accesses (read or written, over every execution
of the loop, not only one) are disjoint from those every other row `r'` accesses.

Why the back end asks: LLVM keeps a register tile's accumulators in registers across the
reduction loop (LICM's scalar promotion) only when it can tell the tile's rows apart. With
constant extents it can (`C + (i + 1) * 1200 * 8` against `C + i * 1200 * 8`); with a
variable-length array (`double C[n][n]`, syrk) the rows lie `n * 8` bytes apart with `n`
unknown and every reduction step loads and stores the whole tile. `lower_ast` gives each
row's accesses to such an array an alias scope of its own and lists the other rows' scopes
as `!noalias`; LLVM's scoped alias analysis then separates the rows.

The proof (isl): the AST's loops and conditions above the row loop give a superset of the
iterations that run (a for node: `init <= c`, its condition, `c = init + step * e`; the
taken branch of an if: its condition; anything not understood is left out, which only
widens the set); each access's subscripts are affine functions of the statement's
iterators, which the AST call binds to affine expressions of the AST iterators. Two rows'
element sets must not meet. Distinct subscripts name distinct elements: the polyhedral
model (dependence analysis) rests on the same fact. Anything not affine, or an array named
other than as the root of a subscript chain, declines the array.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import descendants, strip_casts
from clangpass.poly.ast_c import iterator_name
from clangpass.poly.codegen_unit import CodegenUnit
from llvm_backend.cpu.lower_types import row_dims

OP = isl.ast_expr_op_type


class _NotAffine(Exception):
    pass


@dataclass(frozen=True)
class Enclosing:
    """One node above the row loop: a for node (`taken` unused) or an if node and
    whether its then branch (True) or else branch (False) holds the row loop."""
    node: isl.AstNode
    taken: bool = True


def enclosing_constraints(enclosing: list[Enclosing], widen: bool) -> tuple[list[str], list[str]]:
    """The iterators of the `for` nodes of `enclosing` and the constraints of their bounds and of
    the branches taken, as text. A bound or condition that is not affine raises `_NotAffine`, or
    with `widen` is left out (a wider set: the loop's iterator stays, unbounded)."""
    iterators: list[str] = []
    constraints: list[str] = []
    for outer in enclosing:
        is_for = outer.node.get_type() == isl.ast_node_type.for_
        try:
            if is_for:
                name = iterator_name(outer.node)
                iterators.append(name)
                constraints.extend(_for_constraints(outer.node, name))
            elif outer.taken:
                constraints.append(_text(outer.node.if_get_cond()))
        except _NotAffine:
            if not widen:
                raise
            if is_for and (not iterators or iterators[-1] != iterator_name(outer.node)):
                iterators.append(iterator_name(outer.node))
    return iterators, constraints


def disjoint_row_arrays(unit: CodegenUnit, row_loop: isl.AstNode, rows: list[int],
                        enclosing: list[Enclosing]) -> frozenset[str]:
    """The arrays written under `row_loop` whose rows (its iterator's values `rows`) access
    pairwise disjoint elements over every execution (module doc); empty when not proven."""
    if len(rows) < 2:
        return frozenset()
    row_name = iterator_name(row_loop)
    try:
        iterators, constraints = enclosing_constraints(enclosing, widen=False)
    except _NotAffine:
        return frozenset()
    iterators.append(row_name)
    loops = frozenset(_loop_iterators(unit.ast))
    accesses = list(_accesses(unit, row_loop.for_get_body(), iterators, constraints))
    if any(name is None for name, _, _ in accesses):
        return frozenset()
    written = {array for array, _, _ in accesses if array.startswith("=")}
    proven = set()
    for mark in sorted(written):
        array = mark[1:]
        mine = [(subs, domain) for name, subs, domain in accesses if name.lstrip("=") == array]
        if any(subs is None for subs, _ in mine) or _named_elsewhere(unit, row_loop, array):
            continue
        try:
            sets = [_elements(mine, row_name, r, loops, unit.context) for r in rows]
        except (_NotAffine, isl.Error):
            continue
        if all(_meet(sets[a], sets[b]).is_empty() for a in range(len(sets)) for b in range(a + 1, len(sets))):
            proven.add(array)
    return frozenset(proven)


def _meet(a: isl.Set, b: isl.Set) -> isl.Set:
    return a.align_params(b.get_space()).intersect(b.align_params(a.get_space()))


def _elements(accesses, row_name: str, row: int, loops: frozenset[str],
              context: Optional[isl.Set]) -> isl.Set:
    """The elements the accesses touch when the row iterator is `row`. The other names are
    the region's parameters, fixed for a whole execution; the iterator of a loop that is not
    among the accesses' enclosing ones would be taken for one, so it declines the proof."""
    result: Optional[isl.Set] = None
    for subs, (iterators, constraints) in accesses:
        names = ", ".join(iterators)
        out = ", ".join(f"{_OUT}{k}" for k in range(len(subs)))
        conds = list(constraints) + [f"{row_name} = {row}"] + [f"{_OUT}{k} = {s}" for k, (s, _) in enumerate(subs)]
        words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", " ".join(conds)))
        params = {w for w in words - set(iterators) - _KEYWORDS if not w.startswith(_OUT)}
        if params & loops:
            raise _NotAffine
        text = (f"[{', '.join(sorted(params))}] -> {{ [{names}] -> [{out}] : "
                + " and ".join(f"({c})" for c in conds) + " }")
        relation = isl.Map(text)
        if context is not None:     # the parameter constraints the region runs under
            relation = relation.align_params(context.get_space())
            relation = relation.intersect_params(context.align_params(relation.get_space()))
        for k, (_, extent) in enumerate(subs):
            if extent is not None:
                if _words(extent) & loops:
                    raise _NotAffine
                inside = isl.Map(f"[{', '.join(sorted(params | _words(extent)))}] -> {{ [{names}] -> [{out}] : "
                                 f"0 <= {_OUT}{k} < {extent} }}")
                relation = relation.align_params(inside.get_space())
                if not relation.is_subset(inside.align_params(relation.get_space())):
                    raise _NotAffine
        elements = relation.range()
        result = elements if result is None else result.align_params(elements.get_space()).union(
            elements.align_params(result.get_space()))
    assert result is not None
    return result


@dataclass(frozen=True)
class ChainAccess:
    """One array subscript chain under an AST node, as `chain_accesses` finds it."""

    array: Optional[str]           # the array's name; None: a statement the unit does not define
    subs: Optional[list[tuple[str, Optional[str]]]]   # isl subscripts with the extents below the first; None: not affine
    written: bool                  # the chain is the target of an assignment or increment
    chain: Optional[N.Expr]        # the chain itself (`C[i][j]`)
    body: Optional[N.Stmt]         # its statement's body
    iterators: tuple[str, ...]     # the AST iterators around it, outermost first
    constraints: tuple[str, ...]   # what the AST's loops and conditions say of them (isl syntax)


def chain_accesses(unit: CodegenUnit, node: isl.AstNode, iterators: list[str],
                   constraints: list[str]) -> Iterator[ChainAccess]:
    """Every array subscript chain under `node`, its subscripts bound to the AST's iterators
    (shared with accumulators.py)."""
    kind = node.get_type()
    if kind == isl.ast_node_type.mark:
        yield from chain_accesses(unit, node.mark_get_node(), iterators, constraints)
    elif kind == isl.ast_node_type.block:
        children = node.block_get_children()
        for k in range(children.n_ast_node()):
            yield from chain_accesses(unit, children.get_at(k), iterators, constraints)
    elif kind == isl.ast_node_type.if_:
        inner = list(constraints)
        try:
            inner.append(_text(node.if_get_cond()))
        except _NotAffine:
            pass
        yield from chain_accesses(unit, node.if_get_then_node(), iterators, inner)
        if node.if_has_else_node():
            yield from chain_accesses(unit, node.if_get_else_node(), iterators, constraints)
    elif kind == isl.ast_node_type.for_:
        name = iterator_name(node)
        try:
            inner = constraints + _for_constraints(node, name)
        except _NotAffine:
            inner = list(constraints)
        yield from chain_accesses(unit, node.for_get_body(), iterators + [name], inner)
    elif kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        stmt = unit.statements.get(call.op_get_arg(0).id_get_id().get_name())
        if stmt is None:
            yield ChainAccess(None, None, False, None, None, tuple(iterators), tuple(constraints))
            return
        bound: dict[str, Optional[str]] = {}
        for k, name in enumerate(stmt.iterators):
            try:
                bound[name] = f"({_text(call.op_get_arg(k + 1))})" if k + 1 < call.op_get_n_arg() else None
            except _NotAffine:
                bound[name] = None
        written = set()
        for n in descendants(stmt.body):
            target = n.target if isinstance(n, N.Assign) else \
                n.operand if isinstance(n, N.Unary) and n.op in ("++pre", "--pre", "post++", "post--") else None
            if target is not None:
                root, _ = _chain_root(strip_casts(target))
                if root is not None:
                    written.add(id(root))
        for sub in _subscript_chains(stmt.body):
            root, indices = _chain_root(sub)
            if root is None:              # `s.f[i]`, `(*p)[i]`: not a chain of an array's name
                yield ChainAccess(None, None, False, sub, stmt.body, tuple(iterators), tuple(constraints))
                continue
            try:
                subs = [_subscript(index, bound) for index in indices]
                dims = row_dims(root.type)
                if len(dims) != len(subs) - 1:
                    raise _NotAffine
                # The subscripts below the first must lie within their extents (where not, two
                # subscript tuples could name one address): checked in `_elements`.
                extents = [str(dim.constant_extent) if dim.constant_extent is not None
                           else _subscript(dim.extent, {}) if dim.extent is not None else None for dim in dims]
                if None in extents:
                    raise _NotAffine
                subs = list(zip(subs, [None] + extents))
            except _NotAffine:
                subs = None
            yield ChainAccess(root.name, subs, id(root) in written, sub, stmt.body, tuple(iterators),
                              tuple(constraints))


def _accesses(unit: CodegenUnit, node: isl.AstNode, iterators: list[str], constraints: list[str]):
    """(array, [(subscript, extent or None)] or None, (iterators, constraints)) for every
    array subscript chain under `node` (array None: an unknown statement); the array is
    prefixed with '=' where it is written."""
    for a in chain_accesses(unit, node, iterators, constraints):
        if a.array is None:
            yield None, None, None
        else:
            yield ("=" if a.written else "") + a.array, a.subs, (list(a.iterators), list(a.constraints))


def _subscript_chains(body: N.Stmt) -> Iterator[N.Subscript]:
    """The outermost subscript of every chain in `body` (`C[i][j]`, not its `C[i]`)."""
    inner = set()
    for n in descendants(body):
        if isinstance(n, N.Subscript):
            inner.add(id(n.base))
    for n in descendants(body):
        if isinstance(n, N.Subscript) and id(n) not in inner:
            yield n


def _chain_root(e: N.Expr) -> tuple[Optional[N.VarRef], list[N.Expr]]:
    indices = []
    while isinstance(e, N.Subscript):
        indices.append(e.index)
        e = e.base
    indices.reverse()
    return (e, indices) if isinstance(e, N.VarRef) and indices else (None, [])


def _named_elsewhere(unit: CodegenUnit, row_loop: isl.AstNode, array: str) -> bool:
    """Whether some statement under `row_loop` names `array` other than as the root of a
    subscript chain (its address taken, passed on, ...) or subscripts a part of it that is
    not a VarRef chain."""
    for stmt_name in _statement_names(row_loop):
        stmt = unit.statements.get(stmt_name)
        if stmt is None:
            return True
        roots = {id(_chain_root(c)[0]) for c in _subscript_chains(stmt.body)}
        for n in descendants(stmt.body):
            if isinstance(n, N.VarRef) and n.name == array and id(n) not in roots:
                return True
    return False


def _loop_iterators(node: isl.AstNode) -> Iterator[str]:
    """The iterators of every for node in `node`."""
    kind = node.get_type()
    if kind == isl.ast_node_type.for_:
        yield iterator_name(node)
        yield from _loop_iterators(node.for_get_body())
    elif kind == isl.ast_node_type.mark:
        yield from _loop_iterators(node.mark_get_node())
    elif kind == isl.ast_node_type.if_:
        yield from _loop_iterators(node.if_get_then_node())
        if node.if_has_else_node():
            yield from _loop_iterators(node.if_get_else_node())
    elif kind == isl.ast_node_type.block:
        children = node.block_get_children()
        for k in range(children.n_ast_node()):
            yield from _loop_iterators(children.get_at(k))


def _statement_names(node: isl.AstNode) -> Iterator[str]:
    kind = node.get_type()
    if kind == isl.ast_node_type.user:
        yield node.user_get_expr().op_get_arg(0).id_get_id().get_name()
    elif kind == isl.ast_node_type.mark:
        yield from _statement_names(node.mark_get_node())
    elif kind == isl.ast_node_type.for_:
        yield from _statement_names(node.for_get_body())
    elif kind == isl.ast_node_type.if_:
        yield from _statement_names(node.if_get_then_node())
        if node.if_has_else_node():
            yield from _statement_names(node.if_get_else_node())
    elif kind == isl.ast_node_type.block:
        children = node.block_get_children()
        for k in range(children.n_ast_node()):
            yield from _statement_names(children.get_at(k))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text)) - _KEYWORDS


_KEYWORDS = {"and", "or", "min", "max", "floor", "mod", "exists", "e0"}
_OUT = "pencil_element"


def _subscript(e: N.Expr, bound: dict[str, Optional[str]]) -> str:
    """An affine subscript in isl syntax (statement iterators replaced by `bound`)."""
    e = strip_casts(e)
    if isinstance(e, N.IntLit):
        return str(e.value)
    if isinstance(e, N.VarRef):
        if e.name in bound:
            value = bound[e.name]
            if value is None:
                raise _NotAffine
            return value
        if e.scope == "param" and e.name not in _KEYWORDS and not e.name.startswith(_OUT):
            return e.name
        raise _NotAffine
    if isinstance(e, N.Unary) and e.op in ("-", "+"):
        return f"({e.op}{_subscript(e.operand, bound)})"
    if isinstance(e, N.Binary) and e.op in ("+", "-"):
        return f"({_subscript(e.lhs, bound)} {e.op} {_subscript(e.rhs, bound)})"
    if isinstance(e, N.Binary) and e.op == "*":
        left, right = strip_casts(e.lhs), strip_casts(e.rhs)
        if isinstance(left, N.IntLit) or isinstance(right, N.IntLit):
            return f"({_subscript(left, bound)} * {_subscript(right, bound)})"
    raise _NotAffine


def _for_constraints(node: isl.AstNode, name: str) -> list[str]:
    init = _text(node.for_get_init())
    inc = node.for_get_inc()
    if inc.get_type() != isl.ast_expr_type.int:
        raise _NotAffine
    step = inc.int_get_val().to_python()
    out = [f"{name} >= {init}", _text(node.for_get_cond())]
    if step != 1:
        out.append(f"exists (e0 : {name} = {init} + {step} * e0)")
    return out


_BINARY = {OP.add: "+", OP.sub: "-", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">", OP.eq: "=",
           OP.and_: "and", OP.and_then: "and", OP.or_: "or", OP.or_else: "or"}


def _text(e: isl.AstExpr) -> str:
    """An isl AST expression in isl's input syntax (affine pieces only)."""
    kind = e.get_type()
    if kind == isl.ast_expr_type.int:
        return str(e.int_get_val().to_python())
    if kind == isl.ast_expr_type.id:
        return e.id_get_id().get_name()
    if kind != isl.ast_expr_type.op:
        raise _NotAffine
    op = e.op_get_type()
    args = [e.op_get_arg(k) for k in range(e.op_get_n_arg())]
    if op in _BINARY and len(args) == 2:
        return f"({_text(args[0])} {_BINARY[op]} {_text(args[1])})"
    if op == OP.minus:
        return f"(-{_text(args[0])})"
    if op == OP.mul and any(a.get_type() == isl.ast_expr_type.int for a in args):
        return f"({_text(args[0])} * {_text(args[1])})"
    if op in (OP.min, OP.max):
        word = "min" if op == OP.min else "max"
        return f"{word}({', '.join(_text(a) for a in args)})"
    if op in (OP.fdiv_q, OP.pdiv_q) and args[1].get_type() == isl.ast_expr_type.int:
        return f"floor(({_text(args[0])}) / {_text(args[1])})"
    if op == OP.pdiv_r and args[1].get_type() == isl.ast_expr_type.int:
        return f"(({_text(args[0])}) mod {_text(args[1])})"
    raise _NotAffine
