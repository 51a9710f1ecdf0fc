# SPDX-License-Identifier: MIT
"""Pass `demote-scalars` (clangpass.poly.demotion): scalars live across a loop replaced by the
array element they end in, or by the expression that defines them; every case run by the
region interpreter against the optimised AST."""
from __future__ import annotations

import pytest

from test_suite.unit.poly.snippets import optimised_and_checked

# PRE's matrix product: the accumulator lives across the k loop, then goes to C[i][j].
ACCUMULATOR = """\
void f(int n, double alpha, double A[n][n], double B[n][n], double C[n][n]) {
  double t;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t = C[i][j];
      t *= 0.5;
      for (int k = 0; k < n; k++)
        t += alpha * A[i][k] * B[k][j];
      C[i][j] = t;
    }
}
"""

# PRE's hoisted invariant: `alpha * A[i][k]` computed once per (i, k), read across the j loop.
INVARIANT = """\
void f(int n, double alpha, double A[n][n], double B[n][n], double C[n][n]) {
  double t1;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      t1 = alpha * A[i][k];
      for (int j = 0; j < n; j++)
        C[i][j] += t1 * B[k][j];
    }
}
"""

# The element is read while the accumulator lives: demoted, the reads would see partial sums.
READ_INSIDE = """\
void f(int n, double A[n][n], double X[n][n]) {
  double t;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t = 0.0;
      for (int k = 0; k < n; k++)
        t += X[i][j] * A[k][j];
      X[i][j] = t;
    }
}
"""

# An operand of the definition is written while the scalar lives (A[i][0] at j = 0).
OPERAND_WRITTEN = """\
void f(int n, double A[n][n]) {
  double t1;
  for (int i = 0; i < n; i++) {
    t1 = A[i][0];
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] + t1;
  }
}
"""

# Within one iteration: relax-false-deps handles the temporary without any rewrite.
PRIVATE = """\
void f(int n, double A[n], double B[n]) {
  double t;
  for (int i = 0; i < n; i++) {
    t = A[i] * 2.0;
    B[i] = t;
  }
}
"""

# A float accumulator stored to a double array: the store rounds, the element would not.
NARROWER = ACCUMULATOR.replace("  double t;", "  float t;")

# The accumulator's last value is read again after the nest.
READ_AFTER = """\
void f(int n, double A[n][n], double s[n], double B[n]) {
  double t;
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int j = 0; j < n; j++)
      t += A[i][j];
    s[i] = t;
  }
  for (int i = 0; i < n; i++)
    B[i] = t;
}
"""

# The scalar goes on after the store to X[i]: demoted to X[i], that element would get the later
# value; the last store, Z[i], is the one it can become.
GOES_ON = """\
void f(int n, double A[n][n], double X[n], double Z[n]) {
  double t;
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int j = 0; j < n; j++)
      t += A[i][j];
    X[i] = t;
    t = t * 2.0;
    Z[i] = t;
  }
}
"""

# Every row stores to the same element, one row after the other: the element is each row's
# accumulator in turn.
SAME_ELEMENT = """\
void f(int n, double A[n][n], double X[n]) {
  double t;
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int j = 0; j < n; j++)
      t += A[i][j];
    X[0] = t;
  }
}
"""

# PRE's atax: the accumulator is read again after its store, by the next loop.
READ_ON = """\
void f(int n, double A[n][n], double x[n], double y[n], double tmp[n]) {
  double t;
  for (int i = 0; i < n; i++) {
    t = 0.0;
    for (int j = 0; j < n; j++)
      t = t + A[i][j] * x[j];
    tmp[i] = t;
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t;
  }
}
"""

# ... where the element is overwritten between the store and those reads.
OVERWRITTEN = READ_ON.replace("    tmp[i] = t;\n", "    tmp[i] = t;\n    tmp[i] = 0.5;\n")


def _region(source: str) -> str:
    """`source` with its loops (after the temporaries' declaration) marked as a scop."""
    lines = source.splitlines()
    lines.insert(2, "#pragma scop")
    lines.insert(len(lines) - 1, "#pragma endscop")
    return "\n".join(lines) + "\n"


def _optimised(tmp_path, source, **options):
    return optimised_and_checked(tmp_path, _region(source), sizes=(1, 3, 6), **options)


def test_an_accumulator_becomes_the_element_it_is_stored_to(tmp_path):
    outcome = _optimised(tmp_path, ACCUMULATOR, tile_size=2)
    assert outcome.facts["demoted_scalars"] == ("t -> C[i][j]",)
    assert outcome.as_record()["demoted_scalars"] == ["t -> C[i][j]"]
    assert outcome.statements == 3                   # the store of t is gone
    off = _optimised(tmp_path, ACCUMULATOR, tile_size=2, disabled_passes=frozenset({"demote-scalars"}))
    assert off.facts["demoted_scalars"] == () and off.statements == 4
    # The k loop joins the tiled band: the scalar's live range no longer spans it.
    assert len(outcome.facts["tile_sizes"]) == 3 and len(off.facts["tile_sizes"]) == 2, (outcome.facts["tile_sizes"], off.facts["tile_sizes"])


def test_a_hoisted_invariant_is_substituted_back(tmp_path):
    outcome = _optimised(tmp_path, INVARIANT, tile_size=2)
    assert outcome.facts["demoted_scalars"] == ("t1 -> (alpha * A[i][k])",) and outcome.statements == 1
    assert outcome.facts["tiled_bands"] == 1


@pytest.mark.parametrize("source", [READ_INSIDE, OPERAND_WRITTEN, PRIVATE, NARROWER, READ_AFTER, OVERWRITTEN],
                         ids=["read-inside", "operand-written", "private", "narrower", "read-after", "overwritten"])
def test_scalars_that_cannot_be_replaced_are_kept(tmp_path, source):
    outcome = _optimised(tmp_path, source, tile_size=2)
    assert outcome.facts["demoted_scalars"] == ()


def test_a_scalar_that_goes_on_after_a_store_becomes_the_last_element(tmp_path):
    assert _optimised(tmp_path, GOES_ON, tile_size=2).facts["demoted_scalars"] == ("t -> Z[i]",)


def test_iterations_that_store_to_one_element_take_turns(tmp_path):
    assert _optimised(tmp_path, SAME_ELEMENT, tile_size=2).facts["demoted_scalars"] == ("t -> X[0]",)


def test_reads_after_the_store_read_the_element(tmp_path):
    assert _optimised(tmp_path, READ_ON, tile_size=2).facts["demoted_scalars"] == ("t -> tmp[i]",)


# A reduction clause's scalar that ends in the caller's element: demoted, the clause follows it.
REDUCED = """\
void f(int n, int A[n], int B[n], int out[1]) {
  int s;
  s = 0;
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++)
    s += A[i] * B[i];
  out[0] = s;
}
"""


def test_a_reduction_clause_follows_its_demoted_scalar(tmp_path):
    """`s` becomes out[0]; the clause now reduces out (the parallel loop performs it), and the
    pragma's messages still name `s`. A clause left naming the vanished `s` let the pragma drop
    out[0]'s dependences with no reduction: a loop racing on one element."""
    outcome = _optimised(tmp_path, REDUCED)
    assert outcome.facts["demoted_scalars"] == ("s -> out[0]",)
    (use,) = outcome.pragmas
    assert use.reductions == (("s", "+", True),) and use.renamed == (("s", "out"),)
    assert "reduction of 's' run on threads" in use.detail
    assert [(r.variable, r.operator) for r in outcome.unit.reductions] == [("out", "+")]
