# SPDX-License-Identifier: MIT
"""An optimized region as readable C99 with OpenMP pragmas (-fpencil-emit-c=FILE).

Input: a `CodegenUnit` (the final isl AST and the IR statement bodies) and the
`CompileOptions`. Output: the compound statement that takes the place of the region's
text in the user's file (clangpass.driver.rewrite.emitted_c_text splices it in), where
every variable the region uses is in scope under its own name:

    {
      (void)i; (void)j;             iterators and temporaries declared outside it, now unused
      double tmp;                   the region's locals (their initialisers are statements)
      #pragma omp parallel for firstprivate(tmp)
      for (long c0 = 0; c0 < ni; c0 += 32) {
        ...
        {
          const int i = (int)(c0 + c3);     the statement's iterators, in their C types
          (C[i][j] = ...);                  its IR body (clangpass.ir.c_printer)
        }
      }
      return __pencil_result;       (a PENCIL function with a result)
    }

The AST is printed by the one isl-AST printer (clangpass.poly.ast_c), whose marks
become what the CPU target does with them (clangpass.poly.codegen_unit's contract):
- `parallel` above a for node, outermost, -fpencil-parallel: `#pragma omp parallel for`,
  with `firstprivate(...)` of the region locals its body names but `shared_locals` (the CPU
  target's copy-in per thread), and `reduction(op: v)` (`v[c:1]` for an element) of the reductions its
  statements perform; inside a thread team `#pragma omp for`; nested ones are plain loops;
- `thread-team` above a sequential loop that holds parallel loops: `#pragma omp parallel`
  around it, where code without a parallel loop runs in `#pragma omp single` (the CPU
  target's thread 0; single's barrier orders it before the next shared loop);
- `vector` above an innermost loop: `#pragma omp simd`, unless the loop writes a
  scalar (a local or a reduction's variable), which SIMD lanes would share;
- `tile`, `point`, `wavefront`, `register-tile`: a comment.
A parallel loop whose condition is not OpenMP's canonical `c < e` / `c <= e` runs
sequentially (inside a team, on one thread). isl's min, max and floor quotient are the
prelude's macros (`PRELUDE`), the names the alias check's condition uses too.

What the printer cannot spell raises `Unprintable`: the region then stays as written in
the emitted file, with a comment that says why.
"""
from __future__ import annotations

from typing import Optional, Sequence

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.c_printer import CDialect, CPrinter, Unprintable
from clangpass.ir.walk import descendants, iter_stmts, stmt_exprs, written_variables
from clangpass.poly.ast_c import OP, AstPrinter, iterator_name, iterator_types
from clangpass.poly.codegen_unit import (REGISTER_TILE_MARK, TEAM_MARK, WAVEFRONT_MARK, CodegenUnit,
                                         has_parallel_loop, statement_names)
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK
from clangpass.regions import RESULT, returns_value

__all__ = ["PRELUDE", "Unprintable", "region_source"]

#: What the emitted file starts with when a region was replaced: isl's integer operations,
#: named as the alias checks' (clangpass.poly.alias_check) so that their conditions use them too.
PRELUDE = """\
/* pencilcc -fpencil-emit-c: isl's integer operations, used by the loop bounds below */
#define __pencilcc_min(x, y) ((x) < (y) ? (x) : (y))
#define __pencilcc_max(x, y) ((x) > (y) ? (x) : (y))
#define __pencilcc_floord(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))
"""

_COMMENTED_MARKS = ("tile", "point", WAVEFRONT_MARK, REGISTER_TILE_MARK)


class HostDialect(CDialect):
    """C99 in the user's scope: variables by their own names, isl iterators `c0`... (prefixed
    where the region names a variable so), integer parameters widened to `long` in arithmetic
    unless they are `long` already."""

    def __init__(self, taken: set[str], wide: set[str]) -> None:
        self.taken = taken
        self.wide = wide

    def type_name(self, t: T.CType) -> str:
        if isinstance(t, (T.PointerType, T.StructType)):
            return t.unqualified().spelling()
        return super().type_name(t)

    def iterator(self, name: str) -> str:
        return f"__pencilcc_{name}" if name in self.taken else name

    def parameter(self, name: str, arithmetic: bool) -> str:
        return name if not arithmetic or name in self.wide else f"((long){name})"


class HostPrinter(CPrinter):
    """IR bodies as host C: also struct members, which the host's types know."""

    def expr_Member(self, e: N.Member) -> str:
        return f"({self.expr(e.base)}{'->' if e.arrow else '.'}{e.field_name})"

    def stmt_ExprStmt(self, s: N.ExprStmt, indent: str) -> list[str]:
        return [f"{indent}{_outermost_dropped(self.expr(s.expr))};"]


class OpenmpAstPrinter(AstPrinter):
    """The AST with its marks as OpenMP pragmas (module docstring)."""

    binds_unused = False

    def __init__(self, printer: CPrinter, unit: CodegenUnit, parallel: bool) -> None:
        super().__init__(printer, unit.statements, iterator_types(unit.statements))
        self.unit = unit
        self.parallel = parallel
        self.locals = {d.name: d for d in unit.locals}
        self.threads = False      # inside a parallel loop or a team: nested marks run as they are
        self.team = False         # inside a team, outside its shared loops

    def node(self, n: isl.AstNode, indent: str, bound: set[str]) -> list[str]:
        if self.team and not has_parallel_loop(n):
            # Inside a thread team, code without a parallel loop runs on one thread.
            self.team = False
            try:
                body = super().node(n, indent + "  ", bound)
            finally:
                self.team = True
            return [f"{indent}#pragma omp single", f"{indent}{{", *body, f"{indent}}}"]
        return super().node(n, indent, bound)

    def mark(self, n: isl.AstNode, indent: str, bound: set[str]) -> list[str]:
        name = n.mark_get_id().get_name()
        child = n.mark_get_node()
        is_loop = child.get_type() == isl.ast_node_type.for_ and not child.for_is_degenerate()
        if name == TEAM_MARK and self.parallel and not self.threads and has_parallel_loop(child):
            self.threads = self.team = True
            try:
                body = self.node(child, indent + "  ", bound)
            finally:
                self.threads = self.team = False
            return [f"{indent}#pragma omp parallel", f"{indent}{{", *body, f"{indent}}}"]
        if name == PARALLEL_MARK and is_loop and self.parallel and (self.team or not self.threads):
            if not _canonical(child):
                return self.node(child, indent, bound)
            clauses = self._clauses(child)
            pragma = "#pragma omp for" if self.team else "#pragma omp parallel for"
            threads, team = self.threads, self.team
            self.threads, self.team = True, False
            try:
                return self.for_(child, indent, bound, (pragma + clauses,))
            finally:
                self.threads, self.team = threads, team
        if name == VECTOR_MARK and is_loop and _canonical(child) and self._vectorisable(child):
            return self.for_(child, indent, bound, ("#pragma omp simd",))
        if name in _COMMENTED_MARKS:
            return [f"{indent}/* {name} */", *self.node(child, indent, bound)]
        return self.node(child, indent, bound)

    def _names(self, loop: isl.AstNode) -> set[str]:
        """The variables the statements under `loop` name."""
        return {v.name for s in statement_names(loop) for v in descendants(self.statements[s].body)
                if isinstance(v, N.VarRef)}

    def _clauses(self, loop: isl.AstNode) -> str:
        names = self._names(loop)
        under = statement_names(loop)
        reduced = [r for r in self.unit.reductions if set(r.statements) & under]
        skip = {r.variable for r in reduced} | self.unit.shared_locals
        private = sorted(n for n in names if n in self.locals and n not in skip)
        text = f" firstprivate({', '.join(private)})" if private else ""
        for r in reduced:
            text += f" reduction({r.operator}: {self._reduction_item(r.target)})"
        return text

    def _reduction_item(self, target: N.Expr) -> str:
        """An OpenMP reduction list item: the variable, or the array section of one element."""
        if isinstance(target, N.VarRef):
            return target.name
        indices: list[str] = []
        node = target
        while isinstance(node, N.Subscript):
            indices.append(self.printer.expr(node.index))
            node = node.base
        if not isinstance(node, N.VarRef):
            raise Unprintable("a reduction of an element of an expression that is not a variable")
        return node.name + "".join(f"[{i}:1]" for i in reversed(indices))

    def _vectorisable(self, loop: isl.AstNode) -> bool:
        """Whether SIMD lanes may run the loop: no update of a reduced variable under it and
        no scalar written there that the lanes would share (a region local or argument)."""
        under = statement_names(loop)
        if under & set(self.unit.unordered_updates):
            return False
        for name in under:
            for s in iter_stmts(self.statements[name].body):
                for e in stmt_exprs(s):
                    for v in written_variables(e):
                        if not isinstance(v.type, (T.ArrayType, T.PointerType)):
                            return False
        return True


def _outermost_dropped(text: str) -> str:
    """`(x)` as `x` when those two parentheses pair with each other."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for k, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and k < len(text) - 1:
            return text
    return text[1:-1]


def _canonical(loop: isl.AstNode) -> bool:
    """Whether a for node's condition is `c < e` or `c <= e` on its own iterator (OpenMP's
    canonical loop form; isl's steps are positive constants)."""
    cond = loop.for_get_cond()
    return (cond.get_type() == isl.ast_expr_type.op and cond.op_get_type() in (OP.lt, OP.le)
            and cond.op_get_arg(0).get_type() == isl.ast_expr_type.id
            and cond.op_get_arg(0).id_get_id().get_name() == iterator_name(loop)
            and loop.for_get_inc().get_type() == isl.ast_expr_type.int)


def _declaration(printer: CPrinter, decl: N.VarDecl) -> str:
    """A region local's declaration, without initialiser or qualifiers (the initialiser is a
    statement of the region)."""
    t = decl.type
    if isinstance(t, T.ArrayType):
        extents = []
        for d in t.dims():
            if d.constant_extent is not None:
                extents.append(str(d.constant_extent))
            elif d.extent is not None:
                extents.append(printer.expr(d.extent))
            else:
                raise Unprintable(f"the local array '{decl.name}' of unknown size")
        element = printer.dialect.type_name(t.scalar_element())
        return f"{element} {decl.name}{''.join(f'[{e}]' for e in extents)};"
    return f"{printer.dialect.type_name(t)} {decl.name};"


def region_source(unit: CodegenUnit, parallel: bool = True, unused: Sequence[str] = ()) -> str:
    """The compound statement that replaces the region of `unit` (module docstring); `parallel`:
    -fpencil-parallel; `unused`: variables declared outside the region that only it used."""
    region = unit.region
    taken = {v.name for body in unit.statements.values() for v in descendants(body.body)
             if isinstance(v, N.VarRef)}
    taken |= {d.name for d in unit.locals} | {a.name for a in region.args}
    wide = {a.name for a in region.args if isinstance(a.type, T.IntType) and a.type.bits >= 64 and a.type.signed}
    printer = HostPrinter(HostDialect(taken, wide))
    lines = ["{", f"  /* pencilcc: region '{region.label}', optimized */"]
    if unused:
        lines.append("  " + " ".join(f"(void){name};" for name in unused))
    lines += ["  " + _declaration(printer, d) for d in unit.locals]
    lines += OpenmpAstPrinter(printer, unit, parallel).node(unit.ast, "  ", set())
    if returns_value(region):
        lines.append(f"  return {RESULT};")
    return "\n".join(lines + ["}"])


def fallback_comment(reason: str) -> str:
    """The comment put before a region that stays as written although it was optimized."""
    return f"/* pencilcc: this region was optimized, but its code cannot be written as C ({reason}) */"


def optional_source(unit: Optional[CodegenUnit], parallel: bool, unused: Sequence[str]) -> tuple[str, str]:
    """(the region's source, '') or ('', why it cannot be printed)."""
    if unit is None:
        return "", "no code was generated"
    try:
        return region_source(unit, parallel, unused), ""
    except Unprintable as exc:
        return "", str(exc)

