# SPDX-License-Identifier: MIT
"""Array privatization with last-value copy-out (clangpass.poly.privatization, pass `privatize-arrays`).

doitgen's caller array `sum[]` is a per-(r, q) temporary: it gets a private copy, its
last writes also store to the caller's array, and the `r` loop becomes parallel. An
array whose values enter the region, one that no loop reuses (2mm's `tmp`), one only
written under a data-dependent condition, and one whose reuse loop carries other
dependences (a time loop) stay shared, each with its reason. Each optimised region is
run by the reference interpreter (parallel loops backwards) against the source.
"""
from __future__ import annotations

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.extract import extract_scop
from clangpass.poly.privatization import LAST_PREFIX, PRIVATE_PREFIX, privatize_arrays
from clangpass.poly.scop import accesses_through

from test_suite.unit.poly.snippets import optimised_and_checked, region_of

DOITGEN = """\
void k(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np]) {
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
"""

# The thesis's three-address form of DOITGEN: the temporaries are declared at function scope.
DOITGEN_3AC = """\
void k(int nr, int nq, int np, double A[nr][nq][np], double C4[np][np], double sum[np]) {
  double t1, t2;
#pragma scop
  for (int r = 0; r < nr; r++)
    for (int q = 0; q < nq; q++) {
      for (int p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (int s = 0; s < np; s++) {
          t1 = A[r][q][s] * C4[s][p];
          t2 = sum[p] + t1;
          sum[p] = t2;
        }
      }
      for (int p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
#pragma endscop
}
"""

# `sum` accumulates across rows: its values enter the region (read before written).
LIVE_IN = DOITGEN.replace("        sum[p] = 0.0;\n", "")

# 2mm's `tmp[i][j]`: each element belongs to one (i, j); no loop reuses it.
NO_REUSE = """\
void k(int n, double tmp[n][n], double A[n][n], double B[n][n], double D[n][n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      tmp[i][j] = 0.0;
      for (int l = 0; l < n; l++)
        tmp[i][j] += A[i][l] * B[l][j];
      D[i][j] += tmp[i][j];
    }
#pragma endscop
}
"""

# A row temporary reused across a time loop that `u` carries anyway.
TIME_LOOP = """\
void k(int t, int n, double u[n], double w[n]) {
#pragma scop
  for (int s = 0; s < t; s++) {
    for (int i = 0; i < n; i++)
      w[i] = 2.0 * u[i];
    for (int i = 1; i < n; i++)
      u[i] = w[i] + u[i - 1];
  }
#pragma endscop
}
"""

# A scalar of the caller written in each iteration and read after the region.
SCALAR = """\
double k(int n, double a[n], double b[n]) {
  double t;
#pragma scop
  for (int i = 0; i < n; i++) {
    t = a[i] * 2.0;
    b[i] = t + 1.0;
  }
#pragma endscop
  return t;
}
"""

CONDITIONAL = """\
void k(int n, int m, double a[n][m], double b[n][m], double t[m]) {
#pragma scop
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      if (a[i][j] > 0.5)
        t[j] = a[i][j];
    for (int j = 0; j < m; j++)
      b[i][j] = 2.0;
  }
#pragma endscop
}
"""


# The row temporary of the second nest, after a first nest whose loop at the same depth
# carries a dependence of its own (`c[i] += c[i - 1]`): that loop is another loop, so it
# neither blocks nor counts (random program seed 9, SMALL, once kept `T` shared for it).
AFTER_A_SEQUENTIAL_NEST = """\
void k(int n, int m, double a[n][m], double c[n], double t[m]) {
#pragma scop
  for (int i = 1; i < n; i++)
    c[i] += c[i - 1];
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      t[j] = 0.5 * a[i][j] + c[i];
    for (int j = 0; j < m; j++)
      a[i][j] = t[m - 1 - j];
  }
#pragma endscop
}
"""


def _privatized(tmp_path, source):
    region, module = region_of(tmp_path, source)
    scop = extract_scop(region, module, isl.Context())
    return privatize_arrays(scop, compute_dependences(scop))


def test_doitgen_sum_gets_a_private_copy_and_a_last_value_copy_out(tmp_path):
    scop, done = _privatized(tmp_path, DOITGEN)
    assert done.names == ("sum",)
    private = PRIVATE_PREFIX + "sum"
    assert scop.array(private).local and not scop.array("sum").local and scop.array("sum").live_out
    assert [d.name for d in scop.locals] == [private]
    # Only the split-off last writes (r = nr - 1, q = nq - 1, s = np - 1) store to the caller's array.
    (final,) = done.arrays[0].copies
    writes_sum = accesses_through(scop.must_writes, frozenset({"sum"}))
    writers: list[str] = []
    writes_sum.foreach_map(lambda m: writers.append(m.get_tuple_name(isl.dim_type.in_)))
    assert writers == [final]
    statement = scop.statement(final)
    assert statement.domain.dim_max(3).is_equal(statement.domain.dim_min(3))   # s is fixed: np - 1
    # Every other statement now works on the private copy.
    for s in scop.compute_statements:
        if s.name != final:
            assert "sum[" not in str(s.body).replace(private, "")
    assert done.size_condition == "((long long)(np) <= 131072LL)"


def test_shared_arrays_say_why(tmp_path):
    for source, why in ((LIVE_IN, "read before it is written"), (NO_REUSE, "no loop reuses it"),
                        (TIME_LOOP, "every loop it would free carries other dependences"),
                        (CONDITIONAL, "conditionally written")):
        scop, done = _privatized(tmp_path, source)
        assert done.arrays == () and done.names == ()
        reasons = dict(done.kept)
        assert any(why in r for r in reasons.values()), (why, reasons)


def _optimise_and_compare(tmp_path, source, **options):
    return optimised_and_checked(tmp_path, source, **options)


def test_doitgen_runs_in_parallel_and_computes_the_same_values(tmp_path):
    outcome = _optimise_and_compare(tmp_path, DOITGEN, tile_size=3)
    assert outcome.facts["privatized_arrays"] == ("sum",) and outcome.facts["parallel_loops"] >= 1
    assert outcome.as_record()["privatized_arrays"] == ["sum"]
    assert "privatize-arrays" in outcome.pass_seconds
    off = _optimise_and_compare(tmp_path, DOITGEN, tile_size=3, disabled_passes=frozenset({"privatize-arrays"}))
    assert off.facts["privatized_arrays"] == () and off.facts["parallel_loops"] == 0


def test_caller_scalar_is_privatized_with_its_last_value(tmp_path):
    outcome = _optimise_and_compare(tmp_path, SCALAR, tile_size=3)
    assert outcome.facts["privatized_arrays"] == ("t",) and outcome.facts["parallel_loops"] >= 1


def test_size_condition_joins_the_versioning_condition(tmp_path):
    region, module = region_of(tmp_path, DOITGEN)
    outcome = optimise_region(region, module, CompileOptions(opt_level=3), DumpSink())
    assert "((long long)(np) <= 131072LL)" in outcome.alias_check.condition


def test_a_loop_of_another_nest_does_not_block_privatization(tmp_path):
    scop, done = _privatized(tmp_path, AFTER_A_SEQUENTIAL_NEST)
    assert done.names == ("t",), done.kept
    outcome = _optimise_and_compare(tmp_path, AFTER_A_SEQUENTIAL_NEST, tile_size=3)
    assert outcome.facts["privatized_arrays"] == ("t",) and outcome.facts["parallel_loops"] >= 1


def test_an_isl_failure_keeps_the_array_shared(tmp_path, monkeypatch):
    """isl's compute_flow fails on some strided loops (random program seed 4430047): the
    array stays shared with the reason, and the region is still optimized."""
    import clangpass.poly.privatization as privatization

    def failing(*args):
        raise isl.Error("call to isl_union_access_info_compute_flow failed: affine expression "
                        "involves some of the domain dimensions")
    monkeypatch.setattr(privatization, "_analyse", failing)
    scop, done = _privatized(tmp_path, DOITGEN)
    assert done.arrays == () and "isl's dataflow analysis failed" in dict(done.kept)["sum"]
    region, module = region_of(tmp_path, DOITGEN)
    outcome = optimise_region(region, module, CompileOptions(opt_level=3), DumpSink())
    assert outcome.status == "optimized" and outcome.facts["privatized_arrays"] == ()


def test_three_address_last_writer_is_split_with_its_temporaries(tmp_path):
    # `sum[p] = t2` writes the last values; `t1 = ..` and `t2 = ..` compute them in the same
    # iteration: they are split at the same iterations and work on temporaries of their own.
    scop, done = _privatized(tmp_path, DOITGEN_3AC)
    assert done.names == ("sum",)
    (final,) = done.arrays[0].copies
    fixed = scop.statement(final).domain
    split = [s for s in scop.compute_statements if LAST_PREFIX in str(s.body)]
    assert len(split) == 3 and final in [s.name for s in split]
    for s in split:
        assert s.domain.set_tuple_name(final).is_equal(fixed), s.name
        assert " t1 " not in f" {s.body} " and " t2 " not in f" {s.body} "
    temporaries = {LAST_PREFIX + "t1", LAST_PREFIX + "t2"}
    assert temporaries <= {d.name for d in scop.locals}
    assert all(scop.array(t).local for t in temporaries)
    # No other statement touches the split-off temporaries.
    touching = accesses_through(scop.reads.union(scop.writes), frozenset(temporaries))
    names: set[str] = set()
    touching.foreach_map(lambda m: names.add(m.get_tuple_name(isl.dim_type.in_)))
    assert names == {s.name for s in split}


def test_three_address_doitgen_is_scheduled_like_the_original(tmp_path):
    # With the split-off unit apart, the (p, s) loops are one band as in the original form:
    # `p` becomes the innermost, vectorised loop of the reduction (the one statement's 4).
    original = _optimise_and_compare(tmp_path, DOITGEN, tile_size=3)
    three = _optimise_and_compare(tmp_path, DOITGEN_3AC, tile_size=3)
    assert three.facts["privatized_arrays"] == ("sum",) and three.facts["parallel_loops"] == original.facts["parallel_loops"]
    assert (three.facts["tiled_bands"], three.facts["vector_loops"]) == (original.facts["tiled_bands"], original.facts["vector_loops"]) == (1, 4)
