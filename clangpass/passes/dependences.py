# SPDX-License-Identifier: MIT
"""Pass `dependences`: compute (and cache on the Scop) flow, anti and output dependences."""
from __future__ import annotations

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.dependences import dependences


@register
class ComputeDependences(Pass):
    """Dependence analysis of clangpass.poly.dependences, bounded by isl_max_operations."""

    name = "dependences"
    requires = frozenset({"scop"})
    provides = frozenset({"dependences"})
    dump_stage = "deps"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        # The analysis is cached on the Scop; later passes read it from there.
        dependences(unit.scop, ctx.options.isl_max_operations)
        return unit
