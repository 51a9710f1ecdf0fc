# SPDX-License-Identifier: MIT
"""Pass `keep-streams`: two-deep parallel nests already in streaming order are not tiled.

Input: Scop after `schedule`. Output: each innermost permutable band of exactly
two members whose outer member is coincident (parallel without tiling) and whose
inner member is already the best innermost loop (no fewer jumping accesses along
the outer one, `clangpass.poly.strides`) is split into two one-member bands, so
that `tile` leaves it alone; its record counts them (`streaming_bands` in the
optimisation record).

Why: in a two-deep band the data an iteration of the outer loop reuses from the
previous one is at most a row (a vector such as `x[j]` in `y[i] += A[i][j] *
x[j]`), which stays in cache untiled; tiling buys no reuse there and turns two
long sequential streams into 32 short ones per tile, which the hardware
prefetchers follow badly (gesummv, atax, bicg: memory-bound matrix-vector
products, measured in docs/passes/keep-streams.md). Tiling pays when the reused
data is a whole plane, which needs a third loop in the band (the capacity
argument of Wolf & Lam, "A data locality optimizing algorithm", PLDI 1991,
section 4; Coleman & McKinley, "Tile size selection using cache organization and
data layout", PLDI 1995, where a tile is sized to keep a reused 2-D footprint).
Bands whose order is not yet the streaming one stay tileable, since tiling and
`point-loop-order` are what give them unit-stride inner loops and outer
parallelism together (mvt's column walk).

The same capacity argument holds for a two-deep innermost band with *no*
coincident member whose inner member is already the best innermost loop
(floyd-warshall's `(i, j)` under its `k` loop, jacobi-1d's skewed `(t, i)`;
not doitgen's `(p, s)`, whose inner `s` walks `C4[s][p]` by columns, which tiling
and `point-loop-order` mend): what one outer iteration reuses from the previous one is a row,
and no parallelism is at stake either, since `wavefront` never pays on such a
band (a barrier per wavefront of 32x32 tiles, docs/passes/wavefront.md). Tiling
it only adds loop overhead and bounds that block vectorisation: floyd-warshall
(N=2800) ran 34 s tiled against gcc's 12.5 s, jacobi-1d 3.5x gcc's time.

A two-member sequential band whose inner member runs a triangular chain of exact-reduction
updates (nussinov's `(-i, j)` over `table[i][j] = max(table[i][j], table[i][k] + table[k +
1][j])` for `k < j`: `reduction_jam.exact_triangle`) is split too: untiled, `reduction-jam`
runs eight rows of the chain together over its rectangle, eight independent max chains
where tiles kept one (docs/passes/reduction-jam.md, docs/passes/exact-reductions.md).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes.mark_vector import is_innermost_band
from clangpass.passes.reduction_jam import accumulation_chains, exact_triangle
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.strides import Stride, access_strides, stride_table


def is_streaming_band(band: isl.ScheduleNode, accesses: isl.UnionMap,
                      reads: isl.UnionMap | None = None, writes: isl.UnionMap | None = None) -> bool:
    """Whether `band` is a two-member innermost band, parallel outside or sequential in both
    members, whose inner member is already the best innermost loop (and, when parallel, streams
    two or more matrices, or runs one accumulation chain that `reduction-jam` will jam: given
    `reads` and `writes`)."""
    if not (band.get_type() == isl.schedule_node_type.band and band.band_n_member() == 2
            and band.band_get_permutable() and is_innermost_band(band)):
        return False
    sequential = not (band.band_member_get_coincident(0) or band.band_member_get_coincident(1))
    if not (sequential or band.band_member_get_coincident(0)):
        return False
    table = stride_table(band, accesses)
    outer, inner = (sum(s is Stride.OTHER for s in table[m]) for m in (0, 1))
    if inner > outer:
        return False
    if sequential or len(_streamed_matrices(band, accesses)) >= 2:
        return True
    return reads is not None and writes is not None and accumulation_chains(band, 1, band, 0, reads, writes) == 1


def _streamed_matrices(band: isl.ScheduleNode, accesses: isl.UnionMap) -> set[str]:
    """The arrays of two or more dimensions that the band's inner loop walks with unit stride."""
    local = accesses.intersect_domain(band.get_domain())     # { S[i..] -> A[a..] } of the band
    maps = local.get_map_list()
    matrices = (maps.get_at(k) for k in range(maps.n_map()))
    return {m.get_tuple_name(isl.dim_type.out) for m in matrices if m.dim(isl.dim_type.out) >= 2
            and Stride.UNIT in access_strides(band, 1, isl.UnionMap.from_map(m))}


@dataclass(frozen=True)
class KeepStreamsRecord(PassRecord):
    """The two-deep bands left untiled."""

    streaming_bands: int = 0


@register
class KeepStreams(Pass):
    """Leave two-deep parallel nests in streaming order untiled."""

    name = "keep-streams"
    rewrites_schedule = True
    requires = frozenset({"schedule"})
    record = KeepStreamsRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if ctx.options.tile_size == 0:
            return unit
        scop = unit.scop
        accesses = scop.reads.union(scop.writes)               # [P] -> { S[i..] -> A[a..] }
        kept: list[isl.ScheduleNode] = []

        exact = frozenset(n for r in unit.dependences.exact for n in r.statements) \
            if unit.dependences is not None else frozenset()

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Split under `node`; returns the node now at `node`'s position."""
            if is_streaming_band(node, accesses, scop.reads, scop.writes) or (
                    exact and exact_triangle(node, scop.reads, scop.writes, exact)):
                kept.append(node)
                # Two one-member bands: same order and flags, but nothing for `tile` to tile.
                return node.band_split(1)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(scop.schedule.get_root()).get_schedule()
        if not kept:
            return unit
        done = unit.record(KeepStreamsRecord).streaming_bands + len(kept)
        return replace(unit, scop=scop.with_schedule(schedule)).with_record(KeepStreamsRecord(done))
