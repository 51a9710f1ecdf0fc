# SPDX-License-Identifier: MIT
"""Wavefronts of tiles whose points hold a loop (pass `wavefront`'s work per tile) against gcc -O0.

nussinov tiles its (i, j) band 32 x 32 with the k loop, up to n - 2 iterations, under each
point: 1,024 points but a tile's work grows with n, so the band runs by wavefronts
(`wavefront._tile_work`). Built at sizes that are not multiples of the tile size, at 1-3
points (a degenerate wavefront loop) and with the tiles of a wavefront on 1, 2 and 3
threads, it must print what gcc -O0 prints; the record shows the wavefront and its
parallel loop, and neither once the pass is disabled. Built with
-fno-pencil-exact-reductions: with exact reductions (the default) nussinov's band is left
untiled for `reduction-jam` (test_exact_reductions.py), and this shape is what is tested here.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.POLYBENCH_DIR / "nussinov.c"
SIZES = ("N=97", "N=45", "N=1", "N=2", "N=3")
TIME_LIMIT = "-fpencil-time-limit=600"


def _build(tmp_path: Path, size: str, *flags: str) -> tuple[list[str], Path, dict]:
    cflags = [*harness.KERNEL_CFLAGS, f"-D{size}"]
    exe = tmp_path / "nussinov"
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [SOURCE], exe, ["-O3", *cflags, TIME_LIMIT, "-fno-pencil-exact-reductions", *flags,
                                            f"-foptimization-record-file={record}"])
    (region,) = json.loads(record.read_text())["regions"]
    return cflags, exe, region


@pytest.mark.parametrize("size", SIZES)
def test_nussinov_wavefront_matches_gcc(tmp_path, size):
    cflags, exe, region = _build(tmp_path, size)
    assert region["status"] == "optimized", region["reason"]
    assert region["tile_sizes"] == [32, 32]
    assert region["wavefronts"] == 1 and region["parallel_loops"] == 1
    harness.assert_matches_gcc_O0(SOURCE, exe, tmp_path, cflags, threads=(1, 2, 3))


def test_nussinov_without_wavefront(tmp_path):
    cflags, exe, region = _build(tmp_path, SIZES[0], "--disable-pass=wavefront")
    assert region["status"] == "optimized" and region["tiled_bands"] == 1
    assert region["wavefronts"] == 0 and region["parallel_loops"] == 0
    harness.assert_matches_gcc_O0(SOURCE, exe, tmp_path, cflags, threads=(2,))
