# SPDX-License-Identifier: MIT
"""`accumulators.accumulator_chains`: an innermost loop's accumulators get alias scopes apart
from the loop's other accesses to their array only where isl proves the two element sets
disjoint in every execution of the loop (the enclosing iterators fixed).

Each case builds the isl AST of `for (c0 ...) for (c1 ...) for (c2 ...) S(c0, c1, c2)` from a
schedule and asks about the innermost loop `c2`, with the statement body given as pencilcc IR
(nussinov's `t[i][j] = max(t[i][j], t[i][k] + t[k + 1][j])` shape)."""
from __future__ import annotations

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.poly.codegen_unit import CodegenUnit, StatementBody
from llvm_backend.cpu.accumulators import accumulator_chains
from llvm_backend.cpu.register_rows import Enclosing

ROWS = T.ArrayType(element=T.INT, extent=N.IntLit(value=100, type=T.LONG))
TABLE = T.PointerType(pointee=ROWS)           # int t[][100]
CONTEXT = isl.Set("[n] -> { : 0 <= n <= 100 }")


def _var(name: str) -> N.VarRef:
    return N.VarRef(name=name, scope="local", type=T.LONG)


def _t(row: N.Expr, col: N.Expr) -> N.Subscript:
    return N.Subscript(base=N.Subscript(base=N.VarRef(name="t", scope="param", type=TABLE), index=row,
                                        type=ROWS), index=col, type=T.INT)


def _plus(a: N.Expr, value: int) -> N.Expr:
    return N.Binary(op="+", lhs=a, rhs=N.IntLit(value=value, type=T.LONG), type=T.LONG)


def _max_update(target: N.Expr, *reads: N.Expr) -> N.Stmt:
    total = reads[0]
    for read in reads[1:]:
        total = N.Binary(op="+", lhs=total, rhs=read, type=T.INT)
    value = N.Call(callee="max", args=(target, total), builtin=True, type=T.INT)
    return N.ExprStmt(expr=N.Assign(op="=", target=target, value=value, type=T.INT))


def _unit(domain: str, body: N.Stmt) -> tuple[CodegenUnit, isl.AstNode, list[Enclosing]]:
    dom = isl.UnionSet(domain)
    schedule = isl.UnionMap("{ S[i, j, k] -> [i, j, k] }").intersect_domain(dom)
    ast = isl.AstBuild.from_context(CONTEXT).node_from_schedule_map(schedule)
    middle = ast.for_get_body()
    inner = middle.for_get_body()
    assert inner.get_type() == isl.ast_node_type.for_, ast.to_C_str()
    unit = CodegenUnit(region=None, ast=ast,  # type: ignore[arg-type]
                       statements={"S": StatementBody("S", body, ("i", "j", "k"))}, context=CONTEXT)
    return unit, inner, [Enclosing(ast), Enclosing(middle)]


TRIANGLE = "[n] -> { S[i, j, k] : 0 <= i < n and i < j < n and i < k < j }"
I, J, K = _var("i"), _var("j"), _var("k")


def test_the_updated_element_is_apart_from_the_row_read_left_of_it():
    target = _t(I, J)
    unit, loop, enclosing = _unit(TRIANGLE, _max_update(target, _t(I, K), _t(_plus(K, 1), J)))
    assert accumulator_chains(unit, loop, enclosing) == {"t": frozenset({target})}


def test_a_read_that_may_be_the_updated_element_declines():
    # t[i][k + 1] is t[i][j] at k = j - 1: the scopes would claim what does not hold.
    target = _t(I, J)
    unit, loop, enclosing = _unit(TRIANGLE, _max_update(target, _t(I, _plus(K, 1))))
    assert accumulator_chains(unit, loop, enclosing) == {}


def test_elements_that_meet_only_in_another_execution_are_apart():
    # t[i][j] of one (i, j) is t[i][k] of a later j: another execution of the k loop, for which
    # the scopes, declared where the loop starts, promise nothing.
    target = _t(I, J)
    unit, loop, enclosing = _unit(TRIANGLE, _max_update(target, _t(I, K)))
    assert accumulator_chains(unit, loop, enclosing) == {"t": frozenset({target})}


def test_nothing_but_the_accumulator_needs_no_scope():
    target = _t(I, J)
    unit, loop, enclosing = _unit(TRIANGLE, _max_update(target, _var("k")))
    assert accumulator_chains(unit, loop, enclosing) == {}


def test_a_proof_over_its_budget_or_too_deep_declines(monkeypatch):
    # The provable case above, with no isl operation allowed, or under more enclosing nodes than
    # MAX_ENCLOSING: no scope (the back end then emits the loop without them), no exception.
    import llvm_backend.cpu.accumulators as acc
    unit, loop, enclosing = _unit(TRIANGLE, _max_update(_t(I, J), _t(I, K), _t(_plus(K, 1), J)))
    assert accumulator_chains(unit, loop, enclosing) != {}
    monkeypatch.setattr(acc, "PROOF_OPERATIONS", 1)
    assert accumulator_chains(unit, loop, enclosing) == {}
    monkeypatch.setattr(acc, "PROOF_OPERATIONS", 1_500_000)
    monkeypatch.setattr(acc, "MAX_ENCLOSING", len(enclosing) - 1)
    assert accumulator_chains(unit, loop, enclosing) == {}
