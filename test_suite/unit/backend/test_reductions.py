# SPDX-License-Identifier: MIT
"""Parallel reductions in the CPU back end (llvm_backend.cpu.parallel): identities and
combiners per operator and type, and the shape of the emitted code (a private partial
result per thread, a slot array the caller allocates, thread 0's combining loop)."""
from __future__ import annotations

import math
import re

import llvmlite.ir as ir

from clangpass.ir import types as T
from clangpass.options import CompileOptions
from llvm_backend.cpu import emit_llvm_ir
from llvm_backend.cpu.parallel import _identity

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
    assert [_identity(op, int32).constant for op in ("+", "*", "min", "max")] == [0, 1, 2**31 - 1, -2**31]
    assert [_identity(op, uint8).constant for op in ("min", "max")] == [255, 0]
    assert _identity("min", double).constant == math.inf and _identity("max", double).constant == -math.inf
    assert _identity("*", double).type == ir.DoubleType()


def test_each_thread_has_a_partial_result_that_thread_zero_combines(tmp_path):
    outcome = optimise(tmp_path, "#include <math.h>\n" + KERNEL, opt_level=3)
    assert {(r.variable, r.operator) for r in outcome.unit.reductions} == {("s", "+"), ("lo", "min")}
    text = emit_llvm_ir([outcome.unit], CompileOptions(opt_level=0), "kernel")
    for v in ("s", "lo"):
        assert re.search(rf'%"?pencil\.{v}\.slots"? = call ptr @malloc', text), v
        assert f"pencil.{v}.partial" in text and f"pencil.{v}.combine" in text
    assert "@llvm.minnum.f64" in text and "@GOMP_barrier" in text and "@free" in text
