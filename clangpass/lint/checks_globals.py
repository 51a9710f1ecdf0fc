# SPDX-License-Identifier: MIT
"""No non-const global state in PENCIL (thesis section 4.2.2 i, "Program Scope").

Input: the translation unit (global declarations of a PENCIL file) and PENCIL
code, walked by `PencilWalker`. Output: pencil-global for non-const globals
declared in a PENCIL file, for the first use of each non-const global in each
PENCIL function or region, and for non-const `static` (or block-scope `extern`)
variables declared in PENCIL code.
"""
from __future__ import annotations

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.lint.unit import PencilUnit
from clangpass.lint.walker import PencilWalker
def is_constant(t: T.CType) -> bool:
    """A const object: for an array, its elements are const."""
    return t.scalar_element().const if isinstance(t, T.ArrayType) else t.const


class GlobalStateCheck(PencilWalker):
    rules = ("pencil-global",)

    def __init__(self, unit: PencilUnit, function: N.Function) -> None:
        super().__init__(unit, function)
        self._used: set[str] = set()

    @classmethod
    def check_unit(cls, unit: PencilUnit) -> None:
        if not unit.module.pencil_file:
            return
        for g in unit.module.globals:
            if not is_constant(g.type):
                unit.report("pencil-global", g.loc,
                            f"PENCIL file declares non-const global variable '{g.name}'; "
                            "only global constants are allowed")

    def visit_VarRef(self, node: N.VarRef) -> None:
        if node.scope != "global" or node.name in self._used:
            return
        variable = self.lookup(node.name)
        t = variable.type if variable is not None else node.type
        if is_constant(t):
            return
        self._used.add(node.name)
        where = variable.loc if variable is not None else node.decl_loc
        notes = [(where, f"'{node.name}' is declared here")] if where.line > 0 else []
        self.report("pencil-global", node.loc,
                    f"PENCIL code uses non-const global variable '{node.name}'", notes)

    def visit_VarDecl(self, node: N.VarDecl) -> None:
        if node.storage in ("static", "extern") and not is_constant(node.type):
            self.report("pencil-global", node.loc,
                        f"'{node.storage}' variable '{node.name}' is global state; "
                        "PENCIL allows only global constants")
