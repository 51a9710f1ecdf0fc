# SPDX-License-Identifier: MIT
"""Pass `row-blocks` (matrix-vector products in blocks of rows, both phases on threads) against gcc -O0.

atax, bicg and mvt are built at sizes where the last block of rows (24) and the last
tile of columns (64) are partial, and at tiny sizes (a single partial block, a single
row or column); each build runs with 1, 2 and 3 threads, once with every parallel
loop forced onto threads, and must print exactly what gcc -O0 prints (the row sums
and the column sums keep their source order). The record counts the blocked nest;
the kernels whose two-loop statements are not all row or column accumulations over
one read-only matrix (gemver writes its matrix, gesummv has no column product)
and the disabled pass get none.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_suite.e2e import harness

THREADS = ("1", "2", "3")
FORCE_THREADS = ("-fpencil-thread-min-work=0", "-fpencil-thread-start-work=0")

SIZES: dict[str, tuple[tuple[str, ...], ...]] = {
    "atax": (("M=53", "N=150"), ("M=1", "N=2"), ("M=24", "N=64"), ("M=25", "N=1")),
    "bicg": (("M=131", "N=50"), ("M=1", "N=1"), ("M=2", "N=26")),
    "mvt": (("N=77",), ("N=1",), ("N=3",)),
}
CASES = [(kernel, sizes) for kernel, size_sets in SIZES.items() for sizes in size_sets]


def _blocked(regions: list[dict]) -> int:
    return sum(r["row_blocks"] for r in regions)


@pytest.mark.parametrize("kernel,sizes", CASES, ids=[f"{k}-{'-'.join(s)}" for k, s in CASES])
def test_blocked_kernels_match_gcc(tmp_path, kernel, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "ref", sizes)
    for flags in ((), FORCE_THREADS):
        exe, regions = harness.build_polybench(tmp_path, kernel, sizes, flags)
        assert all(r["status"] == "optimized" for r in regions), [r["reason"] for r in regions]
        assert _blocked(regions) == 1, regions
        for threads in THREADS:
            got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
            assert harness.compare_outputs(reference, got, rtol=0) == [], f"{flags} {threads} threads"


@pytest.mark.parametrize("kernel,sizes", [("gemver", ("N=45",)), ("gesummv", ("N=43",))])
def test_other_products_are_not_blocked(tmp_path, kernel, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "ref", sizes)
    exe, regions = harness.build_polybench(tmp_path, kernel, sizes, FORCE_THREADS)
    assert _blocked(regions) == 0
    assert harness.compare_outputs(reference, harness.run(exe, env={"PENCILCC_NUM_THREADS": "2"}), rtol=0) == []


def test_disabled_pass_blocks_nothing(tmp_path):
    sizes = SIZES["mvt"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "mvt.c", tmp_path / "ref", sizes)
    exe, regions = harness.build_polybench(tmp_path, "mvt", sizes, ("--disable-pass=row-blocks",))
    assert _blocked(regions) == 0
    assert harness.compare_outputs(reference, harness.run(exe), rtol=0) == []


WARM_SIZES = {"atax": ("M=203", "N=230"), "bicg": ("M=230", "N=203"), "mvt": ("N=229",),
              "gesummv": ("N=211",), "gemver": ("N=213",)}
# A start test above each one's estimated work at those sizes, 1/25 of it (the window's first fork) below.
WARM_START_WORK = {"atax": 5_000_000, "bicg": 5_000_000, "mvt": 5_000_000, "gesummv": 2_000_000,
                   "gemver": 5_000_000}


@pytest.mark.parametrize("kernel", sorted(WARM_SIZES))
def test_matrix_vector_kernels_in_the_warm_window_match_gcc(tmp_path, kernel):
    # The start test above these sizes' work and the window's first fork (1/25 of it) below,
    # every loop big enough for the per-loop test: a team starts only inside
    # the warm start's window (llvm_backend.cpu.warm), and then its loops are shared; off
    # (PENCILCC_THREAD_WARM_MS=0), everything runs on one thread. Both print exactly what gcc -O0 prints.
    sizes = WARM_SIZES[kernel]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "ref", sizes)
    exe, regions = harness.build_polybench(tmp_path, kernel, sizes,
                                           ("-fpencil-thread-min-work=1", "-fpencil-thread-warm-ms=200",
                                            f"-fpencil-thread-start-work={WARM_START_WORK[kernel]}"))
    assert all(r["status"] == "optimized" for r in regions), [r["reason"] for r in regions]
    for threads in THREADS:
        for warm in ("200", "0"):
            got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads, "PENCILCC_THREAD_WARM_MS": warm})
            assert harness.compare_outputs(reference, got, rtol=0) == [], f"{threads} threads, warm {warm}"
