# SPDX-License-Identifier: MIT
"""The diagnostics engine: clang-style rendering, -Werror promotion, option tags."""
from __future__ import annotations

from clangpass.diagnostics import DiagnosticEngine, render
from clangpass.ir.nodes import SourceLoc


def test_render_shows_source_line_and_caret(tmp_path):
    src = tmp_path / "k.c"
    src.write_text("int main(void) {\n\treturn x;\n}\n")
    engine = DiagnosticEngine()
    d = engine.error("pencil-call", SourceLoc(str(src), 2, 9), "bad thing")
    assert render(d).splitlines() == [f"{src}:2:9: error: bad thing [pencil-call]", "\treturn x;", "\t       ^"]


def test_option_tag_and_werror_promotion():
    loc = SourceLoc("a.c", 0, 0)
    plain = DiagnosticEngine().report("pencil", "warning", loc, "m", option="-Wpencil")
    assert render(plain) == "a.c: warning: m [-Wpencil]"
    promoted = DiagnosticEngine(errors=("pencil",)).report("pencil", "warning", loc, "m", option="-Wpencil")
    assert promoted.severity == "error" and render(promoted) == "a.c: error: m [-Werror=pencil]"
    assert DiagnosticEngine(disabled=("pencil",)).report("pencil", "warning", loc, "m") is None


def test_disabling_an_id_hides_its_warnings_never_its_remarks():
    """-w and -Wno-pencil disable the id 'pencil'; -Rpass remarks answer only to -R flags, as in clang."""
    loc = SourceLoc("a.c", 0, 0)
    engine = DiagnosticEngine(disabled=("pencil",), werror=True)
    assert engine.report("pencil", "warning", loc, "w", option="-Wpencil") is None
    remark = engine.report("pencil", "remark", loc, "r", option="-Rpass=pencil")
    assert remark is not None and remark.severity == "remark"
    assert [render(d) for d in engine.diagnostics] == ["a.c: remark: r [-Rpass=pencil]"]
