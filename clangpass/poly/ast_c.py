# SPDX-License-Identifier: MIT
"""The isl AST of a `CodegenUnit` as C statements: the one printer of every back end that writes C.

Input: an isl AST node (for, if, block, mark, user; clangpass.poly.codegen_unit's
conventions), the unit's statement bodies and a `clangpass.ir.c_printer.CPrinter`
whose dialect spells names. Output: lines of C.

- isl expressions are integers of the dialect's `index_type` (`long`, as the CPU
  target's i64): iterators bound by an enclosing for node are spelled by
  `CDialect.iterator`, other identifiers are the region's integer parameters
  (`CDialect.parameter`, told whether the value takes part in arithmetic, where a
  narrower C type must first become `long`); min, max and the floor quotient are the
  dialect's (`minmax`, `floord`); every operation is parenthesised;
- a for node is `for (long c = init; cond; c += step)`, a degenerate one binds
  its iterator in a block;
- a user node `S(e0, ..., ek)` is a block that binds each iterator of the statement
  the body names, in that iterator's C type, then the IR body (`CPrinter.stmt`);
- marks are transparent here; a printer that gives them a meaning (OpenMP pragmas,
  clangpass.emit_c) overrides `mark`.
A construct the dialect cannot spell raises `Unprintable`.
"""
from __future__ import annotations

from typing import Mapping

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.c_printer import CDialect, CPrinter, Unprintable
from clangpass.ir.walk import descendants
from clangpass.poly.codegen_unit import StatementBody

OP = isl.ast_expr_op_type
_BINARY = {OP.add: "+", OP.sub: "-", OP.mul: "*", OP.div: "/", OP.pdiv_q: "/", OP.pdiv_r: "%",
           OP.zdiv_r: "%", OP.and_: "&&", OP.and_then: "&&", OP.or_: "||", OP.or_else: "||",
           OP.eq: "==", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">"}
# C's precedence levels of the operators isl's expressions use (higher binds tighter).
_CONDITIONAL, _UNARY, _PRIMARY = 3, 14, 16
_PRECEDENCE = {"||": 4, "&&": 5, "==": 9, "<=": 10, "<": 10, ">=": 10, ">": 10,
               "+": 12, "-": 12, "*": 13, "/": 13, "%": 13}
_ARITHMETIC = {OP.add, OP.sub, OP.mul, OP.div, OP.pdiv_q, OP.pdiv_r, OP.zdiv_r, OP.minus, OP.fdiv_q}


def iterator_name(node: isl.AstNode) -> str:
    """The isl name of a for node's iterator."""
    return node.for_get_iterator().id_get_id().get_name()


def iterator_types(statements: Mapping[str, StatementBody]) -> dict[str, T.CType]:
    """The C type each statement iterator has where a body names it (its declared type)."""
    types: dict[str, T.CType] = {}
    for body in statements.values():
        for n in descendants(body.body):
            if isinstance(n, N.VarRef) and n.name in body.iterators:
                types.setdefault(n.name, n.type)
    return types


class AstPrinter:
    """Prints isl AST subtrees with `printer` (its dialect spells names and types)."""

    def __init__(self, printer: CPrinter, statements: Mapping[str, StatementBody],
                 types: Mapping[str, T.CType]) -> None:
        self.printer = printer
        self.dialect = printer.dialect
        self.statements = statements
        self.iterator_types = types

    # ------------------------------------------------------------------ expressions
    def expr(self, e: isl.AstExpr, bound: set[str], arithmetic: bool = False) -> str:
        """`e` in the dialect; `bound`: the isl iterators in scope; `arithmetic`: `e` is an
        operand of an integer operation (not only compared)."""
        return self._expr(e, bound, arithmetic)[0]

    def condition(self, e: isl.AstExpr, bound: set[str]) -> str:
        """`e` as the condition of an if or a for (C's precedence, so no outer parentheses)."""
        return self.expr(e, bound)

    def _expr(self, e: isl.AstExpr, bound: set[str], arithmetic: bool) -> tuple[str, int]:
        return _expr(self.dialect, e, bound, arithmetic)

    # ------------------------------------------------------------------ nodes
    def node(self, n: isl.AstNode, indent: str, bound: set[str]) -> list[str]:
        kind = n.get_type()
        if kind == isl.ast_node_type.block:
            children = n.block_get_children()
            out: list[str] = []
            for i in range(children.n_ast_node()):
                out += self.node(children.get_at(i), indent, bound)
            return out
        if kind == isl.ast_node_type.mark:
            return self.mark(n, indent, bound)
        if kind == isl.ast_node_type.if_:
            out = [f"{indent}if ({self.condition(n.if_get_cond(), bound)}) {{"]
            out += self.node(n.if_get_then_node(), indent + "  ", bound)
            if n.if_has_else_node():
                out += [f"{indent}}} else {{"] + self.node(n.if_get_else_node(), indent + "  ", bound)
            return out + [indent + "}"]
        if kind == isl.ast_node_type.for_:
            return self.for_(n, indent, bound)
        if kind == isl.ast_node_type.user:
            return self.user(n, indent, bound)
        raise Unprintable(f"isl AST node '{kind}'")

    def mark(self, n: isl.AstNode, indent: str, bound: set[str]) -> list[str]:
        return self.node(n.mark_get_node(), indent, bound)

    def for_(self, n: isl.AstNode, indent: str, bound: set[str], pragmas: tuple[str, ...] = ()) -> list[str]:
        """The for node `n`, under the lines `pragmas` (a degenerate loop takes none)."""
        d = self.dialect
        it = iterator_name(n)
        inner = bound | {it}
        init = self.condition(n.for_get_init(), bound)
        if n.for_is_degenerate():
            return [f"{indent}{{", f"{indent}  const {d.index_type} {d.iterator(it)} = {init};",
                    *self.node(n.for_get_body(), indent + "  ", inner), f"{indent}}}"]
        cond = self.condition(n.for_get_cond(), inner)
        step = self.condition(n.for_get_inc(), inner)
        name = d.iterator(it)
        return [*(indent + p for p in pragmas),
                f"{indent}for ({d.index_type} {name} = {init}; {cond}; {name} += {step}) {{",
                *self.node(n.for_get_body(), indent + "  ", inner), f"{indent}}}"]

    def user(self, n: isl.AstNode, indent: str, bound: set[str]) -> list[str]:
        call = n.user_get_expr()
        stmt = self.statements[call.op_get_arg(0).id_get_id().get_name()]
        used = {v.name for v in descendants(stmt.body) if isinstance(v, N.VarRef)}
        out = [indent + "{"]
        for i, it in enumerate(stmt.iterators):
            if not self.binds_unused and it not in used:
                continue
            later = set().union(*(identifiers(call.op_get_arg(k + 1)) for k in range(i + 1, len(stmt.iterators))))
            if it in later:
                raise Unprintable(f"the iterator '{it}' of {stmt.name}, also a parameter of its position")
            ctype = self.iterator_types.get(it, T.IntType("long", 64))
            spelled = self.dialect.type_name(ctype)
            value = _wrap(self._expr(call.op_get_arg(i + 1), bound, False), _UNARY)
            ref = N.VarRef(it, "local", type=ctype)
            out.append(f"{indent}  const {spelled} {self.dialect.name(ref)} = ({spelled}){value};")
        out += self.printer.stmt(stmt.body, indent + "  ")
        return out + [indent + "}"]

    #: Whether a user node binds iterators its body does not name (kernels do; host C leaves
    #: them out, which gcc -Wall would call unused).
    binds_unused = True


def identifiers(e: isl.AstExpr) -> set[str]:
    """The identifiers (iterators and parameters) an isl expression names."""
    if e.get_type() == isl.ast_expr_type.id:
        return {e.id_get_id().get_name()}
    if e.get_type() == isl.ast_expr_type.op:
        return set().union(*(identifiers(e.op_get_arg(i)) for i in range(e.op_get_n_arg())))
    return set()


def expression(e: isl.AstExpr, dialect: CDialect, bound: set[str]) -> str:
    """`e` in `dialect` for code a back end writes beside the printed AST (the OpenCL
    tiling's copy guards, offsets and register subscripts): parenthesised unless it is a
    primary expression, so it can stand as an operand anywhere."""
    return _wrap(_expr(dialect, e, bound, True), _PRIMARY)


def _expr(d: CDialect, e: isl.AstExpr, bound: set[str], arithmetic: bool) -> tuple[str, int]:
    """(text, C precedence of its outermost operator); operands are parenthesised only
    where C's precedence and left associativity need it."""
    kind = e.get_type()
    if kind == isl.ast_expr_type.int:
        value = e.int_get_val().to_python()
        return d.integer(value), _PRIMARY if value >= 0 else _UNARY
    if kind == isl.ast_expr_type.id:
        name = e.id_get_id().get_name()
        return (d.iterator(name) if name in bound else d.parameter(name, arithmetic)), _PRIMARY
    op = e.op_get_type()
    inner = op in _ARITHMETIC or op in (OP.min, OP.max)
    args = [_expr(d, e.op_get_arg(i), bound, inner) for i in range(e.op_get_n_arg())]
    if op in _BINARY:
        symbol = _BINARY[op]
        level = _PRECEDENCE[symbol]
        # `a && b || c` reads better (and gcc -Wparentheses wants it) as `(a && b) || c`.
        left = level + 2 if symbol == "||" else level
        return f"{_wrap(args[0], left)} {symbol} {_wrap(args[1], max(left, level + 1))}", level
    if op == OP.minus:
        return f"-{_wrap(args[0], _UNARY + 1)}", _UNARY
    if op in (OP.min, OP.max):
        result = args[0][0]
        for a in args[1:]:
            result = d.minmax("min" if op == OP.min else "max", result, a[0])
        return result, _PRIMARY
    if op == OP.fdiv_q:
        return d.floord(args[0][0], args[1][0]), _PRIMARY
    if op in (OP.cond, OP.select):
        return (f"{_wrap(args[0], _CONDITIONAL + 1)} ? {_wrap(args[1], _CONDITIONAL + 1)} : "
                f"{_wrap(args[2], _CONDITIONAL)}"), _CONDITIONAL
    raise Unprintable(f"isl AST operation '{op}'")


def _wrap(operand: tuple[str, int], level: int) -> str:
    """An operand's text, parenthesised when it binds more loosely than `level` needs."""
    text, precedence = operand
    return text if precedence >= level else f"({text})"
