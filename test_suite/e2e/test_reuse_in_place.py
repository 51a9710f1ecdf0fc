# SPDX-License-Identifier: MIT
"""Value-style programs run in place (reuse-in-place, issue 26 items 2 and 3).

test_suite/kernels/value_style/ holds an LU decomposition in single-assignment style
(a new matrix per step, copied back), a Needleman-Wunsch that rebuilds its score matrix
per anti-diagonal, and plane folds with + and max into an accumulator with copy-back
(one whose scratch the caller reads after the region, which must keep its storage).
Every build prints what gcc -O0 prints, with 1 and 2 threads and on the OpenCL target
(skipped without a platform); the record's `storage` says which array went into which
and how, and `-fpencil-memory=none` leaves every array where it was.
"""
from __future__ import annotations


import pytest

from test_suite.e2e import harness

VALUE_STYLE = harness.KERNELS_DIR / "value_style"
FLAGS = ["-std=c99", "-I", str(harness.REPO_ROOT / "include")]
# program -> {function: (array stored elsewhere, into, technique)}; None: nothing reused.
EXPECTED = {
    "lu_ssa": {"lu_ssa": ("B", "A", "update-in-place")},
    "nw_diag": {"nw_diag": ("T", "H", "update-in-place")},
    "plane_fold": {"fold_sum": ("next", "acc", "in-place-fold"), "fold_max": ("next", "acc", "in-place-fold"),
                   "keep_next": None},
}


def _storage(region: dict):
    done = [s for s in region["storage"] if s["technique"]]
    assert len(done) <= 1, region["storage"]
    return (done[0]["array"], done[0]["into"], done[0]["technique"]) if done else None


def _opencl_platforms() -> bool:
    try:
        import pyopencl
        return bool(pyopencl.get_platforms())
    except Exception:
        return False


@pytest.mark.parametrize("program", sorted(EXPECTED))
def test_value_style_programs_run_in_place_and_match_gcc(tmp_path, program):
    source = VALUE_STYLE / f"{program}.c"
    exe = tmp_path / program
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-O3"])
    assert {name: r["status"] for name, r in regions.items()} == dict.fromkeys(EXPECTED[program], "optimized")
    assert {name: _storage(r) for name, r in regions.items()} == EXPECTED[program]
    for name, r in regions.items():
        for fact in r["storage"]:
            assert fact["bytes_after"] == (0 if fact["technique"] else fact["bytes_before"]), fact
            assert bool(fact["technique"]) != bool(fact["why_not"]), fact
    assert all(r["parallel_loops"] >= 1 for r in regions.values())
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=FLAGS)


@pytest.mark.parametrize("program", sorted(EXPECTED))
def test_memory_none_keeps_every_array(tmp_path, program):
    source = VALUE_STYLE / f"{program}.c"
    exe = tmp_path / program
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-O3", "-fpencil-memory=none"])
    assert all(r["storage"] == [] for r in regions.values())
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=FLAGS, threads=(2,))


@pytest.mark.skipif(not _opencl_platforms(), reason="no OpenCL platform (install PoCL: .ci/run)")
@pytest.mark.parametrize("program", sorted(EXPECTED))
def test_value_style_programs_on_opencl(tmp_path, program):
    source = VALUE_STYLE / f"{program}.c"
    exe = tmp_path / program
    _, regions = harness.build_recorded([source], exe, [*FLAGS, "-O3", "-fpencil-target=opencl"])
    assert {name: _storage(r) for name, r in regions.items()} == EXPECTED[program]
    assert all(r["target"] == "opencl" for r in regions.values())
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=FLAGS, threads=(1,))
