# SPDX-License-Identifier: MIT
"""Data-dependent `if`s are guarded statements, and their regions are optimized (issue 8, item 3).

An `if` whose condition reads array values (or any non-affine value) and whose
branches are expression statements becomes one statement of the model: it reads
what its condition and branches read, and its writes are may-writes
(clangpass.poly.extract, as pet treats dynamic conditions). Each program is built by
pencilcc -O3 and gcc -O0 and must print the same, on 1 and 2 threads; the record
must say every region was optimized. An `if` around a loop still falls back, naming it.
"""
from __future__ import annotations

import json
import sys

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PROGRAM = r"""
#include <stdio.h>
#include <pencil.h>

/* Select by sign of a product, with an else branch. */
void select_sign(int n, const double x[static const restrict n], const double y[static const restrict n],
                 double z[static const restrict n]) PENCIL;
void select_sign(int n, const double x[static const restrict n], const double y[static const restrict n],
                 double z[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    if (x[i] * y[i] > 0.0)
      z[i] = x[i];
    else
      z[i] = -y[i];
  }
}

/* Count and clip the elements of each row above a threshold: a may-written accumulator. */
void clip_rows(int n, int m, double A[static const restrict n][m], int count[static const restrict n], double t) PENCIL;
void clip_rows(int n, int m, double A[static const restrict n][m], int count[static const restrict n], double t)
{
  for (int i = 0; i < n; i++) {
    count[i] = 0;
    for (int j = 0; j < m; j++)
      if (A[i][j] > t) {
        count[i] += 1;
        A[i][j] = t;
      }
  }
}

/* Dilation with a structuring element: nested data-dependent conditions. */
void dilate(int h, int w, const int se[static const restrict 3][3], const double in[static const restrict h][w],
            double out[static const restrict h][w]) PENCIL;
void dilate(int h, int w, const int se[static const restrict 3][3], const double in[static const restrict h][w],
            double out[static const restrict h][w])
{
  for (int i = 1; i < h - 1; i++)
    for (int j = 1; j < w - 1; j++) {
      out[i][j] = in[i][j];
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
          if (se[a][b] != 0)
            if (in[i + a - 1][j + b - 1] > out[i][j])
              out[i][j] = in[i + a - 1][j + b - 1];
    }
}

int main(void)
{
  static double x[500], y[500], z[500], A[40][60], in[30][50], out[30][50];
  static int count[40];
  const int se[3][3] = {{0, 1, 0}, {1, 1, 1}, {0, 1, 0}};
  for (int i = 0; i < 500; i++) {
    x[i] = (i % 11) - 5.0;
    y[i] = (i % 7) - 3.5;
  }
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 60; j++)
      A[i][j] = ((i * 31 + j * 17) % 23) * 0.5;
  for (int i = 0; i < 30; i++)
    for (int j = 0; j < 50; j++)
      in[i][j] = (i * 13 + j * 7) % 19;
  select_sign(500, x, y, z);
  clip_rows(40, 60, A, count, 6.0);
  dilate(30, 50, se, in, out);
  printf("== z\n");
  for (int i = 0; i < 500; i++)
    printf("%.17g\n", z[i]);
  printf("== A\n");
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 60; j++)
      printf("%.17g\n", A[i][j]);
  printf("== count\n");
  for (int i = 0; i < 40; i++)
    printf("%d\n", count[i]);
  printf("== out\n");
  for (int i = 1; i < 29; i++)
    for (int j = 1; j < 49; j++)
      printf("%.17g\n", out[i][j]);
  return 0;
}
"""


def test_data_dependent_ifs_are_optimized_and_correct(tmp_path):
    source = tmp_path / "dynamic.c"
    source.write_text(PROGRAM)
    exe, record = tmp_path / "dynamic", tmp_path / "dynamic.json"
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-fpencil-thread-min-work=0",
                                            f"-foptimization-record-file={record}"])
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    assert {name: r["status"] for name, r in regions.items()} == {
        "select_sign": "optimized", "clip_rows": "optimized", "dilate": "optimized"}
    # The guarded statements do not keep the outer loops from running on threads.
    assert all(r["parallel_loops"] >= 1 for r in regions.values()), regions
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])


def test_data_dependent_if_around_a_loop_is_one_opaque_statement(tmp_path):
    # The `if` and its loop run whole, as written; its writes are may-writes of row i only.
    source = tmp_path / "loop.c"
    source.write_text("void k(int n, double a[static const restrict n][n])\n{\n"
                      "  for (int i = 0; i < n; i++)\n    if (a[i][i] > 0.0)\n"
                      "      for (int j = 0; j < n; j++)\n        a[i][j] = 0.0;\n}\n")
    record = tmp_path / "loop.json"
    harness.build(PENCILCC, [source], tmp_path / "loop.o",
                  ["-x", "pencil", "-c", "-O3", "-fpencil-thread-min-work=0", f"-foptimization-record-file={record}"])
    [region] = json.loads(record.read_text())["regions"]
    assert (region["status"], region["parallel_loops"]) == ("optimized", 1)
    assert region["approximated_accesses"] == [
        "'a[i][j]' at loop.c:6:9: any element along a non-affine subscript",
        "'if' with the non-affine condition 'a[i][i] > 0.0' at loop.c:4:9: one statement, its writes may-writes"]


def test_data_dependent_if_around_a_return_falls_back(tmp_path):
    source = tmp_path / "ret.c"
    source.write_text("void k(int n, double a[static const restrict n][n])\n{\n"
                      "  for (int i = 0; i < n; i++)\n    if (a[i][i] > 0.0)\n"
                      "      return;\n}\n")
    record = tmp_path / "ret.json"
    harness.build(PENCILCC, [source], tmp_path / "ret.o",
                  ["-x", "pencil", "-c", "-O3", f"-foptimization-record-file={record}"])
    [region] = json.loads(record.read_text())["regions"]
    assert region["status"] == "fallback"
    assert region["reason"].startswith("non-affine condition 'a[i][i] > 0.0'")
    assert region["reason"].endswith("around 'return' statement at ret.c:5:7")
