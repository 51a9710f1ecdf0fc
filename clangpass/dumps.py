# SPDX-License-Identifier: MIT
"""Where stage dumps go (`-fpencil-dump=STAGE`, `-fpencil-dump-dir=DIR`).

Every dump is headed `;; pencilcc <stage> '<function>' after <pass>` and is the
output of a pure `format_*` function of its stage. Without a directory, dumps go
to stderr; with one, each dump is a numbered file `NNN-<function>-<stage>-<pass>.txt`
so that the sequence of a compilation can be read in order.
"""
from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field
from typing import TextIO

STAGES = ("ir", "scop", "deps", "schedule", "ast", "llvm", "opencl")   # opencl: -fpencil-target=opencl's kernels


@dataclass
class DumpSink:
    stages: frozenset[str] = frozenset()
    directory: str = ""
    stream: TextIO = field(default=sys.stderr)
    _count: int = 0

    def wants(self, stage: str) -> bool:
        return stage in self.stages

    def emit(self, stage: str, function: str, after: str, text: str, force: bool = False) -> None:
        """Write one dump if `stage` was asked for (or `force`, for --dump-before/after)."""
        if not (force or self.wants(stage)):
            return
        body = f";; pencilcc {stage} '{function}' after {after}\n{text.rstrip()}\n"
        if not self.directory:
            self.stream.write(body)
            return
        os.makedirs(self.directory, exist_ok=True)
        self._count += 1
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{function}-{stage}-{after}")
        with open(os.path.join(self.directory, f"{self._count:03d}-{safe}.txt"), "w") as f:
            f.write(body)
