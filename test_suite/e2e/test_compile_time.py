# SPDX-License-Identifier: MIT
"""Compile time bounded by design (issue 28, item 5).

A generated 1,000-statement region (test_suite.random.large's swim-like shape: a time loop
around three nests of 333 three-address statements, so every statement has three iterators
and index-set-split examines all of them) compiles `optimized` at the default flags, with a
deterministic outcome (no time limit involved), in under 30 CPU seconds of the whole
compile (the pencilcc process and its children: about 20 s on the development machine,
where it used to fall back because index-set-split coalesced the whole region's
dependences at once), and prints what gcc -O0 prints. The test as a whole takes well
under 60 s of CPU time.

Three-address variants written the thesis's way (temporaries declared at function scope,
clangpass.regions makes them region-local) of a time-iterated 3-D heat stencil and of a
quasi-affine kernel (2x downsampling, `i / 2`, `i % 2` and a wrap-around `%` in subscripts)
are optimized at the default flags, within the 10 s analysis limit by a wide margin and
without it deciding anything (`nondeterministic` empty), and print what gcc -O0 prints on
one and two threads.
"""
from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.random.large import swim_like

PENCILCC = [sys.executable, "-m", "clangpass"]
CPU_SECONDS = 30
VARIANT_CPU_SECONDS = 10

HEAT_3D_3AC = r"""
#include <stdio.h>
#define N 14
#define TSTEPS 4
static void heat(int tsteps, int n, double A[n][n][n], double B[n][n][n])
{
  int t, i, j, k;
  double t1, t2, t3, t4, t5, t6, t7, t8, t9, t10;
#pragma scop
  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++) {
          t1 = A[i + 1][j][k] - 2.0 * A[i][j][k];
          t2 = t1 + A[i - 1][j][k];
          t3 = A[i][j + 1][k] - 2.0 * A[i][j][k];
          t4 = t3 + A[i][j - 1][k];
          t5 = A[i][j][k + 1] - 2.0 * A[i][j][k];
          t6 = t5 + A[i][j][k - 1];
          t7 = 0.125 * t2;
          t8 = t7 + 0.125 * t4;
          t9 = t8 + 0.125 * t6;
          B[i][j][k] = t9 + A[i][j][k];
        }
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        for (k = 1; k < n - 1; k++) {
          t1 = B[i + 1][j][k] - 2.0 * B[i][j][k];
          t2 = t1 + B[i - 1][j][k];
          t3 = B[i][j + 1][k] - 2.0 * B[i][j][k];
          t4 = t3 + B[i][j - 1][k];
          t5 = B[i][j][k + 1] - 2.0 * B[i][j][k];
          t6 = t5 + B[i][j][k - 1];
          t7 = 0.125 * t2;
          t8 = t7 + 0.125 * t4;
          t10 = t8 + 0.125 * t6;
          A[i][j][k] = t10 + B[i][j][k];
        }
  }
#pragma endscop
}
static double A[N][N][N], B[N][N][N];
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        A[i][j][k] = B[i][j][k] = (double)(i + j + (N - k)) * 10 / N;
  heat(TSTEPS, N, A, B);
  printf("== A\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        printf("%.17g\n", A[i][j][k]);
  return 0;
}
"""

QUASI_AFFINE_3AC = r"""
#include <stdio.h>
#define N 40
/* Quasi-affine: a 2x downsampling with a 3-tap filter and a parity-dependent weight,
   written in three-address form with the temporaries at function scope. */
static void down(int n, double A[n][n], double B[n / 2][n / 2], double C[n][n])
{
  int i, j;
  double t1, t2, t3, t4, t5;
#pragma scop
  for (i = 0; i < n / 2; i++)
    for (j = 1; j < n / 2 - 1; j++) {
      t1 = A[2 * i][2 * j - 1];
      t2 = A[2 * i][2 * j];
      t3 = A[2 * i][2 * j + 1];
      t4 = t1 + 2.0 * t2;
      t5 = t4 + t3;
      B[i][j] = 0.25 * t5;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      t1 = B[i / 2][j / 2];
      t2 = A[i][(j + n - 1) % n];
      t3 = t1 * (1 + i % 2);
      C[i][j] = t3 + 0.5 * t2;
    }
#pragma endscop
}
static double A[N][N], B[N / 2][N / 2], C[N][N];
int main(void)
{
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (double)((i * 7 + j * 3) % 11) / 11.0;
  down(N, A, B, C);
  printf("== B\n");
  for (int i = 0; i < N / 2; i++)
    for (int j = 0; j < N / 2; j++)
      printf("%.17g\n", B[i][j]);
  printf("== C\n");
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      printf("%.17g\n", C[i][j]);
  return 0;
}
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def test_a_thousand_statement_swim_like_region_is_optimized_at_default_flags(tmp_path: Path) -> None:
    source = tmp_path / "swim.c"
    source.write_text(swim_like(1000, size=12, steps=2))
    record = tmp_path / "record.json"
    before = _children_cpu()
    harness.build(PENCILCC, [source], tmp_path / "swim", [*harness.KERNEL_CFLAGS, "-O3",
                                                          f"-foptimization-record-file={record}"],
                  env={"PENCILCC_NO_CACHE": "1"}, timeout=900)
    seconds = _children_cpu() - before
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized", region["reason"]
    assert region["statements"] >= 999 and region["nondeterministic"] == ""
    assert "index-set" not in region["reason"], region["reason"]
    assert seconds < CPU_SECONDS, f"{seconds:.1f} CPU seconds"
    reference = harness.gcc_reference(source, tmp_path / "ref")
    assert harness.compare_outputs(reference, harness.run(tmp_path / "swim"), rtol=1e-9) == []


@pytest.mark.parametrize("name, program", [("heat3d_3ac", HEAT_3D_3AC), ("quasi_affine_3ac", QUASI_AFFINE_3AC)])
def test_thesis_style_three_address_variants_are_optimized(tmp_path: Path, name: str, program: str) -> None:
    source = tmp_path / f"{name}.c"
    source.write_text(program)
    record = tmp_path / "record.json"
    before = _children_cpu()
    harness.build(PENCILCC, [source], tmp_path / name, [*harness.KERNEL_CFLAGS, "-O3",
                                                        f"-foptimization-record-file={record}"],
                  env={"PENCILCC_NO_CACHE": "1"}, timeout=600)
    seconds = _children_cpu() - before
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized" and region["nondeterministic"] == "", region["reason"]
    assert len(region["local_variables"]) >= 5, region["local_variables"]   # the temporaries are the region's
    assert region["parallel_loops"] >= 1
    assert seconds < VARIANT_CPU_SECONDS, f"{seconds:.1f} CPU seconds"
    reference = harness.gcc_reference(source, tmp_path / "ref")
    for threads in ("1", "2"):
        got = harness.run(tmp_path / name, env={"OMP_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == []
