# SPDX-License-Identifier: MIT
"""Which function-scope scalars a region owns: liveness around the region (issue 9, item 1).

test_suite/kernels/three_address/region_liveness.c has one region per case: a scalar
printed before the region and overwritten after it, one killed after it with
`__pencil_kill`, a parameter passed by value written before it is read, a temporary of a
region run in a loop of the function (all the region's own: relaxed, the loop parallel),
and a scalar whose value is returned (the caller's). Built by pencilcc -O3, the program
prints what gcc -O0 prints on 1 and 2 threads.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.REPO_ROOT / "test_suite" / "kernels" / "three_address" / "region_liveness.c"
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]


def test_scalars_dead_at_the_region_boundary_are_local(tmp_path: Path) -> None:
    exe, record = tmp_path / "liveness", tmp_path / "liveness.json"
    proc = harness.build(PENCILCC, [SOURCE], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-Wall",
                                                   "-fpencil-thread-min-work=0",
                                                   f"-foptimization-record-file={record}"])
    assert "warning" not in proc.stderr
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    assert {name: (r["status"], r["local_variables"], r["kept_variables"]) for name, r in regions.items()} == {
        "after": ("optimized", ["t", "u"], {}),
        "param": ("optimized", ["alpha"], {}),
        "kept": ("optimized", [], {"s": "used outside the region"}),
        "looped": ("optimized", ["w"], {}),
    }
    assert all(regions[name]["parallel_loops"] == 1 for name in ("after", "param", "looped"))
    harness.assert_matches_gcc_O0(SOURCE, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])
