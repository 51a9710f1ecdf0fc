# SPDX-License-Identifier: MIT
"""Three-address PENCIL code (temporaries declared in loop bodies) through relax-false-deps.

The kernels of test_suite/kernels/three_address are only tileable/parallel when
the false dependences of their temporaries are relaxed (thesis ch. 2). Each build
must print what gcc -O0 prints, with 1 and 2 threads, and the optimisation
record must show the parallel loops the relaxation enables (and none where a
temporary's value leaves the loop).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.REPO_ROOT / "test_suite" / "kernels" / "three_address" / "temporaries.c"
PARALLEL_WHEN_RELAXED = {"matmul_local_sum", "blend", "smooth", "two_passes"}
# Functions whose loops must not all run on threads because a local value leaves one.
SEQUENTIAL_LOOPS = {"last_value": 0, "stage_through_local": 1}


def _build(tmp_path: Path, *flags: str) -> tuple[Path, dict[str, dict]]:
    exe = tmp_path / "prog"
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [SOURCE], exe, [*flags, f"-foptimization-record-file={record}"])
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    return exe, regions


@pytest.mark.parametrize("level", ["-O0", "-O3"])
def test_three_address_kernels_match_gcc(tmp_path, level):
    reference = harness.gcc_reference(SOURCE, tmp_path / "ref")
    exe, regions = _build(tmp_path, level)
    assert {name: r["status"] for name, r in regions.items()} == dict.fromkeys(
        PARALLEL_WHEN_RELAXED | set(SEQUENTIAL_LOOPS), "optimized")
    for threads in ("1", "2"):
        got = harness.run(exe, env={"OMP_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == []
    if level == "-O3":
        assert all(regions[name]["parallel_loops"] >= 1 for name in PARALLEL_WHEN_RELAXED)
        assert {name: regions[name]["parallel_loops"] for name in SEQUENTIAL_LOOPS} == SEQUENTIAL_LOOPS


def test_without_relaxation_the_temporaries_serialise_every_loop(tmp_path):
    _, regions = _build(tmp_path, "-O3", "--disable-pass=relax-false-deps")
    assert all(r["status"] == "optimized" for r in regions.values())
    assert all(regions[name]["parallel_loops"] == 0 for name in PARALLEL_WHEN_RELAXED)
