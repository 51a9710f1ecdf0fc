# SPDX-License-Identifier: MIT
"""The shape of PENCIL for loops (thesis section 4.2.2 v "For Loop", appendix A `<for>`).

    for (type iter = init; iter [<|<=|>|>=] bound; iter[+|-]=step) body

Input: PENCIL code walked by `PencilWalker`. Output: pencil-for-init (exactly
one iterator, declared and initialised in the header), pencil-for-cond (a
relational test of the iterator, on the left, against the bound),
pencil-for-step (++/--/+= c/-= c with a literal constant c), pencil-for-bound
(no variable or array of the bound is written in the body; the bound does not
use the iterator) and pencil-for-iterator-write (the body does not write the
iterator). Writes are found syntactically: assignments, increments, and arrays
passed to calls that may write them; a variable the body declares itself
shadows the outer one and is not a write to it.
"""
from __future__ import annotations

from typing import Optional

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.lint.unit import PencilUnit
from clangpass.ir.walk import base_variable, descendants, strip_casts, strip_implicit_casts
from clangpass.lint.walker import INCREMENTS, PencilWalker, spell

_RELATIONAL = ("<", "<=", ">", ">=")
_SHAPE = "'for (int i = start; i < bound; i++)'"
# Builtins that write (or kill) the array they are given.
_WRITING_BUILTINS = ("__pencil_def", "__pencil_kill")


def _is_literal_constant(e: N.Expr) -> bool:
    e = strip_casts(e)
    if isinstance(e, N.Unary) and e.op in ("-", "+"):
        e = strip_casts(e.operand)
    return isinstance(e, N.IntLit)


class _WriteCollector(PencilWalker):
    """Variables written by a loop body: name -> locations of the writes."""

    def __init__(self, unit: PencilUnit, function: N.Function) -> None:
        super().__init__(unit, function)
        self.in_pencil = True
        self.scopes = [{}]  # names declared by the body shadow the variables outside it
        self.writes: dict[str, list[N.SourceLoc]] = {}

    def _record(self, lvalue: N.Expr, loc: N.SourceLoc) -> None:
        variable = base_variable(lvalue)
        if variable is not None and self.lookup(variable.name) is None:
            self.writes.setdefault(variable.name, []).append(loc)

    def visit_Assign(self, node: N.Assign) -> None:
        self._record(node.target, node.loc)

    def visit_Unary(self, node: N.Unary) -> None:
        if node.op in INCREMENTS:
            self._record(node.operand, node.loc)

    def visit_Call(self, node: N.Call) -> None:
        callee = self.unit.functions.get(node.callee)
        if (node.builtin and node.callee not in _WRITING_BUILTINS) or (
                callee is not None and callee.attribute("const") is not None):
            return
        for arg in node.args:
            if isinstance(strip_implicit_casts(arg).type, (T.ArrayType, T.PointerType)):
                self._record(arg, arg.loc)


class ForLoopCheck(PencilWalker):
    rules = ("pencil-for-init", "pencil-for-cond", "pencil-for-step", "pencil-for-bound",
             "pencil-for-iterator-write")

    def visit_For(self, node: N.For) -> None:
        iterator = self._check_init(node)
        bound = self._check_cond(node, iterator)
        self._check_step(node, iterator)
        collector = _WriteCollector(self.unit, self.function)
        collector.walk(node.body)
        if iterator is not None:
            for loc in collector.writes.get(iterator, ()):
                self.report("pencil-for-iterator-write", loc,
                            f"iterator '{iterator}' of the enclosing for loop is modified in the loop body")
        if bound is not None:
            self._check_bound(iterator, bound, collector.writes)

    def _check_init(self, node: N.For) -> Optional[str]:
        init = node.init
        if init is None:
            self.report("pencil-for-init", node.loc,
                        f"for loop declares no iterator; PENCIL loops have the form {_SHAPE}")
            return None
        iterator = self.iterator_of(node)
        if isinstance(init, N.DeclStmt):
            if len(init.decls) != 1:
                self.report("pencil-for-init", init.decls[1].loc if len(init.decls) > 1 else init.loc,
                            f"for loop declares {len(init.decls)} variables; a PENCIL for loop has exactly "
                            "one iterator")
                return init.decls[0].name if init.decls else None
            if init.decls[0].init is None:
                self.report("pencil-for-init", init.decls[0].loc,
                            f"iterator '{iterator}' has no start value; PENCIL loops have the form {_SHAPE}")
            return iterator
        if iterator is None:
            self.report("pencil-for-init", init.loc,
                        f"for loop header must declare exactly one iterator: {_SHAPE}")
            return None
        self.report("pencil-for-init", init.loc,
                    f"iterator '{iterator}' must be declared in the loop header "
                    f"('for (int {iterator} = ...') so that it is not visible outside the loop")
        return iterator

    def _check_cond(self, node: N.For, iterator: Optional[str]) -> Optional[N.Expr]:
        """Returns the bound when the condition has the PENCIL shape."""
        if node.cond is None:
            self.report("pencil-for-cond", node.loc,
                        f"for loop has no condition; PENCIL loops have the form {_SHAPE}")
            return None
        cond = strip_implicit_casts(node.cond)
        if isinstance(cond, N.Binary) and cond.op in _RELATIONAL:
            lhs, rhs = strip_casts(cond.lhs), strip_casts(cond.rhs)
            if isinstance(lhs, N.VarRef) and (iterator is None or lhs.name == iterator):
                return cond.rhs
            if isinstance(rhs, N.VarRef) and rhs.name == iterator:
                self.report("pencil-for-cond", node.cond.loc,
                            f"loop condition '{spell(cond)}' must have the iterator '{iterator}' "
                            f"on the left ('{iterator} {_mirrored(cond.op)} bound')")
                return None
        name = f"the iterator '{iterator}'" if iterator else "the iterator"
        self.report("pencil-for-cond", node.cond.loc,
                    f"loop condition '{spell(cond)}' must compare {name} with a bound "
                    "using <, <=, > or >=")
        return None

    def _check_step(self, node: N.For, iterator: Optional[str]) -> None:
        if node.step is None:
            self.report("pencil-for-step", node.loc,
                        f"for loop has no step; PENCIL loops have the form {_SHAPE}")
            return
        step = strip_implicit_casts(node.step)
        if isinstance(step, N.Unary) and step.op in INCREMENTS:
            target: Optional[N.Expr] = step.operand
        elif isinstance(step, N.Assign) and step.op in ("+=", "-=") and _is_literal_constant(step.value):
            target = step.target
        else:
            target = None
        target = strip_casts(target) if target is not None else None
        if isinstance(target, N.VarRef) and (iterator is None or target.name == iterator):
            return
        self.report("pencil-for-step", node.step.loc,
                    f"loop step '{spell(step)}' must be '++', '--', '+= c' or '-= c' on the iterator, "
                    "with c a literal constant")

    def _check_bound(self, iterator: Optional[str], bound: N.Expr,
                     writes: dict[str, list[N.SourceLoc]]) -> None:
        reported: set[str] = set()
        for node in descendants(bound):
            if not isinstance(node, N.VarRef) or node.name in reported:
                continue
            if node.name == iterator:
                reported.add(node.name)
                self.report("pencil-for-bound", node.loc,
                            f"loop bound '{spell(bound)}' depends on the iterator '{iterator}'")
            elif node.name in writes:
                reported.add(node.name)
                self.report("pencil-for-bound", node.loc,
                            f"loop bound is not invariant: '{node.name}' is written in the loop body",
                            [(writes[node.name][0], f"'{node.name}' is written here")])


def _mirrored(op: str) -> str:
    return {"<": ">", "<=": ">=", ">": "<", ">=": "<="}[op]
