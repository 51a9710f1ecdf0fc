# SPDX-License-Identifier: MIT
"""Pass `alias-check`: the run-time check that the region's arrays do not overlap (clangpass.poly.alias_check).

Disabling it (`--disable-pass=alias-check`) keeps a region whose arrays may overlap
with the host compiler (the pass manager reports it), and leaves every
non-restrict array parameter of the outlined code without `noalias`.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.alias_check import plan_alias_check


@register
class AliasCheckPass(Pass):
    """Scop -> the C condition under which the arrays of the region cannot overlap."""

    name = "alias-check"
    requires = frozenset({"scop"})
    provides = frozenset({"alias-check"})
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        return replace(unit, alias_check=plan_alias_check(unit.scop))
