# SPDX-License-Identifier: MIT
"""Real-world C is read as clang reads it (issue 30): other compilers' pragmas, types the
bindings do not know, OpenMP directives.

- A type whose kind libclang's Python bindings do not know (`_Float16`: "Unknown template
  argument kind 32") made the whole file fall back; `__bf16` and `_BitInt(24)`, unexposed
  even canonically, recursed until Python's limit. Such a type is now opaque: only a region
  that uses it falls back, with its name in the reason.
- `#pragma GCC unroll 4`, `#pragma unroll`, `#pragma clang loop ...` wrap their loop in an
  attributed statement (libclang: `UNEXPOSED_STMT`), and under `-fopenmp` `#pragma omp simd`
  and `#pragma omp parallel for` hide it in a captured statement: the region fell back with
  "'UNEXPOSED_STMT' statement" or "'OMP_PARALLEL_FOR_DIRECTIVE' statement". The loop is now
  lowered, the pragma reported not used, saying what replaces it.
- Reasons name statements in C's words, never by libclang's cursor kinds.

Each program is built with pencilcc -O3 and an optimisation record, and prints what gcc -O0
prints (on 1 and 2 threads).
"""
from __future__ import annotations

import re

import pytest

from clangpass.frontend import FrontendOptions, parse_file
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import iter_stmts
from clangpass.poly.extract import expression_words, statement_words
from test_suite.e2e import harness

FLAGS = ["-std=gnu99", "-Wno-unknown-pragmas"]
# A libclang cursor kind's name (UNEXPOSED_STMT, OMP_PARALLEL_FOR_DIRECTIVE): no reason may hold one.
CURSOR_KIND = re.compile(r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b")

TYPED = r"""
#include <stdio.h>
typedef TYPE T;
static T twice(T x) { return x + x; }
static void use(int n, T A[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] + A[i];
#pragma endscop
}
static void scale(int n, double A[n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * 2.0 + 1.0;
#pragma endscop
}
int main(void) {
  double A[100];
  T B[10];
  for (int i = 0; i < 100; i++) A[i] = i;
  for (int i = 0; i < 10; i++) B[i] = i;
  scale(100, A);
  use(10, B);
  printf("== A\n");
  for (int i = 0; i < 100; i++) printf("%.17g\n", A[i]);
  printf("== B\n");
  for (int i = 0; i < 10; i++) printf("%d\n", (int)twice(B[i]));
  return 0;
}
"""


@pytest.mark.parametrize("ctype, modelled", [("_Float16", False), ("__float128", False),
                                            ("_Complex double", False), ("__int128", True)])
def test_a_type_pencilcc_does_not_model_falls_back_only_where_used(tmp_path, ctype, modelled):
    source = tmp_path / "typed.c"
    source.write_text(TYPED.replace("TYPE", ctype))
    exe = tmp_path / "typed"
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-O3"])
    assert regions["scale"]["status"] == "optimized"
    if modelled:
        assert regions["use"]["status"] == "optimized"
    else:
        assert regions["use"]["status"] == "fallback"
        assert regions["use"]["reason"].startswith(f"'A' has elements of type '{ctype}', which pencilcc "
                                                   "does not model")
    harness.assert_matches_gcc_O0(source, exe, tmp_path, FLAGS)


@pytest.mark.parametrize("ctype", ["_Float16", "__bf16", "_BitInt(24)", "_Complex double"])
def test_unknown_types_lower_to_opaque_types(tmp_path, ctype):
    """The front end alone (gcc 12 knows neither `__bf16` nor `_BitInt`): the file lowers, the
    type is opaque under clang's name, the other function's loop is there."""
    source = tmp_path / "t.c"
    source.write_text(f"typedef {ctype} T;\nstatic T h(const T x) {{ return x; }}\n"
                      "void f(int n, double *a) { for (int i = 0; i < n; i++) a[i] = 1; }\n")
    result = parse_file(str(source), FrontendOptions(("-std=gnu99",)))
    assert result.ok, [str(d) for d in result.diagnostics]
    functions = {f.name: f for f in result.module.functions}
    assert functions["h"].result == T.OpaqueType(ctype)
    assert functions["h"].params[0].type == T.OpaqueType(ctype, const=True)
    assert any(isinstance(s, N.For) for s in iter_stmts(functions["f"].body))


LOOP_PRAGMAS = r"""
#include <stdio.h>
#define N 200
static void kernel(int n, double A[n], double B[n], double *out) {
  double s = 0;
  int j;
#pragma scop
#pragma GCC unroll 4
  for (int i = 0; i < n; i++) A[i] = B[i] * 2;
#pragma unroll
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma clang loop unroll(enable)
  for (int i = 0; i < n; i++) A[i] += B[i];
#pragma GCC ivdep
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma omp simd
  for (int i = 0; i < n; i++) A[i] *= 3;
#pragma omp parallel for private(j) reduction(+:s) schedule(static)
  for (int i = 0; i < n; i++) s += A[i];
#pragma omp parallel for simd
  for (int i = 0; i < n; i++) A[i] -= 1;
#pragma endscop
  *out = s;
}
int main(void) {
  static double A[N], B[N];
  double s;
  for (int i = 0; i < N; i++) B[i] = i % 13;
  kernel(N, A, B, &s);
  printf("== A\n");
  for (int i = 0; i < N; i++) printf("%.17g\n", A[i]);
  printf("== s\n%.17g\n", s);
  return 0;
}
"""


@pytest.mark.parametrize("openmp", [[], ["-fopenmp"]], ids=["plain", "fopenmp"])
def test_loop_pragmas_of_other_compilers_are_reported_not_used(tmp_path, openmp):
    source = tmp_path / "pragmas.c"
    source.write_text(LOOP_PRAGMAS)
    exe = tmp_path / "pragmas"
    proc, regions = harness.build_recorded([source], exe, [*FLAGS, *openmp, "-O3", "-Rpass-missed=pencil",
                                                           "-fpencil-thread-min-work=0"])
    region = regions["kernel"]
    assert region["status"] == "optimized", region["reason"]
    assert region["parallel_loops"] >= 1
    uses = {use["text"]: use for use in region["pragmas"]}
    assert list(uses) == ["pragma GCC unroll 4", "pragma unroll", "pragma clang loop unroll(enable)",
                          "pragma GCC ivdep", "pragma omp simd",
                          "pragma omp parallel for private(j) reduction(+:s) schedule(static)",
                          "pragma omp parallel for simd"]
    assert not any(use["used"] for use in uses.values())
    assert uses["pragma GCC unroll 4"]["missed"] == "pencilcc chooses unrolling itself; the hint is not " \
                                                   "passed on to LLVM"
    assert "'#pragma pencil ivdep' makes the same promise" in uses["pragma GCC ivdep"]["missed"]
    assert "pragmas.c:18:1: remark: '#pragma omp parallel for private(j) reduction(+:s) schedule(static)' " \
           "not used: pencilcc's own parallelization and vectorization replace the OpenMP directive" \
           in proc.stderr
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*FLAGS, *openmp])


OPENMP_KEPT = r"""
#include <stdio.h>
#define N 64
static void shared_loop(int n, double A[n]) {
#pragma scop
#pragma omp for
  for (int i = 0; i < n; i++) A[i] += 1;
#pragma endscop
}
static void team(int n, double A[n]) {
#pragma scop
#pragma omp parallel num_threads(1)
  { for (int i = 0; i < n; i++) A[i] += 2; }
#pragma endscop
}
static void nested(int n, double A[n]) {
#pragma scop
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp parallel num_threads(1)
    { A[i] += 3; }
  }
#pragma endscop
}
static void guarded(int n, double A[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
#pragma omp critical
    A[i] += 4;
  }
#pragma endscop
}
static void assembly(int n, double A[n]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    __asm__ volatile("" ::: "memory");
    A[i] += 5;
  }
#pragma endscop
}
static void atomic_inside(int n, double A[n]) {
#pragma scop
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    A[i] += 6;
  }
#pragma endscop
}
int main(void) {
  static double A[N];
  for (int i = 0; i < N; i++) A[i] = i;
  shared_loop(N, A); team(N, A); nested(N, A); guarded(N, A); assembly(N, A); atomic_inside(N, A);
  printf("== A\n");
  for (int i = 0; i < N; i++) printf("%.17g\n", A[i]);
  return 0;
}
"""


def test_openmp_directives_pencilcc_does_not_lower_fall_back_in_c_words(tmp_path):
    source = tmp_path / "omp.c"
    source.write_text(OPENMP_KEPT)
    exe = tmp_path / "omp"
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-fopenmp", "-O3"])
    reasons = {name: r["reason"] for name, r in regions.items() if r["status"] == "fallback"}
    assert reasons == {
        "shared_loop": "OpenMP 'for' directive (its iterations are shared among the threads of an enclosing "
                       "parallel region, which pencilcc does not see; 'parallel for' is lowered) at omp.c:6:1",
        "team": "OpenMP 'parallel' directive at omp.c:12:1",
        "nested": "OpenMP 'parallel for' directive (its loop holds other OpenMP directives) at omp.c:18:1",
        "guarded": "OpenMP 'critical' directive at omp.c:28:1",
        "assembly": "inline assembly at omp.c:36:5",
    }
    assert regions["atomic_inside"]["status"] == "optimized"
    assert not any(CURSOR_KIND.search(reason) for reason in reasons.values())
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*FLAGS, "-fopenmp"])


@pytest.mark.parametrize("kind, words", [
    ("UNEXPOSED_STMT", "statement clang does not show to pencilcc (an attributed or captured statement)"),
    ("ASM_STMT", "inline assembly"),
    ("INDIRECT_GOTO_STMT", "computed 'goto'"),
    ("OMP_TARGET_DIRECTIVE", "OpenMP 'target' directive"),
    ("OMP_PARALLELFORSIMD_DIRECTIVE", "OpenMP 'parallel for simd' directive (its loop holds other OpenMP "
                                      "directives)"),
    ("OMP_TARGET_PARALLELFOR_DIRECTIVE", "OpenMP 'target parallel for' directive"),
    ("OMP_TASK_LOOP_SIMD_DIRECTIVE", "OpenMP 'taskloop simd' directive"),
    ("OMP_CANCELLATION_POINT_DIRECTIVE", "OpenMP 'cancellation point' directive"),
    ("OBJC_AT_TRY_STMT", "statement of a kind pencilcc does not model (clang: OBJC_AT_TRY_STMT)"),
    ("CURSOR_KIND_306", "statement of a kind pencilcc does not model (clang cursor kind 306)"),
    ("for (header split by an empty macro)", "'for (header split by an empty macro)' statement"),
])
def test_statements_are_named_in_c_words(kind, words):
    assert statement_words(N.OpaqueStmt(kind)) == words


@pytest.mark.parametrize("kind, words", [
    ("StmtExpr", "GNU statement expression"), ("GENERIC_SELECTION_EXPR", "'_Generic' selection"),
    ("COMPOUND_LITERAL_EXPR", "compound literal"),
    ("CURSOR_KIND_150", "expression of a kind pencilcc does not model (clang cursor kind 150)"),
])
def test_expressions_are_named_in_c_words(kind, words):
    assert expression_words(N.OpaqueExpr(kind, type=T.INT)) == words


POINTERS = r"""
#include <stdio.h>
#include <stdlib.h>
static void callee(int m, int n, double A[m][n]) {
#pragma scop
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] * 2 + i;
#pragma endscop
}
static double local_rows(int m, int n, double B[m][n]) {
  double s = 0;
#pragma scop
  {
    double (*R)[n] = malloc(sizeof(double[m][n]));
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        R[i][j] = B[i][j] + 1;
    for (int i = 0; i < m; i++)
      for (int j = 0; j < n; j++)
        s += R[i][j];
    free(R);
  }
#pragma endscop
  return s;
}
int main(int argc, char **argv) {
  int m = 20 + argc, n = 30 + argc;
  double (*A)[n] = malloc(sizeof(double[m][n]));
  double (*B)[n] = malloc(m * sizeof *B);
  for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) { A[i][j] = i + j; B[i][j] = i - 2 * j; }
#pragma scop
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] + B[i][j];
#pragma endscop
  callee(m, n, A);
  printf("== A\n");
  for (int i = 0; i < m; i++) for (int j = 0; j < n; j++) printf("%.17g\n", A[i][j]);
  printf("== s\n%.17g\n", local_rows(m, n, B));
  free(A); free(B);
  return 0;
}
"""


def test_malloced_rows_are_affine_and_a_pointer_declared_in_a_region_is_named_so(tmp_path):
    """`double (*A)[n] = malloc(...)` has the affine row extent n: its scop and its callee's are
    optimized. Declared inside a region it is a pointer (what it points to is unknown), which
    the reason says, not "non-affine extent"."""
    source = tmp_path / "rows.c"
    source.write_text(POINTERS)
    exe = tmp_path / "rows"
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-O3"])
    assert regions["main"]["status"] == "optimized"
    assert regions["callee"]["status"] == "optimized"
    assert regions["local_rows"]["reason"] == "pointer 'R' declared in the region at rows.c:15:14: what it " \
                                              "points to is not modelled (a region may declare arrays, not pointers)"
    harness.assert_matches_gcc_O0(source, exe, tmp_path, FLAGS)
