# SPDX-License-Identifier: MIT
"""Diagnostics: values collected in one engine, rendered the way clang renders them.

Every diagnostic has a stable id (`pencil-no-goto`, `pencil-fallback`, ...), a
severity, a location, the user's message and an optional developer detail. Passes,
the linter and the front end never print: they add to a `DiagnosticEngine`, and
the driver renders (`FILE:LINE:COL: error: message [id]`, the source line, a caret).
"""
from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Iterable, Optional, TextIO

from clangpass.ir.nodes import NOLOC, SourceLoc

SEVERITIES = ("note", "remark", "warning", "error", "fatal error")


@dataclass(frozen=True)
class Diagnostic:
    id: str
    severity: str
    loc: SourceLoc
    message: str
    detail: str = ""
    notes: tuple["Diagnostic", ...] = field(default=(), compare=False)
    option: str = ""    # the -W option that controls it (shown instead of the id, as gcc does)

    def as_json(self) -> dict:
        return {
            "id": self.id, "severity": self.severity, "file": self.loc.file,
            "line": self.loc.line, "column": self.loc.col, "message": self.message,
            **({"detail": self.detail} if self.detail else {}),
            **({"notes": [n.as_json() for n in self.notes]} if self.notes else {}),
            **({"option": self.option} if self.option else {}),
        }

    @staticmethod
    def from_json(data: dict) -> "Diagnostic":
        """The diagnostic `as_json` gave `data` for (the compile cache keeps them so);
        ValueError, TypeError or KeyError for anything else."""
        if not isinstance(data, dict):
            raise TypeError("a diagnostic is a JSON object")
        fields = (data["id"], data["severity"], data["file"], data["message"], data.get("detail", ""),
                  data.get("option", ""))
        if not all(isinstance(f, str) for f in fields) or data["severity"] not in SEVERITIES:
            raise ValueError(f"not a diagnostic: {data!r}")
        id, severity, file, message, detail, option = fields
        loc = SourceLoc(file, int(data["line"]), int(data["column"]))
        notes = tuple(Diagnostic.from_json(n) for n in data.get("notes", ()))
        return Diagnostic(id, severity, loc, message, detail, notes, option)


@lru_cache(maxsize=64)
def _source_lines(path: str) -> tuple[str, ...]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return tuple(f.read().splitlines())
    except OSError:
        return ()


def _caret_line(text: str, col: int) -> str:
    # Keep tabs so that the caret lines up under the source line in a terminal.
    prefix = "".join(ch if ch == "\t" else " " for ch in text[: max(col - 1, 0)])
    return prefix + "^"


def render(d: Diagnostic, show_id: bool = True, color: bool = False) -> str:
    where = f"{d.loc.file}:{d.loc.line}:{d.loc.col}: " if d.loc.line > 0 else (
        f"{d.loc.file}: " if d.loc.file and d.loc.file != NOLOC.file else "pencilcc: ")
    sev = d.severity
    tag = f" [{d.option or d.id}]" if show_id and (d.option or d.id) else ""
    if color:
        colours = {"error": "\033[1;31m", "fatal error": "\033[1;31m", "warning": "\033[1;35m",
                   "note": "\033[1;36m", "remark": "\033[1;34m"}
        where = f"\033[1m{where}\033[0m"
        sev = f"{colours.get(sev, '')}{sev}\033[0m"
    out = [f"{where}{sev}: {d.message}{tag}"]
    if d.loc.line > 0:
        lines = _source_lines(d.loc.file)
        if 0 < d.loc.line <= len(lines):
            text = lines[d.loc.line - 1]
            out.append(text)
            out.append(_caret_line(text, d.loc.col))
    for n in d.notes:
        out.append(render(n, show_id=False, color=color))
    return "\n".join(out)


class DiagnosticEngine:
    """Collects diagnostics; applies -Werror, -Wno-<id> and -Werror=<id> policies (never to remarks)
    and keeps only the remarks of the -R options in `remarks` (None: every remark, as the compile
    core collects them for its caller to choose)."""

    def __init__(self, werror: bool = False, disabled: Iterable[str] = (),
                 errors: Iterable[str] = (), remarks: Optional[Iterable[str]] = None) -> None:
        self.werror = werror
        self.disabled = set(disabled)
        self.promoted = set(errors)
        self.remarks = None if remarks is None else set(remarks)
        self.diagnostics: list[Diagnostic] = []

    def report(self, id: str, severity: str, loc: SourceLoc, message: str, detail: str = "",
               notes: tuple[Diagnostic, ...] = (), option: str = "") -> Optional[Diagnostic]:
        # -Wno-<id> and -w silence warnings (and notes); remarks answer only to -R flags, as in clang.
        if id in self.disabled and severity in ("warning", "note"):
            return None
        if severity == "remark" and self.remarks is not None and option not in self.remarks:
            return None
        if severity == "warning" and (self.werror or id in self.promoted):
            severity = "error"
            option = f"-Werror={option[2:]}" if option.startswith("-W") else option
        d = Diagnostic(id, severity, loc, message, detail, notes, option)
        if d not in self.diagnostics:
            self.diagnostics.append(d)
        return d

    def error(self, id: str, loc: SourceLoc, message: str, detail: str = "") -> Optional[Diagnostic]:
        return self.report(id, "error", loc, message, detail)

    def warning(self, id: str, loc: SourceLoc, message: str, detail: str = "") -> Optional[Diagnostic]:
        return self.report(id, "warning", loc, message, detail)

    def extend(self, diags: Iterable[Diagnostic]) -> None:
        for d in diags:
            self.report(d.id, d.severity, d.loc, d.message, d.detail, d.notes, d.option)

    @property
    def has_errors(self) -> bool:
        return any(d.severity in ("error", "fatal error") for d in self.diagnostics)

    def count(self, severity: str) -> int:
        return sum(1 for d in self.diagnostics if d.severity == severity)

    def sorted(self) -> list[Diagnostic]:
        return sorted(self.diagnostics, key=lambda d: (d.loc.file, d.loc.line, d.loc.col, d.id))

    def emit(self, stream: TextIO = sys.stderr, fmt: str = "text", show_id: bool = True) -> None:
        diags = self.sorted()
        if fmt == "json":
            json.dump({"diagnostics": [d.as_json() for d in diags]}, stream, indent=2)
            stream.write("\n")
            return
        color = hasattr(stream, "isatty") and stream.isatty()
        for d in diags:
            stream.write(render(d, show_id=show_id, color=color) + "\n")
