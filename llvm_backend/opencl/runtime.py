# SPDX-License-Identifier: MIT
"""The OpenCL target's C runtime as a link sees it: its source files and what they need.

The runtime (runtime/, described in runtime/README.md) is C source that the host compiler
compiles into every program whose link has kernels, with the user's flags. This module is
the one place that knows its files: the target's link flags (`OpenclTarget.link_flags`),
the driver's links of objects built earlier and `--show-cc-args=LIBS` (both through
`OpenclTarget.runtime_flags`) and the tests take them from here. Where the folder is, in a
source checkout or an installed wheel, is `clangpass.resources.runtime_dir`'s business.
"""
from __future__ import annotations

from pathlib import Path

from clangpass.resources import runtime_dir

__all__ = ["RUNTIME_SOURCES", "RUNTIME_HEADERS", "RUNTIME_LIBS", "runtime_sources",
           "runtime_headers", "runtime_flags"]

# The runtime's translation units, each a concern (pencilcc_runtime_internal.h says what
# each holds). Every one is compiled into the program; a new file of the runtime gets its
# line here (test_opencl_runtime.py checks that the list is the folder's *.c).
RUNTIME_SOURCES: tuple[str, ...] = (
    "pencilcc_runtime.c",           # the shared state, helpers, queue synchronisation, exit
    "pencilcc_runtime_device.c",    # dlopen of libOpenCL, PENCILCC_DEVICE, context and queue
    "pencilcc_runtime_program.c",   # programs and kernels, built once per process
    "pencilcc_runtime_cache.c",     # the disk cache of program binaries
    "pencilcc_runtime_buffers.c",   # buffers by host address, transfers, discarded dead data
    "pencilcc_runtime_launch.c",    # work-group sizes and the launch (pencilcc_cl_run)
    "pencilcc_runtime_fallback.c",  # a refused launch: current host data for the CPU loop
    "pencilcc_runtime_profile.c",   # PENCILCC_PROFILE
)

# The API generated code calls (its contract), and what the runtime's files share.
RUNTIME_HEADERS: tuple[str, ...] = ("pencilcc_runtime.h", "pencilcc_runtime_internal.h")

# libOpenCL is opened with dlopen (never linked: -lOpenCL is not needed), and one mutex
# guards the runtime's state.
RUNTIME_LIBS: tuple[str, ...] = ("-ldl", "-lpthread")


def runtime_sources() -> list[Path]:
    """The runtime's C files, in link order."""
    folder = runtime_dir()
    return [folder / name for name in RUNTIME_SOURCES]


def runtime_headers() -> list[Path]:
    folder = runtime_dir()
    return [folder / name for name in RUNTIME_HEADERS]


def runtime_flags() -> list[str]:
    """What a link of a program that launches kernels adds: the runtime's sources (the host
    compiler compiles them there, with the user's flags) and the libraries they need."""
    return [*(str(path) for path in runtime_sources()), *RUNTIME_LIBS]
