# SPDX-License-Identifier: MIT
"""A reference interpreter for the tests: runs a region's IR as written, or its `CodegenUnit`.

Input: an `OptRegion` (its IR, interpreted with C semantics: truncating integer
division, short-circuit operators, conversions on assignment) or a `CodegenUnit`
(the isl AST, calling the statement bodies with the iterator values of each user
node). Output: the final memory (arrays and scalars). Comparing the two on the
same inputs checks extraction, scheduling, tiling and AST generation together,
independently of any back end. Slow by design: tiny problem sizes only.
"""
from __future__ import annotations

import math
from collections import ChainMap
from typing import Any, MutableMapping

import islpy as isl
import numpy as np

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.regions import OptRegion

Memory = MutableMapping[str, Any]

_MATH = {"sqrt": lambda x: math.sqrt(x) if x >= 0 else math.nan, "exp": math.exp, "fabs": abs, "log": math.log, "pow": math.pow,
         "sin": math.sin, "cos": math.cos, "floor": math.floor, "ceil": math.ceil,
         "fmax": max, "fmin": min, "max": max, "min": min, "abs": abs}


def c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def c_rem(a: int, b: int) -> int:
    return a - b * c_div(a, b)


def convert(value: Any, t: T.CType) -> Any:
    if isinstance(t, T.IntType):
        v = int(value)
        if t.name == "_Bool":
            return 1 if value else 0
        bits = t.bits
        v &= (1 << bits) - 1
        if t.signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        return v
    if isinstance(t, T.FloatType):
        return float(np.float32(value)) if t.bits == 32 else float(value)
    return value


def allocate(t: T.CType, env: Memory) -> Any:
    """Zeroed storage for a variable of type `t` (extents evaluated in `env`)."""
    if isinstance(t, T.ArrayType):
        shape = []
        for d in t.dims():
            shape.append(d.constant_extent if d.constant_extent is not None
                         else Evaluator(env).value(d.extent))
        dtype = np.int64 if isinstance(t.scalar_element(), T.IntType) else np.float64
        return np.zeros(shape, dtype=dtype)
    return convert(0, t)


class Evaluator:
    """C expression semantics over a memory mapping names to numbers or numpy arrays."""

    def __init__(self, env: Memory):
        self.env = env

    def value(self, e: N.Expr) -> Any:
        return getattr(self, f"v_{type(e).__name__}")(e)

    def v_IntLit(self, e: N.IntLit) -> int:
        return e.value

    def v_FloatLit(self, e: N.FloatLit) -> float:
        return e.value

    def v_VarRef(self, e: N.VarRef) -> Any:
        return self.env[e.name]

    def v_Subscript(self, e: N.Subscript) -> Any:
        array, index = self.place(e)
        return convert(array[index], e.type)

    def v_Cast(self, e: N.Cast) -> Any:
        return convert(self.value(e.operand), e.type)

    def v_Unary(self, e: N.Unary) -> Any:
        if e.op == "*":
            array, index = self.place(e)
            return convert(array[index], e.type)
        if e.op in ("++", "--", "post++", "post--"):
            old = self.value(e.operand)
            new = convert(old + (1 if "++" in e.op else -1), e.operand.type)
            self.store(e.operand, new)
            return old if e.op.startswith("post") else new
        v = self.value(e.operand)
        return {"-": lambda: -v, "+": lambda: v, "!": lambda: int(not v), "~": lambda: ~v}[e.op]()

    def v_Binary(self, e: N.Binary) -> Any:
        if e.op == "&&":
            return int(bool(self.value(e.lhs)) and bool(self.value(e.rhs)))
        if e.op == "||":
            return int(bool(self.value(e.lhs)) or bool(self.value(e.rhs)))
        if e.op == ",":
            self.value(e.lhs)
            return self.value(e.rhs)
        a, b = self.value(e.lhs), self.value(e.rhs)
        return convert(self.arith(e.op, a, b, e.lhs.type, e.rhs.type), e.type)

    @staticmethod
    def arith(op: str, a: Any, b: Any, ta: T.CType, tb: T.CType) -> Any:
        integer = isinstance(ta, T.IntType) and isinstance(tb, T.IntType)
        if op == "/":
            return c_div(a, b) if integer else a / b
        if op == "%":
            return c_rem(a, b)
        return {"+": lambda: a + b, "-": lambda: a - b, "*": lambda: a * b,
                "<": lambda: int(a < b), "<=": lambda: int(a <= b), ">": lambda: int(a > b),
                ">=": lambda: int(a >= b), "==": lambda: int(a == b), "!=": lambda: int(a != b),
                "&": lambda: a & b, "|": lambda: a | b, "^": lambda: a ^ b,
                "<<": lambda: a << b, ">>": lambda: a >> b}[op]()

    def v_Conditional(self, e: N.Conditional) -> Any:
        return self.value(e.then) if self.value(e.cond) else self.value(e.otherwise)

    def v_Call(self, e: N.Call) -> Any:
        return convert(_MATH[e.callee](*(self.value(a) for a in e.args)), e.type)

    def v_Assign(self, e: N.Assign) -> Any:
        rhs = self.value(e.value)
        if e.op != "=":
            old = self.value(e.target)
            op_type = e.compute_type or e.type
            rhs = self.arith(e.op[:-1], convert(old, op_type), convert(rhs, op_type), op_type, op_type)
        new = convert(rhs, e.target.type)
        self.store(e.target, new)
        return new

    def place(self, e: N.Expr) -> tuple[Any, tuple[int, ...]]:
        index = []
        while isinstance(e, N.Subscript) or (isinstance(e, N.Unary) and e.op == "*"):
            index.append(self.value(e.index) if isinstance(e, N.Subscript) else 0)
            e = e.base if isinstance(e, N.Subscript) else e.operand
        array = self.value(e)
        index.reverse()
        for k, i in enumerate(index):
            if not 0 <= i < array.shape[k]:
                raise IndexError(f"index {index} out of bounds of shape {array.shape}")
        return array, tuple(index)

    def store(self, target: N.Expr, value: Any) -> None:
        if isinstance(target, N.VarRef):
            self.env[target.name] = value
        else:
            array, index = self.place(target)
            array[index] = value


class RegionInterpreter:
    """Runs the region's IR in source order."""

    def __init__(self, env: Memory):
        self.env = env
        self.eval = Evaluator(env)

    def run(self, s: N.Stmt) -> None:
        getattr(self, f"s_{type(s).__name__}")(s)

    def s_Compound(self, s: N.Compound) -> None:
        for c in s.body:
            self.run(c)

    def s_NullStmt(self, s: N.NullStmt) -> None:
        pass

    def s_Return(self, s: N.Return) -> None:
        pass

    def s_ExprStmt(self, s: N.ExprStmt) -> None:
        if isinstance(s.expr, N.Call) and s.expr.callee.startswith("__pencil_"):
            return
        self.eval.value(s.expr)

    def s_DeclStmt(self, s: N.DeclStmt) -> None:
        for d in s.decls:
            self.env[d.name] = allocate(d.type, self.env)
            if d.init is not None:
                self.env[d.name] = convert(self.eval.value(d.init), d.type)

    def s_If(self, s: N.If) -> None:
        if self.eval.value(s.cond):
            self.run(s.then)
        elif s.otherwise is not None:
            self.run(s.otherwise)

    def s_For(self, s: N.For) -> None:
        if s.init is not None:
            self.run(s.init)
        while self.eval.value(s.cond) and self._iteration(s.body):
            self.eval.value(s.step)

    def s_While(self, s: N.While) -> None:
        while self.eval.value(s.cond) and self._iteration(s.body):
            pass

    def _iteration(self, body: N.Stmt) -> bool:
        """Run one iteration of a loop body; False when it ends with `break`."""
        try:
            self.run(body)
        except _Break:
            return False
        except _Continue:
            pass
        return True

    def s_Break(self, s: N.Break) -> None:
        raise _Break()

    def s_Continue(self, s: N.Continue) -> None:
        raise _Continue()


class _Break(Exception):
    """A C `break` leaving the innermost loop of an opaque statement."""


class _Continue(Exception):
    """A C `continue` of the innermost loop of an opaque statement."""


class AstInterpreter:
    """Runs a CodegenUnit: the isl AST, calling statement bodies at user nodes.

    With `reverse_parallel`, loops marked `parallel` run their iterations backwards:
    a loop that really is parallel gives the same result in any order.
    """

    def __init__(self, unit: CodegenUnit, env: Memory, reverse_parallel: bool = False):
        self.unit = unit
        self.env = env
        self.reverse_parallel = reverse_parallel
        self.ast_vars: dict[str, int] = {}
        for d in unit.locals:
            env[d.name] = allocate(d.type, env)

    def run(self) -> None:
        self.node(self.unit.ast)

    def node(self, n: isl.AstNode) -> None:
        kind = n.get_type()
        if kind == isl.ast_node_type.block:
            children = n.block_get_children()
            for k in range(children.n_ast_node()):
                self.node(children.get_at(k))
        elif kind == isl.ast_node_type.mark:
            inner = n.mark_get_node()
            if self.reverse_parallel and n.mark_get_id().get_name() == "parallel":
                self.reversed_for(inner)
            else:
                self.node(inner)
        elif kind == isl.ast_node_type.if_:
            if self.expr(n.if_get_cond()):
                self.node(n.if_get_then_node())
            elif n.if_has_else_node():
                self.node(n.if_get_else_node())
        elif kind == isl.ast_node_type.for_:
            name = n.for_get_iterator().get_id().get_name()
            self.ast_vars[name] = self.expr(n.for_get_init())
            while self.expr(n.for_get_cond()):
                self.node(n.for_get_body())
                self.ast_vars[name] += self.expr(n.for_get_inc())
        elif kind == isl.ast_node_type.user:
            call = n.user_get_expr()
            stmt = self.unit.statements[call.get_op_arg(0).get_id().get_name()]
            values = [self.expr(call.get_op_arg(k)) for k in range(1, call.get_op_n_arg())]
            # Writes go to the memory (the first map); iterators are never written by a body.
            frame = ChainMap(self.env, dict(zip(stmt.iterators, values)))
            # An expression statement, or a guarded `if` or opaque loop run whole, as written.
            RegionInterpreter(frame).run(stmt.body)
        else:
            raise AssertionError(f"unexpected AST node {kind}")

    def reversed_for(self, n: isl.AstNode) -> None:
        assert n.get_type() == isl.ast_node_type.for_, "a parallel mark must be directly above a for"
        name = n.for_get_iterator().get_id().get_name()
        values = []
        self.ast_vars[name] = self.expr(n.for_get_init())
        while self.expr(n.for_get_cond()):
            values.append(self.ast_vars[name])
            self.ast_vars[name] += self.expr(n.for_get_inc())
        for v in reversed(values):
            self.ast_vars[name] = v
            self.node(n.for_get_body())

    def expr(self, e: isl.AstExpr) -> int:
        kind = e.get_type()
        if kind == isl.ast_expr_type.int:
            return e.get_val().to_python()
        if kind == isl.ast_expr_type.id:
            name = e.get_id().get_name()
            return self.ast_vars[name] if name in self.ast_vars else self.env[name]
        op = e.get_op_type()
        args = [e.get_op_arg(k) for k in range(e.get_op_n_arg())]
        T_ = isl.ast_expr_op_type
        if op in (T_.and_, T_.and_then):
            return int(bool(self.expr(args[0])) and bool(self.expr(args[1])))
        if op in (T_.or_, T_.or_else):
            return int(bool(self.expr(args[0])) or bool(self.expr(args[1])))
        if op in (T_.cond, T_.select):
            return self.expr(args[1]) if self.expr(args[0]) else self.expr(args[2])
        v = [self.expr(a) for a in args]
        table = {T_.max: lambda: max(v), T_.min: lambda: min(v), T_.minus: lambda: -v[0],
                 T_.add: lambda: v[0] + v[1], T_.sub: lambda: v[0] - v[1], T_.mul: lambda: v[0] * v[1],
                 T_.div: lambda: c_div(v[0], v[1]), T_.fdiv_q: lambda: v[0] // v[1],
                 T_.pdiv_q: lambda: v[0] // v[1], T_.pdiv_r: lambda: v[0] % v[1],
                 T_.zdiv_r: lambda: v[0] % v[1],
                 T_.eq: lambda: int(v[0] == v[1]), T_.le: lambda: int(v[0] <= v[1]),
                 T_.lt: lambda: int(v[0] < v[1]), T_.ge: lambda: int(v[0] >= v[1]),
                 T_.gt: lambda: int(v[0] > v[1])}
        return table[op]()


def initial_memory(region: OptRegion, int_value: int, seed: int = 1) -> dict[str, Any]:
    """Arguments of `region`: integer values `int_value`, everything else pseudo-random."""
    rng = np.random.default_rng(seed)
    env: dict[str, Any] = {}
    for a in region.args:
        if a.passing == "value" and isinstance(a.type, T.IntType):
            env[a.name] = int_value
    for a in region.args:
        if a.name in env:
            continue
        if isinstance(a.type, (T.ArrayType, T.PointerType)):
            # A pointer gets 64 elements: enough for the tests' `*p` and `p[i]` with tiny sizes.
            array = allocate(a.type if isinstance(a.type, T.ArrayType) else
                             T.ArrayType(element=a.type.pointee, constant_extent=64), env)
            if array.dtype == np.int64:
                array[...] = rng.integers(0, 5, array.shape)
            else:
                array[...] = rng.uniform(0.5, 1.5, array.shape)
            env[a.name] = array
        elif isinstance(a.type, T.FloatType):
            env[a.name] = float(rng.uniform(0.5, 1.5))
        else:
            env[a.name] = convert(int(rng.integers(0, 5)), a.type)
    return env
