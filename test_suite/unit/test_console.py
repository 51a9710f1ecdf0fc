# SPDX-License-Identifier: MIT
"""clangpass.driver.console: the terminal prints what the driver always printed, the
transcript keeps the same messages as values, and a tool's text is read into values."""
from __future__ import annotations

from clangpass.diagnostics import Diagnostic, render
from clangpass.driver.console import TOOL_DIAGNOSTIC, Terminal, Transcript, tool_diagnostics
from clangpass.driver.host import HostCompiler
from clangpass.ir.nodes import SourceLoc

GCC = """\
k.c: In function 'f':
k.c:2:13: error: expected expression before ';' token
    2 |   return x +;
      |             ^
k.c:5:7: warning: unused variable 'y' [-Wunused-variable]
/usr/bin/ld: k.o: in function `main':
collect2: error: ld returned 1 exit status
"""

WARNING = Diagnostic("pencil", "warning", SourceLoc("k.c", 9, 1), "region not optimized", option="-Wpencil")


def test_tool_text_becomes_values():
    found = tool_diagnostics(GCC)
    assert [(d.id, d.severity, str(d.loc), d.message, d.option) for d in found] == [
        (TOOL_DIAGNOSTIC, "error", "k.c:2:13", "expected expression before ';' token", ""),
        (TOOL_DIAGNOSTIC, "warning", "k.c:5:7", "unused variable 'y'", "-Wunused-variable"),
        (TOOL_DIAGNOSTIC, "error", "collect2:0:0", "ld returned 1 exit status", ""),
    ]
    assert tool_diagnostics("pencilcc: cache hit for 'k.c'\n") == ()


def test_terminal_prints_and_transcript_keeps(capsys):
    Terminal().report([WARNING])
    Terminal().output(GCC, tool_diagnostics(GCC))
    assert capsys.readouterr().err == render(WARNING) + "\n" + GCC
    transcript = Transcript()
    transcript.report([WARNING])
    transcript.output(GCC, tool_diagnostics(GCC))
    assert transcript.text == render(WARNING) + "\n" + GCC
    assert transcript.diagnostics == [WARNING, *tool_diagnostics(GCC)]


def test_host_compiler_hands_its_output_to_a_console(tmp_path, capfd):
    source = tmp_path / "bad.c"
    source.write_text("int f(int x) {\n  return x +;\n}\n")
    transcript = Transcript()
    proc = HostCompiler(console=transcript).run(["-c", str(source), "-o", str(tmp_path / "bad.o")])
    assert proc.returncode != 0
    assert capfd.readouterr().err == ""
    assert str(source) in transcript.text
    assert [(d.severity, d.loc.line) for d in transcript.diagnostics] == [("error", 2)]
