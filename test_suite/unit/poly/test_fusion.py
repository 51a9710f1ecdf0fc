# SPDX-License-Identifier: MIT
"""The fusion model (clangpass.poly.fusion) and its use by the `schedule` pass.

Each test builds a small region, lets isl schedule it with maximal and with
minimal fusion, and checks what the model measures and keeps: a chain of matrix
products (3mm's shape) must not be fused into a column walk, gemm keeps its
fused `C *= beta`, a single strongly connected component is scheduled once, and
`-fpencil-fusion=max|min` overrides the model. The records carry the choice.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.poly.dependences import compute_dependences
from clangpass.poly.fusion import ScheduleCost, choose_fusion, dependence_components, schedule_cost

from test_suite.unit.poly.snippets import optimise, optimised_and_checked, scop_of
from test_suite.unit.poly.test_schedule import GEMM

# 3mm's shape: E = A*B and F = C*D feed G = E*F. Maximal fusion interleaves the producers with the
# consumer so that G's reduction walks E and G down columns; minimal fusion keeps three products.
THREE_MM = """\
void mm3(int ni, int nj, int nk, int nl, int nm,
         double E[static const restrict ni][nj], double A[static const restrict ni][nk],
         double B[static const restrict nk][nj], double F[static const restrict nj][nl],
         double C[static const restrict nj][nm], double D[static const restrict nm][nl],
         double G[static const restrict ni][nl]) {
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (int k = 0; k < nk; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  for (int i = 0; i < nj; i++)
    for (int j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (int k = 0; k < nm; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (int k = 0; k < nj; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
}
"""

# One recurrence: both statements depend on each other through the time loop.
STENCIL = """\
void jacobi(int tsteps, int n, double A[static const restrict n], double B[static const restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
"""


def _candidates(scop) -> dict[str, isl.Schedule]:
    """isl's schedules of `scop` with maximal and with minimal fusion (every dependence as constraint)."""
    deps = compute_dependences(scop, 0).all
    constraints = (isl.ScheduleConstraints.on_domain(scop.domain).set_context(scop.context)
                   .set_validity(deps).set_proximity(deps).set_coincidence(deps))
    ctx = scop.domain.get_ctx()
    saved = ctx.get_schedule_serialize_sccs()
    try:
        result = {}
        for name, serialize in (("max", False), ("min", True)):
            ctx.set_schedule_serialize_sccs(serialize)
            result[name] = constraints.compute_schedule()
        return result
    finally:
        ctx.set_schedule_serialize_sccs(saved)


def test_three_products_cost_less_unfused(tmp_path):
    scop = scop_of(tmp_path, THREE_MM)
    candidates = _candidates(scop)
    fused, separate = (schedule_cost(scop, candidates[n]) for n in ("max", "min"))
    # Fused, a reduction's innermost step jumps a row, and the nest is no longer one
    # permutable band that tile and point-loop-order could reorder.
    assert fused.strided_accesses > 0 and fused.untiled_statements > 0
    assert fused.key() > separate.key()
    assert separate == ScheduleCost(0, 0, 0, separate.shared_arrays, statements=separate.statements)
    assert fused.shared_arrays > separate.shared_arrays
    choice = choose_fusion(scop, candidates)
    assert choice.strategy == "min"
    assert "strided accesses" in choice.reason


def test_gemm_keeps_maximal_fusion(tmp_path):
    scop = scop_of(tmp_path, GEMM)
    candidates = _candidates(scop)
    fused, separate = (schedule_cost(scop, candidates[n]) for n in ("max", "min"))
    # Both tile the product; the fused schedule also keeps C *= beta with it (C shared).
    assert (fused.strided_accesses, fused.sequential_statements, fused.untiled_statements) == (0, 0, 0)
    assert fused.shared_arrays == 1 and separate.shared_arrays == 0
    assert choose_fusion(scop, candidates).strategy == "max"


def test_equal_schedules_keep_the_first(tmp_path):
    scop = scop_of(tmp_path, GEMM)
    schedule = _candidates(scop)["max"]
    choice = choose_fusion(scop, {"max": schedule, "min": schedule})
    assert choice.strategy == "max" and "same schedule" in choice.reason


def test_dependence_components(tmp_path):
    stencil = scop_of(tmp_path, STENCIL)
    names = [s.name for s in stencil.compute_statements]
    assert dependence_components(names, compute_dependences(stencil, 0).all) == [set(names)]
    three = scop_of(tmp_path, THREE_MM)
    components = dependence_components([s.name for s in three.compute_statements], compute_dependences(three, 0).all)
    # Each initialisation and its reduction form a chain, not a cycle: one component per statement.
    assert len(components) == len(three.compute_statements)
    assert all(len(c) == 1 for c in components)


def test_schedule_pass_records_the_choice(tmp_path):
    outcome = optimise(tmp_path, THREE_MM, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["fusion"] == "min" and outcome.facts["fusion_reason"].startswith("fusion model")
    record = outcome.as_record()
    assert record["fusion"] == "min" and "strided accesses" in record["fusion_reason"]
    # Every initialisation and every product is a tiled band of its own.
    assert outcome.facts["tiled_bands"] == 6


def test_user_override_and_single_component(tmp_path):
    forced = optimise(tmp_path, THREE_MM, opt_level=3, fusion="max")
    assert forced.facts["fusion"] == "max" and forced.facts["fusion_reason"] == "-fpencil-fusion=max"
    assert forced.facts["tiled_bands"] < 6
    stencil = optimise(tmp_path, STENCIL, opt_level=3)
    assert stencil.facts["fusion"] == "max" and "one strongly connected component" in stencil.facts["fusion_reason"]
    # -O1 does not schedule: no fusion decision is recorded.
    assert optimise(tmp_path, THREE_MM, opt_level=1).facts["fusion"] == ""


# gemver's shape: A updated, then read by columns for x, then x completed, then A read by rows
# for w. Maximal fusion updates A and reads it for x in one nest: A in two nests instead of three.
GEMVER = """\
void gemver(int n, double A[static const restrict n][n], double u[static const restrict n],
            double v[static const restrict n], double x[static const restrict n], double y[static const restrict n],
            double z[static const restrict n], double w[static const restrict n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] + u[i] * v[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x[i] = x[i] + A[j][i] * y[j];
  for (int i = 0; i < n; i++)
    x[i] = x[i] + z[i];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      w[i] = w[i] + A[i][j] * x[j];
}
"""


def test_matrix_vector_region_prefers_fewer_matrix_passes(tmp_path):
    scop = scop_of(tmp_path, GEMVER)
    candidates = _candidates(scop)
    fused, separate = (schedule_cost(scop, candidates[n]) for n in ("max", "min"))
    assert (fused.matrix_passes, separate.matrix_passes) == (2, 3)
    choice = choose_fusion(scop, candidates)
    assert choice.strategy == "max" and "matrix passes" in choice.reason
    # Three-deep regions are not counted (gemm: 0 in both).
    gemm = scop_of(tmp_path, GEMM)
    assert all(schedule_cost(gemm, s).matrix_passes == 0 for s in _candidates(gemm).values())


# GEMVER in three-address code, the temporaries declared at function scope (region-local).
GEMVER_3AC = """\
void gemver(int n, double A[static const restrict n][n], double u[static const restrict n],
            double v[static const restrict n], double x[static const restrict n], double y[static const restrict n],
            double z[static const restrict n], double w[static const restrict n]) {
  double t1, t2, t3, t4, t5, t6;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t1 = u[i] * v[j];
      A[i][j] = A[i][j] + t1;
    }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t2 = A[j][i] * y[j];
      t3 = x[i] + t2;
      x[i] = t3;
    }
  for (int i = 0; i < n; i++) {
    t4 = x[i] + z[i];
    x[i] = t4;
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t5 = A[i][j] * x[j];
      t6 = w[i] + t5;
      w[i] = t6;
    }
}
"""


def test_a_schedule_without_parallel_loops_loses_to_one_with_them(tmp_path):
    # Maximal fusion saves passes over A with one skewed band in which no statement has a
    # parallel loop; minimal fusion keeps the products apart, tiled and parallel. Ranked by
    # matrix passes alone, maximal fusion won and source-order then put the source order back.
    outcome = optimised_and_checked(tmp_path, GEMVER_3AC, sizes=(4, 7))
    assert outcome.facts["fusion"] == "min", outcome.facts["fusion_reason"]
    assert "with no parallel loop" in outcome.facts["fusion_reason"].split("; min:")[0]
    assert not outcome.facts["source_order"] and outcome.facts["tiled_bands"] >= 1 and outcome.facts["parallel_loops"] >= 2
    threadless = ScheduleCost(0, 0, 0, 0, matrix_passes=1, serial_statements=3, statements=3)
    threaded = ScheduleCost(0, 3, 0, 0, matrix_passes=3, serial_statements=1, statements=3)
    assert threadless.threadless and not threaded.threadless and threaded.key() < threadless.key()



TRISOLV_3AC = """\
void trisolv(int n, double L[static const restrict n][n], double x[static const restrict n],
             double b[static const restrict n]) {
  double t1, t2, t3;
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++) {
      t1 = L[i][j] * x[j];
      t2 = x[i] - t1;
      x[i] = t2;
    }
    t3 = x[i] / L[i][i];
    x[i] = t3;
  }
}
"""


def test_a_parallel_loop_anywhere_breaks_a_tie(tmp_path):
    # The solve has no parallel loop under any fusion. With its temporaries' conditional validity
    # constraints, isl's maximal fusion skews everything into one band, `x[i] = b[i]` included;
    # minimal fusion distributes that statement into a parallel loop of its own, as the original
    # kernel's schedule does. Otherwise equal, the candidate with a parallel loop wins.
    outcome = optimised_and_checked(tmp_path, TRISOLV_3AC, sizes=(1, 5))
    assert outcome.facts["fusion"] == "min", outcome.facts["fusion_reason"]
    assert "no parallel loop at all" in outcome.facts["fusion_reason"].split("; min:")[0]
    assert outcome.facts["parallel_loops"] == 1 and not outcome.facts["source_order"]
    somewhere = ScheduleCost(0, 3, 0, 5, matrix_passes=1, serial_statements=3, statements=3)
    assert replace(somewhere, parallel_loops=False).key() > somewhere.key()



# Two statements of one band, one walking A by rows and one by columns.
TRANSPOSED = """\
void f(int n, double A[static const restrict n][n], double B[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      A[i][j] = A[i][j] + 1.0;
      B[j][i] = B[j][i] * 2.0;
    }
}
"""


def _one_band(scop, coincident: bool) -> isl.Schedule:
    """Both statements in one permutable band [i, j] (coincident or not)."""
    band = isl.MultiUnionPwAff.read_from_str(scop.context.get_ctx(),
                                             "[n] -> [{ S_0[i, j] -> [(i)]; S_1[i, j] -> [(i)] }, "
                                             "{ S_0[i, j] -> [(j)]; S_1[i, j] -> [(j)] }]")
    node = isl.Schedule.from_domain(scop.domain).get_root().child(0).insert_partial_schedule(band)
    node = node.band_set_permutable(1)
    for m in range(2):
        node = node.band_member_set_coincident(m, coincident)
    return node.get_schedule()


def test_a_band_has_one_innermost_loop_for_all_its_statements(tmp_path):
    scop = scop_of(tmp_path, TRANSPOSED)
    # Whichever member is innermost, one of the two statements jumps from row to row (B[j][i],
    # read and written, is one access); each statement choosing its own member counted none.
    assert schedule_cost(scop, _one_band(scop, coincident=True)).strided_accesses == 1
    # A band with no coincident member keeps its order (point-loop-order leaves it): j
    # innermost, B[j][i] jumps.
    assert schedule_cost(scop, _one_band(scop, coincident=False)).strided_accesses == 1
