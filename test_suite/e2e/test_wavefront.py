# SPDX-License-Identifier: MIT
"""Wavefront parallelism of time-iterated stencils (pass `wavefront`) against gcc -O0.

Each stencil is built at sizes that are not multiples of the tile size and at
tiny sizes (1, 2, 3 points, 1..3 time steps), where most tiles are partial or the
wavefront loop is degenerate; each build runs with 1, 2 and 3 threads and must
print what gcc -O0 prints. The optimisation record must show the wavefront and
the parallel loop it enables (none for jacobi-1d, whose 32 x 32 tiles are too small),
and neither once the pass is disabled or the tiles are too small.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_suite.e2e import harness

THREADS = ("1", "2", "3")

# kernel -> size sets (-D macros); the first of each is large enough to hold several tiles per
# dimension (so that a wavefront has more than one tile), the others are tiny.
SIZES: dict[str, tuple[tuple[str, ...], ...]] = {
    "jacobi-1d": (("TSTEPS=77", "N=301"), ("TSTEPS=1", "N=1"), ("TSTEPS=2", "N=2"), ("TSTEPS=3", "N=3")),
    "jacobi-2d": (("TSTEPS=45", "N=37"), ("TSTEPS=1", "N=3"), ("TSTEPS=3", "N=2"), ("TSTEPS=2", "N=1")),
    "seidel-2d": (("TSTEPS=35", "N=41"), ("TSTEPS=2", "N=3"), ("TSTEPS=3", "N=1"), ("TSTEPS=1", "N=2")),
    "heat-3d": (("TSTEPS=37", "N=19"), ("TSTEPS=3", "N=3"), ("TSTEPS=1", "N=2")),
    "heat-3d/32": (("TSTEPS=37", "N=19"), ("TSTEPS=3", "N=3")),
    "fdtd-2d": (("TMAX=37", "NX=29", "NY=43"), ("TMAX=1", "NX=1", "NY=1"), ("TMAX=2", "NX=3", "NY=2"),
                ("TMAX=3", "NX=2", "NY=3")),
}
CASES = [(kernel, sizes) for kernel, size_sets in SIZES.items() for sizes in size_sets]
# jacobi-1d's 32 x 32 tiles are too small to run by wavefronts (wavefront.MIN_TILE_INSTANCES):
# it checks that the tiled, skewed, sequential band stays correct.
WAVEFRONTS: dict[str, int] = {"jacobi-1d": 0}
# heat-3d's 32^4 tiles do not fit in cache, so the model gives it short time tiles with whole
# rows (docs/passes/tile.md); `heat-3d/32` forces the square tiles, which keeps the 3-D
# wavefront of full skewed tiles (and the tile loop over rows) tested too.
FLAGS: dict[str, tuple[str, ...]] = {"heat-3d/32": ("--tile-size=32",)}
# The tests check results, not compile time: the default wall-clock limit on a region's analysis
# is hit by heat-3d when the machine is loaded.
TIME_LIMIT = "-fpencil-time-limit=600"


def _build(tmp_path: Path, kernel: str, sizes: tuple[str, ...], *flags: str) -> tuple[Path, dict]:
    exe, (region,) = harness.build_polybench(tmp_path, kernel, sizes, (TIME_LIMIT, *flags))
    return exe, region


@pytest.mark.parametrize("kernel,sizes", CASES, ids=[f"{k}-{'-'.join(s)}" for k, s in CASES])
def test_wavefront_stencil_matches_gcc(tmp_path, kernel, sizes):
    source = kernel.partition("/")[0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{source}.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, source, sizes, *FLAGS.get(kernel, ()))
    assert region["status"] == "optimized", region["reason"]
    # The sizes are compile-time constants only to the host code: the region's schedule is
    # built on parameters, so every size set gets the same wavefront.
    expected = WAVEFRONTS.get(kernel, 1)
    assert region["wavefronts"] == expected and region["parallel_loops"] == expected
    for threads in THREADS:
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == [], f"{threads} threads"


def test_small_tiles_keep_their_order(tmp_path):
    # 16 x 16 x 16 tiles (4,096 points) are under wavefront.MIN_TILE_INSTANCES.
    sizes = SIZES["seidel-2d"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "seidel-2d.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, "seidel-2d", sizes, "--tile-size=16")
    assert region["status"] == "optimized" and region["tile_sizes"] == [16, 16, 16]
    assert region["wavefronts"] == 0 and region["parallel_loops"] == 0
    assert harness.compare_outputs(reference, harness.run(exe, env={"PENCILCC_NUM_THREADS": "2"}),
                                   rtol=1e-9) == []


@pytest.mark.parametrize("flag", ["--disable-pass=wavefront", "-fno-pencil-parallel"])
def test_without_wavefront_the_stencil_runs_on_one_thread(tmp_path, flag):
    sizes = SIZES["jacobi-2d"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "jacobi-2d.c", tmp_path / "ref", sizes)
    exe, region = _build(tmp_path, "jacobi-2d", sizes, flag)
    assert region["status"] == "optimized" and region["tiled_bands"] == 1
    assert region["wavefronts"] == 0 and region["parallel_loops"] == 0
    assert harness.compare_outputs(reference, harness.run(exe, env={"PENCILCC_NUM_THREADS": "2"}),
                                   rtol=1e-9) == []
