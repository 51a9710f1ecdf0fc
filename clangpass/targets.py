# SPDX-License-Identifier: MIT
"""Targets: what the compile core (clangpass.compiler) asks of a back end, and where to find one.

A `Target` owns, for the regions pencilcc optimizes:
- its pass pipeline per optimisation level (`pipeline`: pass names, run by
  clangpass.passes.manager; the lists live in the target's package, `pipeline.py`);
- its traits (`traits`: what passes need to know about it; they read these, never
  the target's name);
- its emitter (`emit`): the `CodegenUnit`s of one translation unit as the `Artifact`
  the caller asked for (`Output`), and its text dumps (`-fpencil-dump=llvm`) through
  the caller's `DumpSink`;
- its link needs (`link_flags`): what a program linking its objects must add;
- its code roots (`code_roots`): the folders of the code and data that decide what it
  emits and links. The compile cache's identity (clangpass.driver.cache) fingerprints
  the union over the registered targets (`code_roots` here), so that nobody else needs
  to know where a back end lives.

The registry maps a target's name to the module that exports it as `TARGET`; the
module is imported on first use, so that `import clangpass.targets` stays cheap and
nobody outside the registry imports a back end by name. `cpu` (llvm_backend.cpu) is
the default; `opencl` (llvm_backend.opencl) runs parallel loops as OpenCL kernels.
A new target is its package (`TARGET`, `pipeline.py`, its traits) and one line of
`TARGET_MODULES`.
"""
from __future__ import annotations

import enum
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, Sequence, runtime_checkable

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.poly.codegen_unit import CodegenUnit


class Output(enum.Enum):
    """What the caller wants from the target."""

    OBJECT = "object"          # -c and links: an object file and its link flags
    ASSEMBLY = "assembly"      # -S: the regions' assembly
    LLVM_IR = "llvm-ir"        # -S -emit-llvm: the regions' module after the -O pipeline


@dataclass(frozen=True)
class Artifact:
    """The target's output for the optimized regions of one translation unit (plain values:
    it crosses the driver's process boundary, clangpass.driver.isolate)."""

    output: Output
    object_bytes: bytes = b""          # Output.OBJECT
    text: str = ""                     # Output.ASSEMBLY, Output.LLVM_IR
    link_flags: tuple[str, ...] = ()   # Output.OBJECT: what linking the object needs
    messages: str = ""                 # what the target's tools printed (LLVM's warnings), for the caller to show
    # symbol of an optimized region -> how the target mapped it (plain values, for the record)
    mappings: tuple[tuple[str, dict], ...] = ()


@dataclass(frozen=True)
class TargetTraits:
    """What passes need to know about a target (its defaults are the CPU's)."""

    # A parallel loop with no loop inside it is worth marking (it runs as a kernel), rather
    # than left to the vectoriser (source-order marks the source order's loops so).
    innermost_parallel: bool = False
    # The next member of a parallel loop's band, when coincident too, is marked `coincident`
    # (two-dimensional kernels: mark-parallel, source-order).
    coincident_pairs: bool = False
    # Region data is copied to a device: the codegen pass works out what need not move (dead
    # arrays at the region's boundary, the rows each array may touch).
    device_data: bool = False
    # The updates of exact reductions may change places when scheduling (clangpass.poly.exact_reductions,
    # -fpencil-exact-reductions). What it buys is the CPU back end's (reduction-jam's rows, accumulators
    # kept in registers); on a device it only moved nussinov's diagonal update into a kernel of its
    # own, which copies the whole table there and back.
    exact_reductions: bool = True


@runtime_checkable
class Target(Protocol):
    """A back end as the compile core sees it."""

    name: str
    traits: TargetTraits

    def pipeline(self, opt_level: int) -> Sequence[str]:
        """The pass names run on every region at `opt_level` (0..3)."""
        ...

    def emit(self, units: Sequence[CodegenUnit], options: CompileOptions, output: Output,
             module_name: str, dumps: DumpSink) -> Artifact:
        """The `output` for `units` (possibly none); raises on a failure of its own."""
        ...

    def link_flags(self, units: Sequence[CodegenUnit], options: CompileOptions) -> tuple[str, ...]:
        """What a link of the objects of `units` needs (libraries, the runtime)."""
        ...

    def code_roots(self) -> tuple[Path, ...]:
        """The folders of its own code and data (Python modules, C runtime, headers): what
        the compile cache's identity fingerprints for it."""
        ...


DEFAULT_TARGET = "cpu"

# name -> the module that exports the target as `TARGET`.
TARGET_MODULES: dict[str, str] = {
    "cpu": "llvm_backend.cpu",
    "opencl": "llvm_backend.opencl",
}


def get_target(name: str = DEFAULT_TARGET) -> Target:
    """The target registered as `name`; KeyError for an unknown name."""
    return importlib.import_module(TARGET_MODULES[name]).TARGET


def code_roots() -> tuple[Path, ...]:
    """The code roots of every registered target, each once, in a fixed order: what a cache
    of compiled code must fingerprint besides clangpass itself (clangpass.driver.cache)."""
    roots = {root.resolve() for name in TARGET_MODULES for root in get_target(name).code_roots()}
    return tuple(sorted(roots))
