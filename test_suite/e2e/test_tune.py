# SPDX-License-Identifier: MIT
"""pencilcc-tune (clangpass.driver.tune) and the tuning cache (clangpass.tuning): with a tiny
budget the tuner builds and runs gemm, caches sizes for this machine's device, and the next
plain build uses them (`tile_sizes_from`: tuned) and still prints what gcc -O0's build prints.
Which sizes win is not checked (timings on a shared machine decide it): only that the choice
is one the search tried and that the compiler uses it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass import tuning
from clangpass.driver.tune import plausible
from clangpass.tile_spec import TileSizeRule
from test_suite.e2e import harness

GEMM = harness.POLYBENCH_DIR / "gemm.c"
TUNE = [sys.executable, "-m", "clangpass.driver.tune"]


def _env(tmp_path: Path) -> dict:
    return {**os.environ, "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}


def _tune(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*TUNE, *args], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                          timeout=900)


def _entries(tmp_path: Path, target: str) -> dict:
    files = list((tmp_path / "cache" / "tuned").glob(f"{target}-*.json"))
    assert len(files) == 1, files
    doc = json.loads(files[0].read_text())
    assert doc["target"] == target and doc["device"] == tuning.device_name(target)
    return doc["regions"]


def _record(tmp_path: Path, name: str, flags: list[str]) -> dict:
    record = tmp_path / f"{name}.json"
    subprocess.run([sys.executable, "-m", "clangpass", "-O3", *harness.KERNEL_CFLAGS, *flags, "gemm.c", "-o", name,
                    f"-foptimization-record-file={record}", "-lm"], cwd=tmp_path, env=_env(tmp_path), check=True,
                   capture_output=True, text=True)
    return json.loads(record.read_text())["regions"][0]


def test_cache_round_trip_and_file_identity(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path))
    source = b"void f(void) {}\n"
    assert tuning.tuned_rules(source, "cpu") == ()
    tuning.store("cpu", tuning.cpu_name(), source, "f#1", {"bands": {0: (8, 16), 2: (4,)}, "seconds": 1.0})
    tuning.store("cpu", "another CPU", source, "f#1", {"bands": {0: (2, 2)}})
    assert tuning.tuned_rules(source, "cpu") == (TileSizeRule("f#1", 0, (8, 16)), TileSizeRule("f#1", 2, (4,)))
    assert tuning.tuned_rules(source + b" ", "cpu") == ()       # an edited file is another region
    assert tuning.tuned_rules(source, "opencl") == ()


def test_footprint_pruning() -> None:
    assert plausible("opencl", (16, 16)) and not plausible("opencl", (32, 16))
    assert plausible("cpu", (32, 32, 32)) and not plausible("cpu", (1024, 1024, 1024))
    assert not plausible("cpu", (0, 8))


@pytest.mark.parametrize("argv, message", [
    (["--run", "./x"], "after '--'"),
    (["--budget", "21", "--", "pencilcc", "-O3", "x.c"], "'--budget' expects 1 to 20"),
    (["--", "pencilcc", "-O1", "x.c"], "below -O2"),
    (["--", "pencilcc", "-O3", "-fpencil-tile-sizes=x", "x.c"], "the build command: '-fpencil-tile-sizes='"),
])
def test_bad_invocations(tmp_path, argv, message) -> None:
    proc = _tune(tmp_path, *argv)
    assert proc.returncode == 1 and f"pencilcc-tune: error: " in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr


def test_tune_gemm_cpu(tmp_path) -> None:
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes())
    reference = harness.gcc_reference(GEMM, tmp_path)
    proc = _tune(tmp_path, "--budget", "3", "--repeat", "1", "--", "pencilcc", "-O3", *harness.KERNEL_CFLAGS,
                 "gemm.c", "-o", "gemm", "-lm")
    assert proc.returncode == 0, proc.stderr
    entry = _entries(tmp_path, "cpu")[f"{tuning.file_digest(GEMM.read_bytes())}:kernel_gemm#0"]
    assert 1 <= entry["evaluations"] <= 3 and entry["label"] == "kernel_gemm#0"
    sizes = entry["bands"]["0"]
    assert f"kernel_gemm#0:0={','.join(map(str, sizes))}" in proc.stdout     # a candidate it timed

    tuned = _record(tmp_path, "tuned", [])
    assert tuned["tile_sizes_from"] == "tuned" and tuned["tile_bands"][0]["sizes"] == sizes
    assert tuned["tile_sizes"] == sizes
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "tuned"), rtol=1e-9)
    # The user's own build (the tuner's last step) used them too.
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "gemm"), rtol=1e-9)
    # The flag wins, -fno-pencil-tuned ignores the cache, an edited file is not the tuned one.
    assert _record(tmp_path, "flag", ["-fpencil-tile-sizes=kernel_gemm=8"])["tile_sizes_from"] == "flag"
    assert _record(tmp_path, "untuned", ["-fno-pencil-tuned"])["tile_sizes_from"] == "model"
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes() + b"\n/* edited */\n")
    assert _record(tmp_path, "edited", [])["tile_sizes_from"] == "model"


def _opencl_device() -> bool:
    return tuning.opencl_device_name() is not None


@pytest.mark.skipif(not _opencl_device(), reason="no OpenCL device (install PoCL: .ci/run)")
def test_tune_gemm_opencl(tmp_path) -> None:
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes())
    reference = harness.gcc_reference(GEMM, tmp_path)
    proc = _tune(tmp_path, "--budget", "2", "--repeat", "1", "--run", "./gemm", "--", "pencilcc", "-O3",
                 "-fpencil-target=opencl", *harness.KERNEL_CFLAGS, "gemm.c", "-o", "gemm", "-lm")
    assert proc.returncode == 0, proc.stderr
    entry = _entries(tmp_path, "opencl")[f"{tuning.file_digest(GEMM.read_bytes())}:kernel_gemm#0"]
    assert 1 <= entry["evaluations"] <= 2
    sizes = entry["bands"]["0"]
    kernel = _record(tmp_path, "tuned", ["-fpencil-target=opencl"])["mapping"]["kernels"][0]
    assert kernel["work_group"] == sizes[::-1] and kernel["work_group_from"] == "tuned"
    out = harness.run(tmp_path / "tuned", env={"PENCILCC_CACHE_DIR": str(tmp_path / "cache")})
    assert not harness.compare_outputs(reference, out, rtol=1e-9)
