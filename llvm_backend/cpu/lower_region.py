# SPDX-License-Identifier: MIT
"""One `CodegenUnit` as the outlined LLVM function `void <symbol>(args...)`.

A PENCIL function that returns a value gives `<result type> <symbol>(args...)`,
which returns the region local `__pencil_result` (clangpass.regions).

Input: the unit (region interface, isl AST, statement bodies, locals). Output: an
external function in the module with the C ABI the host-compiled caller expects
(`clangpass.regions`: 'value' args by value in their C type, 'pointer' and 'array'
args as `ptr`), its parameters named `pencil.<C name>`.

Array parameters whose C type is restrict-qualified (`double A[restrict n]`, and
so PENCIL's `pencil_array`) are marked `noalias`, which is what C99 6.7.3.1 lets a
compiler assume. So are the others when the region has an alias check
(`unit.alias_check`, clangpass.poly.alias_check): the host calls this function only
when no written array overlaps another one (the pairs that cannot overlap are
distinct objects, restrict, or only read, which `noalias` allows), so LLVM's
vectoriser needs no run-time overlap checks of its own. (The model has every
access: a region may only call builtins and `const` functions, which touch no memory.)
"""
from __future__ import annotations

from typing import Callable

import llvmlite.ir as ir

from clangpass.poly.codegen_unit import CodegenUnit
from llvm_backend.cpu.context import FunctionState, ModuleContext
from llvm_backend.cpu.lower_ast import AstLowering
from llvm_backend.cpu.lower_expr import allocate_local, bind_region_args
from clangpass.regions import RESULT, returns_value
from llvm_backend.cpu.lower_types import VOID, BackendError, has_restrict, is_bool, llvm_type, param_type
from llvm_backend.cpu.parallel import run_on_threads


MakeLowering = Callable[[FunctionState, CodegenUnit], AstLowering]


def cpu_lowering(state: FunctionState, unit: CodegenUnit) -> AstLowering:
    """The CPU target's AST lowering: parallel loops on libgomp threads."""
    return AstLowering(state, unit, run_on_threads)


def lower_unit(ctx: ModuleContext, unit: CodegenUnit,
               make_lowering: MakeLowering = cpu_lowering) -> ir.Function:
    """The outlined function of `unit`; `make_lowering` gives the AST lowering (a target's own)."""
    region = unit.region
    if not region.symbol:
        raise BackendError(f"region '{region.label}' has no symbol", region.loc)
    if region.symbol in ctx.module.globals:
        raise BackendError(f"two regions share the symbol '{region.symbol}'", region.loc)
    result = llvm_type(region.function.result, region.loc) if returns_value(region) else VOID
    signature = ir.FunctionType(result, [param_type(arg) for arg in region.args])
    fn = ir.Function(ctx.module, signature, name=region.symbol)
    fn.attributes.add("nounwind")
    checked = unit.alias_check is not None
    for arg, param in zip(region.args, fn.args):
        param.name = f"pencil.{arg.name}"
        if arg.passing == "array" and (checked or has_restrict(arg.type)):
            param.add_attribute("noalias")
        if arg.passing == "value" and is_bool(arg.type):
            param.add_attribute("zeroext")
    ctx.trampolines = {callee.name: symbol for callee, symbol in zip(region.trampolines, region.trampoline_symbols)}
    state = FunctionState.start(ctx, fn, region.function.name, region.loc)
    lowering = make_lowering(state, unit)
    bind_region_args(lowering.exprs, region, list(fn.args))
    for decl in unit.locals:
        state.scope[decl.name] = allocate_local(lowering.exprs, decl)
    lowering.lower_region(unit.ast)
    if returns_value(region):
        # The function's result: the local the region body's final assignment wrote.
        if is_bool(region.function.result):
            fn.return_value.add_attribute("zeroext")
        state.finish(state.builder.load(state.scope[RESULT].value, name=f"pencil.{RESULT}"))
    else:
        state.finish()
    return fn
