# SPDX-License-Identifier: MIT
"""Where a compile's messages go: the terminal (the driver) or values (clangpass.compile).

Input: pencilcc's own diagnostics for an input, after the user's policy (-Werror,
-Wno-pencil, which remarks), as `Diagnostic` values; the text the host compiler,
the linker and LLVM print (and -v notes, a replayed cache entry's stderr).
Output: the driver's `Terminal` prints them on stderr exactly as before (clang
style, coloured on a terminal; tools' text unchanged); clangpass.compile's
`Transcript` keeps them, as values and as the text a terminal would have shown.

A tool's text becomes values through `tool_diagnostics`, which reads the lines in
gcc's and clang's format (`FILE:LINE:COL: SEVERITY: MESSAGE [-Wflag]`, or
`PROGRAM: SEVERITY: MESSAGE`); the lines around them (`In function`, the source
line, the caret) stay in the text only.
"""
from __future__ import annotations

import re
import sys
from typing import Protocol, Sequence

from clangpass.diagnostics import Diagnostic, render
from clangpass.ir.nodes import SourceLoc

#: The id of a diagnostic read from a tool's text (the host compiler, the linker, LLVM).
TOOL_DIAGNOSTIC = "host-compiler"

_SEVERITY = r"(?P<severity>fatal error|error|warning|note|remark)"
_LOCATED = re.compile(rf"^(?P<file>[^\n:]+):(?P<line>\d+):(?P<col>\d+): {_SEVERITY}: (?P<message>.*)$")
_UNLOCATED = re.compile(rf"^(?P<file>[^\n:]+): {_SEVERITY}: (?P<message>.*)$")
_FLAG = re.compile(r"^(?P<message>.*) \[(?P<option>-W[^\]\s]+)\]$")


def tool_diagnostics(text: str) -> tuple[Diagnostic, ...]:
    """The diagnostics in a tool's `text`, in order (see the module docstring)."""
    found = []
    for line in text.splitlines():
        match = _LOCATED.match(line) or _UNLOCATED.match(line)
        if match is None:
            continue
        located = "line" in match.groupdict()
        loc = SourceLoc(match["file"], int(match["line"]) if located else 0, int(match["col"]) if located else 0)
        message, option = match["message"], ""
        flagged = _FLAG.match(message)
        if flagged is not None:
            message, option = flagged["message"], flagged["option"]
        found.append(Diagnostic(TOOL_DIAGNOSTIC, match["severity"], loc, message, option=option))
    return tuple(found)


class Console(Protocol):
    """What a compile tells its user."""

    def report(self, diagnostics: Sequence[Diagnostic]) -> None:
        """pencilcc's own diagnostics for an input, in the order to show them."""
        ...

    def output(self, text: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        """Text printed by a tool or replayed from the cache, and the diagnostics it holds."""
        ...


class Terminal:
    """The driver's console: stderr, as cc prints."""

    def report(self, diagnostics: Sequence[Diagnostic]) -> None:
        color = sys.stderr.isatty()
        sys.stderr.write("".join(render(d, color=color) + "\n" for d in diagnostics))
        sys.stderr.flush()

    def output(self, text: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        if text:
            sys.stderr.write(text)
            sys.stderr.flush()


class Transcript:
    """clangpass.compile's console: every diagnostic as a value, and the text a terminal
    would have shown (`text`)."""

    def __init__(self) -> None:
        self.diagnostics: list[Diagnostic] = []
        self.text = ""

    def report(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics += diagnostics
        self.text += "".join(render(d) + "\n" for d in diagnostics)

    def output(self, text: str, diagnostics: Sequence[Diagnostic] = ()) -> None:
        self.diagnostics += diagnostics
        self.text += text
