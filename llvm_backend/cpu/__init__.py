# SPDX-License-Identifier: MIT
"""The CPU back end: `CodegenUnit`s -> LLVM IR (llvmlite's IR builder) -> host object.

Input: the units of one translation unit (`clangpass.poly.codegen_unit`), the
`CompileOptions`. Output, by entry point:
- `build_module`: an llvmlite `ir.Module` with one external function per unit,
  `void <region.symbol>(args...)` in the C ABI of `clangpass.regions`, plus internal
  thread functions for parallel loops; verified by LLVM before it is returned;
- `emit_llvm_ir`: the module after the -O pipeline, as text (-S -emit-llvm,
  -fpencil-dump=llvm);
- `emit_object`: an ELF object for the host (deterministic: same input, same bytes);
- `runtime_link_flags`: what the final link needs (-fopenmp for libgomp, -lm);
- `TARGET`: all of it as the `cpu` target of the compile core (clangpass.targets):
  its -O pass pipelines (`pipeline.py`) and traits, object / assembly / LLVM IR
  emission, the `llvm` dump, and LLVM's own warnings returned, not printed.

Stages: `lower_region` (function, arguments, locals) -> `lower_ast` (isl AST) ->
`lower_expr` / `lower_builtins` (statement bodies, C semantics) and `parallel`
(libgomp outlining); `debug_info` adds -g line tables; `target` owns the target
machine and the pass pipeline. See docs/passes/backend-cpu.md.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import llvmlite.binding as llvm
import llvmlite.ir as ir

from clangpass.dumps import DumpSink
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.regions import iter_exprs, iter_stmts, stmt_exprs
from clangpass.targets import Artifact, Output, TargetTraits
from llvm_backend.cpu import pipeline as pipelines, target
from llvm_backend.cpu.context import ModuleContext
from llvm_backend.cpu.lower_builtins import uses_libm
from llvm_backend.cpu.lower_region import MakeLowering, cpu_lowering, lower_unit
from llvm_backend.cpu.lower_types import BackendError
from llvm_backend.cpu.parallel import uses_threads

__all__ = ["BackendError", "TARGET", "CpuTarget", "build_module", "emit_llvm_ir", "emit_object",
           "runtime_link_flags"]


def _lower(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
           machine: llvm.TargetMachine, make_lowering: MakeLowering = cpu_lowering) -> ir.Module:
    module = ir.Module(name=module_name)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    ctx = ModuleContext(module, options, machine.target_data)
    for unit in units:
        lower_unit(ctx, unit, make_lowering)
    return module


def _machine(units: Sequence[CodegenUnit], options: CompileOptions) -> llvm.TargetMachine:
    return target.target_machine(options, register_tiles=any(unit.register_tiles for unit in units))


def build_module(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
                 make_lowering: MakeLowering = cpu_lowering) -> ir.Module:
    """One LLVM function per unit, named `unit.region.symbol`; verified."""
    module = _lower(units, options, module_name, _machine(units, options), make_lowering)
    target.parse(str(module), module_name)
    return module


def _optimised(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
               make_lowering: MakeLowering = cpu_lowering) -> tuple[llvm.ModuleRef, llvm.TargetMachine]:
    machine = _machine(units, options)
    module = target.parse(str(_lower(units, options, module_name, machine, make_lowering)), module_name)
    target.optimise(module, machine, options)
    module.verify()
    return module, machine


def emit_llvm_ir(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
                 make_lowering: MakeLowering = cpu_lowering) -> str:
    """The module after the pipeline of `options.opt_level`, as LLVM assembly."""
    module, _ = _optimised(units, options, module_name, make_lowering)
    return str(module)


def emit_object(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
                make_lowering: MakeLowering = cpu_lowering) -> bytes:
    """An object file for the host holding the units' functions."""
    module, machine = _optimised(units, options, module_name, make_lowering)
    return machine.emit_object(module)


def runtime_link_flags(units: Sequence[CodegenUnit], options: CompileOptions) -> list[str]:
    """Link flags the objects of `units` need: -fopenmp when a loop runs on threads,
    -lm when a math builtin is used."""
    flags = []
    if any(uses_threads(unit, options.parallel) for unit in units):
        flags.append("-fopenmp")
    if any(_calls_libm(unit) for unit in units):
        flags.append("-lm")
    return flags


def _calls_libm(unit: CodegenUnit) -> bool:
    for stmt in unit.statements.values():
        for s in iter_stmts(stmt.body):
            for e in stmt_exprs(s):
                if any(isinstance(sub, N.Call) and sub.builtin and uses_libm(sub.callee) for sub in iter_exprs(e)):
                    return True
    return False


def _assembly(units: Sequence[CodegenUnit], options: CompileOptions, module_name: str,
              make_lowering: MakeLowering = cpu_lowering) -> str:
    """The units' assembly for `-S`, without debug information: two debug line tables
    cannot share one assembly file, and the host part's has the user's lines.

    Emitted from the optimized module's text, parsed again, as the IR `-S -emit-llvm`
    prints: emitting the optimized module itself allocates registers differently (gemm
    at -O3)."""
    text = emit_llvm_ir(units, replace(options, debug=False), module_name, make_lowering)
    return _machine(units, options).emit_assembly(target.parse(text, "regions"))


class CpuTarget:
    """The host CPU through LLVM: the compile core's `cpu` target (clangpass.targets.Target)."""

    name = "cpu"
    traits = TargetTraits()

    def pipeline(self, opt_level: int) -> Sequence[str]:
        return pipelines.pipeline(opt_level)

    def emit(self, units: Sequence[CodegenUnit], options: CompileOptions, output: Output,
             module_name: str, dumps: DumpSink) -> Artifact:
        with target.llvm_messages() as messages:
            artifact = self._emit(units, options, output, module_name, dumps)
        return replace(artifact, messages="".join(messages))

    def lowering(self, options: CompileOptions) -> MakeLowering:
        """How each unit's AST becomes its function (a subclass target's own lowering)."""
        return cpu_lowering

    def _emit(self, units: Sequence[CodegenUnit], options: CompileOptions, output: Output,
              module_name: str, dumps: DumpSink) -> Artifact:
        lowering = self.lowering(options)
        if output is Output.LLVM_IR:
            return Artifact(output, text=emit_llvm_ir(units, options, module_name, lowering))
        if output is Output.ASSEMBLY:
            return Artifact(output, text=_assembly(units, options, module_name, lowering))
        if dumps.wants("llvm"):
            dumps.emit("llvm", os.path.basename(module_name), "llvm-pipeline",
                       emit_llvm_ir(units, options, module_name, lowering))
        return Artifact(output, object_bytes=emit_object(units, options, module_name, lowering),
                        link_flags=self.link_flags(units, options),
                        mappings=tuple(self.mappings(units, options).items()))

    def mappings(self, units: Sequence[CodegenUnit], options: CompileOptions) -> dict[str, dict]:
        """symbol -> how the target mapped that region, for the record (the CPU: nothing to add)."""
        return {}

    def link_flags(self, units: Sequence[CodegenUnit], options: CompileOptions) -> tuple[str, ...]:
        return tuple(runtime_link_flags(units, options))

    def code_roots(self) -> tuple[Path, ...]:
        return (Path(__file__).resolve().parent,)


TARGET = CpuTarget()
