# SPDX-License-Identifier: MIT
"""Pass `relax-false-deps`: let scheduling ignore false dependences of region-local storage.

Input: Scop + dependences + live ranges. Output: the unit with `relaxed` set
(clangpass.poly.live_ranges.RelaxedDependences): the live ranges of the region's
local scalars and arrays, their false (anti/output) dependences, and every other
dependence. `schedule` then enforces the other dependences and makes the false
ones conditional on the live ranges (isl conditional validity), so that loops
whose bodies declare temporaries can be tiled and run in parallel without
expanding them (thesis ch. 2, "tiling without expansion"); `verify-schedule`
checks live-range non-interference on the result.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.live_ranges import relax_false_dependences


@register
class RelaxFalseDeps(Pass):
    """Split false dependences of local storage from those the schedule must respect."""

    name = "relax-false-deps"
    requires = frozenset({"scop", "dependences", "live-ranges"})
    provides = frozenset({"relaxed-dependences"})
    dump_stage = "deps"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        try:
            relaxed = relax_false_dependences(scop, unit.dependences, unit.live_ranges, ctx.options.isl_max_operations)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: false dependences kept")
        return replace(unit, relaxed=relaxed if relaxed.active else None)
