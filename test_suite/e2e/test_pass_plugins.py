# SPDX-License-Identifier: MIT
"""The sample out-of-tree pass (test_suite/plugins/pencilcc_sample_pass, pass `reverse-loops`)
through the driver: found by its entry point when -fpencil-passes= names it, imported by
-fpencil-pass-plugin=, its record in the optimisation record, its programs' output that of
gcc -O0, and the compile cache keyed by the pipeline. .ci/run installs the package; where it
is not installed these tests skip (pip install ./test_suite/plugins/pencilcc_sample_pass)."""
from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass.toolchain import host_cc

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pencilcc_sample_pass") is None,
    reason="the sample pass plugin is not installed: pip install ./test_suite/plugins/pencilcc_sample_pass")

PENCILCC = [sys.executable, "-m", "clangpass"]
# Two loop nests: one that carries no dependence (reversed) and a recurrence (kept).
SOURCE = Path(__file__).resolve().parents[1] / "plugins" / "reverse_loops.c"
NAMED = "extract,alias-check,dependences,live-ranges,schedule,reverse-loops,mark-parallel,codegen"


def _run(argv: list[str], cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> str:
    folder = tmp_path_factory.mktemp("reference")
    subprocess.run([*host_cc(), "-O0", str(SOURCE), "-o", "ref"], cwd=folder, check=True)
    return _run(["./ref"], folder).stdout


def _compile_and_run(flags: list[str], folder: Path, env: dict | None = None) -> tuple[str, dict, str]:
    """The program's output, its region's record and the compile's stderr."""
    got = _run([*PENCILCC, *flags, "-fsave-optimization-record=json", str(SOURCE), "-o", "prog"], folder, env)
    assert got.returncode == 0, got.stderr
    record = json.loads((folder / "prog.opt.json").read_text())["regions"]
    assert len(record) == 1
    return _run(["./prog"], folder).stdout, record[0], got.stderr


def test_a_named_pipeline_runs_the_entry_point_pass(tmp_path, reference):
    output, record, _ = _compile_and_run(["-O2", f"-fpencil-passes={NAMED}", "-fpencil-dump=schedule"], tmp_path,
                                         {"PENCILCC_NO_CACHE": "1"})
    assert output == reference
    assert record["status"] == "optimized" and record["reason"] == ""
    # One loop reversed: the outer member of the fused band; the recurrence on s carries a dependence.
    assert record["reversed_loops"] == 1


def test_the_schedule_dump_shows_the_reversed_loop(tmp_path):
    got = _run([*PENCILCC, "-O2", f"-fpencil-passes={NAMED}", "-fpencil-dump=schedule", "-c", str(SOURCE)],
               tmp_path, {"PENCILCC_NO_CACHE": "1"})
    assert got.returncode == 0, got.stderr
    before, _, after = got.stderr.partition(";; pencilcc schedule 'kernel#0' after reverse-loops")
    assert after, got.stderr
    assert "S_0[i, j] -> [(i - j)]" in before and "S_0[i, j] -> [(-i + j)]" in after


@pytest.mark.parametrize("level", ["-O2", "-O3"])
def test_a_plugin_module_joins_the_target_pipeline_after_schedule(tmp_path, reference, level):
    output, record, _ = _compile_and_run([level, "-fpencil-pass-plugin=pencilcc_sample_pass"], tmp_path,
                                         {"PENCILCC_NO_CACHE": "1"})
    assert output == reference
    assert record["reversed_loops"] == 1 and record["reason"] == ""     # verify-schedule kept it
    listing = _run([*PENCILCC, level, "-fpencil-pass-plugin=pencilcc_sample_pass", "--print-passes"], tmp_path)
    assert ",schedule,reverse-loops,keep-streams," in listing.stdout


def test_an_installed_plugin_changes_nothing_it_is_not_asked_for(tmp_path, reference):
    output, record, _ = _compile_and_run(["-O3"], tmp_path, {"PENCILCC_NO_CACHE": "1"})
    assert output == reference and "reversed_loops" not in record


def test_the_cache_tells_pipelines_apart(tmp_path, reference):
    env = {"PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    without = [f"-fpencil-passes={NAMED.replace(',reverse-loops', '')}"]
    _, record, err = _compile_and_run(["-O2", "-v", *without], tmp_path, env)
    assert "cache miss" in err and "reversed_loops" not in record
    _, record, err = _compile_and_run(["-O2", "-v", *without], tmp_path, env)
    assert "cache hit" in err
    output, record, err = _compile_and_run(["-O2", "-v", f"-fpencil-passes={NAMED}"], tmp_path, env)
    assert "cache miss" in err and record["reversed_loops"] == 1 and output == reference
