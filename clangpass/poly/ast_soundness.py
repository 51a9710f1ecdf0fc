# SPDX-License-Identifier: MIT
"""Does an isl AST scan what its schedule says? Loops bounded by their own iterator.

Input: an isl AST (`isl.AstNode`). Output: the loops whose bounds use their own
iterator (empty: none found).

A `for` loop of a polyhedral AST runs its iterator from a lower bound to an upper
bound that depend only on outer iterators and parameters (Grosser, Verdoolaege &
Cohen, "Polyhedral AST generation is more than scanning polyhedra", TOPLAS
2015). isl's AST generator breaks that rule on some strided domains: when
the values a loop scans share a parity that isl does not recognise as a stride
(the union of several statements' domains, each `(n + i) mod 2 = 1`, scanned
with the `atomic` loop type), the parity constraint becomes a loop condition,
e.g. `c1 < min(-3, -n + 2 * floord(n + c1 + 1, 2))`, which stops the loop at
the first value of the wrong parity instead of skipping it: every later
instance is silently dropped (random program seed 900227).

The check is syntactic and catches that failure without rejecting isl's
ordinary bounds: the initial value and the increment must not use the iterator,
and each conjunct of the condition must either not use it or compare an affine
function of it (`c1 <= ub`, `n >= c1 + 4`) with a bound free of it, so that the
condition is monotone in the iterator and holds on a prefix of its values.
"""
from __future__ import annotations

import islpy as isl

_COMPARISONS = frozenset({isl.ast_expr_op_type.le, isl.ast_expr_op_type.lt,
                          isl.ast_expr_op_type.ge, isl.ast_expr_op_type.gt})
_CONJUNCTIONS = frozenset({isl.ast_expr_op_type.and_, isl.ast_expr_op_type.and_then})
_LINEAR = frozenset({isl.ast_expr_op_type.add, isl.ast_expr_op_type.sub, isl.ast_expr_op_type.minus})


def self_bounded_loops(ast: isl.AstNode) -> list[str]:
    """The loops of `ast` whose bounds or increment are not monotone in their own iterator, as C."""
    problems: list[str] = []

    def check(node: isl.AstNode) -> bool:
        if node.get_type() != isl.ast_node_type.for_:
            return True
        iterator = node.for_get_iterator().get_id().get_name()
        init = node.for_get_init()
        sound = not _mentions(init, iterator)
        cond = "(degenerate)"
        if not node.for_is_degenerate():
            cond = node.for_get_cond().to_C_str()
            sound = (sound and not _mentions(node.for_get_inc(), iterator)
                     and all(_is_bound(c, iterator) for c in _conjuncts(node.for_get_cond())))
        if not sound:
            problems.append(f"loop over {iterator} bounded by itself: {iterator} = {init.to_C_str()}; {cond}")
        return True

    ast.foreach_descendant_top_down(check)
    return problems


def _conjuncts(expr: isl.AstExpr) -> list[isl.AstExpr]:
    if expr.get_type() == isl.ast_expr_type.op and expr.get_op_type() in _CONJUNCTIONS:
        return [c for k in range(expr.get_op_n_arg()) for c in _conjuncts(expr.get_op_arg(k))]
    return [expr]


def _is_bound(conjunct: isl.AstExpr, iterator: str) -> bool:
    """Whether `conjunct` is free of the iterator or compares an affine function of it with a bound free of it.

    Such a condition is monotone in the iterator, so it holds on a prefix of the scanned values.
    """
    if not _mentions(conjunct, iterator):
        return True
    if conjunct.get_type() != isl.ast_expr_type.op or conjunct.get_op_type() not in _COMPARISONS:
        return False
    sides = [conjunct.get_op_arg(k) for k in range(conjunct.get_op_n_arg())]
    using = [side for side in sides if _mentions(side, iterator)]
    return len(sides) == 2 and len(using) == 1 and _is_affine_in(using[0], iterator)


def _is_affine_in(expr: isl.AstExpr, iterator: str) -> bool:
    """Whether `iterator` occurs in `expr` only under sums, differences, negations and constant factors."""
    if not _mentions(expr, iterator) or expr.get_type() == isl.ast_expr_type.id:
        return True
    if expr.get_type() != isl.ast_expr_type.op:
        return False
    op = expr.get_op_type()
    args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
    if op in _LINEAR:
        return all(_is_affine_in(a, iterator) for a in args)
    if op == isl.ast_expr_op_type.mul:
        return (any(a.get_type() == isl.ast_expr_type.int for a in args)
                and all(_is_affine_in(a, iterator) for a in args))
    return False


def _mentions(expr: isl.AstExpr, name: str) -> bool:
    kind = expr.get_type()
    if kind == isl.ast_expr_type.id:
        return expr.get_id().get_name() == name
    if kind == isl.ast_expr_type.op:
        return any(_mentions(expr.get_op_arg(k), name) for k in range(expr.get_op_n_arg()))
    return False
