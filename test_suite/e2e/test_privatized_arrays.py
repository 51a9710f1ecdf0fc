# SPDX-License-Identifier: MIT
"""Caller arrays used as per-iteration temporaries run on private copies (privatize-arrays).

test_suite/kernels/privatization/temporaries.c holds doitgen, a temporary whose elements
are last written in different rows, a caller scalar read after the region and an array
whose values enter the region (not privatized). Every build must print what gcc -O0
prints, with 1 and 2 threads, at the default, tiny and odd sizes; the record lists the
privatized arrays and the loops they free.
"""
from __future__ import annotations

import json
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.KERNELS_DIR / "privatization" / "temporaries.c"
PRIVATIZED = {"doitgen": ["sum"], "triangle": ["t"], "scalar": ["t"], "live_in": []}


@pytest.mark.parametrize("sizes", [(), ("-DN=1", "-DM=1"), ("-DN=13", "-DM=4")], ids=["default", "one", "odd"])
def test_privatized_temporaries_match_gcc(tmp_path, sizes):
    exe = tmp_path / "prog"
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [SOURCE], exe, ["-O3", *sizes, f"-foptimization-record-file={record}"])
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    assert {name: r["status"] for name, r in regions.items()} == dict.fromkeys(PRIVATIZED, "optimized")
    assert {name: r["privatized_arrays"] for name, r in regions.items()} == PRIVATIZED
    assert all(regions[name]["parallel_loops"] >= 1 for name in ("doitgen", "triangle", "scalar"))
    harness.assert_matches_gcc_O0(SOURCE, exe, tmp_path, flags=sizes)


def test_disabled_pass_keeps_the_arrays_shared(tmp_path):
    exe = tmp_path / "prog"
    record = tmp_path / "record.json"
    harness.build(PENCILCC, [SOURCE], exe, ["-O3", "--disable-pass=privatize-arrays",
                                            f"-foptimization-record-file={record}"])
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    assert all(r["privatized_arrays"] == [] for r in regions.values())
    assert regions["doitgen"]["parallel_loops"] == 0
    harness.assert_matches_gcc_O0(SOURCE, exe, tmp_path)
