# SPDX-License-Identifier: MIT
"""The outermost `parallel` loop of a region on threads, through libgomp.

Input: a for node under a `parallel` mark (its iterations are independent,
`clangpass.poly.codegen_unit`), met while the region function is being emitted.
Output: the loop outlined into `<symbol>.omp_fn.<k>(ptr %data)` and, in its place,
`GOMP_parallel(fn, data, num_threads, 0)` — the call gcc emits for
`#pragma omp parallel` (libgomp ships with gcc; link with -fopenmp).

- `data` is a struct on the caller's stack holding the environment the loop
  needs: the region function's parameters, the isl AST iterators of enclosing
  loops, and the addresses of the region locals. `omp_fn` unpacks it and calls
  `<symbol>.omp_chunk.<k>(environment...)`, whose parameters carry the region
  parameters' attributes (`noalias` for restrict arrays), so alias information
  is not lost through the struct; LLVM inlines it back at -O1 and above.
- Each thread recomputes VLA extents and AST parameters,
  allocates its own region locals, initialised from the caller's (firstprivate:
  a local written before the loop and read in it keeps its value; values written
  in the loop are not copied back, the middle end only marks a loop parallel when
  no such value is live after it), and runs one contiguous block of iterations:
  static scheduling, ceil(trips / threads) iterations per thread, as
  `#pragma omp for schedule(static)`.
- `parallel` marks met inside the thread function run sequentially (libgomp would
  nest teams of one thread).
- The thread count is libgomp's default (OMP_NUM_THREADS, else one per CPU) unless
  PENCILCC_NUM_THREADS is set to a positive number; it is read with getenv once per
  module and cached (monotonic atomics, so concurrent first calls are race-free).
"""
from __future__ import annotations

from typing import Optional

import islpy as isl
import llvmlite.ir as ir

from clangpass.poly.codegen_unit import CodegenUnit
from llvm_backend.cpu.context import FunctionState, ModuleContext, Variable, null_pointer
from llvm_backend.cpu.control import AccessGroup, for_range, loop_id
from llvm_backend.cpu.lower_ast import OP, AstLowering, iterator_name
from llvm_backend.cpu.lower_expr import allocate_local, bind_region_args
from llvm_backend.cpu.lower_types import I1, I8, I32, I64, PTR, VOID, llvm_type, scalar_element

NUM_THREADS_ENV = "PENCILCC_NUM_THREADS"


def run_on_threads(outer: AstLowering, loop: isl.AstNode) -> None:
    """Emit `loop` (a non-degenerate for node) as a libgomp parallel region."""
    parent = outer.state
    ctx = parent.ctx
    unit = outer.unit
    iterators = list(parent.isl_ids.items())
    local_vars = [(decl, parent.scope[decl.name]) for decl in unit.locals if decl.name in parent.scope]
    environment = [*parent.function.args, *(v for _, v in iterators), *(var.value for _, var in local_vars)]
    index = ctx.thread_functions
    ctx.thread_functions += 1

    chunk = _chunk_function(ctx, unit, parent.function, environment, index)
    _emit_chunk(ctx, unit, chunk, len(parent.function.args), [n for n, _ in iterators], local_vars, loop)
    trampoline = _trampoline(ctx, unit, chunk, index)

    b = parent.builder
    record = ir.LiteralStructType([v.type for v in environment])
    data = parent.alloca(record, "pencil.omp.data")
    for i, value in enumerate(environment):
        b.store(value, b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record))
    gomp_parallel = ctx.declare("GOMP_parallel", VOID, [PTR, PTR, I32, I32])
    b.call(gomp_parallel, [trampoline, data, b.call(num_threads_function(ctx), [], name="pencil.num_threads"),
                           _i32(0)])


def _chunk_function(ctx: ModuleContext, unit: CodegenUnit, parent: ir.Function, environment: list[ir.Value],
                    index: int) -> ir.Function:
    """`<symbol>.omp_chunk.<k>(params..., iterators..., locals...)`: one thread's share.

    Taking the environment as parameters rather than as a struct keeps the region
    parameters' attributes: `noalias` (restrict) survives, also once LLVM inlines it
    into the trampoline, as alias scopes."""
    fn = ir.Function(ctx.module, ir.FunctionType(VOID, [v.type for v in environment]),
                     name=f"{unit.region.symbol}.omp_chunk.{index}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    for source, param in zip(parent.args, fn.args):
        param.name = source.name
        for attribute in source.attributes:
            param.add_attribute(attribute)
    return fn


def _trampoline(ctx: ModuleContext, unit: CodegenUnit, chunk: ir.Function, index: int) -> ir.Function:
    """`<symbol>.omp_fn.<k>(ptr %data)`, what GOMP_parallel runs on every thread:
    unpack the environment and run the thread's chunk."""
    fn = ir.Function(ctx.module, ir.FunctionType(VOID, [PTR]), name=f"{unit.region.symbol}.omp_fn.{index}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    data = fn.args[0]
    data.name = "pencil.omp.data"
    record = ir.LiteralStructType([a.type for a in chunk.args])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if ctx.debug is not None:
        b.debug_metadata = ctx.debug.location(unit.region.loc, ctx.debug.subprogram(fn, fn.name, unit.region.loc))
    fields = [b.load(b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record), typ=ty)
              for i, ty in enumerate(record.elements)]
    b.call(chunk, fields)
    b.ret_void()
    return fn


def _emit_chunk(ctx: ModuleContext, unit: CodegenUnit, fn: ir.Function, n_params: int,
                iterator_names: list[str], local_vars: list, loop: isl.AstNode) -> None:
    state = FunctionState.start(ctx, fn, fn.name, unit.region.loc)
    inner = AstLowering(state, unit, run_on_threads=None)
    values = list(fn.args)
    bind_region_args(inner.exprs, unit.region, values[:n_params])
    state.isl_ids.update(zip(iterator_names, values[n_params:n_params + len(iterator_names)]))
    for (decl, _), shared in zip(local_vars, values[n_params + len(iterator_names):]):
        private = allocate_local(inner.exprs, decl)
        state.scope[decl.name] = private
        _copy_in(state, private, shared)

    b = state.builder
    thread = b.sext(b.call(ctx.declare("omp_get_thread_num", I32, []), []), I64, name="pencil.thread")
    threads = b.sext(b.call(ctx.declare("omp_get_num_threads", I32, []), []), I64, name="pencil.threads")
    start = inner.integer(loop.for_get_init())
    step = inner.integer(loop.for_get_inc())
    trips = _trip_count(inner, loop, start, step)
    one = ir.Constant(I64, 1)
    chunk = b.sdiv(b.add(trips, b.sub(threads, one)), threads, name="pencil.chunk")
    first = b.mul(thread, chunk, flags=("nsw",), name="pencil.first")
    end = b.add(first, chunk, flags=("nsw",))
    end = b.select(b.icmp_signed("<", end, trips), end, trips, name="pencil.end")

    name = iterator_name(loop)
    group = AccessGroup(ctx.module)
    with for_range(b, first, lambda k: b.icmp_signed("<", k, end), one,
                   f"pencil.{name}.chunk", loop_id(ctx.module, group)) as k:
        state.push_parallel(group)
        iv = b.add(start, b.mul(k, step, flags=("nsw",)), flags=("nsw",), name=f"pencil.{name}")
        inner.with_id(name, iv, lambda: inner.lower(loop.for_get_body()))
        state.pop_parallel()
    state.finish()


def _trip_count(inner: AstLowering, loop: isl.AstNode, start: ir.Value, step: ir.Value) -> ir.Value:
    """How many iterations the isl loop runs: closed form for `c <= ub` / `c < ub`,
    else counted by running its condition (conjunctions of strided bounds)."""
    b = inner.builder
    bound = upper_bound(loop)
    if bound is not None:
        expr, inclusive = bound
        last = inner.integer(expr)
        if not inclusive:
            last = b.sub(last, ir.Constant(I64, 1), flags=("nsw",))
        span = b.sub(last, start, flags=("nsw",))
        count = b.add(b.sdiv(span, step), ir.Constant(I64, 1), flags=("nsw",))
        return b.select(b.icmp_signed("<", span, ir.Constant(I64, 0)), ir.Constant(I64, 0), count,
                        name="pencil.trips")
    counter = inner.state.alloca(I64, "pencil.trips.counter")
    b.store(ir.Constant(I64, 0), counter)
    name = iterator_name(loop)

    def condition(iv: ir.Value) -> ir.Value:
        return inner.with_id(name, iv, lambda: inner.boolean(loop.for_get_cond()))

    with for_range(b, start, condition, step, f"pencil.{name}.count"):
        b.store(b.add(b.load(counter, typ=I64), ir.Constant(I64, 1)), counter)
    return b.load(counter, typ=I64, name="pencil.trips")


def upper_bound(node: isl.AstNode) -> Optional[tuple[isl.AstExpr, bool]]:
    """(bound, inclusive) when the loop condition is `iterator <= bound` or
    `iterator < bound` with a bound free of the iterator; None otherwise."""
    cond = node.for_get_cond()
    if cond.get_type() != isl.ast_expr_type.op or cond.op_get_type() not in (OP.le, OP.lt):
        return None
    lhs, rhs = cond.op_get_arg(0), cond.op_get_arg(1)
    name = iterator_name(node)
    if lhs.get_type() != isl.ast_expr_type.id or lhs.id_get_id().get_name() != name or _mentions(rhs, name):
        return None
    return rhs, cond.op_get_type() == OP.le


def _mentions(e: isl.AstExpr, name: str) -> bool:
    kind = e.get_type()
    if kind == isl.ast_expr_type.id:
        return e.id_get_id().get_name() == name
    if kind == isl.ast_expr_type.op:
        return any(_mentions(e.op_get_arg(i), name) for i in range(e.op_get_n_arg()))
    return False


def _copy_in(state: FunctionState, private: Variable, shared: ir.Value) -> None:
    """Initialise a thread's copy of a region local from the caller's."""
    b = state.entry
    if private.kind == "array":
        element = llvm_type(scalar_element(private.ctype))
        size = b.mul(private.elements, ir.Constant(I64, state.ctx.size_of(element)), flags=("nsw",))
        memcpy = state.ctx.declare("llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1])
        b.call(memcpy, [private.value, shared, size, ir.Constant(I1, 0)])
        return
    ty = llvm_type(private.ctype)
    b.store(b.load(shared, typ=ty), private.value)


def uses_threads(unit: CodegenUnit, parallel: bool) -> bool:
    """Whether lowering `unit` emits a GOMP_parallel call."""
    if not parallel:
        return False
    found = []

    def visit(node: isl.AstNode) -> bool:
        if node.get_type() == isl.ast_node_type.mark and node.mark_get_id().get_name() == "parallel":
            child = node.mark_get_node()
            if child.get_type() == isl.ast_node_type.for_ and not child.for_is_degenerate():
                found.append(True)
        return not found

    unit.ast.foreach_descendant_top_down(visit)
    return bool(found)


def num_threads_function(ctx: ModuleContext) -> ir.Function:
    """`i32 pencil.num_threads()`: PENCILCC_NUM_THREADS if positive, else 0 (libgomp's default)."""
    module = ctx.module
    existing = module.globals.get("pencil.num_threads")
    if isinstance(existing, ir.Function):
        return existing
    cache = ir.GlobalVariable(module, I32, name="pencil.num_threads.cache")
    cache.linkage = "internal"
    cache.initializer = ir.Constant(I32, -1)   # keeps its typed pointer: llvmlite's store_atomic needs it
    text = bytearray(NUM_THREADS_ENV.encode() + b"\0")
    env_name = ir.GlobalVariable(module, ir.ArrayType(I8, len(text)), name="pencil.num_threads.env")
    env_name.linkage = "private"
    env_name.global_constant = True
    env_name.unnamed_addr = True
    env_name.initializer = ir.Constant(ir.ArrayType(I8, len(text)), text)
    env_name.type = PTR

    fn = ir.Function(module, ir.FunctionType(I32, []), name="pencil.num_threads")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    entry, read, parse, publish, known = (fn.append_basic_block(n) for n in
                                          ("entry", "read", "parse", "publish", "known"))
    b = ir.IRBuilder(entry)
    cached = b.load_atomic(cache, "monotonic", 4, name="pencil.cached", typ=I32)
    b.cbranch(b.icmp_signed(">=", cached, ir.Constant(I32, 0)), known, read)
    b.position_at_end(read)
    text_value = b.call(ctx.declare("getenv", PTR, [PTR]), [env_name], name="pencil.env")
    b.cbranch(b.icmp_unsigned("!=", text_value, null_pointer()), parse, publish)
    b.position_at_end(parse)
    parsed = b.call(ctx.declare("atoi", I32, [PTR]), [text_value], name="pencil.parsed")
    b.branch(publish)
    b.position_at_end(publish)
    value = b.phi(I32, name="pencil.requested")
    value.add_incoming(ir.Constant(I32, 0), read)
    value.add_incoming(parsed, parse)
    value = b.select(b.icmp_signed("<", value, ir.Constant(I32, 0)), ir.Constant(I32, 0), value)
    b.store_atomic(value, cache, "monotonic", 4)
    b.ret(value)
    b.position_at_end(known)
    b.ret(cached)
    return fn


def _i32(value: int) -> ir.Constant:
    return ir.Constant(I32, value)
