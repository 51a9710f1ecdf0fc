# SPDX-License-Identifier: MIT
"""Tile sizes from cache sizes and footprints (clangpass.poly.tile_sizes) and the tile pass using them."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes.manager import run_pipeline
from clangpass.passes.registry import PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.poly.strides import displacement_table
from clangpass.poly.tile_sizes import (DEFAULT_SIZE, WHOLE, band_tile_sizes, footprint, host_cache_sizes,
                                       parse_size, skewed_footprint)
from test_suite.unit.poly.snippets import optimise, region_of
from test_suite.unit.poly.test_schedule import GEMM

CACHES = (32 * 1024, 1024 * 1024, 32 * 1024 * 1024)

JACOBI_1D = """\
void f(int tsteps, int n, double A[static const restrict n], double B[static const restrict n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (int i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}
"""


def _scheduled(tmp_path, source: str):
    region, module = region_of(tmp_path, source)
    ctx = PassContext(CompileOptions(opt_level=3), isl.Context())
    return run_pipeline(PolyUnit(region, module), ["extract", "dependences", "schedule"], ctx, DumpSink(), {})


def _outermost_band(schedule: isl.Schedule) -> isl.ScheduleNode:
    node = schedule.get_root()
    while node.get_type() != isl.schedule_node_type.band:
        node = node.child(0)
    return node


def test_parse_size():
    assert [parse_size(t) for t in ("32K", "1M", "1024", "2g", "48KB")] == [32768, 1 << 20, 1024, 2 << 30,
                                                                           49152]
    with pytest.raises(ValueError):
        parse_size("lots")


def test_host_cache_sizes_are_ordered_levels():
    sizes = host_cache_sizes()
    assert len(sizes) >= 2 and all(s > 0 for s in sizes) and sizes[0] <= sizes[1]


def test_footprint_counts_each_access_along_the_members_it_moves_along():
    moving = {("C", 8, frozenset({0, 1})), ("A", 8, frozenset({0, 2})), ("B", 8, frozenset({1, 2})),
              ("alpha", 8, frozenset())}
    assert footprint([4, 16, 2], moving) == 8 * (4 * 16 + 4 * 2 + 16 * 2 + 1)


def test_gemm_tiles_are_long_along_the_unit_stride_loop_and_fit_half_of_l2(tmp_path):
    unit = _scheduled(tmp_path, GEMM)
    band = _outermost_band(unit.scop.schedule)                # (i, j, k)
    sizes = band_tile_sizes(band, unit.scop, CACHES)
    assert sizes == [64, 256, 64]
    # C: i x j, A: i x k, B: k x j doubles, within 512 KiB; twice the square side would not fit.
    assert 8 * (64 * 256 + 64 * 64 + 64 * 256) <= CACHES[1] // 2 < 8 * (128 * 512 + 128 * 128 + 128 * 512)
    # A smaller L2 gives smaller tiles.
    small = band_tile_sizes(band, unit.scop, (32 * 1024, 128 * 1024))
    assert small[1] > small[0] and small[0] < 64


def test_bands_without_a_coincident_member_keep_the_default(tmp_path):
    unit = _scheduled(tmp_path, JACOBI_1D)
    band = _outermost_band(unit.scop.schedule)
    assert not any(band.band_member_get_coincident(m) for m in range(band.band_n_member()))
    assert band_tile_sizes(band, unit.scop, CACHES) == [DEFAULT_SIZE] * band.band_n_member()


def test_tile_pass_records_model_sizes_and_honours_a_forced_size(tmp_path):
    modelled = optimise(tmp_path, GEMM, opt_level=3, cache_sizes=CACHES)
    assert modelled.status == "optimized" and modelled.facts["tile_sizes"] == (64, 256, 64)
    forced = optimise(tmp_path, GEMM, opt_level=3, tile_size=16, cache_sizes=CACHES)
    assert forced.facts["tile_sizes"] == (16, 16, 16)
    untiled = optimise(tmp_path, GEMM, opt_level=3, tile_size=0)
    assert untiled.facts["tiled_bands"] == 0 and untiled.facts["tile_sizes"] == ()


SYRK = """\
void f(int n, int m, double alpha, double C[static const restrict n][n], double A[static const restrict n][m]) {
  for (int i = 0; i < n; i++)
    for (int k = 0; k < m; k++)
      for (int j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
}
"""


def test_a_reduction_innermost_keeps_the_default(tmp_path):
    # syrk's best innermost loop is k (unit stride in both reads of A), which carries the sum.
    unit = _scheduled(tmp_path, SYRK)
    band = _outermost_band(unit.scop.schedule)
    assert band_tile_sizes(band, unit.scop, CACHES) == [DEFAULT_SIZE] * band.band_n_member()


def test_a_register_tiled_reduction_innermost_gets_square_tiles_that_fit(tmp_path):
    # Register tiles over packed panels: the largest square whose footprint fits half of L2,
    # no long member. syrk: C (i x j), A (i x k) and A (j x k), 3 * 128^2 doubles in 512 KiB.
    unit = _scheduled(tmp_path, SYRK)
    band = _outermost_band(unit.scop.schedule)
    assert band_tile_sizes(band, unit.scop, CACHES, register_tiled=True) == [128, 128, 128]
    assert band_tile_sizes(band, unit.scop, (32 * 1024, 256 * 1024), register_tiled=True) == [64, 64, 64]


def test_tile_pass_gives_square_tiles_to_the_bands_register_tile_takes(tmp_path):
    tiled = optimise(tmp_path, SYRK, opt_level=3, cache_sizes=CACHES)
    assert tiled.status == "optimized" and tiled.facts["tile_sizes"] == (128, 128, 128)
    assert tiled.facts["register_tiled_bands"] == 1
    # Without register tiles the band keeps the default of a reduction innermost.
    plain = optimise(tmp_path, SYRK, opt_level=3, cache_sizes=CACHES, disabled_passes=frozenset({"register-tile"}))
    assert plain.facts["tile_sizes"] == (DEFAULT_SIZE,) * 3 and plain.facts["register_tiled_bands"] == 0
    # gemm's band (column innermost) keeps the model's long tiles.
    assert optimise(tmp_path, GEMM, opt_level=3, cache_sizes=CACHES).facts["tile_sizes"] == (64, 256, 64)


HEAT_3D = """\
void f(int tsteps, int n, double A[static const restrict n][n][n], double B[static const restrict n][n][n]) {
  for (int t = 0; t < tsteps; t++) {
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          B[i][j][k] = 0.25 * (A[i - 1][j][k] + A[i + 1][j][k] + A[i][j - 1][k] + A[i][j + 1][k])
                     + 0.5 * (A[i][j][k - 1] + A[i][j][k + 1]) - A[i][j][k];
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < n - 1; j++)
        for (int k = 1; k < n - 1; k++)
          A[i][j][k] = 0.25 * (B[i - 1][j][k] + B[i + 1][j][k] + B[i][j - 1][k] + B[i][j + 1][k])
                     + 0.5 * (B[i][j][k - 1] + B[i][j][k + 1]) - B[i][j][k];
  }
}
"""


def test_displacements_follow_the_skew_of_a_time_band(tmp_path):
    # jacobi-1d's band is time-skewed: one step of a member moves the accesses by constant
    # vectors, and the span of a tile is the sum of the sizes times those displacements.
    unit = _scheduled(tmp_path, JACOBI_1D)
    band = _outermost_band(unit.scop.schedule)
    moves = displacement_table(band, unit.scop.reads.union(unit.scop.writes))
    assert moves and all(all(move is not None and len(move) == 1 for move in per) for _, per in moves)
    assert any(per[0] != (0,) for _, per in moves)           # the time member moves along the array
    widths = {array: 1 + sum(abs(move[0]) * 31 for move in per if move) for array, per in moves}
    assert skewed_footprint(band, unit.scop, [32, 32]) == 8 * sum(widths.values())


def test_a_time_band_whose_square_tile_does_not_fit_gets_a_short_time_tile_and_whole_rows(tmp_path):
    # heat-3d's 4-deep skewed band (t, 2t+i, 2t+j, 2t+k): one 32^4 tile spans some 94^3
    # elements of each array, far more than half of a 1 MiB L2. The model keeps its innermost
    # member whole (rows are not cut by a skewed tile boundary) and picks the shape whose box,
    # with the row counted as LONGEST elements, fits with the most iterations per byte.
    unit = _scheduled(tmp_path, HEAT_3D)
    band = _outermost_band(unit.scop.schedule)
    assert skewed_footprint(band, unit.scop, [DEFAULT_SIZE] * 4) > CACHES[1] // 2
    sizes = band_tile_sizes(band, unit.scop, CACHES)
    assert sizes == [2, 8, 8, WHOLE]
    # Two time steps skewed by two elements each widen 8 rows to 10 (and the row to 258):
    # 10 x 10 x 258 doubles of each of A and B.
    assert skewed_footprint(band, unit.scop, sizes) == 2 * 8 * 10 * 10 * 258 <= CACHES[1] // 2
    assert all(skewed_footprint(band, unit.scop, bigger) > CACHES[1] // 2
               for bigger in ([2, 8, 16, WHOLE], [2, 16, 8, WHOLE], [4, 8, 8, WHOLE]))
    # A larger L2 gives larger tiles; the square default stays where it fits (jacobi-1d).
    assert band_tile_sizes(band, unit.scop, (32 * 1024, 2 << 20)) == [2, 8, 16, WHOLE]
    jacobi = _outermost_band(_scheduled(tmp_path, JACOBI_1D).scop.schedule)
    assert band_tile_sizes(jacobi, unit.scop, CACHES) == [DEFAULT_SIZE] * 2


def test_a_time_band_whose_tile_does_not_fit_the_cache_is_not_tiled(tmp_path):
    # With a 1 MiB L2 heat-3d is tiled (above) and run as wavefronts of tiles; with caches too
    # small for any shape it runs in the source order, the space loops of each time step on
    # threads. jacobi-1d's tile fits; a small L2 makes it spill.
    tiled = optimise(tmp_path, HEAT_3D, opt_level=3, cache_sizes=CACHES)
    assert tiled.status == "optimized" and tiled.reason == "", tiled.reason
    assert tiled.facts["tiled_bands"] == 1 and tiled.facts["tile_sizes"] == (2, 8, 8, WHOLE)
    assert tiled.facts["wavefronts"] == 1 and tiled.facts["untiled_reason"] == ""
    big = optimise(tmp_path, HEAT_3D, opt_level=3, cache_sizes=(8 * 1024, 64 * 1024))
    assert big.status == "optimized" and big.reason == "", big.reason
    assert big.facts["tiled_bands"] == 0 and big.facts["wavefronts"] == 0
    assert big.facts["untiled_reason"].startswith("time-iterated band not tiled: a 32x32x32x32 tile touches")
    assert big.facts["source_order"] and big.facts["parallel_loops"] == 2 and big.thread_teams == 1
    fits = optimise(tmp_path, JACOBI_1D, opt_level=3, cache_sizes=CACHES, disabled_passes=frozenset({"keep-streams"}))
    assert fits.facts["tiled_bands"] == 1 and fits.facts["untiled_reason"] == ""
    tiny = optimise(tmp_path, JACOBI_1D, opt_level=3, cache_sizes=(512, 1024),
                    disabled_passes=frozenset({"keep-streams"}))
    assert tiny.facts["tiled_bands"] == 0 and "tile budget" in tiny.facts["untiled_reason"]
    forced = optimise(tmp_path, HEAT_3D, opt_level=3, cache_sizes=CACHES, tile_size=32)
    assert forced.facts["tiled_bands"] == 1 and forced.facts["untiled_reason"] == ""
