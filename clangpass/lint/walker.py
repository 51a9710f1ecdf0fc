# SPDX-License-Identifier: MIT
"""Walking one function's IR with the context the PENCIL rules need.

Input: a `Function` of the main file and the translation unit's facts
(`PencilUnit`). Output: calls to `visit_<NodeClass>(node)` methods of a check,
for the nodes that are PENCIL code only: the whole body of a PENCIL function,
or the statements inside a `#pragma pencil region` of a C function (thesis
section 4.3.4 iii). `#pragma scop` regions of C functions follow pet's
conventions, not PENCIL's, and are never visited.

While walking, the walker keeps what C scoping and the PENCIL loop rules need:
the declared variables (`lookup`), the chain of enclosing nodes (`parents`) and
the PENCIL for loops around the current node (`loops`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from clangpass.ir import nodes as N
from clangpass.ir.printer import format_expr
from clangpass.ir.types import CType
from clangpass.ir.walk import children, strip_casts

if TYPE_CHECKING:  # pragma: no cover
    from clangpass.lint.unit import PencilUnit

# The Unary operators that write their operand.
INCREMENTS = ("++", "--", "post++", "post--")

@dataclass(frozen=True)
class Variable:
    """A declared name as seen from the current node: 'global', 'param' or 'local'."""

    name: str
    type: CType
    loc: N.SourceLoc
    kind: str
    storage: str = ""


# C operator precedence (higher binds tighter), for writing expressions back as C text.
_PRECEDENCE = {",": 1, "=": 2, "?:": 3, "||": 4, "&&": 5, "|": 6, "^": 7, "&": 8, "==": 9, "!=": 9,
               "<": 10, "<=": 10, ">": 10, ">=": 10, "<<": 11, ">>": 11, "+": 12, "-": 12,
               "*": 13, "/": 13, "%": 13}
_UNARY_PRECEDENCE = 14


def spell(e: N.Expr, context: int = 0) -> str:
    """`e` as C text for a message: implicit casts dropped, only the parentheses C needs."""
    if isinstance(e, N.Cast) and e.implicit:
        return spell(e.operand, context)
    if isinstance(e, N.Binary):
        prec = _PRECEDENCE.get(e.op, 1)
        separator = ", " if e.op == "," else f" {e.op} "
        text = spell(e.lhs, prec) + separator + spell(e.rhs, prec + 1)
    elif isinstance(e, N.Assign):
        prec = _PRECEDENCE["="]
        text = f"{spell(e.target, prec + 1)} {e.op} {spell(e.value, prec)}"
    elif isinstance(e, N.Conditional):
        prec = _PRECEDENCE["?:"]
        text = f"{spell(e.cond, prec + 1)} ? {spell(e.then, prec)} : {spell(e.otherwise, prec)}"
    elif isinstance(e, N.Unary) and e.op != "sizeof":
        postfix = e.op.startswith("post")
        prec = _UNARY_PRECEDENCE + (1 if postfix else 0)
        operand = spell(e.operand, prec + (0 if postfix else 1))
        gap = " " if e.op in ("-", "+") and operand.startswith(e.op) else ""  # - -n, not --n
        text = operand + e.op[4:] if postfix else e.op + gap + operand
    elif isinstance(e, N.Cast):
        prec = _UNARY_PRECEDENCE
        text = f"({e.type.spelling()}){spell(e.operand, prec)}"
    elif isinstance(e, N.Subscript):
        return f"{spell(e.base, _UNARY_PRECEDENCE + 1)}[{spell(e.index)}]"
    elif isinstance(e, N.Member):
        return f"{spell(e.base, _UNARY_PRECEDENCE + 1)}{'->' if e.arrow else '.'}{e.field_name}"
    elif isinstance(e, N.Call):
        return f"{e.callee}({', '.join(spell(a, _PRECEDENCE[','] + 1) for a in e.args)})"
    else:
        return format_expr(e)
    return f"({text})" if prec < context else text


class PencilWalker:
    """Base of every per-function check: subclasses define `visit_<NodeClass>` methods.

    `visit_*` methods are called only for PENCIL code, before the node's children
    are walked. `check_function` is called once for a function whose whole body
    is PENCIL, before its body is walked. `rules` lists the rule ids a check reports.
    """

    rules: tuple[str, ...] = ()

    def __init__(self, unit: "PencilUnit", function: N.Function) -> None:
        self.unit = unit
        self.function = function
        self.whole_function = unit.checks_body(function)
        self.in_pencil = self.whole_function
        self.region: Optional[N.Region] = None
        self.parents: list[object] = []
        self.loops: list[N.For] = []
        self.scopes: list[dict[str, Variable]] = [
            {g.name: Variable(g.name, g.type, g.loc, "global", g.storage) for g in unit.module.globals},
            {p.name: Variable(p.name, p.type, p.loc, "param") for p in function.params},
        ]

    # ------------------------------------------------------------------ driving
    def run(self) -> None:
        if self.whole_function:
            self.check_function(self.function)
        if self.function.body is not None:
            self.walk(self.function.body)

    def check_function(self, function: N.Function) -> None:
        """Declaration-level checks of a PENCIL function (parameters, result)."""

    def visit_pragmas(self, stmt: N.Stmt) -> None:
        """Called for every statement that carries pragmas, PENCIL code or not."""

    def report(self, rule_id: str, loc: N.SourceLoc, message: str,
               notes: Sequence[tuple[N.SourceLoc, str]] = ()) -> None:
        self.unit.report(rule_id, loc, message, notes)

    # ------------------------------------------------------------------ context
    @property
    def parent(self) -> Optional[object]:
        return self.parents[-1] if self.parents else None

    def value_parent(self, node: N.Expr) -> tuple[Optional[object], N.Expr]:
        """The nearest ancestor that is not an implicit cast, and the child of it on the path to `node`."""
        child: N.Expr = node
        for p in reversed(self.parents):
            if isinstance(p, N.Cast) and p.implicit:
                child = p
                continue
            return p, child
        return None, child

    def lookup(self, name: str) -> Optional[Variable]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def iterator_of(self, loop: N.For) -> Optional[str]:
        """The iterator a for loop declares or assigns in its header, if it has one."""
        init = loop.init
        if isinstance(init, N.DeclStmt) and len(init.decls) == 1:
            return init.decls[0].name
        if isinstance(init, N.ExprStmt) and isinstance(init.expr, N.Assign):
            target = strip_casts(init.expr.target)
            if isinstance(target, N.VarRef):
                return target.name
        return None

    def loop_iterators(self) -> set[str]:
        return {name for name in map(self.iterator_of, self.loops) if name is not None}

    # ------------------------------------------------------------------ traversal
    def walk(self, node: object) -> None:
        # A pencil region is itself PENCIL code (its pragmas are checked), wherever it is.
        if self.in_pencil or (isinstance(node, N.Region) and node.kind == "pencil"):
            visit = getattr(self, "visit_" + type(node).__name__, None)
            if visit is not None:
                visit(node)
        if isinstance(node, N.Stmt) and node.pragmas:
            self.visit_pragmas(node)
        self.parents.append(node)
        try:
            scoped = getattr(self, "_walk_" + type(node).__name__, None)
            if scoped is not None:
                scoped(node)
            else:
                for child in children(node):
                    self.walk(child)
        finally:
            self.parents.pop()

    def _walk_Compound(self, node: N.Compound) -> None:
        self.scopes.append({})
        try:
            for stmt in node.body:
                self.walk(stmt)
        finally:
            self.scopes.pop()

    def _walk_DeclStmt(self, node: N.DeclStmt) -> None:
        for decl in node.decls:
            self.walk(decl)
            self.scopes[-1][decl.name] = Variable(decl.name, decl.type, decl.loc, "local", decl.storage)

    def _walk_For(self, node: N.For) -> None:
        self.scopes.append({})
        try:
            if node.init is not None:
                self.walk(node.init)
            if self.in_pencil:
                self.loops.append(node)
            try:
                for part in (node.cond, node.step, node.body):
                    if part is not None:
                        self.walk(part)
            finally:
                if self.in_pencil:
                    self.loops.pop()
        finally:
            self.scopes.pop()

    def _walk_Region(self, node: N.Region) -> None:
        if node.kind != "pencil" or self.in_pencil:
            self.walk(node.body)
            return
        self.in_pencil, self.region = True, node
        try:
            self.walk(node.body)
        finally:
            self.in_pencil, self.region = False, None
