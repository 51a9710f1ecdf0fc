# SPDX-License-Identifier: MIT
"""What lowering keeps while it emits: one `ModuleContext` per LLVM module, one
`FunctionState` per LLVM function under construction.

`FunctionState.scope` maps the C names a statement body may use to `Variable`s:
region arguments (bound from the function's parameters, or from the captured
environment inside a thread function), region locals (allocas, one set per LLVM
function, hence per thread) and the iterators of the statement instance being
executed (i64 values from the isl AST). `FunctionState.isl_ids` maps the isl AST's
own identifiers (loop iterators c0, c1, ...) to i64 values.
"""
from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Optional, Sequence

import llvmlite.binding as llvm
import llvmlite.ir as ir

from clangpass.ir import types as T
from clangpass.options import CompileOptions
from clangpass.ir import nodes as N
from llvm_backend.cpu.control import AccessGroup
from llvm_backend.cpu.debug_info import DebugInfo
from llvm_backend.cpu.lower_types import PTR


@dataclass
class Variable:
    """A C name visible to statement bodies.

    kind: 'value'    an SSA value of the C type (a region argument passed by value);
          'iterator' an i64 value converted to the C type at each use;
          'memory'   `value` is the address of a scalar or struct (locals, 'pointer' args);
          'array'    `value` is the address of the first element; `extents` are the i64
                     extents of the dimensions below the first subscript.
    `shared_array` marks region-argument arrays: their accesses join the access
    groups of enclosing parallel loops (locals are private and never do).
    """

    name: str
    ctype: T.CType
    kind: str
    value: ir.Value
    extents: tuple[ir.Value, ...] = ()
    shared_array: bool = False
    elements: Optional[ir.Value] = None   # local arrays: number of scalar elements (i64)


class ModuleContext:
    """One LLVM module: its functions, declarations and target data."""

    def __init__(self, module: ir.Module, options: CompileOptions, target_data: llvm.TargetData) -> None:
        self.module = module
        self.options = options
        self.target_data = target_data
        # -ffast-math's `fast` includes `contract`; -ffp-contract=fast alone only lets a
        # multiply and an add fuse (instruction selection makes the FMA)
        self.fast_math = ("fast",) if options.fast_math else ("contract",) if options.fp_contract else ()
        # -ffp-contract=on: a multiply fuses only into the add or subtract of its own expression,
        # lowered as llvm.fmuladd (llvm_backend.cpu.lower_expr); `contract` flags already fuse more
        self.fuse_products = options.fp_contract_on and not self.fast_math
        self.thread_functions = 0
        self.trampolines: dict[str, str] = {}   # internal function -> its external wrapper (lower_unit sets it)
        self.debug = DebugInfo(module, module.name, options.debug_prefix_map) if options.debug else None

    def declare(self, name: str, result: ir.Type, params: Sequence[ir.Type]) -> ir.Function:
        """An external function (libm, libgomp, libc) or an LLVM intrinsic, declared once."""
        existing = self.module.globals.get(name)
        if isinstance(existing, ir.Function):
            return existing
        fn = ir.Function(self.module, ir.FunctionType(result, list(params)), name=name)
        fn.attributes.add("nounwind")
        return fn

    def intrinsic(self, name: str, ty: ir.Type, n_args: int, extra: Sequence[ir.Type] = ()) -> ir.Function:
        """An overloaded intrinsic on `ty`: llvm.sqrt.f64, llvm.ctpop.i32, ..."""
        return self.declare(f"{name}.{type_suffix(ty)}", ty, [ty] * n_args + list(extra))

    def size_of(self, ty: ir.Type) -> int:
        return ty.get_abi_size(self.target_data)


def type_suffix(ty: ir.Type) -> str:
    if isinstance(ty, ir.IntType):
        return f"i{ty.width}"
    if isinstance(ty, ir.FloatType):
        return "f32"
    if isinstance(ty, ir.DoubleType):
        return "f64"
    raise TypeError(ty)


@dataclass
class FunctionState:
    """One LLVM function being emitted.

    `entry` collects allocas and values computed once (extents, AST parameters); it
    branches to the first body block when the function is finished.
    """

    ctx: ModuleContext
    function: ir.Function
    entry: ir.IRBuilder
    builder: ir.IRBuilder
    scope: dict[str, Variable] = field(default_factory=dict)
    isl_ids: dict[str, ir.Value] = field(default_factory=dict)
    parameters: dict[str, ir.Value] = field(default_factory=dict)   # AST parameters, i64, at entry
    parallel_groups: list[AccessGroup] = field(default_factory=list)
    access_group_list: Optional[ir.MDValue] = None
    # Under one row of a register tile that lower_ast unrolls itself: array name -> (its
    # `!alias.scope` list, its `!noalias` list) for the arrays register_rows proved.
    row_scopes: dict[str, tuple[ir.MDValue, ir.MDValue]] = field(default_factory=dict)
    # In an innermost loop whose accumulators accumulators.py proved apart from its other accesses:
    # array name -> (the accumulator chains, their (`!alias.scope`, `!noalias`), the other chains').
    accumulator_scopes: dict[str, tuple[frozenset, tuple[ir.MDValue, ir.MDValue], tuple[ir.MDValue, ir.MDValue]]] = \
        field(default_factory=dict)
    debug_scope: Optional[ir.DIValue] = None

    @classmethod
    def start(cls, ctx: ModuleContext, function: ir.Function, name: str, loc: N.SourceLoc) -> "FunctionState":
        """A new function body; `name` and `loc` are what -g reports for it."""
        entry_block = function.append_basic_block("entry")
        body_block = function.append_basic_block("pencil.body")
        state = cls(ctx, function, ir.IRBuilder(entry_block), ir.IRBuilder(body_block))
        if ctx.debug is not None:
            state.debug_scope = ctx.debug.subprogram(function, name, loc)
            state.entry.debug_metadata = state.builder.debug_metadata = ctx.debug.location(loc, state.debug_scope)
        return state

    def at_statement(self, loc: N.SourceLoc) -> Optional[ir.DIValue]:
        """Attribute the instructions emitted from now on to `loc`; returns the previous location."""
        previous = self.builder.debug_metadata
        if self.debug_scope is not None and loc.line > 0:
            self.builder.debug_metadata = self.ctx.debug.location(loc, self.debug_scope)
        return previous

    def finish(self, result: Optional[ir.Value] = None) -> None:
        if result is None:
            self.builder.ret_void()
        else:
            self.builder.ret(result)
        self.entry.branch(self.function.blocks[1])

    @contextmanager
    def at_entry(self) -> Iterator[None]:
        """Emit into the entry block: values computed once per call (extents, parameters)."""
        saved = self.builder
        self.builder = self.entry
        try:
            yield
        finally:
            self.builder = saved

    def alloca(self, ty: ir.Type, name: str, count: Optional[ir.Value] = None) -> ir.Value:
        slot = self.entry.alloca(ty, size=count, name=name)
        slot.type = PTR  # opaque, like every other pointer we emit (llvmlite types allocas)
        return slot

    def push_parallel(self, group: AccessGroup) -> None:
        self.parallel_groups.append(group)
        self._refresh_groups()

    def pop_parallel(self) -> None:
        self.parallel_groups.pop()
        self._refresh_groups()

    def _refresh_groups(self) -> None:
        groups = self.parallel_groups
        if not groups:
            self.access_group_list = None
        elif len(groups) == 1:
            self.access_group_list = groups[0]
        else:
            self.access_group_list = self.ctx.module.add_metadata(list(groups))


def null_pointer() -> ir.Constant:
    return ir.Constant(PTR, None)


def c_string(module: ir.Module, name: str, text: str) -> ir.GlobalVariable:
    """A private, constant, NUL-terminated copy of `text` in `module` (an environment
    variable's name for getenv, say), as an opaque pointer."""
    data = bytearray(text.encode() + b"\0")
    var = ir.GlobalVariable(module, ir.ArrayType(ir.IntType(8), len(data)), name=name)
    var.linkage = "private"
    var.global_constant = True
    var.unnamed_addr = True
    var.initializer = ir.Constant(ir.ArrayType(ir.IntType(8), len(data)), data)
    var.type = PTR
    return var
