# SPDX-License-Identifier: MIT
"""PENCIL directives (thesis sections 4.2.3, 4.3.4, appendix A `<for directive>`).

    #pragma pencil independent [reduction(op: v, ...)]*     op in + - * min max & | ^ && ||
                                                            v a variable or an element a[c]..[c]
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

A clause may name one array element with constant subscripts, `reduction(+: s[0])`,
as the compiler reduces one such element (clangpass.poly.annotations): the array is
declared before the loop with arithmetic elements, the item has one constant
subscript per dimension, and the loop uses the array only in reduction statements
of that element (`s[0] += e`). A subscript that reads a variable (`hist[i]`) names
no element the compiler can reduce: one pencil-reduction error says so. A clause
with syntax errors is not checked further (its pencil-pragma errors come first).

A `#pragma pencil region` starts PENCIL code, so a misplaced one is reported
even inside a C function; other directives are checked in PENCIL code only.
"""
from __future__ import annotations

import re
from typing import Optional

from clangpass.frontend.pragmas import REDUCTION_OPERATORS
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.lint.unit import PencilUnit
from clangpass.ir.walk import descendants, strip_casts, strip_implicit_casts
from clangpass.lint.walker import INCREMENTS, PencilWalker, Variable
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


_IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*")
_INTEGER = re.compile(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)[uUlL]*")


def _integer(text: str) -> Optional[int]:
    """The value of a subscript written as an integer literal (`0`, `0x1f`, `2u`), else None."""
    if not _INTEGER.fullmatch(text):
        return None
    digits = text.rstrip("uUlL")
    return int(digits, 16) if digits[:2] in ("0x", "0X") else int(digits, 8 if digits[:1] == "0" else 10)


def _is_target(e: N.Expr, name: str, subscripts: tuple[str, ...]) -> bool:
    """Whether `e` is the variable `name` (no subscripts) or its element `name[c]..[c]`: integer
    constants, as the compiler requires, equal to the clause's where those are literals."""
    e = strip_casts(e)
    indices: list[N.Expr] = []
    while isinstance(e, N.Subscript):
        indices.append(strip_casts(e.index))
        e = strip_casts(e.base)
    if not isinstance(e, N.VarRef) or e.name != name or len(indices) != len(subscripts):
        return False
    return all(isinstance(index, N.IntLit) and _integer(text) in (None, index.value)
               for index, text in zip(reversed(indices), subscripts))


def _occurrences(e: N.Expr, name: str) -> int:
    return sum(1 for n in descendants(e) if isinstance(n, N.VarRef) and n.name == name)


def is_reduction_statement(expr: N.Expr, name: str, op: str, subscripts: tuple[str, ...] = ()) -> bool:
    """`v op= e`, `v = v op e`, `v = e op v` (commutative op), `v = min(v, e)`, e free of v,
    or `v++`/`v--` for + and -; `&&` and `||` have no compound form. v is the variable `name`,
    or its element `name[c]..[c]` with `subscripts` (see `_is_target`); e is free of `name`."""
    e = strip_implicit_casts(expr)
    if isinstance(e, N.Unary) and e.op in INCREMENTS:
        return op in ("+", "-") and _is_target(e.operand, name, subscripts)
    if not isinstance(e, N.Assign):
        return False
    if not _is_target(e.target, name, subscripts):
        return False
    if e.op != "=":
        return e.op in _COMPOUND_FORMS.get(op, ()) and _occurrences(e.value, name) == 0
    value = strip_casts(e.value)
    if _occurrences(value, name) != 1:
        return False
    if isinstance(value, N.Binary) and value.op in _BINARY_FORMS.get(op, ()):
        if _is_target(value.lhs, name, subscripts):
            return True
        return value.op in _COMMUTATIVE and _is_target(value.rhs, name, subscripts)
    if isinstance(value, N.Call) and op in ("min", "max") and op in value.callee:
        return any(_is_target(a, name, subscripts) for a in value.args)
    return False


class _ReductionUses(PencilWalker):
    """Reports uses of a reduction variable outside its reduction statements."""

    def __init__(self, unit: PencilUnit, function: N.Function, reduction: N.Reduction, k: int) -> None:
        super().__init__(unit, function)
        self.in_pencil = True
        self.scopes = [{}]  # a variable the body declares shadows the reduction variable
        self.reduction = reduction
        self.name = reduction.variables[k]
        self.subscripts = reduction.subscripts_of(k)
        self.item = reduction.item(k)

    def visit_VarRef(self, node: N.VarRef) -> None:
        if node.name != self.name or self.lookup(node.name) is not None:
            return
        statement = next((p for p in reversed(self.parents) if isinstance(p, N.Stmt)), None)
        if isinstance(statement, N.ExprStmt) and is_reduction_statement(statement.expr, self.name,
                                                                         self.reduction.op, self.subscripts):
            return
        op, item = self.reduction.op, self.item
        what = (f"reduction variable '{item}'" if not self.subscripts
                else f"array '{self.name}' of reduction element '{item}'")
        self.report("pencil-reduction", node.loc,
                    f"{what} is used outside a reduction statement (expected '{item} {_example(op, item)}')",
                    [(self.reduction.loc, f"'{item}' is a reduction({op}) "
                                          f"{'element' if self.subscripts else 'variable'} here")])


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
        if pragma.errors:
            return  # a malformed pragma: its syntax errors (pencil-pragma) come first
        iterator = self.iterator_of(node)
        for reduction in pragma.reductions:
            if reduction.op not in REDUCTION_OPERATORS:
                continue  # an invalid operator is a syntax error, reported by PragmaCheck
            if reduction.op in _EXTENSIONS:
                self.report("pencil-reduction-extension", reduction.loc,
                            f"reduction operator '{reduction.op}' is an extension: the PENCIL definition "
                            "has + - * min max")
            for k, name in enumerate(reduction.variables):
                if self._check_declaration(node, reduction, k, iterator):
                    _ReductionUses(self.unit, self.function, reduction, k).walk(node.body)

    def _check_declaration(self, node: N.For, reduction: N.Reduction, k: int,
                           iterator: Optional[str]) -> bool:
        name, subscripts, item = reduction.variables[k], reduction.subscripts_of(k), reduction.item(k)
        if name == iterator:
            self.report("pencil-reduction", reduction.loc,
                        f"the loop iterator '{name}' cannot be a reduction variable")
            return False
        variable = self.lookup(name)
        if variable is None:
            inside = any(isinstance(n, N.VarDecl) and n.name == name for n in descendants(node.body))
            what = f"array '{name}' of reduction element '{item}'" if subscripts else f"reduction variable '{name}'"
            self.report("pencil-reduction", reduction.loc,
                        f"{what} is declared inside the loop; declare it before the loop"
                        if inside else f"{what} is not declared")
            return False
        if subscripts:
            return self._check_element(node, reduction, item, variable, subscripts, iterator)
        if not isinstance(variable.type, (T.IntType, T.FloatType)):
            hint = ""
            if isinstance(variable.type, T.ArrayType):
                hint = f"; name one element, such as '{name}{'[0]' * len(variable.type.dims())}'"
            self.report("pencil-reduction", reduction.loc,
                        f"reduction variable '{name}' has type '{variable.type.spelling()}'; "
                        f"only scalar variables can be reduction variables{hint}",
                        [(variable.loc, f"'{name}' is declared here")])
            return False
        if reduction.op in _INTEGER_ONLY and not isinstance(variable.type, T.IntType):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction operator '{reduction.op}' needs an integer variable; '{name}' has type "
                        f"'{variable.type.spelling()}'",
                        [(variable.loc, f"'{name}' is declared here")])
            return False
        return True

    def _check_element(self, node: N.For, reduction: N.Reduction, item: str, variable: Variable,
                       subscripts: tuple[str, ...], iterator: Optional[str]) -> bool:
        """`reduction(op: a[c]..[c])`: `a` an array with arithmetic elements, one constant
        subscript per dimension (the element the compiler reduces)."""
        name, note = variable.name, [(variable.loc, f"'{variable.name}' is declared here")]
        if not isinstance(variable.type, T.ArrayType):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction element '{item}' subscripts '{name}', which has type "
                        f"'{variable.type.spelling()}' and is not an array", note)
            return False
        rank = len(variable.type.dims())
        element = variable.type.scalar_element()
        example = name + "[0]" * rank
        if len(subscripts) != rank:
            self.report("pencil-reduction", reduction.loc,
                        f"reduction element '{item}' has {len(subscripts)} subscript"
                        f"{'s' if len(subscripts) != 1 else ''} but '{name}' has {rank} dimension"
                        f"{'s' if rank != 1 else ''}: name one element, such as '{example}'", note)
            return False
        inside = {n.name for n in descendants(node.body) if isinstance(n, N.VarDecl)}
        for text in subscripts:
            for ident in _IDENTIFIER.findall(text):
                if ident == iterator or ident in self.loop_iterators():
                    why = f"'{ident}' is a loop iterator"
                elif self.lookup(ident) is not None or ident in inside:
                    why = f"'{ident}' is a variable"
                else:
                    continue  # a macro or an enumerator: a constant
                self.report("pencil-reduction", reduction.loc,
                            f"reduction element '{item}' has a subscript that is not a constant ({why}): "
                            f"pencilcc reduces one element with constant subscripts, such as '{example}', "
                            f"and keeps the loop's updates of '{name}' in order otherwise")
                return False
        if not isinstance(element, (T.IntType, T.FloatType)):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction element '{item}' has type '{element.spelling()}'; "
                        "only scalar (arithmetic) elements can be reduced", note)
            return False
        if reduction.op in _INTEGER_ONLY and not isinstance(element, T.IntType):
            self.report("pencil-reduction", reduction.loc,
                        f"reduction operator '{reduction.op}' needs an integer variable; '{item}' has type "
                        f"'{element.spelling()}'", note)
            return False
        return True
