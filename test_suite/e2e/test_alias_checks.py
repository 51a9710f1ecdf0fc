# SPDX-License-Identifier: MIT
"""Regions over plain pointers and array parameters called with overlapping arrays (issue 7).

Each program is built by gcc -O0 and by pencilcc -O3, run with 1 and 2 threads, and
must print the same arrays. Which version of a region ran is visible through an
iterator declared outside the `#pragma scop`: the original loop leaves it at its
final value, the outlined call leaves it untouched (its value after the region is
unspecified in PENCIL, so gcc's build is not compared on those `path` lines).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.random.differential import PENCILCC as RANDOM_PENCILCC, check_seed
from test_suite.random.generator import generate

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

SHIFT_1D = r"""
#include <stdio.h>

void k(int n, double *a, double *b)
{
  int i = -1;
#pragma scop
  for (i = 1; i < n; i++)
    a[i] = b[i - 1] + 1;
#pragma endscop
  printf("path %s\n", i == -1 ? "optimized" : "original");
}

static void show(const char *name, const double *v, int n)
{
  printf("== %s\n", name);
  for (int i = 0; i < n; i++)
    printf("%.17g\n", v[i]);
}

int main(void)
{
  double x[40] = {0}, y[40] = {0}, z[40], w[60] = {0};
  for (int i = 0; i < 40; i++)
    z[i] = i * 0.5;
  k(20, x + 1, x);     /* a[i] is b[i + 1]: each value feeds the next iteration */
  k(20, y, z);         /* distinct arrays */
  k(20, x, x + 5);     /* a lags b: the original reads values it has not overwritten yet */
  k(20, w + 30, w);    /* one array, disjoint halves: the check passes */
  show("x", x, 40);
  show("y", y, 40);
  show("w", w, 60);
  return 0;
}
"""

SHIFT_2D = r"""
#include <stdio.h>

void k2(int n, int m, double A[n][m], double B[n][m])
{
  int i = -1, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = B[i][j] * 0.5 + 1;
#pragma endscop
  printf("path %s\n", i == -1 ? "optimized" : "original");
}

int main(void)
{
  static double X[14][8], Y[14][8];
  for (int i = 0; i < 14; i++)
    for (int j = 0; j < 8; j++) {
      X[i][j] = i + 0.25 * j;
      Y[i][j] = i - 0.5 * j;
    }
  k2(12, 8, X, X);                           /* the same rows: each element reads itself */
  k2(12, 8, (double (*)[8])&X[0][1], X);     /* one element apart: values flow along the rows */
  k2(12, 8, (double (*)[8])X[1], X);         /* A's row i is B's row i + 1: values flow down */
  k2(6, 8, (double (*)[8])Y[7], Y);          /* rows 7..12 and 0..5 of one array: disjoint */
  printf("== X\n");
  for (int i = 0; i < 14; i++)
    for (int j = 0; j < 8; j++)
      printf("%.17g\n", X[i][j]);
  printf("== Y\n");
  for (int i = 0; i < 14; i++)
    for (int j = 0; j < 8; j++)
      printf("%.17g\n", Y[i][j]);
  return 0;
}
"""

PENCIL_KINDS = r"""
#include <stdio.h>
#include <pencil.h>

void shift(int n, double *a, const double *b) PENCIL;
void shift(int n, double *a, const double *b)
{
  for (int i = 0; i < n; i++)
    a[i] = b[i] * 0.5 + 1;
}

void block(int n, double *a, double *b)
{
#pragma pencil region
  {
    for (int i = 0; i < n; i++)
      a[i] = b[i] * 2 - 1;
  }
}

int main(void)
{
  double x[40] = {0}, y[40] = {0}, z[40];
  for (int i = 0; i < 40; i++)
    z[i] = i;
  shift(20, x + 1, x);
  shift(20, y, z);
  block(30, x + 3, x);
  block(20, y + 20, y);
  printf("== x\n");
  for (int i = 0; i < 40; i++)
    printf("%.17g\n", x[i]);
  printf("== y\n");
  for (int i = 0; i < 40; i++)
    printf("%.17g\n", y[i]);
  return 0;
}
"""


def _split(output: str) -> tuple[list[str], str]:
    """The `path` lines and the rest (the arrays) of a program's output."""
    lines = output.splitlines(keepends=True)
    return [line.split()[1] for line in lines if line.startswith("path ")], \
        "".join(line for line in lines if not line.startswith("path "))


def _reference(tmp_path: Path, source: Path) -> str:
    exe = tmp_path / "gcc-O0"
    harness.build(["gcc"], [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
    return _split(harness.run(exe))[1]


def _pencilcc(tmp_path: Path, source: Path, *flags: str) -> tuple[Path, list[dict], str]:
    exe = tmp_path / "pencilcc"
    record = tmp_path / "record.json"
    proc = harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", *flags,
                                                   f"-foptimization-record-file={record}"])
    return exe, json.loads(record.read_text())["regions"], proc.stderr


def _write(tmp_path: Path, text: str, name: str) -> Path:
    source = tmp_path / name
    source.write_text(text)
    return source


def _assert_matches(reference: str, exe: Path, expected_paths: list[str]) -> None:
    for threads in (1, 2):
        paths, arrays = _split(harness.run(exe, env={"PENCILCC_NUM_THREADS": threads}))
        assert paths == expected_paths, threads
        assert harness.compare_outputs(reference, arrays, rtol=0) == [], threads


def test_overlapping_pointer_arguments_run_the_original_code(tmp_path):
    source = _write(tmp_path, SHIFT_1D, "shift.c")
    exe, regions, stderr = _pencilcc(tmp_path, source, "-Rpass=pencil")
    assert [(r["function"], r["status"], r["alias_checks"]) for r in regions] == \
        [("k", "optimized", [["a", "b"]])]
    assert ("remark: region in 'k': the optimized code runs only when arrays 'a' and 'b' do not "
            "overlap (checked at run time); otherwise the original code runs [-Rpass=pencil]") in stderr
    _assert_matches(_reference(tmp_path, source), exe, ["original", "optimized", "original", "optimized"])


def test_overlapping_rows_of_vla_parameters_run_the_original_code(tmp_path):
    source = _write(tmp_path, SHIFT_2D, "rows.c")
    exe, regions, _ = _pencilcc(tmp_path, source)
    assert [(r["status"], r["alias_checks"]) for r in regions] == [("optimized", [["A", "B"]])]
    _assert_matches(_reference(tmp_path, source), exe, ["original", "original", "original", "optimized"])


def test_pencil_function_and_pencil_region_are_versioned_too(tmp_path):
    source = _write(tmp_path, PENCIL_KINDS, "kinds.c")
    exe, regions, _ = _pencilcc(tmp_path, source)
    assert sorted((r["function"], r["kind"], r["status"], r["alias_checks"]) for r in regions) == \
        [("block", "pencil", "optimized", [["a", "b"]]), ("shift", "function", "optimized", [["a", "b"]])]
    reference = _reference(tmp_path, source)
    for threads in (1, 2):
        assert harness.compare_outputs(reference, harness.run(exe, env={"PENCILCC_NUM_THREADS": threads}),
                                       rtol=0) == []


def test_disabling_the_check_keeps_the_region_with_the_host_compiler(tmp_path):
    source = _write(tmp_path, SHIFT_1D, "shift.c")
    exe, regions, stderr = _pencilcc(tmp_path, source, "--disable-pass=alias-check")
    assert [(r["status"], r["reason"], r["alias_checks"]) for r in regions] == [
        ("fallback", "arrays 'a' and 'b' may overlap and pass 'alias-check' (their run-time check) is disabled",
         [])]
    assert "[-Wpencil-pass-disabled]" in stderr
    _assert_matches(_reference(tmp_path, source), exe, ["original"] * 4)


@pytest.mark.parametrize("source, checked", [
    (harness.POLYBENCH_DIR / "gemm.c", True),       # array parameters: checked, then noalias
    (harness.PENCIL_DIR / "gemm.c", False),         # pencil_array (restrict): noalias, no check
])
def test_outlined_array_parameters_are_noalias(tmp_path, source, checked):
    out = tmp_path / "gemm.ll"
    record = tmp_path / "record.json"
    subprocess.run([*PENCILCC, *harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-S", "-emit-llvm", str(source),
                    "-o", str(out), f"-foptimization-record-file={record}"], check=True, capture_output=True)
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized"
    assert bool(region["alias_checks"]) == checked
    definition = next(line for line in out.read_text().splitlines()
                      if line.startswith("define") and region["symbol"] + "(" in line)
    assert definition.count("ptr noalias") == 3, definition


def test_random_programs_with_overlapping_arguments_match_gcc(tmp_path):
    seeds = [s for s in range(100) if generate(s).program.overlaps]
    assert len(seeds) >= 2       # the default generator calls some kernels with overlapping arrays
    for seed in seeds:
        (_, passed), = generate(seed).program.overlaps
        arguments = generate(seed).source.split("  kernel(")[1].split(");")[0].split(", ")
        assert arguments.count(passed) == 2, arguments
        outcome = check_seed(seed, tmp_path, RANDOM_PENCILCC)
        assert outcome.passed and not outcome.fell_back, outcome.summary()
