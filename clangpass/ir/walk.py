# SPDX-License-Identifier: MIT
"""Walking the IR: the one definition of what a node's sub-nodes are.

Every pass, the linter and the back ends walk the IR through these functions, so
a new node kind needs its fields declared once (in nodes.py) and nothing here:
the sub-nodes of a node are its dataclass fields that hold expressions,
statements or declarations, in declaration order (= source order), types,
locations and pragmas excluded.
"""
from __future__ import annotations

from dataclasses import fields, replace
from typing import Callable, Iterator, Optional, TypeVar

from clangpass.ir import nodes as N
from clangpass.ir import types as T

# Fields of IR nodes that hold no sub-node.
_NOT_CHILDREN = frozenset({"type", "loc", "extent", "pragmas", "compute_type"})
_NODE = (N.Expr, N.Stmt, N.VarDecl)
# Per node class, the names of its fields that may hold sub-nodes: `dataclasses.fields` builds
# its tuple afresh on every call, and the passes and back ends walk the IR a few hundred
# thousand times per compile.
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = _CHILD_FIELDS[cls] = tuple(f.name for f in fields(cls) if f.name not in _NOT_CHILDREN)
    return names


def children(node: object) -> Iterator[object]:
    """The sub-nodes of an IR node (expressions, statements, declarations), in source order."""
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, _NODE))
        elif isinstance(value, _NODE):
            yield value


_Node = TypeVar("_Node")


def transform(node: _Node, fn: Callable[[object], object]) -> _Node:
    """`node` rebuilt bottom-up: each sub-node transformed first, then `fn` applied to the
    rebuilt node (returning it unchanged keeps it). Nodes are frozen: changed ones are copies."""
    changes = {}
    for name in _child_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, tuple) and any(isinstance(v, _NODE) for v in value):
            new = tuple(transform(v, fn) if isinstance(v, _NODE) else v for v in value)
            if any(a is not b for a, b in zip(new, value)):
                changes[name] = new
        elif isinstance(value, _NODE):
            new_value = transform(value, fn)
            if new_value is not value:
                changes[name] = new_value
    return fn(replace(node, **changes) if changes else node)  # type: ignore[type-var, return-value]


def descendants(node: object) -> Iterator[object]:
    """`node` and every node below it, pre-order."""
    yield node
    for child in children(node):
        yield from descendants(child)


def iter_stmts(s: Optional[N.Stmt]) -> Iterator[N.Stmt]:
    """Every statement under `s` (itself included), pre-order; expressions are not entered."""
    if s is None:
        return
    yield s
    for child in children(s):
        if isinstance(child, N.Stmt):
            yield from iter_stmts(child)


def iter_exprs(e: Optional[N.Expr]) -> Iterator[N.Expr]:
    """Every expression under `e` (itself included), pre-order."""
    if e is None:
        return
    yield e
    for child in children(e):
        yield from iter_exprs(child)  # type: ignore[arg-type]


def type_extent_exprs(t: T.CType) -> list[N.Expr]:
    """The size expressions of an array type (VLA extents and constants), outermost first."""
    if isinstance(t, T.ArrayType):
        return [d.extent for d in t.dims() if d.extent is not None]
    return []


def stmt_exprs(s: N.Stmt) -> tuple[N.Expr, ...]:
    """The expressions written directly in `s`, not in its sub-statements.

    A declaration contributes its initialisers and the extents of its array types
    (they are evaluated where the declaration stands).
    """
    out: list[N.Expr] = []
    for child in children(s):
        if isinstance(child, N.Expr):
            out.append(child)
        elif isinstance(child, N.VarDecl):
            out.extend(type_extent_exprs(child.type))
            if child.init is not None:
                out.append(child.init)
    return tuple(out)


def strip_casts(e: N.Expr) -> N.Expr:
    """The expression under any casts (implicit and explicit)."""
    while isinstance(e, N.Cast):
        e = e.operand
    return e


def strip_implicit_casts(e: N.Expr) -> N.Expr:
    while isinstance(e, N.Cast) and e.implicit:
        e = e.operand
    return e


def base_variable(e: N.Expr) -> Optional[N.VarRef]:
    """The variable an lvalue designates or lies in: `A` for `A[i][j]`, `s` for `s.f[k]`, `p` for `*p`."""
    e = strip_casts(e)
    while isinstance(e, (N.Subscript, N.Member)) or (isinstance(e, N.Unary) and e.op == "*"):
        e = strip_casts(e.base if isinstance(e, (N.Subscript, N.Member)) else e.operand)
    return e if isinstance(e, N.VarRef) else None


def written_variables(e: N.Expr) -> Iterator[N.VarRef]:
    """The variables that assignments and ++/-- in `e` write to (part of)."""
    for sub in iter_exprs(e):
        target = None
        if isinstance(sub, N.Assign):
            target = sub.target
        elif isinstance(sub, N.Unary) and sub.op in ("++", "--", "post++", "post--"):
            target = sub.operand
        if target is not None:
            var = base_variable(target)
            if var is not None:
                yield var
