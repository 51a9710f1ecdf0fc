# SPDX-License-Identifier: MIT
"""Kernels whose fusion the fusion model changes, and gesummv, which keep-streams leaves untiled,
against gcc -O0.

The model (clangpass.poly.fusion, `-fpencil-fusion=auto`) keeps minimal fusion
for 3mm, 2mm, correlation and covariance, where isl's maximal fusion walks
columns or loses tiling, and maximal fusion for gemver, whose fused nest streams
`A` once less (a matrix-vector region: matrix passes count first). Each kernel is built at sizes that are not
multiples of the tile size and at tiny sizes (1, 2, 3), where producers and
consumers have partial or single tiles; every build runs with 1, 2 and 3
threads and must print what gcc -O0 prints. The record must name the choice;
with `-fpencil-fusion=max` the user's choice wins. gesummv's band streams two
matrices by rows: `keep-streams` keeps it untiled (`streaming_bands`), and
`--disable-pass=keep-streams` tiles it again.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_suite.e2e import harness

THREADS = ("1", "2", "3")

SIZES: dict[str, tuple[tuple[str, ...], ...]] = {
    "3mm": (("NI=37", "NJ=41", "NK=35", "NL=43", "NM=39"), ("NI=1", "NJ=2", "NK=3", "NL=1", "NM=2"),
            ("NI=3", "NJ=1", "NK=2", "NL=3", "NM=1")),
    "2mm": (("NI=35", "NJ=39", "NK=41", "NL=33"), ("NI=2", "NJ=3", "NK=1", "NL=2"),
            ("NI=1", "NJ=1", "NK=1", "NL=1")),
    "gemver": (("N=45",), ("N=1",), ("N=2",), ("N=3",)),
    "correlation": (("M=37", "N=43"), ("M=1", "N=2"), ("M=3", "N=3")),
    "covariance": (("M=33", "N=47"), ("M=2", "N=1"), ("M=3", "N=2")),
}
CASES = [(kernel, sizes) for kernel, size_sets in SIZES.items() for sizes in size_sets]
#: Kernels whose fused schedule reads a matrix in fewer nests (clangpass.poly.fusion, matrix passes).
MAX_FUSION = frozenset({"gemver"})


def _build(tmp_path: Path, kernel: str, sizes: tuple[str, ...], *flags: str) -> tuple[Path, dict]:
    exe, (region,) = harness.build_polybench(tmp_path, kernel, sizes, flags)
    return exe, region


@pytest.mark.parametrize("kernel,sizes", CASES, ids=[f"{k}-{'-'.join(s)}" for k, s in CASES])
def test_minimal_fusion_kernel_matches_gcc(tmp_path, kernel, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, kernel, sizes)
    assert region["status"] == "optimized", region["reason"]
    # The schedule is built on parameters, so every size set gets the same choice.
    assert region["fusion"] == ("max" if kernel in MAX_FUSION else "min"), region["fusion_reason"]
    assert region["fusion_reason"].startswith("fusion model: max:")
    for threads in THREADS:
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == [], f"{threads} threads"


def test_user_fusion_wins(tmp_path):
    sizes = SIZES["3mm"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "3mm.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, "3mm", sizes, "-fpencil-fusion=max")
    assert region["status"] == "optimized", region["reason"]
    assert (region["fusion"], region["fusion_reason"]) == ("max", "-fpencil-fusion=max")
    for threads in ("1", "2"):
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == [], f"{threads} threads"


GESUMMV_SIZES = (("N=45",), ("N=1",), ("N=2",), ("N=3",))


@pytest.mark.parametrize("sizes", GESUMMV_SIZES, ids=["-".join(s) for s in GESUMMV_SIZES])
def test_streaming_gesummv_matches_gcc(tmp_path, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "gesummv.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, "gesummv", sizes)
    assert region["status"] == "optimized", region["reason"]
    assert region["streaming_bands"] == 1 and region["tiled_bands"] == 0
    for threads in THREADS:
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == [], f"{threads} threads"


def test_keep_streams_can_be_disabled(tmp_path):
    sizes = GESUMMV_SIZES[0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "gesummv.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, "gesummv", sizes, "--disable-pass=keep-streams")
    assert region["streaming_bands"] == 0 and region["tiled_bands"] == 1
    assert harness.compare_outputs(reference, harness.run(exe, env={"PENCILCC_NUM_THREADS": "2"}),
                                   rtol=1e-9) == []
