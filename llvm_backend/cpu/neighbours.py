# SPDX-License-Identifier: MIT
"""Does a `vector` loop read one array at neighbouring elements along its iterator?

Input: a `CodegenUnit` and a for node of its isl AST (the loop under a `vector` mark).
Output: True when some statement the loop runs reads (or writes) one array at two
subscripts that are equal but for an integer offset in a dimension that moves with the
loop's iterator: `A[i - 1]`, `A[i]`, `A[i + 1]` in the `i` loop (jacobi-1d), `A[i][j - 1]`
and `A[i][j + 1]` in the `j` loop (jacobi-2d), `ey[i][j]` and `ey[i][j - 1]` (fdtd-2d).

Why the back end asks: LLVM's GVN turns the load of `A[i + 1]` in one iteration into
the `A[i]` of the next (a value carried from iteration to iteration: a first-order
recurrence), and the loop vectoriser then builds each vector of `A[i]` from the previous
vector by a lane shuffle. Interleaved (LLVM's cost model picks four vector bodies per
iteration for jacobi-1d), the shuffles chain the copies' registers together and the x86
back end merges two adjacent 256-bit loads into one 512-bit load and a `vpermpd` on zmm
registers; with one vector body per iteration the loop has one shuffle per vector and
stays in ymm. gcc vectorises the same loop with three unaligned loads and does not
interleave. jacobi-1d LARGE (TSTEPS=500, N=2000), minima of 60 interleaved runs on the
loaded 2-core machine: gcc 0.308 ms, pencilcc interleaved 0.334 ms, with one vector body
0.293 ms; at N=2002, where no iteration is left to the scalar remainder, 0.326, 0.366 and
0.294 ms (20 runs): the shuffles, not the remainder, cost the time. `lower_ast` gives
such a loop `llvm.loop.interleave.count` 1 (docs/passes/backend-cpu.md).
"""
from __future__ import annotations

from typing import Iterator, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import children
from clangpass.poly.ast_c import iterator_name
from clangpass.poly.codegen_unit import CodegenUnit


def reads_neighbours(unit: CodegenUnit, loop: isl.AstNode) -> bool:
    """Whether the for node `loop` runs a statement with two references to one array that
    differ by an integer offset in a subscript moving with `loop`'s iterator."""
    iterator = iterator_name(loop)
    for call in _calls(loop.for_get_body()):
        stmt = unit.statements.get(call.op_get_arg(0).id_get_id().get_name())
        if stmt is None:
            continue
        moving = frozenset(name for k, name in enumerate(stmt.iterators)
                           if k + 1 < call.op_get_n_arg() and _mentions(call.op_get_arg(k + 1), iterator))
        if moving and _neighbour_references(stmt.body, moving):
            return True
    return False


def _calls(node: isl.AstNode) -> Iterator[isl.AstExpr]:
    """The statement calls (user nodes' expressions) under `node`."""
    kind = node.get_type()
    if kind == isl.ast_node_type.user:
        yield node.user_get_expr()
    elif kind == isl.ast_node_type.for_:
        yield from _calls(node.for_get_body())
    elif kind == isl.ast_node_type.mark:
        yield from _calls(node.mark_get_node())
    elif kind == isl.ast_node_type.if_:
        yield from _calls(node.if_get_then_node())
        if node.if_has_else_node():
            yield from _calls(node.if_get_else_node())
    elif kind == isl.ast_node_type.block:
        nodes = node.block_get_children()
        for k in range(nodes.n_ast_node()):
            yield from _calls(nodes.get_at(k))


def _mentions(expr: isl.AstExpr, name: str) -> bool:
    kind = expr.get_type()
    if kind == isl.ast_expr_type.id:
        return expr.id_get_id().get_name() == name
    if kind == isl.ast_expr_type.op:
        return any(_mentions(expr.op_get_arg(k), name) for k in range(expr.op_get_n_arg()))
    return False


def _neighbour_references(body: N.Stmt, moving: frozenset[str]) -> bool:
    seen: dict[str, list[tuple[tuple[Optional[N.Expr], int], ...]]] = {}
    for array, subscripts in _references(body):
        split = tuple(_offset(index) for index in subscripts)
        for other in seen.setdefault(array, []):
            if len(other) == len(split) and all(a[0] == b[0] for a, b in zip(other, split)) and any(
                    a[1] != b[1] and a[0] is not None and _uses(a[0], moving) for a, b in zip(other, split)):
                return True
        seen[array].append(split)
    return False


def _references(node: object) -> Iterator[tuple[str, tuple[N.Expr, ...]]]:
    """(array name, subscripts outermost first) of every whole array reference `A[e0]...[ek]`
    under `node` whose base is a named variable."""
    if isinstance(node, N.Subscript):
        indices: list[N.Expr] = []
        base: N.Expr = node
        while isinstance(base, N.Subscript):
            indices.append(base.index)
            base = _bare(base.base)
        if isinstance(base, N.VarRef):
            yield base.name, tuple(reversed(indices))
        for index in indices:
            yield from _references(index)
        return
    for child in children(node):
        yield from _references(child)


def _bare(expr: N.Expr) -> N.Expr:
    while isinstance(expr, N.Cast) and expr.implicit:
        expr = expr.operand
    return expr


def _offset(expr: N.Expr) -> tuple[Optional[N.Expr], int]:
    """`e + k`, `k + e`, `e - k`, `k` as (e or None, k); anything else as (expr, 0)."""
    expr = _bare(expr)
    if isinstance(expr, N.IntLit):
        return None, expr.value
    if isinstance(expr, N.Binary) and expr.op in ("+", "-"):
        lhs, rhs = _bare(expr.lhs), _bare(expr.rhs)
        if isinstance(rhs, N.IntLit):
            return _strip(lhs), rhs.value if expr.op == "+" else -rhs.value
        if isinstance(lhs, N.IntLit) and expr.op == "+":
            return _strip(rhs), lhs.value
    return _strip(expr), 0


def _strip(expr: N.Expr) -> N.Expr:
    """`expr` without its implicit casts at any depth, so that equal subscripts compare equal."""
    expr = _bare(expr)
    if isinstance(expr, N.Binary):
        return N.Binary(op=expr.op, lhs=_strip(expr.lhs), rhs=_strip(expr.rhs), type=expr.type)
    return expr


def _uses(expr: N.Expr, names: frozenset[str]) -> bool:
    if isinstance(expr, N.VarRef):
        return expr.name in names
    return any(isinstance(child, N.Expr) and _uses(child, names) for child in children(expr))
