# SPDX-License-Identifier: MIT
"""pencilcc as a drop-in cc: files without PENCIL code, host-only modes, bad input, outputs.

Each test runs the real `pencilcc` command (as `python -m clangpass`) and the
host compiler on the same input and compares what they print and produce.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass.toolchain import host_cc

PENCILCC = [sys.executable, "-m", "clangpass"]
CC = host_cc()

PLAIN_C = r"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { int value; struct node *next; };

static struct node *push(struct node *head, int value)
{
    struct node *n = malloc(sizeof *n);
    if (!n)
        exit(1);
    n->value = value;
    n->next = head;
    return n;
}

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static const char *kind(int v)
{
    switch (v % 3) {
    case 0: return "fizz";
    case 1: return "one";
    default: return "two";
    }
}

int main(int argc, char **argv)
{
    int unused_here;
    struct node *list = NULL;
    char buffer[32];
    for (int i = 0; i < 10; i++)
        list = push(list, fib(i));
    for (struct node *p = list; p; p = p->next)
        printf("%d %s\n", p->value, kind(p->value));
    strcpy(buffer, argc > 5 ? argv[1] : "done");
    puts(buffer);
    while (list) {
        struct node *next = list->next;
        free(list);
        list = next;
    }
    return 0;
}
"""


def run(cmd: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "PENCILCC_NO_CACHE": "1", **(env or {})}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=full_env, timeout=120)


def normalise(stderr: str, program: str) -> str:
    return stderr.replace(program, "<cc>").replace("pencilcc", "<cc>")


@pytest.fixture()
def plain(tmp_path: Path) -> Path:
    (tmp_path / "plain.c").write_text(PLAIN_C)
    return tmp_path


def test_plain_program_same_warnings_and_output(plain: Path) -> None:
    flags = ["-std=c99", "-O2", "-Wall", "-Wextra"]
    ref = run([*CC, *flags, "plain.c", "-o", "ref"], plain)
    got = run([*PENCILCC, *flags, "plain.c", "-o", "got"], plain)
    assert ref.returncode == 0 and got.returncode == 0
    assert "unused_here" in ref.stderr
    assert normalise(got.stderr, CC[0]) == normalise(ref.stderr, CC[0])
    assert got.stdout == ref.stdout == ""
    out_ref = subprocess.run([str(plain / "ref")], capture_output=True, text=True).stdout
    out_got = subprocess.run([str(plain / "got")], capture_output=True, text=True).stdout
    assert out_got == out_ref and "done" in out_got


def test_plain_object_is_the_hosts_object(plain: Path) -> None:
    flags = ["-std=c99", "-O1", "-g", "-c", "plain.c"]
    assert run([*CC, *flags, "-o", "ref.o"], plain).returncode == 0
    got = run([*PENCILCC, *flags, "-o", "got.o"], plain)
    assert got.returncode == 0, got.stderr
    assert (plain / "got.o").read_bytes() == (plain / "ref.o").read_bytes()


def test_default_object_name_and_several_inputs(plain: Path) -> None:
    (plain / "other.c").write_text("int other(void) { return 4; }\n")
    proc = run([*PENCILCC, "-c", "plain.c", "other.c"], plain)
    assert proc.returncode == 0, proc.stderr
    assert (plain / "plain.o").is_file() and (plain / "other.o").is_file()
    link = run([*PENCILCC, "plain.o", "other.o", "-o", "prog"], plain)
    assert link.returncode == 0 and (plain / "prog").is_file()
    assert os.access(plain / "prog", os.X_OK)


@pytest.mark.parametrize("mode", [["-E"], ["-E", "-P", "-DX=3"], ["-fsyntax-only", "-Wall"],
                                  ["-M"], ["-MM", "-MP"]])
def test_host_only_modes_are_identical(plain: Path, mode: list[str]) -> None:
    ref = run([*CC, *mode, "plain.c"], plain)
    got = run([*PENCILCC, *mode, "plain.c"], plain)
    assert (got.returncode, got.stdout) == (ref.returncode, ref.stdout)
    assert normalise(got.stderr, CC[0]) == normalise(ref.stderr, CC[0])


def test_syntax_only_reports_errors_like_cc(tmp_path: Path) -> None:
    (tmp_path / "bad.c").write_text("int main(void)\n{\n  return missing;\n}\n")
    ref = run([*CC, "-fsyntax-only", "bad.c"], tmp_path)
    got = run([*PENCILCC, "-fsyntax-only", "bad.c"], tmp_path)
    assert got.returncode == ref.returncode != 0
    assert normalise(got.stderr, CC[0]) == normalise(ref.stderr, CC[0])
    assert "bad.c:3:" in got.stderr


def test_pencil_parts_of_unparseable_file_warn_and_fall_back(tmp_path: Path) -> None:
    # Valid for gcc (nested function), not for clang: the host compiles it unchanged.
    (tmp_path / "nested.c").write_text(
        "int outer(int n)\n{\n  int inner(int x) { return x + n; }\n  int s = 0;\n"
        "#pragma scop\n  for (int i = 0; i < n; i++)\n    s += inner(i);\n#pragma endscop\n"
        "  return s;\n}\n")
    got = run([*PENCILCC, "-c", "nested.c", "-o", "nested.o"], tmp_path)
    assert got.returncode == 0, got.stderr
    assert "warning: PENCIL code not optimized" in got.stderr and "clang cannot parse it" in got.stderr
    assert (tmp_path / "nested.o").is_file()
    quiet = run([*PENCILCC, "-Wno-pencil", "-c", "nested.c", "-o", "nested.o"], tmp_path)
    assert quiet.returncode == 0 and quiet.stderr == ""


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("name, content, message", [
    ("missing.c", None, "missing.c: No such file or directory"),
    # The host compiler decides about bytes it cannot compile, as cc alone would.
    ("binary.c", b"\x7fELF\x00\x01\x02int main", "binary.c:1:1: error:"),
    ("badc.c", b"int main(void) { return undeclared_thing; }\n", "undeclared_thing"),
    ("badpencil.c", b"void f(int n, double A[static const restrict n]) {\n"
                    b"#pragma scop\n  A[0] = nope;\n#pragma endscop\n}\n", "nope"),
])
@pytest.mark.parametrize("mode", [["-c"], []])
def test_bad_input_leaves_outputs_alone(tmp_path: Path, name, content, message, mode) -> None:
    if content is not None:
        (tmp_path / name).write_bytes(content)
    out = tmp_path / "out"
    out.write_text("previous output\n")
    before = out.stat()
    got = run([*PENCILCC, *mode, name, "-o", "out"], tmp_path)
    assert got.returncode != 0
    assert message in got.stderr
    assert "Traceback" not in got.stderr
    assert out.read_text() == "previous output\n" and out.stat().st_mtime_ns == before.st_mtime_ns
    fresh = run([*PENCILCC, *mode, name, "-o", "fresh"], tmp_path)
    assert fresh.returncode != 0 and not (tmp_path / "fresh").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [*([name] if content is not None else []), "out"])


def test_unknown_output_directory_is_a_clear_error(plain: Path) -> None:
    got = run([*PENCILCC, "-c", "plain.c", "-o", "no/such/dir/x.o"], plain)
    assert got.returncode != 0 and "Traceback" not in got.stderr
    assert "no/such/dir" in got.stderr


def test_output_is_replaced_atomically(plain: Path) -> None:
    out = plain / "plain.o"
    out.write_text("old")
    os.link(out, plain / "hardlink")
    got = run([*PENCILCC, "-c", "plain.c"], plain)
    assert got.returncode == 0
    # The old file was renamed over, not rewritten in place: the other link still sees it.
    assert (plain / "hardlink").read_text() == "old"
    assert out.read_bytes()[:4] == b"\x7fELF"
    assert sorted(p.name for p in plain.iterdir()) == ["hardlink", "plain.c", "plain.o"]


def test_dev_null_output_is_written_in_place(plain: Path) -> None:
    got = run([*PENCILCC, "-c", "plain.c", "-o", os.devnull], plain)
    assert got.returncode == 0, got.stderr
    assert Path(os.devnull).is_char_device()


def test_response_file_end_to_end(plain: Path) -> None:
    (plain / "args.rsp").write_text("-std=c99 '-DGREETING=\"hi there\"'\n-c plain.c -o 'obj file.o'\n")
    got = run([*PENCILCC, "@args.rsp"], plain)
    assert got.returncode == 0, got.stderr
    assert (plain / "obj file.o").is_file()


def test_standard_input_goes_to_the_host(tmp_path: Path) -> None:
    got = subprocess.run([*PENCILCC, "-x", "c", "-", "-o", "prog"], cwd=tmp_path, capture_output=True,
                         text=True, input="int main(void) { return 3; }\n", timeout=120)
    assert got.returncode == 0, got.stderr
    assert subprocess.run([str(tmp_path / "prog")]).returncode == 3


def test_no_input_files_is_the_hosts_error(tmp_path: Path) -> None:
    got = run([*PENCILCC], tmp_path)
    assert got.returncode != 0 and "no input files" in got.stderr


# ----------------------------------------------------------------------------- information
def test_version(tmp_path: Path) -> None:
    got = run([*PENCILCC, "--version"], tmp_path)
    lines = got.stdout.splitlines()
    assert got.returncode == 0
    assert lines[0].startswith("pencilcc ") and "(" in lines[0]
    host_first = subprocess.run([*CC, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    assert host_first in lines[1]


def test_help_is_complete(tmp_path: Path) -> None:
    got = run([*PENCILCC, "--help"], tmp_path)
    assert got.returncode == 0
    text = got.stdout
    for heading in ("Usage:", "Examples:", "Overall options", "PENCIL/polyhedral options", "Diagnostics:",
                    "Dumps", "Linter:", "Build-system helpers:", "Environment:"):
        assert heading in text, heading
    for flag in ("-fpencil-dump=", "-fpencil-dump-dir=", "--dump-ir", "--tile-size=", "-fno-pencil-parallel",
                 "-fpencil-fusion=", "--disable-pass=", "--dump-before=", "--dump-after=", "-ftime-report",
                 "-fsave-optimization-record", "-foptimization-record-file=", "-Rpass=pencil",
                 "-Rpass-missed=pencil", "-Wno-pencil", "-Werror=pencil", "--keep", "--print-include-dir",
                 "--cmake-dir", "--show-cc-args=", "--show-listsep=", "--lint", "--lint-explain",
                 "PENCILCC_CC", "PENCILCC_CACHE_DIR", "PENCILCC_CACHE_KEY_FILE", "PENCILCC_NO_CACHE",
                 "PENCILCC_DEBUG", "-MMD", "@FILE"):
        assert flag in text, flag
    assert max(len(line) for line in text.splitlines()) <= 79


def test_resource_queries(tmp_path: Path) -> None:
    inc = run([*PENCILCC, "--print-include-dir"], tmp_path).stdout.strip()
    assert (Path(inc) / "pencil.h").is_file()
    assert Path(run([*PENCILCC, "--cmake-dir"], tmp_path).stdout.strip()).is_dir()
    dirs = run([*PENCILCC, "--show-cc-args=INCLUDE_DIRS", "--show-listsep=;"], tmp_path).stdout.strip()
    assert inc in dirs.split(";")
    assert run([*PENCILCC, "--show-cc-args=DEFFLAGS"], tmp_path).returncode == 0


def test_pencil_h_is_found_without_flags(tmp_path: Path) -> None:
    (tmp_path / "uses.c").write_text("#include <pencil.h>\nint main(void) { return 0; }\n")
    got = run([*PENCILCC, "-std=c99", "uses.c", "-o", "uses"], tmp_path)
    assert got.returncode == 0, got.stderr


def test_python_module_entry_is_the_console_script(tmp_path: Path) -> None:
    script = subprocess.run(["pencilcc", "--version"], capture_output=True, text=True)
    module = run([*PENCILCC, "--version"], tmp_path)
    assert script.stdout == module.stdout
