# SPDX-License-Identifier: MIT
"""The few libclang C entry points the Python bindings of the `libclang` wheel lack.

Operator kinds are read through `clang_getCursorBinaryOperatorKind` and
`clang_getCursorUnaryOperatorKind` rather than from tokens, because tokens of an
expression that comes from a macro expansion point into the macro definition.
"""
from __future__ import annotations

import ctypes
from functools import lru_cache

import clang.cindex as ci

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


def literal_spelling(cursor: ci.Cursor) -> str:
    """The source spelling of a literal; the first token is right even inside macros."""
    for tok in cursor.get_tokens():
        return tok.spelling
    return ""
