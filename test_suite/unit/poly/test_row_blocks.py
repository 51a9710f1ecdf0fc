# SPDX-License-Identifier: MIT
"""Pass `row-blocks`: which nests it runs in blocks of rows, and the dependence check that refuses the others."""
from __future__ import annotations

import re

from test_suite.unit.poly.snippets import optimise
from test_suite.unit.poly.test_reduction_jam import ATAX

# mvt's shape: a row sum and, in a second nest, a column sum over the transposed accesses.
MVT = """\
void mvt(int n, double x1[static const restrict n], double x2[static const restrict n],
         double y1[static const restrict n], double y2[static const restrict n],
         double A[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y1[j];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y2[j];
}
"""

# The row sum reads what the column sums of the rows before it wrote (y[j]): in blocks, the
# rows of a block would read y before the column phase of their own block updated it.
FEEDBACK = """\
void f(int m, int n, double A[static const restrict m][n], double y[static const restrict n],
       double t[static const restrict m]) {
  for (int i = 0; i < m; i++) {
    t[i] = 0.0;
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * y[j];
    for (int j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * t[i];
  }
}
"""

# Both sums along rows (gesummv's shape): the rows are parallel already, nothing to block.
ROWS_ONLY = """\
void g(int n, double A[static const restrict n][n], double B[static const restrict n][n],
       double x[static const restrict n], double t[static const restrict n], double y[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++)
      t[i] = t[i] + A[i][j] * x[j];
    for (int j = 0; j < n; j++)
      y[i] = y[i] + B[i][j] * x[j];
  }
}
"""


def _blocked_loops(text: str) -> bool:
    """Whether the AST has the block loop, the row phase's parallel loop and the column tiles'."""
    return ("floord(m - 1, 24)" in text or "floord(n - 1, 24)" in text) and text.count("// parallel") == 2 \
        and re.search(r"64 \* c\d", text) is not None


def test_atax_runs_in_blocks_of_rows(tmp_path):
    outcome = optimise(tmp_path, ATAX, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["row_blocks"] == 1
    text = outcome.unit.ast.to_C_str()
    assert _blocked_loops(text), text
    assert "// thread-team" in text                         # one fork for all the blocks
    # The row sums' rows jammed, and the column phase's rows (y[c] updated for three rows at once).
    assert outcome.facts["jammed_loops"] == 2 and outcome.facts["vector_loops"] >= 1
    disabled = optimise(tmp_path, ATAX, opt_level=3, disabled_passes=frozenset({"row-blocks"}))
    assert disabled.facts["row_blocks"] == 0


def test_mvt_two_nests_become_one_pass_over_the_matrix(tmp_path):
    outcome = optimise(tmp_path, MVT, opt_level=3)
    assert outcome.facts["row_blocks"] == 1
    text = outcome.unit.ast.to_C_str()
    assert _blocked_loops(text), text
    # x2[c] += A[r][c] * y2[r], the statement's (i, j) being (c, r): r = c2 (six rows), c = c4.
    assert re.search(r"S_1\(c4, c2\);\n\s*S_1\(c4, c2 \+ 1\);\n\s*S_1\(c4, c2 \+ 2\);", text), text


def test_a_row_sum_reading_the_column_sums_is_not_blocked(tmp_path):
    outcome = optimise(tmp_path, FEEDBACK, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["row_blocks"] == 0


def test_rows_only_and_no_threads_are_not_blocked(tmp_path):
    assert optimise(tmp_path, ROWS_ONLY, opt_level=3).facts["row_blocks"] == 0
    assert optimise(tmp_path, ATAX, opt_level=3, parallel=False).facts["row_blocks"] == 0


def test_blocks_are_whole_strips_of_the_jam():
    # reduction-jam's strips of ROW_JAM rows must not straddle two blocks: only the last rows of
    # the matrix may then leave a strip partial (its `_one_partial_strip`).
    from clangpass.passes.row_blocks import BLOCK, ROW_JAM
    assert BLOCK % ROW_JAM == 0


def test_column_phase_is_jammed(tmp_path):
    text = optimise(tmp_path, ATAX, opt_level=3).unit.ast.to_C_str()
    # y[c] gets six rows' terms per load and store, in row order, in the vector loop.
    assert re.search(r"// vector\n\s*for \(int (c\d) = 64 \* c1; .*\{\n\s*S_3\((c\d), \1\);\n\s*S_3\(\2 \+ 1, \1\);"
                     r"\n\s*S_3\(\2 \+ 2, \1\);\n\s*S_3\(\2 \+ 3, \1\);\n\s*S_3\(\2 \+ 4, \1\);\n\s*S_3\(\2 \+ 5, \1\);", text), text
