# SPDX-License-Identifier: MIT
"""Pass `extract`: build the polyhedral model of the region (clangpass.poly.extract).

A region larger than `CompileOptions.max_statements` or nested deeper than
`max_loop_depth` is not modelled (`NotModelled`, reject id `pencil-region-size`: the region
falls back): checked on its source first, because building the model of such a region is itself costly
(clangpass.poly.budget.MAX_STATEMENTS).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.budget import size_problem
from clangpass.poly.extract import NotModelled, extract_region


@dataclass(frozen=True)
class ExtractRecord(PassRecord):
    """The accesses modelled as touching any element of their array (non-affine subscripts)."""

    approximated_accesses: tuple[str, ...] = ()


@register
class ExtractScop(Pass):
    """Region IR -> Scop: domains, accesses, original schedule, context (pet's model)."""

    name = "extract"
    provides = frozenset({"scop"})
    record = ExtractRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        too_large = size_problem(unit.region.body, ctx.options.max_statements, ctx.options.max_loop_depth)
        if too_large:
            raise NotModelled("pencil-region-size", too_large)
        scop, approximated = extract_region(unit.region, unit.module, ctx.isl_ctx)
        if not ctx.options.parallel and scop.annotations:
            # No loop runs on threads, so no reduction does: its dependences stay (poly.annotations).
            scop = replace(scop, annotations=tuple(replace(a, threads=False) for a in scop.annotations))
        return replace(unit, stage=Stage.SCOP, scop=scop).with_record(ExtractRecord(approximated))
