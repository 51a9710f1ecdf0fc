# SPDX-License-Identifier: MIT
"""Output files: their default names (gcc's rules) and atomic replacement.

Every output pencilcc produces (object, assembly, program, dependency file,
optimisation record, -fpencil-report page) is first written to a unique temporary beside the
target and renamed over it only when the whole command has succeeded: a failed
or interrupted compile leaves no partial file and never touches the previous
output, and two `make -j` jobs never share a temporary name. A target that
exists and is not a regular file (`-o /dev/null`) is written directly.
"""
from __future__ import annotations

import os
import stat
import tempfile
from typing import Optional

from clangpass.driver.cli import DriverConfig, InputFile


def stem(path: str) -> str:
    """The file name without directory and last suffix: `src/a.pencil.c` -> `a.pencil`."""
    return os.path.splitext(os.path.basename(path))[0]


def strip_suffix(path: str) -> str:
    """`out/x.o` -> `out/x`, `prog` -> `prog` (only the file name's suffix goes)."""
    head, tail = os.path.split(path)
    return os.path.join(head, os.path.splitext(tail)[0]) if "." in tail.lstrip(".") else path


def output_name(config: DriverConfig, source: Optional[InputFile]) -> str:
    """Where the user expects the result for `source` (gcc's defaults without -o)."""
    if config.output:
        return config.output
    if config.action == "link":
        return "a.out"
    assert source is not None
    suffix = {"compile": ".o", "assemble": ".ll" if config.emit_llvm else ".s"}[config.action]
    return stem(source.path) + suffix


def record_name(config: DriverConfig, source: Optional[InputFile]) -> str:
    """-foptimization-record-file=FILE, else the output without its suffix + `.opt.json`
    (clang's rule: `obj/x.o` -> `obj/x.opt.json`, `-o prog` -> `prog.opt.json`)."""
    if config.record_file:
        return config.record_file
    return strip_suffix(output_name(config, source)) + ".opt.json"


def output_targets(config: DriverConfig) -> list[str]:
    """Every file a command writes for the user (for -E and the other host-only actions,
    its -o: clang's -E would overwrite its input)."""
    if config.action == "host":
        return [config.output] if config.output else []
    if config.action == "link":
        targets = [output_name(config, None)]
    else:
        targets = [output_name(config, s) for s in config.inputs if s.language != "linker"]
    if config.save_record:
        targets += [record_name(config, None)] if config.record_file or config.action == "link" \
            else [record_name(config, s) for s in config.c_inputs]
    if config.options.report_file:
        targets.append(config.options.report_file)
    return targets


def input_overwritten(config: DriverConfig) -> str:
    """An input that is also an output (`-c v.c -o v.c`, also through another name or a
    hard link), or ''. gcc refuses such a command: the compile would destroy its input."""
    targets = [t for t in output_targets(config) if os.path.exists(t)]
    for source in config.inputs:
        if source.path == "-" or not os.path.exists(source.path):
            continue
        if any(os.path.samefile(source.path, t) for t in targets):
            return source.path
    return ""


def _creation_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


class AtomicOutput:
    """A temporary beside `target` that becomes `target` on `commit()`."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.direct = os.path.exists(target) and not stat.S_ISREG(os.stat(target).st_mode)
        if self.direct:
            self.path = target
            return
        directory = os.path.dirname(os.path.abspath(target))
        try:
            fd, self.path = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.",
                                             suffix=".pencilcc-tmp")
        except OSError as exc:
            # As gcc/ld: the output's folder is missing or not writable.
            from clangpass.driver.sources import DriverError
            raise DriverError(f"cannot open output file '{target}': {exc.strerror}") from None
        os.close(fd)
        # mkstemp makes 0600 files; an output has the mode a compiler would give it.
        os.chmod(self.path, _creation_mode())

    def write_bytes(self, data: bytes) -> None:
        with open(self.path, "wb") as f:
            f.write(data)

    def commit(self) -> None:
        if not self.direct:
            os.replace(self.path, self.target)

    def discard(self) -> None:
        if not self.direct and os.path.lexists(self.path):
            os.unlink(self.path)


class OutputSet:
    """All outputs of one command: committed together, or all discarded."""

    def __init__(self) -> None:
        self._pending: list[AtomicOutput] = []

    def open(self, target: str) -> AtomicOutput:
        out = AtomicOutput(target)
        self._pending.append(out)
        return out

    def commit(self) -> None:
        for out in self._pending:
            out.commit()
        self._pending.clear()

    def discard(self) -> None:
        for out in self._pending:
            out.discard()
        self._pending.clear()
