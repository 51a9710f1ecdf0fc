# SPDX-License-Identifier: MIT
"""The OpenCL target's pass pipelines, -O0 to -O3: plain lists of pass names (clangpass.passes).

A kernel maps the iterations of the outermost parallel loop to work-items, so no tiling
(its tile loop would give one work-item per tile), and none of the CPU's thread and
register passes; -O0/-O1 as the CPU's. The order of the passes it keeps is the CPU's
(llvm_backend.cpu.pipeline says why).
"""
from __future__ import annotations

from llvm_backend.cpu.pipeline import PIPELINES as CPU_PIPELINES

LEVEL_3 = [
    "extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "reuse-in-place",
    "contract-arrays", "dependences", "live-ranges", "relax-false-deps", "cluster-stmts", "load-schedule", "schedule",
    "mark-parallel",
    "source-order", "verify-schedule", "contract-scheduled", "codegen",
]

PIPELINES: dict[int, list[str]] = {
    0: CPU_PIPELINES[0],
    1: CPU_PIPELINES[1],
    2: LEVEL_3,
    3: LEVEL_3,
}


def pipeline(opt_level: int) -> list[str]:
    """The pipeline of `opt_level` (-Os/-Oz are 2; levels above 3 are 3)."""
    return PIPELINES[max(0, min(3, opt_level))]
