# SPDX-License-Identifier: MIT
"""Statement clustering (thesis ch. 3): heuristics, the validity of a decision, Algorithm 1."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.passes.cluster_stmts import _deepest_reach, _reaches_next, bb_decision, cluster, scc_decision, user_decision
from clangpass.poly.clustering import (apply_decision, decision_problems, dependence_pairs, format_clustering,
                                       source_structure, strongly_connected)
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.live_ranges import live_ranges, relax_false_dependences
from clangpass.poly.validity import dependence_violations

from test_suite.unit.poly.snippets import optimise, optimised_and_checked, scop_of

# Thesis Fig. 3.1: four statements, seven dependence relations.
FIG_3_1 = """\
void f(int n, double A[static const restrict n][n], double B[static const restrict n][n],
       double C[static const restrict n][n], double D[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double temp1 = A[i][j] * B[i][j];
      C[i][j] = temp1;
      double temp2 = A[i][j] * C[i][j];
      D[i][j] = temp2;
    }
}
"""

# Thesis Fig. 3.5: basic blocks {S0, S1}, {S2, S3}, {S4} (the guard starts a block).
FIG_3_5 = """\
void f(int n, int l, double A[static const restrict n], double B[static const restrict n][n]) {
  for (int i = 0; i < n; i++) {
    A[i] = A[i] + 1.0;
    A[i] = A[i] * 2.0;
    for (int j = 0; j < n; j++) {
      B[i][j] = B[i][j] + A[i];
      B[i][j] = B[i][j] * 0.5;
      if (l > 0)
        B[i][j] = B[i][j] - 1.0;
    }
  }
}
"""

# An SCC whose cycle advances two iterations: not dense (S_0[i] reaches S_1[i], S_1[i] only S_0[i + 2]).
SPARSE_CYCLE = """\
void f(int n, double x[static const restrict n], double y[static const restrict n]) {
  for (int i = 2; i < n; i++) {
    x[i] = y[i - 2] + 1.0;
    y[i] = x[i] * 0.5;
  }
}
"""


def _all(scop) -> isl.UnionMap:
    return compute_dependences(scop).all


def test_source_structure_finds_loops_and_basic_blocks(tmp_path):
    structure = source_structure(scop_of(tmp_path, FIG_3_5))
    assert structure.order == ("S_0", "S_1", "S_2", "S_3", "S_4")
    assert structure.blocks == (("S_0", "S_1"), ("S_2", "S_3"), ("S_4",))
    assert len(structure.loops["S_0"]) == 1 and structure.loops["S_2"][:1] == structure.loops["S_0"]
    assert bb_decision(structure) == [["S_0", "S_1"], ["S_2", "S_3"]]


def test_scc_clustering_of_the_thesis_example(tmp_path):
    scop = scop_of(tmp_path, FIG_3_1)
    structure = source_structure(scop)
    assert scc_decision(structure, dependence_pairs(_all(scop))) == [["S_0", "S_1"], ["S_2", "S_3"]]
    clustering = cluster(scop, compute_dependences(scop), "scc", None)
    assert clustering.clusters == (("S_0", "S_1"), ("S_2", "S_3")) and clustering.names == ("M_0", "M_1")
    # Fig. 3.2 -> Fig. 3.3: 4 statements and 7 dependences become 2 macro-statements and 3 dependences.
    assert (clustering.dependences_before, clustering.scheduled_statements, clustering.dependences_after) == (7, 2, 3)
    assert "M_0 := { S_0, S_1 };" in format_clustering(clustering)


def test_bb_clustering_makes_one_macro_statement_per_block(tmp_path):
    fig = scop_of(tmp_path, FIG_3_1)
    clustering = cluster(fig, compute_dependences(fig), "bb", None)
    assert clustering.clusters == (("S_0", "S_1", "S_2", "S_3"),)
    assert clustering.scheduled_statements == 1 and clustering.dependences_after == 1


def test_a_sparse_cycle_is_not_clustered(tmp_path):
    scop = scop_of(tmp_path, SPARSE_CYCLE)
    assert scc_decision(source_structure(scop), dependence_pairs(_all(scop))) == []


@pytest.mark.parametrize("decision, problem", [
    ([["S_0", "S_2"]], "comes back to the same instance through S_1"),     # thesis section 3.6.1
    ([["S_0", "S_9"]], "'S_9' is not an executed statement"),
    ([["S_0", "S_1"], ["S_1", "S_2"]], "'S_1' is in two clusters"),
])
def test_invalid_decisions_say_why(tmp_path, decision, problem):
    scop = scop_of(tmp_path, FIG_3_1)
    problems = decision_problems(scop, _all(scop), decision)
    assert len(problems) == 1 and problem in problems[0]


def test_clusters_need_the_same_loops_and_domain(tmp_path):
    scop = scop_of(tmp_path, FIG_3_5)
    deps = _all(scop)
    assert "not in the same loops" in decision_problems(scop, deps, [["S_1", "S_2"]])[0]
    assert "different iteration domains" in decision_problems(scop, deps, [["S_3", "S_4"]])[0]
    assert decision_problems(scop, deps, [["S_0", "S_1"], ["S_2", "S_3"]]) == []


def test_two_clusters_that_wait_for_each_other_are_invalid(tmp_path):
    # S_0 -> S_1 and S_2 -> S_3 in one iteration: {S_0, S_3} and {S_1, S_2} would each need the other first.
    source = """\
void f(int n, double A[static const restrict n], double B[static const restrict n],
       double C[static const restrict n], double D[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    A[i] = D[i] + 1.0;
    B[i] = A[i] * 2.0;
    C[i] = B[i] - 1.0;
    D[i] = C[i] * 0.5;
  }
}
"""
    scop = scop_of(tmp_path, source)
    problems = decision_problems(scop, _all(scop), [["S_0", "S_3"], ["S_1", "S_2"]])
    assert problems and "{S_1, S_2}" in problems[0]


def test_algorithm_1_recovers_a_valid_statement_schedule(tmp_path):
    scop = scop_of(tmp_path, FIG_3_1)
    deps = _all(scop)
    clustering = apply_decision(scop, [["S_0", "S_1"], ["S_2", "S_3"]], "user")
    # { S[i, j] -> M[i, j] }: each macro-statement's domain is its statements' domain.
    ctx = clustering.domain.get_ctx()
    assert clustering.domain.is_equal(isl.UnionSet.read_from_str(
        ctx, "[n] -> { M_0[i, j] : 0 <= i < n and 0 <= j < n; M_1[i, j] : 0 <= i < n and 0 <= j < n }"))
    macro = clustering.macro(deps)
    assert macro.is_subset(isl.UnionMap.read_from_str(
        ctx, "[n] -> { M_0[i, j] -> M_0[i', j']; M_0[i, j] -> M_1[i', j']; M_1[i, j] -> M_1[i', j'] }"))
    assert macro.intersect(clustering.domain.identity()).is_empty()
    schedule = (isl.ScheduleConstraints.on_domain(clustering.domain).set_validity(macro)
                .set_coincidence(macro).compute_schedule())
    recovered = clustering.statement_schedule(schedule, scop.domain)
    assert recovered.get_domain().is_equal(scop.domain)
    assert dependence_violations(recovered, deps) == []


def test_clustered_regions_are_optimized_and_say_what_the_scheduler_saw(tmp_path):
    plain = optimise(tmp_path, FIG_3_1, opt_level=3)
    assert (plain.statements, plain.scheduled_statements, plain.dependences_after_clustering) == (4, 4, 7)
    for heuristic, scheduled in (("scc", 2), ("bb", 1)):
        outcome = optimise(tmp_path, FIG_3_1, opt_level=3, cluster=heuristic)
        assert outcome.status == "optimized" and outcome.reason == "", outcome.reason
        assert (outcome.clustering, outcome.statements, outcome.scheduled_statements) == (heuristic, 4, scheduled)
        assert outcome.facts["parallel_loops"] == plain.facts["parallel_loops"]
        record = outcome.as_record()
        assert record["dependences_before_clustering"] == 7 and record["clustering_time"] > 0
        assert record["scheduling_time"] > 0 and record["status"] == "optimized"


def test_a_user_decision_is_checked(tmp_path):
    good = optimise(tmp_path, FIG_3_1, opt_level=3, cluster_decision=(("f", (("S_0", "S_1"),)),))
    assert good.clustering == "user" and good.scheduled_statements == 3 and not good.clustering_problems
    bad = optimise(tmp_path, FIG_3_1, opt_level=3, cluster_decision=(("*", (("S_0", "S_2"),)),))
    assert bad.status == "optimized" and bad.scheduled_statements == 4
    assert bad.clustering_problems and "through S_1" in bad.clustering_problems[0]
    assert user_decision((("g", (("S_0",),)), ("*", (("S_1", "S_2"),))), "f") == [["S_1", "S_2"]]
    assert user_decision((("g", (("S_0",),)),), "f") is None


def test_strongly_connected_components_in_order():
    graph = {"a": {"b"}, "b": {"a", "c"}, "c": {"d"}, "d": {"c"}, "e": set()}
    assert strongly_connected(["a", "b", "c", "d", "e"], graph) == [["a", "b"], ["c", "d"], ["e"]]


def test_large_regions_with_relaxed_false_dependences_are_clustered_by_default(tmp_path):
    # Over CLUSTER_ABOVE_RELAXED_STATEMENTS statements whose temporaries' false dependences are
    # relaxed, isl's scheduler is not bounded by its operation count (3AC adi): basic blocks.
    from clangpass.poly.budget import CLUSTER_ABOVE_RELAXED_STATEMENTS
    from test_suite.random.large import stencil_chain
    big = optimise(tmp_path, stencil_chain(80, size=12, per_stage=20), opt_level=3)
    assert big.status == "optimized" and big.statements > CLUSTER_ABOVE_RELAXED_STATEMENTS
    assert big.clustering == "bb" and big.scheduled_statements < big.statements
    assert f"clustered by basic blocks (more than {CLUSTER_ABOVE_RELAXED_STATEMENTS} with relaxed" in big.reason
    small = optimise(tmp_path, stencil_chain(30, size=12, per_stage=15), opt_level=3)
    assert small.status == "optimized" and small.statements <= CLUSTER_ABOVE_RELAXED_STATEMENTS
    assert small.clustering == "" and small.scheduled_statements == small.statements



# Matrix products in three-address code, the temporaries at function scope (region-local).
MATMUL_3AC = """\
void f(int n, double alpha, double A[static const restrict n][n], double B[static const restrict n][n],
       double C[static const restrict n][n]) {
  double t1, t2, t3;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < n; k++) {
        t1 = alpha * A[i][k];
        t2 = t1 * B[k][j];
        t3 = C[i][j] + t2;
        C[i][j] = t3;
      }
}
"""

MATVEC_3AC = """\
void f(int n, double A[static const restrict n][n], double x[static const restrict n],
       double y[static const restrict n]) {
  double t1, t2, acc;
  for (int i = 0; i < n; i++) {
    acc = 0.0;
    for (int j = 0; j < n; j++) {
      t1 = A[i][j] * x[j];
      t2 = acc + t1;
      acc = t2;
    }
    y[i] = acc;
  }
}
"""


def test_storage_private_to_a_macro_statement_instance_constrains_nothing(tmp_path):
    # bb: the four statements of the product are one macro-statement, and every temporary lives
    # within one of its instances: none of their false dependences is left to the scheduler.
    scop = scop_of(tmp_path, MATMUL_3AC)
    relaxed = relax_false_dependences(scop, compute_dependences(scop), live_ranges(scop), 0)
    clustering = cluster(scop, compute_dependences(scop), "bb", None)
    assert [list(c) for c in clustering.clusters] == [["S_0", "S_1", "S_2", "S_3"]]
    assert clustering.instance_private(relaxed, scop) == {"t1", "t2", "t3"}
    problem = clustering.macro_relaxed(relaxed, scop)
    assert not clustering.macro(relaxed.relaxed).is_empty() and problem.relaxed.is_empty()
    assert problem.enforced.is_equal(clustering.macro(relaxed.enforced))
    # In the matrix-vector product acc lives from one instance to the next, and into y[i] =
    # acc: its false dependences stay (t1 and t2 are private, and share their pairs with acc's).
    vector = scop_of(tmp_path, MATVEC_3AC)
    relaxed = relax_false_dependences(vector, compute_dependences(vector), live_ranges(vector), 0)
    clustering = cluster(vector, compute_dependences(vector), "bb", None)
    assert [list(c) for c in clustering.clusters] == [["S_1", "S_2", "S_3"]]
    assert clustering.instance_private(relaxed, vector) == {"t1", "t2"}
    assert clustering.macro_relaxed(relaxed, vector).relaxed.is_equal(clustering.macro(relaxed.relaxed))
    for source in (MATMUL_3AC, MATVEC_3AC):
        unclustered = optimised_and_checked(tmp_path, source, sizes=(3, 6))
        clustered = optimised_and_checked(tmp_path, source, sizes=(3, 6), cluster="bb")
        assert clustered.scheduled_statements < clustered.statements
        assert (clustered.facts["parallel_loops"], clustered.facts["tiled_bands"]) == (unclustered.facts["parallel_loops"],
                                                                     unclustered.facts["tiled_bands"])


@pytest.mark.parametrize("dep, deepest", [
    ("[n] -> { S[i, j, k] -> T[i, j, k] : 0 <= i, j, k < n }", 2),              # within one iteration
    ("[n] -> { S[i, j, k] -> T[i, j, k + 1] : 0 <= i, j, k < n }", 2),          # the next k
    ("[n] -> { S[i, j, k] -> T[i, j, k + 2] : 0 <= i, j, k < n }", 1),          # two k on: same j only
    ("[n] -> { S[i, j, k] -> T[i, j + 3, k'] : 0 <= i, j, k, k' < n }", 0),     # three j on: same i only
    ("[n] -> { S[i, j, k] -> T[i + 2, j', k'] : 0 <= i, j, j', k, k' < n }", -1),
])
def test_deepest_reach_is_the_deepest_loop_each_test_passes(dep, deepest):
    # _dense asks _reaches_next at every depth; _deepest_reach answers them all (the test is
    # monotone in the depth) from the innermost loop outwards.
    m = isl.Map(dep)
    assert _deepest_reach(m, 3) == deepest
    assert [_reaches_next(m, k) for k in range(3)] == [k <= deepest for k in range(3)]


def test_scc_clustering_that_leaves_a_large_region_is_coarsened_to_basic_blocks(tmp_path):
    # The limit is on what isl's scheduler sees: 3AC adi's SCCs leave 42 of its 80 statements to
    # schedule (its maximal fusion then skews and keeps no parallel loop, and minimal fusion
    # splits the p and q recurrences into nests of their own: 0.76 of the speed); basic blocks.
    from clangpass.poly.budget import CLUSTER_ABOVE_RELAXED_STATEMENTS
    from test_suite.e2e import harness
    source = (harness.KERNELS_DIR / "three_address" / "polybench_3ac" / "adi.c").read_text()
    big = optimise(tmp_path, source, opt_level=3, cluster="scc")
    assert big.status == "optimized", big.reason
    assert big.clustering == "bb" and big.scheduled_statements <= CLUSTER_ABOVE_RELAXED_STATEMENTS
    assert "scc clustering left 42 statements to schedule: clustered by basic blocks" in big.reason
    small = optimise(tmp_path, MATMUL_3AC, opt_level=3, cluster="scc")
    assert small.status == "optimized" and small.clustering == "scc", small.reason
