# SPDX-License-Identifier: MIT
"""The expression subset of PENCIL (thesis section 4.2.2 ii, appendix A `<expression>`).

Input: PENCIL code walked by `PencilWalker`. Output: pencil-expression for the
comma operator, for assignments and increments used inside another expression
(in the grammar they are statements, `<assignment> ';'`, or the step of a for
loop), and for C expression forms that have no PENCIL counterpart (compound
literals, generic selections, label addresses). Pointer operators are the
business of pencil-pointer, calls of pencil-call.
"""
from __future__ import annotations

from clangpass.ir import nodes as N
from clangpass.lint.walker import INCREMENTS, PencilWalker, spell
_FOREIGN_FORMS = {
    "COMPOUND_LITERAL_EXPR": "compound literal",
    "GENERIC_SELECTION_EXPR": "'_Generic' selection",
    "ADDR_LABEL_EXPR": "label address",
    "BLOCK_EXPR": "block literal",
}


class ExpressionCheck(PencilWalker):
    rules = ("pencil-expression",)

    def visit_Binary(self, node: N.Binary) -> None:
        if node.op == ",":
            self.report("pencil-expression", node.loc, "the comma operator is not part of PENCIL")

    def visit_Assign(self, node: N.Assign) -> None:
        self._check_statement_level(node, "assignment")

    def visit_Unary(self, node: N.Unary) -> None:
        if node.op in INCREMENTS:
            self._check_statement_level(node, "increment" if "+" in node.op else "decrement")

    def visit_OpaqueExpr(self, node: N.OpaqueExpr) -> None:
        form = _FOREIGN_FORMS.get(node.kind)
        if form is not None:
            self.report("pencil-expression", node.loc, f"{form} is not part of PENCIL")

    def _check_statement_level(self, node: N.Expr, what: str) -> None:
        parent, child = self.value_parent(node)
        if isinstance(parent, N.ExprStmt):
            return
        if isinstance(parent, N.For) and parent.step is child:
            return
        if isinstance(parent, N.Binary) and parent.op == ",":
            return  # the comma operator is reported
        self.report("pencil-expression", node.loc,
                    f"{what} '{spell(node)}' is used as a value; in PENCIL it must be a statement "
                    "of its own")
