# SPDX-License-Identifier: MIT
"""Control-flow statements PENCIL leaves out of C99 (thesis section 4.2.2 v, appendix A).

Input: PENCIL code, walked by `PencilWalker`. Output: pencil-goto (goto and
labels), pencil-switch, pencil-do-while and pencil-return (a return that is not
the last statement of the function). `while`, `break` and `continue` are PENCIL
("the same as in C99") and are not reported.
"""
from __future__ import annotations

from clangpass.ir import nodes as N
from clangpass.lint.walker import PencilWalker
class ControlFlowCheck(PencilWalker):
    rules = ("pencil-goto", "pencil-switch", "pencil-do-while", "pencil-return")

    def visit_Goto(self, node: N.Goto) -> None:
        self.report("pencil-goto", node.loc, f"'goto {node.label}' is not allowed in PENCIL")

    def visit_Label(self, node: N.Label) -> None:
        self.report("pencil-goto", node.loc,
                    f"label '{node.name}' is not allowed in PENCIL (labels are only targets of goto)")

    def visit_Switch(self, node: N.Switch) -> None:
        self.report("pencil-switch", node.loc,
                    "'switch' is not allowed in PENCIL; use an if/else chain")

    def visit_DoWhile(self, node: N.DoWhile) -> None:
        self.report("pencil-do-while", node.loc,
                    "'do ... while' is not a PENCIL statement; use a while loop")

    def visit_Return(self, node: N.Return) -> None:
        if self.region is not None:
            self.report("pencil-return", node.loc,
                        "'return' inside a '#pragma pencil region': the region must have a single exit")
            return
        body = self.function.body
        if self.parent is body and body is not None and body.body and body.body[-1] is node:
            return
        self.report("pencil-return", node.loc,
                    f"'return' must be the last statement of PENCIL function '{self.function.name}'")
