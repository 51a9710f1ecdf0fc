# SPDX-License-Identifier: MIT
"""`register_rows.disjoint_row_arrays`: the rows of a register tile get alias scopes only
where isl proves that no two rows touch one element, over every execution of the row loop.

Each case builds the isl AST of `for (c0 ...) for (c1 = 0; c1 <= 3; c1++) for (c2 ...)
S(c0, c1, c2)` from a schedule and asks about the row loop `c1`, with the statement body
given as pencilcc IR (`C[...][c] op= ...`)."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.poly.codegen_unit import CodegenUnit, StatementBody
from llvm_backend.cpu.register_rows import Enclosing, disjoint_row_arrays



def _var(name: str, scope: str = "local") -> N.VarRef:
    return N.VarRef(name=name, scope=scope, type=T.LONG)


# double C[n][m] (a VLA parameter, decayed to double (*)[m]); the column loop runs c < 8
M = N.VarRef(name="m", scope="param", type=T.INT)
VLA = T.PointerType(pointee=T.ArrayType(element=T.DOUBLE, extent=M))


def _element(array: str, row: N.Expr, col: N.Expr, rows_of: T.CType = VLA) -> N.Subscript:
    return N.Subscript(base=N.Subscript(base=N.VarRef(name=array, scope="param", type=rows_of), index=row,
                                        type=T.DOUBLE), index=col, type=T.DOUBLE)


def _plus(a: N.Expr, b: N.Expr) -> N.Expr:
    return N.Binary(op="+", lhs=a, rhs=b, type=T.LONG)


def _one(value: int) -> N.Expr:
    return N.IntLit(value=value, type=T.LONG)


def _unit(domain: str, body: N.Stmt) -> tuple[CodegenUnit, isl.AstNode, list[Enclosing]]:
    dom = isl.UnionSet(domain)
    schedule = isl.UnionMap("{ S[i, r, c] -> [i, r, c] }").intersect_domain(dom)
    build = isl.AstBuild.from_context(CONTEXT)
    ast = build.node_from_schedule_map(schedule)
    # for c0 { for c1 { for c2 { S(...) } } }
    assert ast.get_type() == isl.ast_node_type.for_
    row_loop = ast.for_get_body()
    assert row_loop.get_type() == isl.ast_node_type.for_, ast.to_C_str()
    unit = CodegenUnit(region=None, ast=ast,  # type: ignore[arg-type]
                       statements={"S": StatementBody("S", body, ("i", "r", "c"))}, context=CONTEXT)
    return unit, row_loop, [Enclosing(ast)]


def _update(target: N.Expr, *reads: N.Expr) -> N.Stmt:
    value: N.Expr = N.FloatLit(value=1.0, type=T.DOUBLE)
    for read in reads:
        value = N.Binary(op="+", lhs=value, rhs=read, type=T.DOUBLE)
    return N.ExprStmt(expr=N.Assign(op="+=", target=target, value=value, type=T.DOUBLE))


CONTEXT = isl.Set("[n, m] -> { : n >= 0 and m >= 8 }")
ALIGNED = "[n, m] -> { S[i, r, c] : 0 <= i < n and i mod 4 = 0 and 0 <= r <= 3 and 0 <= c < 8 }"
UNALIGNED = "[n, m] -> { S[i, r, c] : 0 <= i < n and 0 <= r <= 3 and 0 <= c < 8 }"
ROW = _plus(_var("i"), _var("r"))


def test_rows_of_aligned_blocks_are_disjoint():
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", ROW, _var("c")), _element("A", _var("r"), _var("c"))))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == {"C"}


def test_rows_that_meet_in_another_execution_are_not():
    # Within one execution of the row loop its rows i, i+1, i+2, i+3 differ, but row 1 at
    # i = 0 is row 0 at i = 1: scoped noalias metadata would claim more than holds.
    unit, rows, enclosing = _unit(UNALIGNED, _update(_element("C", ROW, _var("c"))))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()


def test_rows_writing_one_element_are_not():
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", _var("i"), _var("c"))))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()


def test_a_read_of_the_next_row_overlaps():
    body = _update(_element("C", ROW, _var("c")), _element("C", _plus(ROW, _one(1)), _var("c")))
    unit, rows, enclosing = _unit(ALIGNED, body)
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()


def test_non_affine_subscripts_decline():
    square = N.Binary(op="*", lhs=_var("i"), rhs=_var("r"), type=T.LONG)
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", square, _var("c"))))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()


@pytest.mark.parametrize("enclosing_known", [True, False])
def test_without_the_outer_loop_nothing_is_proven(enclosing_known):
    # The alignment of i comes from the outer loop's stride; forgetting the loop widens the
    # iterations to every i, where rows meet.
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", ROW, _var("c"))))
    got = disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing if enclosing_known else [])
    assert got == ({"C"} if enclosing_known else frozenset())


def test_columns_beyond_the_row_extent_decline():
    # C[i + r][c + m - 4]: the last columns of one row are the first of the next.
    col = _plus(_var("c"), _plus(M, _one(-4)))
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", ROW, col)))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()


def test_constant_extents():
    rows_of = T.PointerType(pointee=T.ArrayType(element=T.DOUBLE, extent=_one(8), constant_extent=8))
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", ROW, _var("c"), rows_of)))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == {"C"}


def test_a_row_pointer_declines():
    # C[i + r] used as a pointer (no column subscript): its elements are not known.
    row = N.Subscript(base=N.VarRef(name="C", scope="param", type=VLA), index=ROW, type=T.DOUBLE)
    unit, rows, enclosing = _unit(ALIGNED, _update(_element("C", ROW, _var("c")), row))
    assert disjoint_row_arrays(unit, rows, [0, 1, 2, 3], enclosing) == frozenset()
