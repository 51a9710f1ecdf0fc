# SPDX-License-Identifier: MIT
"""atax and bicg keep their source order (`source-order`, -fpencil-source-order=streams), against gcc -O0
(the source order then run in blocks of rows by `row-blocks`, or not with the pass disabled).

isl's schedule reads their matrix A in two parallel nests; the memory-stream model
(clangpass.poly.memory_streams) gives the region its source order back, which reads each row
of A twice while it is in cache. Each kernel is built at sizes that are not multiples of the
tile sizes and at tiny ones, with the model (default) and without it (`gain`: isl's tiled,
parallel schedule), and every build must print what gcc -O0 prints with 1 and 2 threads.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]

SIZES = (("M=37", "N=45"), ("M=1", "N=2"), ("M=3", "N=1"), ("M=2", "N=3"))
CASES = [(kernel, sizes, mode) for kernel in ("atax", "bicg") for sizes in SIZES for mode in ("streams", "gain")]


@pytest.mark.parametrize("kernel,sizes,mode", CASES, ids=[f"{k}-{'-'.join(s)}-{m}" for k, s, m in CASES])
def test_source_order_kernel_matches_gcc(tmp_path: Path, kernel: str, sizes: tuple[str, ...], mode: str) -> None:
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    exe = tmp_path / kernel
    record = tmp_path / "record.json"
    defines = [f"-D{d}" for d in sizes]
    harness.build(PENCILCC, [source], exe, ["-O3", *harness.KERNEL_CFLAGS, *defines,
                                            f"-fpencil-source-order={mode}", f"-foptimization-record-file={record}"])
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized", region["reason"]
    assert region["source_order"] == (mode == "streams"), region["source_order_reason"]
    if mode == "streams":
        assert region["source_order_reason"].startswith("the schedule streams A"), region["source_order_reason"]
        # The source order of both kernels has no parallel loop (the i loop carries a reduction);
        # `row-blocks` then runs its nest in blocks of rows, both products parallel there
        # (test_row_blocks.py), and with it disabled the source order stays as it is.
        assert region["parallel_loops"] == 2 and region["row_blocks"] == 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *defines], threads=(1, 2))


@pytest.mark.parametrize("kernel", ("atax", "bicg"))
def test_source_order_without_row_blocks_has_no_parallel_loop(tmp_path: Path, kernel: str) -> None:
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    exe = tmp_path / kernel
    record = tmp_path / "record.json"
    defines = [f"-D{d}" for d in SIZES[0]]
    harness.build(PENCILCC, [source], exe, ["-O3", *harness.KERNEL_CFLAGS, *defines, "--disable-pass=row-blocks",
                                            f"-foptimization-record-file={record}"])
    (region,) = json.loads(record.read_text())["regions"]
    assert region["source_order"] and region["parallel_loops"] == 0 and region["row_blocks"] == 0
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *defines], threads=(1, 2))
