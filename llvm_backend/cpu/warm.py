# SPDX-License-Identifier: MIT
"""A warm start for thread teams: the idle CPUs kept awake for a bounded time from program start.

On a virtual machine an idle vCPU is halted, and the first fork of a program (or one after
a long sleep) waits for the host to schedule it again: 2 to 7 ms on this project's VM
against 1.5 to 3.3 us for a fork whose threads are spinning (docs/passes/thread-team.md,
"The first fork"). Production OpenMP runtimes hide it by spinning after each region (LLVM's
libomp for KMP_BLOCKTIME, 200 ms; libgomp for GOMP_SPINCOUNT, about 3 ms); nothing spins
before the first one. This module does that part, in IR like `pencil.num_threads` (the CPU
back end has no C runtime of its own, runtime/README.md):

- `pencil.warm.start`, a constructor (`llvm.global_ctors`) of every module that may fork
  (`parallel.uses_threads`), built with `-fpencil-thread-warm-ms=MS` > 0 (default 200).
  Unless PENCILCC_THREAD_WARM_MS (read once, at that moment) says otherwise (a number of
  milliseconds; 0 or less: off), it sets the program's warm deadline to now + MS and starts
  `min(threads, CPUs) - 1` detached spinner threads (threads: PENCILCC_NUM_THREADS, else
  `omp_get_max_threads()`; CPUs: `omp_get_num_procs()`). Only the first constructor of a
  program to run does anything: the state is a pair of weak hidden globals
  (`pencilcc_warm_started`, `pencilcc_warm_until`) that the linker merges across objects.
- `pencil.warm.spin`, each spinner: switches itself to SCHED_IDLE (any ordinary thread
  that becomes runnable on its CPU, libgomp's worker included, preempts it, and it takes
  almost nothing from other processes), then waits with `pause` until the deadline and
  returns. It never runs past the deadline: the CPU time it can burn is bounded by MS per
  spinner, once per program.
- `pencil.warm.now_warm`, the fork gate's question (`parallel.run_on_threads`): whether the
  clock is before the deadline and the CPUs are awake and free (each spinner's beat, its
  last look at the clock, is recent, or a team joined a moment ago). Then a fork costs
  microseconds, so the per-loop threshold (`-fpencil-thread-min-work`) decides and
  `-fpencil-thread-start-work` is not applied, except that the program's first fork, which
  also creates libgomp's threads, needs 1/FIRST_FRACTION of the start work; after the
  deadline (or with the warm start off) the start test applies as before.

Linux only (SCHED_IDLE and CLOCK_MONOTONIC by their Linux numbers); on another host the
module gets neither the constructor nor the warm gate.
"""
from __future__ import annotations

import llvmlite.ir as ir

from llvm_backend.cpu.context import ModuleContext, c_string, null_pointer
from llvm_backend.cpu.lower_types import I1, I32, I64, PTR, VOID

WARM_ENV = "PENCILCC_THREAD_WARM_MS"
STARTED = "pencilcc_warm_started"      # i32: 0 until a constructor claims the warm start
UNTIL = "pencilcc_warm_until"          # i64: CLOCK_MONOTONIC nanoseconds; 0: no warm window
SPINNERS = "pencilcc_warm_spinners"    # i32: spinner threads asked for
BEATS = "pencilcc_warm_beats"          # [MAX_SPINNERS x i64]: each spinner's last look at the clock
JOINED = "pencilcc_warm_joined"        # i64: when a team last joined
FORKED = "pencilcc_warm_forked"        # i32: 1 once the gate let a team fork: the spinners leave
MAX_SPINNERS = 64
FRESH_NS = 500_000                     # a beat older than this: another process holds that CPU
JOINED_NS = 1_000_000                  # libgomp's threads spin about 3 ms after a join (GOMP_SPINCOUNT)
# The program's first fork creates libgomp's threads: about 0.15 ms on an awake CPU here (against
# 2 to 7 ms to wake a halted one, docs/passes/thread-team.md); the window's first team must weigh
# 1/FIRST_FRACTION of the start test's work (20 million units at the default, 0.4 to 1 ms of
# vectorised code).
FIRST_FRACTION = 25
CLOCK_MONOTONIC = 1                    # Linux's clockid_t
SCHED_IDLE = 5                         # Linux's scheduling policy
PAUSES = 256                           # pause instructions between two looks at the clock
TIMESPEC = ir.LiteralStructType([I64, I64])


def supported(ctx: ModuleContext) -> bool:
    """Whether this module gets a warm start: built with one, for a Linux host."""
    return ctx.options.thread_warm_ms > 0 and "linux" in (ctx.module.triple or "")


def _shared(ctx: ModuleContext, name: str, ty: ir.Type) -> ir.GlobalVariable:
    existing = ctx.module.globals.get(name)
    if isinstance(existing, ir.GlobalVariable):
        return existing
    var = ir.GlobalVariable(ctx.module, ty, name=name)
    var.linkage = "weak"            # one per program: the linker keeps the first definition
    # ... and a shared object does not export it: llvmlite has no visibility for globals, and
    # its storage class is printed where LLVM's syntax puts the visibility (after the linkage).
    var.storage_class = "hidden"
    var.initializer = ir.Constant(ty, None)     # zeroinitializer
    return var


def _internal(ctx: ModuleContext, name: str, result: ir.Type, params: list[ir.Type]) -> tuple[ir.Function, bool]:
    existing = ctx.module.globals.get(name)
    if isinstance(existing, ir.Function):
        return existing, False
    fn = ir.Function(ctx.module, ir.FunctionType(result, params), name=name)
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    return fn, True


def _now(ctx: ModuleContext) -> ir.Function:
    """`i64 pencil.warm.now()`: CLOCK_MONOTONIC in nanoseconds."""
    fn, new = _internal(ctx, "pencil.warm.now", I64, [])
    if not new:
        return fn
    b = ir.IRBuilder(fn.append_basic_block("entry"))
    spec = b.alloca(TIMESPEC, name="pencil.warm.timespec")
    spec.type = PTR
    b.call(ctx.declare("clock_gettime", I32, [I32, PTR]), [ir.Constant(I32, CLOCK_MONOTONIC), spec])
    seconds = b.load(b.gep(spec, [ir.Constant(I32, 0), ir.Constant(I32, 0)], source_etype=TIMESPEC), typ=I64)
    nanos = b.load(b.gep(spec, [ir.Constant(I32, 0), ir.Constant(I32, 1)], source_etype=TIMESPEC), typ=I64)
    b.ret(b.add(b.mul(seconds, ir.Constant(I64, 1_000_000_000)), nanos))
    return fn


def _beats(ctx: ModuleContext) -> ir.GlobalVariable:
    return _shared(ctx, BEATS, ir.ArrayType(I64, MAX_SPINNERS))


def _beat(b: ir.IRBuilder, beats: ir.GlobalVariable, k: ir.Value) -> ir.Value:
    """The address of spinner `k`'s beat, typed (llvmlite's atomic loads and stores check it)."""
    slot = b.gep(beats, [ir.Constant(I32, 0), k], source_etype=beats.value_type)
    slot.type = ir.PointerType(I64)
    return slot


def first_work(start_work: int) -> int:
    """The whole work a team needs for the program's first fork inside the window."""
    return start_work // FIRST_FRACTION


def now_warm(ctx: ModuleContext) -> ir.Function:
    """`i1 pencil.warm.now_warm(i64 work, i64 first)`: whether a fork of a team of estimated
    `work` now finds its CPUs awake and free: inside the warm window, and either a team joined
    less than JOINED_NS ago (libgomp's threads still spin) or every spinner looked at the clock
    less than FRESH_NS ago (a SCHED_IDLE thread runs only on an otherwise idle CPU: a stale beat
    means another process holds that CPU, and a team would wait for it at every barrier). The
    program's first fork also creates libgomp's threads: it needs `work >= first` as well."""
    fn, new = _internal(ctx, "pencil.warm.now_warm", I1, [I64, I64])
    if not new:
        return fn
    work, first = fn.args
    names = ("entry", "window", "inside", "created", "beats", "loop", "next", "yes", "no")
    blocks = {n: fn.append_basic_block(n) for n in names}
    b = ir.IRBuilder(blocks["entry"])
    until = b.load_atomic(_shared(ctx, UNTIL, I64), "monotonic", 8, typ=I64, name="pencil.warm.until")
    b.cbranch(b.icmp_signed(">", until, ir.Constant(I64, 0)), blocks["window"], blocks["no"])
    b.position_at_end(blocks["window"])
    now = b.call(_now(ctx), [], name="pencil.warm.now")
    b.cbranch(b.icmp_signed("<", now, until), blocks["inside"], blocks["no"])
    b.position_at_end(blocks["inside"])
    joined = b.load_atomic(_shared(ctx, JOINED, I64), "monotonic", 8, typ=I64)
    recent = b.icmp_signed("<", b.sub(now, joined), ir.Constant(I64, JOINED_NS))
    b.cbranch(recent, blocks["yes"], blocks["created"])
    b.position_at_end(blocks["created"])
    never = b.icmp_signed("==", joined, ir.Constant(I64, 0))
    b.cbranch(b.and_(never, b.icmp_signed("<", work, first)), blocks["no"], blocks["beats"])
    b.position_at_end(blocks["beats"])
    count = b.load_atomic(_shared(ctx, SPINNERS, I32), "monotonic", 4, typ=I32)
    b.branch(blocks["loop"])
    b.position_at_end(blocks["loop"])
    k = b.phi(I32, name="pencil.warm.k")
    k.add_incoming(ir.Constant(I32, 0), blocks["beats"])
    b.cbranch(b.icmp_signed("<", k, count), blocks["next"], blocks["yes"])
    b.position_at_end(blocks["next"])
    slot = _beat(b, _beats(ctx), k)
    beat = b.load_atomic(slot, "monotonic", 8, typ=I64)
    k.add_incoming(b.add(k, ir.Constant(I32, 1)), blocks["next"])
    fresh = b.icmp_signed("<", b.sub(now, beat), ir.Constant(I64, FRESH_NS))
    b.cbranch(fresh, blocks["loop"], blocks["no"])
    b.position_at_end(blocks["yes"])
    # The team now forks: the spinners have kept the CPUs awake and leave them to its threads
    # (still spinning beside a team, even at SCHED_IDLE, they cost it up to 20x at LARGE atax:
    # 50 ms against 2.2 ms in some runs).
    b.store_atomic(ir.Constant(I32, 1), _shared(ctx, FORKED, I32), "monotonic", 4)
    b.ret(ir.Constant(I1, 1))
    b.position_at_end(blocks["no"])
    b.ret(ir.Constant(I1, 0))
    return fn


def note_join(ctx: ModuleContext, b: ir.IRBuilder) -> None:
    """After a team's join: its threads spin in libgomp for a while (warm for the next fork)."""
    if supported(ctx):
        b.store_atomic(b.call(_now(ctx), []), _shared(ctx, JOINED, I64), "monotonic", 8)


def _spin(ctx: ModuleContext) -> ir.Function:
    """`ptr pencil.warm.spin(ptr slot)`: a spinner thread's body (SCHED_IDLE, until the deadline;
    `slot` is its index in `pencilcc_warm_beats`, as a pointer-sized integer)."""
    fn, new = _internal(ctx, "pencil.warm.spin", PTR, [PTR])
    if not new:
        return fn
    entry, outer, inner, leave = (fn.append_basic_block(n) for n in ("entry", "outer", "inner", "leave"))
    b = ir.IRBuilder(entry)
    param = b.alloca(I32, name="pencil.warm.sched_param")
    param.type = PTR
    b.store(ir.Constant(I32, 0), param)
    # Pid 0: the calling thread. Where it fails (a seccomp filter, say) the spinner stays an
    # ordinary thread, still bounded by the deadline.
    b.call(ctx.declare("sched_setscheduler", I32, [I32, I32, PTR]),
           [ir.Constant(I32, 0), ir.Constant(I32, SCHED_IDLE), param])
    until = b.load_atomic(_shared(ctx, UNTIL, I64), "monotonic", 8, typ=I64)
    slot = _beat(b, _beats(ctx), b.ptrtoint(fn.args[0], I64))
    b.branch(outer)
    b.position_at_end(outer)          # the beat; past the deadline, or once a team forked, it ends
    now = b.call(_now(ctx), [])
    b.store_atomic(now, slot, "monotonic", 8)
    forked = b.load_atomic(_shared(ctx, FORKED, I32), "monotonic", 4, typ=I32)
    over = b.or_(b.icmp_signed(">=", now, until), b.icmp_signed("!=", forked, ir.Constant(I32, 0)))
    b.cbranch(over, leave, inner)
    b.position_at_end(inner)          # PAUSES pauses between two looks at the clock
    count = b.phi(I32, name="pencil.warm.pauses")
    count.add_incoming(ir.Constant(I32, 0), outer)
    if (ctx.module.triple or "").startswith(("x86_64", "i386", "i686")):
        b.call(ctx.declare("llvm.x86.sse2.pause", VOID, []), [])
    else:
        b.fence("seq_cst")      # keeps the loop from being folded away where there is no pause
    following = b.add(count, ir.Constant(I32, 1))
    count.add_incoming(following, inner)
    b.cbranch(b.icmp_signed("<", following, ir.Constant(I32, PAUSES)), inner, outer)
    b.position_at_end(leave)
    b.ret(null_pointer())
    return fn


def add_warm_start(ctx: ModuleContext, num_threads: ir.Function) -> None:
    """The constructor that starts the program's warm window (once per module)."""
    if not supported(ctx) or isinstance(ctx.module.globals.get("pencil.warm.start"), ir.Function):
        return
    fn, _ = _internal(ctx, "pencil.warm.start", VOID, [])
    module = ctx.module
    blocks = {n: fn.append_basic_block(n) for n in ("entry", "claimed", "env", "chosen", "spinners", "loop",
                                                    "create", "next", "done")}
    b = ir.IRBuilder(blocks["entry"])
    claim = b.cmpxchg(_shared(ctx, STARTED, I32), ir.Constant(I32, 0), ir.Constant(I32, 1), "monotonic", "monotonic")
    b.cbranch(b.extract_value(claim, 1), blocks["claimed"], blocks["done"])

    b.position_at_end(blocks["claimed"])
    env_name = c_string(module, "pencil.warm.env", WARM_ENV)
    value = b.call(ctx.declare("getenv", PTR, [PTR]), [env_name])
    b.cbranch(b.icmp_unsigned("!=", value, null_pointer()), blocks["env"], blocks["chosen"])
    b.position_at_end(blocks["env"])
    parsed = b.call(ctx.declare("atoi", I32, [PTR]), [value])
    b.branch(blocks["chosen"])
    b.position_at_end(blocks["chosen"])
    ms = b.phi(I32, name="pencil.warm.ms")
    ms.add_incoming(ir.Constant(I32, min(ctx.options.thread_warm_ms, 2**31 - 1)), blocks["claimed"])
    ms.add_incoming(parsed, blocks["env"])
    requested = b.call(num_threads, [])
    threads = b.select(b.icmp_signed("==", requested, ir.Constant(I32, 0)),
                       b.call(ctx.declare("omp_get_max_threads", I32, []), []), requested)
    cpus = b.call(ctx.declare("omp_get_num_procs", I32, []), [])
    fewer = b.select(b.icmp_signed("<", threads, cpus), threads, cpus)
    spinners = b.sub(fewer, ir.Constant(I32, 1), name="pencil.warm.spinners")
    wanted = b.and_(b.icmp_signed(">", ms, ir.Constant(I32, 0)), b.icmp_signed(">", spinners, ir.Constant(I32, 0)))
    b.cbranch(wanted, blocks["spinners"], blocks["done"])

    b.position_at_end(blocks["spinners"])
    spinners = b.select(b.icmp_signed(">", spinners, ir.Constant(I32, MAX_SPINNERS)),
                        ir.Constant(I32, MAX_SPINNERS), spinners)
    start = b.call(_now(ctx), [])
    beats = _beats(ctx)
    # Every beat starts now: a spinner that has not run yet is not taken for a busy CPU at once
    # (its CPU may still be waking), only when it stays silent FRESH_NS.
    deadline = b.add(start, b.mul(b.sext(ms, I64), ir.Constant(I64, 1_000_000)))
    b.store_atomic(deadline, _shared(ctx, UNTIL, I64), "monotonic", 8)
    b.store_atomic(spinners, _shared(ctx, SPINNERS, I32), "monotonic", 4)
    handle = b.alloca(I64, name="pencil.warm.thread")      # pthread_t: unsigned long on Linux
    handle.type = PTR
    b.branch(blocks["loop"])
    b.position_at_end(blocks["loop"])
    k = b.phi(I32, name="pencil.warm.k")
    k.add_incoming(ir.Constant(I32, 0), blocks["spinners"])
    b.cbranch(b.icmp_signed("<", k, spinners), blocks["create"], blocks["done"])
    b.position_at_end(blocks["create"])
    b.store_atomic(start, _beat(b, beats, k), "monotonic", 8)
    created = b.call(ctx.declare("pthread_create", I32, [PTR, PTR, PTR, PTR]),
                     [handle, null_pointer(), _spin(ctx), b.inttoptr(b.zext(k, I64), PTR)])
    with b.if_then(b.icmp_signed("==", created, ir.Constant(I32, 0))):
        b.call(ctx.declare("pthread_detach", I32, [I64]), [b.load(handle, typ=I64)])
    b.branch(blocks["next"])
    b.position_at_end(blocks["next"])
    k.add_incoming(b.add(k, ir.Constant(I32, 1)), blocks["next"])
    b.branch(blocks["loop"])
    b.position_at_end(blocks["done"])
    b.ret_void()

    entry_type = ir.LiteralStructType([I32, PTR, PTR])
    ctors = ir.GlobalVariable(module, ir.ArrayType(entry_type, 1), name="llvm.global_ctors")
    ctors.linkage = "appending"
    ctors.initializer = ir.Constant(ir.ArrayType(entry_type, 1),
                                    [ir.Constant(entry_type, [ir.Constant(I32, 65535), fn, null_pointer()])])
