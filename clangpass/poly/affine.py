# SPDX-License-Identifier: MIT
"""Quasi-affine expressions: IR integer expressions -> isl piecewise quasi-affine values.

Input: an IR expression (loop bound, subscript, condition) and the `AffineScope`
it is evaluated in (parameters, enclosing loop iterators, the instances known to
reach that point). Output: an `isl.PwAff` (value) or an `isl.Set` (condition) over
the scope's set space, or `NotAffine` with the offending text and location.

The accepted language is the one of pet (Verdoolaege & Grosser, "Polyhedral
Extraction Tool", IMPACT 2012, section 3): integer constants, parameters and
iterators combined by + and -, * by a constant, / and % by a constant, the
integer min/max builtins, ternaries with affine conditions, comparisons and
&& || ! on them. Semantics are C's, exactly:
- `/` and `%` truncate toward zero. When the dividend is provably non-negative on
  the instances reaching the expression, they are isl's floor/mod (simplest form);
  otherwise isl's `tdiv_q`/`tdiv_r`, which are C's truncating operations as
  piecewise quasi-affine functions. A negative divisor negates the quotient.
- only signed integer values of at least 32 bits take part (unsigned wrap-around
  and narrowing conversions are not affine); signed overflow is undefined in C,
  so isl's unbounded integers agree with every defined execution.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Callable, Optional

import os

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.printer import format_expr

# The integer min/max builtins of PENCIL (signed variants only: `min`, `smin`, `lmin`...).
_MIN_BUILTINS = frozenset({"min", "smin", "bmin", "lmin"})
_MAX_BUILTINS = frozenset({"max", "smax", "bmax", "lmax"})
_CLAMP_BUILTINS = frozenset({"clamp", "sclamp", "bclamp", "lclamp"})   # clamp(x, lo, hi) = min(max(x, lo), hi)


class NotAffine(Exception):
    """An expression outside the quasi-affine language; `reason` is the user-facing text."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def where(loc: N.SourceLoc) -> str:
    """`gemm.c:31:9`: how reasons name a place (file name without its directory)."""
    return f"{os.path.basename(loc.file)}:{loc.line}:{loc.col}"


def describe(e: N.Expr) -> str:
    """`'A[B[i]]' at gemm.c:31:9`: how reasons name an expression."""
    return f"'{_source_text(e)}' at {where(e.loc)}"


def _source_text(e: N.Expr) -> str:
    text = format_expr(_without_implicit_casts(e))
    # The printer parenthesises every operator; a reason reads better without the outer pair.
    if text.startswith("(") and text.endswith(")") and _balanced(text[1:-1]):
        text = text[1:-1]
    return text


def _without_implicit_casts(e: N.Expr) -> N.Expr:
    """`e` as the user wrote it: clang's implicit conversions removed, an opaque expression
    printed as its tokens rather than clang's name of its kind (for messages only)."""
    while isinstance(e, N.Cast) and e.implicit:
        e = e.operand
    if isinstance(e, N.OpaqueExpr) and e.text:
        text = e.text if len(e.text) <= 80 else e.text[:77] + "..."
        return N.VarRef(text, "local", type=e.type, loc=e.loc)
    changes = {}
    for f in fields(e):
        value = getattr(e, f.name)
        if isinstance(value, N.Expr):
            changes[f.name] = _without_implicit_casts(value)
        elif isinstance(value, tuple) and value and all(isinstance(v, N.Expr) for v in value):
            changes[f.name] = tuple(_without_implicit_casts(v) for v in value)
    return replace(e, **changes) if changes else e


def _balanced(text: str) -> bool:
    depth = 0
    for ch in text:
        depth += (ch == "(") - (ch == ")")
        if depth < 0:
            return False
    return depth == 0


def is_affine_integer_type(t: T.CType) -> bool:
    return isinstance(t, T.IntType) and t.signed and t.bits >= 32


@dataclass(frozen=True)
class AffineScope:
    """Where an expression is evaluated.

    `space` is the set space `[params] -> { [iterators] }`; `domain` (same space)
    holds the instances that reach the expression (loop bounds, affine
    conditions) and `context` the parameter constraints; both serve to prove
    dividends non-negative.
    """

    space: isl.Space          # [P] -> { [i0, ..., id] }
    iterators: tuple[str, ...]
    params: tuple[str, ...]
    domain: isl.Set           # [P] -> { [i0, ..., id] : reaching instances }
    context: isl.Set          # [P] -> { : parameter constraints }

    def restricted(self, condition: isl.Set) -> "AffineScope":
        return replace(self, domain=self.domain.intersect(condition).coalesce())

    # ------------------------------------------------------------------ leaves
    def constant(self, value: int) -> isl.PwAff:
        ls = isl.LocalSpace.from_space(self.space)
        aff = isl.Aff.zero_on_domain(ls).set_constant_val(isl.Val.int_from_si(self.space.get_ctx(), value))
        return isl.PwAff.from_aff(aff)  # [P] -> { [i..] -> [(value)] }

    def variable(self, name: str) -> Optional[isl.PwAff]:
        ls = isl.LocalSpace.from_space(self.space)
        # The innermost iterator of that name wins (shadowing is rejected by the extractor).
        if name in self.iterators:
            pos = len(self.iterators) - 1 - self.iterators[::-1].index(name)
            return isl.PwAff.var_on_domain(ls, isl.dim_type.set, pos)  # [P] -> { [i..] -> [(it)] }
        if name in self.params:
            return isl.PwAff.var_on_domain(ls, isl.dim_type.param, self.params.index(name))
        return None

    def any_value(self) -> isl.Map:
        """[P] -> { [i..] -> [o] }: any value (a subscript or argument the model cannot follow)."""
        free = isl.Map.from_pw_aff(self.constant(0))
        return free.project_out(isl.dim_type.out, 0, 1).add_dims(isl.dim_type.out, 1)

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space)  # [P] -> { [i..] }

    # ------------------------------------------------------------------ values
    def pw_aff(self, e: N.Expr) -> isl.PwAff:
        """The value of integer expression `e` as `[P] -> { [i..] -> [(f)] }`."""
        method: Optional[Callable[[N.Expr], isl.PwAff]] = getattr(self, f"_value_{type(e).__name__}", None)
        if method is None:
            raise NotAffine(f"non-affine expression {describe(e)}")
        return method(e)

    def _value_IntLit(self, e: N.IntLit) -> isl.PwAff:
        return self.constant(e.value)

    def _value_VarRef(self, e: N.VarRef) -> isl.PwAff:
        value = self.variable(e.name)
        if value is None:
            raise NotAffine(f"'{e.name}' is neither a parameter nor a loop iterator in {describe(e)}")
        if not is_affine_integer_type(e.type):
            raise NotAffine(f"'{e.name}' of type '{e.type.spelling()}' in {describe(e)} is not a signed integer")
        return value

    def _value_Cast(self, e: N.Cast) -> isl.PwAff:
        # Only conversions that keep every value (widening between signed integers) are the identity.
        if not (is_affine_integer_type(e.type) and _widens(e.operand.type, e.type)):
            raise NotAffine(f"conversion to '{e.type.spelling()}' in {describe(e)} is not affine")
        return self.pw_aff(e.operand)

    def _value_Unary(self, e: N.Unary) -> isl.PwAff:
        if e.op == "-":
            return self.pw_aff(e.operand).neg()
        if e.op == "+":
            return self.pw_aff(e.operand)
        raise NotAffine(f"non-affine expression {describe(e)}")

    def _value_Binary(self, e: N.Binary) -> isl.PwAff:
        if e.op in ("+", "-", "*", "/", "%"):
            lhs, rhs = self.pw_aff(e.lhs), self.pw_aff(e.rhs)
            if e.op == "+":
                return lhs.add(rhs)
            if e.op == "-":
                return lhs.sub(rhs)
            if e.op == "*":
                if not (lhs.is_cst() or rhs.is_cst()):
                    raise NotAffine(f"product of non-constants {describe(e)}")
                return lhs.mul(rhs)
            return self._division(e, lhs, rhs)
        raise NotAffine(f"non-affine expression {describe(e)}")

    def _division(self, e: N.Binary, lhs: isl.PwAff, rhs: isl.PwAff) -> isl.PwAff:
        divisor = integer_constant(rhs)
        if divisor is None or divisor == 0:
            raise NotAffine(f"division by a non-constant in {describe(e)}")
        ctx = self.space.get_ctx()
        magnitude = isl.Val.int_from_si(ctx, abs(divisor))
        negative = lhs.lt_set(self.constant(0))         # [P] -> { [i..] : dividend < 0 }
        non_negative = self.domain.intersect_params(self.context).intersect(negative).is_empty()
        if e.op == "%":
            # C: the remainder has the dividend's sign and ignores the divisor's.
            if non_negative:
                return lhs.mod_val(magnitude)
            return lhs.tdiv_r(self.constant(abs(divisor)))
        quotient = lhs.scale_down_val(magnitude).floor() if non_negative \
            else lhs.tdiv_q(self.constant(abs(divisor)))
        return quotient.neg() if divisor < 0 else quotient

    def _value_Conditional(self, e: N.Conditional) -> isl.PwAff:
        cond = self.condition(e.cond)                     # [P] -> { [i..] : cond }
        other = cond.complement()
        then = self.restricted(cond).pw_aff(e.then).intersect_domain(cond)
        otherwise = self.restricted(other).pw_aff(e.otherwise).intersect_domain(other)
        return then.union_add(otherwise)

    def _value_Call(self, e: N.Call) -> isl.PwAff:
        if e.builtin and len(e.args) == 2 and e.callee in _MIN_BUILTINS | _MAX_BUILTINS:
            a, b = self.pw_aff(e.args[0]), self.pw_aff(e.args[1])
            return a.min(b) if e.callee in _MIN_BUILTINS else a.max(b)
        if e.builtin and len(e.args) == 3 and e.callee in _CLAMP_BUILTINS:
            x, lo, hi = (self.pw_aff(a) for a in e.args)
            return x.max(lo).min(hi)
        raise NotAffine(f"call in affine expression {describe(e)}")

    # ------------------------------------------------------------------ conditions
    def condition(self, e: N.Expr) -> isl.Set:
        """The instances for which `e` is true, as `[P] -> { [i..] : e }`."""
        method: Optional[Callable[[N.Expr], isl.Set]] = getattr(self, f"_condition_{type(e).__name__}", None)
        if method is None:
            return self._truth(e)
        return method(e)

    def _truth(self, e: N.Expr) -> isl.Set:
        """C's truth of an integer value: non-zero."""
        return self.pw_aff(e).ne_set(self.constant(0))

    def _condition_Binary(self, e: N.Binary) -> isl.Set:
        if e.op in _COMPARE:
            lhs, rhs = self.pw_aff(e.lhs), self.pw_aff(e.rhs)
            return getattr(lhs, _COMPARE[e.op])(rhs)
        if e.op == "&&":
            lhs = self.condition(e.lhs)
            return lhs.intersect(self.restricted(lhs).condition(e.rhs))
        if e.op == "||":
            lhs = self.condition(e.lhs)
            return lhs.union(self.restricted(lhs.complement()).condition(e.rhs))
        return self._truth(e)

    def _condition_Unary(self, e: N.Unary) -> isl.Set:
        if e.op == "!":
            return self.condition(e.operand).complement()
        return self._truth(e)

    def _condition_Cast(self, e: N.Cast) -> isl.Set:
        # Conversion to _Bool, or one that keeps every value, keeps the truth of the operand.
        if isinstance(e.type, T.IntType) and (e.type.name == "_Bool" or _widens(e.operand.type, e.type)):
            return self.condition(e.operand)
        return self._truth(e)

    def _condition_Conditional(self, e: N.Conditional) -> isl.Set:
        cond = self.condition(e.cond)
        other = cond.complement()
        return (cond.intersect(self.restricted(cond).condition(e.then))
                .union(other.intersect(self.restricted(other).condition(e.otherwise))))

    def _condition_IntLit(self, e: N.IntLit) -> isl.Set:
        return self.universe() if e.value else isl.Set.empty(self.space)


def _widens(source: T.CType, target: T.CType) -> bool:
    return (isinstance(source, T.IntType) and isinstance(target, T.IntType) and source.signed == target.signed
            and source.bits <= target.bits)


_COMPARE = {"<": "lt_set", "<=": "le_set", ">": "gt_set", ">=": "ge_set", "==": "eq_set", "!=": "ne_set"}


def integer_constant(pa: isl.PwAff) -> Optional[int]:
    """The value of a constant, single-piece `pa`, else None."""
    if not pa.is_cst() or pa.n_piece() != 1:
        return None
    val = pa.get_pieces()[0][1].get_constant_val()
    return val.to_python() if val.is_int() else None


def access_of(chain: N.Subscript, iterators: tuple[str, ...], space: isl.Space) -> isl.Map:
    """[P] -> { S[i..] -> X[a..] }: the element `chain` reads, in the map space `space` (its
    domain's dimensions are `iterators`); a subscript that is no affine function of them gives
    the empty relation (it matches no affine access)."""
    domain = space.domain()
    scope = AffineScope(space=domain.reset_tuple_id(isl.dim_type.set), iterators=iterators,
                        params=tuple(domain.get_dim_name(isl.dim_type.param, k)
                                     for k in range(domain.dim(isl.dim_type.param))),
                        domain=isl.Set.universe(domain.reset_tuple_id(isl.dim_type.set)),
                        context=isl.Set.universe(domain.reset_tuple_id(isl.dim_type.set)).params())
    indices: list[N.Expr] = []
    node: N.Expr = chain
    while isinstance(node, N.Subscript):
        indices.append(node.index)
        node = node.base
    indices.reverse()
    try:
        values = [scope.pw_aff(e) for e in indices]
    except NotAffine:
        return isl.Map.empty(space)
    out = isl.Map.from_pw_aff(values[0])
    for v in values[1:]:
        out = out.flat_range_product(isl.Map.from_pw_aff(v))
    return (out.set_tuple_id(isl.dim_type.in_, space.get_tuple_id(isl.dim_type.in_))
            .set_tuple_id(isl.dim_type.out, space.get_tuple_id(isl.dim_type.out)))
