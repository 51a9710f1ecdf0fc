# SPDX-License-Identifier: MIT
"""Three-address temporaries declared at function scope are region-local (issue 9, item 1).

`double t1, t2;` before a `#pragma scop`, used only inside it, are the region's own
(clangpass.regions._privatize): their false dependences are relaxed, so the
three-address matrix product tiles and runs on threads like the original. Scalars
whose values cross the region's boundary (read after it, or initialised and read in it)
stay the caller's, and the record says why; a temporary of a region inside a loop of the
function is the region's own when it is written before it is read there. Every build
prints what gcc -O0 prints.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]

PROGRAM = r"""
#include <stdio.h>

/* Three-address matrix product: the temporaries are declared with the iterators. */
static void mm(int n, double C[n][n], double A[n][n], double B[n][n])
{
  int i, j, k;
  double t1, t2;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t1 = 0.0;
      for (k = 0; k < n; k++) {
        t2 = A[i][k] * B[k][j];
        t1 = t1 + t2;
      }
      C[i][j] = t1;
    }
#pragma endscop
}

/* `last` is returned after the region and `acc`'s initial value is read in it: both stay the
   caller's. `s` is written before it is read in each call of the region in a loop, and nothing
   else mentions it: the region's own (issue 9, item 1). */
static double kept(int n, double a[n])
{
  int i, r;
  double last, acc = 1.0, s;
#pragma scop
  for (i = 0; i < n; i++) {
    last = a[i] * 2.0;
    acc = acc * 0.5 + last;
    a[i] = last + acc;
  }
#pragma endscop
  for (r = 0; r < 2; r++) {
#pragma scop
    for (i = 1; i < n; i++) {
      s = a[i - 1] * 0.25;
      a[i] = a[i] + s;
    }
#pragma endscop
  }
  return last;
}

int main(void)
{
  static double A[70][70], B[70][70], C[70][70], v[100];
  for (int i = 0; i < 70; i++)
    for (int j = 0; j < 70; j++) {
      A[i][j] = (i + j) % 7 * 0.5;
      B[i][j] = (i * j) % 5 - 2.0;
    }
  for (int i = 0; i < 100; i++)
    v[i] = (i % 9) * 0.125;
  mm(70, C, A, B);
  double r = kept(100, v);
  printf("== C\n");
  for (int i = 0; i < 70; i++)
    for (int j = 0; j < 70; j++)
      printf("%.17g\n", C[i][j]);
  printf("== v\n");
  for (int i = 0; i < 100; i++)
    printf("%.17g\n", v[i]);
  printf("%.17g\n", r);
  return 0;
}
"""


def test_function_scope_temporaries_are_local_and_the_nest_tiles(tmp_path: Path) -> None:
    source = tmp_path / "tac.c"
    source.write_text(PROGRAM)
    exe, record = tmp_path / "tac", tmp_path / "tac.json"
    proc = harness.build(PENCILCC, [source], exe, ["-std=c99", "-O3", "-Wall", "-fpencil-thread-min-work=0",
                                                   f"-foptimization-record-file={record}"])
    assert "warning" not in proc.stderr          # no unused-variable warning for t1, t2
    regions = json.loads(record.read_text())["regions"]
    mm = [r for r in regions if r["function"] == "mm"]
    assert [(r["status"], r["local_variables"], r["kept_variables"]) for r in mm] == [("optimized", ["t1", "t2"], {})]
    assert mm[0]["tiled_bands"] >= 1 and mm[0]["parallel_loops"] >= 1
    kept = [(r["local_variables"], r["kept_variables"]) for r in regions if r["function"] == "kept"]
    assert kept == [([], {"last": "used outside the region", "acc": "initialised at its declaration"}),
                    (["s"], {})]
    reference = tmp_path / "gcc-O0"
    harness.build(["gcc"], [source], reference, ["-std=c99", "-O0"])
    expected = harness.run(reference)
    for threads in (1, 2):
        out = harness.run(exe, env={"PENCILCC_NUM_THREADS": str(threads)})
        assert harness.compare_outputs(expected, out, rtol=0) == [], threads
