# SPDX-License-Identifier: MIT
"""Pass `dependences`: flow, anti and output dependences of the model (clangpass.poly.dependences).

Input: a unit with its Scop. Output: the unit with `dependences`, computed unless a pass
that computed them on the same model handed them on (index-set-split,
privatize-arrays); they hold until a pass changes the model.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.dependences import compute_dependences


@register
class ComputeDependences(Pass):
    """Dependence analysis of clangpass.poly.dependences, bounded by isl_max_operations."""

    name = "dependences"
    requires = frozenset({"scop"})
    provides = frozenset({"dependences"})
    dump_stage = "deps"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if unit.dependences is not None:
            return unit
        return replace(unit, dependences=compute_dependences(unit.scop, ctx.options.isl_max_operations))
