# SPDX-License-Identifier: MIT
"""The host's compile of an input's rewritten copy, started before the analysis ends.

Input: what the analysis child tells the driver once every region's outcome is known and
before the back end emits the optimized regions (`Decided`: the optimized regions, their
run-time alias checks, the module's includes). Output: a `HostCompileAhead`, the host
compiler running on the rewritten copy in a folder of its own while the child runs LLVM.

The back end is most of a small kernel's compile (LLVM's -O3 pipeline and code generation
of register tiles take 0.1 to 1.5 s); the host's -O3 compile of the rest of the file
(`main`, initialisation, printing: about 0.1 s) no longer waits for it, on a second core.
It changes no output: when the analysis's final outcomes are in, the driver computes the
rewritten copy and the host's command again (`Compilation._compile_rewritten`); the compile
started ahead is used only when both are byte for byte those it ran, otherwise (a back-end
failure sent a region to the host, a retry of the analysis left a region out) it is ended
and the host compiles the copy as it always did. It costs no CPU time besides, but for the
rare compile it ends.
"""
from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Optional, Sequence

from clangpass.driver.rewrite import HeaderCopy
from clangpass.ir.nodes import Include
from clangpass.poly.alias_check import AliasCheck
from clangpass.regions import OptRegion


@dataclass(frozen=True)
class Decided:
    """What the analysis child sends when every region's outcome is known (picklable)."""

    optimized: tuple[tuple[OptRegion, Optional[AliasCheck]], ...]   # the optimized regions, in order
    includes: tuple[Include, ...]                                     # the module's #include directives


@dataclass
class HostCompileAhead:
    """The host compiling `argv` (the rewritten copy `text` and its `headers`, in `folder`) into `output`."""

    text: bytes
    headers: tuple[tuple[str, bytes], ...]    # (path, text) of each header copy
    argv: tuple[str, ...]
    folder: str
    output: str
    process: subprocess.Popen

    def runs(self, text: bytes, headers: Sequence[HeaderCopy], argv: Sequence[str]) -> bool:
        """Whether this compile is of `text` and `headers` with the arguments `argv`."""
        return (self.text == text and self.argv == tuple(argv)
                and self.headers == tuple((h.path, h.text) for h in headers))

    def finish(self) -> tuple[int, bytes, bytes]:
        """Wait for the host: (exit status, stdout, stderr)."""
        stdout, stderr = self.process.communicate()
        return self.process.returncode, stdout or b"", stderr or b""

    def cancel(self) -> None:
        """End the compile (its output is not wanted); its folder goes with the driver's."""
        if self.process.poll() is None:
            self.process.kill()
        self.process.communicate()

    def move_output(self, output: str) -> None:
        """Put the object the host wrote where the driver wants it."""
        if os.path.exists(self.output):
            os.replace(self.output, output)
