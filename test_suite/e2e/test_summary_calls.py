# SPDX-License-Identifier: MIT
"""Calls the model describes by their callee's accesses (issue 8, item 1; clangpass.poly.calls).

A call of a function with a summary (`pencil_access`), of a PENCIL function that
returns a value, or of a PENCIL function only declared here is one statement whose
accesses come from the summary's `__pencil_use`/`__pencil_def`, the callee's body,
or (declared only) every element of its array arguments. The region is optimized;
the real callee runs. Each program is built by pencilcc -O3 and by gcc -O0 and
must print the same on 1 and 2 threads (and on the OpenCL target, where a loop
that calls a function stays on the host).
"""
from __future__ import annotations

import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]
THESIS = harness.POLYBENCH_DIR.parent / "thesis"

MAIN = r"""#include <stdio.h>
#include <pencil.h>

/* Smooths row i of A in place (written in C elsewhere); the summary says which elements. */
void smooth_row_summary(int n, int m, int i, double A[pencil_array n][m]);
void smooth_row(int n, int m, int i, double A[pencil_array n][m]) ACCESS(smooth_row_summary);
void smooth_row_summary(int n, int m, int i, double A[pencil_array n][m])
{
  for (int j = 0; j < m; j++)
    USE(A[i][j]);
  for (int j = 1; j < m - 1; j++)
    DEF(A[i][j]);
}

/* Counts v in hist with an atomic increment: may read and write any bin. */
void bump_summary(int b, int hist[pencil_array b], int v)
{
  if (MAYBE) {
    USE(hist);
    DEF(hist);
  }
}
void bump(int b, int hist[pencil_array b], int v) ACCESS(bump_summary);

/* A PENCIL function defined elsewhere: only its declaration is seen here. */
void scale_into(int m, const double x[pencil_array m], double y[pencil_array m], double f);

/* A PENCIL function returning a value, used in expressions. */
int weight(int i, int m, const double r[pencil_array m]) PENCIL;
int weight(int i, int m, const double r[pencil_array m])
{
  double s = 0.0;
  for (int j = 0; j < m; j++)
    s += r[j];
  return 3 * i + (s > 10.0);
}

void rows(int n, int m, double A[pencil_array n][m], double B[pencil_array n][m], int b,
          int hist[pencil_array b], int W[pencil_array n]) PENCIL;
void rows(int n, int m, double A[pencil_array n][m], double B[pencil_array n][m], int b,
          int hist[pencil_array b], int W[pencil_array n])
{
  for (int i = 0; i < n; i++)
    smooth_row(n, m, i, A);
  for (int i = 0; i < n; i++)
    scale_into(m, A[i], B[i], 0.5 + i);
#pragma pencil independent
  for (int i = 0; i < n; i++)
    bump(b, hist, W[i] % b);
  for (int i = 0; i < n; i++)
    W[i] = weight(i, m, B[i]) + W[i];
}

int main(void)
{
  static double A[60][50], B[60][50];
  static int hist[7], W[60];
  for (int i = 0; i < 60; i++) {
    W[i] = i * 5 % 13;
    for (int j = 0; j < 50; j++)
      A[i][j] = (i * j % 11) * 0.25 - 1.0;
  }
  rows(60, 50, A, B, 7, hist, W);
  printf("== A B\n");
  for (int i = 0; i < 60; i++)
    for (int j = 0; j < 50; j += 3)
      printf("%.17g\n%.17g\n", A[i][j], B[i][j]);
  printf("== hist W\n");
  for (int k = 0; k < 7; k++)
    printf("%d\n", hist[k]);
  for (int i = 0; i < 60; i++)
    printf("%d\n", W[i]);
  return 0;
}
"""

EXTERNAL = r"""/* The C implementations of the functions main.c only declares. */
void smooth_row(int n, int m, int i, double *A)
{
  double *r = A + (long)i * m;
  double prev = r[0];
  for (int j = 1; j < m - 1; j++) {
    double cur = r[j];
    r[j] = (prev + cur + r[j + 1]) / 3.0;
    prev = cur;
  }
}

void bump(int b, int *hist, int v)
{
  __atomic_fetch_add(&hist[v], 1, __ATOMIC_RELAXED);
}

void scale_into(int m, const double *x, double *y, double f)
{
  for (int j = 0; j < m; j++)
    y[j] = x[j] * f + j;
}
"""


def _build_both(tmp_path, flags=()):
    main, ext = tmp_path / "main.c", tmp_path / "ext.c"
    main.write_text(MAIN)
    ext.write_text(EXTERNAL)
    exe = tmp_path / "prog"
    _, regions = harness.build_recorded([main, ext], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", *flags,
                                                           "-fpencil-thread-min-work=0"])
    reference = tmp_path / "prog.gcc-O0"
    harness.build(["gcc"], [main, ext], reference, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
    return exe, harness.run(reference), regions


def test_calls_with_summaries_declarations_and_results_are_optimized_and_correct(tmp_path):
    exe, expected, regions = _build_both(tmp_path)
    assert {name: r["status"] for name, r in regions.items()} == {"weight": "optimized", "rows": "optimized"}
    notes = regions["rows"]["approximated_accesses"]
    assert any("smooth_row(n, m, i, A)" in n and "summary 'smooth_row_summary'" in n for n in notes)
    assert any("bump(" in n and "summary 'bump_summary'" in n for n in notes)
    assert any("scale_into(" in n and "its declaration" in n for n in notes)
    # Rows are independent: the summary names row i only, the declared function gets rows
    # A[i] and B[i], the `independent` loop's atomic increments commute.
    assert regions["rows"]["parallel_loops"] >= 1
    for threads in (1, 2):
        out = harness.run(exe, env={"PENCILCC_NUM_THREADS": str(threads)})
        assert harness.compare_outputs(expected, out, rtol=0) == [], threads


def test_calls_on_the_opencl_target_run_on_the_host(tmp_path):
    pyopencl = pytest.importorskip("pyopencl")
    try:
        platforms = pyopencl.get_platforms()
    except Exception:
        platforms = []
    if not platforms:
        pytest.skip("no OpenCL platform (install PoCL: .ci/run)")
    exe, expected, regions = _build_both(tmp_path, ["-fpencil-target=opencl"])
    assert regions["rows"]["status"] == "optimized"
    assert any("a call to 'smooth_row'" in why for why in regions["rows"]["mapping"]["host_loops"])
    assert harness.compare_outputs(expected, harness.run(exe), rtol=0) == []


def _record_of(tmp_path, text, name="t.c"):
    source = tmp_path / name
    source.write_text("#include <pencil.h>\n" + text)
    return harness.build_recorded([source], tmp_path / "t.o", ["-c", "-O3", *INCLUDE, "-fpencil-thread-min-work=0"])[1]


def test_what_a_declared_pencil_function_may_write_orders_its_calls(tmp_path):
    # add_into may write all of acc: the calls on one acc are ordered; on rows, independent.
    regions = _record_of(tmp_path, """
void add_into(int m, double acc[pencil_array m], const double x[pencil_array m]);
void same(int n, int m, double acc[pencil_array m], double X[pencil_array n][m]) PENCIL;
void same(int n, int m, double acc[pencil_array m], double X[pencil_array n][m])
{
  for (int i = 0; i < n; i++)
    add_into(m, acc, X[i]);
}
void rows(int n, int m, double Acc[pencil_array n][m], double X[pencil_array n][m]) PENCIL;
void rows(int n, int m, double Acc[pencil_array n][m], double X[pencil_array n][m])
{
  for (int i = 0; i < n; i++)
    add_into(m, Acc[i], X[i]);
}
""")
    assert regions["same"]["status"] == regions["rows"]["status"] == "optimized"
    assert regions["same"]["parallel_loops"] == 0
    assert regions["rows"]["parallel_loops"] == 1


def test_a_summary_definition_is_a_must_write_of_the_row_passed(tmp_path):
    # fill's summary defines every element of its row: the call A[i] must-writes row i,
    # within the declared extent m.
    source = tmp_path / "fill.c"
    source.write_text("#include <pencil.h>\n"
                      "void fill_summary(int m, double r[pencil_array m])\n"
                      "{\n  for (int j = 0; j < m; j++)\n    DEF(r[j]);\n}\n"
                      "void fill(int m, double r[pencil_array m]) ACCESS(fill_summary);\n"
                      "void f(int n, int m, double A[pencil_array n][m]) PENCIL;\n"
                      "void f(int n, int m, double A[pencil_array n][m])\n"
                      "{\n  for (int i = 0; i < n; i++)\n    fill(m, A[i]);\n}\n")
    proc = harness.build(PENCILCC, [source], tmp_path / "fill.o", ["-c", "-O3", *INCLUDE, "-fpencil-dump=scop"])
    first = proc.stderr.split(";; pencilcc scop")[1]
    assert "MustWriteAccess :=\n            [n, m] -> { S_0[i] -> A[i, o1] : 0 <= i < n and 0 <= o1 < m };" in first
    assert "ReadAccess" not in first and "MayWriteAccess" not in first


@pytest.mark.parametrize("text, reason", [
    ("void log_row(int m, double r[pencil_array m]);\n"
     "void g_summary(int m, double r[pencil_array m]) { printf_like(m); }\n"
     "void g(int m, double r[pencil_array m]) ACCESS(g_summary);\n",
     "call to 'g' at t.c:{line}:5 may have side effects (its accesses cannot be modelled: call to "
     "'printf_like'"),
])
def test_unknown_accesses_fall_back_with_the_reason(tmp_path, text, reason):
    header = "void printf_like(int);\n" + text
    body = ("void f(int n, int m, double A[pencil_array n][m]) PENCIL;\n"
            "void f(int n, int m, double A[pencil_array n][m])\n{\n  for (int i = 0; i < n; i++)\n"
            "    g(m, A[i]);\n}\n")
    line = 2 + header.count("\n") + 4
    regions = _record_of(tmp_path, header + body)
    assert regions["f"]["status"] == "fallback"
    assert regions["f"]["reason"].startswith(reason.format(line=line))


def test_every_thesis_example_is_optimized(tmp_path):
    """The PENCIL examples of the thesis (test_suite/kernels/thesis): every region optimized, but
    summary_maybe.c's `foo`, the non-PENCIL function its summary stands for (it calls printf)."""
    seen = {}
    for source in sorted(THESIS.glob("*.c")):
        _, regions = harness.build_recorded([source], tmp_path / f"{source.stem}.o", ["-c", "-O3", *INCLUDE])
        for function, r in regions.items():
            seen[(source.name, function)] = (r["status"], r["reason"])
    fallbacks = {k: v for k, v in seen.items() if v[0] != "optimized"}
    assert fallbacks == {("summary_maybe.c", "foo"): (
        "fallback", "call to 'printf' at summary_maybe.c:48:9 may have side effects (it is neither a PENCIL "
        "function of this file nor described by a summary (pencil_access))")}
    assert len(seen) == 18
    for name in ("bar", "ABF", "sum_and_scatter", "parallel_version", "expand_frontier"):
        assert any(function == name for _, function in seen), name


STATIC_HELPERS = r"""#include <stdio.h>
#include <pencil.h>

static int weight(int i) PENCIL;
static int weight(int i)
{
  return 3 * i % 7 + 1;
}

static inline double mean(int m, const double r[pencil_array m]) PENCIL;
static inline double mean(int m, const double r[pencil_array m])
{
  double s = 0.0;
  for (int j = 0; j < m; j++)
    s += r[j];
  return s / m;
}

void norm(int n, int m, double A[pencil_array n][m], double W[pencil_array n]) PENCIL;
void norm(int n, int m, double A[pencil_array n][m], double W[pencil_array n])
{
  for (int i = 0; i < n; i++)
    W[i] = weight(i) * mean(m, A[i]);
}

int main(void)
{
  static double A[40][30], W[40];
  for (int i = 0; i < 40; i++)
    for (int j = 0; j < 30; j++)
      A[i][j] = (i * j % 13) * 0.5;
  norm(40, 30, A, W);
  printf("== W\n");
  for (int i = 0; i < 40; i++)
    printf("%.17g\n", W[i]);
  return 0;
}
"""


def test_static_and_inline_helpers_are_called_through_wrappers(tmp_path):
    # `weight` (static) and `mean` (static inline) return values, so they are not inlined: the
    # outlined code, in another object, calls them through wrappers of external linkage.
    source = tmp_path / "helpers.c"
    source.write_text(STATIC_HELPERS)
    exe = tmp_path / "helpers"
    proc, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-Wall",
                                                           "-Wextra", "-fpencil-thread-min-work=0"])
    assert "warning" not in proc.stderr, proc.stderr
    assert regions["norm"]["status"] == "optimized" and regions["norm"]["parallel_loops"] == 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])
