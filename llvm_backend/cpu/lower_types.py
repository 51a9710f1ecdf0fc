# SPDX-License-Identifier: MIT
"""C types of the pencilcc IR (`clangpass.ir.types`) as LLVM types, C ABI of the host.

Input: the `CType` an IR expression or a `RegionArg` carries. Output: the llvmlite
type of its value, and the parameter type of the outlined function:
int -> i32, long -> i64, char -> i8, _Bool -> i8 (0 or 1), float -> float,
double -> double, every pointer and every array parameter -> ptr (opaque pointers).
Arrays only have an LLVM type when all their extents are constant; a VLA is
addressed as a flat run of its scalar element with extents evaluated at run time
(`lower_expr.ExprLowering.address_Subscript`).
"""
from __future__ import annotations

from typing import Optional

import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.regions import RegionArg

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
PTR = ir.PointerType()
VOID = ir.VoidType()


class BackendError(Exception):
    """A construct the CPU back end cannot lower; the driver falls back to the host compiler."""

    def __init__(self, message: str, loc: Optional[N.SourceLoc] = None) -> None:
        super().__init__(f"{loc}: {message}" if loc is not None and loc.line > 0 else message)
        self.loc = loc if loc is not None else N.NOLOC
        self.reason = message


def is_bool(t: T.CType) -> bool:
    return isinstance(t, T.IntType) and t.name == "_Bool"


def is_signed(t: T.CType) -> bool:
    return isinstance(t, T.IntType) and t.signed


def llvm_type(t: T.CType, loc: Optional[N.SourceLoc] = None) -> ir.Type:
    """The LLVM type of a value of C type `t` (arrays: only with constant extents)."""
    if isinstance(t, T.IntType):
        return ir.IntType(t.bits)
    if isinstance(t, T.FloatType):
        if t.bits == 32:
            return ir.FloatType()
        if t.bits == 64:
            return ir.DoubleType()
        raise BackendError(f"floating type '{t.spelling()}' is not supported by the CPU back end", loc)
    if isinstance(t, T.PointerType):
        return PTR
    if isinstance(t, T.VoidType):
        return VOID
    if isinstance(t, T.ArrayType):
        if t.constant_extent is None:
            raise BackendError(f"array type '{t.spelling()}' has no constant size", loc)
        return ir.ArrayType(llvm_type(t.element, loc), t.constant_extent)
    if isinstance(t, T.StructType):
        return struct_type(t, loc)
    raise BackendError(f"type '{t.spelling()}' is not supported by the CPU back end", loc)


def struct_type(t: T.StructType, loc: Optional[N.SourceLoc] = None) -> ir.Type:
    """A struct as an LLVM literal struct; natural alignment gives the SysV C layout."""
    if not t.fields:
        raise BackendError(f"'{t.spelling()}' has no visible definition", loc)
    if any(f.bit_width is not None for f in t.fields):
        raise BackendError(f"bit-fields of '{t.spelling()}' are not supported", loc)
    if t.is_union:
        raise BackendError(f"'{t.spelling()}' cannot be held as a value", loc)
    return ir.LiteralStructType([llvm_type(f.type, loc) for f in t.fields])


def scalar_element(t: T.CType) -> T.CType:
    """What an array (or the rows a pointer points to) is made of: double for double[n][m]."""
    if isinstance(t, T.PointerType):
        t = t.pointee
    while isinstance(t, T.ArrayType):
        t = t.element
    return t


def row_dims(t: T.CType) -> list[T.ArrayType]:
    """The dimensions below the first subscript: [m] for double[n][m] and for double (*)[m]."""
    if isinstance(t, T.ArrayType):
        return t.dims()[1:]
    if isinstance(t, T.PointerType) and isinstance(t.pointee, T.ArrayType):
        return t.pointee.dims()
    return []


def param_type(arg: RegionArg) -> ir.Type:
    """The outlined function's parameter for one region argument (regions.py conventions)."""
    if arg.passing == "value":
        return llvm_type(arg.type.unqualified())
    return PTR


def has_restrict(t: T.CType) -> bool:
    """Whether an array parameter's decayed pointer is restrict-qualified."""
    return t.restrict and isinstance(t, (T.ArrayType, T.PointerType))
