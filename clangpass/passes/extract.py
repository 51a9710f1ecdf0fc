# SPDX-License-Identifier: MIT
"""Pass `extract`: build the polyhedral model of the region (clangpass.poly.extract)."""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.extract import extract_scop


@register
class ExtractScop(Pass):
    """Region IR -> Scop: domains, accesses, original schedule, context (pet's model)."""

    name = "extract"
    provides = frozenset({"scop"})
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = extract_scop(unit.region, unit.module, ctx.isl_ctx)
        if not ctx.options.parallel and scop.annotations:
            # No loop runs on threads, so no reduction does: its dependences stay (poly.annotations).
            scop = replace(scop, annotations=tuple(replace(a, threads=False) for a in scop.annotations))
        return replace(unit, stage=Stage.SCOP, scop=scop)
