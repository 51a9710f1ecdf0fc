# SPDX-License-Identifier: MIT
"""Thread teams: parallel loops on libgomp threads, started once per region call.

Input: a node of the isl AST met while the region function is being emitted: a for
node under a `parallel` mark (its iterations are independent) that no team
encloses, or the child of a `thread-team` mark (the outermost sequential loop
around parallel loops, `clangpass.passes.thread_team`). Output: the node outlined
into `<symbol>.omp_chunk.<k>(environment..., i64 thread, i64 threads)` and, in its
place, either `GOMP_parallel(<symbol>.omp_fn.<k>, data, num_threads, 0)` (the call
gcc emits for `#pragma omp parallel`; libgomp ships with gcc, link with -fopenmp)
or, when the granularity model (`granularity`) says the largest parallel loop
inside is too small, or one thread is asked for, a plain call with thread 0 of 1.

- `data` is a struct on the caller's stack holding the environment: the region
  function's parameters, the isl AST iterators of enclosing loops, and the
  addresses of the region locals. `omp_fn` unpacks it and calls `omp_chunk` with
  the thread's number; `omp_chunk`'s parameters carry the region parameters'
  attributes (`noalias` for restrict arrays), so alias information is not lost
  through the struct.
- Inside the team every thread runs the sequential loops and conditions
  (redundantly: they read only parameters and iterators, so all threads take the
  same path) and meets every parallel loop. A parallel loop big enough for its
  run-time estimate (`trips x work >= CompileOptions.thread_min_work`) is shared:
  static scheduling, ceil(trips / threads) contiguous iterations per thread, as
  `#pragma omp for schedule(static)`, or, when the estimated work of its first and
  middle iterations differ by more than a quarter (a triangle of tiles), every
  threads-th iteration, as `schedule(static, 1)`, which evens the threads' work;
  a smaller loop runs whole on thread 0. A
  subtree with no parallel loop runs on thread 0 only. Which of these wrote
  shared memory since the last barrier is kept at run time (`Team.written`: the
  same on every thread), and `GOMP_barrier` separates a write from the next read
  by another thread: before work on thread 0 that follows a shared loop, before a
  shared loop that follows any write. The end of the team is libgomp's join.
- Region locals are shared inside the team (thread 0's code reads and writes the
  caller's), and private inside a shared loop: each thread copies the ones the
  loop's statements name from the shared ones at the loop's entry (firstprivate).
  Values written in the loop are not copied back: the middle end only marks a
  loop parallel when no such value is live after it.
- `parallel` marks met inside a parallel loop run sequentially (libgomp would
  nest teams of one thread).
- The thread count is libgomp's default (OMP_NUM_THREADS, else one per CPU) unless
  PENCILCC_NUM_THREADS is set to a positive number; it is read with getenv once per
  module and cached (monotonic atomics, so concurrent first calls are race-free).
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl
import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir.walk import descendants
from clangpass.poly.codegen_unit import CodegenUnit, parallel_regions
from llvm_backend.cpu import granularity
from llvm_backend.cpu.context import FunctionState, ModuleContext, Variable, null_pointer
from llvm_backend.cpu.control import AccessGroup, for_range, loop_id
from llvm_backend.cpu.lower_ast import OP, AstLowering, iterator_name
from llvm_backend.cpu.lower_expr import allocate_local, bind_region_args
from llvm_backend.cpu.lower_types import I1, I8, I32, I64, PTR, VOID, llvm_type, scalar_element

NUM_THREADS_ENV = "PENCILCC_NUM_THREADS"

# Team.written: who may have written shared memory since the last barrier.
CLEAN, MASTER, ALL = 0, 1, 2


def run_on_threads(outer: AstLowering, body: isl.AstNode) -> None:
    """Emit `body` (a `parallel` mark, or a team mark's child) as one thread team."""
    parent = outer.state
    ctx = parent.ctx
    unit = outer.unit
    iterators = list(parent.isl_ids.items())
    local_vars = [(decl, parent.scope[decl.name]) for decl in unit.locals if decl.name in parent.scope]
    environment = [*parent.function.args, *(v for _, v in iterators), *(var.value for _, var in local_vars)]
    index = ctx.thread_functions
    ctx.thread_functions += 1

    team_fn = _team_function(ctx, unit, parent.function, environment, index)
    _emit_team(ctx, unit, team_fn, len(parent.function.args), [n for n, _ in iterators], local_vars, body)
    trampoline = _trampoline(ctx, unit, team_fn, index)

    b = parent.builder
    requested = b.call(num_threads_function(ctx), [], name="pencil.num_threads")
    default = b.call(ctx.declare("omp_get_max_threads", I32, []), [], name="pencil.max_threads")
    available = b.select(b.icmp_signed("==", requested, _i32(0)), default, requested)
    fork = b.icmp_signed(">", available, _i32(1))
    min_work, start_work = ctx.options.thread_min_work, ctx.options.thread_start_work
    if min_work > 0:
        work = granularity.parallel_work(outer, body)
        fork = b.and_(fork, b.icmp_signed(">=", work, ir.Constant(I64, min_work)), name="pencil.fork")
        if start_work > 0:
            # Waking the team's threads costs far more than a warm fork: the whole team must pay.
            total = granularity.work(outer, body)
            fork = b.and_(fork, b.icmp_signed(">=", total, ir.Constant(I64, start_work)), name="pencil.fork")
    with b.if_else(fork) as (threaded, alone):
        with threaded:
            record = ir.LiteralStructType([v.type for v in environment])
            data = parent.alloca(record, "pencil.omp.data")
            for i, value in enumerate(environment):
                b.store(value, b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record))
            b.call(ctx.declare("GOMP_parallel", VOID, [PTR, PTR, I32, I32]), [trampoline, data, requested, _i32(0)])
        with alone:
            b.call(team_fn, [*environment, ir.Constant(I64, 0), ir.Constant(I64, 1)])


class Team:
    """Lowering inside a team function: the thread's number, the team's size, and who wrote
    shared memory since the last barrier."""

    def __init__(self, state: FunctionState, thread: ir.Value, threads: ir.Value,
                 locals_: list[tuple[Variable, Variable]], lone_loop: bool) -> None:
        self.state = state
        self.thread = thread
        self.threads = threads
        self.locals = locals_          # (shared, private) per region local
        e = state.entry
        self.several = e.icmp_signed(">", threads, ir.Constant(I64, 1), name="pencil.several")
        self.is_master = e.icmp_signed("==", thread, ir.Constant(I64, 0), name="pencil.master")
        self.written = state.alloca(I8, "pencil.team.written")
        e.store(ir.Constant(I8, CLEAN), self.written)
        # A team of one parallel loop: nothing runs before it. (Inside a loop of the team the
        # first node emitted is not the first run: its second iteration follows the others.)
        self.fresh = lone_loop

    def on_master(self, lowering: AstLowering, node: isl.AstNode) -> None:
        """`node` (no parallel loop inside) on thread 0, after the other threads' writes."""
        b = lowering.builder
        if not self.fresh:
            written = b.load(self.written, typ=I8)
            self._barrier_if(b, b.icmp_signed("==", written, ir.Constant(I8, ALL)))
        self.fresh = False
        b.store(ir.Constant(I8, MASTER), self.written)
        with b.if_then(self.is_master):
            lowering.lower(node)

    def share(self, lowering: AstLowering, loop: isl.AstNode) -> None:
        """The parallel for node `loop`: shared among the threads when it is big enough, else on thread 0."""
        b = lowering.builder
        ctx = self.state.ctx
        start = lowering.integer(loop.for_get_init())
        step = lowering.integer(loop.for_get_inc())
        trips = _trip_count(lowering, loop, start, step)
        shared = self.several
        if ctx.options.thread_min_work > 0:
            big = b.icmp_signed(">=", granularity.work(lowering, loop), ir.Constant(I64, ctx.options.thread_min_work))
            shared = b.and_(shared, big, name="pencil.shared")
        if not self.fresh:
            written = b.load(self.written, typ=I8)
            # A shared loop reads what any thread wrote; thread 0 alone needs only the others' writes.
            after_all = b.icmp_signed("==", written, ir.Constant(I8, ALL))
            after_master = b.icmp_signed("==", written, ir.Constant(I8, MASTER))
            self._barrier_if(b, b.or_(after_all, b.and_(shared, after_master)))
        self.fresh = False
        b.store(b.select(shared, ir.Constant(I8, ALL), ir.Constant(I8, MASTER)), self.written)

        one = ir.Constant(I64, 1)
        per_thread = b.sdiv(b.add(trips, b.sub(self.threads, one)), self.threads)
        chunk = b.select(shared, per_thread, trips, name="pencil.chunk")
        alone = b.select(self.is_master, ir.Constant(I64, 0), trips)
        first = b.select(shared, b.mul(self.thread, chunk, flags=("nsw",)), alone, name="pencil.first")
        end = b.add(first, chunk, flags=("nsw",))
        end = b.select(b.icmp_signed("<", end, trips), end, trips, name="pencil.end")
        if not _has_loop(loop.for_get_body()):
            self._chunk(lowering, loop, start, step, first, end, one)
            return
        # Iterations whose inner loops shrink or grow along the parallel one (triangles): every
        # thread takes every threads-th iteration (schedule(static, 1)), which evens their work.
        # One loop with a run-time stride serves both: it is not the loop the vectoriser wants.
        cyclic = b.and_(shared, self._uneven(lowering, loop, start, step, trips), name="pencil.cyclic")
        self._chunk(lowering, loop, start, step, b.select(cyclic, self.thread, first),
                    b.select(cyclic, trips, end), b.select(cyclic, self.threads, one))

    def _uneven(self, lowering: AstLowering, loop: isl.AstNode, start: ir.Value, step: ir.Value,
                trips: ir.Value) -> ir.Value:
        """Whether the estimated work of the first and of the middle iteration differ by more than a
        quarter. (Not the last: a partial last tile would make any tiled rectangle look uneven.)"""
        b = lowering.builder
        name = iterator_name(loop)
        middle = b.add(start, b.mul(b.sdiv(trips, ir.Constant(I64, 2)), step))
        at_first = lowering.with_id(name, start, lambda: granularity.work(lowering, loop.for_get_body()))
        at_middle = lowering.with_id(name, middle, lambda: granularity.work(lowering, loop.for_get_body()))
        larger = b.select(b.icmp_signed(">", at_first, at_middle), at_first, at_middle)
        smaller = b.select(b.icmp_signed(">", at_first, at_middle), at_middle, at_first)
        spread = b.mul(b.sub(larger, smaller), ir.Constant(I64, 4))
        return b.icmp_signed(">", spread, larger, name="pencil.uneven")

    def _chunk(self, lowering: AstLowering, loop: isl.AstNode, start: ir.Value, step: ir.Value,
               first: ir.Value, end: ir.Value, stride: ir.Value) -> None:
        """Iterations first, first + stride, ... < end of `loop` on this thread, with private locals."""
        b = lowering.builder
        ctx = self.state.ctx
        used = _named_variables(lowering.unit, loop)
        private_locals = [(s, p) for s, p in self.locals if s.name in used]
        name = iterator_name(loop)
        group = AccessGroup(ctx.module)
        with b.if_then(b.icmp_signed("<", first, end)):
            for shared_var, private in private_locals:
                _copy_in(self.state, b, private, shared_var.value)
                self.state.scope[private.name] = private
            with for_range(b, first, lambda k: b.icmp_signed("<", k, end), stride,
                           f"pencil.{name}.chunk", loop_id(ctx.module, group)) as k:
                self.state.push_parallel(group)
                iv = b.add(start, b.mul(k, step, flags=("nsw",)), flags=("nsw",), name=f"pencil.{name}")
                lowering.with_id(name, iv, lambda: lowering.lower(loop.for_get_body()))
                self.state.pop_parallel()
            for shared_var, _ in private_locals:
                self.state.scope[shared_var.name] = shared_var

    def _barrier_if(self, b: ir.IRBuilder, needed: ir.Value) -> None:
        with b.if_then(b.and_(self.several, needed)):
            b.call(self.state.ctx.declare("GOMP_barrier", VOID, []), [])


def _team_function(ctx: ModuleContext, unit: CodegenUnit, parent: ir.Function, environment: list[ir.Value],
                   index: int) -> ir.Function:
    """`<symbol>.omp_chunk.<k>(params..., iterators..., locals..., thread, threads)`: one thread's part.

    Taking the environment as parameters rather than as a struct keeps the region
    parameters' attributes: `noalias` (restrict) survives, also once LLVM inlines it
    into the trampoline, as alias scopes."""
    fn = ir.Function(ctx.module, ir.FunctionType(VOID, [v.type for v in environment] + [I64, I64]),
                     name=f"{unit.region.symbol}.omp_chunk.{index}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    for source, param in zip(parent.args, fn.args):
        param.name = source.name
        for attribute in source.attributes:
            param.add_attribute(attribute)
    fn.args[-2].name = "pencil.thread"
    fn.args[-1].name = "pencil.threads"
    return fn


def _trampoline(ctx: ModuleContext, unit: CodegenUnit, team_fn: ir.Function, index: int) -> ir.Function:
    """`<symbol>.omp_fn.<k>(ptr %data)`, what GOMP_parallel runs on every thread:
    unpack the environment and run the thread's part of the team function."""
    fn = ir.Function(ctx.module, ir.FunctionType(VOID, [PTR]), name=f"{unit.region.symbol}.omp_fn.{index}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    data = fn.args[0]
    data.name = "pencil.omp.data"
    record = ir.LiteralStructType([a.type for a in team_fn.args[:-2]])
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if ctx.debug is not None:
        b.debug_metadata = ctx.debug.location(unit.region.loc, ctx.debug.subprogram(fn, fn.name, unit.region.loc))
    fields = [b.load(b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record), typ=ty)
              for i, ty in enumerate(record.elements)]
    thread = b.sext(b.call(ctx.declare("omp_get_thread_num", I32, []), []), I64, name="pencil.thread")
    threads = b.sext(b.call(ctx.declare("omp_get_num_threads", I32, []), []), I64, name="pencil.threads")
    b.call(team_fn, [*fields, thread, threads])
    b.ret_void()
    return fn


def _emit_team(ctx: ModuleContext, unit: CodegenUnit, fn: ir.Function, n_params: int,
               iterator_names: list[str], local_vars: list, body: isl.AstNode) -> None:
    state = FunctionState.start(ctx, fn, fn.name, unit.region.loc)
    inner = AstLowering(state, unit, run_on_threads=None)
    values = list(fn.args)
    bind_region_args(inner.exprs, unit.region, values[:n_params])
    state.isl_ids.update(zip(iterator_names, values[n_params:n_params + len(iterator_names)]))
    pairs = []
    for (decl, _), address in zip(local_vars, values[n_params + len(iterator_names):-2]):
        private = allocate_local(inner.exprs, decl)
        shared = replace(private, value=address)
        state.scope[decl.name] = shared
        pairs.append((shared, private))
    lone_loop = body.get_type() == isl.ast_node_type.mark
    inner.team = Team(state, values[-2], values[-1], pairs, lone_loop)
    inner.lower(body)
    state.finish()


def _trip_count(inner: AstLowering, loop: isl.AstNode, start: ir.Value, step: ir.Value) -> ir.Value:
    """How many iterations the isl loop runs: closed form for `c <= ub` / `c < ub`,
    else counted by running its condition (conjunctions of strided bounds)."""
    b = inner.builder
    cond = loop.for_get_cond()
    name = iterator_name(loop)
    # Only a lone bound gives the closed form; of a conjunction, any conjunct may stop the loop.
    simple = cond.get_type() == isl.ast_expr_type.op and cond.op_get_type() in (OP.le, OP.lt)
    bounds = list(granularity.upper_bounds(cond, name)) if simple else []
    if bounds:
        expr, inclusive = bounds[0]
        last = inner.integer(expr)
        if not inclusive:
            last = b.sub(last, ir.Constant(I64, 1), flags=("nsw",))
        span = b.sub(last, start, flags=("nsw",))
        count = b.add(b.sdiv(span, step), ir.Constant(I64, 1), flags=("nsw",))
        return b.select(b.icmp_signed("<", span, ir.Constant(I64, 0)), ir.Constant(I64, 0), count,
                        name="pencil.trips")
    counter = inner.state.alloca(I64, "pencil.trips.counter")
    b.store(ir.Constant(I64, 0), counter)

    def condition(iv: ir.Value) -> ir.Value:
        return inner.with_id(name, iv, lambda: inner.boolean(cond))

    with for_range(b, start, condition, step, f"pencil.{name}.count"):
        b.store(b.add(b.load(counter, typ=I64), ir.Constant(I64, 1)), counter)
    return b.load(counter, typ=I64, name="pencil.trips")


def _has_loop(node: isl.AstNode) -> bool:
    """Whether a for node of more than one iteration is at or under `node`."""
    found = []

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.for_ and not n.for_is_degenerate():
            found.append(True)
        return not found

    node.foreach_descendant_top_down(visit)
    return bool(found)


def _named_variables(unit: CodegenUnit, node: isl.AstNode) -> set[str]:
    """The C names the statements under `node` use."""
    names: set[str] = set()

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.user:
            stmt = unit.statements.get(n.user_get_expr().op_get_arg(0).id_get_id().get_name())
            if stmt is not None:
                names.update(v.name for v in descendants(stmt.body) if isinstance(v, N.VarRef))
        return True

    node.foreach_descendant_top_down(visit)
    return names


def _copy_in(state: FunctionState, b: ir.IRBuilder, private: Variable, shared: ir.Value) -> None:
    """Initialise a thread's copy of a region local from the shared one."""
    if private.kind == "array":
        element = llvm_type(scalar_element(private.ctype))
        size = b.mul(private.elements, ir.Constant(I64, state.ctx.size_of(element)), flags=("nsw",))
        memcpy = state.ctx.declare("llvm.memcpy.p0.p0.i64", VOID, [PTR, PTR, I64, I1])
        b.call(memcpy, [private.value, shared, size, ir.Constant(I1, 0)])
        return
    ty = llvm_type(private.ctype)
    b.store(b.load(shared, typ=ty), private.value)


def uses_threads(unit: CodegenUnit, parallel: bool) -> bool:
    """Whether lowering `unit` may emit a GOMP_parallel call."""
    return parallel and parallel_regions(unit.ast) > 0


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
