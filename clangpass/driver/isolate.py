# SPDX-License-Identifier: MIT
"""Isolation of third-party C code (libclang, isl, LLVM) that runs on user input.

Input: a function doing the analysis of one input, the `CompileOptions` time and
memory limits. Output: the function's (picklable) result, or `AnalysisFailed`
saying why there is none: a signal (libclang overflowing its stack on an
expression 30,000 operators long), a Python exception, exhausted memory or a
deadline passed. The deadline is a safety net: the analysis bounds its own work
by deterministic measures (clangpass.poly.budget), so that whether a region is
optimized depends only on the input and the flags; a deadline passed depends on
the machine, and `AnalysisFailed.nondeterministic` says so.

The function runs in a forked child (copy-on-write: the parent's loaded
libraries cost nothing) whose address space is bounded with RLIMIT_AS. It names
the stage it is in through `Watch.stage`, with that stage's time allowance; the
parent waits on a pipe and kills the child when the current stage's allowance
is spent, so the caller knows which stage (region) to leave out on a retry.

The allowance is CPU time of the child (user + system, all its threads), not
wall-clock time: on a machine loaded by `make -j` or a test run the child gets a
fraction of a core, and a wall-clock limit would send regions to the host
compiler because of other processes (heat-3d's 2 s analysis passed 10 s at a
load of 13 on 2 cores). A wall-clock backstop of `WALL_FACTOR` times the
allowance still ends a child that sleeps or is starved for good.
"""
from __future__ import annotations

import gc
import multiprocessing
import os
import resource
import signal
import time
import traceback
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Callable, Optional, TypeVar

Result = TypeVar("Result")

#: A stage may take this many times its CPU allowance in wall-clock time before it is ended anyway.
WALL_FACTOR = 20
#: `AnalysisFailed.nondeterministic` of a stage ended by its time allowance.
TIME_LIMIT = "time limit"
#: How often the parent samples the child's CPU time (seconds).
_POLL_SECONDS = 0.1
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")

# Set by the test suite to check the fallback of a crashing child: the child aborts (SIGABRT)
# when it enters the stage of this name (e.g. 'parse' or 'region 0'). Documented in
# docs/user-guide.md (Guarantees); never set it in a build.
CRASH_HOOK = "PENCILCC_TEST_CRASH_AT"


class AnalysisFailed(Exception):
    """The isolated analysis produced no result; `stage` is where it was when it failed.
    `nondeterministic` names what made the failure depend on the machine rather than on the
    input and the flags ('time limit'), '' when it does not; `reject_id` is the reject id
    (clangpass.rejects) of a region left out for it."""

    def __init__(self, stage: str, reason: str, nondeterministic: str = "",
                 reject_id: str = "pencil-internal-error") -> None:
        super().__init__(f"{reason} (during {stage})")
        self.stage = stage
        self.reason = reason
        self.nondeterministic = nondeterministic
        self.reject_id = reject_id


class Watch:
    """The child's side: tells the parent which stage runs now and how long it may take."""

    def __init__(self, conn: Optional[Connection]) -> None:
        self._conn = conn           # None: the work runs in the driver's own process

    def stage(self, name: str, seconds: float) -> None:
        """From now on the child runs stage `name`, for at most `seconds` (0: no deadline)."""
        if self._conn is not None:
            self._conn.send(("stage", name, seconds))
        if os.environ.get(CRASH_HOOK) == name:
            os.abort()

    def early(self, value: object) -> None:
        """Give the parent `value` (picklable) before the result: its `on_early` gets it at once."""
        if self._conn is not None:
            self._conn.send(("early", value))


def run_isolated(work: Callable[[Watch], Result], memory_mb: int, first_stage: str,
                 first_seconds: float, on_early: Optional[Callable[[object], None]] = None) -> Result:
    """`work(watch)` in a forked child whose address space is bounded by `memory_mb` (0: none);
    raises AnalysisFailed when it gives no result. The first stage (`first_stage`, allowed
    `first_seconds`, 0: no deadline) lasts until the child names another. `on_early` gets what
    the child gives with `Watch.early`, while the child goes on.
    """
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child_main, args=(work, sender, memory_mb), daemon=True)
    # The child's garbage collector leaves alone what the driver had made before the fork
    # (its modules, classes and functions: most of the heap of a small compile), as Python's
    # documentation advises for a fork without exec: the child's full collections then scan
    # only the analysis's own objects, and do not copy the driver's pages by touching them.
    # The driver itself goes on collecting as before.
    gc.freeze()
    try:
        process.start()
    finally:
        gc.unfreeze()
    sender.close()
    try:
        return _wait(process, receiver, first_stage, first_seconds, on_early)
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join()


def run_in_process(work: Callable[[Watch], Result]) -> Result:
    """`work` without isolation (PENCILCC_DEBUG=1: its tracebacks and debuggers reach the user)."""
    return work(Watch(None))


def _child_main(work: Callable[[Watch], object], conn: Connection, memory_mb: int) -> None:
    # The driver's SIGTERM/SIGHUP handlers clean up the driver's files; the child owns none,
    # so it dies of these signals as any process does.
    for signum in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, signal.SIG_DFL)
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
    try:
        result = work(Watch(conn))
        conn.send(("result", result))
    except MemoryError:
        conn.send(("failed", f"ran out of memory (the limit is {memory_mb} MiB, "
                             "-fpencil-memory-limit=)", "", "pencil-memory-limit"))
    except BaseException as exc:   # the parent decides what an exception means: a fallback
        conn.send(("failed", f"internal error ({type(exc).__name__}: {str(exc)[:300]})",
                   traceback.format_exc(), "pencil-internal-error"))
    finally:
        conn.close()


def _wait(process: BaseProcess, conn: Connection, stage: str, seconds: float,
          on_early: Optional[Callable[[object], None]] = None) -> Result:
    budget = _StageBudget(process.pid, seconds)
    while True:
        if not conn.poll(_POLL_SECONDS if budget.limited else None):
            if budget.spent():
                process.kill()
                raise AnalysisFailed(stage, f"exceeded the time limit of {seconds:g} s "
                                            "(-fpencil-time-limit=), so the result depends on this "
                                            "machine's speed and load", TIME_LIMIT, "pencil-time-limit")
            continue
        try:
            message = conn.recv()
        except (EOFError, OSError):
            process.join()
            raise AnalysisFailed(stage, _death(process.exitcode)) from None
        if message[0] == "stage":
            _, stage, seconds = message
            budget = _StageBudget(process.pid, seconds)
        elif message[0] == "result":
            return message[1]
        elif message[0] == "early":
            if on_early is not None:
                on_early(message[1])
        else:
            _, reason, trace, reject_id = message
            if os.environ.get("PENCILCC_DEBUG", "") == "1" and trace:
                os.write(2, trace.encode())
            raise AnalysisFailed(stage, reason, reject_id=reject_id)


class _StageBudget:
    """The CPU time a stage may use (0: unlimited), with a wall-clock backstop."""

    def __init__(self, pid: Optional[int], seconds: float) -> None:
        self.pid = pid
        self.seconds = seconds
        self.cpu_start = _cpu_seconds(pid)
        self.wall_deadline = time.monotonic() + WALL_FACTOR * seconds

    @property
    def limited(self) -> bool:
        return self.seconds > 0

    def spent(self) -> bool:
        if not self.limited:
            return False
        if time.monotonic() >= self.wall_deadline:
            return True
        cpu = _cpu_seconds(self.pid)
        return cpu is not None and self.cpu_start is not None and cpu - self.cpu_start >= self.seconds


def _cpu_seconds(pid: Optional[int]) -> Optional[float]:
    """User + system CPU time of process `pid` (all its threads), from /proc; None if unreadable."""
    if pid is None:
        return None
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    # After the command name: state is field 3 of proc(5), utime 14 and stime 15.
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS


def _death(exitcode: Optional[int]) -> str:
    """Why a child that sent no result ended."""
    if exitcode is not None and exitcode < 0:
        try:
            name = signal.Signals(-exitcode).name
        except ValueError:
            name = f"signal {-exitcode}"
        return f"crashed ({name})"
    return f"ended without a result (exit status {exitcode})"
