# SPDX-License-Identifier: MIT
"""-ffp-contract=on in the CPU back end: a multiply fuses (llvm.fmuladd) only into the add
or subtract of its own expression; a product stored in a variable or array element, or
computed in another statement, stays a rounded `fmul`; off (and gcc's 'on' before) fuses
nothing. The IR is read before the optimisation pipeline (-O0) so that it shows what the
lowering emitted."""
from __future__ import annotations

import re

from clangpass.options import CompileOptions
from llvm_backend.cpu import emit_llvm_ir
from test_suite.unit.backend.units import nest_unit

ON = CompileOptions(opt_level=0, fp_contract_on=True)
OFF = CompileOptions(opt_level=0)

GEMM = """
void gemm(int n, double alpha, double A[n][n], double B[n][n], double C[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}
"""

# three-address form: the product reaches the add through an array element
THREE_ADDRESS = """
void tac(int n, double a[n], double b[n], double d[n], double t[n], double c[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    t[i] = a[i] * b[i];
    c[i] = t[i] + d[i];
  }
#pragma endscop
}
"""

SUBTRACT = """
void sub(int n, double a[n], double b[n], double d[n], double c[n], double e[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    c[i] = d[i] - a[i] * b[i];
    e[i] = a[i] * b[i] - d[i];
  }
#pragma endscop
}
"""

# a float product converted to double before the add: the cast is between them
CAST = """
void cast(int n, float a[n], float b[n], double d[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    d[i] = d[i] + a[i] * b[i];
#pragma endscop
}
"""


def _ir(tmp_path, source, function, iterators, bounds, options):
    path = tmp_path / f"{function}.c"
    path.write_text(source)
    unit = nest_unit(str(path), function, "[n]", iterators, bounds)
    text = emit_llvm_ir([unit], options, function)
    body = text[text.index("define"):]
    return (len(re.findall(r"call [^\n]*@llvm\.fmuladd\.f64\(", body)),
            len(re.findall(r"= fmul ", body)), body)


def test_a_compound_accumulation_outside_vector_and_register_tile_marks_stays_unfused(tmp_path):
    # `C[i][j] += ...` in a plain nest is one loop-carried chain along k: an FMA there (4 cycles)
    # is slower than the add with the multiply off the chain (lu, ludcmp, durbin at LARGE); it
    # fuses under `vector` and `register-tile` marks only (test_suite/e2e/test_fp_contract.py
    # counts the zmm FMAs of gemm's register tiles).
    fused, muls, body = _ir(tmp_path, GEMM, "gemm", ("i", "j", "k"),
                            "0 <= i < n and 0 <= j < n and 0 <= k < n", ON)
    assert (fused, muls) == (0, 2), body
    assert "contract" not in body


def test_the_product_fuses_into_its_add(tmp_path):
    source = GEMM.replace("C[i][j] += alpha * A[i][k] * B[k][j];", "C[i][j] = C[i][j] + alpha * A[i][k] * B[k][j];")
    fused, muls, body = _ir(tmp_path, source, "gemm", ("i", "j", "k"),
                            "0 <= i < n and 0 <= j < n and 0 <= k < n", ON)
    # C[i][j] + (alpha * A[i][k]) * B[k][j]: the outer multiply fuses, alpha * A[i][k] stays
    assert (fused, muls) == (1, 1), body
    assert "contract" not in body


def test_off_fuses_nothing(tmp_path):
    fused, muls, body = _ir(tmp_path, GEMM, "gemm", ("i", "j", "k"),
                            "0 <= i < n and 0 <= j < n and 0 <= k < n", OFF)
    assert (fused, muls) == (0, 2), body


def test_fast_uses_contract_flags_not_fmuladd(tmp_path):
    fast = CompileOptions(opt_level=0, fp_contract=True, fp_contract_on=True)
    fused, muls, body = _ir(tmp_path, GEMM, "gemm", ("i", "j", "k"),
                            "0 <= i < n and 0 <= j < n and 0 <= k < n", fast)
    assert (fused, muls) == (0, 2), body
    assert "fmul contract" in body


def test_nothing_fuses_across_three_address_statements(tmp_path):
    fused, muls, body = _ir(tmp_path, THREE_ADDRESS, "tac", ("i",), "0 <= i < n", ON)
    assert (fused, muls) == (0, 1), body


def test_subtractions_negate_exactly(tmp_path):
    fused, muls, body = _ir(tmp_path, SUBTRACT, "sub", ("i",), "0 <= i < n", ON)
    assert (fused, muls) == (2, 0), body
    # d - a*b = fmuladd(-a, b, d); a*b - d = fmuladd(a, b, -d)
    assert len(re.findall(r"= fneg double", body)) == 2, body
    assert "fsub" not in body, body


def test_a_conversion_between_product_and_add_keeps_them_apart(tmp_path):
    fused, muls, body = _ir(tmp_path, CAST, "cast", ("i",), "0 <= i < n", ON)
    assert fused == 0 and re.search(r"= fmul float", body), body
