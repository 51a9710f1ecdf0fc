# SPDX-License-Identifier: MIT
"""The few libclang C entry points the Python bindings of the `libclang` wheel lack.

Operator kinds are read through `clang_getCursorBinaryOperatorKind` and
`clang_getCursorUnaryOperatorKind` rather than from tokens, because tokens of an
expression that comes from a macro expansion point into the macro definition.
Literal values come from clang's own evaluation (`clang_Cursor_Evaluate`) for the
same reason: a literal pasted by a macro (`#define SCALAR_VAL(x) x##f`, as in
PolyBench) has no spelling in any file.

The bindings also know fewer type and cursor kinds than the library they load
(`_Float16` is type kind 32, `#pragma omp scope` cursor kind 306, both unknown to
them): their `.kind` raises `ValueError` for those. `type_kind` and `cursor_kind`
answer None instead, so that such a kind becomes an opaque type or statement of the
one region that uses it, not a failure of the whole file.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache
from typing import Optional, Union

import clang.cindex as ci


def type_kind(t: ci.Type) -> Optional[ci.TypeKind]:
    """`t.kind`, or None for a kind the Python bindings do not know."""
    try:
        return t.kind
    except ValueError:
        return None


def cursor_kind(cursor: ci.Cursor) -> Optional[ci.CursorKind]:
    """`cursor.kind`, or None for a kind the Python bindings do not know."""
    try:
        return cursor.kind
    except ValueError:
        return None


def cursor_kind_name(cursor: ci.Cursor) -> str:
    """The bindings' name of the cursor's kind (`FOR_STMT`), or `CURSOR_KIND_<id>` for a kind they do
    not know; the name stays an internal one, which messages translate (clangpass.poly.extract)."""
    kind = cursor_kind(cursor)
    return kind.name if kind is not None else f"CURSOR_KIND_{cursor._kind_id}"


# CXUnaryOperatorKind, in libclang's order.
_UNARY_KINDS = {
    1: "post++", 2: "post--", 3: "++", 4: "--", 5: "&", 6: "*",
    7: "+", 8: "-", 9: "~", 10: "!", 11: "__real", 12: "__imag", 13: "__extension__",
}


@lru_cache(maxsize=None)
def _fn(name: str, restype, *argtypes):
    f = getattr(ci.conf.lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


def binary_operator(cursor: ci.Cursor) -> str:
    """The spelling of a BINARY_OPERATOR / COMPOUND_ASSIGNMENT_OPERATOR cursor: '+', '<=', '+='..."""
    kind = _fn("clang_getCursorBinaryOperatorKind", ctypes.c_int, ci.Cursor)(cursor)
    spelled = _fn("clang_getBinaryOperatorKindSpelling", ci._CXString, ctypes.c_int)(kind)
    return ci._CXString.from_result(spelled)


def unary_operator(cursor: ci.Cursor) -> str:
    """'+', '-', '!', '~', '*', '&', '++', '--' (prefix) or 'post++', 'post--'."""
    kind = _fn("clang_getCursorUnaryOperatorKind", ctypes.c_int, ci.Cursor)(cursor)
    return _UNARY_KINDS.get(kind, "?")


def var_decl_initializer(cursor: ci.Cursor) -> Optional[ci.Cursor]:
    """The initialiser expression of a VAR_DECL cursor (`clang_Cursor_getVarDeclInitializer`), or None."""
    init = _fn("clang_Cursor_getVarDeclInitializer", ci.Cursor, ci.Cursor)(cursor)
    return ci.Cursor.from_result(init, None, (cursor,))  # None for the null cursor


def is_inline_function(cursor: ci.Cursor) -> bool:
    """Whether a FUNCTION_DECL is declared `inline` (`clang_Cursor_isFunctionInlined`)."""
    return bool(_fn("clang_Cursor_isFunctionInlined", ctypes.c_uint, ci.Cursor)(cursor))


def for_header_slots(cursor: ci.Cursor) -> tuple[bool, bool, bool]:
    """Which of a FOR_STMT's init, condition and increment are written.

    libclang lists a for loop's children without the empty parts, so two children may be
    init and cond or cond and inc. The loop's tokens say which parts are written: only
    their count per part is read, never their offsets, because a header written by a
    macro has its tokens in the macro's definition and its children at the macro's use.
    """
    counts = [0, 0, 0]
    depth, part = 0, 0
    for tok in cursor.get_tokens():
        s = tok.spelling
        if depth == 0:
            if s == "(":
                depth = 1
            continue
        if s in ("(", "[", "{"):
            depth += 1
        elif s in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        elif s == ";" and depth == 1:
            part += 1
            if part > 2:
                break
            continue
        if part <= 2:
            counts[part] += 1
    return counts[0] > 0, counts[1] > 0, counts[2] > 0


# CXEvalResultKind
_EVAL_INT, _EVAL_FLOAT = 1, 2


def evaluate(cursor: ci.Cursor) -> Optional[Union[int, float]]:
    """The value clang computes for a constant expression cursor (a literal), or None.

    An integer comes back as a Python int (unsigned values above 2**63 included), a
    floating value as the double nearest to it (exact for float and double literals).
    """
    result = _fn("clang_Cursor_Evaluate", ctypes.c_void_p, ci.Cursor)(cursor)
    if not result:
        return None
    try:
        kind = _fn("clang_EvalResult_getKind", ctypes.c_int, ctypes.c_void_p)(result)
        if kind == _EVAL_INT:
            if _fn("clang_EvalResult_isUnsignedInt", ctypes.c_uint, ctypes.c_void_p)(result):
                return _fn("clang_EvalResult_getAsUnsigned", ctypes.c_ulonglong, ctypes.c_void_p)(result)
            return _fn("clang_EvalResult_getAsLongLong", ctypes.c_longlong, ctypes.c_void_p)(result)
        if kind == _EVAL_FLOAT:
            return _fn("clang_EvalResult_getAsDouble", ctypes.c_double, ctypes.c_void_p)(result)
        return None
    finally:
        _fn("clang_EvalResult_dispose", None, ctypes.c_void_p)(result)


class MacroTable:
    """Object-like macro bodies of a translation unit, from clang's preprocessing record.

    A literal that comes from a macro (`#define ALPHA 0.25` used as `ALPHA`) has its
    extent at the expansion site, where the token is the macro's name; its value is
    the single literal token of the macro's body (followed through macros that
    expand to other macros). Needs PARSE_DETAILED_PROCESSING_RECORD.
    """

    def __init__(self, tu: ci.TranslationUnit) -> None:
        self._tu = tu
        self._definitions: dict[str, list[ci.Cursor]] | None = None
        self._bodies: dict[str, list[ci.Token] | None] = {}
        self._top_level: list[ci.Cursor] | None = None

    def share_top_level(self, cursors: list[ci.Cursor]) -> None:
        """The children of the translation unit's cursor, listed already by the caller (the
        module's lowering walks them too): the first look-up reads its definitions from them
        instead of asking libclang for the 3,000-odd cursors of <stdio.h> and <math.h> again."""
        self._top_level = cursors

    def _body(self, name: str) -> list[ci.Token] | None:
        """The tokens of the last object-like definition of `name` (None: there is none). Only
        the definitions of the names asked for are tokenized: a translation unit that includes
        <stdio.h> defines hundreds of macros, and tokenizing each one cost a tenth of a
        second of every compile."""
        if self._definitions is None:
            self._definitions = {}
            top_level = self._top_level if self._top_level is not None else self._tu.cursor.get_children()
            for c in top_level:
                if c.kind == ci.CursorKind.MACRO_DEFINITION:
                    self._definitions.setdefault(c.spelling, []).append(c)
        if name not in self._bodies:
            body = None
            for c in self._definitions.get(name, ()):
                tokens = list(c.get_tokens())[1:]  # drop the macro's name
                is_function_like = tokens and tokens[0].spelling == "(" and \
                    tokens[0].extent.start.offset == c.extent.start.offset + len(c.spelling)
                if not is_function_like:
                    body = tokens
            self._bodies[name] = body
        return self._bodies[name]

    def literal(self, name: str, depth: int = 0) -> str:
        body = self._body(name)
        if body is None or depth > 16:
            return ""
        literals = [t for t in body if t.kind == ci.TokenKind.LITERAL]
        if len(literals) == 1:
            return literals[0].spelling
        names = [t for t in body if t.kind == ci.TokenKind.IDENTIFIER]
        if not literals and len(names) == 1:
            return self.literal(names[0].spelling, depth + 1)
        return ""


def literal_spelling(cursor: ci.Cursor, macros: MacroTable) -> str:
    """The source spelling of a literal, even when it comes from a macro.

    Inside a function-like macro's arguments the first token of the extent is the
    literal; for an object-like macro the extent is the macro's name, resolved
    through `macros`.
    """
    # The first token only: the extent of a literal from an object-like macro can run from the
    # macro's definition to its use (each use of `N` at the end of a 1,200-line file: 15,000 tokens).
    first = next(iter(cursor.get_tokens()), None)
    if first is not None and first.kind == ci.TokenKind.LITERAL:
        return first.spelling
    ext = cursor.extent
    name = first.spelling if first is not None else ""
    if not name and ext.start.file is not None and ext.start.file.name == (ext.end.file.name if ext.end.file else ""):
        with open(ext.start.file.name, "rb") as f:
            f.seek(ext.start.offset)
            name = f.read(max(ext.end.offset - ext.start.offset, 0)).decode("utf-8", "replace").strip()
    return macros.literal(name) if name.isidentifier() else ""
