# SPDX-License-Identifier: MIT
"""The image-processing kernels (test_suite/kernels/image) through pencilcc: every region
optimized (no fallback; non-affine subscripts such as `hist[img[i][j]]` and `src[r0][c0]` are
modelled as accesses to any element, and the record lists them), and the output equal to
`gcc -O0`'s with one and two threads (every parallel loop on threads: thread-min-work 0).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
IMAGE_DIR = harness.POLYBENCH_DIR.parent / "image"
INCLUDE = harness.POLYBENCH_DIR.parents[2] / "include"
KERNELS = sorted(IMAGE_DIR.glob("*.c"))
# The accesses each kernel's regions over-approximate (the rest are affine).
APPROXIMATED = {"histogram": 2, "resize": 4, "warp_affine": 4}


@pytest.mark.parametrize("source", KERNELS, ids=[k.stem for k in KERNELS])
def test_image_kernel_is_optimized_and_matches_gcc(source: Path, tmp_path: Path) -> None:
    exe = tmp_path / source.stem
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [source], exe, ["-O3", f"-I{INCLUDE}", "-fpencil-thread-min-work=0",
                                            f"-foptimization-record-file={record}"],
                  env={"PENCILCC_NO_CACHE": "1"})
    regions = json.loads(record.read_text())["regions"]
    assert regions and [r["reason"] for r in regions if r["status"] != "optimized"] == []
    assert sum(len(r["approximated_accesses"]) for r in regions) == APPROXIMATED.get(source.stem, 0)
    reference = tmp_path / "reference"
    harness.build(["gcc"], [source], reference, ["-O0", f"-I{INCLUDE}"])
    expected = harness.run(reference)
    assert expected.strip().splitlines()[-1] == "OK"
    for threads in ("1", "2"):
        assert harness.run(exe, env={"PENCILCC_NUM_THREADS": threads}) == expected, threads
