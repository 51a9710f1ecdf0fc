# SPDX-License-Identifier: MIT
"""`pencilcc --lint` / `--lint-explain`: output format, exit codes, options, input errors."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from clangpass.lint import cli
from clangpass.lint.cli import explain, run_lint, summary_line
from clangpass.lint.rules import RULES
from snippet_harness import SNIPPETS

COMPLIANT = """\
#include <pencil.h>
PENCIL void k(int n, double A[pencil_array n])
{
    for (int i = 0; i < n; i++)
        A[i] = 2.0 * A[i];
}
"""

WITH_GOTO = """\
#include <pencil.h>
PENCIL void k(int n, double A[pencil_array n])
{
    if (n < 1)
        goto out;
    A[0] = 1.0;
out:
    A[n - 1] = 0.0;
}
"""

LINEARISED = """\
#include <pencil.h>
PENCIL void k(int n, double A[pencil_array n * n])
{
    for (int i = 0; i < n; i++)
        A[i * n] = 0.0;
}
"""


def lint(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = run_lint(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def write(tmp_path: Path, source: str, name: str = "k.c") -> str:
    path = tmp_path / name
    path.write_text(source)
    return str(path)


# ---------------------------------------------------------------------- text output and exit codes
def test_compliant_file_exits_0_and_prints_nothing(tmp_path):
    assert lint(write(tmp_path, COMPLIANT)) == (0, "", "")


def test_violation_exits_1_with_clang_style_diagnostics(tmp_path):
    path = write(tmp_path, WITH_GOTO)
    status, out, err = lint(path)
    assert status == 1 and out == ""
    assert err.splitlines() == [
        f"{path}:5:9: error: 'goto out' is not allowed in PENCIL [pencil-goto]",
        "        goto out;",
        "        ^",
        f"{path}:7:1: error: label 'out' is not allowed in PENCIL (labels are only targets of goto) [pencil-goto]",
        "out:",
        "^",
        "2 errors generated.",
    ]


def test_notes_follow_their_diagnostic(tmp_path):
    status, _, err = lint(str(SNIPPETS / "recursion.bad.c"))
    lines = err.splitlines()
    assert status == 1
    first = next(i for i, line in enumerate(lines) if "recursive call to 'count_down'" in line)
    assert lines[first + 3].endswith(": note: call cycle: count_down -> count_down")
    assert lines[-1] == "3 errors generated."


def test_unknown_reduction_operator_is_a_diagnostic_not_an_internal_error(tmp_path):
    path = write(tmp_path, """\
#include <pencil.h>
PENCIL void f(int n, double A[pencil_array n], double out[pencil_array 1])
{
    double s = 1.0;
#pragma pencil independent reduction(/: s)
    for (int i = 0; i < n; i++)
        s /= A[i];
    out[0] = s;
}
""")
    status, out, err = lint(path)
    assert (status, out) == (1, "")
    assert err.splitlines() == [
        f"{path}:5:38: error: invalid reduction operator '/' (expected one of + - * min max & | ^ && ||) [pencil-pragma]",
        "#pragma pencil independent reduction(/: s)",
        "                                     ^",
        "1 error generated.",
    ]
    for clause, col, message in (
            ("reduction(: s)", 38, "expected a reduction operator (one of + - * min max & | ^ && ||) before ':'"),
            ("reduction(+ s)", 40, "expected ':' after the reduction operator"),
            ("reduction(+:)", 28, "reduction clause names no variable")):
        odd = write(tmp_path, Path(path).read_text().replace("reduction(/: s)", clause), "odd.c")
        status, _, err = lint(odd)
        assert status == 1 and "internal error" not in err
        assert err.splitlines()[0] == f"{odd}:5:{col}: error: {message} [pencil-pragma]"
        assert err.splitlines()[-1] == "1 error generated."


def test_global_and_bitfield_errors_have_a_note_at_the_declaration(tmp_path):
    path = write(tmp_path, """\
#include <pencil.h>
struct flags { int value; unsigned dirty : 1; };
int counter;
PENCIL void k(int n, struct flags F[pencil_array n])
{
    counter = n;
}
""")
    status, _, err = lint(path)
    assert status == 1
    assert err.splitlines() == [
        f"{path}:4:35: error: parameter 'F' has type 'struct flags[static const restrict n]', whose field "
        "'dirty' is a bit-field of width 1; PENCIL has no bit-fields [pencil-bitfield]",
        "PENCIL void k(int n, struct flags F[pencil_array n])",
        "                                  ^",
        f"{path}:2:36: note: field 'dirty' is declared here",
        "struct flags { int value; unsigned dirty : 1; };",
        "                                   ^",
        f"{path}:6:5: error: PENCIL code uses non-const global variable 'counter' [pencil-global]",
        "    counter = n;",
        "    ^",
        f"{path}:3:5: note: 'counter' is declared here",
        "int counter;",
        "    ^",
        "2 errors generated.",
    ]


NO_PENCIL_NOTE = ("note: no PENCIL function or '#pragma pencil region' in this file, nothing to check "
                  "(mark PENCIL functions with __attribute__((pencil)), or lint the file with -x pencil)")


def test_file_without_pencil_code_gets_a_note_and_exits_0(tmp_path):
    plain = write(tmp_path, "int twice(int x) { return 2 * x; }\n", "plain.c")
    assert lint(plain) == (0, "", f"{plain}: {NO_PENCIL_NOTE}\n")
    status, out, _ = lint("--format=json", plain)
    assert status == 0
    (note,) = json.loads(out)["diagnostics"]
    assert (note["severity"], note["id"], note["file"]) == ("note", "pencilcc-no-pencil-code", plain)
    # PENCIL code (a PENCIL function, a pencil region, -x pencil) means no note.
    region = write(tmp_path, "int f(int n) {\n  int a[4];\n#pragma pencil region\n  { a[0] = n; }\n  return a[0];\n}\n", "region.c")
    assert lint(write(tmp_path, COMPLIANT), region) == (0, "", "")
    assert lint("-x", "pencil", plain) == (0, "", "")
    # With several files, the note names the one without PENCIL code.
    status, _, err = lint(plain, write(tmp_path, WITH_GOTO))
    assert status == 1 and f"\n{plain}: {NO_PENCIL_NOTE}\n" in err
    assert err.count("note: no PENCIL function") == 1 and err.endswith("2 errors generated.\n")


def test_warnings_alone_exit_0(tmp_path):
    path = write(tmp_path, LINEARISED)
    status, _, err = lint(path)
    assert status == 0
    assert err.splitlines() == [
        f"{path}:5:11: warning: subscript 'i * n' of 'A' looks linearised ('i * n' multiplies an iterator "
        "by a non-constant); declare 'A' as a multi-dimensional array and index each dimension "
        "[pencil-linearized-subscript]",
        "        A[i * n] = 0.0;",
        "          ^",
        "1 warning generated.",
    ]


def test_werror_turns_warnings_into_errors(tmp_path):
    path = write(tmp_path, LINEARISED)
    status, _, err = lint("-Werror", path)
    assert status == 1
    assert f"{path}:5:11: error: subscript" in err and err.splitlines()[-1] == "1 error generated."
    assert lint("-Werror=pencil-linearized-subscript", path)[0] == 1
    assert lint("-Werror=pencil-nonaffine-subscript", path)[0] == 0


def test_wno_disables_a_warning_rule(tmp_path):
    path = write(tmp_path, LINEARISED)
    assert lint("-Wno-pencil-linearized-subscript", path) == (0, "", "")
    assert lint("-Wno-linearized-subscript", "-Werror", path) == (0, "", "")
    assert lint("-w", "-Werror", path) == (0, "", "")


def test_wno_refuses_error_rules_and_unknown_pencil_rules(tmp_path):
    path = write(tmp_path, WITH_GOTO)
    status, _, err = lint("-Wno-pencil-goto", path)
    assert status == 2 and "cannot be disabled" in err
    status, _, err = lint("-Wno-pencil-nonsense", path)
    assert status == 2 and "unknown lint rule 'pencil-nonsense'" in err


def test_compile_flags_are_accepted(tmp_path):
    path = write(tmp_path, COMPLIANT)
    assert lint("-O2", "-g", "-Wall", "-Wno-unused-variable", "-fPIC", "-march=native", "-std=c99",
                "-pedantic", path)[0] == 0


def test_summary_line_follows_clang():
    assert summary_line(0, 0) == ""
    assert summary_line(1, 0) == "1 error generated."
    assert summary_line(2, 0) == "2 errors generated."
    assert summary_line(0, 1) == "1 warning generated."
    assert summary_line(2, 3) == "3 warnings and 2 errors generated."


# ---------------------------------------------------------------------- JSON
def test_json_document_has_files_diagnostics_and_summary(tmp_path):
    bad = write(tmp_path, WITH_GOTO, "bad.c")
    good = write(tmp_path, LINEARISED, "good.c")
    status, out, err = lint("--format=json", bad, good)
    assert status == 1 and err == ""
    doc = json.loads(out)
    assert doc["version"] == 1
    assert doc["files"] == [{"file": bad, "status": "noncompliant"}, {"file": good, "status": "compliant"}]
    assert doc["summary"] == {"errors": 2, "warnings": 1}
    first = doc["diagnostics"][0]
    assert first == {"id": "pencil-goto", "severity": "error", "file": bad, "line": 5, "column": 9,
                     "message": "'goto out' is not allowed in PENCIL"}
    assert {d["id"] for d in doc["diagnostics"]} == {"pencil-goto", "pencil-linearized-subscript"}


def test_json_includes_notes(tmp_path):
    status, out, _ = lint("--format", "json", str(SNIPPETS / "recursion.bad.c"))
    doc = json.loads(out)
    assert status == 1
    assert doc["diagnostics"][0]["notes"][0]["message"] == "call cycle: count_down -> count_down"


def test_unknown_format_is_a_usage_error(tmp_path):
    status, _, err = lint("--format=xml", write(tmp_path, COMPLIANT))
    assert status == 2 and "invalid value 'xml'" in err and "usage:" in err


# ---------------------------------------------------------------------- --lint-explain
@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_explain_prints_every_rule(rule_id):
    out, err = io.StringIO(), io.StringIO()
    assert explain(rule_id, out, err) == 0
    text = out.getvalue()
    rule = RULES[rule_id]
    assert text.startswith(f"{rule_id}: {rule.title}\n")
    assert " ".join(text.split()).count(" ".join(rule.explanation.split()[:12])) == 1
    assert f"Severity: {rule.severity}" in text and err.getvalue() == ""


def test_explain_through_run_lint_and_without_prefix():
    status, out, _ = lint("--lint-explain", "for-step")
    assert status == 0 and out.startswith("pencil-for-step:")
    status, out, _ = lint("--lint-explain=pencil-union")
    assert status == 0 and out.startswith("pencil-union:")


def test_explain_unknown_rule_lists_the_valid_ids():
    out, err = io.StringIO(), io.StringIO()
    assert explain("pencil-bogus", out, err) == 2
    assert out.getvalue() == ""
    assert "unknown lint rule 'pencil-bogus'" in err.getvalue()
    assert all(rule_id in err.getvalue() for rule_id in RULES)


# ---------------------------------------------------------------------- input and usage errors
def test_missing_file_exits_2(tmp_path):
    missing = str(tmp_path / "nope.c")
    status, _, err = lint(missing)
    assert status == 2
    assert f"{missing}: error: no such file or directory" in err


def test_directory_exits_2(tmp_path):
    status, _, err = lint(str(tmp_path))
    assert status == 2 and "is a directory" in err


def test_binary_file_exits_2(tmp_path):
    path = tmp_path / "blob.c"
    path.write_bytes(b"\x7fELF\x02\x01\x01\x00\x00\x00garbage\x00\xff\xfe")
    status, _, err = lint(str(path))
    assert status == 2 and "binary file" in err


@pytest.mark.skipif(os.geteuid() == 0, reason="root can read any file")
def test_unreadable_file_exits_2(tmp_path):
    path = tmp_path / "secret.c"
    path.write_text(COMPLIANT)
    path.chmod(0)
    status, _, err = lint(str(path))
    assert status == 2 and "cannot read file" in err


def test_unparseable_c_exits_2_with_clangs_diagnostics(tmp_path):
    path = write(tmp_path, "void f(void) {\n  int x = ;\n}\n")
    status, _, err = lint(path)
    assert status == 2
    assert f"{path}:2:11: error: expected expression" in err
    assert "[clang" not in err


def test_unknown_option_and_no_input_are_usage_errors(tmp_path):
    status, _, err = lint("--frobnicate", write(tmp_path, COMPLIANT))
    assert status == 2 and "unknown option '--frobnicate'" in err
    status, _, err = lint()
    assert status == 2 and "no input files" in err
    status, _, err = lint("-x", "fortran", write(tmp_path, COMPLIANT))
    assert status == 2 and "invalid language 'fortran'" in err


def test_a_failed_file_makes_the_whole_run_exit_2(tmp_path):
    good = write(tmp_path, COMPLIANT, "good.c")
    bad = write(tmp_path, WITH_GOTO, "bad.c")
    assert lint(good, bad)[0] == 1
    assert lint(good, bad, str(tmp_path / "missing.c"))[0] == 2


# ---------------------------------------------------------------------- preprocessor flags
def test_preprocessor_flags_reach_the_parser(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "dims.h").write_text("#define LEN 16\n")
    path = write(tmp_path, textwrap.dedent("""\
        #include <pencil.h>
        #include "dims.h"
        PENCIL void k(double A[pencil_array LEN])
        {
        #ifdef UNROLLED
            goto done;
        #endif
            for (int i = 0; i < LEN; i++)
                A[i] = 0.0;
        #ifdef UNROLLED
        done:
            A[0] = 1.0;
        #endif
        }
        """), "dims.c")
    assert lint(path)[0] == 2  # dims.h not found
    assert lint("-I", str(tmp_path / "inc"), path)[0] == 0
    assert lint(f"-I{tmp_path / 'inc'}", "-DUNROLLED", path)[0] == 1
    assert lint(f"-I{tmp_path / 'inc'}", "-DUNROLLED", "-UUNROLLED", path)[0] == 0


def test_x_pencil_makes_every_function_pencil(tmp_path):
    path = write(tmp_path, "int f(int *p) { return p[0]; }\n")
    assert lint(path)[0] == 0
    status, _, err = lint("-x", "pencil", path)
    assert status == 1 and "[pencil-pointer]" in err
    assert lint("-xpencil", "-xc", path)[0] == 0


def test_x_pencil_reports_a_union_the_file_declares(tmp_path):
    path = write(tmp_path, "union bits { int i; float f; };\nint twice(int x) { return 2 * x; }\n")
    status, _, err = lint(path)
    assert status == 0 and "[pencil-union]" not in err
    status, _, err = lint("-x", "pencil", path)
    assert status == 1
    assert err.splitlines() == [
        f"{path}:1:1: error: PENCIL file declares union 'bits'; PENCIL has no unions [pencil-union]",
        "union bits { int i; float f; };",
        "^",
        "1 error generated.",
    ]


# ---------------------------------------------------------------------- robustness
def test_internal_error_is_reported_without_traceback(tmp_path, monkeypatch):
    def explode(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(cli, "lint_module", explode)
    status, _, err = lint(write(tmp_path, COMPLIANT))
    assert status == 2
    assert "pencilcc: internal error: RuntimeError: boom" in err and "Traceback" not in err


def test_command_line_entry_has_no_traceback_and_the_right_status(tmp_path):
    code = "import sys; from clangpass.lint.cli import run_lint; sys.exit(run_lint(sys.argv[1:]))"
    repo = Path(__file__).resolve().parents[3]
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    for source, expected in ((COMPLIANT, 0), (WITH_GOTO, 1)):
        done = subprocess.run([sys.executable, "-c", code, write(tmp_path, source)],
                              capture_output=True, text=True, env=env, timeout=120)
        assert done.returncode == expected and "Traceback" not in done.stderr
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "missing.c")],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2 and "Traceback" not in done.stderr


def test_a_closed_pipe_is_not_an_internal_error(tmp_path):
    # `pencilcc --lint --format=json f.c | head -1`: the reader went away; stop quietly as the
    # driver does for `pencilcc --help | head`, not with "internal error: BrokenPipeError".
    source = write(tmp_path, WITH_GOTO)
    proc = subprocess.Popen([sys.executable, "-m", "clangpass", "--lint", "--format=json", source],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PENCILCC_NO_CACHE": "1"})
    proc.stdout.close()   # before the linter writes: its write finds no reader
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 1 and err == ""
