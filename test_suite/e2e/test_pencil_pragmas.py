# SPDX-License-Identifier: MIT
"""`#pragma pencil independent` and `ivdep` change the generated code (issue 8, item 5).

Each kernel is one the dependence analysis cannot prove parallel (a parametric
offset, `a[i + k] = f(a[i])`), called the way the pragma promises (`k >= n`: no
iteration reads what another writes). With the pragma the record shows the loop
parallel (or vector), the remark says the pragma was used, and the program prints
what gcc -O0 prints, on 1 and 2 threads; without it the loop stays sequential.
Dependences through scalars are kept, and the missed remark says so; a reduction
runs on threads (test_reductions.py), unless its variable is also used otherwise in
the loop; a pragma in a region that falls back is reported as not used.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

MAIN = r"""
#include <stdio.h>
/* plain C99: the kernels are static functions with array parameters */
%(kernel)s
int main(void)
{
  static double a[3000], b[3000][40];
  for (int i = 0; i < 3000; i++) {
    a[i] = 0.25 * i;
    for (int j = 0; j < 40; j++)
      b[i][j] = i - 0.5 * j;
  }
  %(call)s
  printf("== a\n");
  for (int i = 0; i < 3000; i += 7)
    printf("%%.17g\n", a[i]);
  printf("== b\n");
  for (int i = 0; i < 3000; i += 13)
    printf("%%.17g\n", b[i][i %% 40]);
  return 0;
}
"""

SHIFT = r"""
static void shift(int n, int k, double a[static const restrict 3000])
{
%(pragma)s
  for (int i = 0; i < n; i++)
    a[i + k] = a[i] * 2.0 + 1.0;
}
"""

ROWS = r"""
static void rows(int n, int m, int k, double b[static const restrict 3000][40])
{
%(pragma)s
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      b[i + k][j] = b[i][j] * 0.5 + b[i][(j + 1) %% 40];
}
"""

INNER = r"""
static void inner(int n, int m, int k, double b[static const restrict 3000][40])
{
  for (int i = 1; i < n; i++)
%(pragma)s
    for (int j = 0; j < m; j++)
      b[i][j + k] = b[i - 1][j] + b[i][j];
}
"""

SCALAR = r"""
static void scaled(int n, int k, double *a)
{
  double t;
#pragma scop
#pragma pencil independent
  for (int i = 0; i < n; i++) {
    t = a[i] * 3.0;
    a[i + k] = t + 1.0;
  }
#pragma endscop
}
"""

REDUCTION = r"""
static void total(int n, int k, double a[static const restrict 3000], double s[static const restrict 1])
{
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    a[i + k] = a[i] * 0.5;
  }
}
"""


def _program(tmp_path: Path, name: str, kernel: str, call: str, pragma: str) -> Path:
    source = tmp_path / f"{name}.c"
    source.write_text(MAIN % {"kernel": kernel % {"pragma": pragma}, "call": call})
    return source


def _compile(tmp_path: Path, source: Path, *flags: str) -> tuple[Path, dict, str]:
    exe = tmp_path / (source.stem + "-pencilcc")
    record = tmp_path / (source.stem + ".json")
    proc = harness.build(PENCILCC, [source], exe,
                         [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-fpencil-thread-min-work=0",
                          "-Rpass=pencil", "-Rpass-missed=pencil", f"-foptimization-record-file={record}",
                          *flags])
    regions = json.loads(record.read_text())["regions"]
    assert len(regions) == 1, regions
    return exe, regions[0], proc.stderr


def _same_as_gcc(tmp_path: Path, source: Path, exe: Path) -> None:
    reference = harness.gcc_reference(source, tmp_path)
    for threads in (1, 2):
        out = harness.run(exe, env={"PENCILCC_NUM_THREADS": str(threads)})
        assert harness.compare_outputs(reference, out, rtol=0) == [], threads


def test_independent_makes_a_parametric_shift_parallel(tmp_path):
    call = "shift(1000, 1500, a);"
    plain = _program(tmp_path, "plain", SHIFT, call, "")
    _, region, _ = _compile(tmp_path, plain)
    assert (region["status"], region["parallel_loops"], region["pragmas"]) == ("optimized", 0, [])

    source = _program(tmp_path, "shift", SHIFT, call, "#pragma pencil independent")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "optimized" and region["parallel_loops"] == 1
    assert region["pragmas"] == [{"pragma": "independent", "line": 7, "column": 1, "used": True,
                                  "detail": "dependences carried by the loop ignored", "missed": ""}]
    assert "shift.c:7:1: remark: '#pragma pencil independent' used: dependences carried by the loop " \
           "ignored [-Rpass=pencil]" in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_independent_outer_loop_of_a_nest(tmp_path):
    call = "rows(1000, 40, 1200, b);"
    plain = _program(tmp_path, "plain", ROWS, call, "")
    _, region, _ = _compile(tmp_path, plain)
    assert region["parallel_loops"] == 0
    source = _program(tmp_path, "rows", ROWS, call, "#pragma pencil independent")
    exe, region, _ = _compile(tmp_path, source)
    assert region["status"] == "optimized" and region["parallel_loops"] >= 1
    assert [p["used"] for p in region["pragmas"]] == [True]
    _same_as_gcc(tmp_path, source, exe)


def test_ivdep_makes_an_inner_loop_a_vector_loop_only(tmp_path):
    call = "inner(2000, 20, 20, b);"
    plain = _program(tmp_path, "plain", INNER, call, "")
    _, before, _ = _compile(tmp_path, plain)
    source = _program(tmp_path, "inner", INNER, call, "#pragma pencil ivdep")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "optimized"
    assert region["vector_loops"] == before["vector_loops"] + 1
    assert region["parallel_loops"] == before["parallel_loops"]      # no threads from ivdep
    assert region["pragmas"] == [{"pragma": "ivdep", "line": 8, "column": 1, "used": True,
                                  "detail": "the loop's carried dependences ignored when choosing vector loops",
                                  "missed": ""}]
    _same_as_gcc(tmp_path, source, exe)


def test_dependences_through_a_shared_scalar_are_kept(tmp_path):
    source = _program(tmp_path, "scaled", SCALAR, "scaled(1000, 1500, a);", "")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "optimized" and region["parallel_loops"] == 0
    [use] = region["pragmas"]
    # Every pair of iterations writes `t`: nothing is left to remove.
    assert (use["used"], use["missed"]) == (
        False, "dependences through 't' kept: the pragma does not privatise scalars or region-local variables")
    assert "scaled.c:9:1: remark: '#pragma pencil independent' not used: dependences through 't' kept" \
        in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_reduction_runs_on_threads(tmp_path):
    source = _program(tmp_path, "total", REDUCTION, "{ double s[1] = {0}; total(1000, 1500, a, s); "
                                                    "a[0] = s[0]; }", "")
    exe, region, stderr = _compile(tmp_path, source)
    # The sum of multiples of 1/8 is exact in any order (test_reductions.py has the other cases).
    assert region["status"] == "optimized" and region["parallel_loops"] >= 1
    [use] = region["pragmas"]
    assert use["used"] and use["missed"] == ""
    assert use["reductions"] == [{"variable": "s", "operator": "+", "threads": True}]
    assert "remark: '#pragma pencil independent' used: dependences carried by the loop ignored; reduction of " \
        "'s' run on threads" in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_reduction_variable_read_otherwise_is_kept_in_order(tmp_path):
    kernel = REDUCTION.replace("a[i + k] = a[i] * 0.5;", "a[i + k] = a[i] * 0.5 + s[0];")
    source = _program(tmp_path, "kept", kernel, "{ double s[1] = {0}; total(1000, 1500, a, s); a[0] = s[0]; }", "")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "optimized"
    [use] = region["pragmas"]
    assert use["used"] and use["missed"].startswith("reduction variable 's' kept in order: the statement at line")
    assert "remark: '#pragma pencil independent' partly used: reduction variable 's' kept in order" in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_pragma_in_a_region_that_falls_back_is_reported_unused(tmp_path):
    kernel = r"""
static void odd(int n, double a[static const restrict 3000])
{
#pragma pencil independent
  for (int i = 0; i < (n * n) %% 3000; i++) {
    a[i] = a[i] + 1.0;
    if (a[i] > 1e300)
      return;
  }
}
"""
    source = _program(tmp_path, "odd", kernel, "odd(50, a);", "")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "fallback"
    [use] = region["pragmas"]
    assert not use["used"] and use["missed"].startswith("the region was not optimized: ")
    assert "odd.c:7:1: remark: '#pragma pencil independent' not used: the region was not optimized: " in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_pragma_on_a_loop_run_as_one_statement_is_reported_unused(tmp_path):
    # The loop's bound is not affine: the loop is one opaque statement of an optimized region,
    # run as written, so the pragma changes nothing, and the remark says why.
    kernel = r"""
static void odd(int n, double a[static const restrict 3000])
{
#pragma pencil independent
  for (int i = 0; i < (n * n) %% 3000; i++)
    a[i] = a[i] + 1.0;
}
"""
    source = _program(tmp_path, "odd", kernel, "odd(50, a);", "")
    exe, region, stderr = _compile(tmp_path, source)
    assert region["status"] == "optimized"
    [use] = region["pragmas"]
    assert not use["used"]
    assert use["missed"] == ("the loop is part of a loop with a non-affine bound at odd.c:8:3, which runs whole "
                             "as one statement")
    assert "odd.c:7:1: remark: '#pragma pencil independent' not used: the loop is part of a loop" in stderr
    _same_as_gcc(tmp_path, source, exe)
