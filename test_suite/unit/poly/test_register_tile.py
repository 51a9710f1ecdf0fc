# SPDX-License-Identifier: MIT
"""Pass `register-tile` on tiny inputs: which bands, the subtree it builds, sizes, the AST."""
from __future__ import annotations

import copy

import islpy as isl
import numpy as np
import pytest

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes import register_tile
from clangpass.passes.manager import optimise_region, run_pipeline
from clangpass.passes.register_tile import (REGISTER_TILE_MARK, SSE2_REGISTERS, column_parts, initialisations_first,
                                            register_roles, register_tile_sizes, register_tiled_bands,
                                            remainder_widths)
from clangpass.passes.registry import PassContext
from clangpass.passes.tile import TileRecord
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen import format_ast
from clangpass.poly.live_ranges import iteration_private_scalars, live_ranges
from clangpass.poly.scop import accesses_through
from clangpass.targets import get_target
from test_suite.unit.poly.interpreter import AstInterpreter, RegionInterpreter, initial_memory
from test_suite.unit.poly.snippets import optimise, region_of
from test_suite.unit.poly.test_schedule import GEMM

# The reduction is the innermost, unit-stride loop: no member keeps the writes on one element
# while another is innermost and unit stride, so the band is not a register-tile candidate.
SYRK_LIKE = """\
void f(int n, int m, double C[static const restrict n][n], double A[static const restrict n][m]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 0; k < m; k++)
        C[i][j] += A[i][k] * A[j][k];
}
"""

# A float matrix product: C columns of 4-byte elements.
SGEMM = """\
void f(int n, float C[static const restrict n][n], float A[static const restrict n][n],
       float B[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


def _unit_before(tmp_path, source: str, last: str, **options):
    region, module = region_of(tmp_path, source)
    ctx = PassContext(CompileOptions(opt_level=3, **options), isl.Context())
    names = list(get_target("cpu").pipeline(3))
    names = names[:names.index(last) + 1]
    return run_pipeline(PolyUnit(region, module), names, ctx, DumpSink(), {})


def _bands_under(node: isl.ScheduleNode) -> list[isl.ScheduleNode]:
    bands: list[isl.ScheduleNode] = []

    def collect(descendant: isl.ScheduleNode) -> bool:
        if descendant.get_type() == isl.schedule_node_type.band:
            bands.append(descendant.copy())   # the callback's node is only borrowed
        return True

    node.foreach_descendant_top_down(collect)
    return bands


def _marks(schedule: isl.Schedule, name: str) -> list[isl.ScheduleNode]:
    found: list[isl.ScheduleNode] = []

    def look(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == name:
            found.append(node.copy())
        return True

    schedule.get_root().foreach_descendant_top_down(look)
    return found


def test_gemm_point_band_roles(tmp_path):
    unit = _unit_before(tmp_path, GEMM, "point-loop-order", tile_size=32)
    point = _bands_under(unit.scop.schedule.get_root())[-1]          # (i mod 32, k mod 32, j mod 32)
    assert register_roles(point, unit.scop.reads, unit.scop.writes) == (0, 1, 2)


def test_reduction_innermost_point_band_roles(tmp_path):
    # syrk's reduction is its innermost, unit-stride loop (i mod 32, j mod 32, k mod 32): the
    # register tile takes j as its column (C[i][j] steps along it) and k between tile and point loops.
    unit = _unit_before(tmp_path, SYRK_LIKE, "point-loop-order", tile_size=32)
    point = _bands_under(unit.scop.schedule.get_root())[-1]
    assert register_roles(point, unit.scop.reads, unit.scop.writes) == (0, 2, 1)
    unit = _unit_before(tmp_path, SYRK_LIKE, "register-tile", tile_size=32)
    assert register_tiled_bands(unit.scop.schedule) == 1


# syrk as PolyBench writes it: the lower triangle, beta first, the reduction outside j.
SYRK = """\
void f(int n, int m, double alpha, double beta, double C[static const restrict n][n],
       double A[static const restrict n][m]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
  }
}
"""

# syr2k: two reads of each of A and B per statement, the columns j walking down both.
SYR2K = """\
void f(int n, int m, double alpha, double beta, double C[static const restrict n][n],
       double A[static const restrict n][m], double B[static const restrict n][m]) {
  for (int i = 0; i < n; i++) {
    for (int j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
}
"""


# trmm's shape: the accumulated array is also read at another element.
SELF_READING = """\
void f(int n, double B[static const restrict n][n], double A[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int k = i + 1; k < n; k++)
      for (int j = 0; j < n; j++)
        B[i][j] += A[k][i] * B[k][j];
}
"""

# symm's shape: the reduction range depends on the row.
TRIANGULAR = """\
void f(int n, double C[static const restrict n][n], double A[static const restrict n][n],
       double B[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += A[i][k] * B[k][j];
}
"""


# The rows above are read after they are complete (k < i): a copy made before the tile would
# hold the rows the tile has not yet updated.
SELF_READING_UPDATED = """\
void f(int n, double B[static const restrict n][n], double A[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < i; k++)
      for (int j = 0; j < n; j++)
        B[i][j] += A[i][k] * B[k][j];
}
"""


def test_self_reading_band_is_register_tiled_only_with_its_panel_packed(tmp_path, monkeypatch):
    # trmm's shape: B[k][j] (k > i) is read from a copy made before each point tile, so the
    # accumulators B[i][j] are the band's only accesses to B and LLVM keeps them in registers.
    unit = _unit_before(tmp_path, SELF_READING, "register-tile", tile_size=32)
    assert unit.record(TileRecord).tiled_bands == 1 and register_tiled_bands(unit.scop.schedule) == 1
    point = _marks(unit.scop.schedule, REGISTER_TILE_MARK)[0]
    foreign = register_tile.foreign_reads(point.child(0), unit.scop.reads, unit.scop.writes)
    assert foreign.is_equal(isl.UnionMap.read_from_str(
        foreign.get_ctx(), "[n] -> { S_0[i, k, j] -> B[k, j] : 0 <= i < k < n and 0 <= j < n }"))
    packed = _unit_before(tmp_path, SELF_READING, "pack-panels", tile_size=32)
    assert sorted((p.array, p.statements) for p in packed.scop.packs) == [("A", ("S_0",)), ("B", ("S_0",))]
    # Without the pack (pass disabled, or not chosen) the band is left alone: the loads of
    # B[k][j] could not be told from the accumulators (0.05 -> 0.13 s).
    unit = _unit_before(tmp_path, SELF_READING, "register-tile", tile_size=32,
                        disabled_passes=frozenset({"pack-panels"}))
    assert register_tiled_bands(unit.scop.schedule) == 0
    monkeypatch.setattr(register_tile, "panels_serve", lambda *args: False)
    unit = _unit_before(tmp_path, SELF_READING, "register-tile", tile_size=32)
    assert register_tiled_bands(unit.scop.schedule) == 0


def test_rows_read_after_their_update_are_not_packed(tmp_path):
    # k < i: row k is written in the same point tile before row i reads it (copy_is_current
    # fails), so there is no pack and no register tile.
    unit = _unit_before(tmp_path, SELF_READING_UPDATED, "pack-panels", tile_size=32)
    assert unit.record(TileRecord).tiled_bands == 1
    assert register_tiled_bands(unit.scop.schedule) == 0 and unit.scop.packs == ()


def test_triangular_band_isolates_its_full_reduction_steps(tmp_path):
    # symm's shape (k < i): the register tile's rows start their reduction at different
    # steps; the steps at which all R x C points run are isolated at the reduction band.
    unit = _unit_before(tmp_path, TRIANGULAR, "register-tile", tile_size=32)
    marks = _marks(unit.scop.schedule, REGISTER_TILE_MARK)
    assert len(marks) == 1
    # One band: a triangular band's remainder columns stay partial tiles (`column_parts`).
    tiles, reduction, points = _bands_under(marks[0])
    assert "isolate" in tiles.band_get_ast_build_options().to_str()
    assert "isolate" in reduction.band_get_ast_build_options().to_str()
    # A rectangular band (gemm) keeps its `separate` reduction band without an isolate option.
    gemm = _marks(_unit_before(tmp_path, GEMM, "register-tile", tile_size=32).scop.schedule, REGISTER_TILE_MARK)
    assert "isolate" not in _bands_under(gemm[0])[1].band_get_ast_build_options().to_str()


def test_gemm_register_tile_subtree(tmp_path):
    unit = _unit_before(tmp_path, GEMM, "register-tile", tile_size=32)
    marks = _marks(unit.scop.schedule, REGISTER_TILE_MARK)
    assert len(marks) == 1
    # The complete 4-column blocks first (the remainder columns' parts after them).
    parts = marks[0].child(0)
    assert parts.get_type() == isl.schedule_node_type.sequence
    tiles, reduction, points = _bands_under(parts.child(0))
    assert [b.band_n_member() for b in (tiles, reduction, points)] == [2, 1, 2]
    # The first reduction step is peeled (`separate`); the full tiles are isolated.
    assert reduction.band_member_get_ast_loop_type(0) == isl.ast_loop_type.separate
    assert "isolate" in tiles.band_get_ast_build_options().to_str()
    # Point loops: [i mod 4, j mod 4] (SSE2 sizes without -march=native).
    ctx = points.get_ctx()
    instance = isl.UnionSet.read_from_str(ctx, "[ni, nj, nk] -> { S_1[5, 9, 14] }")
    dates = isl.UnionMap.from_multi_union_pw_aff(points.band_get_partial_schedule())
    assert dates.intersect_domain(instance).range().is_equal(
        isl.UnionSet.read_from_str(ctx, "[ni, nj, nk] -> { [1, 2] }"))


def test_gemm_initialisation_runs_before_the_register_tiles(tmp_path):
    # `C[i][j] *= beta` (S_0) in a nest of its own before the register tiles, in each point
    # tile: sequence [filter S_0: its band, filter S_1: register-tile mark].
    unit = _unit_before(tmp_path, GEMM, "register-tile", tile_size=32)
    mark = _marks(unit.scop.schedule, REGISTER_TILE_MARK)[0]
    products = mark.parent()
    assert products.get_type() == isl.schedule_node_type.filter
    sequence = products.parent()
    assert sequence.get_type() == isl.schedule_node_type.sequence and sequence.n_children() == 2
    first = sequence.child(0)
    assert first.filter_get_filter().to_str().endswith("{ S_0[i, j] }")
    assert first.child(0).get_type() == isl.schedule_node_type.band
    assert sequence.parent().get_type() == isl.schedule_node_type.mark       # `point`
    assert products.get_child_position() == 1


def _point_band(domain: str, schedule: str) -> isl.ScheduleNode:
    ctx = isl.Context()
    root = isl.Schedule.from_domain(isl.UnionSet.read_from_str(ctx, domain)).get_root()
    outer = root.child(0).insert_partial_schedule(isl.MultiUnionPwAff.read_from_str(
        ctx, "[n] -> [{ S0[i, j] -> [(i - (i) mod 4)]; S1[i, k, j] -> [(i - (i) mod 4)]; "
             "S2[i, j] -> [(i - (i) mod 4)] }]"))
    return outer.child(0).insert_partial_schedule(isl.MultiUnionPwAff.read_from_str(ctx, schedule))


def test_initialisations_first_only_when_the_dependences_allow():
    domain = "[n] -> { S0[i, j] : 0 <= i, j < 8; S1[i, k, j] : 0 <= i, j, k < 8; S2[i, j] : 0 <= i, j < 8 }"
    # (row, reduction, column) = (i mod 4, k or a constant, j): S0 at the first reduction step,
    # S2 after the last one (covariance's `cov[i][j] /= n - 1`): both constant along it.
    band = _point_band(domain, "[n] -> [{ S0[i, j] -> [((i) mod 4)]; S1[i, k, j] -> [((i) mod 4)]; "
                               "S2[i, j] -> [((i) mod 4)] }, { S0[i, j] -> [(0)]; S1[i, k, j] -> [(k)]; "
                               "S2[i, j] -> [(8)] }, { S0[i, j] -> [(j)]; S1[i, k, j] -> [(j)]; S2[i, j] -> [(j)] }]")
    ctx = band.get_ctx()
    init = isl.UnionMap.read_from_str(ctx, "[n] -> { S0[i, j] -> S1[i, k, j] : 0 <= i, j, k < 8 }")
    final = isl.UnionMap.read_from_str(ctx, "[n] -> { S1[i, k, j] -> S2[i, j] : 0 <= i, j, k < 8 }")
    # S2 reads what S1 wrote in the same point tile: running S0 and S2 first would break that.
    assert initialisations_first(band, 1, init.union(final)) is None
    # Without that dependence, the constant statements go first and the products' band is returned.
    products = initialisations_first(band, 1, init)
    assert products is not None and products.get_type() == isl.schedule_node_type.band
    assert products.get_domain().is_equal(isl.UnionSet.read_from_str(ctx, "[n] -> { S1[i, k, j] : 0 <= i, j, k < 8 }"))
    assert products.parent().get_child_position() == 1
    # Nothing to split: a band of products only.
    only = _point_band("[n] -> { S1[i, k, j] : 0 <= i, j, k < 8 }",
                       "[n] -> [{ S1[i, k, j] -> [((i) mod 4)] }, { S1[i, k, j] -> [(k)] }, { S1[i, k, j] -> [(j)] }]")
    assert initialisations_first(only, 1, isl.UnionMap.empty(only.get_domain().get_space())) is None


def test_full_register_tiles_of_a_j_outer_triangle_are_one_piece():
    """syrk written j-outer (`for j; for i >= j`): the full register tiles are the tiles below the
    diagonal tile and the strips of the diagonal tile below the diagonal, two pieces whose union
    the AST generator would not isolate. `_full_prefixes` returns one piece, exact on the
    prefixes that occur: i1 + i3 + 32 <= i0 + i4 (a 32-column strip ends before the 4 rows)."""
    ctx = isl.Context()
    # dates: [i-tile, j-tile, k-tile, j strip, i rows, i mod 4, j mod 32]; tiles of 128.
    dates = isl.UnionMap.read_from_str(ctx, (
        "[n, m] -> { S[j, i, k] -> [i - (i) mod 128, j - (j) mod 128, k - (k) mod 128, "
        "(j) mod 128 - (j) mod 32, (i) mod 128 - (i) mod 4, (i) mod 4, (j) mod 32] : "
        "0 <= j <= i < n and 0 <= k < m }"))
    full = register_tile._full_prefixes(dates, [4, 32])
    assert full.n_basic_set() == 1
    prefixes = isl.Set.from_union_set(dates.range()).project_out(isl.dim_type.set, 5, 2)
    expected = prefixes.intersect(isl.Set.read_from_str(
        ctx, "[n, m] -> { [i0, i1, i2, i3, i4] : i1 + i3 + 32 <= i0 + i4 and i0 + i4 + 4 <= n }"))
    assert full.intersect(prefixes).is_equal(expected)


def _columns_of(band: isl.ScheduleNode) -> int:
    """The column count of the register tile under `band` (tiles, reduction, points): one more
    than the largest value of its last point member."""
    points = _bands_under(band)[2]
    dates = isl.UnionMap.from_multi_union_pw_aff(points.band_get_partial_schedule()).intersect_domain(
        points.get_domain())
    last = isl.Set.from_union_set(dates.range()).dim_max(1)
    return int(last.get_pieces()[0][1].get_constant_val().to_python()) + 1


def test_remainder_columns_get_register_tiles_of_their_own(tmp_path):
    # SSE2's 4 x 4 register tiles, gemm with parametric sizes and 32^3 tiles: the complete
    # 4-column blocks, then the complete 2-column blocks of what is left (`remainder_widths`),
    # then the last column of an odd `nj`, each part a filter of one sequence under the mark.
    unit = _unit_before(tmp_path, GEMM, "register-tile", tile_size=32)
    parts = _marks(unit.scop.schedule, REGISTER_TILE_MARK)[0].child(0)
    assert parts.get_type() == isl.schedule_node_type.sequence and parts.n_children() == 3
    assert _columns_of(parts.child(0)) == 4
    assert _columns_of(parts.child(1)) == 2
    # The last part (one column) keeps the point band: no full register tile of its width.
    assert len(_bands_under(parts.child(2))) == 1
    ctx = parts.get_ctx()
    # nj = 15: columns 0-11 in the 4-wide part, 12-13 in the 2-wide part, 14 in the last.
    at = isl.Set.read_from_str(ctx, "[ni, nj, nk] -> { : ni = 5 and nj = 15 and nk = 3 }")
    for k, (low, high) in enumerate([(0, 11), (12, 13), (14, 14)]):
        instances = parts.child(k).filter_get_filter().intersect(parts.get_domain()).intersect_params(at)
        columns = isl.Set.from_union_set(instances).project_out(isl.dim_type.set, 0, 2)   # { [j] }
        assert (columns.dim_min_val(0).to_python(), columns.dim_max_val(0).to_python()) == (low, high), k


def test_column_parts_keep_the_band_whole_when_the_order_matters():
    domain = "[n] -> { S1[i, k, j] : 0 <= i < 8 and 0 <= k < 8 and 0 <= j < n }"
    band = _point_band(domain, "[n] -> [{ S1[i, k, j] -> [((i) mod 4)] }, { S1[i, k, j] -> [(k)] }, "
                               "{ S1[i, k, j] -> [(j)] }]")
    ctx = band.get_ctx()
    none = isl.UnionMap.empty(band.get_domain().get_space())
    parts = column_parts(band, (0, 1, 2), 4, [2], none)
    assert [width for _, width in parts] == [4, 2, None]
    # No narrower width (the pass's second try, within the whole budget): one band, as before.
    assert [width for _, width in column_parts(band, (0, 1, 2), 4, [], none)] == [4]
    # A dependence from a remainder column (j = 4 * floor(n / 4)) to a column of a complete
    # block at the same outer dates: running the complete blocks first would break it.
    back = isl.UnionMap.read_from_str(ctx, "[n] -> { S1[i, k, j] -> S1[i, k + 1, j - 4] : "
                                           "0 <= i < 8 and 0 <= k < 7 and 4 <= j < n }")
    assert [width for _, width in column_parts(band, (0, 1, 2), 4, [2], back)] == [4]
    # A triangular reduction (k < j... here k <= i) keeps one band.
    triangle = _point_band("[n] -> { S1[i, k, j] : 0 <= i < 8 and 0 <= k <= i and 0 <= j < n }",
                           "[n] -> [{ S1[i, k, j] -> [((i) mod 4)] }, { S1[i, k, j] -> [(k)] }, "
                           "{ S1[i, k, j] -> [(j)] }]")
    assert [w for _, w in column_parts(triangle, (0, 1, 2), 4, [2], none)] == [4]
    # Every block complete (n a multiple of 4 in the context): one part.
    whole = _point_band("[n] -> { S1[i, k, j] : 0 <= i < 8 and 0 <= k < 8 and 0 <= j < 16 }",
                        "[n] -> [{ S1[i, k, j] -> [((i) mod 4)] }, { S1[i, k, j] -> [(k)] }, "
                        "{ S1[i, k, j] -> [(j)] }]")
    assert [w for _, w in column_parts(whole, (0, 1, 2), 4, [2], none)] == [4]


def test_remainder_widths_are_one_vector_and_half_of_one():
    assert remainder_widths(32, 8) == [8, 4]     # AVX-512 doubles
    assert remainder_widths(8, 4) == [4, 2]      # AVX doubles
    assert remainder_widths(4, 2) == [2]         # SSE2 doubles
    assert remainder_widths(8, 4) == [4, 2]      # SSE2 floats
    assert remainder_widths(2, 2) == []


def test_register_tile_sizes_fill_half_of_the_registers():
    assert register_tile_sizes((32, 64), 8) == [4, 32]       # AVX-512: 16 zmm accumulators
    assert register_tile_sizes((16, 32), 8) == [4, 8]        # AVX2: 8 ymm
    assert register_tile_sizes(SSE2_REGISTERS, 8) == [4, 4]  # SSE2: 8 xmm
    assert register_tile_sizes(SSE2_REGISTERS, 4) == [4, 8]  # floats


@pytest.mark.parametrize("source, written", [(GEMM, "C"), (SGEMM, "C"), (SYRK, "C"), (SYR2K, "C"),
                                             (SELF_READING, "B"), (TRIANGULAR, "C")],
                         ids=["gemm", "sgemm", "syrk", "syr2k", "trmm", "triangular"])
def test_register_tiled_ast_runs_every_instance(tmp_path, source, written):
    # syrk, syr2k: full register tiles below the diagonal, partial ones on it; trmm and the
    # triangular reduction: partial first reduction steps on the diagonal
    region, module = region_of(tmp_path, source)
    outcome = optimise_region(region, module, CompileOptions(opt_level=3, tile_size=8), DumpSink())
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["register_tiled_bands"] == 1
    # Full tiles have point loops of constant trip count (LLVM unrolls them).
    assert "c6 <= 3; c6 += 1)" in format_ast(outcome.unit)
    for n in (1, 3, 4, 9, 13):
        memory = initial_memory(region, n)
        expected, actual = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(expected).run(region.body)
        AstInterpreter(outcome.unit, actual).run()
        assert np.array_equal(expected[written], actual[written]), n


def test_record_and_disabled_pass(tmp_path):
    assert optimise(tmp_path, GEMM, opt_level=3).facts["register_tiled_bands"] == 1
    outcome = optimise(tmp_path, GEMM, opt_level=3, disabled_passes=frozenset({"register-tile"}))
    assert outcome.facts["register_tiled_bands"] == 0 and outcome.facts["tiled_bands"] == 1
    assert outcome.as_record()["register_tiled_bands"] == 0


def test_ast_budget_keeps_the_tiles_without_register_tiles(tmp_path):
    # Under a budget the tiled schedule's AST fits in and the register tiles' does not, the
    # region keeps its tiles (codegen would otherwise fall back to the source order). With the
    # initialisation `C[i][j] *= beta` in a nest of its own the register tiles' AST fits in
    # 400,000 operations (1.5 million when it ran in the first reduction step), the tiles' in
    # 100,000.
    outcome = optimise(tmp_path, GEMM, opt_level=3, isl_max_operations=200_000)
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["tiled_bands"] == 1 and outcome.facts["register_tiled_bands"] == 0
    assert "no register tiles" in outcome.reason


# GEMM in three-address code, its temporaries declared at function scope (thesis ch. 2).
GEMM_3AC = """\
void gemm(int ni, int nj, int nk, double alpha, double beta,
          double C[static const restrict ni][nj], double A[static const restrict ni][nk],
          double B[static const restrict nk][nj]) {
  double t1, t2;
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k = 0; k < nk; k++)
      for (int j = 0; j < nj; j++) {
        t1 = alpha * A[i][k];
        t2 = t1 * B[k][j];
        C[i][j] += t2;
      }
  }
}
"""


def test_three_address_temporaries_do_not_stop_register_tiles(tmp_path):
    # t1 and t2 live within one iteration of the point band: registers, not memory to tile.
    unit = _unit_before(tmp_path, GEMM_3AC, "point-loop-order", tile_size=32)
    point = _bands_under(unit.scop.schedule.get_root())[-1]
    assert iteration_private_scalars(point, unit.scop, unit.live_ranges) == {"t1", "t2"}
    assert register_roles(point, unit.scop.reads, unit.scop.writes) is None
    private = frozenset({"t1", "t2"})
    assert register_roles(point, accesses_through(unit.scop.reads, private, False),
                          accesses_through(unit.scop.writes, private, False)) == (0, 1, 2)
    region, module = region_of(tmp_path, GEMM_3AC)
    outcome = optimise_region(region, module, CompileOptions(opt_level=3, tile_size=8), DumpSink())
    assert outcome.status == "optimized", outcome.reason
    assert outcome.facts["register_tiled_bands"] == 1
    # The three statements run as one call in the AST (with 64-wide tiles the register tiles'
    # AST fits the budget only so): C[i][j] *= beta is before them, as in the source.
    assert list(outcome.unit.groups.values()) == [("S_1", "S_2", "S_3")]
    for n in (1, 3, 4, 9):
        memory = initial_memory(region, n)
        expected, actual = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(expected).run(region.body)
        AstInterpreter(outcome.unit, actual).run()
        assert np.array_equal(expected["C"], actual["C"]), n


ACCUMULATOR = """\
void f(int n, double A[static const restrict n][n], double B[static const restrict n]) {
  for (int i = 0; i < n; i++) {
    double acc, t;
    acc = 0.0;
    for (int j = 0; j < n; j++) {
      t = 2.0 * A[i][j];
      acc += t;
    }
    B[i] = acc;
  }
}
"""


def test_an_accumulator_is_not_iteration_private(tmp_path):
    unit = _unit_before(tmp_path, ACCUMULATOR, "extract")
    bands = _bands_under(unit.scop.original_schedule.get_root())
    inner = [b for b in bands if b.get_schedule_depth() == 1]
    assert len(inner) == 1
    # `t` lives within one iteration of j; `acc` from before the j loop to after it.
    assert iteration_private_scalars(inner[0], unit.scop, live_ranges(unit.scop)) == {"t"}
    # Within one iteration of i, both do.
    assert iteration_private_scalars(bands[0], unit.scop, live_ranges(unit.scop)) == {"acc", "t"}
