# SPDX-License-Identifier: MIT
"""AST generation (clangpass.poly.codegen): the CodegenUnit contract with the back ends."""
from __future__ import annotations

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.poly.codegen import format_ast

from test_suite.unit.poly.snippets import optimise

SCALE = """\
void f(int n, double A[static const restrict n], double alpha) {
  for (int i = 0; i < n; i++)
    A[i] = alpha * A[i];
}
"""


def test_ast_of_a_1d_loop(tmp_path):
    outcome = optimise(tmp_path, SCALE, opt_level=3)
    unit = outcome.unit
    assert format_ast(unit).splitlines() == [
        "// parallel",
        "for (int c0 = 0; c0 < n; c0 += 1)",
        "  S_0(c0);",
    ]
    assert unit.parallel_loops == 1 and unit.tiled_bands == 0
    assert unit.ast.get_type() == isl.ast_node_type.mark
    loop = unit.ast.mark_get_node()
    assert loop.get_type() == isl.ast_node_type.for_
    call = loop.for_get_body().user_get_expr()
    assert call.get_op_arg(0).get_id().get_name() == "S_0"
    body = unit.statements["S_0"]
    assert body.iterators == ("i",) and isinstance(body.body, N.ExprStmt)
    assert unit.region is outcome.region


def test_locals_and_kills(tmp_path):
    outcome = optimise(tmp_path, """\
        void f(int n, double A[static const restrict n]) {
          for (int i = 0; i < n; i++) {
            double t;
            t = A[i];
            A[i] = t * t;
          }
        }
    """, opt_level=1)
    unit = outcome.unit
    assert [(d.name, d.init) for d in unit.locals] == [("t", None)]
    # The kill of the uninitialised `t` is not executed code.
    assert set(unit.statements) == {"S_0", "S_1"}
    assert format_ast(unit).splitlines() == [
        "for (int c0 = 0; c0 < n; c0 += 1) {",
        "  S_0(c0);",
        "  S_1(c0);",
        "}",
    ]


def test_iterators_do_not_shadow_parameters(tmp_path):
    outcome = optimise(tmp_path, """\
        void f(int c0, double A[static const restrict c0]) {
          for (int i = 0; i < c0; i++)
            A[i] = 0.0;
        }
    """, opt_level=1)
    assert format_ast(outcome.unit).splitlines() == [
        "for (int __pencil_c0 = 0; __pencil_c0 < c0; __pencil_c0 += 1)",
        "  S_0(__pencil_c0);",
    ]
