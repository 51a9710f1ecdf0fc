# SPDX-License-Identifier: MIT
"""`#pragma pencil independent reduction(op: v)` in the middle end: which updates may run on
threads (clangpass.poly.annotations.thread_reductions), the dependences dropped for them,
and the reductions mark-parallel hands to the back end (Scop.reductions, CodegenUnit.reductions)."""
from __future__ import annotations

from dataclasses import replace

import islpy as isl


from clangpass.ir import nodes as N
from clangpass.poly.annotations import annotation_reductions, declared_independent, reduction_results, thread_reductions
from clangpass.poly.dependences import compute_dependences

from test_suite.unit.poly.snippets import optimise, scop_of

UPDATES = """\
#include <math.h>
void f(int n, int a[static const restrict n], double d[static const restrict n], int s[static const restrict 1],
       double t[static const restrict 1], double p[static const restrict 1], double hi[static const restrict 1]) {
#pragma pencil independent reduction(+: s) reduction(-: t) reduction(*: p) reduction(max: hi)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    s[0] = a[i] + s[0];
    t[0] -= d[i];
    p[0] = p[0] * d[i];
    hi[0] = fmax(hi[0], d[i]);
  }
}
"""

# Each variable used in a way a private partial result cannot stand for.
MISUSED = """\
void g(int n, int a[static const restrict n], int s[static const restrict 1], int u[static const restrict 2],
       int w[static const restrict 1], int x[static const restrict 1]) {
#pragma pencil independent reduction(+: s, u, w) reduction(*: x)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    a[i] = s[0];
    u[i % 2] += 1;
    w[0] = w[0] * 2 + a[i];
    x[0] += 2;
  }
}
"""

INNER = """\
void h(int n, int m, double b[static const restrict n][m], double s[static const restrict 1]) {
  for (int i = 0; i < n; i++) {
#pragma pencil independent reduction(+: s)
    for (int j = 0; j < m; j++)
      s[0] += b[i][j] * i;
  }
}
"""

LOCAL = """\
void k(int n, double a[static const restrict n], double out[static const restrict 1]) {
  double s = 0;
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++)
    s += a[i];
  out[0] = s;
}
"""


def _reductions(scop):
    [annotation] = scop.annotations
    return thread_reductions(scop, annotation)


def test_updates_with_each_operator_are_reductions(tmp_path):
    scop = scop_of(tmp_path, UPDATES)
    usable, why = _reductions(scop)
    assert why == {}
    assert {(r.variable, r.operator, len(r.statements)) for r in usable} == {
        ("s", "+", 2), ("t", "+", 1), ("p", "*", 1), ("hi", "max", 1)}
    s = next(r for r in usable if r.variable == "s")
    assert isinstance(s.target, N.Subscript) and isinstance(s.target.index, N.IntLit)


def test_other_uses_keep_the_dependences(tmp_path):
    scop = scop_of(tmp_path, MISUSED)
    usable, why = _reductions(scop)
    assert usable == ()
    assert why["s"].startswith("the statement at line 6 uses it other than as a '+' update")
    assert why["u"] == "the loop does not update one element of it with constant subscripts"
    assert why["w"].startswith("the statement at line 8 uses it other than")
    assert why["x"].startswith("the statement at line 9 uses it other than as a '*' update")
    # The carried dependences through them stay.
    flow = compute_dependences(scop).flow
    assert not flow.is_empty()


def test_the_update_pairs_are_declared_independent(tmp_path):
    scop = scop_of(tmp_path, UPDATES)
    deps = compute_dependences(scop)
    for kind in (deps.flow, deps.anti, deps.output):
        # Only the order of the updates within one iteration is left (the next update reads s).
        kind.foreach_map(assert_same_iteration)
    assert not declared_independent(scop, annotation_reductions(scop)).is_empty()
    assert deps.independent.is_equal(declared_independent(scop, annotation_reductions(scop)))


def assert_same_iteration(m: isl.Map) -> None:
    assert m.is_subset(m.equate(isl.dim_type.in_, 0, isl.dim_type.out, 0)), m


def test_without_threads_the_dependences_stay(tmp_path):
    scop = scop_of(tmp_path, UPDATES)
    scop = replace(scop, annotations=tuple(replace(a, threads=False) for a in scop.annotations))
    usable, why = _reductions(scop)
    assert usable == () and why["s"] == "no loop runs on threads (-fno-pencil-parallel)"
    assert not compute_dependences(scop).flow.is_empty()


def test_region_locals_are_not_reduced_on_threads(tmp_path):
    scop = scop_of(tmp_path, LOCAL)
    usable, why = _reductions(scop)
    assert usable == () and why["s"].startswith("it is a variable of the region")


def test_the_parallel_loop_carries_its_reductions_to_the_back_end(tmp_path):
    outcome = optimise(tmp_path, UPDATES, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["parallel_loops"] >= 1
    assert {(r.variable, r.operator) for r in outcome.unit.reductions} == {
        ("s", "+"), ("t", "+"), ("p", "*"), ("hi", "max")}
    statements = {n for r in outcome.unit.reductions for n in r.statements}
    assert statements == set(outcome.unit.statements) == outcome.unit.unordered_updates
    plain = optimise(tmp_path, UPDATES.replace("#pragma pencil independent", "#pragma nothing"), opt_level=3)
    assert plain.facts["parallel_loops"] == 0 and plain.unit.reductions == ()


def test_a_reduction_inside_a_sequential_loop(tmp_path):
    outcome = optimise(tmp_path, INNER, opt_level=3)
    assert outcome.facts["parallel_loops"] == 1
    [r] = outcome.unit.reductions
    assert (r.variable, r.operator, r.statements) == ("s", "+", ("S_0",))
    ast = outcome.unit.ast.to_C_str()
    assert ast.index("for (int c0") < ast.index("// parallel")


def test_no_reduction_without_threads(tmp_path):
    outcome = optimise(tmp_path, UPDATES, opt_level=3, parallel=False)
    assert outcome.facts["parallel_loops"] == 0 and outcome.unit.reductions == ()
    [use] = outcome.pragmas
    assert "reduction variable 's' kept in order: no loop runs on threads" in use.missed
    assert {v: threads for v, _, threads in use.reductions} == {"s": False, "t": False, "p": False, "hi": False}


def test_pragma_use_says_the_reduction_ran_on_threads(tmp_path):
    outcome = optimise(tmp_path, UPDATES, opt_level=3)
    [use] = outcome.pragmas
    assert use.used and use.missed == ""
    assert "run on threads (private partial results combined in thread order)" in use.detail
    assert use.as_record()["reductions"] == [
        {"variable": "s", "operator": "+", "threads": True}, {"variable": "t", "operator": "-", "threads": True},
        {"variable": "p", "operator": "*", "threads": True}, {"variable": "hi", "operator": "max", "threads": True}]


def test_increments_are_sums(tmp_path):
    scop = scop_of(tmp_path, """\
void c(int n, int a[static const restrict n], int count[static const restrict 1], double x[static const restrict 1]) {
#pragma pencil independent reduction(+: count, x)
  for (int i = 0; i < n; i++) {
    if (a[i] > 0)
      count[0]++;
    x[0]++;
  }
}
""")
    usable, why = _reductions(scop)
    assert [r.variable for r in usable] == ["count", "x"] and why == {}


def test_every_update_precedes_a_read_of_the_result(tmp_path):
    scop = scop_of(tmp_path, """\
void r(int n, int a[static const restrict n], int s[static const restrict 1], int out[static const restrict 1]) {
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++)
    s[0] += a[i];
  out[0] = s[0];
}
""")
    dates = scop.original_schedule.get_map()
    results = reduction_results(scop, annotation_reductions(scop), dates.lex_lt_union_map(dates))
    ctx = scop.context.get_ctx()
    every = isl.UnionMap.read_from_str(ctx, "[n] -> { S_0[i] -> S_1[] : 0 <= i < n }")
    assert results.is_equal(every)
    # Value-based flow alone would order only the last update before the read.
    assert every.is_subset(compute_dependences(scop).flow)


def test_a_clause_may_name_the_element_it_reduces(tmp_path):
    """`reduction(+: s[0], S[1][0])` reduces the arrays s and S (the frontend's clause parser
    gives the array names; subscripts are not variables), `hist[i]` names only `hist`."""
    scop = scop_of(tmp_path, """\
void e(int n, int m, int a[static const restrict n], int s[static const restrict 1],
       int S[static const restrict 2][2], int hist[static const restrict m]) {
#pragma pencil independent reduction(+: s[0], S[1][0]) reduction(+: hist[i])
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    S[1][0] = S[1][0] + a[i];
    hist[a[i]] += 1;
  }
}
""")
    [annotation] = scop.annotations
    assert annotation.reductions == ("s", "S", "hist")
    usable, why = _reductions(scop)
    assert [r.variable for r in usable] == ["s", "S"]
    assert why == {"hist": "the loop does not update one element of it with constant subscripts"}


def test_the_element_reductions_the_linter_accepts_are_used(tmp_path):
    """--lint and -O3 agree on the lint snippet of valid element reductions: every pragma is
    used and names the arrays of its elements (threads or not is the schedule's choice)."""
    from test_suite.unit.lint.snippet_harness import SNIPPETS
    outcome = optimise(tmp_path, (SNIPPETS / "reduction.ok-element.c").read_text(), opt_level=3)
    assert [(use.used, [v for v, _, _ in use.reductions]) for use in outcome.pragmas] == [
        (True, ["s"]), (True, ["hi"]), (True, ["t", "S"]), (True, ["C", "hi"])]
    for use in outcome.pragmas:  # (the local scalar t is kept in order: not reduced on threads yet)
        assert not any(f"reduction variable '{array}' kept" in use.missed for array in ("s", "hi", "S", "C"))
