# SPDX-License-Identifier: MIT
"""Reading `// EXPECT: rule@col ...` annotations of lint snippets and linting them."""
from __future__ import annotations

import re
from pathlib import Path

from clangpass.diagnostics import Diagnostic, DiagnosticEngine
from clangpass.frontend import FrontendOptions, parse_file
from clangpass.lint import LintOptions, lint_module

SNIPPETS = Path(__file__).parent / "snippets"
_EXPECT = re.compile(r"//\s*EXPECT:\s*(.*)$")
_ITEM = re.compile(r"(pencil-[a-z-]+)@(\d+)")


def expected_diagnostics(path: Path) -> set[tuple[str, int, int]]:
    """(rule, line, column) for every `rule@col` of an `// EXPECT:` comment, on the comment's line."""
    out = set()
    for number, text in enumerate(path.read_text().splitlines(), start=1):
        match = _EXPECT.search(text)
        if match:
            items = _ITEM.findall(match.group(1))
            assert items, f"{path.name}:{number}: malformed EXPECT annotation"
            out.update((rule, number, int(col)) for rule, col in items)
    return out


def lint_diagnostics(path: Path, options: LintOptions = LintOptions(), **frontend) -> list[Diagnostic]:
    result = parse_file(str(path), FrontendOptions(**frontend))
    assert result.ok, result.diagnostics
    engine = DiagnosticEngine()
    lint_module(result.module, engine, options)
    return engine.sorted()


def found_diagnostics(path: Path) -> set[tuple[str, int, int]]:
    return {(d.id, d.loc.line, d.loc.col) for d in lint_diagnostics(path)}
