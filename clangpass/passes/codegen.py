# SPDX-License-Identifier: MIT
"""Pass `codegen`: isl AST and statement bodies for the back ends (clangpass.poly.codegen)."""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit, Stage
from clangpass.poly.codegen import generate_ast


@register
class GenerateAst(Pass):
    """Final schedule -> isl AST with parallel/tile marks -> CodegenUnit."""

    name = "codegen"
    requires = frozenset({"scop"})
    provides = frozenset({"ast"})
    dump_stage = "ast"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        return replace(unit, stage=Stage.AST, codegen=generate_ast(unit.scop))
