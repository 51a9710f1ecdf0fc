# SPDX-License-Identifier: MIT
"""pencilcc's Python API: the compiler and the linter as functions.

    import clangpass
    status = clangpass.compile_file("gemm.c", "gemm", ["-O3"])      # like `pencilcc -O3 gemm.c -o gemm`
    status = clangpass.lint(["kernel.c"])                           # like `pencilcc --lint kernel.c`
    lib = clangpass.compile(source_or_path, flags=["-O3"])          # functions callable on numpy arrays
    lib.gemm(ni, nj, nk, alpha, beta, C, A, B)                      # C updated in place

`compile_file` and `lint` return the exit status the command would have.
`compile` (clangpass.api) builds a shared object with the driver's per-input compile in
this process and returns its functions, arguments checked against their C signatures,
and its diagnostics as values (`messages`); it raises `CompileError` with them when the
source does not compile.
`compile_file` runs the driver, which compiles each parsed file with the compile core
(`clangpass.compiler.compile_module`: outcomes, diagnostics and the target's code
as values). The driver, the front end and the passes are imported on first use,
so `import clangpass` stays cheap; `compile` and `CompileError` load clangpass.api
(and numpy) on first access.
"""
from __future__ import annotations

from typing import Sequence

from clangpass import dataclass_code

# Before any other module of pencilcc defines its dataclasses (clangpass.dataclass_code).
dataclass_code.install()

__all__ = ["__version__", "CompileError", "compile", "compile_file", "lint", "main"]

# Names served by clangpass.api, imported on first access (PEP 562) so that
# `import clangpass` does not import numpy.
_API_NAMES = ("compile", "CompileError", "CompileWarning", "CompiledModule")


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("pencilcc")
    except metadata.PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


def __getattr__(name: str):
    # `__version__` is looked up on first use: importlib.metadata and the search of the
    # installed distributions cost 25 ms, which a compile without the cache never needs.
    if name == "__version__":
        version = _version()
        globals()["__version__"] = version
        return version
    if name in _API_NAMES:
        from clangpass import api

        return getattr(api, name)
    raise AttributeError(f"module 'clangpass' has no attribute {name!r}")


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
