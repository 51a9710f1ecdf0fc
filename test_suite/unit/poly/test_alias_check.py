# SPDX-License-Identifier: MIT
"""Run-time alias checks (clangpass.poly.alias_check): which pairs, and the C condition itself.

The condition is compiled with gcc and evaluated on arrays placed at every offset
of one buffer; the oracle enumerates the elements the model accesses (isl points)
and computes their addresses, so the test judges the printed C, not its text.
"""
from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import islpy as isl
import pytest

from clangpass.poly.alias_check import AliasCheck, candidate_pairs, plan_alias_check, unchecked_overlap
from clangpass.poly.extract import NotModelled
from test_suite.unit.poly.snippets import region_of, scop_of

SHIFT_2D = """
void f(int n, int m, double A[n][m], double B[n][m]) {
#pragma scop
  for (int i = 1; i < n; i++)
    for (int j = 0; j < m; j++)
      A[i][j] = B[i - 1][j] + B[i][j];
#pragma endscop
}
"""

FLOORED_1D = """
void f(int n, int k, double *a, double *b) {
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = b[(i - k) / 3];
#pragma endscop
}
"""


def _elements(scop, array: str, values: dict[str, int]) -> list[tuple[int, ...]]:
    """The elements of `array` the region accesses for the parameter `values` (isl points)."""
    accesses = scop.reads.union(scop.writes).intersect_domain(scop.domain)  # [P] -> { S[i..] -> A[a..] }
    found: list[tuple[int, ...]] = []

    def visit(m: isl.Map) -> None:
        if m.get_tuple_name(isl.dim_type.out) != array:
            return
        elements = m.range()
        for name, value in values.items():
            elements = elements.fix_val(isl.dim_type.param, elements.find_dim_by_name(isl.dim_type.param, name),
                                        isl.Val.int_from_si(elements.get_ctx(), value))
        elements.foreach_point(lambda p: found.append(tuple(
            p.get_coordinate_val(isl.dim_type.set, k).to_python()
            for k in range(elements.dim(isl.dim_type.set)))))

    accesses.foreach_map(visit)
    return found


def _evaluate(tmp_path: Path, check: AliasCheck, signature: str, arguments: str,
              cases: list[tuple[int, ...]]) -> list[int]:
    """gcc-compiled `check.condition` on each case: `arguments` (C, of the case's values
    `v[0]`, `v[1]`...) are what `check`, with parameters `signature`, is called with."""
    fields = len(cases[0])
    reads = ", ".join(f"&v[{k}]" for k in range(fields))
    program = "\n".join([*check.macros, "#include <stdio.h>", "static double buffer[4096];",
                         f"static int check({signature}) {{ return {check.condition}; }}",
                         "int main(void) {", f"  int v[{fields}];",
                         f"  while (scanf(\"{' '.join(['%d'] * fields)}\", {reads}) == {fields})",
                         f"    printf(\"%d\\n\", check({arguments}) ? 1 : 0);",
                         "  return 0;", "}"])
    source = tmp_path / "check.c"
    source.write_text(program)
    exe = tmp_path / "check"
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", str(source), "-o", str(exe)], check=True,
                   capture_output=True, text=True)
    stdin = "".join(" ".join(map(str, c)) + "\n" for c in cases)
    out = subprocess.run([str(exe)], input=stdin, check=True, capture_output=True, text=True).stdout
    return [int(line) for line in out.split()]


def test_two_dimensional_check_is_exact_on_whole_rows_and_never_misses_an_overlap(tmp_path):
    scop = scop_of(tmp_path, SHIFT_2D)
    check = plan_alias_check(scop)
    assert check.pairs == (("A", "B"),)
    assert "__UINTPTR_TYPE__" in check.condition
    cases = [(n, m, a, b) for n, m in itertools.product((0, 1, 2, 4), (1, 3)) for a in range(0, 24, 2)
             for b in range(0, 24, 3)]
    got = _evaluate(tmp_path, check, "int n, int m, double (*A)[m], double (*B)[m]",
                    "v[0], v[1], (double (*)[v[1]])(buffer + v[2]), (double (*)[v[1]])(buffer + v[3])", cases)
    checked = 0
    for (n, m, a, b), disjoint in zip(cases, got):
        rows = {name: sorted({e[0] for e in _elements(scop, name, {"n": n, "m": m})}) for name in ("A", "B")}
        exact = {name: {base + r * m + c for r, c in _elements(scop, name, {"n": n, "m": m})}
                 for name, base in (("A", a), ("B", b))}
        if exact["A"] & exact["B"]:
            assert not disjoint, (n, m, a, b)
        if not rows["A"] or not rows["B"]:
            expected = True                  # an empty domain accesses nothing: the check must pass
        else:
            a_lo, a_hi = a + rows["A"][0] * m, a + (rows["A"][-1] + 1) * m
            b_lo, b_hi = b + rows["B"][0] * m, b + (rows["B"][-1] + 1) * m
            expected = a_hi <= b_lo or b_hi <= a_lo
            checked += 1
        assert bool(disjoint) == expected, (n, m, a, b)
    assert checked > 100


def test_floor_division_bounds_print_with_isl_macros_and_stay_sound(tmp_path):
    scop = scop_of(tmp_path, FLOORED_1D)
    check = plan_alias_check(scop)
    assert check.pairs == (("a", "b"),)
    assert any(m.startswith("#define __pencilcc_floord") for m in check.macros)
    cases = [(n, k, a, b) for n in (0, 1, 5, 9) for k in (-7, -1, 0, 4, 11) for a in range(0, 30, 3)
             for b in range(0, 30, 2)]
    got = _evaluate(tmp_path, check, "int n, int k, double *a, double *b",
                    "v[0], v[1], buffer + 12 + v[2], buffer + 12 + v[3]", cases)
    for (n, k, a, b), disjoint in zip(cases, got):
        elements = {name: [e[0] for e in _elements(scop, name, {"n": n, "k": k})] for name in ("a", "b")}
        if not elements["a"] or not elements["b"]:
            assert disjoint, (n, k, a, b)
            continue
        lo = {name: min(v) for name, v in elements.items()}
        hi = {name: max(v) + 1 for name, v in elements.items()}
        expected = a + hi["a"] <= b + lo["b"] or b + hi["b"] <= a + lo["a"]
        assert bool(disjoint) == expected, (n, k, a, b)


def test_restrict_read_only_and_named_arrays_need_no_check(tmp_path):
    scop = scop_of(tmp_path, """
        double G[100];
        void f(int n, double *restrict r, const double *x, const double *y, double *w) {
          double L[100];
        #pragma scop
          for (int i = 0; i < n; i++) { L[i] = x[i] + y[i]; G[i] = L[i]; r[i] = G[i]; w[i] = x[i]; }
        #pragma endscop
        }
        """)
    # x and y are only read (they may overlap each other); r is restrict; G and L are distinct
    # objects; the pointers x, y, w may point into any written array but r.
    assert plan_alias_check(scop).pairs == (("G", "w"), ("G", "x"), ("G", "y"), ("L", "w"), ("L", "x"),
                                            ("L", "y"), ("w", "x"), ("w", "y"))


def test_pencil_function_arrays_are_assumed_distinct(tmp_path):
    region, _ = region_of(tmp_path, """
        static void f(int n, double a[static const restrict n], const double b[static const restrict n]) {
          for (int i = 1; i < n; i++) a[i] = b[i - 1];
        }
        """, name="t.pencil.c")
    assert candidate_pairs(region, frozenset({"a"})) == ()


def test_array_never_accessed_for_some_parameters_is_guarded(tmp_path):
    scop = scop_of(tmp_path, """
        void f(int n, int k, double *a, double *b) {
        #pragma scop
          for (int i = 0; i < n; i++) { a[i] = 0; if (i > k) a[i] = b[i - k]; }
        #pragma endscop
        }
        """)
    check = plan_alias_check(scop)
    assert check.pairs == (("a", "b"),)
    # b is read only when some i > k: for k >= n - 1 it is not accessed and cannot overlap.
    got = _evaluate(tmp_path, check, "int n, int k, double *a, double *b",
                    "v[0], v[1], buffer + v[2], buffer + v[3]", [(4, 3, 0, 0), (4, 2, 0, 0), (4, 2, 0, 8), (0, -5, 0, 0)])
    assert got == [1, 0, 1, 1]


def test_unbounded_range_raises_not_modelled(tmp_path):
    scop = scop_of(tmp_path, """
        void f(int n, double *a, double *b) {
        #pragma scop
          for (int i = 0; i < n; i++) a[i] = b[i];
        #pragma endscop
        }
        """)
    # A read of every element of b (as the model writes an access it cannot bound).
    unbounded = isl.UnionMap("[n] -> { S_0[i] -> b[o] : 0 <= i < n }", context=scop.context.get_ctx())
    with pytest.raises(NotModelled, match="elements of 'b' .* not bounded"):
        plan_alias_check(scop.with_model(reads=unbounded))


def test_disabling_the_check_names_the_pairs(tmp_path):
    region, _ = region_of(tmp_path, SHIFT_2D)
    assert unchecked_overlap(region) == ("arrays 'A' and 'B' may overlap and pass 'alias-check' "
                                         "(their run-time check) is disabled")


def test_bounds_are_computed_in_long_long(tmp_path):
    scop = scop_of(tmp_path, """
        void f(int n, double *a, double *b) {
        #pragma scop
          for (int i = 0; i < n; i++) a[3 * i] = b[i];
        #pragma endscop
        }
        """)
    check = plan_alias_check(scop)
    # 3 * n - 3 overflows int for n = 800000000: in int arithmetic a's range would end
    # before it starts, and b (8 elements further) would look disjoint from it.
    got = _evaluate(tmp_path, check, "int n, double *a, double *b", "v[0], buffer + v[1], buffer + v[2]",
                    [(800000000, 0, 8), (3, 0, 7), (3, 0, 6)])
    assert got == [0, 1, 0]
