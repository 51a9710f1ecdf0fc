# SPDX-License-Identifier: MIT
"""pencilcc's Python API: the compiler and the linter as functions.

    import clangpass
    status = clangpass.compile_file("gemm.c", "gemm", ["-O3"])      # like `pencilcc -O3 gemm.c -o gemm`
    status = clangpass.lint(["kernel.c"])                           # like `pencilcc --lint kernel.c`

Both return the exit status the command would have. `compile_file` runs the
driver, which compiles each parsed file with the compile core
(`clangpass.compiler.compile_module`: outcomes, diagnostics and the target's code
as values). The driver, the front end and the passes are imported on first use,
so `import clangpass` stays cheap.
"""
from __future__ import annotations

from importlib import metadata
from typing import Sequence

try:
    __version__ = metadata.version("pencilcc")
except metadata.PackageNotFoundError:  # a source tree that was never installed
    __version__ = "0+unknown"

__all__ = ["__version__", "compile_file", "lint", "main"]


def main(argv: Sequence[str]) -> int:
    """Run `pencilcc ARGV` (without the program name); returns its exit status."""
    from clangpass.driver.main import main as driver_main

    return driver_main(list(argv))


def compile_file(source: str, output: str, flags: Sequence[str] = ()) -> int:
    """`pencilcc FLAGS SOURCE -o OUTPUT`: a program, or an object when FLAGS hold -c."""
    return main([*flags, source, "-o", output])


def lint(paths: Sequence[str], flags: Sequence[str] = ()) -> int:
    """`pencilcc --lint FLAGS PATHS...`: check the PENCIL rules, print diagnostics."""
    from clangpass.lint.cli import run_lint

    return run_lint([*flags, *paths])
