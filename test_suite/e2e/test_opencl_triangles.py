# SPDX-License-Identifier: MIT
"""Triangular kernels tiled on the OpenCL target (llvm_backend/opencl/triangle.py with tiling.py):
syrk and syr2k (the inner parallel loop's bounds name the outer one), symm (the sequential loop's
bounds name a grid iterator).

Each is built with `-O3 -fpencil-target=opencl` at its own sizes and checked: the record says
its kernels are two-dimensional and tiled, with the local copies expected; on oclgrind (counts
on) it loads at least 4 times fewer elements from global memory than the same program built
with work-groups of 1 x 1 (`-fpencil-tile-sizes=REGION=1,1`: a tile that reuses nothing stages
nothing, so the kernels are the untiled ones of before: syrk's and syr2k's one-dimensional, each
work-item walking a row, symm's one work-item per point), and both print gcc -O0's output. Race and bound checks: test_opencl_oclgrind.py runs every
kernel, these included, with oclgrind's checks on.
"""
from __future__ import annotations

import pytest

from test_suite.bench import oclgrind
from test_suite.e2e import harness

pytestmark = pytest.mark.skipif(bool(oclgrind.problem()), reason=oclgrind.problem() or "oclgrind present")

FLAGS = ["-O3", *harness.KERNEL_CFLAGS, "-fpencil-target=opencl"]
TIMEOUT_S = 600


def _counts(tmp_path, name: str, kernel: str, flags: list[str]):
    exe = tmp_path / name
    proc, regions = harness.build_recorded([harness.POLYBENCH_DIR / f"{kernel}.c"], exe, [*FLAGS, *flags])
    stdout, stderr, status = oclgrind.run_program(exe, tmp_path / f"{name}.oclgrind", TIMEOUT_S, counts=True)
    assert status == 0, stderr[-2000:]
    assert "run on the CPU" not in stderr and "runs on the CPU" not in stderr, stderr
    counts = oclgrind.parse_counts(stdout)
    assert counts.kernels, "no kernel ran on the device"
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path)
    problems = harness.compare_outputs(reference, oclgrind.without_counts(stdout), rtol=1e-9)
    assert problems == [], "; ".join(problems)
    return regions[f"kernel_{kernel}"]["mapping"]["kernels"], counts.total("global_loads")


# Per tiled kernel, the arrays copied to local memory in its strip-mined loop.
LOCAL_ARRAYS = {
    # The two references of A (and of B) are copies of their own: rows of i and rows of j.
    "syrk": [["A", "A"]],
    "syr2k": [["A", "A", "B", "B"]],
    # Two rectangles whose sequential loop's bounds name the outer grid iterator (k < i, and
    # i > k): their strips cover the loop's range over the whole tile.
    "symm": [["A", "B"], ["A", "B"]],
}


@pytest.mark.parametrize("kernel", sorted(LOCAL_ARRAYS))
def test_triangle_is_tiled(kernel: str, tmp_path) -> None:
    kernels, tiled = _counts(tmp_path, "tiled", kernel, [])
    mapped = [k for k in kernels if k["tiling"] is not None]
    assert all(k["dimensions"] == 2 for k in mapped), kernels
    stages = [k["tiling"]["stages"] for k in mapped]
    assert [sorted(a["array"] for s in st for a in s["local_arrays"]) for st in stages] == LOCAL_ARRAYS[kernel], \
        stages
    assert all(s["strip"] == 16 and a["box"] == [16, 16] for st in stages for s in st for a in s["local_arrays"]), \
        stages

    kernels, untiled = _counts(tmp_path, "untiled", kernel, [f"-fpencil-tile-sizes=kernel_{kernel}=1,1"])
    assert all(k["tiling"] is None for k in kernels), kernels
    assert untiled >= 4 * tiled, (untiled, tiled)
