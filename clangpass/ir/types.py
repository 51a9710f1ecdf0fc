# SPDX-License-Identifier: MIT
"""C types of the pencilcc IR.

Input: clang types seen through libclang (lowered in clangpass.frontend.types).
Output: small frozen values that back ends and the polyhedral model read without
ever going back to libclang. Every expression node carries one of these.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from clangpass.ir.nodes import Expr, SourceLoc


@dataclass(frozen=True)
class CType:
    """Base of all C types; `const`/`volatile`/`restrict` are qualifiers on the value."""

    const: bool = field(default=False, kw_only=True)
    volatile: bool = field(default=False, kw_only=True)
    restrict: bool = field(default=False, kw_only=True)

    def qualifier_prefix(self) -> str:
        quals = [q for q in ("const", "volatile", "restrict") if getattr(self, q)]
        return (" ".join(quals) + " ") if quals else ""

    def unqualified(self) -> "CType":
        from dataclasses import replace

        return replace(self, const=False, volatile=False, restrict=False)


@dataclass(frozen=True)
class VoidType(CType):
    def spelling(self) -> str:
        return self.qualifier_prefix() + "void"


@dataclass(frozen=True)
class IntType(CType):
    """Integer types, `_Bool` and `char` included; `name` is the C spelling."""

    name: str = "int"
    bits: int = 32
    signed: bool = True

    def spelling(self) -> str:
        return self.qualifier_prefix() + self.name


@dataclass(frozen=True)
class FloatType(CType):
    name: str = "double"
    bits: int = 64

    def spelling(self) -> str:
        return self.qualifier_prefix() + self.name


@dataclass(frozen=True)
class PointerType(CType):
    pointee: CType = field(default_factory=VoidType)

    def spelling(self) -> str:
        return f"{self.pointee.spelling()} *" + (" " + self.qualifier_prefix().strip() if self.qualifier_prefix() else "")


@dataclass(frozen=True)
class ArrayType(CType):
    """An array dimension: `element` is the type of one row.

    `extent` is the IR expression of the size, or None for `[]`; `constant_extent` is
    its value when it is an integer constant (constant arrays and VLAs share this node
    so that `double A[1000][n]` is one shape). `static` records `[static n]`.
    Qualifiers written inside the brackets (`[static const restrict n]`) are kept on
    this node as in C they apply to the pointer the parameter decays to.
    """

    element: CType = field(default_factory=VoidType)
    extent: Optional["Expr"] = field(default=None, compare=False)
    constant_extent: Optional[int] = None
    static: bool = False

    @property
    def is_vla(self) -> bool:
        return self.constant_extent is None and self.extent is not None

    def dims(self) -> list["ArrayType"]:
        out: list[ArrayType] = []
        t: CType = self
        while isinstance(t, ArrayType):
            out.append(t)
            t = t.element
        return out

    def scalar_element(self) -> CType:
        t: CType = self
        while isinstance(t, ArrayType):
            t = t.element
        return t

    def spelling(self) -> str:
        from clangpass.ir.printer import format_expr

        parts = []
        for d in self.dims():
            inner = []
            if d.static:
                inner.append("static")
            q = d.qualifier_prefix().strip()
            if q:
                inner.append(q)
            if d.extent is not None:
                inner.append(format_expr(d.extent))
            elif d.constant_extent is not None:
                inner.append(str(d.constant_extent))
            parts.append("[" + " ".join(inner) + "]")
        return f"{self.scalar_element().spelling()}" + "".join(parts)


def is_pencil_array(t: CType) -> bool:
    """`T A[static const restrict n]...` (a PENCIL array parameter): the qualifiers live on the
    outermost dimension."""
    return isinstance(t, ArrayType) and t.static and t.const and t.restrict


@dataclass(frozen=True)
class StructField:
    name: str
    type: CType
    bit_width: Optional[int] = None
    loc: Optional["SourceLoc"] = field(default=None, compare=False, repr=False)  # the field's declaration


@dataclass(frozen=True)
class StructType(CType):
    """struct or union; fields are filled when the definition is visible."""

    name: str = ""
    is_union: bool = False
    fields: tuple[StructField, ...] = field(default=(), compare=False)

    def spelling(self) -> str:
        kw = "union" if self.is_union else "struct"
        return self.qualifier_prefix() + f"{kw} {self.name}".strip()

    def field_index(self, name: str) -> int:
        for i, f in enumerate(self.fields):
            if f.name == name:
                return i
        raise KeyError(name)


@dataclass(frozen=True)
class FunctionType(CType):
    result: CType = field(default_factory=VoidType)
    params: tuple[CType, ...] = ()
    variadic: bool = False

    def spelling(self) -> str:
        ps = ", ".join(p.spelling() for p in self.params) + (", ..." if self.variadic else "")
        return f"{self.result.spelling()} ({ps or 'void'})"


@dataclass(frozen=True)
class OpaqueType(CType):
    """A type pencilcc does not model (complex, vector extensions, ...): kept by name."""

    name: str = "?"

    def spelling(self) -> str:
        return self.qualifier_prefix() + self.name


def is_integer(t: CType) -> bool:
    return isinstance(t, IntType)


def is_floating(t: CType) -> bool:
    return isinstance(t, FloatType)


def is_arithmetic(t: CType) -> bool:
    return isinstance(t, (IntType, FloatType))


def is_pointer_like(t: CType) -> bool:
    return isinstance(t, (PointerType, ArrayType))


# The common C types, for code that builds IR without libclang (tests, generated statements).
INT = IntType("int", 32, True)
LONG = IntType("long", 64, True)
BOOL = IntType("_Bool", 8, False)
DOUBLE = FloatType("double", 64)
FLOAT = FloatType("float", 32)
VOID = VoidType()


def promoted(t: CType) -> CType:
    """C99 6.3.1.1 integer promotion: every integer type narrower than int becomes int."""
    if isinstance(t, IntType) and t.bits < 32:
        return INT
    return t
