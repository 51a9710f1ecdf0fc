# SPDX-License-Identifier: MIT
"""Model extraction (clangpass.poly.extract): domains, accesses, schedules, context, fallbacks."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.poly.extract import NotModelled
from clangpass.poly.scop import format_scop

from test_suite.unit.poly.snippets import optimise, scop_of

TWO_STATEMENTS = """\
void f(int n, int m, double A[static const restrict n][m], double x[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    x[i] = 0.0;
    for (int j = 0; j < m; j++)
      x[i] += A[i][j];
  }
}
"""


def test_two_statement_nest_exact_dump(tmp_path):
    scop = scop_of(tmp_path, TWO_STATEMENTS)
    assert format_scop(scop).splitlines() == [
        "Region: f (function, t.c:1:95)",
        "Context:",
        "    [n, m] -> {  : n >= 0 and m >= 0 }",
        "Parameters: n, m",
        "Arrays {",
        "    double A[n][m];  // read-only",
        "    double x[n];  // live-out",
        "}",
        "Statements {",
        "    S_0",
        "        Domain :=",
        "            [n, m] -> { S_0[i] : 0 <= i < n };",
        "        Schedule :=",
        "            [n, m] -> { S_0[i] -> [i, 0, 0] };",
        "        MustWriteAccess :=",
        "            [n, m] -> { S_0[i] -> x[i] : 0 <= i < n };",
        "        Body: x[i] = 0.0;",
        "    S_1",
        "        Domain :=",
        "            [n, m] -> { S_1[i, j] : 0 <= i < n and 0 <= j < m };",
        "        Schedule :=",
        "            [n, m] -> { S_1[i, j] -> [i, 1, j] };",
        "        ReadAccess :=",
        "            [n, m] -> { S_1[i, j] -> A[i, j] : 0 <= i < n and 0 <= j < m };",
        "        ReadAccess :=",
        "            [n, m] -> { S_1[i, j] -> x[i] : 0 <= i < n and 0 <= j < m };",
        "        MustWriteAccess :=",
        "            [n, m] -> { S_1[i, j] -> x[i] : 0 <= i < n and 0 <= j < m };",
        "        Body: x[i] += A[i][j];",
        "}",
        "Schedule tree:",
        '    domain: "[n, m] -> { S_1[i, j] : 0 <= i < n and 0 <= j < m; S_0[i] : 0 <= i < n }"',
        "    child:",
        '      schedule: "[n, m] -> [{ S_1[i, j] -> [(i)]; S_0[i] -> [(i)] }]"',
        "      child:",
        "        sequence:",
        '        - filter: "[n, m] -> { S_0[i] }"',
        '        - filter: "[n, m] -> { S_1[i, j] }"',
        "          child:",
        '            schedule: "[n, m] -> [{ S_1[i, j] -> [(j)] }]"',
    ]


def _set(scop, text: str) -> isl.Set:
    return isl.Set.read_from_str(scop.context.get_ctx(), text)


def _umap(scop, text: str) -> isl.UnionMap:
    return isl.UnionMap.read_from_str(scop.context.get_ctx(), text)


def test_parameters_and_context_from_vla_extents_and_assume(tmp_path):
    scop = scop_of(tmp_path, """\
        #include <pencil.h>
        void f(int n, int m, int k, double A[static const restrict n][m + 1], double alpha) {
          __pencil_assume(k > n);
          for (int i = 0; i < n; i++)
            for (int j = 0; j <= m; j++)
              A[i][j] = alpha * A[i][j];
        }
    """)
    assert scop.params == ("n", "m", "k")
    assert scop.context.is_equal(_set(scop, "[n, m, k] -> { : n >= 0 and m + 1 >= 0 and k > n }"))
    extents = scop.array("A").extents
    assert extents[1].is_equal(isl.PwAff.read_from_str(scop.context.get_ctx(), "[n, m, k] -> { [(m + 1)] }"))
    # A scalar read by value is a 0-d array.
    assert scop.reads.is_equal(_umap(scop, "[n, m, k] -> { S_0[i, j] -> A[i, j] : 0 <= i < n and 0 <= j <= m;"
                                           " S_0[i, j] -> alpha[] : 0 <= i < n and 0 <= j <= m }"))


def test_assume_inside_a_loop_constrains_the_parameters_for_every_iteration(tmp_path):
    scop = scop_of(tmp_path, """\
        #include <pencil.h>
        void f(int n, int m, double A[static const restrict 100]) {
          for (int i = 0; i < n; i++) {
            __pencil_assume(i < m);
            A[i] = 0.0;
          }
        }
    """)
    assert scop.context.is_equal(_set(scop, "[n, m] -> { : n <= 0 or m >= n }"))


def test_non_affine_subscript_is_a_may_access_to_any_element(tmp_path):
    """pet's over-approximation: `A[B[i]] = 0` may write any element of A (not a must-write;
    of a PENCIL array `[static const restrict n]`, one of its n), the subscript's read of B[i]
    is the statement's, and the record lists the access."""
    source = """\
        void f(int n, int B[static const restrict n], double A[static const restrict n]) {
          for (int i = 0; i < n; i++)
            A[B[i]] = 0.0;
          for (int i = 0; i < n; i++)
            A[i * i % n] += 1.0;
        }
    """
    scop = scop_of(tmp_path, source)
    assert scop.must_writes.is_empty()
    ctx = scop.context.get_ctx()
    assert scop.may_writes.is_equal(isl.UnionMap.read_from_str(
        ctx, "[n] -> { S_0[i] -> A[o] : 0 <= i, o < n; S_1[i] -> A[o] : 0 <= i, o < n }"))
    assert scop.reads.is_equal(isl.UnionMap.read_from_str(
        ctx, "[n] -> { S_0[i] -> B[i] : 0 <= i < n; S_1[i] -> A[o] : 0 <= i, o < n }"))
    outcome = optimise(tmp_path, source, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["parallel_loops"] == 0
    assert outcome.facts["approximated_accesses"] == (
        "'A[B[i]]' at t.c:3:5: any element along a non-affine subscript",
        "'A[((i * i) % n)]' at t.c:5:5: any element along a non-affine subscript")


@pytest.mark.parametrize("body, reason", [
    ("int i = 0; do { A[i] = 0; i++; } while (i < n);", "'do-while' loop at t.c:3:14"),
    ("for (int i = 0; i < n; i++) { if (i == 3) break; A[i] = 0; return; }",
     "loop at t.c:3:3 with 'break' or 'continue' around 'return' statement at t.c:3:62"),
    ("for (int i = 0; i != n; i++) A[i] = 0;", "condition of the loop at t.c:3:3 is not a bound on 'i'"),
    ("for (int i = 0; i < n; i++) { A[i] = 0; i++; }",
     "loop iterator 'i' is written in the body of the loop at t.c:3:3"),
    ("for (int i = 0; i < n; i++) if (A[i] > 0) for (int j = 0; j < n; j++) { A[j] = 0; return; }",
     "non-affine condition 'A[i] > 0' at t.c:3:35 (non-affine expression 'A[i]' at t.c:3:35), "
     "around 'return' statement at t.c:3:85"),
    ("for (int i = 0; i < n; i++) A[i] = g(A[i]);",
     "call to 'g' at t.c:3:38 may have side effects (it has no body, no summary (pencil_access), "
     "and is not a PENCIL function)"),
    ("for (int i = 0; i < n; i += n) A[i] = 0;", "loop step 'i += n' at t.c:3:26 of 'i' is not a non-zero "
                                                 "constant increment"),
])
def test_unsupported_constructs_fall_back_with_exact_reasons(tmp_path, body, reason):
    source = f"double g(double);\nvoid f(int n, double A[static const restrict n]) {{\n  {body}\n}}\n"
    with pytest.raises(NotModelled) as info:
        scop_of(tmp_path, source)
    assert info.value.reason == reason


def test_strided_decreasing_and_min_bounded_loops(tmp_path):
    scop = scop_of(tmp_path, """\
        void f(int n, int m, double A[static const restrict 100]) {
          for (int i = n - 1; i >= 0; i -= 3)
            A[i] = 1.0;
          for (int i = 0; i < n && i < m; i += 2)
            A[i] = 2.0;
          for (int i = 0; i < (n < 30 ? n : 30); i++)
            A[i] = 3.0;
        }
    """)
    domains = {s.name: s.domain for s in scop.statements}
    assert domains["S_0"].is_equal(_set(scop, "[n, m] -> { S_0[i] : 0 <= i < n and (n - 1 - i) mod 3 = 0 }"))
    assert domains["S_1"].is_equal(_set(scop, "[n, m] -> { S_1[i] : 0 <= i < n and i < m and i mod 2 = 0 }"))
    assert domains["S_2"].is_equal(_set(scop, "[n, m] -> { S_2[i] : 0 <= i < n and i < 30 }"))
    # The decreasing loop is scheduled by -i: source order is kept.
    flat = scop.original_schedule.get_map()
    assert flat.intersect_domain(isl.UnionSet.from_set(domains["S_0"])).is_equal(
        _umap(scop, "[n, m] -> { S_0[i] -> [0, -i] : 0 <= i < n and (n - 1 - i) mod 3 = 0 }"))


def test_division_truncates_toward_zero(tmp_path):
    scop = scop_of(tmp_path, """\
        void f(int n, double A[static const restrict 100], double B[static const restrict 100]) {
          for (int i = 0; i < 20; i++)
            A[i / 2] = B[(i - 7) / 2 + 10] + B[(i - 7) % 2 + 50];
        }
    """)
    assert scop.must_writes.is_equal(_umap(scop, "[n] -> { S_0[i] -> A[floor(i / 2)] : 0 <= i < 20 }"))
    # (i - 7) / 2 rounds -7/2 to -3 (C), not -4 (floor); (i - 7) % 2 is -1 for i = 0.
    first = scop.reads.intersect_domain(isl.UnionSet.from_set(_set(scop, "[n] -> { S_0[0] }")))
    assert first.is_equal(_umap(scop, "[n] -> { S_0[0] -> B[7]; S_0[0] -> B[49] }"))


def test_locals_become_statements_and_kills(tmp_path):
    scop = scop_of(tmp_path, """\
        #include <pencil.h>
        void f(int n, double A[static const restrict n], double B[static const restrict n]) {
          for (int i = 0; i < n; i++) {
            double t = B[i];
            double u;
            u = t * t;
            A[i] = u;
            __pencil_kill(u);
          }
        }
    """)
    assert [(s.name, s.kind) for s in scop.statements] == [
        ("S_0", "compute"), ("K_0", "kill"), ("S_1", "compute"), ("S_2", "compute"), ("K_1", "kill")]
    assert [d.name for d in scop.locals] == ["t", "u"]
    assert all(d.init is None for d in scop.locals)
    assert scop.statement("S_0").body.expr.op == "="
    assert scop.kills.is_equal(_umap(scop, "[n] -> { K_0[i] -> u[] : 0 <= i < n; K_1[i] -> u[] : 0 <= i < n }"))
    t = scop.array("t")
    assert t.local and not t.live_out and scop.array("u").killed
    # Kills are part of the source order (for dependence analysis), not of the schedule.
    assert not scop.schedule.get_domain().is_equal(scop.original_schedule.get_domain())


def test_polybench_style_iterators_and_written_scalars(tmp_path):
    scop = scop_of(tmp_path, """\
        void f(int n, double A[100], double *s) {
          int i;
          double acc;
        #pragma scop
          acc = 0.0;
          for (i = 0; i < n; i++)
            acc += A[i];
          s[0] = acc;
        #pragma endscop
          s[1] = acc;
        }
    """)
    assert scop.params == ("n",)
    assert scop.must_writes.is_equal(_umap(scop, "[n] -> { S_0[] -> acc[]; S_1[i] -> acc[] : 0 <= i < n;"
                                                 " S_2[] -> s[0] }"))
    assert scop.array("acc").live_out and scop.array("s").extents == (None,)
