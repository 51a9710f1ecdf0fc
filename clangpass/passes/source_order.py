# SPDX-License-Identifier: MIT
"""Pass `source-order`: a schedule that gained nothing the source order lacks is not used.

Input: Scop after `schedule`, `keep-streams`, `tile`, `wavefront` and `mark-parallel`.
Output: the same Scop, or, when its schedule has no tiled band, no parallel loop and
no wavefront, the source order (`Scop.original_compute_schedule`), with
`source_order` set (the optimisation record's `source_order`).

Why: what a polyhedral schedule buys a CPU is locality through tiling and threads
through parallel loops; without either, isl's schedule differs from the source
only by fusion, interchange or skewing chosen for proximity, and LLVM's vectoriser
handles the loops a programmer wrote better than skewed, fused ones with a
dependence between their statements. jacobi-1d (TSTEPS=500, N=2000), whose skewed
two-deep band keep-streams leaves untiled, ran 1.26 ms against gcc's 0.37 ms with
the rescheduled nest (S_0 and S_1 interleaved in one loop, not vectorised); see
docs/benchmarks.md for the kernels this pass changes. The later passes
(`point-loop-order`, `mark-vector`) still run on the source order, so its innermost
independent loops are still handed to the vectoriser.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.tile import TILE_MARK
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen_unit import WAVEFRONT_MARK
from clangpass.poly.validity import PARALLEL_MARK


def gained_marks(schedule: isl.Schedule) -> set[str]:
    """The tile, parallel and wavefront marks in `schedule`."""
    found: set[str] = set()

    def look(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark:
            name = node.mark_get_id().get_name()
            if name in (TILE_MARK, PARALLEL_MARK, WAVEFRONT_MARK):
                found.add(name)
        return True

    schedule.get_root().foreach_descendant_top_down(look)
    return found


@register
class SourceOrder(Pass):
    """Keep the source order when the schedule has no tiled band, parallel loop or wavefront."""

    name = "source-order"
    requires = frozenset({"schedule"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        original = scop.original_compute_schedule()
        if gained_marks(scop.schedule) or scop.schedule.plain_is_equal(original):
            return unit
        return replace(unit, scop=scop.with_schedule(original, source_order=True))
