# SPDX-License-Identifier: MIT
"""Single-assignment integer locals replaced by their value: `int j = d - i;` as a bound or subscript.

Input: the body of an `OptRegion`. Output: the same body in which every integer
local declared with an initialiser, never written again and whose initialiser
reads only integer scalars that are not written after it either (parameters,
enclosing loops' iterators, earlier such locals), is replaced at each use by its
initialiser, and its declaration removed; plus the names replaced.

This is copy propagation of values that cannot change, so it is exact whatever
the initialiser is; what it buys is that `int j = d - i;`, `int lo = max(0, i -
r);` or `int r = clamp(i + di, 0, h - 1);` used as a loop bound, a condition or
a subscript is an affine (or piecewise-affine) expression of parameters and
iterators, which the model accepts, rather than a local scalar, which it cannot
read (PENCIL thesis, section 4.3; pet substitutes such variables the same way,
Verdoolaege & Grosser, IMPACT 2012, section 3.2). An initialiser that is not
affine after substitution (`n / blocks`) is reported by the extractor as before,
now naming the expression.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.ir import nodes as N
from clangpass.ir.walk import descendants, iter_exprs, transform, written_variables
from clangpass.poly.affine import is_affine_integer_type

# Operators an initialiser may use: no side effect, no memory read.
_PURE_UNARY = frozenset({"+", "-", "!", "~"})
_PURE_BINARY = frozenset({"+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "&&", "||",
                          "<<", ">>", "&", "|", "^"})


def propagate_constant_locals(body: N.Compound) -> tuple[N.Compound, tuple[str, ...]]:
    """`body` with its single-assignment integer locals substituted (see the module doc)."""
    replaced: list[str] = []
    # Bottom-up: a block's inner blocks are done before its own declarations are substituted.
    out = transform(body, lambda n: _block(n, replaced) if isinstance(n, N.Compound) else n)
    return out, tuple(replaced)


def _block(block: N.Compound, replaced: list[str]) -> N.Compound:
    """The declarations made directly in `block` substituted into the statements after them."""
    stmts: list[N.Stmt] = []
    for s in block.body:     # `int a = i, b = a + 1;` as two declarations, so that b sees a's value
        stmts.extend([replace(s, decls=(d,)) for d in s.decls] if isinstance(s, N.DeclStmt) else [s])
    out: list[N.Stmt] = []
    for i, s in enumerate(stmts):
        if isinstance(s, N.DeclStmt) and s.decls and _substitutable(s.decls[0], stmts[i + 1:]):
            d = s.decls[0]
            value = d.init if d.init.type == d.type else N.Cast(d.init, type=d.type, loc=d.loc)
            stmts[i + 1:] = [_substitute(t, d.name, value) for t in stmts[i + 1:]]
            replaced.append(d.name)
            continue
        out.append(s)
    if len(out) == len(block.body) and all(a is b for a, b in zip(out, block.body)):
        return block
    return replace(block, body=tuple(out))


def _substitutable(d: N.VarDecl, rest: list[N.Stmt]) -> bool:
    if d.init is None or d.storage or isinstance(d.init, N.InitList) or not is_affine_integer_type(d.type):
        return False
    reads = set()
    for e in iter_exprs(d.init):
        if isinstance(e, N.VarRef):
            if not is_affine_integer_type(e.type):
                return False
            reads.add(e.name)
        elif isinstance(e, N.Unary):
            if e.op not in _PURE_UNARY:
                return False
        elif isinstance(e, N.Binary):
            if e.op not in _PURE_BINARY:
                return False
        elif isinstance(e, N.Call):
            if not e.builtin:
                return False
        elif not isinstance(e, (N.IntLit, N.Cast, N.Conditional)):
            return False
    fixed = reads | {d.name}
    for s in rest:
        for node in descendants(s):
            if isinstance(node, N.VarDecl) and node.name in fixed:
                return False             # shadowed (or redeclared) below: keep it simple
            if isinstance(node, N.Expr):
                if isinstance(node, N.Unary) and node.op == "&" and _names(node.operand) & fixed:
                    return False
                if isinstance(node, (N.Assign, N.Unary)) and any(v.name in fixed for v in written_variables(node)):
                    return False
    return True


def _names(e: N.Expr) -> set[str]:
    return {v.name for v in iter_exprs(e) if isinstance(v, N.VarRef)}


def _substitute(s: N.Stmt, name: str, value: N.Expr) -> N.Stmt:
    return transform(s, lambda n: value if isinstance(n, N.VarRef) and n.name == name else n)
