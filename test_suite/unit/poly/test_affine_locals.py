# SPDX-License-Identifier: MIT
"""clangpass.poly.affine_locals: which locals are substituted, on parsed snippets."""
from __future__ import annotations

from pathlib import Path

from clangpass.frontend import FrontendOptions, parse_file
from clangpass.ir.printer import format_stmt
from clangpass.poly.affine_locals import propagate_constant_locals


def _propagated(tmp_path: Path, body: str) -> tuple[str, tuple[str, ...]]:
    source = tmp_path / "k.c"
    source.write_text("#include <pencil.h>\nvoid k(int n, int m, double a[static const restrict 100][100])\n{\n"
                      + body + "\n}\n")
    module = parse_file(str(source), FrontendOptions(parser_args=(f"-I{Path(__file__).parents[3] / 'include'}",),
                                                    force_pencil=True)).module
    [fn] = [f for f in module.functions if f.name == "k"]
    out, names = propagate_constant_locals(fn.body)
    return " ".join(line.strip() for line in format_stmt(out)), names


def test_loop_local_value_of_iterators_is_substituted(tmp_path):
    text, names = _propagated(tmp_path, "for (int i = 0; i < n; i++) { int j = n - i; a[i][j] = 1.0; }")
    assert names == ("j",)
    assert "int j" not in text and "a[i][(n - i)]" in text


def test_chain_and_clamp_are_substituted(tmp_path):
    text, names = _propagated(tmp_path, "for (int i = 0; i < n; i++) { int lo = max(0, i - 1), r = clamp(lo, 0, m);"
                                        " a[r][lo] = 2.0; }")
    assert names == ("lo", "r")
    assert "clamp(max(0, (i - 1)), 0, m)" in text


def test_locals_that_can_change_are_kept(tmp_path):
    cases = {
        "written later": "for (int i = 0; i < n; i++) { int j = i; j += 1; a[i][j] = 1.0; }",
        "address taken": "for (int i = 0; i < n; i++) { int j = i; int *p = &j; a[i][*p] = 1.0; }",
        "reads a variable written later": "int t = n; for (int i = 0; i < n; i++) { int j = t; t = i; a[i][j] = 1.0; }",
        "reads memory": "for (int i = 0; i < n; i++) { int j = (int)a[i][0]; a[i][j] = 1.0; }",
        "floating point": "for (int i = 0; i < n; i++) { double x = i; a[i][0] = x; }",
        "no initialiser": "for (int i = 0; i < n; i++) { int j; j = i; a[i][j] = 1.0; }",
    }
    for what, body in cases.items():
        _, names = _propagated(tmp_path, body)
        assert "j" not in names and "x" not in names, what


def test_inner_block_first_so_shadowing_is_resolved(tmp_path):
    text, names = _propagated(tmp_path, "for (int i = 0; i < n; i++) { int j = i; { int j = 0; a[i][j] = 1.0; }"
                                        " a[j][i] = 2.0; }")
    assert names == ("j", "j")
    assert "a[i][0] = 1.0" in text and "a[i][i] = 2.0" in text
