# SPDX-License-Identifier: MIT
"""Which arrays does an innermost loop update at elements none of its other accesses touch?

Input: a `CodegenUnit`, the for node of an innermost loop (no loop in its body) and the for
and if nodes that enclose it in the unit's AST (`register_rows.Enclosing`). Output: for each
array written in the loop whose *accumulator* references (the subscript chains equal to a
chain the same statement assigns: `table[i][j]` in `table[i][j] = max(table[i][j],
table[i][k] + table[k + 1][j])`) touch, over one execution of the loop (the enclosing
loops' iterators fixed), no element its other references touch (`table[i][k]` with
`k < j`, `table[k + 1][j]`), the accumulator chains.

Why the back end asks: the loop `reduction-jam` runs over a triangle's rectangle updates
eight elements of one row (`table[i][j0 .. j0 + 7]`) and reads the same row left of them
(`table[i][k]`, `k < j0`). The addresses differ by amounts LLVM cannot bound, so it stores
every accumulator and reloads `table[i][k]` after each store in every iteration. `lower_ast`
gives the two groups an alias scope each, declared (`llvm.experimental.noalias.scope.decl`)
where the loop starts, so the promise holds for one execution of the loop only, as proven;
LICM then keeps the accumulators in registers and stores them once after the loop.

The proof (isl), as in `register_rows`: the AST's loops and conditions give a superset of
the iterations that run (anything not understood is left out, which only widens it); each
chain's subscripts are affine functions of the statement's iterators, bound to affine
expressions of the AST iterators; the accumulator and the other elements, as relations from
the enclosing iterators, must not meet. A subscript below the first is taken to lie within
its extent (an access outside its row is undefined in C, and the dependence analysis rests on
the same). An array named other than as the root of a subscript chain, or a subscript that is
not affine, declines the array.
"""
from __future__ import annotations

from typing import Iterator, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import descendants, strip_casts
from clangpass.poly.ast_c import iterator_name
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.codegen_unit import CodegenUnit
from llvm_backend.cpu.register_rows import (_OUT, Enclosing, _chain_root, _for_constraints, _named_elsewhere,
                                            _NotAffine, _statement_names, _words, chain_accesses,
                                            enclosing_constraints)

#: One subscript chain under the loop: its array, its subscripts in isl syntax with the extents
#: of the dimensions below the first, whether it is an accumulator, and its iteration space.
_Access = tuple[str, list[tuple[str, Optional[str]]], bool, tuple[list[str], list[str]]]


def accumulator_chains(unit: CodegenUnit, loop: isl.AstNode,
                       enclosing: list[Enclosing]) -> dict[str, frozenset[N.Expr]]:
    """Array name -> its accumulator chains (the module doc), for the arrays proven; {} if none."""
    if len(enclosing) > MAX_ENCLOSING:
        return {}
    outer, constraints = enclosing_constraints(enclosing, widen=True)
    name = iterator_name(loop)
    try:
        constraints = constraints + _for_constraints(loop, name)
    except _NotAffine:
        pass
    accesses: list[_Access] = []
    for a in chain_accesses(unit, loop.for_get_body(), outer + [name], constraints):
        if a.array is None or a.subs is None or len(a.iterators) != len(outer) + 1:
            return {}                         # an unknown statement, a subscript not affine, a loop inside
        accumulator = a.chain in _targets(a.body)
        accesses.append((a.array, a.subs, accumulator, (list(a.iterators), list(a.constraints))))
    found: dict[str, frozenset[N.Expr]] = {}
    for array in sorted({a for a, _, acc, _ in accesses if acc}):
        mine = [x for x in accesses if x[0] == array]
        if all(acc for _, _, acc, _ in mine) or _named_elsewhere(unit, loop, array):
            continue                          # nothing else to tell the accumulators from
        try:
            with isl_budget(isl.DEFAULT_CONTEXT, PROOF_OPERATIONS, "accumulator scopes"):
                updated = _elements([x for x in mine if x[2]], len(outer), unit.context)
                other = _elements([x for x in mine if not x[2]], len(outer), unit.context)
                if updated is None or (other is not None and not _meet(updated, other).is_empty()):
                    continue
        except (_NotAffine, isl.Error, BudgetExceeded):
            continue                          # not proven within the budget: no scopes
        found[array] = frozenset(_accumulators(unit, loop, array))
    return found


# isl operations one array's proof may take. The maps are built from the AST's text in isl's
# default context. A nest that tiling and skewing left with many bounds gets no scopes rather
# than an unbounded emptiness test: seidel-2d's wavefront at LARGE took 23 s of proofs without a
# bound, 1.8 s with this one (0.7 s with 100,000, where nussinov kept 3 of its 9 scopes; it
# keeps all 9 here).
PROOF_OPERATIONS = 1_500_000


# Loops under more enclosing loops and conditions than this get no proof (no scopes): the
# time-tiled stencils' innermost loops (heat-3d, seidel-2d: 8 and more) give maps whose
# construction alone took minutes for some of them, outside any operation count. nussinov's
# chains sit under 3 and 4 (all 9 scopes kept), lu's and ludcmp's keep theirs; cholesky's 3
# (under 6, never timed) are given up, and seidel-2d compiles in 0.66 s (1.58 s with 6).
MAX_ENCLOSING = 5


def _meet(a: isl.Map, b: isl.Map) -> isl.Map:
    return a.align_params(b.get_space()).intersect(b.align_params(a.get_space()))


def _elements(accesses: list[_Access], depth: int, context: Optional[isl.Set]) -> Optional[isl.Map]:
    """{ [enclosing iterators] -> [element] }: the elements the chains touch in one execution of
    the loop (its own iterator projected out); None for no chain."""
    result: Optional[isl.Map] = None
    for _, subs, _, (iterators, constraints) in accesses:
        names = ", ".join(iterators)
        out = ", ".join(f"{_OUT}{k}" for k in range(len(subs)))
        conds = list(constraints) + [f"{_OUT}{k} = {s}" for k, (s, _) in enumerate(subs)]
        params = {w for w in _words(" ".join(conds)) - set(iterators) if not w.startswith(_OUT)}
        relation = isl.Map(f"[{', '.join(sorted(params))}] -> {{ [{names}] -> [{out}] : "
                           + " and ".join(f"({c})" for c in conds) + " }")
        for k, (_, extent) in enumerate(subs):
            if extent is not None:
                # A subscript below the first lies within its extent (C: an access outside its
                # row is undefined; the dependence analysis rests on it too), so distinct tuples
                # are distinct addresses.
                inside = isl.Map(f"[{', '.join(sorted(params | _words(extent)))}] -> {{ [{names}] -> [{out}] : "
                                 f"0 <= {_OUT}{k} < {extent} }}")
                relation = relation.align_params(inside.get_space())
                relation = relation.intersect(inside.align_params(relation.get_space()))
        if context is not None:
            relation = relation.align_params(context.get_space())
            relation = relation.intersect_params(context.align_params(relation.get_space()))
        relation = relation.project_out(isl.dim_type.in_, depth, relation.dim(isl.dim_type.in_) - depth)
        result = relation if result is None else result.align_params(relation.get_space()).union(
            relation.align_params(result.get_space()))
    return result


def _targets(body: N.Stmt) -> list[N.Expr]:
    """The chains `body` assigns (or increments)."""
    out = []
    for n in descendants(body):
        target = n.target if isinstance(n, N.Assign) else \
            n.operand if isinstance(n, N.Unary) and n.op in ("++pre", "--pre", "post++", "post--") else None
        if target is not None:
            out.append(strip_casts(target))
    return out


def _accumulators(unit: CodegenUnit, loop: isl.AstNode, array: str) -> Iterator[N.Expr]:
    for stmt_name in _statement_names(loop):
        stmt = unit.statements[stmt_name]
        for target in _targets(stmt.body):
            root, _ = _chain_root(target)
            if root is not None and root.name == array:
                yield target
