# SPDX-License-Identifier: MIT
"""Front end: libclang lowering to IR, pragmas, attributes, PENCIL classification."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from clangpass.frontend import FrontendOptions, parse_file, select_parser_args
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.printer import format_module


def parse(tmp_path: Path, source: str, name: str = "t.c", **kw):
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    result = parse_file(str(path), FrontendOptions(**kw))
    assert result.ok, result.diagnostics
    return result.module


def body_lines(module: N.Module) -> list[str]:
    return format_module(module).splitlines()[1:]


def test_exact_ir_dump_with_implicit_conversions(tmp_path):
    m = parse(tmp_path, """
        void f(int n, double A[static const restrict n], float x) {
          for (int i = 0; i < n; i += 2)
            A[i] = A[i] * x + i;
          unsigned char c = 200;
          c += 100;
        }
    """)
    assert body_lines(m) == [
        "void f(int n, double A[static const restrict n], float x)  // pencil: array parameters declared static const restrict",
        "{",
        "  for (int i = 0; (i < n); i += 2)  // line 3",
        "    A[i] = ((A[i] * (double)<x>) + (double)<i>);",
        "  unsigned char c = (unsigned char)<200>;",
        "  c += 100;",
        "}",
    ]
    # clang's computation type of `c += 100` is int: the value side keeps its int type.
    stmt = m.function("f").body.body[-1]
    assert isinstance(stmt.expr, N.Assign) and stmt.expr.op == "+="
    assert stmt.expr.compute_type == T.INT


def test_vla_extents_are_outermost_first_and_qualifiers_recorded(tmp_path):
    m = parse(tmp_path, """
        #define M 7
        void g(int n, int m, double A[static const restrict n][m][M]) { A[0][0][0] = 1; }
    """)
    a = m.function("g").params[2].type
    assert isinstance(a, T.ArrayType) and a.static and a.const and a.restrict
    dims = a.dims()
    assert [d.is_vla for d in dims] == [True, True, False]
    assert [getattr(d.extent, "name", None) for d in dims[:2]] == ["n", "m"]
    assert dims[2].constant_extent == 7
    assert a.scalar_element() == T.DOUBLE


def test_pragmas_attach_to_following_statement(tmp_path):
    m = parse(tmp_path, """
        void f(int n, double A[static const restrict n], double s) {
        #pragma pencil independent reduction(+: s) reduction(max: s)
          for (int i = 0; i < n; i++)
          #pragma pencil ivdep
            for (int j = 0; j < n; j++) A[i] += j;
        }
    """)
    outer = m.function("f").body.body[0]
    assert isinstance(outer, N.For)
    p = outer.pragma("independent")
    assert p is not None and p.loc.line == 3 and p.loc.col == 1
    assert [(r.op, r.variables) for r in p.reductions] == [("+", ("s",)), ("max", ("s",))]
    assert outer.body.pragma("ivdep") is not None


def test_bad_pragma_syntax_is_recorded(tmp_path):
    m = parse(tmp_path, """
        void f(int n, double A[static const restrict n], double s) {
        #pragma pencil independent reduction(/: s)
          for (int i = 0; i < n; i++) A[i] = s;
        }
    """)
    p = m.function("f").body.body[0].pragma("independent")
    assert p.errors and "invalid reduction operator '/'" in p.errors[0][1]


def test_missing_reduction_operator_is_one_error(tmp_path):
    m = parse(tmp_path, """
        void f(int n, double A[static const restrict n], double s) {
        #pragma pencil independent reduction(: s)
          for (int i = 0; i < n; i++) s += A[i];
        }
    """)
    p = m.function("f").body.body[0].pragma("independent")
    assert [(loc.col, message) for loc, message in p.errors] == [
        (38, "expected a reduction operator (one of + - * min max & | ^ && ||) before ':'")]
    assert p.reductions == ()


def test_module_lists_the_struct_and_union_declarations_of_the_main_file(tmp_path):
    m = parse(tmp_path, """
        union u { int i; float f; };
        struct s { union { int a; float b; } v; int k; };
        union fwd;
    """)
    assert [(r.name, r.is_union, r.loc.line, r.loc.col, r.definition) for r in m.structs] == [
        ("u", True, 2, 1, True), ("s", False, 3, 1, True), ("", True, 3, 12, True), ("fwd", True, 4, 1, False)]


def test_scop_and_pencil_regions(tmp_path):
    m = parse(tmp_path, """
        void k(int n, double C[n]) {
          int i;
          C[0] = 1;
        #pragma scop
          for (i = 0; i < n; i++)
            C[i] = 2;
          C[1] = 3;
        #pragma endscop
        #pragma pencil region
          { C[2] = 4; }
        }
    """)
    body = m.function("k").body.body
    kinds = [type(s).__name__ for s in body]
    assert kinds == ["DeclStmt", "ExprStmt", "Region", "Region"]
    scop, pencil = body[2], body[3]
    assert scop.kind == "scop" and len(scop.body.body) == 2 and scop.loc.line == 5
    assert pencil.kind == "pencil" and pencil.loc.line == 10
    source = (tmp_path / "t.c").read_bytes()
    text = source[scop.extent.start_offset:scop.extent.end_offset].decode()
    assert text.startswith("#pragma scop") and text.endswith("#pragma endscop")


def test_attributes_and_pencil_classification(tmp_path):
    m = parse(tmp_path, """
        int sq(int) __attribute__((const));
        void summary(int n, double A[n]);
        __attribute__((pencil_access(summary))) void lib(int n, double A[n]);
        __attribute__((pencil)) void marked(int n, double *p) { p[0] = n; }
        void arrays(int n, double A[static const restrict n]) { A[0] = sq(n); }
        void plain(int n, double A[n]) { A[0] = n; }
        void summary(int n, double A[n]) { A[0] = n; }
        int main(void) { return 0; }
    """)
    assert m.function("sq").attribute("const") is not None
    assert m.function("lib").attribute("pencil_access").args == ("summary",)
    classified = {f.name: f.pencil_reason for f in m.functions if f.body is not None}
    assert classified == {
        "marked": "__attribute__((pencil))",
        "arrays": "array parameters declared static const restrict",
        "plain": "",
        "summary": "summary function",
        "main": "",
    }


def test_pencil_file_and_force_pencil(tmp_path):
    src = "void f(int n, double A[n]) { A[0] = n; }\nint main(void) { return 0; }\n"
    m = parse(tmp_path, src, name="k.pencil.c")
    assert m.function("f").is_pencil and not m.function("main").is_pencil
    m2 = parse(tmp_path, src, name="k2.c", force_pencil=True)
    assert m2.function("f").pencil_reason == "PENCIL source file"


def test_literals_macros_enums_and_builtins(tmp_path):
    m = parse(tmp_path, """
        #include <math.h>
        #define CL(v, a, b) ((v) < (a) ? (a) : (v) > (b) ? (b) : (v))
        enum { K = 5 };
        double f(int x) { return CL(x, 0, 0x10) + K + 'a' + 1.5e1 + sqrt(2.0); }
    """)
    ret = m.function("f").body.body[0]
    text = format_module(m)
    assert "((x < 0) ? 0 : ((x > 16) ? 16 : x))" in text
    assert "+ 5)" in text and "97" in text and "1.5e1" in text
    calls = [e for e in _walk(ret.value) if isinstance(e, N.Call)]
    assert calls and calls[0].callee == "sqrt" and calls[0].builtin


def _walk(e):
    from clangpass.ir.walk import iter_exprs
    return list(iter_exprs(e))


def test_struct_union_bitfield_types(tmp_path):
    m = parse(tmp_path, """
        struct P { int x; unsigned f : 3; };
        union U { int i; float g; };
        void f(struct P *p, union U u) { p->x = u.i; }
    """)
    p, u = m.function("f").params
    assert isinstance(p.type, T.PointerType) and isinstance(p.type.pointee, T.StructType)
    assert p.type.pointee.fields[1].bit_width == 3
    assert isinstance(u.type, T.StructType) and u.type.is_union
    assign = m.function("f").body.body[0].expr
    assert isinstance(assign.target, N.Member) and assign.target.arrow


def test_clang_errors_are_diagnostics_not_exceptions(tmp_path):
    path = tmp_path / "bad.c"
    path.write_text("int f( { return 0; }\n")
    result = parse_file(str(path))
    assert not result.ok
    assert any(d.severity == "error" and d.loc.line == 1 for d in result.diagnostics)
    missing = parse_file(str(tmp_path / "nope.c"))
    assert not missing.ok and missing.diagnostics[0].id == "pencilcc-no-such-file"


def test_system_headers_parse_with_host_builtin_includes(tmp_path):
    m = parse(tmp_path, """
        #include <stdlib.h>
        #include <stddef.h>
        #include <stdarg.h>
        size_t f(void) { return sizeof(int); }
    """)
    assert m.function("f").result.spelling() == "unsigned long"


@pytest.mark.parametrize("argv, expected", [
    # -O levels are passed: they set macros headers test (__OPTIMIZE__); -c and -march=x86-64 not.
    (["-O3", "-Iinc", "-DX=1", "-c", "-march=x86-64", "a.c"], ["-O3", "-Iinc", "-DX=1"]),
    (["-I", "inc", "-D", "Y", "-std=c11", "-Wall"], ["-I", "inc", "-D", "Y", "-std=c11"]),
    (["-include", "cfg.h", "-isystem", "/s", "-UZ", "-o", "x"], ["-include", "cfg.h", "-isystem", "/s", "-UZ"]),
])
def test_select_parser_args(argv, expected):
    assert select_parser_args(argv) == expected


def test_literals_from_object_like_macros_in_headers(tmp_path):
    (tmp_path / "coeffs.h").write_text("#define C0 0.25\n#define NEG (-3)\n#define ALIAS C0\n#define TWO 2.0f\n")
    m = parse(tmp_path, """
        #include "coeffs.h"
        double f(double x) { return C0 * x + NEG + TWO + ALIAS; }
    """)
    assert body_lines(m)[2] == "  return ((((0.25 * x) + (double)<(-3)>) + (double)<2.0f>) + 0.25);"


def test_literals_pasted_by_macros_take_clangs_value(tmp_path):
    # PolyBench's `#define SCALAR_VAL(x) x##f`: the pasted literal has no spelling in any file.
    m = parse(tmp_path, """
        #define SCALAR_VAL(x) x##f
        #define LONG_VAL(x) x##L
        #define HEX_VAL(x) 0x##x
        #define CHAR_VAL(x) x
        double f(void) { return SCALAR_VAL(0.1) + SCALAR_VAL(-2.5e-3) + LONG_VAL(5000000000) + HEX_VAL(1f)
                                + 18446744073709551615UL + CHAR_VAL('\\n'); }
    """)
    literals = [e for e in _walk(m.function("f").body.body[0].value) if isinstance(e, (N.FloatLit, N.IntLit))]
    assert [(type(e).__name__, e.value, e.type.spelling()) for e in literals] == [
        ("FloatLit", 0.10000000149011612, "float"), ("FloatLit", 0.0024999999441206455, "float"),
        ("IntLit", 5000000000, "long"), ("IntLit", 31, "int"),
        ("IntLit", 18446744073709551615, "unsigned long"), ("IntLit", 10, "int")]
    assert "<FLOATING_LITERAL>" not in format_module(m)


def test_compound_assignment_compute_types(tmp_path):
    m = parse(tmp_path, """
        void f(unsigned char c, long s, double d) {
          c <<= 3; c += 1; d *= 2; s >>= c;
        }
    """)
    assigns = [s.expr for s in m.function("f").body.body]
    # shifts compute in the promoted left operand (C99 6.5.7), others in the converted right operand's type
    assert [(a.op, a.compute_type.spelling()) for a in assigns] == [
        ("<<=", "int"), ("+=", "int"), ("*=", "double"), (">>=", "long")]


def test_pointer_to_vla_parameter_keeps_its_extent(tmp_path):
    m = parse(tmp_path, """
        void f(int n, int m, double (*E)[m]) { E[0][0] = n; }
    """)
    e = m.function("f").params[2].type
    assert isinstance(e, T.PointerType) and isinstance(e.pointee, T.ArrayType)
    assert getattr(e.pointee.extent, "name", None) == "m"
