# SPDX-License-Identifier: MIT
"""The kernel suite declared the C99 way, through macros, compiles as the original does (issue 30).

PolyBench/C 4.2.1 in C99 mode declares its array parameters as VLAs through macros
(`double POLYBENCH_2D(C, NI, NJ, ni, nj)`, `C[ni + 0][nj + 0]`); pencilcc's front end once
read such extents in reverse and miscompiled 14 of the 30 kernels. The files of
`test_suite/kernels/polybench_c99/` are the 30 kernels written that way with macros of our
own (test_suite/kernels/c99_macros.py: `DATA_TYPE ARRAY_2D(C, NI, NJ, ni, nj)`, `SCALAR(0.1)`
pasting with `##`, loop bounds `PB_NI` through a nested macro). Here:
- each file is what the generator writes and its gcc -O0 build prints exactly what the
  original prints;
- each is built by pencilcc -O3 (warning-free, with an optimisation record) and every region
  must be optimized (a fallback fails, naming the record's reason: the host compiler would
  have run the region); its output, with one and two threads, matches gcc -O0 (rtol 1e-9);
- with an OpenCL platform (PoCL in CI), a representative subset (OPENCL_KERNELS) is built for
  `-fpencil-target=opencl` too: optimized for that target, its kernels launched on the
  device, same output.

Builds run in the background, one per CPU, from the module's first test on.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.kernels import c99_macros

PENCILCC = [sys.executable, "-m", "clangpass"]
# As test_polybench_pencilcc.py: outlining adds no warning; a fallback stays a warning, read from the record.
WARNING_FLAGS = ("-Wall", "-Wextra", "-Werror", "-Wno-error=pencil")
KERNELS = sorted(p.stem for p in c99_macros.C99_DIR.glob("*.c"))
# The OpenCL target on a subset: PoCL compiles every kernel at run time.
OPENCL_KERNELS = ("2mm", "correlation", "covariance", "doitgen", "fdtd-2d", "gemm", "gramschmidt", "symm")
PROFILE = re.compile(r"^pencilcc profile: kernel (?P<name>\S+?):? (?P<launches>\d+) launch", re.MULTILINE)


def _opencl_platforms() -> list:
    try:
        import pyopencl
        return pyopencl.get_platforms()
    except Exception:   # no pyopencl, or its LogicError when the ICD loader finds no platform
        return []


HAVE_OPENCL = bool(_opencl_platforms())


class Builds:
    """pencilcc builds of every C99-macro kernel (CPU) and of the OpenCL subset, started together."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
        targets = ["cpu", "opencl"] if HAVE_OPENCL else ["cpu"]
        # The OpenCL builds first: their tests also run on the device, the longest step.
        self.futures: dict[tuple[str, str], Future] = {
            (target, k): self.pool.submit(self._build, target, k)
            for target in reversed(targets) for k in (OPENCL_KERNELS if target == "opencl" else KERNELS)}

    def _build(self, target: str, kernel: str) -> tuple[Path, list[dict]]:
        exe = self.workdir / f"{target}-{kernel}"
        record = exe.with_suffix(".json")
        harness.build(PENCILCC, [c99_macros.c99_path(kernel)], exe,
                      [*harness.KERNEL_CFLAGS, *WARNING_FLAGS, "-O3", f"-fpencil-target={target}",
                       f"-foptimization-record-file={record}"],
                      env={"PENCILCC_NO_CACHE": "1"})
        return exe, json.loads(record.read_text())["regions"]

    def result(self, target: str, kernel: str) -> tuple[Path, list[dict]]:
        return self.futures[(target, kernel)].result()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory):
    started = Builds(tmp_path_factory.mktemp("polybench_c99"))
    yield started
    started.pool.shutdown(wait=True, cancel_futures=True)


def _not_optimized(regions: list[dict]) -> list[str]:
    return [f"{r['function']} (line {r['line']}): {r['status']}: {r['reason']}"
            for r in regions if r["status"] != "optimized"]


def test_all_kernels_generated() -> None:
    assert KERNELS == sorted(harness.POLYBENCH_KERNELS)


@pytest.mark.parametrize("kernel", KERNELS)
def test_generated_file_is_current_and_prints_the_original(kernel: str, tmp_path: Path) -> None:
    """The committed file is what c99_macros.py writes today; gcc -O0 prints the original's output."""
    original = harness.POLYBENCH_DIR / f"{kernel}.c"
    path = c99_macros.c99_path(kernel)
    assert c99_macros.make_c99(original) == path.read_text(), \
        f"{path} is stale: run python -m test_suite.kernels.c99_macros"
    assert harness.gcc_reference(path, tmp_path) == harness.gcc_reference(original, tmp_path)


@pytest.mark.parametrize("kernel", KERNELS)
def test_c99_kernel_matches_gcc(kernel: str, builds: Builds, tmp_path: Path) -> None:
    reference = harness.gcc_reference(c99_macros.c99_path(kernel), tmp_path)
    exe, regions = builds.result("cpu", kernel)
    assert regions, f"{kernel}: the record lists no region"
    assert _not_optimized(regions) == [], f"{kernel}: regions not optimized"
    for threads in ("1", "2"):
        output = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        problems = harness.compare_outputs(reference, output, rtol=1e-9)
        assert problems == [], f"{kernel} with {threads} threads: " + "; ".join(problems)


@pytest.mark.skipif(not HAVE_OPENCL, reason="no OpenCL platform (install PoCL: .ci/run)")
@pytest.mark.parametrize("kernel", OPENCL_KERNELS)
def test_c99_kernel_on_the_device(kernel: str, builds: Builds, tmp_path: Path) -> None:
    reference = harness.gcc_reference(c99_macros.c99_path(kernel), tmp_path)
    exe, regions = builds.result("opencl", kernel)
    assert _not_optimized(regions) == [], f"{kernel}: regions not optimized"
    assert all(r["target"] == "opencl" for r in regions), [r["target"] for r in regions]
    kernels = [k["name"] for r in regions for k in r["mapping"]["kernels"]]
    assert kernels, f"{kernel}: no OpenCL kernel in {regions}"
    # The kernels a run may launch: a tiled kernel or its direct variant, by the device.
    variants = {v for r in regions for k in r["mapping"]["kernels"] for v in k["variants"].values()}
    if kernel == "doitgen":
        # As the original's (test_opencl_target.py): its private sum[np], of parameter size, is a
        # slice per iteration of a device buffer; np read from the macro-written declarator.
        assert [k["private_arrays"] for r in regions for k in r["mapping"]["kernels"]] == [["__pencil_private_sum"]]
    env = {**os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "no OpenCL device" not in proc.stderr and "run on the CPU" not in proc.stderr, proc.stderr
    launches = {m["name"]: int(m["launches"]) for m in PROFILE.finditer(proc.stderr)}
    assert set(launches) <= variants and sum(launches.values()) > 0, proc.stderr
    problems = harness.compare_outputs(reference, proc.stdout, rtol=1e-9)
    assert problems == [], "; ".join(problems)
