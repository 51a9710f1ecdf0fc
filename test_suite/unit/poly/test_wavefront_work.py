# SPDX-License-Identifier: MIT
"""The work of one tile that pass `wavefront` weighs against MIN_TILE_INSTANCES (`_tile_work`):
points of a full tile times the statement instances under one point, bounded from the domain."""
from __future__ import annotations

import math

import islpy as isl

from clangpass.passes import wavefront
from clangpass.passes.tile import _tile


def _tile_band(domain: str, schedule: str, sizes: list[int]) -> isl.ScheduleNode:
    """The tile band of `domain` scheduled by the 2-member band `schedule`, tiled by `sizes`."""
    ctx = isl.Context()
    tree = isl.Schedule.from_domain(isl.UnionSet.read_from_str(ctx, domain))
    band = tree.get_root().child(0).insert_partial_schedule(
        isl.MultiUnionPwAff.read_from_str(ctx, schedule)).band_set_permutable(1)
    mark = _tile(band, sizes)                                  # tile mark above the tile band
    return mark.child(0)


def test_a_stencil_weighs_its_points():
    band = _tile_band("[n] -> { S[t, i] : 0 <= t < n and 0 < i < n }", "[{ S[t, i] -> [(t)] }, { S[t, i] -> [(t + i)] }]",
                      [32, 32])
    assert wavefront._tile_work(band) == 32 * 32


def test_a_constant_inner_loop_multiplies_the_points():
    band = _tile_band("[n] -> { S[i, j, k] : 0 <= i, j < n and 0 <= k < 5; T[i, j] : 0 <= i, j < n }",
                      "[{ S[i, j, k] -> [(i)]; T[i, j] -> [(i)] }, { S[i, j, k] -> [(j)]; T[i, j] -> [(j)] }]",
                      [16, 32])
    assert wavefront._tile_work(band) == 16 * 32 * 5


def test_a_parametric_inner_loop_is_unbounded():
    # nussinov's shape: a k loop from i to j under every (i, j) point.
    band = _tile_band("[n] -> { S[i, j, k] : 0 <= i < j < n and i < k < j }",
                      "[{ S[i, j, k] -> [(-i)] }, { S[i, j, k] -> [(j)] }]", [32, 32])
    assert wavefront._tile_work(band) == math.inf
    assert wavefront._tile_work(band) >= wavefront.MIN_TILE_INSTANCES


def test_the_threshold_test_agrees_with_the_work():
    """`_tile_holds_at_least` (which skips the work per point once the points reach the bound)
    says what comparing `_tile_work` with the bound says, on either side of it."""
    stencil = _tile_band("[n] -> { S[t, i] : 0 <= t < n and 0 < i < n }",
                         "[{ S[t, i] -> [(t)] }, { S[t, i] -> [(t + i)] }]", [32, 32])
    inner = _tile_band("[n] -> { S[i, j, k] : 0 <= i, j < n and 0 <= k < 5; T[i, j] : 0 <= i, j < n }",
                       "[{ S[i, j, k] -> [(i)]; T[i, j] -> [(i)] }, { S[i, j, k] -> [(j)]; T[i, j] -> [(j)] }]",
                       [16, 32])
    for band in (stencil, inner):
        work = wavefront._tile_work(band)
        for least in (1, 512, 1024, 1025, 2560, 2561, wavefront.MIN_TILE_INSTANCES):
            assert wavefront._tile_holds_at_least(band, least) is (work >= least)
