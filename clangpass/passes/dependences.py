# SPDX-License-Identifier: MIT
"""Pass `dependences`: flow, anti and output dependences of the model (clangpass.poly.dependences).

Input: a unit with its Scop. Output: the unit with `dependences`, computed unless a pass
that computed them on the same model handed them on (index-set-split,
privatize-arrays); they hold until a pass changes the model. Its record lists the exact
reductions found (`exact_reductions`: "array:operator", clangpass.poly.exact_reductions).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.dependences import compute_dependences


@dataclass(frozen=True)
class DependencesRecord(PassRecord):
    """The arrays whose updates were found to be exact reductions, each "array:operator"."""

    exact_reductions: tuple[str, ...] = ()


@register
class ComputeDependences(Pass):
    """Dependence analysis of clangpass.poly.dependences, bounded by isl_max_operations."""

    name = "dependences"
    requires = frozenset({"scop"})
    provides = frozenset({"dependences"})
    dump_stage = "deps"
    record = DependencesRecord

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if unit.dependences is None:
            unit = replace(unit, dependences=compute_dependences(unit.scop, ctx.options.isl_max_operations,
                                                                 ctx.exact_reductions))
        found = tuple(f"{r.array}:{r.operator}" for r in unit.dependences.exact)
        return unit.with_record(DependencesRecord(found)) if found else unit
