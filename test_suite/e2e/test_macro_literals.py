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

# The kernel of PolyBench/C 4.2.1's medley/deriche, with its macros (float data).
DERICHE = r"""
#include <math.h>
#include <stdio.h>

#define W 64
#define H 48
#define DATA_TYPE float
#define SCALAR_VAL(x) x##f
#define EXP_FUN(x) expf(x)
#define POW_FUN(x,y) powf(x,y)

static void kernel_deriche(int w, int h, DATA_TYPE alpha,
                           DATA_TYPE imgIn[W][H], DATA_TYPE imgOut[W][H],
                           DATA_TYPE y1[W][H], DATA_TYPE y2[W][H])
{
  int i, j;
  DATA_TYPE xm1, tm1, ym1, ym2;
  DATA_TYPE xp1, xp2;
  DATA_TYPE tp1, tp2;
  DATA_TYPE yp1, yp2;
  DATA_TYPE k;
  DATA_TYPE a1, a2, a3, a4, a5, a6, a7, a8;
  DATA_TYPE b1, b2, c1, c2;

#pragma scop
  k = (SCALAR_VAL(1.0)-EXP_FUN(-alpha))*(SCALAR_VAL(1.0)-EXP_FUN(-alpha))/(SCALAR_VAL(1.0)+SCALAR_VAL(2.0)*alpha*EXP_FUN(-alpha)-EXP_FUN(SCALAR_VAL(2.0)*alpha));
  a1 = a5 = k;
  a2 = a6 = k*EXP_FUN(-alpha)*(alpha-SCALAR_VAL(1.0));
  a3 = a7 = k*EXP_FUN(-alpha)*(alpha+SCALAR_VAL(1.0));
  a4 = a8 = -k*EXP_FUN(SCALAR_VAL(-2.0)*alpha);
  b1 = POW_FUN(SCALAR_VAL(2.0),-alpha);
  b2 = -EXP_FUN(SCALAR_VAL(-2.0)*alpha);
  c1 = c2 = 1;

  for (i=0; i<w; i++) {
    ym1 = SCALAR_VAL(0.0);
    ym2 = SCALAR_VAL(0.0);
    xm1 = SCALAR_VAL(0.0);
    for (j=0; j<h; j++) {
      y1[i][j] = a1*imgIn[i][j] + a2*xm1 + b1*ym1 + b2*ym2;
      xm1 = imgIn[i][j];
      ym2 = ym1;
      ym1 = y1[i][j];
    }
  }

  for (i=0; i<w; i++) {
    yp1 = SCALAR_VAL(0.0);
    yp2 = SCALAR_VAL(0.0);
    xp1 = SCALAR_VAL(0.0);
    xp2 = SCALAR_VAL(0.0);
    for (j=h-1; j>=0; j--) {
      y2[i][j] = a3*xp1 + a4*xp2 + b1*yp1 + b2*yp2;
      xp2 = xp1;
      xp1 = imgIn[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }

  for (i=0; i<w; i++)
    for (j=0; j<h; j++) {
      imgOut[i][j] = c1 * (y1[i][j] + y2[i][j]);
    }

  for (j=0; j<h; j++) {
    tm1 = SCALAR_VAL(0.0);
    ym1 = SCALAR_VAL(0.0);
    ym2 = SCALAR_VAL(0.0);
    for (i=0; i<w; i++) {
      y1[i][j] = a5*imgOut[i][j] + a6*tm1 + b1*ym1 + b2*ym2;
      tm1 = imgOut[i][j];
      ym2 = ym1;
      ym1 = y1 [i][j];
    }
  }

  for (j=0; j<h; j++) {
    tp1 = SCALAR_VAL(0.0);
    tp2 = SCALAR_VAL(0.0);
    yp1 = SCALAR_VAL(0.0);
    yp2 = SCALAR_VAL(0.0);
    for (i=w-1; i>=0; i--) {
      y2[i][j] = a7*tp1 + a8*tp2 + c2*yp1 + b2*yp2;
      tp2 = tp1;
      tp1 = imgOut[i][j];
      yp2 = yp1;
      yp1 = y2[i][j];
    }
  }

  for (i=0; i<w; i++)
    for (j=0; j<h; j++)
      imgOut[i][j] = c2*(y1[i][j] + y2[i][j]);
#pragma endscop
}

int main(void)
{
  static DATA_TYPE imgIn[W][H], imgOut[W][H], y1[W][H], y2[W][H];
  for (int i = 0; i < W; i++)
    for (int j = 0; j < H; j++)
      imgIn[i][j] = (DATA_TYPE)((313 * i + 991 * j) % 65536) / 65535.0f;
  kernel_deriche(W, H, SCALAR_VAL(0.25), imgIn, imgOut, y1, y2);
  printf("== imgOut\n");
  for (int i = 0; i < W; i++)
    for (int j = 0; j < H; j++)
      printf("%.9g\n", imgOut[i][j]);
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


def test_polybench_deriche_with_scalar_val_is_optimized_and_correct(tmp_path):
    source, exe, regions = _build(tmp_path, "deriche", DERICHE)
    assert [(r["function"], r["status"], r["reason"]) for r in regions] == [
        ("kernel_deriche", "optimized", "")]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])
