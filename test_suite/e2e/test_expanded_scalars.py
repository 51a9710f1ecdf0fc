# SPDX-License-Identifier: MIT
"""Pass `expand-scalars` (one element per column for a recurrence's scalar state) against gcc -O0.

deriche's column filters carry their state (`tm1`, `ym1`, `ym2`, `tp1`, ...) in scalars down each
column; expanded, the columns' chains run row by row with the column loop vectorised. The kernel is
built at sizes with partial tiles and at tiny ones, run with 1, 2 and 3 threads (and every parallel
loop forced onto threads), and must print what gcc -O0 prints, bit for bit. A program of three
recurrences checks what is expanded and what is not: a chain down the columns (expanded), a chain
along the rows (its data is contiguous already: kept) and a chain that goes on from one column to
the next (its scalar is no per-column state: kept); it is also called with no rows and more columns
than the arrays have, which the run-time check sends to the original code.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_suite.e2e import harness

THREADS = ("1", "2", "3")
FORCE_THREADS = ("-fpencil-thread-min-work=0", "-fpencil-thread-start-work=0")
DERICHE_SIZES = (("W=72", "H=54"), ("W=37", "H=300"), ("W=1", "H=1"), ("W=2", "H=3"), ("W=5", "H=2"))
DERICHE_EXPANDED = ["tm1 -> __pencil_expanded_tm1[j]", "tp1 -> __pencil_expanded_tp1[j]",
                    "tp2 -> __pencil_expanded_tp2[j]", "ym1 -> __pencil_expanded_ym1[j]",
                    "ym2 -> __pencil_expanded_ym2[j]", "yp1 -> __pencil_expanded_yp1[j]",
                    "yp2 -> __pencil_expanded_yp2[j]"]


@pytest.mark.parametrize("sizes", DERICHE_SIZES, ids=["-".join(s) for s in DERICHE_SIZES])
def test_deriche_matches_gcc(tmp_path, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "deriche.c", tmp_path / "ref", sizes)
    for flags in ((), FORCE_THREADS):
        exe, regions = harness.build_polybench(tmp_path, "deriche", sizes, flags)
        assert [r["status"] for r in regions] == ["optimized"], [r["reason"] for r in regions]
        assert regions[0]["expanded_scalars"] == DERICHE_EXPANDED
        for threads in THREADS:
            got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
            assert harness.compare_outputs(reference, got, rtol=0) == [], f"{flags} {threads} threads"


def test_deriche_column_filters_run_along_rows(tmp_path):
    """The column filters' column loop is innermost and vectorised once their scalars are expanded;
    disabled, the pass leaves each column's chain whole (the source's column walk)."""
    out = tmp_path / "deriche"
    source = harness.POLYBENCH_DIR / "deriche.c"
    for flags, vector_loops in (((), 4), (("--disable-pass=expand-scalars",), 2)):
        proc, regions = harness.build_recorded([source], out, ["-O3", "-c", *flags])
        assert proc.returncode == 0, proc.stderr
        region = regions["kernel_deriche"]
        assert region["vector_loops"] == vector_loops, region["reason"]
        assert bool(region["expanded_scalars"]) == (not flags)


RECURRENCES = r"""
#include <stdio.h>
#define N 23
#define M 41

static void columns(int n, int m, double A[N][M], double B[N][M])
{
  int i, j;
  double s;
#pragma scop
  for (j = 0; j < m; j++) {
    s = 0.0;
    for (i = 0; i < n; i++) {
      B[i][j] = 0.5 * s + A[i][j];
      s = B[i][j];
    }
  }
#pragma endscop
}

static void rows(int n, int m, double A[N][M], double B[N][M])
{
  int i, j;
  double t;
#pragma scop
  for (i = 0; i < n; i++) {
    t = 0.0;
    for (j = 0; j < m; j++) {
      B[i][j] = 0.25 * t + A[i][j];
      t = B[i][j];
    }
  }
#pragma endscop
}

static void carried(int n, int m, double A[N][M], double B[N][M])
{
  int i, j;
  double u;
#pragma scop
  u = 1.0;
  for (j = 0; j < m; j++)
    for (i = 0; i < n; i++) {
      B[i][j] = 0.75 * u + A[i][j];
      u = B[i][j];
    }
#pragma endscop
}

static double A[N][M], B[N][M];

static void show(const char *name)
{
  int i, j;
  printf("== %s\n", name);
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      printf("%.17g\n", B[i][j]);
}

int main(void)
{
  int i, j;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      A[i][j] = (double)((7 * i + 13 * j) % 17) / 16.0;
  columns(N, M, A, B);
  show("columns");
  rows(N, M, A, B);
  show("rows");
  carried(N, M, A, B);
  show("carried");
  columns(0, M + 7, A, B);      /* no rows, more columns than B has: the original code runs */
  show("columns, no rows");
  return 0;
}
"""


def test_what_is_expanded(tmp_path):
    source = tmp_path / "recurrences.c"
    source.write_text(RECURRENCES)
    exe = tmp_path / "recurrences"
    proc, regions = harness.build_recorded([source], exe, ["-O3", "-std=c99"])
    assert proc.returncode == 0, proc.stderr
    assert regions["columns"]["expanded_scalars"] == ["s -> __pencil_expanded_s[j]"]
    assert regions["rows"]["expanded_scalars"] == []
    assert regions["carried"]["expanded_scalars"] == []
    assert all(r["status"] == "optimized" for r in regions.values()), {k: r["reason"] for k, r in regions.items()}
    harness.assert_matches_gcc_O0(source, exe, tmp_path, ["-std=c99"], threads=(1, 2, 3))
