# SPDX-License-Identifier: MIT
"""Control flow the model cannot follow, run whole as one opaque statement (issue 8, item 3).

A loop whose bound is an array value (CSR rows: `k < rowptr[i + 1]`), a `while`
loop with `break`/`continue`, and a data-dependent `if` around a loop are each one
statement of the model (clangpass.poly.extract, `_opaque_statement`): it reads what
its expressions read and may-writes what they write, its own variables are its own,
and the generated code runs it as written. The affine loops around it stay in the
model, so SpMV's rows and the BFS frontier loop are parallel. Each program is built
by pencilcc -O3 and gcc -O0 and prints the same on 1 and 2 threads and on PoCL.
"""
from __future__ import annotations

import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PROGRAM = r"""#include <stdio.h>
#include <math.h>
#include <pencil.h>

/* Sparse matrix-vector product over CSR rows: the inner bounds are array values. */
void spmv(int n, int nnz, const int rowptr[pencil_array n + 1], const int col[pencil_array nnz],
          const double val[pencil_array nnz], const double x[pencil_array n], double y[pencil_array n]) PENCIL;
void spmv(int n, int nnz, const int rowptr[pencil_array n + 1], const int col[pencil_array nnz],
          const double val[pencil_array nnz], const double x[pencil_array n], double y[pencil_array n])
{
  for (int i = 0; i < n; i++) {
    double s = 0.0;
    for (int k = rowptr[i]; k < rowptr[i + 1]; k++)
      s += val[k] * x[col[k]];
    y[i] = s;
  }
}

/* Breadth-first search (thesis section 4.4.1): a while loop around independent loops. */
void bfs(int n, const int start[pencil_array n], const int count[pencil_array n], int m,
         const int dst[pencil_array m], int cost[pencil_array n], char front[pencil_array n],
         char next[pencil_array n], char visited[pencil_array n], int source) PENCIL;
void bfs(int n, const int start[pencil_array n], const int count[pencil_array n], int m,
         const int dst[pencil_array m], int cost[pencil_array n], char front[pencil_array n],
         char next[pencil_array n], char visited[pencil_array n], int source)
{
  int carry_on = 1;
  for (int i = 0; i < n; i++) {
    front[i] = 0;
    next[i] = 0;
    visited[i] = 0;
    cost[i] = -1;
  }
  front[source] = 1;
  visited[source] = 1;
  cost[source] = 0;
  while (carry_on == 1) {
    carry_on = 0;
    for (int i = 0; i < n; i++) {
      if (front[i] == 1) {
        front[i] = 0;
        for (int j = start[i]; j < start[i] + count[i]; j++) {
          int d = dst[j];
          if (visited[d] == 0) {
            cost[d] = cost[i] + 1;
            next[d] = 1;
          }
        }
      }
    }
    for (int i = 0; i < n; i++) {
      if (next[i] == 1) {
        front[i] = 1;
        visited[i] = 1;
        carry_on = 1;
        next[i] = 0;
      }
    }
  }
}

/* A frontier step (thesis section 4.3.4): a data-dependent if around a loop, independent. */
void expand(int n, int m, const int start[pencil_array n], const int count[pencil_array n],
            const int dst[pencil_array m], const char front[pencil_array n], int reach[pencil_array n][8]) PENCIL;
void expand(int n, int m, const int start[pencil_array n], const int count[pencil_array n],
            const int dst[pencil_array m], const char front[pencil_array n], int reach[pencil_array n][8])
{
#pragma pencil independent
  for (int i = 0; i < n; i++) {
    for (int c = 0; c < 8; c++)
      reach[i][c] = 0;
    if (front[i] != 0)
      for (int j = start[i]; j < start[i] + count[i]; j++) {
        if (j - start[i] >= 8)
          break;
        reach[i][j - start[i]] = dst[j] + 1;
      }
  }
}

/* A convergence loop returning its iteration count: while, break, continue. */
int relax(int n, double u[pencil_array n], double tol) PENCIL;
int relax(int n, double u[pencil_array n], double tol)
{
  int it = 0;
  double r = 1.0;
  while (r > tol) {
    r = 0.0;
    for (int i = 1; i < n - 1; i++) {
      if (i % 7 == 3)
        continue;
      double v = 0.5 * (u[i - 1] + u[i + 1]);
      r = fmax(r, fabs(v - u[i]));
      u[i] = v;
    }
    it++;
    if (it >= 60)
      break;
  }
  return it;
}

int main(void)
{
  enum { N = 300, DEG = 5 };
  static int rowptr[N + 1], col[N * DEG], start[N], count[N], cost[N], reach[N][8];
  static double val[N * DEG], x[N], y[N], u[N];
  static char front[N], next[N], visited[N];
  int nnz = 0;
  for (int i = 0; i < N; i++) {
    rowptr[i] = nnz;
    start[i] = nnz;
    int d = (i * 7) % DEG + 1;
    for (int k = 0; k < d; k++) {
      col[nnz] = (i * 13 + k * 37 + 1) % N;
      val[nnz] = 0.5 + (k * i % 9) * 0.125;
      nnz++;
    }
    count[i] = d;
    x[i] = (i % 11) * 0.25 - 1.0;
    u[i] = (i % 5) * 1.5;
  }
  rowptr[N] = nnz;
  spmv(N, nnz, rowptr, col, val, x, y);
  bfs(N, start, count, nnz, col, cost, front, next, visited, 3);
  for (int i = 0; i < N; i++)
    front[i] = (char)(cost[i] % 3 == 1);
  expand(N, nnz, start, count, col, front, reach);
  int it = relax(N, u, 1e-3);
  printf("== y\n");
  for (int i = 0; i < N; i++)
    printf("%.17g\n", y[i]);
  printf("== cost\n");
  for (int i = 0; i < N; i++)
    printf("%d\n", cost[i]);
  printf("== reach\n");
  for (int i = 0; i < N; i += 3)
    for (int c = 0; c < 8; c++)
      printf("%d\n", reach[i][c]);
  printf("== relax\n%d\n", it);
  for (int i = 0; i < N; i += 7)
    printf("%.17g\n", u[i]);
  return 0;
}
"""


def _build(tmp_path, *flags):
    source = tmp_path / "dyn.c"
    source.write_text(PROGRAM)
    exe = tmp_path / "dyn"
    proc, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", *flags,
                                                           "-fpencil-thread-min-work=0", "-Rpass-missed=pencil"])
    return source, exe, regions, proc.stderr


def test_opaque_loops_and_ifs_are_optimized_and_correct(tmp_path):
    source, exe, regions, stderr = _build(tmp_path)
    assert {name: r["status"] for name, r in regions.items()} == {
        "spmv": "optimized", "bfs": "optimized", "expand": "optimized", "relax": "optimized"}
    # SpMV: the rows loop is parallel, each row's loop over its non-zeros one statement.
    assert regions["spmv"]["parallel_loops"] == 1
    assert "loop with a non-affine bound at dyn.c:13:5: one statement, its writes may-writes" in \
        regions["spmv"]["approximated_accesses"]
    # The frontier loop's `if` around a loop is one statement per node: the loop is parallel.
    assert regions["expand"]["parallel_loops"] == 1
    assert any(n.startswith("'if' with the non-affine condition 'front[i] != 0'")
               for n in regions["expand"]["approximated_accesses"])
    # BFS: the initialisation loop is parallel; the while loop runs whole.
    assert regions["bfs"]["parallel_loops"] >= 1
    assert any(n.startswith("'while' loop at dyn.c:") for n in regions["bfs"]["approximated_accesses"])
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE], threads=(1, 2))


def test_opaque_loops_on_the_opencl_target(tmp_path):
    pyopencl = pytest.importorskip("pyopencl")
    try:
        platforms = pyopencl.get_platforms()
    except Exception:
        platforms = []
    if not platforms:
        pytest.skip("no OpenCL platform (install PoCL: .ci/run)")
    source, exe, regions, _ = _build(tmp_path, "-fpencil-target=opencl")
    # The rows of SpMV and the frontier nodes are work-items running their loops as written.
    assert len(regions["spmv"]["mapping"]["kernels"]) == 1
    assert len(regions["expand"]["mapping"]["kernels"]) == 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE], threads=(1,))


# The driver of both first-negative searches: the rows' first negative column, and a diagonal.
SEARCH_MAIN = r"""
int main(void)
{
  static double a[50][40];
  static int pos[50];
  for (int i = 0; i < 50; i++)
    for (int j = 0; j < 40; j++)
      a[i][j] = ((i * 13 + j * 7) % 29) - 1.0 - i % 3 * 5.0;
  first_neg(50, 40, a, pos);
  printf("== pos\n");
  for (int i = 0; i < 50; i++)
    printf("%d\n", pos[i]);
  printf("== a\n");
  for (int i = 0; i < 50; i++)
    printf("%.17g\n", a[i][i % 40]);
  return 0;
}
"""

FIRST_NEGATIVE = r"""#include <stdio.h>
void first_neg(int n, int m, const double a[static const restrict n][m], int pos[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    pos[i] = -1;
    for (int j = 0; j < m; j++) {
      if (a[i][j] < 0.0) {
        pos[i] = j;
        break;
      }
      if (j % 3 == 1)
        continue;
    }
  }
}
"""


def test_a_loop_with_break_and_continue_is_one_statement_per_outer_iteration(tmp_path):
    # The j loop exits early: it runs whole, once per row; the rows are parallel.
    source = tmp_path / "brk.c"
    source.write_text(FIRST_NEGATIVE + SEARCH_MAIN)
    exe = tmp_path / "brk"
    _, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-thread-min-work=0"])
    [region] = regions.values()
    assert (region["status"], region["parallel_loops"]) == ("optimized", 1)
    assert region["approximated_accesses"][-1] == ("loop with 'break' or 'continue' at brk.c:6:5: one statement, "
                                                   "its writes may-writes")
    harness.assert_matches_gcc_O0(source, exe, tmp_path, harness.KERNEL_CFLAGS, threads=(1, 2))


SCOP_ITERATORS = r"""#include <stdio.h>
static void first_neg(int n, int m, double a[n][m], int pos[n])
{
  int i, j, k;
#pragma scop
  for (i = 0; i < n; i++) {
    pos[i] = -1;
    for (j = 0; j < m; j++) {
      if (a[i][j] < 0.0) {
        pos[i] = j;
        break;
      }
    }
  }
  for (i = 0; i < n; i++)
    for (k = 0; k < m; k++)
      a[i][k] = a[i][k] * 0.5;
#pragma endscop
}
"""


def test_opaque_loops_over_iterators_declared_outside_the_scop(tmp_path):
    # PolyBench style: `int i, j, k;` before `#pragma scop`; the j loop that breaks is one
    # statement declaring its own j (nothing after the region reads it).
    source = tmp_path / "scopbrk.c"
    source.write_text(SCOP_ITERATORS + SEARCH_MAIN)
    exe = tmp_path / "scopbrk"
    proc, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, "-O3", "-Wall",
                                                           "-fpencil-thread-min-work=0"])
    assert "warning" not in proc.stderr, proc.stderr
    [region] = regions.values()
    assert (region["status"], region["parallel_loops"]) == ("optimized", 3)
    harness.assert_matches_gcc_O0(source, exe, tmp_path, harness.KERNEL_CFLAGS, threads=(1, 2))
