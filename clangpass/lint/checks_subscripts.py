# SPDX-License-Identifier: MIT
"""Array subscripts that hurt the dependence analysis (thesis section 4.2.2 iii, "Array types").

"Array accesses should not be linearized [...] Multidimensional C99 arrays
should be used instead" and "it is recommended to use quasi-affine array
subscripts whenever this is possible".

Input: PENCIL code walked by `PencilWalker`, with the iterators of the
enclosing PENCIL for loops. Output: warnings pencil-linearized-subscript (an
iterator multiplied by a non-constant parameter expression, `A[i * n + j]`) and
pencil-nonaffine-subscript (array elements, products of non-constant terms,
division/modulo/shift by a non-constant, bitwise operations, calls other than
min/max, struct fields). Comparisons and logical operators are affine
conditions (of a `?:`), as in pet. The classification is syntactic: a scalar
integer variable that is not an iterator counts as a parameter, as pet treats
it when it is not written in the analysed region.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import base_variable
from clangpass.lint.walker import PencilWalker, spell
# What an affine subscript depends on.
CONSTANT, PARAMETRIC, ITERATOR = 0, 1, 2
_DIVISIONS = ("/", "%", ">>", "<<")
# Affine conditions (of a `?:` in a subscript): pet keeps them as piecewise affine.
_CONDITIONS = ("<", "<=", ">", ">=", "==", "!=", "&&", "||")
_PIECEWISE_AFFINE_CALLS = ("min", "max")


@dataclass(frozen=True)
class SubscriptForm:
    """The affine shape of a subscript: what it depends on and its first defect, if any."""

    depends: int = CONSTANT
    linearized: Optional[N.Binary] = None
    nonaffine: Optional[tuple[N.Expr, str]] = None


def _join(*forms: SubscriptForm) -> SubscriptForm:
    return SubscriptForm(
        max(f.depends for f in forms),
        next((f.linearized for f in forms if f.linearized is not None), None),
        next((f.nonaffine for f in forms if f.nonaffine is not None), None),
    )


def _nonaffine(node: N.Expr, reason: str, *parts: SubscriptForm) -> SubscriptForm:
    inner = _join(SubscriptForm(ITERATOR), *parts)
    return replace(inner, nonaffine=inner.nonaffine or (node, reason))


class SubscriptClassifier:
    """Classifies subscript expressions, one method per IR expression class."""

    def __init__(self, iterators: set[str]) -> None:
        self.iterators = iterators

    def form(self, e: N.Expr) -> SubscriptForm:
        method = getattr(self, "form_" + type(e).__name__, None)
        if method is None:
            return _nonaffine(e, f"'{spell(e)}' is not an affine expression")
        return method(e)

    def form_IntLit(self, e: N.IntLit) -> SubscriptForm:
        return SubscriptForm(CONSTANT)

    def form_OpaqueExpr(self, e: N.OpaqueExpr) -> SubscriptForm:
        if e.kind in ("sizeof", "_Alignof", "__alignof__", "alignof"):
            return SubscriptForm(CONSTANT)
        return _nonaffine(e, f"'{e.text or e.kind}' is not an affine expression")

    def form_VarRef(self, e: N.VarRef) -> SubscriptForm:
        if e.name in self.iterators:
            return SubscriptForm(ITERATOR)
        if isinstance(e.type, T.IntType):
            return SubscriptForm(PARAMETRIC)
        return _nonaffine(e, f"'{e.name}' is not an integer variable")

    def form_Cast(self, e: N.Cast) -> SubscriptForm:
        return self.form(e.operand)

    def form_Unary(self, e: N.Unary) -> SubscriptForm:
        inner = self.form(e.operand)
        if e.op in ("-", "+", "!") or inner.depends == CONSTANT:
            return inner
        return _nonaffine(e, f"operator '{e.op}' is not affine", inner)

    def form_Binary(self, e: N.Binary) -> SubscriptForm:
        lhs, rhs = self.form(e.lhs), self.form(e.rhs)
        if e.op in ("+", "-", *_CONDITIONS) or (lhs.depends == CONSTANT and rhs.depends == CONSTANT):
            return _join(lhs, rhs)
        if e.op == "*":
            if lhs.depends == CONSTANT or rhs.depends == CONSTANT:
                return _join(lhs, rhs)
            if {lhs.depends, rhs.depends} == {PARAMETRIC, ITERATOR}:
                joined = _join(lhs, rhs)
                return replace(joined, linearized=joined.linearized or e)
            return _nonaffine(e, f"'{spell(e)}' multiplies two non-constant terms", lhs, rhs)
        if e.op in _DIVISIONS:
            if rhs.depends == CONSTANT:
                return _join(lhs, rhs)
            return _nonaffine(e, f"'{spell(e)}' divides or shifts by a non-constant", lhs, rhs)
        return _nonaffine(e, f"operator '{e.op}' is not affine", lhs, rhs)

    def form_Conditional(self, e: N.Conditional) -> SubscriptForm:
        return _join(self.form(e.cond), self.form(e.then), self.form(e.otherwise))

    def form_Subscript(self, e: N.Subscript) -> SubscriptForm:
        return _nonaffine(e, f"it reads the array element '{spell(e)}'")

    def form_Member(self, e: N.Member) -> SubscriptForm:
        return _nonaffine(e, f"it reads the struct field '{spell(e)}'")

    def form_Call(self, e: N.Call) -> SubscriptForm:
        args = [self.form(a) for a in e.args]
        if e.callee in _PIECEWISE_AFFINE_CALLS and args:
            return _join(*args)
        return _nonaffine(e, f"it calls '{e.callee}'", *args)


class SubscriptCheck(PencilWalker):
    rules = ("pencil-linearized-subscript", "pencil-nonaffine-subscript")

    def visit_Subscript(self, node: N.Subscript) -> None:
        form = SubscriptClassifier(self.loop_iterators()).form(node.index)
        array = base_variable(node.base)
        name = array.name if array is not None else spell(node.base)
        if form.nonaffine is not None:
            culprit, reason = form.nonaffine
            self.report("pencil-nonaffine-subscript", culprit.loc,
                        f"non-affine subscript '{spell(node.index)}' of '{name}': {reason}; the dependence "
                        f"analysis must assume that any element of '{name}' may be accessed")
        elif form.linearized is not None:
            self.report("pencil-linearized-subscript", form.linearized.loc,
                        f"subscript '{spell(node.index)}' of '{name}' looks linearised "
                        f"('{spell(form.linearized)}' multiplies an iterator by a non-constant); declare "
                        f"'{name}' as a multi-dimensional array and index each dimension")
