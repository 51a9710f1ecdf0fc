# SPDX-License-Identifier: MIT
"""Pass `reduction-jam` (unroll-and-jam around serial reductions) against gcc -O0.

The matrix-vector kernels whose innermost loop accumulates into one element
(atax's and mvt's `x[i] += A[i][j] * y[j]`, bicg's `q[i]`, gemver's `w[i]`, gesummv's
two chains `tmp[i]` and `y[i]` in one loop, trisolv's triangular `x[i] -= L[i][j] * x[j]`,
jammed left of each strip of rows, symm's `acc += B[k][j] * A[i][k]` into a scalar that
each jammed copy gets an element of) are
built at sizes that are no multiple of the jam factor and at tiny sizes (1, 2, 3),
where every strip is partial; each build runs with 1, 2 and 3 threads, once with
every parallel loop forced onto threads, and must print what gcc -O0 prints. The
record names the jammed loops, and none once the pass is disabled.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from test_suite.e2e import harness

THREADS = ("1", "2", "3")
FORCE_THREADS = ("-fpencil-thread-min-work=0", "-fpencil-thread-start-work=0")

SIZES: dict[str, tuple[tuple[str, ...], ...]] = {
    "atax": (("M=39", "N=71"), ("M=1", "N=2"), ("M=2", "N=1"), ("M=3", "N=3")),
    "mvt": (("N=67",), ("N=1",), ("N=2",), ("N=3",)),
    "bicg": (("M=41", "N=37"), ("M=1", "N=1"), ("M=3", "N=2")),
    "gemver": (("N=45",), ("N=1",), ("N=3",)),
    "gesummv": (("N=43",), ("N=1",), ("N=2",)),
    "trisolv": (("N=43",), ("N=16",), ("N=1",), ("N=2",), ("N=9",)),
    # A chain into a region-local scalar (`acc`), expanded modulo 4 rows x 16 columns (scalar
    # tiles): M and N no multiples of 4 and 16 (partial strips both ways), one full strip of
    # columns, rows across a tile of 128 with a partial last strip, below one strip, and tiny.
    "symm": (("M=23", "N=37"), ("M=40", "N=16"), ("M=135", "N=33"), ("M=5", "N=3"), ("M=1", "N=1")),
}
#: Kernels the pass jams (gesummv: two chains in one loop; trisolv: a triangle).
JAMMED = frozenset({"atax", "mvt", "bicg", "gemver", "gesummv", "trisolv", "symm"})
CASES = [(kernel, sizes) for kernel, size_sets in SIZES.items() for sizes in size_sets]


def _build(tmp_path: Path, kernel: str, sizes: tuple[str, ...], *flags: str) -> tuple[Path, list[dict]]:
    return harness.build_polybench(tmp_path, kernel, sizes, flags)


def _jammed(regions: list[dict]) -> bool:
    return any(r["jammed_loops"] for r in regions)


@pytest.mark.parametrize("kernel,sizes", CASES, ids=[f"{k}-{'-'.join(s)}" for k, s in CASES])
def test_jammed_kernels_match_gcc(tmp_path, kernel, sizes):
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "ref", sizes)
    for flags in ((), FORCE_THREADS):
        exe, regions = _build(tmp_path, kernel, sizes, *flags)
        assert all(r["status"] == "optimized" for r in regions), [r["reason"] for r in regions]
        if sizes == SIZES[kernel][0] and kernel in JAMMED:
            assert _jammed(regions), [r["reason"] for r in regions]
        for threads in THREADS:
            got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
            assert harness.compare_outputs(reference, got, rtol=0) == [], f"{flags} {threads} threads"


def test_disabled_pass_jams_nothing(tmp_path):
    sizes = SIZES["atax"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "atax.c", tmp_path / "ref", sizes)
    exe, regions = _build(tmp_path, "atax", sizes, "--disable-pass=reduction-jam")
    assert not _jammed(regions)
    assert harness.compare_outputs(reference, harness.run(exe), rtol=0) == []


def test_scalar_chain_gets_one_element_per_copy(tmp_path):
    """symm's accumulator `acc` is a scalar: its jam over 4 rows `i` and 16 columns `j` gives each
    of the 64 copies its own element (the record says so), and the results stay gcc -O0's; without the expansion the
    copies would share `acc` and the pass leaves the loop alone."""
    sizes = SIZES["symm"][0]
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / "symm.c", tmp_path / "ref", sizes)
    exe, regions = _build(tmp_path, "symm", sizes)
    assert [r["jam_expanded_scalars"] for r in regions] == [["acc -> __pencil_jam_acc[i % 4 * 16 + j % 16]"]]
    assert regions[0]["jammed_loops"] == 1
    assert harness.compare_outputs(reference, harness.run(exe), rtol=0) == []
