# SPDX-License-Identifier: MIT
"""Lowering libclang cursors to the pencilcc IR.

Input: a parsed `TranslationUnit` and the pragmas of its main file.
Output: a `Module` of the main file's functions and globals (plus prototypes
visible in it), every node with its location and C type.

Conventions:
- implicit conversions that change the value are explicit `Cast(implicit=True)`;
  lvalue-to-rvalue and array/function decay are dropped (the types say it);
- `#pragma scop ... #pragma endscop` inside a compound becomes a `Region('scop')`,
  a compound after `#pragma pencil region` a `Region('pencil')`;
- other pragmas are attached to the statement that follows them, also where clang
  wraps the statement (`#pragma GCC unroll 4`, `#pragma clang loop ...` make an
  attributed statement, shown as `UNEXPOSED_STMT`) or, under `-fopenmp`, replaces it
  with a directive (the loop of `omp simd` and `omp parallel for`, clangpass.frontend.openmp).
Unknown forms, kinds the Python bindings do not know included, become
`OpaqueExpr`/`OpaqueStmt` named by clang's kind, so lowering never fails on valid C.
"""
from __future__ import annotations

from bisect import bisect_left
from typing import Callable, Optional

import clang.cindex as ci

from clangpass.builtins import is_builtin
from clangpass.frontend import openmp
from clangpass.frontend.clang_api import (MacroTable, binary_operator, cursor_kind, cursor_kind_name, evaluate,
                                          is_inline_function, for_header_slots, literal_spelling, type_kind,
                                          unary_operator, var_decl_initializer)
from clangpass.frontend.pragmas import PlacedPragma
from clangpass.frontend.types import TypeLowering
from clangpass.ir import nodes as N
from clangpass.ir import types as T

CK = ci.CursorKind

_DECAY_KINDS = (T.ArrayType, T.FunctionType)
_ARRAY_KINDS = (ci.TypeKind.CONSTANTARRAY, ci.TypeKind.VARIABLEARRAY, ci.TypeKind.INCOMPLETEARRAY)


def location(cursor: ci.Cursor) -> N.SourceLoc:
    loc = cursor.location
    return N.SourceLoc(loc.file.name if loc.file else "<unknown>", loc.line, loc.column)


def source_range(cursor: ci.Cursor) -> Optional[N.SourceRange]:
    ext = cursor.extent
    if ext.start.file is None:
        return None
    start = N.SourceLoc(ext.start.file.name, ext.start.line, ext.start.column)
    end = N.SourceLoc(ext.end.file.name if ext.end.file else start.file, ext.end.line, ext.end.column)
    return N.SourceRange(start.file, ext.start.offset, ext.end.offset, start, end)


def _parse_int_literal(text: str) -> int:
    body = text.rstrip("uUlL")
    if body.lower().startswith("0x"):
        return int(body, 16)
    if body.lower().startswith("0b"):
        return int(body, 2)
    if len(body) > 1 and body.startswith("0"):
        return int(body, 8)
    return int(body)


def _parse_char_literal(text: str) -> int:
    body = text[text.index("'") + 1: text.rindex("'")]
    if body.startswith("\\"):
        escapes = {"n": 10, "t": 9, "r": 13, "0": 0, "\\": 92, "'": 39, '"': 34, "a": 7, "b": 8,
                   "f": 12, "v": 11, "?": 63}
        if body[1] in "xX":
            return int(body[2:], 16)
        if body[1:].isdigit():
            return int(body[1:], 8)
        return escapes.get(body[1], ord(body[1]))
    return ord(body[0]) if body else 0


class Lowering:
    """One instance per translation unit.

    `parse_without_openmp(openmp_version)` parses the main file again without `-fopenmp`
    (clangpass.frontend.openmp); called at most once, at the first OpenMP loop directive.
    """

    def __init__(self, tu: ci.TranslationUnit, main_file: str, pragmas: list[PlacedPragma],
                 parse_without_openmp: Optional[Callable[[str], ci.TranslationUnit]] = None) -> None:
        self.tu = tu
        self.main_file = main_file
        self.pragmas = pragmas
        self._pragma_offsets = [p.offset for p in pragmas]
        self._consumed: set[int] = set()
        self.types = TypeLowering(self.expr)
        self.macros = MacroTable(tu)
        self._parse_without_openmp = parse_without_openmp
        self._plain_loops: Optional[dict[int, ci.Cursor]] = None

    # ---------------------------------------------------------------- pragmas
    def _pragmas_between(self, start: int, end: int) -> list[PlacedPragma]:
        """Unconsumed pragmas whose '#' lies in [start, end)."""
        i = bisect_left(self._pragma_offsets, start)
        out = []
        while i < len(self.pragmas) and self.pragmas[i].offset < end:
            if self.pragmas[i].offset not in self._consumed:
                out.append(self.pragmas[i])
            i += 1
        return out

    def _in_main_file(self, cursor: ci.Cursor) -> bool:
        f = cursor.extent.start.file
        return f is not None and f.name == self.main_file

    # ---------------------------------------------------------------- types
    def type_of(self, cursor: ci.Cursor) -> T.CType:
        return self.types.lower(cursor.type)

    def decl_type(self, cursor: ci.Cursor) -> T.CType:
        """The declared type of a VAR_DECL/PARM_DECL, VLA extents lowered from its children.

        Arrays and pointers to arrays (`double (*E)[m]`) take their size expressions
        from the declaration's child expressions (not from the initialiser).
        """
        t = cursor.type
        shape = t.get_canonical()
        if type_kind(shape) == ci.TypeKind.POINTER:
            shape = shape.get_pointee().get_canonical()
        if type_kind(shape) not in _ARRAY_KINDS and type_kind(t) not in _ARRAY_KINDS:
            return self.types.lower(t)
        init = self._initializer(cursor)
        # clang's cursor visitor walks an array declarator's type from the element outwards
        # (element type first, then the dimension's size expression), so the size expressions
        # come innermost first: reversed, they are outermost first. Their source offsets
        # cannot order them: behind a macro (`double POLYBENCH_2D(C, NI, NJ, ni, nj)`) every
        # one of them sits at the macro's use.
        extents = [c for c in cursor.get_children()
                   if (k := cursor_kind(c)) is not None and k.is_expression() and (init is None or c != init)]
        extents.reverse()
        return self.types.lower(t, extents)

    @staticmethod
    def _initializer(cursor: ci.Cursor) -> Optional[ci.Cursor]:
        """The initialiser of a VAR_DECL, as clang's AST holds it (None for a parameter or a
        declaration without one): not looked for in the tokens, which a macro may hide."""
        if cursor.kind != CK.VAR_DECL:
            return None
        return var_decl_initializer(cursor)

    # ---------------------------------------------------------------- expressions
    def expr(self, c: ci.Cursor) -> N.Expr:
        kind = cursor_kind_name(c)
        method = getattr(self, "expr_" + kind, None)
        if method is None:
            return N.OpaqueExpr(kind, " ".join(t.spelling for t in c.get_tokens()),
                                type=self.type_of(c), loc=location(c))
        return method(c)

    def _children(self, c: ci.Cursor) -> list[ci.Cursor]:
        return [ch for ch in c.get_children() if cursor_kind(ch) != CK.TYPE_REF]

    # Literal values are clang's (`evaluate`): a literal pasted by a macro (`x##f`) has no
    # spelling to parse. The spelling, when there is one, is kept for the dumps and messages.
    def expr_INTEGER_LITERAL(self, c: ci.Cursor) -> N.Expr:
        text = literal_spelling(c, self.macros)
        value = evaluate(c)
        if not isinstance(value, int):
            try:
                value = _parse_int_literal(text)
            except ValueError:
                return N.OpaqueExpr("INTEGER_LITERAL", text, type=self.type_of(c), loc=location(c))
        return N.IntLit(value, type=self.type_of(c), loc=location(c))

    def expr_CHARACTER_LITERAL(self, c: ci.Cursor) -> N.Expr:
        value = evaluate(c)
        if not isinstance(value, int):
            value = _parse_char_literal(literal_spelling(c, self.macros))
        return N.IntLit(value, type=self.type_of(c), loc=location(c))

    def expr_FLOATING_LITERAL(self, c: ci.Cursor) -> N.Expr:
        text = literal_spelling(c, self.macros)
        value = evaluate(c)
        if not isinstance(value, float):
            body = text.rstrip("fFlL")
            try:
                value = float.fromhex(body) if body.lower().startswith("0x") else float(body)
            except ValueError:
                return N.OpaqueExpr("FLOATING_LITERAL", text, type=self.type_of(c), loc=location(c))
        return N.FloatLit(value, text, type=self.type_of(c), loc=location(c))

    def expr_STRING_LITERAL(self, c: ci.Cursor) -> N.Expr:
        text = literal_spelling(c, self.macros)
        inner = text[text.index('"') + 1: text.rindex('"')] if '"' in text else text
        return N.StringLit(inner, type=self.type_of(c), loc=location(c))

    def expr_DECL_REF_EXPR(self, c: ci.Cursor) -> N.Expr:
        ref = c.referenced
        if ref is not None and ref.kind == CK.ENUM_CONSTANT_DECL:
            return N.IntLit(ref.enum_value, type=self.type_of(c), loc=location(c))
        scope = "local"
        if ref is not None:
            if ref.kind == CK.PARM_DECL:
                scope = "param"
            elif ref.kind == CK.FUNCTION_DECL:
                scope = "function"
            elif ref.semantic_parent is not None and ref.semantic_parent.kind == CK.TRANSLATION_UNIT:
                scope = "global"
        t = self.decl_type(ref) if ref is not None and ref.kind in (CK.PARM_DECL, CK.VAR_DECL) else self.type_of(c)
        decl_loc = location(ref) if ref is not None and ref.location.file is not None else N.NOLOC
        return N.VarRef(c.spelling, scope, decl_loc=decl_loc, type=t, loc=location(c))

    def expr_UNEXPOSED_EXPR(self, c: ci.Cursor) -> N.Expr:
        children = self._children(c)
        if len(children) != 1:
            return N.OpaqueExpr("UNEXPOSED_EXPR", " ".join(t.spelling for t in c.get_tokens()),
                                type=self.type_of(c), loc=location(c))
        inner = self.expr(children[0])
        target = self.type_of(c)
        return self._implicit_cast(inner, target, location(c))

    def _implicit_cast(self, inner: N.Expr, target: T.CType, loc: N.SourceLoc) -> N.Expr:
        source = inner.type
        if isinstance(source, _DECAY_KINDS) and isinstance(target, T.PointerType):
            return inner  # array-to-pointer / function-to-pointer decay
        if source.unqualified() == target.unqualified():
            return inner  # lvalue-to-rvalue, no value change
        if isinstance(source, T.StructType) or isinstance(target, T.StructType):
            return inner
        return N.Cast(inner, True, type=target, loc=loc)

    def expr_PAREN_EXPR(self, c: ci.Cursor) -> N.Expr:
        (inner,) = self._children(c)
        return self.expr(inner)

    def expr_CSTYLE_CAST_EXPR(self, c: ci.Cursor) -> N.Expr:
        operand = [ch for ch in self._children(c) if (k := cursor_kind(ch)) is not None and k.is_expression()][-1]
        return N.Cast(self.expr(operand), False, type=self.type_of(c), loc=location(c))

    def expr_ARRAY_SUBSCRIPT_EXPR(self, c: ci.Cursor) -> N.Expr:
        base, index = self._children(c)
        return N.Subscript(self.expr(base), self.expr(index), type=self.type_of(c), loc=location(c))

    def expr_MEMBER_REF_EXPR(self, c: ci.Cursor) -> N.Expr:
        children = self._children(c)
        base = self.expr(children[0]) if children else N.OpaqueExpr("implicit", type=T.VOID)
        arrow = isinstance(base.type, T.PointerType)
        return N.Member(base, c.spelling, arrow, type=self.type_of(c), loc=location(c))

    def expr_UNARY_OPERATOR(self, c: ci.Cursor) -> N.Expr:
        (operand,) = self._children(c)
        return N.Unary(unary_operator(c), self.expr(operand), type=self.type_of(c), loc=location(c))

    def expr_CXX_UNARY_EXPR(self, c: ci.Cursor) -> N.Expr:
        """sizeof/_Alignof: clang's value where it is a constant (not of a VLA)."""
        value = evaluate(c)
        if isinstance(value, int):
            return N.IntLit(value, type=self.type_of(c), loc=location(c))
        # A VLA's size: kept opaque; the first token only names it in messages.
        tokens = [t.spelling for t in c.get_tokens()]
        return N.OpaqueExpr(tokens[0] if tokens else "sizeof", " ".join(tokens),
                            type=self.type_of(c), loc=location(c))

    def expr_BINARY_OPERATOR(self, c: ci.Cursor) -> N.Expr:
        lhs, rhs = self._children(c)
        op = binary_operator(c)
        if op == "=":
            return N.Assign("=", self.expr(lhs), self.expr(rhs), type=self.type_of(c), loc=location(c))
        return N.Binary(op, self.expr(lhs), self.expr(rhs), type=self.type_of(c), loc=location(c))

    def expr_COMPOUND_ASSIGNMENT_OPERATOR(self, c: ci.Cursor) -> N.Expr:
        lhs, rhs = self._children(c)
        target = self.expr(lhs)
        value = self.expr(rhs)
        op = binary_operator(c)
        # clang converts the right operand to the computation type for us, so the
        # computation type is that of the converted right operand; shifts compute in
        # the promoted type of the left operand (C99 6.5.7), pointers in their own.
        if isinstance(target.type, T.PointerType):
            compute = target.type
        elif op in ("<<=", ">>="):
            compute = T.promoted(target.type)
        else:
            compute = value.type if T.is_arithmetic(value.type) else target.type
        return N.Assign(op, target, value, compute, type=self.type_of(c), loc=location(c))

    def expr_CONDITIONAL_OPERATOR(self, c: ci.Cursor) -> N.Expr:
        cond, then, otherwise = self._children(c)
        return N.Conditional(self.expr(cond), self.expr(then), self.expr(otherwise),
                             type=self.type_of(c), loc=location(c))

    def expr_CALL_EXPR(self, c: ci.Cursor) -> N.Expr:
        children = self._children(c)
        callee = c.spelling
        args = tuple(self.expr(a) for a in children[1:])
        builtin = is_builtin(callee)
        ref = c.referenced
        if builtin and ref is not None and ref.location.file is not None \
                and ref.location.file.name == self.main_file and ref.is_definition():
            builtin = False  # the file defines its own function of that name
        return N.Call(callee, args, builtin, type=self.type_of(c), loc=location(c))

    def expr_INIT_LIST_EXPR(self, c: ci.Cursor) -> N.Expr:
        return N.InitList(tuple(self.expr(ch) for ch in self._children(c)), type=self.type_of(c), loc=location(c))

    # ---------------------------------------------------------------- statements
    def stmt(self, c: ci.Cursor) -> N.Stmt:
        kind = cursor_kind(c)
        if kind is not None and kind.is_expression():
            return N.ExprStmt(self.expr(c), loc=location(c), extent=source_range(c))
        if kind in openmp.LOOP_DIRECTIVES:
            return self._openmp_loop(c)
        method = getattr(self, "stmt_" + cursor_kind_name(c), None)
        if method is None:
            return self._opaque_stmt(c)
        return method(c)

    def _opaque_stmt(self, c: ci.Cursor) -> N.OpaqueStmt:
        return N.OpaqueStmt(cursor_kind_name(c), " ".join(t.spelling for t in c.get_tokens())[:200],
                            loc=location(c), extent=source_range(c))

    def stmt_UNEXPOSED_STMT(self, c: ci.Cursor) -> N.Stmt:
        """An attributed statement (clang's `AttributedStmt`): the loop hints of `#pragma unroll`,
        `#pragma GCC unroll 4`, `#pragma clang loop ...` or statement attributes (`fallthrough`)
        around one statement, which is lowered, the pragmas inside the wrapper attached to it.
        Other unexposed statements (an OpenMP directive's captured statement) stay opaque."""
        children = list(c.get_children())
        inner = cursor_kind(children[0]) if len(children) == 1 else None
        if inner is None or not inner.is_statement():
            return self._opaque_stmt(c)
        return self._child_stmt(children[0], c.extent.start.offset)

    def _openmp_loop(self, c: ci.Cursor) -> N.Stmt:
        """The loop of an OpenMP loop directive (clangpass.frontend.openmp), its pragma attached;
        the directive stays opaque where its loop cannot be read or holds other directives."""
        captured = openmp.captured_statement(c)
        if captured is None or self._parse_without_openmp is None:
            return self._opaque_stmt(c)
        if self._plain_loops is None:
            plain = self._parse_without_openmp(self.macros.literal("_OPENMP"))
            parsed = not any(d.severity >= ci.Diagnostic.Error for d in plain.diagnostics)
            self._plain_loops = openmp.loops_by_offset(plain, self.main_file) if parsed else {}
        loop = self._plain_loops.get(captured.extent.start.offset)
        if loop is None or openmp.holds_other_directives(loop, self.pragmas):
            return self._opaque_stmt(c)
        return self._child_stmt(loop, c.extent.start.offset)

    def _with_pragmas(self, s: N.Stmt, placed: list[PlacedPragma]) -> N.Stmt:
        if not placed:
            return s
        from dataclasses import replace
        for p in placed:
            self._consumed.add(p.offset)
        return replace(s, pragmas=s.pragmas + tuple(p.pragma for p in placed))

    def _child_stmt(self, c: ci.Cursor, after_offset: int) -> N.Stmt:
        """A sub-statement (loop or if body) with the pragmas written just before it."""
        placed = [p for p in self._pragmas_between(after_offset, c.extent.start.offset)
                  if p.pragma.kind not in ("scop", "endscop")]
        return self._with_pragmas(self.stmt(c), placed)

    def stmt_COMPOUND_STMT(self, c: ci.Cursor) -> N.Compound:
        children = list(c.get_children())
        out: list[N.Stmt] = []
        region_start: Optional[PlacedPragma] = None
        region_body: list[N.Stmt] = []
        prev_end = c.extent.start.offset
        for child in children + [None]:
            limit = child.extent.start.offset if child is not None else c.extent.end.offset
            before = self._pragmas_between(prev_end, limit)
            attach: list[PlacedPragma] = []
            for p in before:
                if p.pragma.kind == "scop" and region_start is None:
                    self._consumed.add(p.offset)
                    region_start = p
                    region_body = []
                elif p.pragma.kind == "endscop" and region_start is not None:
                    self._consumed.add(p.offset)
                    out.append(self._scop_region(region_start, p, region_body))
                    region_start = None
                else:
                    attach.append(p)
            if child is None:
                break
            lowered = self.stmt(child)
            region_pragma = next((p for p in attach if p.pragma.kind == "region"), None)
            if region_pragma is not None and isinstance(lowered, N.Compound):
                attach = [p for p in attach if p is not region_pragma]
                self._consumed.add(region_pragma.offset)
                start = region_pragma.pragma.loc
                ext = source_range(child)
                lowered = N.Region("pencil", lowered, loc=start, extent=ext and N.SourceRange(
                    ext.file, region_pragma.offset, ext.end_offset, start, ext.end),
                    pragmas=(region_pragma.pragma,))
            lowered = self._with_pragmas(lowered, attach)
            (region_body if region_start is not None else out).append(lowered)
            prev_end = child.extent.end.offset
        if region_start is not None:  # unterminated scop: keep the statements, no region
            out.extend(region_body)
        return N.Compound(tuple(out), loc=location(c), extent=source_range(c))

    def _scop_region(self, start: PlacedPragma, end: PlacedPragma, body: list[N.Stmt]) -> N.Region:
        loc = start.pragma.loc
        end_loc = end.pragma.loc
        extent = N.SourceRange(loc.file, start.offset, end.end_offset, loc,
                               N.SourceLoc(end_loc.file, end_loc.line, end_loc.col + (end.end_offset - end.offset)))
        return N.Region("scop", N.Compound(tuple(body), loc=loc, extent=extent), loc=loc, extent=extent)

    def stmt_DECL_STMT(self, c: ci.Cursor) -> N.Stmt:
        decls = []
        for child in c.get_children():
            if cursor_kind(child) == CK.VAR_DECL:
                decls.append(self.var_decl(child))
        return N.DeclStmt(tuple(decls), loc=location(c), extent=source_range(c))

    def var_decl(self, c: ci.Cursor) -> N.VarDecl:
        init_cursor = self._initializer(c)
        init = self.expr(init_cursor) if init_cursor is not None else None
        storage = {ci.StorageClass.STATIC: "static", ci.StorageClass.EXTERN: "extern"}.get(c.storage_class, "")
        return N.VarDecl(c.spelling, self.decl_type(c), init, location(c), storage)

    def _for_parts(self, c: ci.Cursor) -> Optional[tuple[Optional[ci.Cursor], Optional[ci.Cursor], Optional[ci.Cursor], ci.Cursor]]:
        """A FOR_STMT's init/cond/inc/body, or None when they cannot be told apart.

        libclang lists the header's parts in that order but leaves out the empty ones: with
        none or all three written, the children say it all; with one or two, the loop's
        tokens say which parts are written (`for_header_slots`). Where the two disagree (a
        part written as a macro that expands to nothing), None: the loop is not guessed at.
        """
        children = list(c.get_children())
        body, header = children[-1], children[:-1]
        if len(header) in (0, 3):
            init, cond, inc = (header + [None, None, None])[:3]
            return init, cond, inc, body
        written = for_header_slots(c)
        if sum(written) != len(header):
            return None
        parts = iter(header)
        init, cond, inc = (next(parts) if w else None for w in written)
        return init, cond, inc, body

    def stmt_FOR_STMT(self, c: ci.Cursor) -> N.Stmt:
        parts = self._for_parts(c)
        if parts is None:
            return N.OpaqueStmt("for (header split by an empty macro)", "", loc=location(c),
                                extent=source_range(c))
        init_c, cond_c, inc_c, body_c = parts
        init = self.stmt(init_c) if init_c is not None else None
        cond = self.expr(cond_c) if cond_c is not None else None
        step = self.expr(inc_c) if inc_c is not None else None
        header_end = max((x.extent.end.offset for x in (init_c, cond_c, inc_c) if x is not None),
                         default=c.extent.start.offset)
        body = self._child_stmt(body_c, header_end)
        return N.For(init, cond, step, body, loc=location(c), extent=source_range(c))

    def stmt_IF_STMT(self, c: ci.Cursor) -> N.Stmt:
        children = list(c.get_children())
        cond = self.expr(children[0])
        then = self._child_stmt(children[1], children[0].extent.end.offset)
        otherwise = self._child_stmt(children[2], children[1].extent.end.offset) if len(children) > 2 else None
        return N.If(cond, then, otherwise, loc=location(c), extent=source_range(c))

    def stmt_WHILE_STMT(self, c: ci.Cursor) -> N.Stmt:
        cond, body = list(c.get_children())
        return N.While(self.expr(cond), self._child_stmt(body, cond.extent.end.offset),
                       loc=location(c), extent=source_range(c))

    def stmt_DO_STMT(self, c: ci.Cursor) -> N.Stmt:
        body, cond = list(c.get_children())
        return N.DoWhile(self._child_stmt(body, c.extent.start.offset), self.expr(cond),
                         loc=location(c), extent=source_range(c))

    def stmt_RETURN_STMT(self, c: ci.Cursor) -> N.Stmt:
        children = list(c.get_children())
        value = self.expr(children[0]) if children else None
        return N.Return(value, loc=location(c), extent=source_range(c))

    def stmt_BREAK_STMT(self, c: ci.Cursor) -> N.Stmt:
        return N.Break(loc=location(c), extent=source_range(c))

    def stmt_CONTINUE_STMT(self, c: ci.Cursor) -> N.Stmt:
        return N.Continue(loc=location(c), extent=source_range(c))

    def stmt_GOTO_STMT(self, c: ci.Cursor) -> N.Stmt:
        label = next((ch.spelling for ch in c.get_children() if ch.kind == CK.LABEL_REF), "")
        return N.Goto(label, loc=location(c), extent=source_range(c))

    def stmt_LABEL_STMT(self, c: ci.Cursor) -> N.Stmt:
        children = list(c.get_children())
        body = self.stmt(children[0]) if children else None
        return N.Label(c.spelling, body, loc=location(c), extent=source_range(c))

    def stmt_SWITCH_STMT(self, c: ci.Cursor) -> N.Stmt:
        children = list(c.get_children())
        return N.Switch(self.expr(children[0]), self.stmt(children[-1]), loc=location(c), extent=source_range(c))

    def stmt_NULL_STMT(self, c: ci.Cursor) -> N.Stmt:
        return N.NullStmt(loc=location(c), extent=source_range(c))

    # ---------------------------------------------------------------- declarations
    def function(self, c: ci.Cursor, attributes: tuple[N.Attribute, ...]) -> N.Function:
        params = tuple(N.Param(p.spelling, self.decl_type(p), location(p)) for p in c.get_arguments())
        body_cursor = next((ch for ch in c.get_children() if cursor_kind(ch) == CK.COMPOUND_STMT), None)
        body = self.stmt_COMPOUND_STMT(body_cursor) if body_cursor is not None else None
        storage = {ci.StorageClass.STATIC: "static", ci.StorageClass.EXTERN: "extern"}.get(c.storage_class, "")
        fn_type = c.type
        variadic = type_kind(fn_type) == ci.TypeKind.FUNCTIONPROTO and fn_type.is_function_variadic()
        return N.Function(
            name=c.spelling, result=self.types.lower(c.result_type), params=params, body=body,
            loc=location(c), extent=source_range(c), attributes=attributes, storage=storage,
            inline=is_inline_function(c), variadic=variadic,
            in_main_file=self._in_main_file(c),
        )
