# SPDX-License-Identifier: MIT
"""The granularity model: is a parallel loop big enough to pay for threads?

Input: an isl AST node of a `CodegenUnit`, met while its region function (or a
thread team function) is being emitted. Output: i64 LLVM values, computed at run
time where the decision is taken, estimating the work of the node in *work units*:
one unit per IR expression node of a statement body (an operand, an operator, an
array subscript), summed over the statement instances the node runs.

Parameters are unknown at compile time, so the estimate is an expression of the
isl AST's own loop bounds, evaluated at run time: a `for` node runs
`trips x work(body)` units, its trip count taken from the `iterator <= bound` /
`iterator < bound` conjuncts of its condition (the smallest, as the loop stops at
the first that fails) and its body evaluated with the iterator at the middle of
its range, so that a triangular inner loop counts with its average length; a block
sums its children, an `if` takes its larger branch (conditions are not evaluated).
The back end starts threads for a loop only when `work >= min_work`
(`CompileOptions.thread_min_work`), the constant measured against libgomp's fork
and barrier costs in docs/passes/thread-team.md. This follows the cost test of
automatic parallelisers (OpenMP `if` clauses chosen by a compiler: e.g. the
SUIF/Polaris run-time tests on loop size, Hall et al., IEEE Computer 1996).
"""
from __future__ import annotations

from typing import Iterator, Optional

import islpy as isl
import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import children
from clangpass.poly.validity import PARALLEL_MARK
from llvm_backend.cpu.lower_ast import OP, AstLowering, iterator_name
from llvm_backend.cpu.lower_types import I64

# A loop whose bounds the estimate cannot read (no `iterator <= bound` conjunct)
# counts as this many iterations: the size of one default tile.
UNKNOWN_TRIPS = 32


def statement_work(body: N.Stmt, registers: frozenset[str] = frozenset()) -> int:
    """Work units of one instance of a statement: its IR expression nodes, those inside a C
    loop of the statement (an opaque loop: clangpass.poly.extract) counted `UNKNOWN_TRIPS` times.

    The scalars named in `registers` (the region's scalar locals: `region_registers`) live in
    registers: reading one, and the assignment that sets one, count nothing, and the value
    assigned counts as it would inline. Three-address code (`t1 = alpha * y[j]; t2 = y[i] +
    t1; z[i] = t2;`) then weighs what `z[i] = y[i] + alpha * y[j]` weighs: counted node by
    node it weighed 24 units against 17, and 3AC durbin's parallel loops crossed
    `thread_min_work` at a third shorter lengths than the original's, running 4x slower on
    two threads (0.94 s against 0.23 s on one, N=20000)."""
    return max(1, _work(body, registers))


def region_registers(unit: CodegenUnit) -> frozenset[str]:
    """The region-local scalars of `unit` (its locals that are no arrays)."""
    return frozenset(d.name for d in unit.locals if not isinstance(d.type, T.ArrayType))


def _work(node: object, registers: frozenset[str]) -> int:
    if isinstance(node, (N.For, N.While)):
        header = sum(_work(part, registers) for part in (getattr(node, "init", None), node.cond,
                                                         getattr(node, "step", None)) if part is not None)
        return header + UNKNOWN_TRIPS * _work(node.body, registers)
    if isinstance(node, N.VarRef) and node.name in registers:
        return 0
    if (isinstance(node, N.Assign) and node.op == "=" and isinstance(node.target, N.VarRef)
            and node.target.name in registers):
        return _work(node.value, registers)
    own = 1 if isinstance(node, N.Expr) else 0
    return own + sum(_work(child, registers) for child in children(node))


def work(lowering: AstLowering, node: isl.AstNode) -> ir.Value:
    """Estimated work units of running `node` once, as an i64 computed at the builder's position."""
    kind = node.get_type()
    b = lowering.builder
    if kind == isl.ast_node_type.user:
        name = node.user_get_expr().op_get_arg(0).id_get_id().get_name()
        stmt = lowering.unit.statements.get(name)
        return ir.Constant(I64, statement_work(stmt.body, region_registers(lowering.unit)) if stmt is not None else 1)
    if kind == isl.ast_node_type.mark:
        return work(lowering, node.mark_get_node())
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        total: ir.Value = ir.Constant(I64, 0)
        for i in range(children.n_ast_node()):
            total = b.add(total, work(lowering, children.get_at(i)))
        return total
    if kind == isl.ast_node_type.if_:
        then = work(lowering, node.if_get_then_node())
        if not node.if_has_else_node():
            return then
        otherwise = work(lowering, node.if_get_else_node())
        return b.select(b.icmp_signed(">", then, otherwise), then, otherwise)
    trips, middle = _trips_and_middle(lowering, node)
    body = lowering.with_id(iterator_name(node), middle, lambda: work(lowering, node.for_get_body()))
    return b.mul(trips, body, name="pencil.work")


def parallel_work(lowering: AstLowering, node: isl.AstNode) -> Optional[ir.Value]:
    """The largest estimated work of one parallel loop under `node` (enclosing loops at the
    middle of their ranges); None when `node` holds no parallel loop."""
    kind = node.get_type()
    b = lowering.builder
    if kind == isl.ast_node_type.mark:
        child = node.mark_get_node()
        if node.mark_get_id().get_name() == PARALLEL_MARK and child.get_type() == isl.ast_node_type.for_:
            return work(lowering, child)
        return parallel_work(lowering, child)
    if kind == isl.ast_node_type.for_:
        _, middle = _trips_and_middle(lowering, node)
        return lowering.with_id(iterator_name(node), middle, lambda: parallel_work(lowering, node.for_get_body()))
    if kind == isl.ast_node_type.user:
        return None
    if kind == isl.ast_node_type.if_:
        parts = [node.if_get_then_node()] + ([node.if_get_else_node()] if node.if_has_else_node() else [])
    else:
        children = node.block_get_children()
        parts = [children.get_at(i) for i in range(children.n_ast_node())]
    largest: Optional[ir.Value] = None
    for part in parts:
        value = parallel_work(lowering, part)
        if value is not None:
            largest = value if largest is None else b.select(b.icmp_signed(">", value, largest), value, largest)
    return largest


def _trips_and_middle(lowering: AstLowering, node: isl.AstNode) -> tuple[ir.Value, ir.Value]:
    """(estimated trip count >= 0, the iterator's value half-way through the loop)."""
    b = lowering.builder
    start = lowering.integer(node.for_get_init())
    if node.for_is_degenerate():
        return ir.Constant(I64, 1), start
    step = lowering.integer(node.for_get_inc())
    name = iterator_name(node)
    bounds = list(upper_bounds(node.for_get_cond(), name))
    if not bounds:
        trips: ir.Value = ir.Constant(I64, UNKNOWN_TRIPS)
    else:
        last: Optional[ir.Value] = None
        for expr, inclusive in bounds:
            value = lowering.integer(expr)
            if not inclusive:
                value = b.sub(value, ir.Constant(I64, 1))
            last = value if last is None else b.select(b.icmp_signed("<", value, last), value, last)
        span = b.sub(last, start)
        counted = b.add(b.sdiv(span, step), ir.Constant(I64, 1))
        trips = b.select(b.icmp_signed("<", span, ir.Constant(I64, 0)), ir.Constant(I64, 0), counted)
    middle = b.add(start, b.mul(b.sdiv(trips, ir.Constant(I64, 2)), step), name="pencil.middle")
    return trips, middle


def upper_bounds(cond: isl.AstExpr, name: str) -> Iterator[tuple[isl.AstExpr, bool]]:
    """The `name <= e` / `name < e` conjuncts of a loop condition, as (e, inclusive)."""
    if cond.get_type() != isl.ast_expr_type.op:
        return
    op = cond.op_get_type()
    if op in (OP.and_, OP.and_then):
        for i in range(cond.op_get_n_arg()):
            yield from upper_bounds(cond.op_get_arg(i), name)
        return
    if op not in (OP.le, OP.lt):
        return
    lhs, rhs = cond.op_get_arg(0), cond.op_get_arg(1)
    if lhs.get_type() == isl.ast_expr_type.id and lhs.id_get_id().get_name() == name and not _mentions(rhs, name):
        yield rhs, op == OP.le


def _mentions(e: isl.AstExpr, name: str) -> bool:
    kind = e.get_type()
    if kind == isl.ast_expr_type.id:
        return e.id_get_id().get_name() == name
    if kind == isl.ast_expr_type.op:
        return any(_mentions(e.op_get_arg(i), name) for i in range(e.op_get_n_arg()))
    return False
