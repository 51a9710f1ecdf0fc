# SPDX-License-Identifier: MIT
"""Pass `tile`: rectangular tiling of the outermost permutable bands of depth >= 2.

Input: Scop whose schedule has bands flagged `permutable` by the scheduler.
Output: each such band split into a tile band (marked `tile`) iterating over
tiles of `tile_size` in every dimension and a point band (marked `point`)
inside them (Irigoin & Triolet, POPL 1988; Bondhugula et al., Pluto, PLDI 2008,
section 4). A permutable band can be tiled without a legality check: every
dependence has non-negative distance along all its members. Knob: `tile_size`
(0 disables tiling).
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit

TILE_MARK = "tile"
POINT_MARK = "point"


@register
class TileBands(Pass):
    """Tile permutable bands of depth >= 2 with options.tile_size."""

    name = "tile"
    requires = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        size = ctx.options.tile_size
        if size <= 0:
            return unit
        scop = unit.scop
        tiled: list[int] = []       # the depth of each tiled band

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Tile under `node`; returns the node now at `node`'s position."""
            if (node.get_type() == isl.schedule_node_type.band and node.band_n_member() >= 2
                    and node.band_get_permutable()):
                tiled.append(node.band_n_member())
                return _tile(node, size)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(scop.schedule.get_root()).get_schedule()
        if not tiled:
            return unit
        sizes = tuple(size for depth in tiled for _ in range(depth))
        return replace(unit, scop=scop.with_schedule(schedule, tiled_bands=scop.tiled_bands + len(tiled),
                                                     tile_sizes=scop.tile_sizes + sizes))


def _tile(band: isl.ScheduleNode, size: int) -> isl.ScheduleNode:
    ctx = band.get_ctx()
    sizes = isl.MultiVal.zero(band.band_get_space())          # { [t0, ..., tk] }
    for k in range(band.band_n_member()):
        sizes = sizes.set_val(k, isl.Val.int_from_si(ctx, size))
    tiles = band.band_tile(sizes)                             # tile band; its child is the point band
    tiles = tiles.child(0).insert_mark(isl.Id(POINT_MARK, context=ctx)).parent()
    return tiles.insert_mark(isl.Id(TILE_MARK, context=ctx))
