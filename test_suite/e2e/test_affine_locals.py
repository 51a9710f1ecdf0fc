# SPDX-License-Identifier: MIT
"""Integer locals that hold an affine value reach the optimiser (issue 8, item 2).

`int j = d - i;`, `int lo = max(1, d - n + 1);` and `int r = clamp(i + di, 0,
h - 1);` used as bounds and subscripts are substituted by their values
(clangpass.poly.affine_locals), so the regions are optimized rather than falling
back as "non-affine"; each program prints what gcc -O0 prints on 1 and 2 threads.
A local that is written again, or whose value is not affine, still falls back with
the reason.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PROGRAM = r"""
#include <stdio.h>
#include <pencil.h>

/* Needleman-Wunsch-like sweep by anti-diagonals d = i + j. */
static void antidiag(int n, double a[static const restrict n][n])
{
  for (int d = 2; d < 2 * n - 1; d++) {
    int lo = max(1, d - n + 1);
    int hi = min(d - 1, n - 1);
    for (int i = lo; i <= hi; i++) {
      int j = d - i;
      a[i][j] = 0.5 * a[i - 1][j] + 0.25 * a[i][j - 1] + 0.125 * a[i - 1][j - 1];
    }
  }
}

/* Vertical 3-point blur with clamped borders. */
static void blur(int h, int w, double out[static const restrict h][w], const double in[static const restrict h][w])
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) {
      double s = 0.0;
      for (int di = -1; di <= 1; di++) {
        int r = clamp(i + di, 0, h - 1);
        s += in[r][j];
      }
      out[i][j] = s / 3.0;
    }
}

/* Two declarations in one statement, the second reading the first. */
static void pairs(int n, double a[static const restrict 2 * n + 2])
{
  for (int i = 0; i < n; i++) {
    int k = 2 * i, k1 = k + 1;
    a[k1] = a[k] * 3.0 - 1.0;
  }
}

int main(void)
{
  static double a[61][61], in[37][53], out[37][53], p[130];
  for (int i = 0; i < 61; i++)
    for (int j = 0; j < 61; j++)
      a[i][j] = (i * 7 + j * 3) % 11;
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 53; j++)
      in[i][j] = (i * 5 + j) % 13 - 6;
  for (int i = 0; i < 130; i++)
    p[i] = i * 0.5;
  antidiag(61, a);
  blur(37, 53, out, in);
  pairs(64, p);
  printf("== a\n");
  for (int i = 0; i < 61; i++)
    for (int j = 0; j < 61; j++)
      printf("%.17g\n", a[i][j]);
  printf("== out\n");
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 53; j++)
      printf("%.17g\n", out[i][j]);
  printf("== p\n");
  for (int i = 0; i < 130; i++)
    printf("%.17g\n", p[i]);
  return 0;
}
"""

NOT_CONSTANT = r"""
void blocks(int n, int nb, double a[static const restrict n])
{
  int rows = n / nb;
  for (int i = 0; i < rows; i++)
    a[i] = a[i] + 1.0;
}

void written(int n, double a[static const restrict n + 1])
{
  for (int i = 0; i < n; i++) {
    int j = i;
    j = j + 1;
    a[j] = a[i] * 2.0;
  }
}
"""


def _record(tmp_path: Path, source: Path, exe: Path, *flags: str) -> list[dict]:
    record = tmp_path / (source.stem + ".json")
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", *flags,
                                            f"-foptimization-record-file={record}"])
    return json.loads(record.read_text())["regions"]


def test_affine_locals_are_optimized_and_correct(tmp_path):
    source = tmp_path / "locals.c"
    source.write_text(PROGRAM)
    exe = tmp_path / "locals"
    regions = _record(tmp_path, source, exe, "-fpencil-thread-min-work=0")
    assert sorted((r["function"], r["status"], r["reason"]) for r in regions) == [
        ("antidiag", "optimized", ""), ("blur", "optimized", ""), ("pairs", "optimized", "")]
    assert {r["function"]: r["parallel_loops"] > 0 for r in regions}["blur"]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])


def test_locals_that_change_or_are_not_affine_are_not_substituted(tmp_path):
    """A bound through a non-affine local makes its loop one opaque statement, run as written;
    a subscript through a local that changes is no affine expression either: the access may
    touch any element of `a` (recorded), so the loop keeps its order."""
    source = tmp_path / "odd.c"
    source.write_text(NOT_CONSTANT)
    regions = _record(tmp_path, source, tmp_path / "odd.o", "-c", "-x", "pencil")
    reasons = {r["function"]: (r["status"], r["reason"]) for r in regions}
    blocks = {r["function"]: r for r in regions}["blocks"]
    assert (blocks["status"], blocks["parallel_loops"]) == ("optimized", 0)
    assert blocks["approximated_accesses"][-1] == ("loop with a non-affine bound at odd.c:5:3: one statement, "
                                                   "its writes may-writes")
    written = {r["function"]: r for r in regions}["written"]
    assert (written["status"], written["parallel_loops"]) == ("optimized", 0)
    assert written["approximated_accesses"] == ["'a[j]' at odd.c:14:5: any element along a non-affine subscript"]
