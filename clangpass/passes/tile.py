# SPDX-License-Identifier: MIT
"""Pass `tile`: rectangular tiling of the outermost permutable bands of depth >= 2.

Input: Scop whose schedule has bands flagged `permutable` by the scheduler.
Output: each such band split into a tile band (marked `tile`) iterating over
rectangular tiles and a point band (marked `point`) inside them (Irigoin &
Triolet, POPL 1988; Bondhugula et al., Pluto, PLDI 2008, section 4). A permutable
band can be tiled without a legality check: every dependence has non-negative
distance along all its members. Sizes, per band (numbered in the order the pass meets
the candidate bands, `clangpass.tile_spec`): the rule of `tile_sizes`
(-fpencil-tile-sizes=) for it, else `tile_size` in every member when that option is set
(0 disables tiling), else the rule `pencilcc-tune` cached (`tuned_tile_sizes`), else the
cache model of `clangpass.poly.tile_sizes` (caches from `cache_sizes`, else the host's).
The sizes are the pass's record (`TileRecord`: the optimisation record's `tiled_bands`,
`tile_sizes`, `untiled_reason`, and where they came from). A later pass that puts back a
schedule without the tiles says so in that record (`without_tiles`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.options import CompileOptions
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.scop import Scop
from clangpass.poly.tile_sizes import band_tile_sizes, host_cache_sizes, skewed_footprint, tile_budget
from clangpass.tile_spec import FLAG, MODEL, choose, summary

TILE_MARK = "tile"
POINT_MARK = "point"


@dataclass(frozen=True)
class TileRecord(PassRecord):
    """The bands the schedule has tiled, the size of every tiled member (outermost first), and why
    `tile` left a permutable band untiled ('' if none: a wavefront out of cache); where the sizes
    came from ('model', 'flag', 'tuned', 'mixed': clangpass.tile_spec), every tiled band as
    {"band": its number, "sizes", "from"}, and the given sizes that did not fit a band."""

    tiled_bands: int = 0
    tile_sizes: tuple[int, ...] = ()
    untiled_reason: str = ""
    tile_sizes_from: str = ""
    tile_bands: tuple[dict, ...] = ()
    tile_size_problems: tuple[str, ...] = ()


def without_tiles(unit: PolyUnit) -> PolyUnit:
    """`unit`, whose schedule a later pass replaced by one without the tiles (the source order):
    its tile record says no band is tiled (why bands were left untiled stays)."""
    return unit.with_record(replace(unit.record(TileRecord), tiled_bands=0, tile_sizes=(), tile_sizes_from="",
                                    tile_bands=()))


@register
class TileBands(Pass):
    """Tile permutable bands of depth >= 2 (options.tile_size, or sizes from the cache model)."""

    name = "tile"
    rewrites_schedule = True
    requires = frozenset({"schedule"})
    record = TileRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        options = ctx.options
        size = options.tile_size
        if size is not None and size <= 0 and not options.tile_sizes:
            return unit
        scop = unit.scop
        caches = options.cache_sizes or host_cache_sizes()
        label, function = unit.region.label, unit.region.function.name
        chosen: list[int] = []      # the size of every tiled member, outermost first
        bands: list[dict] = []
        notes: list[str] = []
        problems: list[str] = []
        count = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Tile under `node`; returns the node now at `node`'s position."""
            if (node.get_type() == isl.schedule_node_type.band and node.band_n_member() >= 2
                    and node.band_get_permutable()):
                number, count[0] = count[0], count[0] + 1
                n = node.band_n_member()
                if size is not None and not any(r.matches(label, function, number) for r in options.tile_sizes):
                    if size <= 0:
                        return node
                    sizes, source = [size] * n, FLAG
                else:
                    pick = choose(options.tile_sizes, options.tuned_tile_sizes, label, function, number, n,
                                  band_tile_sizes(node, scop, caches, _register_tiled(node, scop, options)))
                    sizes, source = list(pick.sizes), pick.source
                    if pick.problem:
                        problems.append(pick.problem)
                too_big = _uncached_wavefront(node, scop, sizes, caches) if source == MODEL else None
                if too_big is not None:
                    notes.append(too_big)
                    return node
                chosen.extend(sizes)
                bands.append({"band": number, "sizes": sizes, "from": source})
                return _tile(node, sizes)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(scop.schedule.get_root()).get_schedule()
        record = unit.record(TileRecord)
        if notes or problems:
            unit = unit.with_record(record := replace(record, untiled_reason="; ".join(notes) or record.untiled_reason,
                                                      tile_size_problems=record.tile_size_problems + tuple(problems)))
        if not bands:
            return unit
        every = record.tile_bands + tuple(bands)
        return replace(unit, scop=scop.with_schedule(schedule)).with_record(
            replace(record, tiled_bands=record.tiled_bands + len(bands), tile_sizes=record.tile_sizes + tuple(chosen),
                    tile_sizes_from=summary([b["from"] for b in every]), tile_bands=every))


def _register_tiled(band: isl.ScheduleNode, scop: Scop, options: CompileOptions) -> bool:
    """Whether pass `register-tile` will make register tiles of `band`'s point band: it is in
    the region's pipeline, not disabled, and takes the band as a matrix product (its roles,
    `register_roles`, on the band's own accesses). The tile sizes of such a band are those of
    its micro-kernel's blocks (clangpass.poly.tile_sizes)."""
    # Imported here: register-tile and the pass manager import this module.
    from clangpass.passes.manager import pass_names
    from clangpass.passes.register_tile import register_roles
    from clangpass.targets import get_target
    name = "register-tile"
    if name in options.disabled_passes or name not in pass_names(options, get_target(options.target)):
        return False
    return register_roles(band, scop.reads, scop.writes) is not None


def _uncached_wavefront(band: isl.ScheduleNode, scop: Scop, sizes: list[int], caches: tuple[int, ...]) -> Optional[str]:
    """Why `band` is better left untiled, or None. A band with no coincident member (a
    time-iterated stencil, which `wavefront` runs as wavefronts of tiles) gains from tiling
    only when a tile's data stays in cache across the time steps of the tile; when the
    bounding box of the elements one tile touches (`skewed_footprint`) exceeds the tile budget
    the steps stream their data from memory as the source order does, and pay for the skewed
    tile's control besides. heat-3d (N=120, 32^4 tiles: 13 MB a tile against half of a 1 MB
    L2) ran 1.45 s on two threads tiled, 0.66 s in the source order with its parallel space
    loops (docs/passes/tile.md); the model now gives such a band a shape that fits
    (`time_band_sizes`), so this declines only where none does. Sizes of `WHOLE` count as
    `LONGEST` elements (`skewed_footprint`)."""
    if any(band.band_member_get_coincident(m) for m in range(band.band_n_member())):
        return None
    touched = skewed_footprint(band, scop, sizes)
    budget = tile_budget(caches)
    if touched is None or touched <= budget:
        return None
    return (f"time-iterated band not tiled: a {'x'.join(map(str, sizes))} tile touches {touched} bytes, "
            f"more than the {budget} of the tile budget (half of L2)")


def _tile(band: isl.ScheduleNode, sizes: list[int]) -> isl.ScheduleNode:
    ctx = band.get_ctx()
    values = isl.MultiVal.zero(band.band_get_space())         # { [t0, ..., tk] }
    for k, size in enumerate(sizes):
        values = values.set_val(k, isl.Val.int_from_si(ctx, size))
    tiles = band.band_tile(values)                             # tile band; its child is the point band
    tiles = tiles.child(0).insert_mark(isl.Id(POINT_MARK, context=ctx)).parent()
    return tiles.insert_mark(isl.Id(TILE_MARK, context=ctx))
