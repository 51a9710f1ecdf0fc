# SPDX-License-Identifier: MIT
"""Pass `live-ranges`: the live ranges of region-local storage (clangpass.poly.live_ranges).

Input: a unit with its Scop. Output: the unit with `live_ranges`: value-based flow through
the region's local scalars and arrays (`LiveRanges`), which relax-false-deps, mark-parallel,
source-order, register-tile, reduction-jam and verify-schedule read. Computed unless
demote-scalars handed on those of the same model; when even the memory-based superset
exceeds the isl budget, the field says so and each reader falls back as it would on a
BudgetExceeded of its own.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.live_ranges import live_ranges


@register
class LiveRangeAnalysis(Pass):
    """Value-based flow through region-local storage, bounded by isl_max_operations."""

    name = "live-ranges"
    requires = frozenset({"scop"})
    provides = frozenset({"live-ranges"})
    dump_stage = ""

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if unit.live_ranges is not None:
            return unit
        return replace(unit, live_ranges=live_ranges(unit.scop, ctx.options.isl_max_operations))
