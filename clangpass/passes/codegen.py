# SPDX-License-Identifier: MIT
"""Pass `codegen`: isl AST and statement bodies for the back ends (clangpass.poly.codegen)."""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.budget import isl_error_reason
from clangpass.poly.codegen import generate_ast


@register
class GenerateAst(Pass):
    """Final schedule -> isl AST with parallel/tile marks -> CodegenUnit."""

    name = "codegen"
    requires = frozenset({"scop"})
    provides = frozenset({"ast"})
    dump_stage = "ast"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        try:
            codegen = generate_ast(scop)
        except isl.Error as exc:
            # isl's AST generator can fail on a transformed schedule; the source order is
            # the one it must handle (a failure there is a bug and propagates).
            original = scop.original_compute_schedule()
            if scop.schedule.plain_is_equal(original):
                raise
            note = f"isl AST generation failed ({isl_error_reason(exc)}): original schedule used"
            scop = scop.with_schedule(original, tiled_bands=0, tile_sizes=()).with_note(note)
            codegen = generate_ast(scop)
        return replace(unit, stage=Stage.AST, scop=scop, codegen=codegen)
