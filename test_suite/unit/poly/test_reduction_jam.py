# SPDX-License-Identifier: MIT
"""Pass `reduction-jam`: which loops it jams, and the legality check that refuses the others."""
from __future__ import annotations

import re

from clangpass.passes.reduction_jam import JAM, SCALAR_JAM, SCALAR_ROWS, TRIANGLE_JAM
from test_suite.unit.poly.snippets import optimise, optimised_and_checked

# atax's shape: one chain per row (tmp), then a vector loop over the same row (y).
ATAX = """\
void atax(int m, int n, double A[static const restrict m][n], double x[static const restrict n],
          double y[static const restrict n], double tmp[static const restrict m]) {
  for (int i = 0; i < n; i++)
    y[i] = 0.0;
  for (int i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (int j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
  }
}
"""

# Two chains in one loop, each over its own matrix (gesummv's shape, still bound by the add
# latency); the read of t[i] keeps them in one loop.
TWO_CHAINS = """\
void g(int n, double A[static const restrict n][n], double B[static const restrict n][n],
       double x[static const restrict n], double t[static const restrict n], double y[static const restrict n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      t[i] = A[i][j] * x[j] + t[i];
      y[i] = B[i][j] * x[j] + y[i] + t[i];
    }
}
"""

# A chain whose next row reads what this row wrote after its chain (x[i] = t[i]): jamming two
# rows would run row i + 1's chain before x[i] is written.
CARRIED = """\
void c(int n, double A[static const restrict n][n], double x[static const restrict n],
       double t[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * x[j];
    x[i] = t[i];
  }
}
"""


def test_atax_row_loop_is_jammed(tmp_path):
    # atax's source order (row-blocks would run it in blocks of rows: test_row_blocks.py).
    outcome = optimise(tmp_path, ATAX, opt_level=3, disabled_passes=frozenset({"row-blocks"}))
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 1 and outcome.reason == ""
    text = outcome.unit.ast.to_C_str()
    assert re.search(r"S_2\(c0 \+ 1, c\d\)", text) and re.search(r"S_3\(c0 \+ 1, c\d\)", text), text
    assert outcome.facts["vector_loops"] >= 1        # y's loop keeps its vector mark
    disabled = optimise(tmp_path, ATAX, opt_level=3, disabled_passes=frozenset({"reduction-jam"}))
    assert disabled.facts["jammed_loops"] == 0


def test_two_chains_are_jammed(tmp_path):
    outcome = optimise(tmp_path, TWO_CHAINS, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 1


# Three chains in one loop (MAX_CHAINS is 2): they already overlap.
THREE_CHAINS = TWO_CHAINS.replace("double y[static const restrict n]) {",
                                  "double y[static const restrict n], double z[static const restrict n]) {") \
    .replace("y[i] = B[i][j] * x[j] + y[i] + t[i];\n",
             "y[i] = B[i][j] * x[j] + y[i] + t[i];\n      z[i] = A[i][j] * B[i][j] + z[i];\n")


def test_three_chains_are_left_alone(tmp_path):
    assert "z[i] = A[i][j]" in THREE_CHAINS
    outcome = optimise(tmp_path, THREE_CHAINS, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 0


def test_a_carried_dependence_forbids_the_jam(tmp_path):
    outcome = optimise(tmp_path, CARRIED, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 0


# A triangular chain (j <= i) whose row start isl fuses into the j band.
TRIANGLE = """\
void tri(int n, double A[static const restrict n][n], double x[static const restrict n],
         double t[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    t[i] = 0.0;
    for (int j = 0; j <= i; j++)
      t[i] = t[i] + A[i][j] * x[j];
  }
}
"""


def test_a_triangular_chain_with_its_start_in_the_loop_band_is_left_alone(tmp_path):
    """j <= i with `t[i] = 0.0` fused into the j band at date 0: the row's start would have to
    run before the rectangle left of its strip; only a j band alone under the row's sequence
    (trisolv, below) is split into rectangle and triangle. Rectangular, it is jammed."""
    outcome = optimise(tmp_path, TRIANGLE, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 0
    rectangle = optimise(tmp_path, TRIANGLE.replace("j <= i", "j < n"), opt_level=3)
    assert rectangle.facts["jammed_loops"] == 1


# trisolv: each row's chain reads the rows solved before it (x[j], j < i), and the row's end
# (x[i] /= L[i][i]) finishes x[i] for the rows after it.
TRISOLV = """\
void trisolv(int n, double L[static const restrict n][n], double x[static const restrict n],
             double b[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    x[i] = b[i];
    for (int j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}
"""


def test_trisolv_rows_are_jammed_left_of_their_strip(tmp_path):
    outcome = optimise(tmp_path, TRISOLV, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 1
    text = outcome.unit.ast.to_C_str()
    # the rectangle: x[j] of earlier strips only, TRIANGLE_JAM (8) chains per j
    rows = r"\s*".join([r"S_1\(c0, c2\);"] + [rf"S_1\(c0 \+ {r}, c2\);" for r in range(1, TRIANGLE_JAM)])
    assert TRIANGLE_JAM == 8
    assert re.search(r"for \(int c0 = 0; c0 < n; c0 \+= 8\)", text), text
    assert re.search(r"for \(int c2 = 0; c2 < c0; c2 \+= 1\) \{\s*" + rows + r"\s*\}", text), text
    # the strip's triangle, row after row, each row ended (S_2) before the next one reads it
    assert re.search(r"for \(int c3 = c0; c3 < c0 \+ c2; c3 \+= 1\)\s*S_1\(c0 \+ c2, c3\);\s*(// vector\s*)?"
                     r"S_2\(c0 \+ c2\);", text), text


def test_a_triangular_chain_reading_the_previous_row_is_left_alone(tmp_path):
    """x[i] -= L[i][j] * x[i - 1]: row i + 1's chain needs row i's end, so no two rows' chains
    may run together, in the rectangle either."""
    source = TRISOLV.replace("x[i] -= L[i][j] * x[j];", "x[i] -= L[i][j] * x[i - 1];")
    assert "x[i - 1]" in source
    outcome = optimise(tmp_path, source, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 0


# gesummv as written: isl fuses the statements outside the j loop into its band at constant
# dates; mark-vector must not split the two chains apart for them (two one-chain loops, which
# this pass would then jam, ran 2.2-2.7 ms against 1.6 fused and gcc's 1.6 at N=1300). The
# fused loop's two chains are jammed together: three rows' six chains in one j loop.
GESUMMV = """\
void gesummv(int n, double alpha, double beta, double A[static const restrict n][n],
             double B[static const restrict n][n], double tmp[static const restrict n],
             double x[static const restrict n], double y[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (int j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}
"""


def test_gesummv_chains_stay_in_one_loop(tmp_path):
    outcome = optimise(tmp_path, GESUMMV, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 1
    text = outcome.unit.ast.to_C_str()
    assert re.search(r"S_2\(c0, c2\);\s*S_2\(c0 \+ 1, c2\);\s*S_2\(c0 \+ 2, c2\);\s*"
                     r"S_3\(c0, c2\);\s*S_3\(c0 \+ 1, c2\);\s*S_3\(c0 \+ 2, c2\);", text), text



# symm's chain: a scalar accumulator started before J and used after it, under the loop `j`
# whose loads in J are consecutive (`B[k][j]`).
SCALAR_CHAIN = """\
void s(int m, int n, double A[static const restrict m][m], double B[static const restrict m][n],
       double C[static const restrict m][n]) {
  double acc;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      acc = 0.0;
      for (int k = 0; k < m; k++)
        acc += B[k][j] * A[i][k];
      C[i][j] = 0.5 * C[i][j] + acc;
    }
}
"""


def _expanded(outcome) -> list[str]:
    return list(outcome.facts.get("jam_expanded_scalars", ()))


def test_scalar_chain_is_jammed_on_an_expanded_scalar(tmp_path):
    outcome = optimise(tmp_path, SCALAR_CHAIN, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["jammed_loops"] == 1
    assert _expanded(outcome) == [f"acc -> __pencil_jam_acc[j % {SCALAR_JAM}]"]
    text = outcome.unit.ast.to_C_str()
    assert re.search(rf"S_\d\(c\d \+ c\d, c\d \+ c\d \+ {SCALAR_JAM - 1}, c\d\)", text), text
    disabled = optimise(tmp_path, SCALAR_CHAIN, opt_level=3, disabled_passes=frozenset({"reduction-jam"}))
    assert disabled.facts["jammed_loops"] == 0 and _expanded(disabled) == []


# symm's shape: the chain's range bounded by the rows (`k < i`), and the rows' rank-1 update of
# C, which isl distributes into a nest of its own.
SCALAR_TILE = """\
void s(int m, int n, double alpha, double A[static const restrict m][m], double B[static const restrict m][n],
       double C[static const restrict m][n]) {
  double acc;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j++) {
      acc = 0.0;
      for (int k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        acc += B[k][j] * A[i][k];
      }
      C[i][j] = 0.5 * C[i][j] + alpha * acc;
    }
}
"""


def test_triangular_scalar_chain_is_jammed_by_rows_and_columns(tmp_path):
    # Rows and columns jammed together over the rectangle k < i - i mod 4: each step of k runs
    # SCALAR_ROWS x SCALAR_JAM chains, each on its element of `acc`; the results equal the source
    # order's at sizes with partial strips both ways (the interpreter runs the AST).
    outcome = optimised_and_checked(tmp_path, SCALAR_TILE, sizes=(1, 6, 23))
    assert outcome.facts["jammed_loops"] == 1
    assert _expanded(outcome) == [f"acc -> __pencil_jam_acc[i % {SCALAR_ROWS} * {SCALAR_JAM} + j % {SCALAR_JAM}]"]
    text = outcome.unit.ast.to_C_str()
    rect = re.search(r"for \(int (c\d) = 0; \1 < c0 \+ c2; \1 \+= 1\)\s*"
                     rf"for \(int (c\d) = 0; \2 <= {SCALAR_ROWS - 1}; \2 \+= 1\) \{{\s*"
                     r"S_\d\(c0 \+ c2 \+ \2, c1 \+ c3, \1\);", text)
    assert rect, text
    assert f"c1 + c3 + {SCALAR_JAM - 1}, {rect.group(1)});" in text, text
    disabled = optimise(tmp_path, SCALAR_TILE, opt_level=3, disabled_passes=frozenset({"reduction-jam"}))
    assert disabled.facts["jammed_loops"] == 0 and _expanded(disabled) == []


def test_scalar_chain_over_strided_loads_is_not_jammed_by_sixteen(tmp_path):
    # `j` walks the rows of B here: sixteen copies would gather, so the factor is JAM (3), whose
    # strips do not divide j's tiles of 256 (a partial strip in every tile): left alone.
    strided = SCALAR_CHAIN.replace("B[static const restrict m][n]", "B[static const restrict n][m]") \
        .replace("acc += B[k][j] * A[i][k];", "acc += B[j][k] * A[i][k];")
    outcome = optimise(tmp_path, strided, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert tuple(outcome.facts["tile_sizes"]) == (128, 256) and JAM == 3
    assert _expanded(outcome) == [] and outcome.facts["jammed_loops"] == 0


def test_scalar_read_after_the_loop_is_not_expanded(tmp_path):
    # `acc` is read after the nest: a copy per jammed iteration would leave the wrong one behind.
    after = SCALAR_CHAIN.replace("double C[static const restrict m][n]) {",
                                 "double C[static const restrict m][n], double last[static const restrict 1]) {") \
        .replace("      C[i][j] = 0.5 * C[i][j] + acc;\n    }\n",
                 "      C[i][j] = 0.5 * C[i][j] + acc;\n    }\n  last[0] = acc;\n")
    assert "last[0] = acc" in after
    outcome = optimise(tmp_path, after, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert _expanded(outcome) == []
