# SPDX-License-Identifier: MIT
"""The PENCIL compliance linter (thesis chapter 4 and appendix A).

Input: the IR `Module` of one translation unit, in which the front end has
marked the PENCIL functions (`Function.is_pencil`); pencil regions
(`Region(kind='pencil')`) inside C functions are PENCIL code too. Output:
diagnostics in a `DiagnosticEngine`, one per violation, each with a stable rule
id (`pencil-<name>`, see `rules.RULES`) and the exact location of the offending
construct. Only PENCIL code is checked; plain C, `#pragma scop` regions of C
functions included, is never reported.

`lint_module` runs every check of `FUNCTION_CHECKS` over every function of the
main file (each check only visits PENCIL code), then the checks that concern
the translation unit as a whole.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from clangpass.diagnostics import DiagnosticEngine
from clangpass.ir import nodes as N
from clangpass.ir.nodes import Module
from clangpass.ir.walk import descendants
from clangpass.lint.checks_calls import CallCheck, check_summary_signatures
from clangpass.lint.checks_control import ControlFlowCheck
from clangpass.lint.checks_expressions import ExpressionCheck
from clangpass.lint.checks_globals import GlobalStateCheck
from clangpass.lint.checks_loops import ForLoopCheck
from clangpass.lint.checks_pointers import PointerCheck
from clangpass.lint.checks_pragmas import PragmaCheck, ReductionCheck
from clangpass.lint.checks_subscripts import SubscriptCheck
from clangpass.lint.checks_types import ArrayParamCheck, UnionBitfieldCheck, VariadicCheck
from clangpass.lint.rules import RULES, Rule, find_rule
from clangpass.lint.unit import PencilUnit

FUNCTION_CHECKS = (
    GlobalStateCheck, UnionBitfieldCheck, ArrayParamCheck, VariadicCheck, PointerCheck,
    CallCheck, ControlFlowCheck, ForLoopCheck, PragmaCheck, ReductionCheck, ExpressionCheck,
    SubscriptCheck,
)

# Checks of the translation unit as a whole: (rules reported, check).
UNIT_CHECKS = (
    (GlobalStateCheck.rules, GlobalStateCheck.check_unit),
    (UnionBitfieldCheck.rules, UnionBitfieldCheck.check_unit),
    (("pencil-summary-signature",), check_summary_signatures),
)


@dataclass(frozen=True)
class LintOptions:
    """Which rules run (all by default); `-Wno-<rule>` removes a warning rule."""

    rules: frozenset[str] = field(default_factory=lambda: frozenset(RULES))


def lint_module(module: Module, engine: DiagnosticEngine, options: LintOptions = LintOptions()) -> None:
    """Checks the PENCIL code of `module` and adds one diagnostic per violation to `engine`."""
    unit = PencilUnit(module, engine, options.rules)
    for rules, check in UNIT_CHECKS:
        if options.rules.intersection(rules):
            check(unit)
    checks = [c for c in FUNCTION_CHECKS if options.rules.intersection(c.rules)]
    for function in module.functions:
        if function.body is None or not function.in_main_file:
            continue
        for check in checks:
            check(unit, function).run()


def has_pencil_code(module: Module) -> bool:
    """Whether the main file holds PENCIL code: it is a PENCIL file, or a function of it is
    PENCIL or contains a `#pragma pencil region`."""
    return module.pencil_file or any(
        fn.is_pencil or any(isinstance(n, N.Region) and n.kind == "pencil" for n in descendants(fn.body))
        for fn in module.functions if fn.body is not None and fn.in_main_file)


__all__ = ["LintOptions", "RULES", "Rule", "find_rule", "has_pencil_code", "lint_module"]
