# SPDX-License-Identifier: MIT
"""clangpass.ir.c_printer and the OpenCL dialect of llvm_backend.opencl.kernels: IR as C text.

The printed text must compute what the IR computes: literals keep their C type (suffixes,
the most negative value, float literals that round-trip), conversions are explicit casts,
flat subscripts of multi-dimensional buffers, PENCIL builtins as OpenCL's overloads with
the result converted to the C type clang gave the call; what the dialect cannot say raises
Unprintable. The C99 dialect's text is compiled and run by gcc to check the values.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.c_printer import CDialect, CPrinter, Unprintable
from llvm_backend.opencl.kernels import OpenclDialect, builtin_name

INT, UINT = T.IntType("int", 32, True), T.IntType("unsigned int", 32, False)
LONG, ULONG = T.IntType("long", 64, True), T.IntType("unsigned long", 64, False)
CHAR = T.IntType("char", 8, True)
DOUBLE, FLOAT = T.FloatType("double", 64), T.FloatType("float", 32)
C99 = CPrinter(CDialect())


def test_integer_literals_keep_their_type() -> None:
    assert C99.expr(N.IntLit(7, type=INT)) == "7"
    assert C99.expr(N.IntLit(7, type=UINT)) == "7U"
    assert C99.expr(N.IntLit(7, type=LONG)) == "7L"
    assert C99.expr(N.IntLit(2**64 - 1, type=ULONG)) == "18446744073709551615UL"
    assert C99.expr(N.IntLit(-(2**63), type=LONG)) == "(-9223372036854775807L - 1L)"
    assert C99.expr(N.IntLit(-(2**31), type=INT)) == "(-2147483647 - 1)"
    assert C99.expr(N.IntLit(5, type=CHAR)) == "((char)5)"
    with pytest.raises(Unprintable):
        C99.expr(N.IntLit(1, type=T.IntType("__int128", 128, True)))


def test_float_literals_round_trip() -> None:
    assert C99.expr(N.FloatLit(0.1, type=DOUBLE)) == "0.1"
    assert C99.expr(N.FloatLit(1e300, type=DOUBLE)) == "1e+300"
    assert C99.expr(N.FloatLit(2.0, type=FLOAT)) == "2.0f"
    assert C99.expr(N.FloatLit(-0.5, type=DOUBLE)) == "(-0.5)"
    assert C99.expr(N.FloatLit(float("inf"), type=DOUBLE)) == "INFINITY"


def test_conversions_are_explicit_and_addresses_unprintable() -> None:
    x = N.VarRef("x", "param", type=INT)
    cast = N.Cast(x, type=DOUBLE, implicit=True)
    assert C99.expr(N.Binary("/", cast, N.FloatLit(2.0, type=DOUBLE), type=DOUBLE)) == "(((double)x) / 2.0)"
    with pytest.raises(Unprintable):
        C99.expr(N.Unary("&", x, type=T.PointerType(pointee=INT)))


def test_opencl_subscripts_are_flat_and_names_renamed() -> None:
    a = N.VarRef("A", "param", type=T.ArrayType(element=T.ArrayType(element=DOUBLE, constant_extent=8),
                                               constant_extent=4))
    i, j = N.VarRef("i", "local", type=INT), N.VarRef("j", "local", type=INT)
    row = N.Subscript(a, i, type=T.ArrayType(element=DOUBLE, constant_extent=8))
    element = N.Subscript(row, j, type=DOUBLE)
    printer = CPrinter(OpenclDialect({"A": ["__pencilcc_A_e1"]}))
    assert printer.expr(element) == "v_A[(v_i * __pencilcc_A_e1 + v_j)]"
    with pytest.raises(Unprintable):
        printer.expr(N.Cast(row, type=T.PointerType(pointee=DOUBLE)))
    scalar = CPrinter(OpenclDialect({}, frozenset({"s"})))
    assert scalar.expr(N.VarRef("s", "local", type=DOUBLE)) == "(*v_s)"


def test_pencil_builtins_are_opencl_overloads() -> None:
    assert [builtin_name(n) for n in ("lmax", "umin", "abs", "fmaxf", "sqrtf", "sqrt", "fclamp", "fabs")] == \
        ["max", "min", "abs", "fmax", "sqrt", "sqrt", "clamp", "fabs"]
    assert builtin_name("__pencil_kill") is None and builtin_name("printf") is None
    printer = CPrinter(OpenclDialect({}))
    x = N.VarRef("x", "local", type=INT)
    # OpenCL's abs returns an unsigned type: converted back to the int clang gave the call.
    assert printer.expr(N.Call("abs", (x,), builtin=True, type=INT)) == "((int)abs(v_x))"
    with pytest.raises(Unprintable):
        printer.expr(N.Call("helper", (x,), builtin=False, type=INT))


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_printed_c99_computes_the_same_values(tmp_path: Path) -> None:
    """Literals at the edges of their types, printed and compiled: the values gcc prints are
    the Python values."""
    cases = [(N.IntLit(-(2**63), type=LONG), "%ld", str(-(2**63))),
             (N.IntLit(2**64 - 1, type=ULONG), "%lu", str(2**64 - 1)),
             (N.IntLit(-(2**31), type=INT), "%d", str(-(2**31))),
             (N.FloatLit(0.1, type=DOUBLE), "%.17g", "0.10000000000000001"),
             (N.Binary("-", N.IntLit(0, type=UINT), N.IntLit(1, type=UINT), type=UINT), "%u", str(2**32 - 1))]
    body = "".join(f'  printf("{fmt}\\n", {C99.expr(e)});\n' for e, fmt, _ in cases)
    source = tmp_path / "values.c"
    source.write_text(f"#include <stdio.h>\n#include <math.h>\nint main(void)\n{{\n{body}  return 0;\n}}\n")
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", str(source), "-o", str(tmp_path / "values")], check=True)
    out = subprocess.run([str(tmp_path / "values")], capture_output=True, text=True, check=True).stdout.split()
    assert out == [expected for _, _, expected in cases]
