# SPDX-License-Identifier: MIT
"""Where pencilcc's own files are: pencil.h, the CMake package and the OpenCL runtime.

An installed pencilcc has them as data packages (`clangpass._include`, ...); a
source checkout has them at the top level of the repository.
"""
from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _resource_dir(package: str, top_level: str) -> Path:
    installed = _PACKAGE_DIR / package
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / top_level


def include_dir() -> Path:
    return _resource_dir("_include", "include")


def libclang_include_dir() -> Path:
    """include/libclang/: headers only the front end's libclang searches, before the host
    compiler's builtin headers, that make those it cannot parse readable (omp.h)."""
    return include_dir() / "libclang"


def cmake_dir() -> Path:
    return _resource_dir("_cmake", "cmake")


def runtime_dir() -> Path:
    """runtime/: the C runtime of the OpenCL target (its files, and what a link of a program
    that launches kernels adds, are the target's: llvm_backend.opencl.runtime)."""
    return _resource_dir("_runtime", "runtime")
