# SPDX-License-Identifier: MIT
"""Literals pasted by a macro reach the optimiser (issue 8).

PolyBench/C 4.2.1 writes its constants as `SCALAR_VAL(1.0)` with
`#define SCALAR_VAL(x) x##f`: the literal `1.0f` is made by token pasting and has
no spelling in any file, so reading it from the source text failed and deriche's
region fell back with "expression '<FLOATING_LITERAL>' ... is not supported".
The front end now takes every literal's value from clang's evaluation
(clangpass.frontend.clang_api.evaluate). Each program here is optimized (the
record says so) and prints what gcc -O0 prints, on 1 and 2 threads.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PASTED = r"""
#include <stdio.h>

#define SCALAR_VAL(x) x##f
#define LONG_VAL(x) x##L
#define HEX_VAL(x) 0x##x
#define FRACTION(a, b) a##.##b

static void scale(int n, float A[static const restrict n], long B[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    A[i] = SCALAR_VAL(0.1) * A[i] + SCALAR_VAL(-2.5e-3) + SCALAR_VAL(1e1) * FRACTION(3, 25);
    B[i] = B[i] * LONG_VAL(3) + HEX_VAL(1f) + LONG_VAL(5000000000) % (i + 7);
  }
}

int main(void)
{
  static float A[300];
  static long B[300];
  for (int i = 0; i < 300; i++) {
    A[i] = (i % 17) * 0.37f - 2.0f;
    B[i] = i * 11 - 900;
  }
  scale(300, A, B);
  printf("== A\n");
  for (int i = 0; i < 300; i++)
    printf("%.9g\n", A[i]);
  printf("== B\n");
  for (int i = 0; i < 300; i++)
    printf("%ld\n", B[i]);
  return 0;
}
"""

# A recursive (IIR) edge filter in the manner of Deriche's, written for this test: its
# coefficients come from pasted literals and expf, as PolyBench/C 4.2.1 writes them.
DERICHE = r"""
#include <math.h>
#include <stdio.h>

#define ROWS 64
#define COLS 48
#define REAL float
#define SCALAR_VAL(x) x##f

static void edge_filter(int rows, int cols, REAL alpha, REAL in[ROWS][COLS], REAL out[ROWS][COLS],
                        REAL fwd[ROWS][COLS], REAL bwd[ROWS][COLS])
{
  REAL decay, gain, lead, lag, prev_in, prev_out, next_in, next_out;

#pragma scop
  decay = expf(-alpha);
  gain = (SCALAR_VAL(1.0) - decay) * (SCALAR_VAL(1.0) - decay) / (SCALAR_VAL(1.0) + SCALAR_VAL(2.0) * alpha * decay);
  lead = gain * decay * (alpha - SCALAR_VAL(1.0));
  lag = gain * decay * (alpha + SCALAR_VAL(1.0));
  for (int r = 0; r < rows; r++) {
    prev_in = SCALAR_VAL(0.0);
    prev_out = SCALAR_VAL(0.0);
    for (int c = 0; c < cols; c++) {
      fwd[r][c] = gain * in[r][c] + lead * prev_in + decay * prev_out;
      prev_in = in[r][c];
      prev_out = fwd[r][c];
    }
  }
  for (int r = 0; r < rows; r++) {
    next_in = SCALAR_VAL(0.0);
    next_out = SCALAR_VAL(0.0);
    for (int c = cols - 1; c >= 0; c--) {
      bwd[r][c] = lag * next_in - SCALAR_VAL(0.5) * decay * next_out;
      next_in = in[r][c];
      next_out = bwd[r][c];
    }
  }
  for (int r = 0; r < rows; r++)
    for (int c = 0; c < cols; c++)
      out[r][c] = SCALAR_VAL(1.5) * (fwd[r][c] + bwd[r][c]);
#pragma endscop
}

int main(void)
{
  static REAL in[ROWS][COLS], out[ROWS][COLS], fwd[ROWS][COLS], bwd[ROWS][COLS];
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      in[r][c] = (REAL)((313 * r + 991 * c) % 65536) / 65535.0f;
  edge_filter(ROWS, COLS, SCALAR_VAL(0.25), in, out, fwd, bwd);
  printf("== out\n");
  for (int r = 0; r < ROWS; r++)
    for (int c = 0; c < COLS; c++)
      printf("%.9g\n", out[r][c]);
  return 0;
}
"""


def _build(tmp_path: Path, name: str, text: str) -> tuple[Path, Path, list[dict]]:
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    exe = tmp_path / name
    record = tmp_path / f"{name}.json"
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3",
                                            "-fpencil-thread-min-work=0",
                                            f"-foptimization-record-file={record}"])
    return source, exe, json.loads(record.read_text())["regions"]


def test_macro_pasted_literals_are_optimized_and_correct(tmp_path):
    source, exe, regions = _build(tmp_path, "pasted", PASTED)
    assert [(r["function"], r["status"], r["reason"]) for r in regions] == [("scale", "optimized", "")]
    assert regions[0]["parallel_loops"] > 0
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])


def test_filter_with_scalar_val_is_optimized_and_correct(tmp_path):
    source, exe, regions = _build(tmp_path, "deriche", DERICHE)
    assert [(r["function"], r["status"], r["reason"]) for r in regions] == [
        ("edge_filter", "optimized", "")]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])
