# SPDX-License-Identifier: MIT
"""The host target machine, LLVM's optimisation pipeline per -O level, object emission.

Pipelines (LLVM's new pass manager, `PassBuilder::buildPerModuleDefaultPipeline`,
the pipelines clang runs for the same level):
- -O0: no pass; the IR is only verified. Instruction selection runs at
  CodeGenOptLevel::None.
- -O1: the O1 pipeline (SROA/mem2reg, EarlyCSE, InstCombine, SimplifyCFG, LICM,
  IndVarSimplify, loop deletion...); no vectorisers, no unrolling.
- -O2: the O2 pipeline with the loop vectoriser, the SLP vectoriser, loop
  interleaving and unrolling (as clang -O2).
- -O3: the O3 pipeline (adds aggressive instcombine, argument promotion, loop
  unswitching with non-trivial conditions, a higher inlining threshold) with the same
  vectorisation switches.
No pass reassociates floating point or forms FMAs: the IR carries no fast-math flags
unless -ffast-math, and the target machine keeps LLVM's default FP contraction
(`Standard`: only `contract`-flagged operations fuse), so FP results match gcc -O0.

Target: the process triple; `-march=native` selects the host CPU and its
features, any other `-march=` value is passed as the CPU name. Vector width: LLVM's
tuning for many AVX-512 CPUs (`prefer-256-bit`: Skylake-SP to Sapphire Rapids,
Rocket Lake) keeps its vectorisers to 256-bit registers; a module holding register
tiles sized for the host's 64-byte registers (clangpass.passes.register_tile: 4 x 32
double accumulators, half of the 32 zmm) is compiled with that tuning off, since in
ymm the same tile needs every register and spills (gemm LARGE at -march=native on a
Rocket Lake Xeon: 0.057 s with 256-bit vectors, 0.047 s with 512-bit). Objects are
always position independent: Debian's and Ubuntu's gcc link PIE executables by
default, where a static-relocation object that takes a function's address (as the
GOMP_parallel call does) fails to link; PIC costs nothing measurable on x86-64
(RIP-relative addressing) and `-fPIC` (options.pic) needs it anyway.
"""
from __future__ import annotations

import os
import re
import sys
import tempfile
from contextlib import contextmanager
from contextvars import ContextVar
from functools import lru_cache
from typing import Iterator, Optional

import llvmlite.binding as llvm

from clangpass.options import CompileOptions
from clangpass.passes.register_tile import vector_registers


@lru_cache(maxsize=1)
def _initialise() -> None:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    llvm.initialize_native_asmparser()


def target_machine(options: CompileOptions, register_tiles: bool = False) -> llvm.TargetMachine:
    """The host's target machine; `register_tiles`: the module holds register tiles (see the
    module docstring on vector width)."""
    _initialise()
    triple = llvm.get_process_triple()
    target = llvm.Target.from_triple(triple)
    cpu, features = "", ""
    if options.march == "native":
        cpu, features = llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()
        if register_tiles and vector_registers(options)[1] == 64 and "+avx512f" in features.split(","):
            features += ",-prefer-256-bit"
    elif options.march:
        cpu = options.march
    return target.create_target_machine(cpu=cpu, features=features, opt=min(max(options.opt_level, 0), 3),
                                        reloc="pic", codemodel="small")


def optimise(module: llvm.ModuleRef, machine: llvm.TargetMachine, options: CompileOptions) -> None:
    """Run the pipeline of `options.opt_level` on `module` in place."""
    level = min(max(options.opt_level, 0), 3)
    if level == 0:
        return
    tuning = llvm.PipelineTuningOptions(speed_level=level)
    vectorise = level >= 2
    tuning.loop_vectorization = vectorise
    tuning.slp_vectorization = vectorise
    tuning.loop_interleaving = vectorise
    tuning.loop_unrolling = vectorise
    builder = llvm.create_pass_builder(machine, tuning)
    with _without_hint_warnings():
        builder.getModulePassManager().run(module, builder)


#: What LLVM prints on stderr when a loop hint of ours (`llvm.loop.vectorize.enable`,
#: `llvm.loop.unroll.full`) could not be followed: "warning: <unknown>:0:0: loop not
#: vectorized: the optimizer was unable to perform the requested transformation...".
#: The hints are the back end's, not the user's, so this is no warning about their code.
_HINT_WARNING = re.compile(r"warning: <unknown>:0:0: loop not (?:vectorized|unrolled|interleaved|distributed)"
                           r"[^\n]*?(?:transformation ordering|\n|$)")


# Where `_without_hint_warnings` puts what LLVM printed: a list while `llvm_messages` runs
# (the compile core prints nothing), otherwise stderr.
_MESSAGES: ContextVar[Optional[list[str]]] = ContextVar("pencilcc_llvm_messages", default=None)


@contextmanager
def llvm_messages() -> Iterator[list[str]]:
    """Within the body, what LLVM prints on stderr (less `_HINT_WARNING`) is appended to the
    yielded list instead of being written to stderr."""
    collected: list[str] = []
    token = _MESSAGES.set(collected)
    try:
        yield collected
    finally:
        _MESSAGES.reset(token)


@contextmanager
def _without_hint_warnings() -> Iterator[None]:
    """Run the body with file descriptor 2 captured; give back everything but LLVM's warnings
    about loop hints it could not follow (`_HINT_WARNING`), to stderr or `llvm_messages`."""
    sys.stderr.flush()
    with tempfile.TemporaryFile() as captured:
        saved = os.dup(2)
        os.dup2(captured.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            rest = _HINT_WARNING.sub("", captured.read().decode(errors="replace"))
            collected = _MESSAGES.get()
            if rest.strip() and collected is not None:
                collected.append(rest)
            elif rest.strip():
                sys.stderr.write(rest)
                sys.stderr.flush()


def parse(text: str, name: str) -> llvm.ModuleRef:
    """Parse and verify textual IR produced by llvmlite's builder."""
    _initialise()
    module = llvm.parse_assembly(text)
    module.name = name
    module.verify()
    return module
