# SPDX-License-Identifier: MIT
"""Parallel reductions in the CPU back end (llvm_backend.cpu.parallel): identities and
combiners per operator and type, and the shape of the emitted code (a private partial
result per thread, a slot array the caller allocates, thread 0's combining loop)."""
from __future__ import annotations

import math
import re

import ctypes

import llvmlite.binding as llvm
import llvmlite.ir as ir
import pytest

from clangpass.ir import types as T
from clangpass.options import CompileOptions
from llvm_backend.cpu import emit_llvm_ir
from llvm_backend.cpu.parallel import UNTOUCHED, combine, reduction_identity

from test_suite.unit.poly.snippets import optimise

KERNEL = """\
void total(int n, int a[static const restrict n], int s[static const restrict 1],
           double lo[static const restrict 1]) {
#pragma pencil independent reduction(+: s) reduction(min: lo)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    lo[0] = fmin(lo[0], a[i] * 0.5);
  }
}
"""


def test_identities():
    int32 = T.IntType("int", 32, True)
    uint8 = T.IntType("unsigned char", 8, False)
    double = T.FloatType("double", 64)
    assert [reduction_identity(op, int32).constant for op in ("+", "*", "min", "max")] == [0, 1, 2**31 - 1, -2**31]
    assert [reduction_identity(op, uint8).constant for op in ("min", "max")] == [255, 0]
    assert reduction_identity("min", double).constant == math.inf and reduction_identity("max", double).constant == -math.inf
    assert reduction_identity("*", double).type == ir.DoubleType()
    assert [reduction_identity(op, int32).constant for op in ("&", "|", "^")] == [-1, 0, 0]
    assert str(reduction_identity("&", T.IntType("unsigned int", 32, False))) == "i32 -1"   # all ones
    assert [reduction_identity(op, int32).constant for op in ("&&", "||")] == [UNTOUCHED, UNTOUCHED]
    assert reduction_identity("||", double).constant == float(UNTOUCHED)


INT32 = T.IntType("int", 32, True)
DOUBLE = T.FloatType("double", 64)


def _combiner(operator: str, ctype: T.CType, partials: bool):
    """`combine(operator)` compiled to machine code, as a Python callable of two values."""
    module = ir.Module("combine")
    ty = ir.DoubleType() if isinstance(ctype, T.FloatType) else ir.IntType(ctype.bits)
    fn = ir.Function(module, ir.FunctionType(ty, [ty, ty]), "combine")
    b = ir.IRBuilder(fn.append_basic_block())
    b.ret(combine(None, b, operator, ctype, fn.args[0], fn.args[1], partials=partials))
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    target = llvm.Target.from_default_triple().create_target_machine()
    engine = llvm.create_mcjit_compiler(llvm.parse_assembly(str(module)), target)
    engine.finalize_object()
    cty = ctypes.c_double if isinstance(ctype, T.FloatType) else ctypes.c_int32
    compiled = ctypes.CFUNCTYPE(cty, cty, cty)(engine.get_function_address("combine"))
    compiled.engine = engine   # keep the code alive
    return compiled


@pytest.mark.parametrize("operator, expected", [("&", 0b1000), ("|", 0b1110), ("^", 0b0110)])
def test_bitwise_combiners(operator, expected):
    assert _combiner(operator, INT32, True)(0b1100, 0b1010) == expected
    assert _combiner(operator, INT32, True)(reduction_identity(operator, INT32).constant, -7) == -7


def test_logical_combiners_give_zero_or_one_and_skip_untouched_partials():
    both, either = _combiner("&&", INT32, True), _combiner("||", INT32, True)
    assert [both(5, -3), both(5, 0), either(0, 9), either(0, 0)] == [1, 0, 1, 0]
    # An untouched partial result leaves the other operand as it is.
    assert [both(UNTOUCHED, 0), both(1, UNTOUCHED), either(UNTOUCHED, 1), either(UNTOUCHED, UNTOUCHED)] == \
        [0, 1, 1, UNTOUCHED]
    # Into the shared variable (not a partial result): its value counts, as C's `v && total` would.
    into = _combiner("||", INT32, False)
    assert [into(UNTOUCHED, 0), into(5, UNTOUCHED), into(0, 0), into(-8, 0)] == [1, 5, 0, 1]
    fboth = _combiner("&&", DOUBLE, False)
    assert [fboth(0.5, 1.0), fboth(float("nan"), 1.0), fboth(-0.0, 1.0), fboth(3.5, float(UNTOUCHED))] == \
        [1.0, 1.0, 0.0, 3.5]


def test_each_thread_has_a_partial_result_that_thread_zero_combines(tmp_path):
    outcome = optimise(tmp_path, "#include <math.h>\n" + KERNEL, opt_level=3)
    assert {(r.variable, r.operator) for r in outcome.unit.reductions} == {("s", "+"), ("lo", "min")}
    text = emit_llvm_ir([outcome.unit], CompileOptions(opt_level=0), "kernel")
    for v in ("s", "lo"):
        assert re.search(rf'%"?pencil\.{v}\.slots"? = call ptr @malloc', text), v
        assert f"pencil.{v}.partial" in text and f"pencil.{v}.combine" in text
    assert "@llvm.minnum.f64" in text and "@GOMP_barrier" in text and "@free" in text
