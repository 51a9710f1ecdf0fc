# SPDX-License-Identifier: MIT
"""Array declarators written through macros are read as clang reads them (issue 30).

PolyBench/C 4.2.1 in its C99 mode declares array parameters as VLAs through
function-like macros (`double POLYBENCH_2D(C, NI, NJ, ni, nj)`): every size expression
then sits at the macro's use, and the front end, which ordered them by source offset,
read `C[ni][nj]` as `C[nj][ni]`. The extents now come in clang's AST order
(clangpass.frontend.lower.Lowering.decl_type). Each program here is optimized and
prints what gcc -O0 prints, on the CPU target and (with an OpenCL platform) on the
OpenCL target.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]

# The program, with its main.
SCALE = r"""
#include <stdio.h>
#define ARR2(name, n, m) name[n + 0][m + 0]
static void scale(int n, int m, double ARR2(A, n, m)) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = A[i][j] * 2.0 + i;
#pragma endscop
}
int main(void) {
  double A[3][5];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++)
      A[i][j] = i * 5 + j;
  scale(3, 5, A);
  printf("== A\n");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++)
      printf("%.17g\n", A[i][j]);
  return 0;
}
"""

# Every declarator form at once: PolyBench-like nested macros with `##`, a 3-D VLA
# through a macro, a pointer to a VLA row through a macro, a typedef'd row, locals
# declared through macros (with an initialiser the macro hides), extents and loop
# bounds from object-like macros.
FORMS = r"""
#include <stdio.h>
#include <stdlib.h>
#define NI 7
#define NJ 9
#define NK 4
#define CAT(a, b) a##b
#define DIM(x) (x)
#define ARRAY_2D(v, d1, d2) v[DIM(d1)][DIM(d2)]
#define ARRAY_3D(v, d1, d2, d3) v[d1][d2 + 0][(d3)]
#define ROWPTR(v, d2) (*v)[d2]
#define LOCAL_INT(x, v) int CAT(x, _n) = v
#define FOR_UP(i, n) for (i = 0; i < (n); i++)
typedef double row_t[NJ];

static void kernel(int ni, int nj, int nk, double ARRAY_2D(A, ni, nj),
                   double ARRAY_3D(B, nk, ni, nj), double ROWPTR(C, nj), row_t *D,
                   double E[restrict DIM(nk)][ni])
{
  int i, j, k;
#pragma scop
  FOR_UP(i, ni)
    FOR_UP(j, nj) {
      A[i][j] = A[i][j] + 0.5 * j - i;
      C[i][j] = A[i][j] * 3.0 + D[i][j];
    }
  FOR_UP(k, nk)
    FOR_UP(i, ni)
      FOR_UP(j, nj)
        B[k][i][j] = B[k][i][j] + A[i][j] * (k + 1) + E[k][i];
#pragma endscop
}

int main(void)
{
  LOCAL_INT(rows, NI);
  static double A[NI][NJ], B[NK][NI][NJ], C[NI][NJ], E[NK][NI];
  row_t *D = malloc(sizeof(row_t) * NI);
  int i, j, k;
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++) {
      A[i][j] = i * 10 + j;
      C[i][j] = 0;
      D[i][j] = (i * 7 + j * 3) % 5;
    }
  for (k = 0; k < NK; k++)
    for (i = 0; i < NI; i++) {
      E[k][i] = k - 0.25 * i;
      for (j = 0; j < NJ; j++)
        B[k][i][j] = k * 100 + i * 10 + j;
    }
  kernel(rows_n, NJ, NK, A, B, C, D, E);
  printf("== A\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", A[i][j]);
  printf("== B\n");
  for (k = 0; k < NK; k++)
    for (i = 0; i < NI; i++)
      for (j = 0; j < NJ; j++)
        printf("%.17g\n", B[k][i][j]);
  printf("== C\n");
  for (i = 0; i < NI; i++)
    for (j = 0; j < NJ; j++)
      printf("%.17g\n", C[i][j]);
  free(D);
  return 0;
}
"""


def _opencl_platforms() -> list:
    try:
        import pyopencl
        return pyopencl.get_platforms()
    except Exception:   # no pyopencl, or its LogicError when the ICD loader finds no platform
        return []


TARGETS = [pytest.param("cpu"),
           pytest.param("opencl", marks=pytest.mark.skipif(not _opencl_platforms(),
                                                          reason="no OpenCL platform (install PoCL: .ci/run)"))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name, text", [("scale", SCALE), ("forms", FORMS)])
def test_macro_declarators_match_gcc(name: str, text: str, target: str, tmp_path: Path) -> None:
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    exe = tmp_path / name
    _, regions = harness.build_recorded([source], exe, ["-O3", "-std=c99", f"-fpencil-target={target}"])
    assert [r["status"] for r in regions.values()] == ["optimized"], regions
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=["-std=c99"],
                                  threads=(1, 2) if target == "cpu" else (1,))


def test_extents_in_declared_order(tmp_path: Path) -> None:
    """The IR dump shows each parameter with its extents in the order written."""
    import subprocess
    source = tmp_path / "forms.c"
    source.write_text(FORMS)
    proc = subprocess.run([*PENCILCC, "-O1", "-std=c99", "-fpencil-dump=ir", "-c", str(source),
                           "-o", str(tmp_path / "forms.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    header = next(line for line in proc.stderr.splitlines() if "kernel(" in line)
    flat = header.replace("(", "").replace(")", "").replace(" + 0", "")
    for expected in ("double A[ni][nj]", "double B[nk][ni][nj]", "double[nj] * C",
                     "double[9] * D", "double E[restrict nk][ni]"):
        assert expected in flat, (expected, header)
