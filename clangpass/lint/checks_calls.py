# SPDX-License-Identifier: MIT
"""Calls from PENCIL code and summary functions (thesis sections 4.2.2 iv-v, 4.3.2, 4.3.3, 4.3.5).

Input: PENCIL code walked by `PencilWalker`, and the translation unit's
functions. Output: pencil-call (callees that are neither PENCIL functions,
PENCIL builtins, const functions nor summarised functions; calls through
function pointers), pencil-recursion (a call that closes a cycle of the call
graph, with a note naming the cycle), pencil-summary-builtin (`__pencil_use`,
`__pencil_def`, `__pencil_maybe` outside summary functions) and
pencil-summary-signature (the summary named by `pencil_access` exists and has
the same arguments as the function it describes).
"""
from __future__ import annotations

from typing import Optional

from clangpass.builtins import SUMMARY_ONLY
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.callgraph import cycle_through
from clangpass.lint.unit import PencilUnit
from clangpass.lint.walker import PencilWalker
class CallCheck(PencilWalker):
    rules = ("pencil-call", "pencil-recursion", "pencil-summary-builtin")

    def visit_Call(self, node: N.Call) -> None:
        if node.callee in SUMMARY_ONLY and node.builtin:
            if not (self.whole_function and self.unit.is_summary(self.function)):
                self.report("pencil-summary-builtin", node.loc,
                            f"'{node.callee}' may only be used in summary functions "
                            "(functions named by a pencil_access attribute)")
            return
        variable = self.lookup(node.callee)
        if variable is not None:
            self.report("pencil-call", node.loc,
                        f"call through function pointer '{node.callee}' is not allowed in PENCIL")
            return
        if not node.builtin and not self.unit.may_be_called(node.callee):
            callee = self.unit.functions.get(node.callee)
            notes = [(callee.loc, f"'{node.callee}' is declared here; mark it __attribute__((pencil)) "
                                  "or describe it with a pencil_access summary")] if callee else []
            self.report("pencil-call", node.loc,
                        f"call to '{node.callee}', which is not a PENCIL function, a PENCIL builtin, "
                        "a const function or a function with a pencil_access summary", notes)
        self._check_recursion(node)

    def _check_recursion(self, node: N.Call) -> None:
        component = self.unit.recursive_components.get(self.function.name)
        if component is None or node.callee not in component:
            return
        cycle = cycle_through(self.unit.call_graph, component, self.function.name, node.callee)
        self.report("pencil-recursion", node.loc,
                    f"recursive call to '{node.callee}'; PENCIL does not allow recursion",
                    [(self.function.loc, "call cycle: " + " -> ".join(cycle))])


def _parameter_shape(t: T.CType) -> object:
    """What a summary must share with the function it describes, for one parameter.

    Arrays and pointers compare by dimension count and element type (a parameter
    `float *x` is `float x[n]` in C); qualifiers and extents do not matter.
    """
    dims = 0
    while isinstance(t, (T.ArrayType, T.PointerType)) and not (
            isinstance(t, T.PointerType) and isinstance(t.pointee, T.FunctionType)):
        dims += 1
        t = t.element if isinstance(t, T.ArrayType) else t.pointee
    return (dims, t.unqualified())


def _signature_mismatch(fn: N.Function, summary: N.Function) -> Optional[str]:
    if len(fn.params) != len(summary.params):
        return (f"summary function '{summary.name}' has {len(summary.params)} parameters, "
                f"'{fn.name}' has {len(fn.params)}")
    for position, (mine, theirs) in enumerate(zip(fn.params, summary.params), start=1):
        if _parameter_shape(mine.type) != _parameter_shape(theirs.type):
            return (f"parameter {position} of summary function '{summary.name}' has type "
                    f"'{theirs.type.spelling()}', but '{mine.type.spelling()}' in '{fn.name}'")
    return None


def check_summary_signatures(unit: PencilUnit) -> None:
    for fn in unit.module.functions:
        name = unit.summary_of(fn)
        if name is None or not fn.in_main_file:
            continue
        attr = fn.attribute("pencil_access")
        loc = attr.loc if attr is not None and attr.loc.file == fn.loc.file and attr.loc.line > 0 else fn.loc
        summary = unit.functions.get(name)
        if summary is None:
            unit.report("pencil-summary-signature", loc,
                        f"summary function '{name}' of '{fn.name}' is not declared")
            continue
        mismatch = _signature_mismatch(fn, summary)
        if mismatch is not None:
            unit.report("pencil-summary-signature", loc, mismatch,
                        [(summary.loc, f"summary function '{name}' is declared here")])
