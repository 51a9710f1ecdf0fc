# SPDX-License-Identifier: MIT
"""Pass `codegen`: isl AST and statement bodies for the back ends (clangpass.poly.codegen)."""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.ast_soundness import self_bounded_loops
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.codegen import generate_ast
from clangpass.poly.extract import NotModelled


@register
class GenerateAst(Pass):
    """Final schedule -> isl AST with parallel/tile marks -> CodegenUnit."""

    name = "codegen"
    requires = frozenset({"scop"})
    provides = frozenset({"ast"})
    dump_stage = "ast"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        original = scop.original_compute_schedule()
        try:
            # A transformed schedule's AST is bounded by the isl budget: isl's AST generator
            # has been seen to run for minutes on a skewed schedule (random program seed 30239).
            budget = 0 if scop.schedule.plain_is_equal(original) else ctx.options.isl_max_operations
            with isl_budget(ctx.isl_ctx, budget, "AST generation"):
                codegen = generate_ast(scop)
        except (isl.Error, BudgetExceeded) as exc:
            # isl's AST generator can fail on a transformed schedule; the source order is
            # the one it must handle (a failure there is a bug and propagates).
            if scop.schedule.plain_is_equal(original):
                raise
            why = str(exc) if isinstance(exc, BudgetExceeded) else \
                f"isl AST generation failed ({isl_error_reason(exc)})"
            note = f"{why}: original schedule used"
            scop = scop.with_schedule(original, tiled_bands=0, tile_sizes=()).with_note(note)
            codegen = generate_ast(scop)
        # isl's AST generator can stop a loop of a strided domain early and drop instances
        # (clangpass.poly.ast_soundness, random program seed 900227): the source order is used
        # instead, and if even its AST is unsound the host compiler takes the region.
        unsound = self_bounded_loops(codegen.ast)
        if unsound and not scop.schedule.plain_is_equal(original):
            note = f"unsound isl AST ({unsound[0]}): original schedule used"
            scop = scop.with_schedule(original, tiled_bands=0, tile_sizes=()).with_note(note)
            codegen = generate_ast(scop)
            unsound = self_bounded_loops(codegen.ast)
        if unsound:
            raise NotModelled(f"unsound isl AST of the source order ({unsound[0]})")
        return replace(unit, stage=Stage.AST, scop=scop, codegen=codegen)
