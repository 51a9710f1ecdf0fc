# SPDX-License-Identifier: MIT
"""The one canonical text form of the IR (`pencilcc --dump-ir`).

Deterministic: no addresses, functions in source order, C-like syntax with
explicit implicit casts written `(T)<x>` so that a reader sees the conversions
the back end will perform. Tests compare this text exactly.
"""
from __future__ import annotations

from clangpass.ir import nodes as N
from clangpass.ir.types import ArrayType, CType


def format_type(t: CType) -> str:
    return t.spelling()


def _declarator(name: str, t: CType) -> str:
    if isinstance(t, ArrayType):
        spelled = t.spelling()
        base = t.scalar_element().spelling()
        return f"{base} {name}{spelled[len(base):]}"
    return f"{t.spelling()} {name}"


def format_expr(e: N.Expr) -> str:
    return _EXPR_FORMATTERS[type(e)](e)


def _fmt_float(e: N.FloatLit) -> str:
    return e.text or repr(e.value)


_EXPR_FORMATTERS = {
    N.IntLit: lambda e: str(e.value),
    N.FloatLit: _fmt_float,
    N.StringLit: lambda e: '"' + e.value.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"',
    N.VarRef: lambda e: e.name,
    N.Subscript: lambda e: f"{format_expr(e.base)}[{format_expr(e.index)}]",
    N.Member: lambda e: f"{format_expr(e.base)}{'->' if e.arrow else '.'}{e.field_name}",
    N.Unary: lambda e: (f"({format_expr(e.operand)}{e.op[4:]})" if e.op.startswith("post")
                        else f"sizeof({format_expr(e.operand)})" if e.op == "sizeof"
                        else f"({e.op}{format_expr(e.operand)})"),
    N.Binary: lambda e: f"({format_expr(e.lhs)} {e.op} {format_expr(e.rhs)})",
    N.Assign: lambda e: f"{format_expr(e.target)} {e.op} {format_expr(e.value)}",
    N.Conditional: lambda e: f"({format_expr(e.cond)} ? {format_expr(e.then)} : {format_expr(e.otherwise)})",
    N.Call: lambda e: f"{e.callee}({', '.join(format_expr(a) for a in e.args)})",
    N.Cast: lambda e: (f"({e.type.spelling()})<{format_expr(e.operand)}>" if e.implicit
                       else f"(({e.type.spelling()}){format_expr(e.operand)})"),
    N.InitList: lambda e: "{" + ", ".join(format_expr(i) for i in e.items) + "}",
    N.OpaqueExpr: lambda e: f"<{e.kind}>",
}


def _pragma_lines(s: N.Stmt, ind: str) -> list[str]:
    return [f"{ind}#{p.text}" for p in s.pragmas]


def format_vardecl(d: N.VarDecl) -> str:
    prefix = f"{d.storage} " if d.storage else ""
    init = f" = {format_expr(d.init)}" if d.init is not None else ""
    return f"{prefix}{_declarator(d.name, d.type)}{init}"


def format_stmt(s: N.Stmt, depth: int = 0) -> list[str]:
    ind = "  " * depth
    out = _pragma_lines(s, ind)
    out.extend(_STMT_FORMATTERS[type(s)](s, depth, ind))
    return out


def _fmt_compound(s: N.Compound, depth: int, ind: str) -> list[str]:
    out = [ind + "{"]
    for c in s.body:
        out.extend(format_stmt(c, depth + 1))
    out.append(ind + "}")
    return out


def _inline_stmt(s: N.Stmt | None) -> str:
    if s is None:
        return ""
    if isinstance(s, N.DeclStmt):
        return ", ".join(format_vardecl(d) for d in s.decls)
    if isinstance(s, N.ExprStmt):
        return format_expr(s.expr)
    return "<stmt>"


def _fmt_for(s: N.For, depth: int, ind: str) -> list[str]:
    cond = format_expr(s.cond) if s.cond is not None else ""
    step = format_expr(s.step) if s.step is not None else ""
    return [f"{ind}for ({_inline_stmt(s.init)}; {cond}; {step})  // line {s.loc.line}"] + format_stmt(s.body, depth + 1)


def _fmt_if(s: N.If, depth: int, ind: str) -> list[str]:
    out = [f"{ind}if {format_expr(s.cond)}"] + format_stmt(s.then, depth + 1)
    if s.otherwise is not None:
        out += [f"{ind}else"] + format_stmt(s.otherwise, depth + 1)
    return out


_STMT_FORMATTERS = {
    N.Compound: _fmt_compound,
    N.DeclStmt: lambda s, d, ind: [f"{ind}{format_vardecl(v)};" for v in s.decls],
    N.ExprStmt: lambda s, d, ind: [f"{ind}{format_expr(s.expr)};"],
    N.If: _fmt_if,
    N.For: _fmt_for,
    N.While: lambda s, d, ind: [f"{ind}while {format_expr(s.cond)}"] + format_stmt(s.body, d + 1),
    N.DoWhile: lambda s, d, ind: [f"{ind}do"] + format_stmt(s.body, d + 1) + [f"{ind}while {format_expr(s.cond)};"],
    N.Return: lambda s, d, ind: [f"{ind}return" + (f" {format_expr(s.value)}" if s.value is not None else "") + ";"],
    N.Break: lambda s, d, ind: [f"{ind}break;"],
    N.Continue: lambda s, d, ind: [f"{ind}continue;"],
    N.Goto: lambda s, d, ind: [f"{ind}goto {s.label};"],
    N.Label: lambda s, d, ind: [f"{ind}{s.name}:"] + (format_stmt(s.body, d) if s.body is not None else []),
    N.Switch: lambda s, d, ind: [f"{ind}switch {format_expr(s.cond)}"] + format_stmt(s.body, d + 1),
    N.NullStmt: lambda s, d, ind: [f"{ind};"],
    N.OpaqueStmt: lambda s, d, ind: [f"{ind}<{s.kind}>;"],
    N.Region: lambda s, d, ind: [f"{ind}region {s.kind}  // line {s.loc.line}"] + format_stmt(s.body, d),
}


def format_function(f: N.Function) -> list[str]:
    attrs = "".join(f" __attribute__(({a.name}{'(' + ', '.join(a.args) + ')' if a.args else ''}))" for a in f.attributes)
    params = ", ".join(_declarator(p.name, p.type) for p in f.params) + (", ..." if f.variadic else "")
    storage = f"{f.storage} " if f.storage else ""
    pencil = f"  // pencil: {f.pencil_reason}" if f.is_pencil else ""
    head = f"{storage}{f.result.spelling()} {f.name}({params or 'void'}){attrs}"
    if f.body is None:
        return [head + ";" + pencil]
    return [head + pencil] + format_stmt(f.body, 0)


def format_module(m: N.Module, heading: bool = True) -> str:
    """The `--dump-ir` text: globals then functions defined in the main file.

    `heading=False` leaves out the `;; pencilcc ir` line, for a DumpSink that writes its own.
    """
    lines = [f";; pencilcc ir '{m.file}'" + ("  (pencil file)" if m.pencil_file else "")] if heading else []
    for g in m.globals:
        lines.append(format_vardecl(g) + ";")
    for f in m.functions:
        if f.in_main_file:
            lines.extend(format_function(f))
    return "\n".join(lines) + "\n"
