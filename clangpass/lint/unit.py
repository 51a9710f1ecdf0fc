# SPDX-License-Identifier: MIT
"""What the PENCIL rules need to know about a whole translation unit.

Input: the front end's `Module` (which already says which functions are PENCIL,
`Function.is_pencil`), the diagnostic engine and the set of rules to run.
Output: facts shared by the checks (summary functions, which callees PENCIL code
may call, the call graph) and `report`, the one way checks emit a diagnostic.

Summarised functions (thesis section 4.3.2): a function that carries
`pencil_access(summary)` is analysed through its summary, not its body, and the
thesis uses this for non-PENCIL functions (its example 2 calls printf). So the
body of a summarised function is checked only when it is explicitly PENCIL (a
PENCIL file, `__attribute__((pencil))`, or itself a summary function), not when
it is PENCIL only because its array parameters are all `pencil_array`.
"""
from __future__ import annotations

from functools import cached_property
from typing import Optional, Sequence

from clangpass.diagnostics import Diagnostic, DiagnosticEngine
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.types import is_pencil_array
from clangpass.ir.callgraph import recursive_components
from clangpass.lint.rules import RULES
from clangpass.ir.walk import descendants


class PencilUnit:
    def __init__(self, module: N.Module, engine: DiagnosticEngine, rules: frozenset[str]) -> None:
        self.module = module
        self.engine = engine
        self.rules = rules
        self.functions = {f.name: f for f in module.functions}
        self.summaries = module.summary_functions()

    # ------------------------------------------------------------------ functions
    def summary_of(self, fn: N.Function) -> Optional[str]:
        attr = fn.attribute("pencil_access")
        return attr.args[0] if attr is not None and attr.args else None

    def is_summary(self, fn: N.Function) -> bool:
        return fn.name in self.summaries

    def is_explicitly_pencil(self, fn: N.Function) -> bool:
        """PENCIL by attribute, as a summary, or as a function a PENCIL file defines.

        A PENCIL file's prototype of a function it does not define (`extern void log(double);`)
        declares a function written elsewhere, maybe in C: it is not PENCIL by the file alone.
        """
        return ((self.module.pencil_file and fn.in_main_file and fn.name != "main" and fn.body is not None)
                or fn.attribute("pencil") is not None or self.is_summary(fn))

    def checks_body(self, fn: N.Function) -> bool:
        """Whether the whole body of `fn` must follow the PENCIL rules."""
        if fn.body is None or not fn.in_main_file or not fn.is_pencil:
            return False
        return self.summary_of(fn) is None or self.is_explicitly_pencil(fn)

    def is_pencil_declaration(self, fn: N.Function) -> bool:
        """A PENCIL function, defined here or only declared (prototypes count by their parameters)."""
        if fn.is_pencil or self.is_explicitly_pencil(fn):
            return True
        arrays = [p.type for p in fn.params if isinstance(p.type, T.ArrayType)]
        return bool(arrays) and all(map(is_pencil_array, arrays))

    def may_be_called(self, name: str) -> bool:
        """Whether PENCIL code may call the function `name` (builtins are told apart by the caller)."""
        fn = self.functions.get(name)
        if fn is None:
            return False
        return (self.is_pencil_declaration(fn) or fn.attribute("const") is not None
                or self.summary_of(fn) is not None)

    @cached_property
    def call_graph(self) -> dict[str, frozenset[str]]:
        """caller -> callees, for every function defined in the translation unit."""
        return {fn.name: frozenset(n.callee for n in descendants(fn.body) if isinstance(n, N.Call))
                for fn in self.module.functions if fn.body is not None}

    @cached_property
    def recursive_components(self) -> dict[str, frozenset[str]]:
        """function -> the functions it is mutually recursive with (itself included)."""
        return recursive_components(self.call_graph)

    # ------------------------------------------------------------------ reporting
    def report(self, rule_id: str, loc: N.SourceLoc, message: str,
               notes: Sequence[tuple[N.SourceLoc, str]] = ()) -> None:
        if rule_id not in self.rules:
            return
        rule = RULES[rule_id]
        self.engine.report(rule_id, rule.severity, loc, message,
                           notes=tuple(Diagnostic("", "note", where, text) for where, text in notes))
