# SPDX-License-Identifier: MIT
"""Thread teams and the granularity model, end to end, against gcc -O0.

The kernels whose parallel loops sit inside sequential loops (adi's time loop, gramschmidt's tiles, the wavefronts of the tiled stencils, 3mm's
fused j loop) and the triangular ones (lu, cholesky, trmm, syrk) are built by
pencilcc -O3 at tiny sizes (1, 2, 3: loops of zero, one and two iterations,
teams where no thread gets work) and at odd prime sizes (no tile or chunk
divides them), run with PENCILCC_NUM_THREADS = 1, 2 and 3 (three threads on
this two-core machine: barriers wait for a thread that is not running), and
compared with the same program built by gcc -O0. `-fpencil-thread-min-work=0`
shares every parallel loop, whatever its size, so the barriers between thread 0's
code and the shared loops run on every iteration; the default build checks the
granularity model's run-time choice. The optimisation record must show the
team (`thread_teams`, `parallel_regions`) where one is expected.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from test_suite.bench.datasets import SIZES
from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass", "-O3"]
FORCE_THREADS = "-fpencil-thread-min-work=0"
THREADS = ("1", "2", "3")
# Kernels with a sequential loop around parallel loops, or (deriche) a sequence of parallel
# loops: the record must show one team.
# (durbin's k loop was one until its function-scope scalars became region locals: its relaxed
# schedule has no parallel loop left.)
TEAM_KERNELS = ("adi", "gramschmidt", "jacobi-2d", "fdtd-2d", "deriche")
KERNELS = (*TEAM_KERNELS, "durbin", "seidel-2d", "heat-3d", "lu", "cholesky", "trmm", "syrk", "trisolv",
           "floyd-warshall")
TINY = (3, 2, 1, 2, 3)
ODD = (37, 41, 29, 43, 31)


def _macros(kernel: str, values: tuple[int, ...]) -> list[str]:
    """-D flags giving the kernel's size macros `values` in turn (time steps kept short)."""
    names = [item.split("=")[0] for item in SIZES["small"][kernel].split()]
    flags = []
    for i, name in enumerate(names):
        value = values[i % len(values)]
        flags.append(f"-D{name}={min(value, 4) if name.startswith('T') else value}")
    return flags


def _pythonpath() -> dict[str, str]:
    return {"PYTHONPATH": os.pathsep.join(p for p in (str(harness.REPO_ROOT), os.environ.get("PYTHONPATH")) if p)}


def _check(tmp_path: Path, kernel: str, sizes: tuple[int, ...], extra: list[str]) -> dict:
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    flags = [*harness.KERNEL_CFLAGS, *_macros(kernel, sizes)]
    reference = harness.run(_reference(tmp_path, source, flags))
    exe = tmp_path / "candidate"
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [source], exe, [*flags, *extra, f"-foptimization-record-file={record}"],
                  env=_pythonpath(), timeout=300)
    for threads in THREADS:
        out = harness.run(exe, env={"OMP_NUM_THREADS": "2", "PENCILCC_NUM_THREADS": threads},
                          timeout=120)
        problems = harness.compare_outputs(reference, out, rtol=1e-9)
        assert not problems, (kernel, sizes, extra, threads, problems[:3])
    return json.loads(record.read_text())


def _reference(tmp_path: Path, source: Path, flags: list[str]) -> Path:
    exe = tmp_path / "reference"
    harness.build(["gcc", "-O0"], [source], exe, flags)
    return exe


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sizes", [TINY, ODD], ids=["tiny", "odd"])
def test_every_loop_on_threads_matches_gcc(tmp_path: Path, kernel: str, sizes: tuple[int, ...]) -> None:
    record = _check(tmp_path, kernel, sizes, [FORCE_THREADS])
    regions = record["regions"]
    assert regions and all(r["status"] == "optimized" for r in regions), regions
    if kernel in TEAM_KERNELS:
        assert sum(r["thread_teams"] for r in regions) >= 1, regions
    assert all(r["parallel_regions"] <= r["parallel_loops"] for r in regions), regions


@pytest.mark.parametrize("kernel", ["durbin", "adi", "lu"])
def test_granularity_model_matches_gcc(tmp_path: Path, kernel: str) -> None:
    _check(tmp_path, kernel, ODD, [])


def test_without_teams_every_parallel_loop_forks(tmp_path: Path) -> None:
    record = _check(tmp_path, "adi", ODD, [FORCE_THREADS, "--disable-pass=thread-team"])
    region, = record["regions"]
    assert region["thread_teams"] == 0 and region["parallel_regions"] == region["parallel_loops"] >= 2, region


@pytest.mark.parametrize("kernel", ["adi", "lu", "syrk"])
def test_pinned_teams_match_gcc(tmp_path: Path, kernel: str) -> None:
    # -fpencil-thread-pin (llvm_backend.cpu.affinity): every loop on threads, each thread bound to a
    # CPU while its team runs (1, 2 threads), none bound with 3 on a 2-CPU mask; same values.
    _check(tmp_path, kernel, ODD, [FORCE_THREADS, "-fpencil-thread-pin"])
