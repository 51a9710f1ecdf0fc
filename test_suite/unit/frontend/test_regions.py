# SPDX-License-Identifier: MIT
"""Region discovery and the outlining interface (clangpass.regions)."""
from __future__ import annotations

import textwrap

from clangpass.frontend import parse_file
from clangpass.regions import find_regions, trampoline_symbol
from clangpass.rejects import Reject


def regions_of(tmp_path, source: str):
    path = tmp_path / "r.c"
    path.write_text(textwrap.dedent(source))
    result = parse_file(str(path))
    assert result.ok, result.diagnostics
    return find_regions(result.module)


def test_scop_region_arguments_and_iterators(tmp_path):
    (r,) = regions_of(tmp_path, """
        double g_scale = 2.0;
        void k(int n, int m, double alpha, double A[n][m], double *acc) {
          int i, j;
          double t;
        #pragma scop
          for (i = 0; i < n; i++)
            for (j = 0; j < m; j++) {
              t = A[i][j] * alpha * g_scale;
              A[i][j] = t;
            }
        #pragma endscop
        }
    """)
    assert r.kind == "scop" and r.function.name == "k"
    assert r.iterators == ("i", "j")
    assert [(a.name, a.passing, a.scope) for a in r.args] == [
        ("n", "value", "param"), ("m", "value", "param"), ("alpha", "value", "param"),
        ("A", "array", "param"), ("g_scale", "value", "global"),
    ]
    # `t` is declared by the function and used only in the region: the region's own local.
    assert [d.name for d in r.privatized] == ["t"] and r.kept_scalars == ()
    assert r.symbol.startswith("__pencilcc_k_scop0_") and not r.problems


def test_function_scalars_used_elsewhere_stay_the_callers(tmp_path):
    (first, second) = regions_of(tmp_path, """
        double k(int n, double A[n]) {
          int i;
          double t, u = 1.0, once, v;
        #pragma scop
          once = 2.0;
          for (i = 0; i < n; i++) {
            t = A[i] * once;
            u = u + t;
          }
        #pragma endscop
        #pragma scop
          for (i = 0; i < n; i++) {
            v = A[i];
            A[i] = v * t;
          }
        #pragma endscop
          return u;
        }
    """)
    assert first.privatized == () and dict(first.kept_scalars) == {
        "t": "used outside the region", "u": "used outside the region",
        "once": "written outside loops only: no loop-carried false dependence to relax"}
    assert [d.name for d in second.privatized] == ["v"]
    assert [a.name for a in second.args if a.scope == "local"] == ["t"]


def test_pencil_function_region_is_the_body(tmp_path):
    (r,) = regions_of(tmp_path, """
        void f(int n, double A[static const restrict n]) {
          for (int i = 0; i < n; i++) A[i] = i;
        }
        void plain(int n, double A[n]) { A[0] = n; }
    """)
    assert r.kind == "function" and r.iterators == ()
    assert [a.name for a in r.args] == ["n", "A"]
    assert r.extent is not None and r.extent.start.line == 2


def test_symbols_are_deterministic_and_distinct(tmp_path):
    src = """
        void k(int n, double C[n]) {
          int i;
        #pragma scop
          for (i = 0; i < n; i++) C[i] = 1;
        #pragma endscop
        #pragma scop
          for (i = 0; i < n; i++) C[i] += 1;
        #pragma endscop
        }
    """
    a = regions_of(tmp_path, src)
    b = regions_of(tmp_path, src)
    assert [r.symbol for r in a] == [r.symbol for r in b]
    assert len({r.symbol for r in a}) == 2 and [r.index for r in a] == [0, 1]


def test_region_problems_are_reported(tmp_path):
    (r,) = regions_of(tmp_path, """
        void k(int n, double C[n]) {
          int i;
        #pragma scop
          for (i = 0; i < n; i++) { static int calls; calls++; C[i] = calls; }
        #pragma endscop
        }
    """)
    assert any(p.reason == "static local variable 'calls'" and p.id == "pencil-storage-class" for p in r.problems)


def test_calls_to_internal_functions_go_through_wrappers(tmp_path):
    (r,) = regions_of(tmp_path, """
        static int twice(int x) __attribute__((const));
        static int twice(int x) { return 2 * x; }
        int thrice(int x) __attribute__((const));
        struct pair { int a, b; };
        static int first(struct pair p) { return p.a; }
        void k(int n, int C[n], struct pair q) {
          int i;
        #pragma scop
          for (i = 0; i < n; i++) C[i] = twice(i) + thrice(i) + first(q);
        #pragma endscop
        }
    """)
    # `twice` gets a wrapper of external linkage; a struct parameter gets none: a problem.
    assert [f.name for f in r.trampolines] == ["twice"]
    assert trampoline_symbol(r.trampolines[0]).startswith("__pencilcc_call_twice_")
    assert r.problems == (Reject("pencil-outline", "calls 'first', which has internal linkage (static) and a "
                                 "signature no wrapper of external linkage is made for"),)
