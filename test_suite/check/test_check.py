# SPDX-License-Identifier: MIT
"""Check tests: `test_suite/check/<pass>/*.c` with `// RUN:` lines checked by FileCheck.

Each RUN line is a shell pipeline, run in the repository's root; `%pencilcc` is the compiler
(`python -m clangpass`), `%python` the Python that runs the tests (for fault injection:
replace_schedule.py), `%s` the test file and `%t` a path in a private temporary directory. The lines of
a RUN command that end with `\\` continue on the next RUN line.
"""
from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TESTS = sorted(HERE.glob("*/*.c"))


def run_lines(path: Path) -> list[str]:
    commands: list[str] = []
    pending = ""
    for line in path.read_text().splitlines():
        marker = line.find("RUN:")
        if marker < 0 or not line[:marker].strip().startswith("//"):
            continue
        text = line[marker + 4:].strip()
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append(pending + text)
        pending = ""
    return commands


@pytest.mark.parametrize("path", TESTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_check(path: Path, tmp_path: Path):
    commands = run_lines(path)
    assert commands, f"{path} has no RUN line"
    for command in commands:
        command = (command.replace("%pencilcc", f"{shlex.quote(sys.executable)} -m clangpass")
                   .replace("%python", shlex.quote(sys.executable))
                   .replace("%s", shlex.quote(str(path))).replace("%t", shlex.quote(str(tmp_path / "t"))))
        done = subprocess.run(["bash", "-o", "pipefail", "-c", command], cwd=REPO, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
