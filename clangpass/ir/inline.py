# SPDX-License-Identifier: MIT
"""Calls of PENCIL functions inlined into the region that makes them.

Input: a region body and its `Module`. Output: the body in which each statement
`f(args);` that calls a void PENCIL function defined in the same file is replaced
by a block holding `f`'s body, and the names of the functions inlined.

The block keeps C's meaning of the call exactly:
- a scalar parameter is a fresh local initialised with its argument (`int n' = m;`),
  so the callee may even write it (single-assignment ones are then substituted by
  clangpass.poly.affine_locals);
- an array parameter is replaced by its argument, which must designate an array
  or a row of one (`A`, `A[i]`, `B[i][j]`, not `A + 1` or `&A[i][0]`): `p[k]` in
  the callee becomes `A[i][k]`;
- every variable the callee declares is renamed apart (`j__pencil_inline1`), so that
  its loop iterators and locals cannot clash with the caller's;
- a final `return;` is dropped; a call to a function with another `return`, a
  `static` local, a summary (`pencil_access`), a variadic or non-void one, or a
  call too deep (recursion is not PENCIL), is left as it is (the model then
  reports it as before).
This is how the PENCIL definition means calls between PENCIL functions to be
optimised (the callee's accesses are the caller's: thesis, section 4.2), and what
lets a caller use a `static` helper, whose symbol outlined code in another object
could not reach.
"""
from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Optional

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import iter_stmts, strip_implicit_casts, transform

MAX_DEPTH = 8
SUFFIX = "__pencil_inline"


def inline_calls(module: N.Module, body: N.Compound) -> tuple[N.Compound, tuple[str, ...]]:
    """`body` with its calls of void PENCIL functions inlined (see the module doc)."""
    inlined: list[str] = []
    counter = itertools.count(1)
    return _inline(module, body, inlined, counter, 0), tuple(inlined)


def _inline(module: N.Module, body: N.Compound, inlined: list[str], counter: itertools.count,
            depth: int) -> N.Compound:
    def visit(node: object) -> object:
        if not isinstance(node, N.ExprStmt) or depth >= MAX_DEPTH:
            return node
        call = strip_implicit_casts(node.expr)
        if not isinstance(call, N.Call) or call.builtin:
            return node
        callee = _definition(module, call.callee)
        if callee is None or not _inlinable(callee, call):
            return node
        block = _instantiate(callee, call, next(counter), node)
        if block is None:
            return node
        inlined.append(callee.name)
        return _inline(module, block, inlined, counter, depth + 1)

    return transform(body, visit)


def _definition(module: N.Module, name: str) -> Optional[N.Function]:
    for f in module.functions:
        if f.name == name and f.body is not None:
            return f
    return None


def _inlinable(fn: N.Function, call: N.Call) -> bool:
    if not fn.is_pencil or fn.variadic or not isinstance(fn.result, T.VoidType) or fn.attribute("pencil_access"):
        return False
    if len(call.args) != len(fn.params):
        return False
    stmts = list(iter_stmts(fn.body))
    returns = [s for s in stmts if isinstance(s, N.Return)]
    if returns and (len(returns) > 1 or fn.body.body[-1] is not returns[0] or returns[0].value is not None):
        return False
    return not any(isinstance(s, N.DeclStmt) and any(d.storage for d in s.decls) for s in stmts)


def _instantiate(fn: N.Function, call: N.Call, serial: int, at: N.ExprStmt) -> Optional[N.Compound]:
    """The block that runs `fn`'s body for `call`; None if an argument cannot be substituted."""
    rename: dict[str, N.Expr] = {}
    prologue: list[N.Stmt] = []
    for param, arg in zip(fn.params, call.args):
        if isinstance(param.type, (T.ArrayType, T.PointerType)):
            target = strip_implicit_casts(arg)
            if not _designates_array(target):
                return None
            rename[param.name] = target
        else:
            fresh = f"{param.name}{SUFFIX}{serial}"
            prologue.append(N.DeclStmt(decls=(N.VarDecl(fresh, param.type, arg, at.loc),), loc=at.loc))
            rename[param.name] = N.VarRef(fresh, "local", type=param.type, loc=at.loc)
    declared = {d.name for s in iter_stmts(fn.body) if isinstance(s, N.DeclStmt) for d in s.decls}

    def substitute(node: object) -> object:
        if isinstance(node, N.VarRef) and node.scope in ("param", "local"):
            if node.name in declared:
                return replace(node, name=f"{node.name}{SUFFIX}{serial}")
            if node.name in rename:
                return replace(rename[node.name], loc=node.loc)
        if isinstance(node, N.VarDecl) and node.name in declared:
            return replace(node, name=f"{node.name}{SUFFIX}{serial}")
        return node

    body = transform(fn.body, substitute)
    stmts = list(body.body)
    if stmts and isinstance(stmts[-1], N.Return):
        stmts.pop()
    return N.Compound(body=tuple(prologue + stmts), loc=at.loc, pragmas=at.pragmas)


def _designates_array(e: N.Expr) -> bool:
    """`A`, `A[i]`, `A[i][j]`: an array variable or a row of one."""
    while isinstance(e, N.Subscript):
        e = strip_implicit_casts(e.base)
    return isinstance(e, N.VarRef) and isinstance(e.type, (T.ArrayType, T.PointerType))
