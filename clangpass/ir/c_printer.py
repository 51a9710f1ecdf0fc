# SPDX-License-Identifier: MIT
"""IR statement bodies as C source that a C compiler (or an OpenCL C compiler) accepts.

Where `clangpass.ir.printer` writes the IR for people (`(T)<x>` marks an implicit
conversion), this module writes code: every operation fully parenthesised, every
conversion the IR holds (implicit or explicit) an explicit cast, literals with the
suffix of their C type. Since the IR carries the types clang computed and every
value-changing conversion, the text computes what the original expression computed,
in C99 and in OpenCL C alike (their integer and floating types and usual arithmetic
conversions agree for char..long, float and double).

What differs between targets is a `CDialect`'s business:
- `name(ref)`: the spelling of a C variable (a target may rename, to keep clear of its
  reserved words);
- `type_name(t)`: a scalar type's spelling (OpenCL C: `uchar`, `ulong`, ...);
- `subscript(root, indices)`: an access `root[i0]...[ik]` to a variable's array, where
  the target decides the layout (OpenCL buffers are flat: row-major offsets);
- `call(call, args)`: a builtin or function call;
- for the isl AST around the bodies (clangpass.poly.ast_c): `index_type` (isl's integers),
  `iterator(name)` and `parameter(name, arithmetic)` (isl's identifiers), `integer(value)`,
  `minmax(which, a, b)` and `floord(a, b)`.
A construct the dialect cannot express raises `Unprintable` with the reason, which the
caller turns into a fallback of its own (the region stays correct on another path).
"""
from __future__ import annotations

import math
from typing import Sequence

from clangpass.ir import nodes as N
from clangpass.ir import types as T


class Unprintable(Exception):
    """The dialect has no spelling for this construct; the message says which."""


class CDialect:
    """C99 as written by the host compiler's users (the default spellings)."""

    def name(self, ref: N.VarRef) -> str:
        return ref.name

    def type_name(self, t: T.CType) -> str:
        if isinstance(t, (T.IntType, T.FloatType, T.VoidType)):
            return t.unqualified().spelling()
        raise Unprintable(f"type '{t.spelling()}'")

    def subscript(self, root: N.VarRef, indices: Sequence[str]) -> str:
        return self.name(root) + "".join(f"[{i}]" for i in indices)

    def call(self, call: N.Call, args: Sequence[str]) -> str:
        return f"{call.callee}({', '.join(args)})"

    # isl AST expressions, computed in `long` as the CPU target computes them in i64.
    index_type = "long"

    def iterator(self, name: str) -> str:
        return name

    def parameter(self, name: str, arithmetic: bool) -> str:
        """An integer parameter (a variable in scope); `arithmetic`: an operand of an integer
        operation, which must not be computed in a narrower type."""
        return f"((long){name})" if arithmetic else name

    def integer(self, value: int) -> str:
        return str(value) if -(1 << 31) <= value < (1 << 31) else f"{value}L"

    def minmax(self, which: str, a: str, b: str) -> str:
        return f"__pencilcc_{which}({a}, {b})"

    def floord(self, a: str, b: str) -> str:
        return f"__pencilcc_floord({a}, {b})"


_INT_SUFFIX = {(32, True): "", (32, False): "U", (64, True): "L", (64, False): "UL"}


class CPrinter:
    """Prints IR expressions and statements in `dialect`."""

    def __init__(self, dialect: CDialect) -> None:
        self.dialect = dialect

    # ------------------------------------------------------------------ expressions
    def expr(self, e: N.Expr) -> str:
        method = getattr(self, f"expr_{type(e).__name__}", None)
        if method is None:
            raise Unprintable(f"expression '{type(e).__name__}'")
        return method(e)

    def expr_IntLit(self, e: N.IntLit) -> str:
        t = e.type if isinstance(e.type, T.IntType) else T.IntType()
        if t.bits > 64:
            raise Unprintable(f"a {t.bits}-bit integer")
        bits, signed = max(t.bits, 32), t.signed
        value = e.value % (1 << bits)
        if signed and value >= 1 << (bits - 1):
            value -= 1 << bits
        suffix = _INT_SUFFIX[(bits, signed)]
        if signed and value == -(1 << (bits - 1)):
            return f"(-{-(value + 1)}{suffix} - 1{suffix})"     # the most negative value has no literal
        text = f"{abs(value)}{suffix}"
        text = f"(-{text})" if value < 0 else text
        if t.bits < 32:
            return f"(({self.dialect.type_name(t)}){text})"
        return text

    def expr_FloatLit(self, e: N.FloatLit) -> str:
        single = isinstance(e.type, T.FloatType) and e.type.bits == 32
        value = e.value
        if math.isnan(value):
            text = "NAN"
        elif math.isinf(value):
            text = "INFINITY" if value > 0 else "(-INFINITY)"
        else:
            # repr round-trips the double; a float literal is the double rounded to float,
            # which is what clang computed for the source literal too.
            text = repr(float(value))
            if "e" not in text and "." not in text:
                text += ".0"
            if single:
                text += "f"
        return text if not text.startswith("-") else f"({text})"

    def expr_VarRef(self, e: N.VarRef) -> str:
        return self.dialect.name(e)

    def expr_Subscript(self, e: N.Subscript) -> str:
        if isinstance(e.type, T.ArrayType):
            raise Unprintable("a subscript that designates a row of an array")
        indices = [e.index]
        node = e.base
        while isinstance(node, N.Subscript):
            indices.append(node.index)
            node = node.base
        indices.reverse()
        if not isinstance(node, N.VarRef):
            raise Unprintable("a subscript of an expression that is not a variable")
        return self.dialect.subscript(node, [self.expr(i) for i in indices])

    def expr_Unary(self, e: N.Unary) -> str:
        if e.op == "sizeof":
            raise Unprintable("sizeof")
        if e.op == "&":
            raise Unprintable("taking an address")
        operand = self.expr(e.operand)
        if e.op.startswith("post"):
            return f"({operand}{e.op[4:]})"
        return f"({e.op}{operand})"

    def expr_Binary(self, e: N.Binary) -> str:
        return f"({self.expr(e.lhs)} {e.op} {self.expr(e.rhs)})"

    def expr_Assign(self, e: N.Assign) -> str:
        return f"({self.expr(e.target)} {e.op} {self.expr(e.value)})"

    def expr_Conditional(self, e: N.Conditional) -> str:
        return f"({self.expr(e.cond)} ? {self.expr(e.then)} : {self.expr(e.otherwise)})"

    def expr_Call(self, e: N.Call) -> str:
        return self.dialect.call(e, [self.expr(a) for a in e.args])

    def expr_Cast(self, e: N.Cast) -> str:
        if isinstance(e.type, (T.ArrayType, T.PointerType)) or isinstance(e.operand.type, T.ArrayType):
            raise Unprintable(f"a conversion to '{e.type.spelling()}'")
        return f"(({self.dialect.type_name(e.type)}){self.expr(e.operand)})"

    # ------------------------------------------------------------------ statements
    def stmt(self, s: N.Stmt, indent: str = "") -> list[str]:
        method = getattr(self, f"stmt_{type(s).__name__}", None)
        if method is None:
            raise Unprintable(f"statement '{type(s).__name__}'")
        return method(s, indent)

    def stmt_ExprStmt(self, s: N.ExprStmt, indent: str) -> list[str]:
        return [f"{indent}{self.expr(s.expr)};"]

    def stmt_NullStmt(self, s: N.NullStmt, indent: str) -> list[str]:
        return []

    def stmt_Compound(self, s: N.Compound, indent: str) -> list[str]:
        out = [indent + "{"]
        for child in s.body:
            out += self.stmt(child, indent + "  ")
        return out + [indent + "}"]

    def stmt_If(self, s: N.If, indent: str) -> list[str]:
        out = [f"{indent}if ({self.expr(s.cond)}) {{"] + self.stmt(s.then, indent + "  ")
        if s.otherwise is not None:
            out += [f"{indent}}} else {{"] + self.stmt(s.otherwise, indent + "  ")
        return out + [indent + "}"]

    def stmt_For(self, s: N.For, indent: str) -> list[str]:
        init = self.stmt(s.init, indent + "  ") if s.init is not None else []
        cond = self.expr(s.cond) if s.cond is not None else ""
        step = self.expr(s.step) if s.step is not None else ""
        return ([indent + "{"] + init + [f"{indent}  for (; {cond}; {step}) {{"]
                + self.stmt(s.body, indent + "    ") + [indent + "  }", indent + "}"])

    def stmt_While(self, s: N.While, indent: str) -> list[str]:
        return [f"{indent}while ({self.expr(s.cond)}) {{"] + self.stmt(s.body, indent + "  ") + [indent + "}"]

    def stmt_Break(self, s: N.Break, indent: str) -> list[str]:
        return [indent + "break;"]

    def stmt_Continue(self, s: N.Continue, indent: str) -> list[str]:
        return [indent + "continue;"]

    def stmt_DeclStmt(self, s: N.DeclStmt, indent: str) -> list[str]:
        out = []
        for d in s.decls:
            if isinstance(d.type, T.ArrayType) or d.storage:
                raise Unprintable(f"the declaration of '{d.name}'")
            ref = N.VarRef(d.name, "local", type=d.type)
            init = f" = {self.expr(d.init)}" if d.init is not None else ""
            out.append(f"{indent}{self.dialect.type_name(d.type)} {self.dialect.name(ref)}{init};")
        return out
