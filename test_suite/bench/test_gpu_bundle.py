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


_FAKE = """#!/bin/sh
sleep {sleep}
printf '== A\\n4\\n{total}\\n10\\n25\\n'
echo "pencilcc-bench-seconds: {seconds}" >&2
if [ "$PENCILCC_PROFILE" = 1 ] && [ -n "{kernel}" ]; then
  case "${{PENCILCC_OPENCL_MAPPING:-auto}}" in cpu) name={kernel}_direct ;; *) name={kernel} ;; esac
  echo "pencilcc profile: device Fake / GPU" >&2
  echo "pencilcc profile: kernel $name: 2 launches, 1.500 ms" >&2
  echo "pencilcc profile: host-to-device: 1 transfers, 1000000 bytes, 0.100 ms" >&2
  echo "pencilcc profile: device-to-host: 1 transfers, 3000000 bytes, 0.300 ms" >&2
  echo "pencilcc profile: programs: 0 built, 1 loaded from disk cache" >&2
  echo "pencilcc profile: buffers: 1 allocated, 0 reused" >&2
fi
"""


def _fake_bundle(folder: Path, kernels: list[dict]) -> Path:
    """A bundle whose programs are shell scripts printing what a kernel build prints: checksums of
    one array ``A`` (``total`` its sum), the timer line, and the runtime's profile of kernel ``kernel``
    (``KERNEL_direct`` under ``PENCILCC_OPENCL_MAPPING=cpu``)."""
    (folder / "bin").mkdir(parents=True)
    entries = []
    for spec in kernels:
        label = spec["label"]
        entry = {"label": label, "macros": ["N=1"], "reference": {"seconds": spec.get("here", 0.1), "checksums": [
            {"name": "A", "count": 4, "total": 10, "absolute": 10, "weighted": 25}]}}
        for key, total, kernel in (("gcc", 10, ""), ("opencl", spec.get("total", 10), spec.get("kernel", "k"))):
            script = folder / "bin" / f"{label}.{key}"
            script.write_text(_FAKE.format(sleep=spec.get("sleep", 0), total=total, seconds=spec.get(key, 0.5),
                                           kernel=kernel))
            script.chmod(0o755)
            entry[key] = f"bin/{script.name}"
        entry["opencl_kernels"] = [spec["kernel"]] if spec.get("kernel", "k") else []
        entry["tiled_kernels"] = ([{"gpu": spec.get("kernel", "k"), "cpu": spec.get("kernel", "k") + "_direct"}]
                                  if spec.get("tiled") else [])
        entries.append(entry)
    (folder / "manifest.json").write_text(json.dumps({"dataset": "fake", "kernels": entries}))
    return folder


def test_runner_figures_mismatch_and_order(tmp_path, capsys):
    bundle = _fake_bundle(tmp_path / "b", [
        {"label": "hostonly", "kernel": ""},
        {"label": "tiled", "kernel": "t", "tiled": True, "gcc": 1.0, "opencl": 0.25},
        {"label": "wrong", "kernel": "w", "total": 11},
        {"label": "slowgcc", "kernel": "s", "here": 50.0}])
    out = tmp_path / "out"
    status = gpu_runner.main(["--bundle", str(bundle), "--out", str(out), "--gcc-jobs", "2"])
    assert status == 1   # "wrong" differs from gcc
    document = json.loads((out / "gpu.json").read_text())
    by_label = {k["label"]: k for k in document["kernels"]}
    assert [k["label"] for k in document["kernels"]][-1] == "hostonly"
    tiled = by_label["tiled"]
    assert tiled["checksum_match"] is True and tiled["checksum_runs"] == 6 and tiled["reference"] == "gcc here"
    assert tiled["opencl"]["mapping"] == "tiled" and tiled["opencl"]["runs_s"] == [0.25] * 3
    assert tiled["opencl"]["other_mapping"]["forced"] == "cpu"
    assert tiled["opencl"]["other_mapping"]["mapping"] == "direct"
    assert tiled["opencl"]["profile"]["device_ms"] == 1.5 and tiled["opencl"]["profile"]["launches"] == 2
    assert tiled["opencl"]["profile"]["transfer_mb"] == 4.0
    assert tiled["gcc"]["runs_s"] == [1.0] * 3 and tiled["ratio_gcc_opencl"] == 4.0
    assert by_label["wrong"]["checksum_match"] is False and "total 11" in by_label["wrong"]["mismatches"][0]
    assert by_label["slowgcc"]["gcc"]["runs_s"] == [0.5]   # over --gcc-long here: one run
    host = by_label["hostonly"]["opencl"]
    assert host["mapping"] == "host" and host["runs_s"] == [0.5] and "other_mapping" not in host
    assert by_label["hostonly"]["checksum_runs"] == 1
    table = (out / "gpu.md").read_text()
    assert "| tiled | 1.000 | 0.250 | 4.00 |" in table and "| **NO** |" in table and "MISMATCH wrong" in table
    assert document["geomean_gcc_opencl"] == pytest.approx((4.0 * 1.0 * 1.0) ** (1 / 3), rel=1e-3)


def test_runner_budget_skips_the_rest(tmp_path):
    bundle = _fake_bundle(tmp_path / "b", [{"label": "slow", "kernel": "k", "tiled": True, "sleep": 1},
                                          {"label": "next", "kernel": "k"}])
    out = tmp_path / "out"
    gpu_runner.main(["--bundle", str(bundle), "--out", str(out), "--budget", "2.5", "--min-left", "1",
                     "--no-gcc"])
    document = json.loads((out / "gpu.json").read_text())
    slow, following = document["kernels"]
    # cold, timed and profiled runs always; the other mapping and more timed runs only within the share
    assert slow["opencl"]["runs_s"] == [0.5] and slow["opencl"]["other_mapping"]["error"].startswith("not run")
    assert slow["reference"] == "gcc at bundle build" and slow["checksum_match"] is True
    assert following["opencl"]["error"].startswith("skipped: time budget spent")
    assert document["complete"]


def test_runner_stops_runs_after_the_grace(tmp_path):
    bundle = _fake_bundle(tmp_path / "b", [{"label": "hangs", "kernel": "k", "sleep": 30}])
    out = tmp_path / "out"
    start = time.monotonic()
    gpu_runner.main(["--bundle", str(bundle), "--out", str(out), "--budget", "1", "--grace", "1",
                     "--gcc-timeout", "100", "--min-left", "0"])
    assert time.monotonic() - start < 10   # not the 30 s the programs sleep, nor the timeouts
    (hangs,) = json.loads((out / "gpu.json").read_text())["kernels"]
    assert hangs["opencl"]["error"].startswith("cold run: timed out after")
    assert hangs["gcc"]["error"].startswith("timed out after") and hangs["checksum_match"] is None


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
