# SPDX-License-Identifier: MIT
"""Pass `tile`: rectangular tiling of the outermost permutable bands of depth >= 2.

Input: Scop whose schedule has bands flagged `permutable` by the scheduler.
Output: each such band split into a tile band (marked `tile`) iterating over
rectangular tiles and a point band (marked `point`) inside them (Irigoin &
Triolet, POPL 1988; Bondhugula et al., Pluto, PLDI 2008, section 4). A permutable
band can be tiled without a legality check: every dependence has non-negative
distance along all its members. Sizes: `tile_size` in every member when the
option is set (0 disables tiling), otherwise per band from the cache model of
`clangpass.poly.tile_sizes` (caches from `cache_sizes`, else the host's); the
sizes are recorded in `Scop.tile_sizes` (the record's `tile_sizes`).
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.tile_sizes import band_tile_sizes, host_cache_sizes

TILE_MARK = "tile"
POINT_MARK = "point"


@register
class TileBands(Pass):
    """Tile permutable bands of depth >= 2 (options.tile_size, or sizes from the cache model)."""

    name = "tile"
    requires = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        size = ctx.options.tile_size
        if size is not None and size <= 0:
            return unit
        scop = unit.scop
        caches = ctx.options.cache_sizes or host_cache_sizes()
        chosen: list[int] = []      # the size of every tiled member, outermost first
        tiled = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Tile under `node`; returns the node now at `node`'s position."""
            if (node.get_type() == isl.schedule_node_type.band and node.band_n_member() >= 2
                    and node.band_get_permutable()):
                sizes = ([size] * node.band_n_member() if size is not None
                         else band_tile_sizes(node, scop, caches))
                chosen.extend(sizes)
                tiled[0] += 1
                return _tile(node, sizes)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(scop.schedule.get_root()).get_schedule()
        if not tiled[0]:
            return unit
        return replace(unit, scop=scop.with_schedule(schedule, tiled_bands=scop.tiled_bands + tiled[0],
                                                     tile_sizes=scop.tile_sizes + tuple(chosen)))


def _tile(band: isl.ScheduleNode, sizes: list[int]) -> isl.ScheduleNode:
    ctx = band.get_ctx()
    values = isl.MultiVal.zero(band.band_get_space())         # { [t0, ..., tk] }
    for k, size in enumerate(sizes):
        values = values.set_val(k, isl.Val.int_from_si(ctx, size))
    tiles = band.band_tile(values)                             # tile band; its child is the point band
    tiles = tiles.child(0).insert_mark(isl.Id(POINT_MARK, context=ctx)).parent()
    return tiles.insert_mark(isl.Id(TILE_MARK, context=ctx))
