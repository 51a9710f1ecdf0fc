# SPDX-License-Identifier: MIT
"""Lowering of clang types (as libclang shows them) to pencilcc's `CType` values.

A type pencilcc does not model (`_Complex double`, vectors, `_Atomic int`) or whose
kind the Python bindings do not know (`_Float16`, or `__bf16` and `_BitInt(24)`, which
clang shows as unexposed even canonically) lowers to an `OpaqueType` spelled as clang
spells it: only code that uses such a value is left to the host compiler.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Callable, Optional

import clang.cindex as ci

from clangpass.frontend.clang_api import type_kind
from clangpass.ir import types as T
from clangpass.ir.nodes import Expr, IntLit, SourceLoc

TK = ci.TypeKind

# (name, bits, signed) of the integer kinds; char is signed on the targets we support.
_INTEGERS = {
    TK.BOOL: ("_Bool", 8, False),
    TK.CHAR_U: ("char", 8, False), TK.UCHAR: ("unsigned char", 8, False),
    TK.CHAR_S: ("char", 8, True), TK.SCHAR: ("signed char", 8, True),
    TK.USHORT: ("unsigned short", 16, False), TK.SHORT: ("short", 16, True),
    TK.UINT: ("unsigned int", 32, False), TK.INT: ("int", 32, True),
    TK.ULONG: ("unsigned long", 64, False), TK.LONG: ("long", 64, True),
    TK.ULONGLONG: ("unsigned long long", 64, False), TK.LONGLONG: ("long long", 64, True),
    TK.UINT128: ("unsigned __int128", 128, False), TK.INT128: ("__int128", 128, True),
    TK.WCHAR: ("wchar_t", 32, True), TK.CHAR16: ("char16_t", 16, False), TK.CHAR32: ("char32_t", 32, False),
}
_FLOATS = {TK.FLOAT: ("float", 32), TK.DOUBLE: ("double", 64), TK.LONGDOUBLE: ("long double", 80),
           TK.HALF: ("_Float16", 16)}

# Type sugar that is looked through to the canonical type.
_SUGAR = tuple(getattr(TK, k) for k in ("ELABORATED", "TYPEDEF", "ATTRIBUTED", "UNEXPOSED") if hasattr(TK, k))

_ARRAYS = (TK.CONSTANTARRAY, TK.VARIABLEARRAY, TK.INCOMPLETEARRAY)
_BRACKET_QUALS = re.compile(r"\[([^\]]*)\]")
_QUALIFIER_WORDS = re.compile(r"\b(?:const|volatile|restrict)\b\s*")


def _quals(t: ci.Type) -> dict:
    return {"const": t.is_const_qualified(), "volatile": t.is_volatile_qualified(),
            "restrict": t.is_restrict_qualified()}


def _opaque(t: ci.Type) -> T.OpaqueType:
    """`t` kept by clang's spelling, its qualifiers as flags (not twice in the spelling)."""
    name = _QUALIFIER_WORDS.sub("", t.spelling).strip() or t.spelling
    return T.OpaqueType(name, **_quals(t))


class TypeLowering:
    """Turns clang types into CType; `lower_extent` lowers VLA size expressions.

    Struct types are cached by their declaration so that recursive structs terminate.
    """

    def __init__(self, lower_expr: Callable[[ci.Cursor], Expr]) -> None:
        self._lower_expr = lower_expr
        self._structs: dict[str, T.StructType] = {}

    def lower(self, t: ci.Type, extents: Optional[list[ci.Cursor]] = None) -> T.CType:
        """Lower `t`; `extents` are the size-expression cursors of a declarator, outermost first."""
        kind = type_kind(t)
        if kind is None:
            return _opaque(t)
        if kind in _SUGAR:
            canonical = t.get_canonical()
            canonical_kind = type_kind(canonical)
            if canonical_kind in _ARRAYS:
                return self._array(canonical, extents or [])
            if canonical_kind is None or canonical_kind in _SUGAR:
                # Unexposed even canonically (`__bf16`, `_BitInt(24)`): nothing to look through.
                lowered: T.CType = _opaque(canonical)
            else:
                lowered = self.lower(canonical, extents)
            if t.is_const_qualified() and not lowered.const:
                lowered = replace(lowered, const=True)
            return lowered
        if kind in _INTEGERS:
            name, bits, signed = _INTEGERS[kind]
            return T.IntType(name, bits, signed, **_quals(t))
        if kind in _FLOATS:
            name, bits = _FLOATS[kind]
            return T.FloatType(name, bits, **_quals(t))
        if kind == TK.VOID:
            return T.VoidType(**_quals(t))
        if kind == TK.ENUM:
            underlying = t.get_declaration().enum_type
            base = self.lower(underlying)
            return T.IntType(base.name if isinstance(base, T.IntType) else "int",
                             getattr(base, "bits", 32), getattr(base, "signed", True), **_quals(t))
        if kind == TK.POINTER:  # a pointer to a VLA row keeps the row's extents
            return T.PointerType(self.lower(t.get_pointee(), extents), **_quals(t))
        if kind in (*_ARRAYS, TK.DEPENDENTSIZEDARRAY):
            return self._array(t, extents or [])
        if kind == TK.RECORD:
            return self._record(t)
        if kind in (TK.FUNCTIONPROTO, TK.FUNCTIONNOPROTO):
            params = tuple(self.lower(a) for a in t.argument_types()) if kind == TK.FUNCTIONPROTO else ()
            return T.FunctionType(self.lower(t.get_result()), params,
                                  t.is_function_variadic() if kind == TK.FUNCTIONPROTO else False)
        return _opaque(t)

    def _array(self, t: ci.Type, extents: list[ci.Cursor]) -> T.ArrayType:
        """One ArrayType per dimension; bracket qualifiers (static const restrict) on the outermost."""
        dims: list[tuple[ci.Type, Optional[ci.Cursor]]] = []
        cur = t
        remaining = list(extents)
        # Clang keeps the element's qualifiers on a canonical array type (`const row_t R[2]`
        # is a const array of `float[8]`, whose element type is plain `float`): collected here.
        element_const = element_volatile = False
        while type_kind(cur) in (*_ARRAYS, TK.DEPENDENTSIZEDARRAY):
            element_const |= cur.is_const_qualified()
            element_volatile |= cur.is_volatile_qualified()
            size_cursor = remaining.pop(0) if (type_kind(cur) != TK.INCOMPLETEARRAY and remaining) else None
            dims.append((cur, size_cursor))
            cur = cur.element_type
            if type_kind(cur) in _SUGAR:
                canonical = cur.get_canonical()
                if type_kind(canonical) in _ARRAYS:
                    cur = canonical
        element = self.lower(cur)
        if (element_const and not element.const) or (element_volatile and not element.volatile):
            element = replace(element, const=element.const or element_const,
                              volatile=element.volatile or element_volatile)
        first_brackets = _BRACKET_QUALS.search(t.spelling)
        words = set(first_brackets.group(1).replace(",", " ").split()) if first_brackets else set()
        result: T.CType = element
        for index, (dim, size_cursor) in reversed(list(enumerate(dims))):
            constant = dim.element_count if type_kind(dim) == TK.CONSTANTARRAY else None
            extent: Optional[Expr]
            if size_cursor is not None:
                extent = self._lower_expr(size_cursor)
            elif constant is not None:
                extent = IntLit(constant, type=T.LONG)
            else:
                extent = None
            outer = index == 0
            result = T.ArrayType(
                element=result, extent=extent, constant_extent=constant,
                static=outer and "static" in words,
                const=outer and "const" in words,
                restrict=outer and "restrict" in words,
                volatile=outer and "volatile" in words,
            )
        assert isinstance(result, T.ArrayType)
        return result

    def _record(self, t: ci.Type) -> T.StructType:
        """The struct or union, with `t`'s own qualifiers: the cache holds each declaration's
        unqualified type (a `const struct grid *` lowered first must not make every later
        `struct grid *` const)."""
        decl = t.get_declaration()
        is_union = decl.kind == ci.CursorKind.UNION_DECL
        name = decl.spelling or t.spelling
        key = f"{decl.location.file}:{decl.location.line}:{decl.location.column}:{name}"
        if key not in self._structs:
            # Placeholder first: a struct may point to itself.
            self._structs[key] = T.StructType(name=name, is_union=is_union)
            fields = []
            for child in decl.get_children():
                if child.kind == ci.CursorKind.FIELD_DECL:
                    width = child.get_bitfield_width() if child.is_bitfield() else None
                    where = child.location
                    loc = SourceLoc(where.file.name, where.line, where.column) if where.file is not None else None
                    fields.append(T.StructField(child.spelling, self.lower(child.type), width, loc))
            self._structs[key] = T.StructType(name=name, is_union=is_union, fields=tuple(fields))
        cached = self._structs[key]
        quals = _quals(t)
        return replace(cached, **quals) if any(quals.values()) else cached
