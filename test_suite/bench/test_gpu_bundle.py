# SPDX-License-Identifier: MIT
"""The GPU bundle (``python -m test_suite.bench.gpu_bundle``) and its runner.

Without a device: the runner's mapping verdict from the launched kernel names, the
tiled kernels read from an optimisation record, the timer line.  With PoCL (skipped
where its ICD library is not found): a bundle of one kernel built at mini sizes and
its ``run.sh`` run end to end with ``GPU_BUNDLE_ICD`` naming PoCL's library, whose
results must say that the OpenCL runs' checksums match gcc's, that the direct
variant ran (PoCL's local memory is global memory) and that the staged one ran when
forced; and the same bundle with a library that is no OpenCL driver, which must stop
at once with a clear reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from test_suite.bench import checksums, gpu_bundle, gpu_runner, opencl


def _profile(*names: str) -> opencl.Profile:
    none = opencl.Transfers(0, 0, 0.0)
    return opencl.Profile("p / d", tuple(opencl.KernelProfile(n, 1, 1.0) for n in names), none, none, 1, 0, 1, 0)


def test_mapping_from_launched_names():
    tiled = [{"gpu": "k0", "cpu": "k0_direct"}, {"gpu": "k1", "cpu": "k1_direct"}]
    assert gpu_runner.mapping_of(_profile("k0", "k1"), tiled) == "tiled"
    assert gpu_runner.mapping_of(_profile("k0_direct", "k1_direct", "k2"), tiled) == "direct"
    assert gpu_runner.mapping_of(_profile("k0", "k1_direct"), tiled) == "mixed"
    assert gpu_runner.mapping_of(_profile("k2"), []) == "untiled"
    assert gpu_runner.mapping_of(None, tiled) == "host"
    assert gpu_runner.mapping_of(_profile(), tiled) == "host"


def test_kernels_of_a_record(tmp_path):
    record = tmp_path / "r.opt.json"
    record.write_text(json.dumps({"regions": [
        {"mapping": {"kernels": [{"name": "a", "variants": {"gpu": "a", "cpu": "a_direct"}},
                                 {"name": "b", "variants": {"gpu": "b", "cpu": "b"}}]}},   # untiled: one name
        {"mapping": None},
        {}]}))
    assert gpu_bundle.tiled_kernels(record) == [{"gpu": "a", "cpu": "a_direct"}]
    assert gpu_bundle.opencl_kernel_names(record) == ["a", "b"]
    assert gpu_bundle.tiled_kernels(tmp_path / "missing.json") == []
    assert gpu_bundle.opencl_kernel_names(tmp_path / "missing.json") == []


def test_kernel_seconds_line():
    assert checksums.kernel_seconds("x\npencilcc-bench-seconds: 0.25\n") == 0.25
    with pytest.raises(ValueError, match="pencilcc-bench-seconds"):
        checksums.kernel_seconds("pencilcc profile: device a / b\n")


def _pocl_library() -> str:
    """PoCL's ICD library, from its .icd file, or "" when it is not installed."""
    for icd in sorted(Path("/etc/OpenCL/vendors").glob("*pocl*.icd")):
        name = icd.read_text().strip()
        for candidate in (Path(name), Path("/usr/lib/x86_64-linux-gnu") / name, Path("/usr/lib64") / name):
            if candidate.is_absolute() and candidate.exists():
                return str(candidate)
    return ""


POCL = _pocl_library()
needs_pocl = pytest.mark.skipif(not POCL or shutil.which("gcc") is None or gpu_bundle.find_loader() is None,
                                reason="PoCL's ICD library, gcc or the ICD loader not found (install PoCL: .ci/run)")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gpu") / "bundle"
    kernels = gpu_bundle.datasets.select_kernels("gemm")
    manifest = gpu_bundle.make_bundle(out, kernels, "mini", gpu_bundle.DEFAULT_MARCH, progress=lambda _: None)
    entry = manifest["kernels"][0]
    assert "gcc_error" not in entry and "opencl_error" not in entry, entry
    return out


@needs_pocl
def test_bundle_runs_on_pocl(bundle, tmp_path):
    for path in ("run.sh", "bin/cl_devices", "lib/libOpenCL.so.1", "bin/gemm.gcc", "bin/gemm.pencilcc-opencl",
                 "py/test_suite/bench/gpu_runner.py", "py/test_suite/e2e/harness.py"):
        assert (bundle / path).is_file(), path
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert manifest["kernels"][0]["tiled_kernels"], "gemm's OpenCL kernel is tiled"
    assert manifest["kernels"][0]["reference"]["checksums"]
    out = tmp_path / "out"
    env = {**os.environ, "GPU_BUNDLE_ICD": POCL, "OUT": str(out)}
    proc = subprocess.run(["bash", str(bundle / "run.sh"), "--threads", "1", "--gcc-jobs", "1"],
                          capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir()) == ["gpu.json", "gpu.md", "log.txt"]
    document = json.loads((out / "gpu.json").read_text())
    assert document["complete"]
    assert "Portable Computing Language" in document["devices"]
    (result,) = document["kernels"]
    assert result["label"] == "gemm"
    assert result["checksum_match"] is True and result["reference"] == "gcc here"
    # cold, timed, profiled, the other mapping's profiled run, and the rest of the timed runs
    assert result["checksum_runs"] == 6
    assert len(result["gcc"]["runs_s"]) == 3 and result["gcc"]["median_s"] > 0
    ocl = result["opencl"]
    assert len(ocl["runs_s"]) == 3 and ocl["median_s"] > 0 and ocl["cold_s"] > 0
    assert ocl["mapping"] == "direct"
    assert ocl["other_mapping"]["forced"] == "gpu" and ocl["other_mapping"]["mapping"] == "tiled"
    assert ocl["profile"]["launches"] >= 1 and ocl["profile"]["transfer_mb"] > 0
    assert ocl["profile"]["whole"]["device"].startswith("Portable Computing Language")
    assert result["ratio_gcc_opencl"] == pytest.approx(result["gcc"]["median_s"] / ocl["median_s"], rel=1e-2)
    table = (out / "gpu.md").read_text()
    assert "| gemm |" in table and "| yes | direct |" in table
    assert "opencl cold" in (out / "log.txt").read_text()


@needs_pocl
def test_bundle_with_a_wrong_driver_stops_at_once(bundle, tmp_path):
    for icd, reason in (("/nonexistent/libnvidia-opencl.so.1", "no such file"),
                        ("/bin/sh", "no OpenCL device through /")):
        out = tmp_path / Path(icd).name
        env = {**os.environ, "GPU_BUNDLE_ICD": icd, "OUT": str(out)}
        start = time.monotonic()
        proc = subprocess.run(["bash", str(bundle / "run.sh")], capture_output=True, text=True, env=env,
                              timeout=120)
        assert proc.returncode == 2, proc.stdout[-2000:]
        assert time.monotonic() - start < 60
        assert "FAILED" in proc.stdout and reason in proc.stdout
        assert reason in (out / "gpu.md").read_text()
        document = json.loads((out / "gpu.json").read_text())
        assert reason in document["error"] and document["kernels"] == []
