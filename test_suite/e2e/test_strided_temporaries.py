# SPDX-License-Identifier: MIT
"""A guarded, strided nest with block-scoped temporaries (random program seed 900227, reduced).

At -O3 the relaxed schedule of test_suite/kernels/three_address/strided_temporaries.c
once came out of isl's AST generator with a loop that stopped after its first
iteration (clangpass.poly.ast_soundness). The program must print what gcc -O0
prints, with 1 and 2 threads, and the region must stay optimised.
"""
from __future__ import annotations

import json
import sys

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.REPO_ROOT / "test_suite" / "kernels" / "three_address" / "strided_temporaries.c"


def test_strided_nest_with_temporaries_matches_gcc(tmp_path):
    reference = harness.gcc_reference(SOURCE, tmp_path / "ref")
    exe, record = tmp_path / "prog", tmp_path / "record.json"
    harness.build(PENCILCC, [SOURCE], exe, ["-O3", f"-foptimization-record-file={record}"])
    regions = json.loads(record.read_text())["regions"]
    assert [r["status"] for r in regions] == ["optimized"], regions
    for threads in ("1", "2"):
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-12) == [], threads
