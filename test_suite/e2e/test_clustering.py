# SPDX-License-Identifier: MIT
"""Statement clustering end to end (thesis ch. 3, clangpass.passes.cluster_stmts).

Programs built with -fpencil-cluster=scc and =bb must print what gcc -O0 prints,
with the record saying the scheduler saw fewer statements; a 1,000-statement
generated region must compile `optimized`, in bounded time, with at most half
as many statements scheduled; an invalid -fpencil-cluster-decision is an error.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.random.large import stencil_chain, swim_like
from test_suite.unit.poly.test_clustering import FIG_3_1

PENCILCC = [sys.executable, "-m", "clangpass"]
THREE_ADDRESS = harness.KERNELS_DIR / "three_address"
KERNELS = [THREE_ADDRESS / "temporaries.c",
           *(THREE_ADDRESS / "polybench_3ac" / f"{name}.c" for name in ("gemm", "jacobi-2d", "fdtd-2d", "atax"))]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _build(source: Path, exe: Path, record: Path, *flags: str) -> dict[str, dict]:
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, "-O3", *flags,
                                            f"-foptimization-record-file={record}"])
    return {r["function"]: r for r in json.loads(record.read_text())["regions"]}


@pytest.mark.parametrize("heuristic", ["scc", "bb"])
@pytest.mark.parametrize("source", [pytest.param(k, id=k.stem) for k in KERNELS]
                         + [pytest.param("chain", id="chain60"), pytest.param("swim", id="swim30")])
def test_clustered_programs_match_gcc(tmp_path, source, heuristic):
    if source == "chain":
        source = _write(tmp_path, "chain.c", stencil_chain(60, size=12, per_stage=12))
    elif source == "swim":
        source = _write(tmp_path, "swim.c", swim_like(30, size=12))
    reference = harness.gcc_reference(source, tmp_path / "ref")
    regions = _build(source, tmp_path / "prog", tmp_path / "record.json", f"-fpencil-cluster={heuristic}")
    assert all(r["status"] == "optimized" for r in regions.values()), regions
    assert any(r["scheduled_statements"] < r["statements"] for r in regions.values())
    for r in regions.values():
        assert r["scheduled_statements"] <= r["statements"]
        assert r["dependences_after_clustering"] <= r["dependences_before_clustering"]
    for threads in ("1", "2"):
        got = harness.run(tmp_path / "prog", env={"OMP_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == []


def test_a_thousand_statement_region_is_optimized(tmp_path):
    source = _write(tmp_path, "big.c", stencil_chain(1000))
    record = tmp_path / "record.json"
    start = time.perf_counter()
    # The default options: 1,000 statements are within -fpencil-max-statements, and the analysis
    # (about 12 s of CPU time, docs/passes/clustering.md) within the time limit's safety net.
    harness.build(PENCILCC, [source], tmp_path / "big", [*harness.KERNEL_CFLAGS, "-O3",
                                                        f"-foptimization-record-file={record}"])
    elapsed = time.perf_counter() - start
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized", region["reason"]
    assert region["statements"] == 1000 and region["scheduled_statements"] <= 500
    assert region["nondeterministic"] == ""
    assert elapsed < 30
    reference = harness.gcc_reference(source, tmp_path / "ref")
    assert harness.compare_outputs(reference, harness.run(tmp_path / "big"), rtol=1e-9) == []


def test_an_invalid_decision_is_an_error(tmp_path):
    source = _write(tmp_path, "fig31.c", FIG_3_1)
    decision = _write(tmp_path, "decision.json", json.dumps({"f": [["S_0", "S_2"]]}))
    proc = subprocess.run([*PENCILCC, "-O3", "-c", str(source), "-o", str(tmp_path / "f.o"),
                           f"-fpencil-cluster-decision={decision}"], capture_output=True, text=True)
    assert proc.returncode == 1
    assert "error: invalid clustering decision for region 'f'" in proc.stderr and "through S_1" in proc.stderr
    _write(tmp_path, "decision.json", json.dumps({"f": [["S_0", "S_1"], ["S_2", "S_3"]]}))
    proc = subprocess.run([*PENCILCC, "-O3", "-c", str(source), "-o", str(tmp_path / "f.o"),
                           f"-fpencil-cluster-decision={decision}",
                           f"-foptimization-record-file={tmp_path / 'r.json'}"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    (region,) = json.loads((tmp_path / "r.json").read_text())["regions"]
    assert (region["clustering"], region["scheduled_statements"], region["dependences_after_clustering"]) == ("user", 2, 3)
    _write(tmp_path, "decision.json", "[[\"S_0\"")
    proc = subprocess.run([*PENCILCC, "-O3", "-c", str(source), "-o", str(tmp_path / "f.o"),
                           f"-fpencil-cluster-decision={decision}"], capture_output=True, text=True)
    assert proc.returncode != 0 and "is not JSON" in proc.stderr
