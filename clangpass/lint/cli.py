# SPDX-License-Identifier: MIT
"""`pencilcc --lint` and `pencilcc --lint-explain`: the linter's command line.

Input: a gcc-style argument list (the driver passes everything after
`--lint`): preprocessor flags (-I -D -U -include -isystem -std= ...), lint
options and source files. Output: clang-style diagnostics on stderr
(`FILE:LINE:COL: error: message [pencil-rule]`, source line, caret, and a
summary such as `1 warning and 2 errors generated.`) or, with
`--format=json`, one JSON document on stdout; the exit status is 0 when every
file is PENCIL compliant (warnings allowed; a file without PENCIL code is
compliant, with a note saying so), 1 when a rule is violated, 2 on a
usage error, an unreadable or binary file, C that clang cannot parse, or an
internal error.

Options:
  -Werror              treat the warning rules as errors
  -Werror=RULE         treat one warning rule as an error
  -Wno-RULE            do not run warning rule RULE (error rules cannot be disabled)
  -w                   do not run any warning rule
  --format=text|json   output format (default text)
  -x pencil | -x c     treat every input as PENCIL (as a *.pencil.c file) or as C
Other -W, -O, -g, -f and -m flags are accepted and ignored, so that a compile
command line can be linted unchanged.
"""
from __future__ import annotations

import json
import os
import sys
import textwrap
from dataclasses import dataclass, field
from typing import Optional, TextIO

from clangpass.diagnostics import Diagnostic, DiagnosticEngine, render
from clangpass.frontend import FrontendOptions, parse_file, select_parser_args
from clangpass.ir.nodes import SourceLoc
from clangpass.lint import LintOptions, has_pencil_code, lint_module
from clangpass.lint.rules import RULES, find_rule

EXIT_COMPLIANT, EXIT_VIOLATIONS, EXIT_FAILURE = 0, 1, 2

USAGE = ("usage: pencilcc --lint [-Werror] [-Werror=RULE] [-Wno-RULE] [-w] [--format=text|json]\n"
         "                       [-x pencil|c] [-I DIR] [-D NAME[=VALUE]] [-U NAME] [-include FILE]\n"
         "                       [-std=STD] FILE...\n"
         "       pencilcc --lint-explain RULE")

# Flags of a compile command line that cannot change what the linter sees.
_IGNORED_PREFIXES = ("-O", "-g", "-f", "-m", "-W")

_SAMPLE_SIZE = 1 << 16


class UsageError(Exception):
    """A problem with the command line (exit status 2)."""


@dataclass
class LintCommand:
    files: list[str] = field(default_factory=list)
    parser_args: list[str] = field(default_factory=list)
    force_pencil: bool = False
    werror: bool = False
    promoted: set[str] = field(default_factory=set)
    disabled: set[str] = field(default_factory=set)
    fmt: str = "text"
    explain: Optional[str] = None
    help: bool = False


def _warning_rule(flag: str, name: str) -> Optional[str]:
    """The id of warning rule `name` for `flag`; None for a non-PENCIL warning name."""
    rule = find_rule(name)
    if rule is None:
        if name.startswith("pencil-"):
            raise UsageError(f"unknown lint rule '{name}' in '{flag}'; valid rules: {', '.join(RULES)}")
        return None
    return rule.id


def parse_command(argv: list[str]) -> LintCommand:
    cmd = LintCommand()
    i = 0
    while i < len(argv):
        a = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        i += 1
        if a == "--":
            cmd.files.extend(argv[i:])
            break
        if a in ("-h", "--help"):
            cmd.help = True
        elif a == "--lint":
            continue
        elif a in ("--lint-explain", "--format", "-x"):
            if value is None:
                raise UsageError(f"option '{a}' requires an argument")
            i += 1
            _apply_valued(cmd, a, value)
        elif a.startswith(("--lint-explain=", "--format=")):
            _apply_valued(cmd, a.split("=", 1)[0], a.split("=", 1)[1])
        elif a.startswith("-x") and len(a) > 2:
            _apply_valued(cmd, "-x", a[2:])
        elif a == "-Werror":
            cmd.werror = True
        elif a.startswith("-Werror="):
            rule_id = _warning_rule(a, a[len("-Werror="):])
            if rule_id is not None:
                cmd.promoted.add(rule_id)
        elif a.startswith("-Wno-") and not a.startswith("-Wno-error"):
            rule_id = _warning_rule(a, a[len("-Wno-"):])
            if rule_id is not None:
                if RULES[rule_id].severity != "warning":
                    raise UsageError(f"'{a}': rule '{rule_id}' is a PENCIL language rule (an error) "
                                     "and cannot be disabled")
                cmd.disabled.add(rule_id)
        elif a == "-w":
            cmd.disabled.update(r.id for r in RULES.values() if r.severity == "warning")
        elif a.startswith("-"):
            selected = select_parser_args([a] + ([value] if value is not None else []))
            if selected and selected[0] == a:
                cmd.parser_args.extend(selected)
                i += len(selected) - 1  # a separate value (-I DIR) was consumed too
            elif not a.startswith(_IGNORED_PREFIXES):
                raise UsageError(f"unknown option '{a}'")
        else:
            cmd.files.append(a)
    return cmd


def _apply_valued(cmd: LintCommand, flag: str, value: str) -> None:
    if flag == "--lint-explain":
        cmd.explain = value
    elif flag == "--format":
        if value not in ("text", "json"):
            raise UsageError(f"invalid value '{value}' for '--format' (expected 'text' or 'json')")
        cmd.fmt = value
    elif value in ("pencil", "c"):
        cmd.force_pencil = value == "pencil"
    else:
        raise UsageError(f"invalid language '{value}' for '-x' (expected 'pencil' or 'c')")


# ---------------------------------------------------------------------- inputs
def _input_problem(path: str) -> Optional[Diagnostic]:
    """Why `path` cannot be linted (missing, a directory, unreadable, binary), or None."""
    where = SourceLoc(path, 0, 0)
    if not os.path.exists(path):
        return Diagnostic("pencilcc-no-such-file", "error", where, "no such file or directory")
    if os.path.isdir(path):
        return Diagnostic("pencilcc-not-a-file", "error", where, "is a directory, not a C source file")
    try:
        with open(path, "rb") as f:
            sample = f.read(_SAMPLE_SIZE)
    except OSError as exc:
        return Diagnostic("pencilcc-unreadable", "error", where, f"cannot read file: {exc.strerror}")
    if b"\0" in sample:
        return Diagnostic("pencilcc-binary-file", "error", where, "is a binary file, not a C source file")
    return None


def _lint_file(path: str, cmd: LintCommand, engine: DiagnosticEngine) -> str:
    """Lints one file into `engine`; returns its status: compliant, noncompliant or failed."""
    problem = _input_problem(path)
    if problem is not None:
        engine.extend([problem])
        return "failed"
    result = parse_file(path, FrontendOptions(parser_args=tuple(cmd.parser_args),
                                              force_pencil=cmd.force_pencil))
    if result.module is None or not result.ok:
        engine.extend(d for d in result.diagnostics if d.severity in ("error", "fatal error"))
        if not any(d.severity in ("error", "fatal error") for d in result.diagnostics):
            engine.extend([Diagnostic("pencilcc-parse", "error", SourceLoc(path, 0, 0), "cannot parse file")])
        return "failed"
    before = sum(1 for d in engine.diagnostics if d.severity == "error")
    rules = frozenset(RULES) - cmd.disabled
    lint_module(result.module, engine, LintOptions(rules=rules))
    if not has_pencil_code(result.module):
        engine.report("pencilcc-no-pencil-code", "note", SourceLoc(path, 0, 0),
                      "no PENCIL function or '#pragma pencil region' in this file, nothing to check "
                      "(mark PENCIL functions with __attribute__((pencil)), or lint the file with -x pencil)")
    after = sum(1 for d in engine.diagnostics if d.severity == "error")
    return "noncompliant" if after > before else "compliant"


# ---------------------------------------------------------------------- output
def summary_line(errors: int, warnings: int) -> str:
    """clang's summary: '1 warning generated.', '2 errors generated.', '1 warning and 2 errors generated.'"""
    parts = []
    if warnings:
        parts.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
    if errors:
        parts.append(f"{errors} error{'s' if errors != 1 else ''}")
    return " and ".join(parts) + " generated." if parts else ""


def _emit_text(engine: DiagnosticEngine, stream: TextIO) -> None:
    color = hasattr(stream, "isatty") and stream.isatty()
    for d in engine.sorted():
        # clang's own diagnostics (a file that does not parse) keep clang's look, without an id;
        # so do notes, as in clang.
        show_id = not d.id.startswith("clang") and d.severity != "note"
        stream.write(render(d, show_id=show_id, color=color) + "\n")
    line = summary_line(engine.count("error") + engine.count("fatal error"), engine.count("warning"))
    if line:
        stream.write(line + "\n")


def _emit_json(engine: DiagnosticEngine, statuses: dict[str, str], stream: TextIO) -> None:
    document = {
        "version": 1,
        "files": [{"file": path, "status": status} for path, status in statuses.items()],
        "diagnostics": [d.as_json() for d in engine.sorted()],
        "summary": {"errors": engine.count("error") + engine.count("fatal error"),
                    "warnings": engine.count("warning")},
    }
    json.dump(document, stream, indent=2)
    stream.write("\n")


# ---------------------------------------------------------------------- entry points
def explain(rule_id: str, stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    """`pencilcc --lint-explain RULE`: prints the rule's explanation (exit 0, or 2 if unknown)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    rule = find_rule(rule_id)
    if rule is None:
        stderr.write(f"pencilcc: error: unknown lint rule '{rule_id}'; valid rules are:\n")
        stderr.write("".join(f"  {r.id}\n" for r in RULES.values()))
        return EXIT_FAILURE
    stdout.write(f"{rule.id}: {rule.title}\n\n")
    stdout.write(textwrap.fill(rule.explanation, width=78) + "\n\n")
    stdout.write(f"Severity: {rule.severity}"
                 + (" (promoted to an error by -Werror)" if rule.severity == "warning" else "")
                 + f". PENCIL definition: thesis section {rule.section}.\n")
    return EXIT_COMPLIANT


def run_lint(argv: list[str], stdout: Optional[TextIO] = None, stderr: Optional[TextIO] = None) -> int:
    """`pencilcc --lint ARGS`: lints every file; returns the exit status (0, 1 or 2)."""
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        try:
            cmd = parse_command(argv)
        except UsageError as exc:
            stderr.write(f"pencilcc: error: {exc}\n{USAGE}\n")
            return EXIT_FAILURE
        if cmd.help:
            stdout.write(USAGE + "\n")
            return EXIT_COMPLIANT
        if cmd.explain is not None:
            return explain(cmd.explain, stdout, stderr)
        if not cmd.files:
            stderr.write(f"pencilcc: error: no input files\n{USAGE}\n")
            return EXIT_FAILURE
        engine = DiagnosticEngine(werror=cmd.werror, disabled=cmd.disabled, errors=cmd.promoted)
        statuses = {path: _lint_file(path, cmd, engine) for path in cmd.files}
        if cmd.fmt == "json":
            _emit_json(engine, statuses, stdout)
        else:
            _emit_text(engine, stderr)
        if "failed" in statuses.values():
            return EXIT_FAILURE
        return EXIT_VIOLATIONS if "noncompliant" in statuses.values() else EXIT_COMPLIANT
    except BrokenPipeError:
        raise  # `pencilcc --lint --format=json f.c | head`: the driver stops quietly
    except Exception as exc:  # the CLI boundary: never a traceback
        stderr.write(f"pencilcc: internal error: {type(exc).__name__}: {exc}\n"
                     "pencilcc: please report this bug with the input file\n")
        return EXIT_FAILURE
