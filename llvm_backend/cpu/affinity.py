# SPDX-License-Identifier: MIT
"""Thread pinning for the length of a team (`-fpencil-thread-pin`, off by default; Linux).

Input: the trampoline of a thread team (`parallel._trampoline`), the function every
thread of a `GOMP_parallel` runs. Output: around its call of the team function,

    pinned = pencil.team.pin(saved, thread, threads)   ; saved: a cpu_set_t on the stack
    <the thread's part of the team>
    if (pinned) sched_setaffinity(0, sizeof saved, saved)

`pencil.team.pin` reads the calling thread's CPU mask into `saved`; when the team has
two threads or more and the mask holds at least `threads` CPUs, it binds the thread to
a CPU of that mask: counting the mask's CPUs from the one the forking thread ran on at the
fork (`sched_getcpu`, passed in the team's data), cyclically, thread k takes the k-th, so
thread 0, the caller of GOMP_parallel, stays on its CPU; it answers 1, otherwise it
changes nothing and answers 0.
Each thread gets its own mask back when its part ends, so the program's main thread
and libgomp's pooled threads leave the team as they entered it (a later pthread_create
or OpenMP region of the user's sees the user's masks). A mask already narrower than the
team (`OMP_PROC_BIND`, `taskset` to one CPU) is left alone.

Why: on this 2-vCPU VM, a two-thread team of a few milliseconds left to the scheduler
took 6 to 23 ms in runs where the one-thread code took 3 ms, and 2.1 to 2.8 ms when
both threads were bound (atax, bicg, mvt, gesummv at LARGE, runs started only after
150 ms in which both CPUs were idle; docs/passes/thread-team.md, "Pinned teams"):
unbound, the woken worker and the forking thread are at times put on one CPU, where
the spinning one takes time slices from the one with work. The cost is three
system calls per thread per fork (about 1-2 us each here), only on the threaded path.
"""
from __future__ import annotations

import llvmlite.ir as ir

from llvm_backend.cpu.context import ModuleContext
from llvm_backend.cpu.lower_types import I1, I32, I64, PTR

#: 64-bit words of the cpu_set_t handed to sched_{get,set}affinity (glibc's 1024 CPUs).
MASK_WORDS = 16
MASK = ir.ArrayType(I64, MASK_WORDS)


def supported(ctx: ModuleContext) -> bool:
    """Whether team threads are pinned: asked for, on a Linux target."""
    return ctx.options.thread_pin and "linux" in (ctx.module.triple or "")


def home_types(ctx: ModuleContext) -> list[ir.Type]:
    """The fields `home` adds to a team's data record: the forking thread's CPU, when pinning."""
    return [I32] if supported(ctx) else []


def home(ctx: ModuleContext, b: ir.IRBuilder) -> list[ir.Value]:
    """Before GOMP_parallel: the CPU the forking thread runs on (`sched_getcpu`), when pinning."""
    if not supported(ctx):
        return []
    return [b.call(ctx.declare("sched_getcpu", I32, []), [], name="pencil.home")]


def pin_around(ctx: ModuleContext, b: ir.IRBuilder, thread: ir.Value, threads: ir.Value,
               home_fields: list[ir.Value], call) -> None:
    """Emit `call()` (the thread's part of the team) between pinning the thread and restoring its
    mask; `home_fields` are `home`'s values as the trampoline unpacked them."""
    if not supported(ctx):
        call()
        return
    with b.goto_entry_block():
        saved = b.alloca(MASK, name="pencil.affinity.saved")
        saved.type = PTR    # opaque, like every pointer the back end emits (llvmlite types allocas)
    start = b.sext(home_fields[0], I64, name="pencil.home")
    pinned = b.call(_pin(ctx), [saved, thread, threads, start], name="pencil.pinned")
    call()
    with b.if_then(pinned):
        b.call(_setaffinity(ctx), [ir.Constant(I32, 0), ir.Constant(I64, MASK_WORDS * 8), saved])


def _setaffinity(ctx: ModuleContext) -> ir.Function:
    return ctx.declare("sched_setaffinity", I32, [I32, I64, PTR])


def _pin(ctx: ModuleContext) -> ir.Function:
    """`i1 pencil.team.pin(ptr saved, i64 thread, i64 threads, i64 home)`, emitted once per module.

    The CPUs of the mask, in order, are numbered from `home` (the forking thread's CPU; when
    the mask does not hold it, or it is negative, from the mask's first CPU), cyclically:
    thread k takes the k-th, so thread 0 stays where it forked and no thread moves when
    the scheduler had already spread them that way."""
    existing = ctx.module.globals.get("pencil.team.pin")
    if isinstance(existing, ir.Function):
        return existing
    fn = ir.Function(ctx.module, ir.FunctionType(I1, [PTR, I64, I64, I64]), name="pencil.team.pin")
    fn.linkage = "internal"
    fn.attributes.add("nounwind")
    saved, thread, threads, home_cpu = fn.args
    saved.name, thread.name, threads.name, home_cpu.name = "saved", "thread", "threads", "home"
    entry, count, search, step, found, no = (fn.append_basic_block(n) for n in
                                             ("entry", "count", "search", "step", "found", "no"))
    size = ir.Constant(I64, MASK_WORDS * 8)
    zero32, zero64, one64 = ir.Constant(I32, 0), ir.Constant(I64, 0), ir.Constant(I64, 1)

    b = ir.IRBuilder(entry)
    mask = b.alloca(MASK, name="one")
    mask.type = PTR
    got = b.call(ctx.declare("sched_getaffinity", I32, [I32, I64, PTR]), [zero32, size, saved], name="got")
    b.cbranch(b.and_(b.icmp_signed("==", got, zero32), b.icmp_signed(">", threads, one64)), count, no)

    # Enough CPUs in the mask for the team: the sum of the words' populations.
    b.position_at_end(count)
    ctpop = ctx.intrinsic("llvm.ctpop", I64, 1)
    total: ir.Value = zero64
    for w in range(MASK_WORDS):
        word = b.load(b.gep(saved, [zero32, ir.Constant(I32, w)], inbounds=True, source_etype=MASK), typ=I64)
        total = b.add(total, b.call(ctpop, [word]))
    enough = b.icmp_signed(">=", total, threads)
    # The rank of `home` among the mask's CPUs (set bits below it), 0 when it is not in the mask.
    inside = b.and_(b.icmp_signed(">=", home_cpu, zero64),
                    b.icmp_signed("<", home_cpu, ir.Constant(I64, MASK_WORDS * 64)))
    safe = b.select(inside, home_cpu, zero64)
    home_word = b.lshr(safe, ir.Constant(I64, 6))
    home_bit = b.and_(safe, ir.Constant(I64, 63))
    rank: ir.Value = zero64
    for w in range(MASK_WORDS):
        word = b.load(b.gep(saved, [zero32, ir.Constant(I32, w)], inbounds=True, source_etype=MASK), typ=I64)
        below = b.select(b.icmp_unsigned("<", ir.Constant(I64, w), home_word), ir.Constant(I64, -1),
                         b.select(b.icmp_unsigned("==", ir.Constant(I64, w), home_word),
                                  b.sub(b.shl(one64, home_bit), one64), zero64))
        rank = b.add(rank, b.call(ctpop, [b.and_(word, below)]))
    hword = b.load(b.gep(saved, [zero32, home_word], inbounds=True, source_etype=MASK), typ=I64)
    held = b.and_(inside, b.trunc(b.lshr(hword, home_bit), I1))
    rank = b.select(held, rank, zero64)
    divisor = b.select(b.icmp_signed(">", total, zero64), total, one64)     # total >= threads >= 2 where used
    target = b.srem(b.add(rank, thread), divisor, name="target")
    b.cbranch(enough, search, no)

    # The target-th set bit: c walks the bits, k counts the set ones before c.
    b.position_at_end(search)
    c = b.phi(I64, name="c")
    k = b.phi(I64, name="k")
    c.add_incoming(zero64, count)
    k.add_incoming(zero64, count)
    word = b.load(b.gep(saved, [zero32, b.lshr(c, ir.Constant(I64, 6))], inbounds=True, source_etype=MASK),
                  typ=I64)
    bit = b.trunc(b.lshr(word, b.and_(c, ir.Constant(I64, 63))), I1, name="bit")
    b.cbranch(b.and_(bit, b.icmp_signed("==", k, target)), found, step)
    b.position_at_end(step)
    c_next = b.add(c, one64)
    k_next = b.add(k, b.zext(bit, I64))
    c.add_incoming(c_next, step)
    k.add_incoming(k_next, step)
    b.cbranch(b.icmp_signed("<", c_next, ir.Constant(I64, MASK_WORDS * 64)), search, no)

    b.position_at_end(found)
    b.store(ir.Constant(MASK, [0] * MASK_WORDS), mask)
    slot = b.gep(mask, [zero32, b.lshr(c, ir.Constant(I64, 6))], inbounds=True, source_etype=MASK)
    b.store(b.shl(one64, b.and_(c, ir.Constant(I64, 63))), slot)
    set_ = b.call(_setaffinity(ctx), [zero32, size, mask], name="set")
    b.ret(b.icmp_signed("==", set_, zero32))

    b.position_at_end(no)
    b.ret(ir.Constant(I1, 0))
    return fn

