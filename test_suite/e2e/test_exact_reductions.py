# SPDX-License-Identifier: MIT
"""Exact reductions (clangpass.poly.exact_reductions) end to end, against gcc -O0.

nussinov (PolyBench, `?:` maxima of int) is found to reduce `table` with max; its (i, j)
band is left untiled and `reduction-jam` runs eight rows of its k chain together, their
accumulators kept in registers (the back end's accumulator scopes). `int_reductions.c` holds
the spellings people write: a `max_score` macro, a `MIN` macro, unsigned `+=` with `-=`,
`^=`, and a signed sum (overflow undefined), an fmax and a double sum, which must never count. Both must print what
gcc -O0 prints, bit for bit, at sizes that are no multiple of the jam, on 1 and 2 threads,
and with the feature off (-fno-pencil-exact-reductions)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
NUSSINOV = harness.POLYBENCH_DIR / "nussinov.c"
SPELLINGS = harness.KERNELS_DIR / "reductions" / "int_reductions.c"


def _build(tmp_path: Path, source: Path, size: str, *flags: str) -> tuple[list[str], Path, dict]:
    cflags = [*harness.KERNEL_CFLAGS, f"-D{size}"]
    exe = tmp_path / source.stem
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [source], exe, ["-O3", *cflags, *flags, f"-foptimization-record-file={record}"],
                  env={"PENCILCC_NO_CACHE": "1"})
    (region,) = json.loads(record.read_text())["regions"]
    assert region["status"] == "optimized", region["reason"]
    return cflags, exe, region


@pytest.mark.parametrize("size", ("N=97", "N=45", "N=9", "N=3"))
def test_nussinov_jammed_matches_gcc(tmp_path, size):
    cflags, exe, region = _build(tmp_path, NUSSINOV, size)
    assert region["exact_reductions"] == ["table:max"]
    if size in ("N=97", "N=45"):
        assert region["jammed_loops"] == 1 and region["tiled_bands"] == 0
    harness.assert_matches_gcc_O0(NUSSINOV, exe, tmp_path, cflags, threads=(1, 2))


def test_nussinov_without_exact_reductions(tmp_path):
    cflags, exe, region = _build(tmp_path, NUSSINOV, "N=45", "-fno-pencil-exact-reductions")
    assert region["exact_reductions"] == [] and region["jammed_loops"] == 0
    assert region["tiled_bands"] == 1 and region["wavefronts"] == 1
    harness.assert_matches_gcc_O0(NUSSINOV, exe, tmp_path, cflags, threads=(1, 2))


@pytest.mark.parametrize("size", ("N=37", "N=5"))
def test_spellings_match_gcc(tmp_path, size):
    cflags, exe, region = _build(tmp_path, SPELLINGS, size)
    # The signed sum, fmax and the double sum: never reordered.
    assert sorted(region["exact_reductions"]) == ["best:max", "bits:^", "low:min", "total:+"]
    harness.assert_matches_gcc_O0(SPELLINGS, exe, tmp_path, cflags, threads=(1, 2))
