# SPDX-License-Identifier: MIT
"""Deterministic bounds on the analysis (clangpass.poly.budget): the size of a region's source,
checked before its model is built, and isl's work outside the passes' budgeted steps."""
from __future__ import annotations

from clangpass.poly.budget import size_problem, source_size
from test_suite.unit.poly.snippets import optimise, region_of

NEST = """
void f(int n, double A[restrict 8][8], double s[restrict 1])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double t = A[i][0];
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] * t;
    s[0] += t;
  }
#pragma endscop
}
"""


def test_source_size_counts_statements_and_loop_depth(tmp_path):
    region, _ = region_of(tmp_path, NEST)
    # `double t = ..`, `A[i][j] = ..`, `s[0] += t`; the loops' own `int i = 0` are not statements.
    assert source_size(region.body) == (3, 2)


def test_size_problem_names_the_bound_and_its_flag(tmp_path):
    region, _ = region_of(tmp_path, NEST)
    assert size_problem(region.body, 3, 2) == ""
    assert size_problem(region.body, 0, 0) == ""
    assert size_problem(region.body, 2, 2) == ("3 statements, more than the 2 pencilcc analyses in one region "
                                               "(-fpencil-max-statements=)")
    assert size_problem(region.body, 3, 1) == ("loops nested 2 deep, deeper than the 1 pencilcc analyses "
                                               "(-fpencil-max-loop-depth=)")


def test_a_region_over_a_size_bound_falls_back_before_extraction(tmp_path):
    outcome = optimise(tmp_path, NEST, opt_level=3, max_statements=2)
    assert outcome.status == "fallback"
    assert outcome.reason.startswith("3 statements, more than the 2")
    assert set(outcome.pass_seconds) == {"extract"}
    assert optimise(tmp_path, NEST, opt_level=3, max_loop_depth=1).status == "fallback"
    assert optimise(tmp_path, NEST, opt_level=3).status == "optimized"


def test_isl_work_outside_the_budgeted_steps_is_bounded_too(tmp_path):
    """With a tiny isl budget every region still gets an outcome that names the budget (never an
    internal error), the same one each time: the count is isl's, not the clock's."""
    outcomes = [optimise(tmp_path, NEST, opt_level=3, isl_max_operations=limit) for limit in (5, 5, 50, 50)]
    for outcome in outcomes:
        assert "internal error" not in outcome.reason, outcome.reason
        assert outcome.status == "optimized" or "isl operations" in outcome.reason, outcome.reason
    assert outcomes[0].reason == outcomes[1].reason and outcomes[2].reason == outcomes[3].reason
