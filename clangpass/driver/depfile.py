# SPDX-License-Identifier: MIT
"""Dependency files (-MD, -MMD with -MF, -MT, -MQ, -MP, -MG).

The host compiler writes them, run on the user's ORIGINAL source with the
user's preprocessor flags (`cc FLAGS -E -M[M] ... -MF tmp SOURCE -o /dev/null`),
never on the rewritten copy in pencilcc's temp dir: the file names the real
source and the real headers, and the target the user expects. Names follow gcc:
the file is -MF, else the output without its suffix plus `.d` (with -o), else
the input's stem plus `.d`; the default target is the -o value (quoted as -MQ
quotes it), else the input's stem plus `.o`.
"""
from __future__ import annotations

import os
from typing import Optional

from clangpass.driver.cli import DriverConfig, InputFile
from clangpass.driver.host import HostCompiler
from clangpass.driver.outputs import AtomicOutput, OutputSet, stem, strip_suffix


def depfile_name(config: DriverConfig, source: InputFile) -> str:
    if config.deps.file:
        return config.deps.file
    if config.output:
        return strip_suffix(config.output) + ".d"
    return stem(source.path) + ".d"


def dependency_command(config: DriverConfig, source: InputFile, depfile: str) -> list[str]:
    """Host-compiler arguments that write `source`'s dependencies to `depfile`."""
    deps = config.deps
    args = [*config.host_args, "-E", "-M" if deps.kind == "MD" else "-MM"]
    if deps.phony:
        args.append("-MP")
    if deps.missing_generated:
        args.append("-MG")
    for flag, target in deps.targets:
        args += [flag, target]
    if not deps.targets and config.output:
        args += ["-MQ", config.output]
    args += ["-MF", depfile]
    if source.x_language:
        args += ["-x", "c" if source.language == "pencil" else source.x_language]
    return [*args, source.path, "-o", os.devnull]


def write_depfile(host: HostCompiler, config: DriverConfig, source: InputFile,
                  outputs: OutputSet) -> Optional[int]:
    """Add `source`'s dependency file to `outputs`; returns the host's exit status on failure."""
    out: AtomicOutput = outputs.open(depfile_name(config, source))
    proc = host.run(dependency_command(config, source, out.path))
    return proc.returncode or None
