# SPDX-License-Identifier: MIT
"""The front end checked against clang: every declaration's lowered type is clang's type.

Input: C files and the flags they are compiled with. For every declaration of the
main file (variables, parameters, struct fields, function results, typedefs) the
type the front end lowers (`Lowering.decl_type`, `TypeLowering.lower`) is walked
beside clang's canonical type (`cursor.type.get_canonical()`), level by level:
kind, integer width and signedness, qualifiers (those inside array brackets
included), pointers, the order and size of array dimensions — a constant size as a
number, a VLA size as clang prints its expression (from the AST, macros expanded).
Output: the `Mismatch`es, each naming the declaration and both types.

What is compared is clang's answer, not the source's tokens, so a declarator written
through macros (`double POLYBENCH_2D(C, NI, NJ, ni, nj)`), a typedef'd row or a
pointer to a VLA row is checked the way clang read it. Enums are compared through
their underlying integer type (pencilcc lowers them to it). VLA sizes are compared
with whitespace, parentheses and integer-literal suffixes left out: the IR drops
parentheses (its expressions are trees) and implicit conversions.

`python -m clangpass.frontend.selfcheck [flags] FILE...` prints each mismatch as a
clang-style diagnostic and exits 1 if there is any (test_suite/unit/frontend/
test_selfcheck.py runs it on every corpus file).
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

import clang.cindex as ci

from clangpass.frontend import FrontendOptions, _parse_on_large_stack, clang_args, select_parser_args
from clangpass.frontend.clang_api import cursor_kind, type_kind
from clangpass.frontend.lower import Lowering
from clangpass.frontend.pragmas import collect_pragmas
from clangpass.ir import nodes as N
from clangpass.ir import types as T

TK = ci.TypeKind
CK = ci.CursorKind

_ARRAYS = (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY)
_DECLS = (CK.VAR_DECL, CK.PARM_DECL, CK.FIELD_DECL, CK.FUNCTION_DECL, CK.TYPEDEF_DECL)
_BRACKET_WORDS = ("static", "const", "volatile", "restrict")


@dataclass(frozen=True)
class Mismatch:
    """One declaration whose lowered type differs from clang's."""

    file: str
    line: int
    column: int
    name: str
    clang_type: str
    lowered_type: str
    detail: str

    def __str__(self) -> str:
        return (f"{self.file}:{self.line}:{self.column}: error: the front end reads '{self.name}' as "
                f"'{self.lowered_type}', clang as '{self.clang_type}': {self.detail}")


def _normalized(text: str) -> str:
    """An expression's text without spaces, parentheses or integer suffixes."""
    text = re.sub(r"[\s()]", "", text)
    return re.sub(r"\b(\d+)[uUlL]+\b", r"\1", text)


def _expr_text(e: N.Expr) -> str:
    """An IR expression in C without implicit conversions (compared after `_normalized`)."""
    if isinstance(e, N.IntLit):
        return str(e.value)
    if isinstance(e, N.FloatLit):
        return e.text or repr(e.value)
    if isinstance(e, N.VarRef):
        return e.name
    if isinstance(e, N.Cast):
        return _expr_text(e.operand) if e.implicit else f"({e.type.spelling()}){_expr_text(e.operand)}"
    if isinstance(e, N.Binary):
        return f"{_expr_text(e.lhs)} {e.op} {_expr_text(e.rhs)}"
    if isinstance(e, N.Unary):
        if e.op.startswith("post"):
            return f"{_expr_text(e.operand)}{e.op[4:]}"
        return f"{e.op}{_expr_text(e.operand)}"
    if isinstance(e, N.Subscript):
        return f"{_expr_text(e.base)}[{_expr_text(e.index)}]"
    if isinstance(e, N.Member):
        return f"{_expr_text(e.base)}{'->' if e.arrow else '.'}{e.field_name}"
    if isinstance(e, N.Conditional):
        return f"{_expr_text(e.cond)} ? {_expr_text(e.then)} : {_expr_text(e.otherwise)}"
    if isinstance(e, N.Call):
        return f"{e.callee}({', '.join(_expr_text(a) for a in e.args)})"
    if isinstance(e, N.OpaqueExpr):
        return e.text or e.kind
    return type(e).__name__


def _quals(t: ci.Type) -> tuple[bool, bool, bool]:
    return t.is_const_qualified(), t.is_volatile_qualified(), t.is_restrict_qualified()


def _bracket(level: ci.Type) -> Optional[str]:
    """What clang prints between the brackets of an array type's outermost dimension
    (`const restrict static n + 1`), or None where its spelling is not `T[..][..]`."""
    spelling = level.spelling
    element = level.element_type.get_canonical().spelling
    start = spelling.find("[")
    inner = element[element.find("["):] if "[" in element else ""
    if start < 0 or "(" in spelling[:start] or not spelling.endswith(inner):
        return None
    own = spelling[start:len(spelling) - len(inner)]
    if not (own.startswith("[") and own.endswith("]")) or own.count("[") != own.count("]"):
        return None
    return own[1:-1].strip()


def compare(clang_type: ci.Type, lowered: T.CType, path: str = "",
            inherited: tuple[bool, bool, bool] = (False, False, False)) -> Optional[str]:
    """Why `lowered` is not `clang_type` (None when they agree); `path` names the level.

    Clang keeps an array's element qualifiers on the array type (`const double[6]` is a
    const-qualified array of `double`): they are `inherited` by the element.
    """
    t = clang_type.get_canonical()
    where = f" ({path})" if path else ""
    qualifiers = tuple(a or b for a, b in zip(_quals(t), inherited))
    kind = type_kind(t)     # None: a kind the Python bindings do not know (`_Float16`)
    if kind in _ARRAYS:
        if not isinstance(lowered, T.ArrayType):
            return f"an array, lowered as {type(lowered).__name__}{where}"
        bracket = _bracket(t)
        words = (bracket or "").replace(",", " ").split()
        for word in _BRACKET_WORDS if bracket is not None else ():
            if (word in words) != bool(getattr(lowered, word)):
                return f"'{word}' inside the brackets {'missing' if word in words else 'added'}{where}"
        if kind == TK.CONSTANTARRAY:
            if lowered.constant_extent != t.element_count:
                return f"extent {t.element_count}, lowered as {lowered.constant_extent}{where}"
        elif kind == TK.VARIABLEARRAY:
            if lowered.extent is None:
                return f"extent '{bracket}' lost{where}"
            size = re.sub(r"^(?:(?:static|const|volatile|restrict)\s+)*", "", bracket or "")
            if bracket is not None and _normalized(_expr_text(lowered.extent)) != _normalized(size):
                return f"extent '{size}', lowered as '{_expr_text(lowered.extent)}'{where}"
        elif lowered.extent is not None:
            return f"an array of unknown size, lowered with extent '{_expr_text(lowered.extent)}'{where}"
        return compare(t.element_type, lowered.element, path + "[]", qualifiers)
    if isinstance(lowered, T.ArrayType):
        return f"not an array, lowered as one{where}"
    ours = (lowered.const, lowered.volatile, lowered.restrict)
    if qualifiers != ours:
        names = ("const", "volatile", "restrict")
        diff = [("+" if o else "-") + n for n, q, o in zip(names, qualifiers, ours) if q != o]
        return f"qualifiers differ ({', '.join(diff)}){where}"
    if kind == TK.POINTER:
        if not isinstance(lowered, T.PointerType):
            return f"a pointer, lowered as {type(lowered).__name__}{where}"
        return compare(t.get_pointee(), lowered.pointee, path + "*")
    if kind == TK.ENUM:
        t = t.get_declaration().enum_type.get_canonical()
        kind = type_kind(t)
    if kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
        if not isinstance(lowered, T.FunctionType):
            return f"a function type, lowered as {type(lowered).__name__}{where}"
        problem = compare(t.get_result(), lowered.result, path + "()")
        if problem:
            return problem
        if kind == TK.FUNCTIONPROTO:
            args = list(t.argument_types())
            if len(args) != len(lowered.params):
                return f"{len(args)} parameters, lowered with {len(lowered.params)}{where}"
            for k, (a, p) in enumerate(zip(args, lowered.params)):
                if isinstance(p, T.ArrayType) and type_kind(a.get_canonical()) == TK.POINTER:
                    # C adjusts an array parameter of a function type to a pointer (6.7.5.3).
                    p = T.PointerType(p.element, const=p.const, volatile=p.volatile, restrict=p.restrict)
                problem = compare(a, p, f"{path}(#{k + 1})")
                if problem:
                    return problem
        return None
    if isinstance(lowered, T.IntType):
        if kind == TK.BOOL:
            return None if lowered.name == "_Bool" else f"_Bool, lowered as '{lowered.name}'{where}"
        size = t.get_size()
        signed = kind in (TK.CHAR_S, TK.SCHAR, TK.SHORT, TK.INT, TK.LONG, TK.LONGLONG, TK.INT128, TK.WCHAR)
        if size * 8 != lowered.bits or signed != lowered.signed:
            return f"'{t.spelling}' ({size * 8}-bit), lowered as '{lowered.name}' ({lowered.bits}-bit){where}"
        return None
    if isinstance(lowered, T.FloatType):
        expected = {TK.FLOAT: "float", TK.DOUBLE: "double", TK.LONGDOUBLE: "long double",
                    TK.HALF: "_Float16"}.get(kind)
        if expected != lowered.name:
            return f"'{t.spelling}', lowered as '{lowered.name}'{where}"
        return None
    if isinstance(lowered, T.VoidType):
        return None if kind == TK.VOID else f"'{t.spelling}', lowered as void{where}"
    if isinstance(lowered, T.StructType):
        decl = t.get_declaration() if kind == TK.RECORD else None
        if decl is None or (decl.kind == CK.UNION_DECL) != lowered.is_union \
                or (decl.spelling or t.spelling) != lowered.name:
            return f"'{t.spelling}', lowered as '{lowered.spelling()}'{where}"
        return None
    if isinstance(lowered, T.OpaqueType):
        return None     # kept by name: pencilcc does not model it, and says so where it is used
    return f"'{t.spelling}', lowered as {type(lowered).__name__}{where}"


def _declarations(tu: ci.TranslationUnit, main_file: str) -> Iterator[ci.Cursor]:
    def walk(c: ci.Cursor) -> Iterator[ci.Cursor]:
        for child in c.get_children():
            f = child.location.file
            if f is None or f.name != main_file:
                continue
            if cursor_kind(child) in _DECLS:
                yield child
            yield from walk(child)
    yield from walk(tu.cursor)


def check_file(path: str, options: FrontendOptions = FrontendOptions()) -> list[Mismatch]:
    """Every declaration of `path` whose lowered type is not clang's (empty: all agree).
    A file clang cannot parse raises `ValueError` with clang's first error."""
    tu = _parse_on_large_stack(path, clang_args(options))
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise ValueError(f"{path}: clang cannot parse it: {errors[0].spelling}")
    main_file = tu.spelling
    lowering = Lowering(tu, main_file, collect_pragmas(tu, main_file))
    out: list[Mismatch] = []
    for decl in _declarations(tu, main_file):
        if decl.kind in (CK.VAR_DECL, CK.PARM_DECL):
            clang_type, lowered = decl.type, lowering.decl_type(decl)
        elif decl.kind == CK.FUNCTION_DECL:
            clang_type, lowered = decl.result_type, lowering.types.lower(decl.result_type)
        elif decl.kind == CK.TYPEDEF_DECL:
            clang_type = decl.underlying_typedef_type
            lowered = lowering.types.lower(clang_type)
        else:
            clang_type, lowered = decl.type, lowering.type_of(decl)
        problem = compare(clang_type, lowered)
        if problem:
            loc = decl.location
            out.append(Mismatch(main_file, loc.line, loc.column, decl.spelling,
                                clang_type.get_canonical().spelling, lowered.spelling(), problem))
    return out


def main(argv: Sequence[str] = tuple(sys.argv[1:])) -> int:
    files = [a for a in argv if not a.startswith("-") and a.endswith((".c", ".h", ".i"))]
    options = FrontendOptions(tuple(select_parser_args([a for a in argv if a not in files])))
    mismatches: list[Mismatch] = []
    for path in files:
        try:
            found = check_file(path, options)
        except ValueError as exc:
            print(f"{exc}", file=sys.stderr)
            return 2
        mismatches += found
    for m in mismatches:
        print(m, file=sys.stderr)
    print(f"selfcheck: {len(files)} files, {len(mismatches)} declarations whose type the front end "
          f"reads differently from clang")
    return 1 if mismatches else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
