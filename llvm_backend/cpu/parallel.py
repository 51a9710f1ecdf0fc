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
  loop's statements name from the shared ones at the loop's entry (firstprivate), but for
  the buffers of packed panels (`CodegenUnit.packs`), which the loop writes before it reads.
  Values written in the loop are not copied back: the middle end only marks a
  loop parallel when no such value is live after it. The unit's `shared_locals` are
  never copied: every thread works on the one array, as on the caller's.
- Reductions (`CodegenUnit.reductions`): a shared loop that holds a reduction's
  update statements runs them on a private partial result per thread (the
  statements' target rewritten to it), initialised to the operator's identity (for `&&`
  and `||` a mark no update writes, so that a variable no update reaches stays as it
  is). After
  its iterations every thread that took part stores its partial result in its slot
  of an array the caller of GOMP_parallel allocates (one per reduction of the team,
  as many slots as threads may run; when malloc fails the team runs on one thread); after a barrier thread 0 combines the slots in
  thread order (0, 1, ...) and that into the shared element, so the result depends
  only on the thread count. A loop that runs on thread 0 alone uses slot 0 only.
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
from clangpass.ir import types as T
from clangpass.ir.walk import descendants, transform
from clangpass.poly.codegen_unit import CodegenUnit, parallel_regions, statement_names
from clangpass.poly.scop import LoopReduction
from llvm_backend.cpu import affinity, granularity, warm
from llvm_backend.cpu.context import FunctionState, ModuleContext, Variable, c_string, null_pointer
from llvm_backend.cpu.control import AccessGroup, for_range, loop_id
from llvm_backend.cpu.lower_ast import OP, AstLowering, iterator_name
from llvm_backend.cpu.lower_expr import allocate_local, bind_region_args
from llvm_backend.cpu.lower_types import I1, I8, I32, I64, PTR, VOID, is_signed, llvm_type, scalar_element

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
    inside = statement_names(body)
    reductions = [r for r in unit.reductions if inside & set(r.statements)]
    index = ctx.thread_functions
    ctx.thread_functions += 1

    # The slot arrays of the reductions are parameters after the environment (null here: typing only).
    team_fn = _team_function(ctx, unit, parent.function, environment + [null_pointer()] * len(reductions), index)
    _emit_team(ctx, unit, team_fn, len(parent.function.args), [n for n, _ in iterators], local_vars, reductions,
               body)
    trampoline = _trampoline(ctx, unit, team_fn, index)

    b = parent.builder
    requested = b.call(num_threads_function(ctx), [], name="pencil.num_threads")
    default = b.call(ctx.declare("omp_get_max_threads", I32, []), [], name="pencil.max_threads")
    available = b.select(b.icmp_signed("==", requested, _i32(0)), default, requested)
    fork = b.icmp_signed(">", available, _i32(1))
    min_work, start_work = ctx.options.thread_min_work, ctx.options.thread_start_work
    warm.add_warm_start(ctx, num_threads_function(ctx))
    if min_work > 0:
        work = granularity.parallel_work(outer, body)
        fork = b.and_(fork, b.icmp_signed(">=", work, ir.Constant(I64, min_work)), name="pencil.fork")
        if start_work > 0:
            # Waking the team's threads costs far more than a warm fork: the whole team must pay,
            # unless the program is in its warm window (llvm_backend.cpu.warm), where the clock is
            # read only for a team that passed the other tests and not this one.
            total = granularity.work(outer, body)
            big = b.icmp_signed(">=", total, ir.Constant(I64, start_work))
            if warm.supported(ctx):
                ask = b.and_(fork, b.not_(big))
                asked = b.block
                with b.if_then(ask):
                    awake = b.call(warm.now_warm(ctx), [total, ir.Constant(I64, warm.first_work(start_work))],
                                   name="pencil.warm")
                    answered = b.block
                big_or_warm = b.phi(I1, name="pencil.started")
                big_or_warm.add_incoming(big, asked)
                big_or_warm.add_incoming(awake, answered)
                big = big_or_warm
            fork = b.and_(fork, big, name="pencil.fork")
    def run_alone() -> None:
        slots = [parent.alloca(llvm_type(r.target.type), f"pencil.{r.variable}.slot") for r in reductions]
        b.call(team_fn, [*environment, *slots, ir.Constant(I64, 0), ir.Constant(I64, 1)])

    with b.if_else(fork) as (threaded, alone):
        with threaded:
            # One slot per thread the team may have: `available` bounds libgomp's team size.
            slots = [b.call(ctx.declare("malloc", PTR, [I64]),
                            [b.mul(b.zext(available, I64), ir.Constant(I64, ctx.size_of(llvm_type(r.target.type))))],
                            name=f"pencil.{r.variable}.slots") for r in reductions]
            allocated: ir.Value = ir.Constant(I1, 1)
            for slot in slots:
                allocated = b.and_(allocated, b.icmp_unsigned("!=", slot, null_pointer()))
            with b.if_else(allocated) as (started, short):
                with started:
                    # With pinning, the CPU the forking thread runs on: the team's thread 0 stays there.
                    shared = environment + slots + affinity.home(ctx, b)
                    record = ir.LiteralStructType([v.type for v in shared])
                    data = parent.alloca(record, "pencil.omp.data")
                    for i, value in enumerate(shared):
                        b.store(value, b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record))
                    b.call(ctx.declare("GOMP_parallel", VOID, [PTR, PTR, I32, I32]),
                           [trampoline, data, requested, _i32(0)])
                    warm.note_join(ctx, b)
                with short:
                    run_alone()              # no memory for the reductions' slots: one thread
            for slot in slots:
                b.call(ctx.declare("free", VOID, [PTR]), [slot])     # free(NULL) does nothing
        with alone:
            run_alone()


class Team:
    """Lowering inside a team function: the thread's number, the team's size, and who wrote
    shared memory since the last barrier."""

    def __init__(self, state: FunctionState, thread: ir.Value, threads: ir.Value,
                 locals_: list[tuple[Variable, Variable]], reductions: list[tuple[LoopReduction, ir.Value]],
                 lone_loop: bool) -> None:
        self.state = state
        self.thread = thread
        self.threads = threads
        self.locals = locals_          # (shared, private) per region local
        self.reductions = reductions   # (reduction, its slot array) per reduction in the team
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
        trips = trip_count(lowering, loop, start, step)
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
        reductions = self.reductions_of(statement_names(loop))
        partials = [self._partial(b, r, k) for k, (r, _) in enumerate(reductions)]
        if not _has_loop(loop.for_get_body()):
            self._chunk(lowering, loop, start, step, first, end, one, partials)
        else:
            # Iterations whose inner loops shrink or grow along the parallel one (triangles): every
            # thread takes every threads-th iteration (schedule(static, 1)), which evens their work.
            # One loop with a run-time stride serves both: it is not the loop the vectoriser wants.
            cyclic = b.and_(shared, self._uneven(lowering, loop, start, step, trips), name="pencil.cyclic")
            self._chunk(lowering, loop, start, step, b.select(cyclic, self.thread, first),
                        b.select(cyclic, trips, end), b.select(cyclic, self.threads, one), partials)
        if reductions:
            self._combine(lowering, shared, reductions, partials)

    def _partial(self, b: ir.IRBuilder, reduction: LoopReduction, k: int) -> Variable:
        """This thread's partial result of `reduction`, set to the operator's identity."""
        ctype = reduction.target.type
        name = f"__pencil_partial_{reduction.variable}_{k}"
        slot = self.state.alloca(llvm_type(ctype), f"pencil.{reduction.variable}.partial")
        partial = Variable(name, ctype, "memory", slot)
        b.store(reduction_identity(reduction.operator, ctype), partial.value)
        return partial

    def _combine(self, lowering: AstLowering, shared: ir.Value, reductions: list[tuple[LoopReduction, ir.Value]],
                 partials: list[Variable]) -> None:
        """Every thread that ran iterations stores its partial results in its slots; thread 0 then
        combines the slots in thread order, and that into the shared elements."""
        b = lowering.builder
        for (r, slots), partial in zip(reductions, partials):
            ty = llvm_type(r.target.type)
            with b.if_then(b.or_(shared, self.is_master)):
                mine = b.gep(slots, [self.thread], inbounds=True, source_etype=ty)
                b.store(b.load(partial.value, typ=ty), mine)
        # The slots of a shared loop are the other threads' writes: the loop's barrier rule.
        self._barrier_if(b, shared)
        b.store(ir.Constant(I8, MASTER), self.written)
        count = b.select(shared, self.threads, ir.Constant(I64, 1), name="pencil.partials")
        with b.if_then(self.is_master):
            for r, slots in reductions:
                ty = llvm_type(r.target.type)
                total = self.state.alloca(ty, f"pencil.{r.variable}.total")
                b.store(b.load(slots, typ=ty), total)
                with for_range(b, ir.Constant(I64, 1), lambda t: b.icmp_signed("<", t, count), ir.Constant(I64, 1),
                               f"pencil.{r.variable}.combine", loop_id(self.state.ctx.module, None)) as t:
                    slot = b.load(b.gep(slots, [t], inbounds=True, source_etype=ty), typ=ty)
                    b.store(combine(self.state, b, r.operator, r.target.type, b.load(total, typ=ty), slot), total)
                target = lowering.exprs.address(r.target)
                value = combine(self.state, b, r.operator, r.target.type, lowering.exprs.load(target),
                               b.load(total, typ=ty), partials=False)
                lowering.exprs.store(target, value)

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
               first: ir.Value, end: ir.Value, stride: ir.Value, partials: list[Variable]) -> None:
        """Iterations first, first + stride, ... < end of `loop` on this thread, with private locals
        and the reductions' updates on the thread's `partials`."""
        b = lowering.builder
        ctx = self.state.ctx
        used = _named_variables(lowering.unit, loop)
        private_locals = [(s, p) for s, p in self.locals if s.name in used and s.name not in lowering.unit.shared_locals]
        name = iterator_name(loop)
        group = AccessGroup(ctx.module)
        unit = lowering.unit
        first, stride = _iteration_facts(ctx, b, first, stride)
        # A packed panel's buffer is written by its copy before every read of it at the same tile
        # dates, inside the loop (pack-panels declines a band with a parallel loop under its mark):
        # no value flows into the loop, and the thread's copy needs no copying in (gemm LARGE:
        # 400 KB per thread, read from the caller's untouched stack).
        fresh = {pack.buffer for pack in unit.packs}
        with b.if_then(b.icmp_signed("<", first, end)):
            for shared_var, private in private_locals:
                if private.name not in fresh:
                    _copy_in(self.state, b, private, shared_var.value)
                self.state.scope[private.name] = private
            for partial in partials:
                self.state.scope[partial.name] = partial
            if partials:
                inside = statement_names(loop)
                lowering.unit = _on_partials(unit, [(r, p) for (r, _), p in zip(self.reductions_of(inside), partials)])
            try:
                with for_range(b, first, lambda k: b.icmp_signed("<", k, end), stride,
                               f"pencil.{name}.chunk", loop_id(ctx.module, group)) as k:
                    self.state.push_parallel(group)
                    iv = b.add(start, b.mul(k, step, flags=("nsw",)), flags=("nsw",), name=f"pencil.{name}")
                    lowering.with_id(name, iv, lambda: lowering.lower(loop.for_get_body()))
                    self.state.pop_parallel()
            finally:
                lowering.unit = unit
            for partial in partials:
                del self.state.scope[partial.name]
            for shared_var, _ in private_locals:
                self.state.scope[shared_var.name] = shared_var

    def reductions_of(self, inside: set[str]) -> list[tuple[LoopReduction, ir.Value]]:
        """The team's reductions whose updates are among the statements `inside`."""
        return [(r, slots) for r, slots in self.reductions if inside & set(r.statements)]

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
    unpack the environment and run the thread's part of the team function, the thread
    pinned to a CPU of its own meanwhile (`affinity`, unless -fno-pencil-thread-pin)."""
    fn = ir.Function(ctx.module, ir.FunctionType(VOID, [PTR]), name=f"{unit.region.symbol}.omp_fn.{index}")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    data = fn.args[0]
    data.name = "pencil.omp.data"
    record = ir.LiteralStructType([a.type for a in team_fn.args[:-2]] + affinity.home_types(ctx))
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    if ctx.debug is not None:
        b.debug_metadata = ctx.debug.location(unit.region.loc, ctx.debug.subprogram(fn, fn.name, unit.region.loc))
    fields = [b.load(b.gep(data, [_i32(0), _i32(i)], inbounds=True, source_etype=record), typ=ty)
              for i, ty in enumerate(record.elements)]
    thread = b.sext(b.call(ctx.declare("omp_get_thread_num", I32, []), []), I64, name="pencil.thread")
    threads = b.sext(b.call(ctx.declare("omp_get_num_threads", I32, []), []), I64, name="pencil.threads")
    # Each thread on its own CPU while the team runs (llvm_backend.cpu.affinity).
    n_env = len(team_fn.args) - 2
    affinity.pin_around(ctx, b, thread, threads, fields[n_env:],
                        lambda: b.call(team_fn, [*fields[:n_env], thread, threads]))
    b.ret_void()
    return fn


def _emit_team(ctx: ModuleContext, unit: CodegenUnit, fn: ir.Function, n_params: int,
               iterator_names: list[str], local_vars: list, reductions: list[LoopReduction],
               body: isl.AstNode) -> None:
    state = FunctionState.start(ctx, fn, fn.name, unit.region.loc)
    inner = AstLowering(state, unit, run_on_threads=None)
    values = list(fn.args)
    bind_region_args(inner.exprs, unit.region, values[:n_params])
    state.isl_ids.update(zip(iterator_names, values[n_params:n_params + len(iterator_names)]))
    first_local = n_params + len(iterator_names)
    pairs = []
    for (decl, _), address in zip(local_vars, values[first_local:first_local + len(local_vars)]):
        private = allocate_local(inner.exprs, decl)
        shared = replace(private, value=address)
        state.scope[decl.name] = shared
        pairs.append((shared, private))
    slots = values[first_local + len(local_vars):-2]
    lone_loop = body.get_type() == isl.ast_node_type.mark
    inner.team = Team(state, values[-2], values[-1], pairs, list(zip(reductions, slots)), lone_loop)
    inner.lower(body)
    state.finish()


def trip_count(inner: AstLowering, loop: isl.AstNode, start: ir.Value, step: ir.Value) -> ir.Value:
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


def _iteration_facts(ctx: ModuleContext, b: ir.IRBuilder, first: ir.Value,
                     stride: ir.Value) -> tuple[ir.Value, ir.Value]:
    """`first` and `stride` of a thread's chunk as `smax(first, 0)` and `smax(stride, 1)`.

    Both already hold (`first` is 0, the thread's number, that times the chunk size, or
    the trip count; `stride` is 1 or the team's size), so the clamps change no value.
    They state what LLVM cannot derive through the selects on the thread's number, an
    opaque parameter of the team function: that the chunk's counter, and so every isl
    iterator computed from it (`start + k * step`), never falls below its loop's start,
    as in the sequential loop that counts up from its start. Without it the optimised
    team function's address arithmetic has no `inbounds` / `nuw` (nothing shows it does
    not wrap), the SLP vectoriser does not pair a register tile's accumulators, and LICM,
    over its cap of memory accesses per loop for scalar promotion, leaves every scalar
    accumulator a load and a store in the reduction loop (covariance LARGE, one thread,
    -march=native: 0.37 s against the sequential build's 0.11 s; with the facts 0.11 s)."""
    smax = ctx.intrinsic("llvm.smax", I64, 2)
    return (b.call(smax, [first, ir.Constant(I64, 0)], name="pencil.first.facts"),
            b.call(smax, [stride, ir.Constant(I64, 1)], name="pencil.stride.facts"))


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


def _on_partials(unit: CodegenUnit, reductions: list[tuple[LoopReduction, Variable]]) -> CodegenUnit:
    """`unit` with each reduction's update statements writing the partial result in place of the target.

    An `||` update reads the partial as `(partial == 1)`: the partial starts at the untouched
    mark (`reduction_identity`), which must count as false there."""
    statements = dict(unit.statements)
    for r, partial in reductions:
        ref = N.VarRef(partial.name, "local", type=r.target.type)
        one = (N.FloatLit(1.0, "1.0", type=ref.type) if isinstance(ref.type, T.FloatType)
               else N.IntLit(1, type=ref.type))
        read = N.Binary("==", ref, one, type=T.INT) if r.operator == "||" else ref

        def assign(node: object, target: N.Expr = r.target, ref: N.VarRef = ref, read: N.Expr = read) -> object:
            if isinstance(node, N.Assign) and node.target == target:
                return replace(node, target=ref, value=transform(node.value, lambda e: read if e == target else e))
            return node

        def redirect(node: object, target: N.Expr = r.target, ref: N.VarRef = ref) -> object:
            return ref if isinstance(node, N.Expr) and node == target else node

        for name in r.statements:
            if name in statements:
                body = transform(transform(statements[name].body, assign), redirect)
                statements[name] = replace(statements[name], body=body)
    return replace(unit, statements=statements)


# A logical partial result no update has written: 2, neither of the 0 and 1 that `&&` and `||`
# produce. Telling it apart keeps a variable that no update reaches unchanged, as in the source
# (`v = 5` stays 5 after zero iterations, where `5 && 1` would make it 1).
UNTOUCHED = 2


def reduction_identity(operator: str, ctype: T.CType) -> ir.Constant:
    """The value `x` for which `x op y == y`; for `&&` and `||` the untouched mark (`UNTOUCHED`:
    true for `&&`'s updates, read as false by `||`'s, `_on_partials`)."""
    ty = llvm_type(ctype)
    if operator in ("&&", "||"):
        return ir.Constant(ty, float(UNTOUCHED) if isinstance(ctype, T.FloatType) else UNTOUCHED)
    if isinstance(ctype, T.FloatType):
        return ir.Constant(ty, {"+": 0.0, "*": 1.0, "min": float("inf"), "max": float("-inf")}[operator])
    bits = ty.width
    signed = is_signed(ctype)
    if operator == "min":
        return ir.Constant(ty, (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1)
    if operator == "max":
        return ir.Constant(ty, -(1 << (bits - 1)) if signed else 0)
    # `&`: all bits set (-1 is that pattern in every width, signed or not).
    return ir.Constant(ty, {"+": 0, "*": 1, "&": -1, "|": 0, "^": 0}[operator])


def combine(state: FunctionState, b: ir.IRBuilder, operator: str, ctype: T.CType, lhs: ir.Value,
           rhs: ir.Value, partials: bool = True) -> ir.Value:
    """`lhs op rhs` in `ctype` (min and max of floating values as fmin and fmax do; `&&` and `||`
    as C's, 0 or 1 converted to `ctype`, where an untouched partial result leaves the other
    operand as it is: `rhs` always, `lhs` only if it is a partial result too)."""
    if operator in ("&&", "||"):
        return _logical(b, operator, ctype, lhs, rhs, partials)
    if operator in ("&", "|", "^"):
        return {"&": b.and_, "|": b.or_, "^": b.xor}[operator](lhs, rhs)
    if isinstance(ctype, T.FloatType):
        if operator in ("min", "max"):
            return b.call(state.ctx.intrinsic("llvm.minnum" if operator == "min" else "llvm.maxnum", lhs.type, 2),
                          [lhs, rhs])
        return b.fadd(lhs, rhs) if operator == "+" else b.fmul(lhs, rhs)
    if operator in ("min", "max"):
        compare = (b.icmp_signed if is_signed(ctype) else b.icmp_unsigned)("<" if operator == "min" else ">", rhs, lhs)
        return b.select(compare, rhs, lhs)
    return b.add(lhs, rhs) if operator == "+" else b.mul(lhs, rhs)


def _logical(b: ir.IRBuilder, operator: str, ctype: T.CType, lhs: ir.Value, rhs: ir.Value,
             partials: bool) -> ir.Value:
    """`lhs && rhs` or `lhs || rhs` as 0 or 1 in `ctype`, an `UNTOUCHED` operand (see `combine`)
    giving the other one."""
    if isinstance(ctype, T.FloatType):
        zero, mark = ir.Constant(lhs.type, 0.0), ir.Constant(lhs.type, float(UNTOUCHED))
        # C's truth of a floating value is `!= 0`, NaN included (unordered).
        truths = [b.fcmp_unordered("!=", x, zero) for x in (lhs, rhs)]
        untouched = [b.fcmp_ordered("==", x, mark) for x in (lhs, rhs)]
    else:
        zero, mark = ir.Constant(lhs.type, 0), ir.Constant(lhs.type, UNTOUCHED)
        truths = [b.icmp_unsigned("!=", x, zero) for x in (lhs, rhs)]
        untouched = [b.icmp_unsigned("==", x, mark) for x in (lhs, rhs)]
    both = (b.and_ if operator == "&&" else b.or_)(*truths)
    value = b.uitofp(both, lhs.type) if isinstance(ctype, T.FloatType) else b.zext(both, lhs.type)
    if partials:
        value = b.select(untouched[0], rhs, value)
    return b.select(untouched[1], lhs, value, name="pencil.logical")


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
    env_name = c_string(module, "pencil.num_threads.env", NUM_THREADS_ENV)

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
