# SPDX-License-Identifier: MIT
"""Pass `keep-streams`: which two-deep bands stay untiled, and the record of it."""
from __future__ import annotations

import islpy as isl

from clangpass.passes.keep_streams import is_streaming_band
from clangpass.poly.dependences import compute_dependences

from test_suite.unit.poly.snippets import optimise, scop_of

# gesummv's shape: two matrices streamed by rows, a vector reused across rows.
TWO_STREAMS = """\
void mv2(int n, double A[static const restrict n][n], double B[static const restrict n][n],
         double x[static const restrict n], double y[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int j = 0; j < n; j++)
      y[i] = A[i][j] * x[j] + B[i][j] * x[j] + y[i];
  }
}
"""

# One matrix and one accumulation chain: untiled, since `reduction-jam` jams it (two rows'
# chains at a time); tiling it only broke the chain into 32-long pieces.
ONE_STREAM = """\
void mv(int n, double A[static const restrict n][n], double x[static const restrict n],
        double y[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    y[i] = 0.0;
    for (int j = 0; j < n; j++)
      y[i] = A[i][j] * x[j] + y[i];
  }
}
"""

# The same two matrices walked down columns: tiling and point-loop-order fix that, keep it tileable.
COLUMNS = TWO_STREAMS.replace("A[i][j]", "A[j][i]").replace("B[i][j]", "B[j][i]")


def _bands(schedule: isl.Schedule) -> list[isl.ScheduleNode]:
    found: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> None:
        if node.get_type() == isl.schedule_node_type.band:
            found.append(node)
        for k in range(node.n_children()):
            visit(node.child(k))

    visit(schedule.get_root())
    return found


def test_two_row_streams_stay_untiled(tmp_path):
    outcome = optimise(tmp_path, TWO_STREAMS, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["streaming_bands"] == 1 and outcome.facts["tiled_bands"] == 0
    assert outcome.facts["parallel_loops"] == 1
    assert outcome.as_record()["streaming_bands"] == 1
    disabled = optimise(tmp_path, TWO_STREAMS, opt_level=3, disabled_passes=frozenset({"keep-streams"}))
    assert disabled.facts["streaming_bands"] == 0 and disabled.facts["tiled_bands"] == 1


def test_column_walks_stay_tileable(tmp_path):
    outcome = optimise(tmp_path, COLUMNS, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["streaming_bands"] == 0 and outcome.facts["tiled_bands"] == 1


def test_one_stream_with_one_chain_stays_untiled_and_is_jammed(tmp_path):
    outcome = optimise(tmp_path, ONE_STREAM, opt_level=3)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["streaming_bands"] == 1 and outcome.facts["tiled_bands"] == 0
    assert outcome.facts["parallel_loops"] == 1
    assert outcome.facts["jammed_loops"] == 1 and outcome.reason == ""


def test_is_streaming_band_reads_the_scheduled_band(tmp_path):
    scop = scop_of(tmp_path, TWO_STREAMS)
    deps = compute_dependences(scop, 0).all
    schedule = (isl.ScheduleConstraints.on_domain(scop.domain).set_context(scop.context)
                .set_validity(deps).set_proximity(deps).set_coincidence(deps).compute_schedule())
    accesses = scop.reads.union(scop.writes)
    (band,) = [b for b in _bands(schedule) if b.band_n_member() == 2]
    assert is_streaming_band(band, accesses)
    # Parallel only inside: the outer loop is not one to run on threads, so the band is left to `tile`.
    inner_only = band.band_member_set_coincident(0, False).band_member_set_coincident(1, True)
    assert not is_streaming_band(inner_only, accesses)
    # Sequential in both members: no parallelism is at stake, and the inner loop is already the best.
    assert is_streaming_band(band.band_member_set_coincident(0, False), accesses)


# floyd-warshall: under the sequential k loop, an (i, j) band with no parallel member (row and
# column k are read and written); one iteration of i reuses only row k from the previous one.
SHORTEST_PATHS = """void fw(int n, double path[static const restrict n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j] ? path[i][j] : path[i][k] + path[k][j];
}
"""


def test_sequential_two_deep_band_in_row_order_stays_untiled(tmp_path):
    # The unsplit statement (index-set-split would cut it at i = k and j = k, whose pieces
    # have parallel rows: test_index_set_split.py).
    unsplit = frozenset({"index-set-split"})
    outcome = optimise(tmp_path, SHORTEST_PATHS, opt_level=3, disabled_passes=unsplit)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["parallel_loops"] == 0
    assert outcome.facts["streaming_bands"] == 1 and outcome.facts["tiled_bands"] == 0
    disabled = optimise(tmp_path, SHORTEST_PATHS, opt_level=3, disabled_passes=unsplit | {"keep-streams"})
    assert disabled.facts["streaming_bands"] == 0 and disabled.facts["tiled_bands"] == 1

