# SPDX-License-Identifier: MIT
"""PENCIL directives (thesis sections 4.2.3, 4.3.4, appendix A `<for directive>`).

    #pragma pencil independent [reduction(op: v, ...)]*     op in + - * min max & | ^ && ||
    #pragma pencil ivdep
    #pragma pencil region

Input: statements with their attached pragmas (the front end attaches a pragma
to the statement that follows it and records its syntax errors), walked by
`PencilWalker`. Output: pencil-pragma (syntax errors, unknown `pencil`
directives, `independent`/`ivdep` not on a for loop, `region` not on a compound
statement) and pencil-reduction (reduction variables are scalars declared
outside the loop, not the iterator, and are used in the loop only in reduction
statements, as in OpenMP; `& | ^`, OpenMP's operators that pencilcc accepts
beyond the definition's `+ - * min max`, need an integer variable, as in OpenMP).

A `#pragma pencil region` starts PENCIL code, so a misplaced one is reported
even inside a C function; other directives are checked in PENCIL code only.
"""
from __future__ import annotations

from typing import Optional

from clangpass.frontend.pragmas import REDUCTION_OPERATORS
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.lint.unit import PencilUnit
from clangpass.ir.walk import descendants, strip_casts, strip_implicit_casts
from clangpass.lint.walker import INCREMENTS, PencilWalker
# Compound assignments that implement each reduction operator; `-` partial results
# are combined with + as in OpenMP, so both += and -= are accepted for + and -.
_COMPOUND_FORMS = {"+": ("+=", "-="), "-": ("+=", "-="), "*": ("*=",), "&": ("&=",), "|": ("|=",), "^": ("^=",)}
_BINARY_FORMS = {"+": ("+", "-"), "-": ("+", "-"), "*": ("*",), "&": ("&",), "|": ("|",), "^": ("^",),
                 "&&": ("&&",), "||": ("||",)}
# Binary operators whose reduction variable may also be the right operand (`v = e op v`).
_COMMUTATIVE = ("+", "*", "&", "|", "^", "&&", "||")
# Operators only defined on integers (OpenMP: bitwise reductions need an integer variable).
_INTEGER_ONLY = ("&", "|", "^")
# OpenMP's operators beyond the definition's + - * min max (pencil-reduction-extension).
_EXTENSIONS = ("&", "|", "^", "&&", "||")


class PragmaCheck(PencilWalker):
    rules = ("pencil-pragma",)

    def visit_pragmas(self, stmt: N.Stmt) -> None:
        in_pencil = self.in_pencil or isinstance(stmt, N.Region)
        for pragma in stmt.pragmas:
            if pragma.kind == "region" or (in_pencil and pragma.kind in ("independent", "ivdep", "pencil")):
                for loc, message in pragma.errors:
                    self.report("pencil-pragma", loc, message)
            if pragma.kind == "region" and not isinstance(stmt, N.Region):
                self.report("pencil-pragma", pragma.loc,
                            "'#pragma pencil region' must be followed by a compound statement '{ ... }'")
            elif in_pencil and pragma.kind in ("independent", "ivdep") and not isinstance(stmt, N.For):
                self.report("pencil-pragma", pragma.loc,
                            f"'#pragma pencil {pragma.kind}' must be followed by a for loop")


def _occurrences(e: N.Expr, name: str) -> int:
    return sum(1 for n in descendants(e) if isinstance(n, N.VarRef) and n.name == name)


def is_reduction_statement(expr: N.Expr, name: str, op: str) -> bool:
    """`v op= e`, `v = v op e`, `v = e op v` (commutative op), `v = min(v, e)`, e free of v,
    or `v++`/`v--` for + and -; `&&` and `||` have no compound form."""
    e = strip_implicit_casts(expr)
    if isinstance(e, N.Unary) and e.op in INCREMENTS:
        operand = strip_casts(e.operand)
        return op in ("+", "-") and isinstance(operand, N.VarRef) and operand.name == name
    if not isinstance(e, N.Assign):
        return False
    target = strip_casts(e.target)
    if not isinstance(target, N.VarRef) or target.name != name:
        return False
    if e.op != "=":
        return e.op in _COMPOUND_FORMS.get(op, ()) and _occurrences(e.value, name) == 0
    value = strip_casts(e.value)
    if _occurrences(value, name) != 1:
        return False
    if isinstance(value, N.Binary) and value.op in _BINARY_FORMS.get(op, ()):
        lhs, rhs = strip_casts(value.lhs), strip_casts(value.rhs)
        if isinstance(lhs, N.VarRef) and lhs.name == name:
            return True
        return value.op in _COMMUTATIVE and isinstance(rhs, N.VarRef) and rhs.name == name
    if isinstance(value, N.Call) and op in ("min", "max") and op in value.callee:
        return any(isinstance(strip_casts(a), N.VarRef) and strip_casts(a).name == name for a in value.args)
    return False


class _ReductionUses(PencilWalker):
    """Reports uses of a reduction variable outside its reduction statements."""

    def __init__(self, unit: PencilUnit, function: N.Function, reduction: N.Reduction, name: str) -> None:
        super().__init__(unit, function)
        self.in_pencil = True
        self.scopes = [{}]  # a variable the body declares shadows the reduction variable
        self.reduction = reduction
        self.name = name

    def visit_VarRef(self, node: N.VarRef) -> None:
        if node.name != self.name or self.lookup(node.name) is not None:
            return
        statement = next((p for p in reversed(self.parents) if isinstance(p, N.Stmt)), None)
        if isinstance(statement, N.ExprStmt) and is_reduction_statement(statement.expr, self.name,
                                                                         self.reduction.op):
            return
        self.report("pencil-reduction", node.loc,
                    f"reduction variable '{self.name}' is used outside a reduction statement "
                    f"(expected '{self.name} {_example(self.reduction.op, self.name)}')",
                    [(self.reduction.loc, f"'{self.name}' is a reduction({self.reduction.op}) variable here")])


def _example(op: str, name: str) -> str:
    if op in ("min", "max"):
        return f"= {op}({name}, e)"
    return f"= {name} {op} e" if op in ("&&", "||") else f"{_COMPOUND_FORMS[op][0]} e"


class ReductionCheck(PencilWalker):
    rules = ("pencil-reduction", "pencil-reduction-extension")

    def visit_For(self, node: N.For) -> None:
        pragma = node.pragma("independent")
        if pragma is None:
            return
        iterator = self.iterator_of(node)
        for reduction in pragma.reductions:
            if reduction.op not in REDUCTION_OPERATORS:
                continue  # an invalid operator is a syntax error, reported by PragmaCheck
            if reduction.op in _EXTENSIONS:
                self.report("pencil-reduction-extension", reduction.loc,
                            f"reduction operator '{reduction.op}' is an extension: the PENCIL definition "
                            "has + - * min max")
            for name in reduction.variables:
                if self._check_declaration(node, reduction, name, iterator):
                    _ReductionUses(self.unit, self.function, reduction, name).walk(node.body)

    def _check_declaration(self, node: N.For, reduction: N.Reduction, name: str,
                           iterator: Optional[str]) -> bool:
        if name == iterator:
            self.report("pencil-reduction", reduction.loc,
                        f"the loop iterator '{name}' cannot be a reduction variable")
            return False
        variable = self.lookup(name)
        if variable is None:
            inside = any(isinstance(n, N.VarDecl) and n.name == name for n in descendants(node.body))
            self.report("pencil-reduction", reduction.loc,
                        f"reduction variable '{name}' is declared inside the loop; declare it before the loop"
                        if inside else f"reduction variable '{name}' is not declared")
            return False
        if not isinstance(variable.type, (T.IntType, T.FloatType)):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction variable '{name}' has type '{variable.type.spelling()}'; "
                        "only scalar variables can be reduction variables",
                        [(variable.loc, f"'{name}' is declared here")])
            return False
        if reduction.op in _INTEGER_ONLY and not isinstance(variable.type, T.IntType):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction operator '{reduction.op}' needs an integer variable; '{name}' has type "
                        f"'{variable.type.spelling()}'",
                        [(variable.loc, f"'{name}' is declared here")])
            return False
        return True
