# SPDX-License-Identifier: MIT
"""Triangular kernels (syrk, syr2k: the inner parallel loop's bounds name the outer one) tiled on
the OpenCL target (llvm_backend/opencl/triangle.py with tiling.py).

Each is built with `-O3 -fpencil-target=opencl` at its own sizes and checked: the record says
its kernel is two-dimensional and tiled, with local copies; on oclgrind (counts on) it loads at
least 4 times fewer elements from global memory than the same program built with work-groups of
1 x 1 (`-fpencil-tile-sizes=REGION:0=1,1`: a tile that reuses nothing stages nothing, so the
kernel is the one-dimensional one each work-item of which walks a row, as before the tiling),
and both print gcc -O0's output. Race and bound checks: test_opencl_oclgrind.py runs every
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


@pytest.mark.parametrize("kernel", ["syrk", "syr2k"])
def test_triangle_is_tiled(kernel: str, tmp_path) -> None:
    kernels, tiled = _counts(tmp_path, "tiled", kernel, [])
    mapped = [k for k in kernels if k["tiling"] is not None]
    assert len(mapped) == 1 and mapped[0]["dimensions"] == 2, kernels
    stage = mapped[0]["tiling"]["stages"][0]
    # The two references of A (and of B) are copies of their own: rows of i and rows of j.
    arrays = sorted(a["array"] for a in stage["local_arrays"])
    assert arrays == (["A", "A"] if kernel == "syrk" else ["A", "A", "B", "B"]), stage
    assert stage["strip"] == 16 and all(a["box"] == [16, 16] for a in stage["local_arrays"]), stage

    kernels, untiled = _counts(tmp_path, "untiled", kernel, [f"-fpencil-tile-sizes=kernel_{kernel}:0=1,1"])
    assert all(k["tiling"] is None for k in kernels), kernels
    assert untiled >= 4 * tiled, (untiled, tiled)
