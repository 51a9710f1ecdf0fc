# SPDX-License-Identifier: MIT
"""Building a kernel with one compiler and measuring its kernel call.

Input: a :class:`~test_suite.bench.datasets.Kernel`, its size macros, a
:class:`~test_suite.bench.compilers.Compiler`.  Output: a :class:`Build`
(executable, compile seconds, regions pencilcc left to the host compiler) and
:class:`Run` values (kernel seconds or instruction count, checksums).

Every build defines ``PENCILCC_BENCH``: the program then times its kernel call
with ``CLOCK_MONOTONIC`` and prints ``pencilcc-bench-seconds: S`` on stderr,
and prints per-array checksums (:mod:`test_suite.bench.checksums`) instead of
every element, so that neither initialisation nor printing is measured.

Instruction counts (``--callgrind``) come from ``valgrind --tool=callgrind
--dump-before=*clock_gettime*``: the program calls ``clock_gettime`` just
before and just after the kernel, so the second profile dump holds exactly the
kernel's instructions (plus one ``clock_gettime``), whatever the compiler
inlined.

A build of the OpenCL target (``Compiler.opencl``) runs once more than the
others before the timed runs, with an empty disk cache of its own: that cold
run builds the OpenCL program (its seconds are kept as ``cold_seconds``); the
timed runs then load it from the cache; a last run with ``PENCILCC_PROFILE=1``
records the runtime's launches and transfers (:mod:`test_suite.bench.opencl`).
Every run's checksums, the cold and profiled ones included, are compared with
the reference.

A tuned configuration (``Compiler.tune_budget``, ``pencilcc-opencl-tuned``) runs
``pencilcc-tune`` on its own build command first and builds in the tuning's cache
folder (:func:`tuned_build`, :mod:`test_suite.bench.tuned`); its runs are then those
of any OpenCL build.  The tuning's time is kept apart from the compile and kernel times.

Every run is a process of its own; given the helper of
:mod:`test_suite.bench.rusage` (``rss_helper``), a timed run also keeps that
process's own peak resident set size (``wait4``'s ``ru_maxrss``), which the
``memory`` group's table shows.  Under callgrind the peak would be
valgrind's, and is not kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Optional

from test_suite.bench import checksums, opencl, rusage, tuned
from test_suite.bench.blas import NumpyTiming
from test_suite.bench.checksums import ArrayChecksum
from test_suite.bench.compilers import Compiler
from test_suite.bench.datasets import Kernel
from test_suite.e2e import harness

#: Flags of every benchmark build besides the compiler's own.
BENCH_CFLAGS: tuple[str, ...] = (*harness.KERNEL_CFLAGS, "-DPENCILCC_BENCH")
_TOTALS_RE = re.compile(r"^totals: (\d+)", re.MULTILINE)
_BUILD_TIMEOUT_S = 600
#: Characters of a failing command's stderr kept in the error message.
_ERROR_TAIL = 600


@dataclass(frozen=True)
class Build:
    """One kernel built by one compiler."""

    executable: Optional[Path]
    #: Compile seconds; None for a configuration that runs another's build.
    seconds: Optional[float]
    #: Empty on success; otherwise what failed.
    error: str = ""
    #: Regions the optimisation record lists as not optimized ("function:line: reason").
    regions_not_optimized: tuple[str, ...] = ()
    #: A tuned configuration's tuning (:mod:`test_suite.bench.tuned`).
    tuning: Optional[tuned.Tuning] = None


@dataclass(frozen=True)
class Run:
    """One execution of a built kernel."""

    #: Kernel seconds (timing) or kernel instructions (callgrind); None on failure.
    value: Optional[float]
    checksums: tuple[ArrayChecksum, ...] = ()
    error: str = ""
    #: The OpenCL runtime's profile, for a run with ``PENCILCC_PROFILE=1``.
    profile: Optional[opencl.Profile] = None
    #: The run's peak resident set size in KiB (its own process's ``ru_maxrss``; None under callgrind
    #: or without the helper).
    max_rss_kib: Optional[int] = None


def executable_path(kernel: Kernel, compiler: Compiler, outdir: Path) -> Path:
    """Where ``compiler``'s build of ``kernel`` goes."""
    return outdir / f"{kernel.label.replace('/', '-')}.{compiler.name}"


def build_command(kernel: Kernel, macros: tuple[str, ...], compiler: Compiler, exe: Path,
                  record: Optional[Path] = None) -> list[str]:
    """The command line that builds ``kernel`` at ``macros`` with ``compiler`` into ``exe``
    (writing the optimisation record ``record`` if given)."""
    record_flags = [f"-foptimization-record-file={record}"] if record is not None else []
    return [*compiler.command, *record_flags, *BENCH_CFLAGS, *kernel.cflags, *(f"-D{m}" for m in macros),
            str(kernel.source), "-o", str(exe), *compiler.link_flags, "-lm"]


def build(kernel: Kernel, macros: tuple[str, ...], compiler: Compiler, outdir: Path,
          extra_env: Optional[dict[str, str]] = None) -> Build:
    """Compile and link ``kernel`` with ``compiler``; the wall time of the command is the compile time."""
    outdir.mkdir(parents=True, exist_ok=True)
    exe = executable_path(kernel, compiler, outdir)
    record = exe.with_name(exe.name + ".opt.json")
    command = build_command(kernel, macros, compiler, exe, record if compiler.writes_record else None)
    env = {**os.environ, **dict(compiler.build_env), **(extra_env or {})}
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=_BUILD_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return Build(None, time.perf_counter() - start, f"build timed out after {_BUILD_TIMEOUT_S} s")
    except OSError as exc:
        return Build(None, time.perf_counter() - start, f"build failed: {exc}")
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        return Build(None, seconds, f"build failed (exit {proc.returncode}): {proc.stderr[-_ERROR_TAIL:].strip()}")
    not_optimized = _regions_not_optimized(record) if compiler.writes_record else ()
    return Build(exe, seconds, "", not_optimized)


def _regions_not_optimized(record_path: Path) -> tuple[str, ...]:
    """The regions of a pencilcc optimisation record whose status is not ``optimized``."""
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError) as exc:
        return (f"no optimisation record ({exc})",)
    regions = record.get("regions", [])
    if not regions:
        return ("the record lists no region",)
    return tuple(f"{r['function']}:{r['line']}: {r['status']}: {r['reason']}"
                 for r in regions if r["status"] != "optimized")


def thread_env(threads: int) -> dict[str, str]:
    """The environment of a run with ``threads`` threads (OpenMP and pencilcc's own variable)."""
    return {**os.environ, "OMP_NUM_THREADS": str(threads), "PENCILCC_NUM_THREADS": str(threads)}


def run(executable: Path, threads: int, timeout: float, *,
        opencl_env: Optional[dict[str, str]] = None, rss_helper: Optional[Path] = None,
        extra_env: Optional[dict[str, str]] = None) -> Run:
    """Run a benchmark build once; its value is the kernel's seconds as the program measured them.

    ``opencl_env`` (a build of the OpenCL target) is added to the environment
    (:func:`test_suite.bench.opencl.run_env`); the run then fails when the
    runtime reports a problem, and its profile is parsed when it asks for one.
    ``rss_helper`` (:func:`test_suite.bench.rusage.build_helper`) gives the run's peak RSS.
    ``extra_env``: the configuration's own entries (``Compiler.run_env``).
    """
    env = {**thread_env(threads), **(opencl_env or {}), **(extra_env or {})}
    proc, error = _execute([str(executable)], env, timeout, rss_helper)
    if error:
        return Run(None, (), error)
    try:
        seconds = checksums.kernel_seconds(proc.stderr)
    except ValueError as exc:
        return Run(None, (), str(exc))
    profile = None
    if opencl_env is not None:
        problems = opencl.runtime_problems(proc.stderr)
        if problems:
            return Run(None, (), "the OpenCL runtime ran regions on the CPU: " + " | ".join(problems))
        if opencl_env.get("PENCILCC_PROFILE") == "1":
            try:
                profile = opencl.parse_profile(proc.stderr)
            except ValueError as exc:
                return Run(None, (), f"bad profile: {exc}")
    result = _with_checksums(seconds, proc.stdout)
    return replace(result, profile=profile, max_rss_kib=proc.max_rss_kib) if not result.error else result


def run_callgrind(executable: Path, profile_dir: Path, timeout: float) -> Run:
    """Run a benchmark build once under callgrind, one thread; its value is the kernel's instruction count."""
    profile_dir.mkdir(parents=True, exist_ok=True)
    profile = profile_dir / f"{executable.name}.callgrind"
    for old in profile_dir.glob(f"{profile.name}*"):
        old.unlink()
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={profile}",
               "--dump-before=*clock_gettime*", str(executable)]
    proc, error = _execute(command, thread_env(1), timeout)
    if error:
        return Run(None, (), error)
    # Dump 1: start-up and initialisation; dump 2: the kernel call; the final
    # profile: printing.  More dumps would mean clock_gettime calls of their own
    # (a runtime library) inside the kernel, which would split its count.
    dumps = sorted(profile_dir.glob(f"{profile.name}.*"))
    if [d.name for d in dumps] != [f"{profile.name}.1", f"{profile.name}.2"]:
        return Run(None, (), f"expected 2 callgrind dumps around the kernel, got {len(dumps)}")
    totals = _TOTALS_RE.search(dumps[1].read_text())
    if totals is None:
        return Run(None, (), f"no 'totals:' line in {dumps[1]}")
    return _with_checksums(float(totals.group(1)), proc.stdout)


def _execute(command: list[str], env: dict[str, str], timeout: float,
             rss_helper: Optional[Path] = None) -> tuple[rusage.Execution, str]:
    """Run ``command`` in ``env`` in a process of its own; the error is empty when it exited with status 0."""
    try:
        proc = rusage.execute(command, env, timeout, rss_helper)
    except OSError as exc:
        return rusage.Execution(-1, "", "", None), f"run failed: {exc}"
    if proc.timed_out:
        return proc, f"run timed out after {timeout:g} s"
    if proc.returncode != 0:
        status = (f"killed by signal {-proc.returncode}" if proc.returncode < 0
                  else f"exit status {proc.returncode}")
        return proc, f"run failed ({status}): {proc.stderr[-_ERROR_TAIL:].strip()}"
    return proc, ""


def _with_checksums(value: float, stdout: str) -> Run:
    try:
        return Run(value, checksums.parse(stdout))
    except ValueError as exc:
        return Run(None, (), f"bad checksum output: {exc}")


@dataclass(frozen=True)
class Outcome:
    """What one compiler did with one kernel: compile time, run values, checksum verdict."""

    compiler: str
    compile_seconds: Optional[float] = None
    #: One value per run: seconds, or instructions under callgrind.
    values: tuple[float, ...] = ()
    #: Checksums of the first run.
    checksums: tuple[ArrayChecksum, ...] = ()
    #: Empty on success; the build or run failure otherwise ("n/a" reasons included).
    error: str = ""
    #: Differences from the reference compiler's checksums (a miscompile, or a bug of the reference).
    mismatches: tuple[str, ...] = ()
    regions_not_optimized: tuple[str, ...] = ()
    #: OpenCL target: seconds of the first run, which built the OpenCL program
    #: (not in ``values``: those runs loaded it from the disk cache).
    cold_seconds: Optional[float] = None
    #: OpenCL target: the runtime's profile of one more run (launches, transfers, programs).
    profile: Optional[opencl.Profile] = None
    #: Peak resident set size of each timed run, KiB (empty under callgrind).
    rss_kib: tuple[int, ...] = ()
    #: A tuned configuration's tuning: evaluations, the sizes chosen, where the build's came from.
    tuning: Optional[tuned.Tuning] = None

    @property
    def median(self) -> Optional[float]:
        """The median of the runs' values (None when a build or run failed)."""
        if self.error or not self.values:
            return None
        ordered = sorted(self.values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    @property
    def peak_rss_kib(self) -> Optional[int]:
        """The largest peak RSS of its timed runs (None when a build or run failed, or under callgrind).

        A program's peak hardly moves from run to run; the largest is the figure a
        memory budget must allow for.
        """
        if self.error or not self.rss_kib:
            return None
        return max(self.rss_kib)

    @property
    def usable(self) -> bool:
        """Whether its median may enter a ratio: it ran, and its outputs match the reference."""
        return self.median is not None and not self.mismatches


@dataclass(frozen=True)
class KernelResult:
    """One kernel at one size, measured with every compiler of the run."""

    kernel: str
    macros: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    #: The compiler whose checksums the others were compared with ("" if none ran).
    reference: str = ""
    #: Floating-point operations of one kernel call (the kernels :mod:`flops` counts).
    flops: Optional[int] = None
    #: Compulsory bytes of one kernel call (the kernels :mod:`flops` counts).
    bytes: Optional[int] = None
    #: numpy's BLAS on the same operation and sizes (the kernels of :mod:`blas`, timing runs only).
    numpy: Optional[NumpyTiming] = None

    def outcome(self, compiler: str) -> Optional[Outcome]:
        return next((o for o in self.outcomes if o.compiler == compiler), None)


def measure_kernel(kernel: Kernel, macros: tuple[str, ...], compilers: list[Compiler],
                   workdir: Path, *, repeat: int, threads: int, timeout: float,
                   callgrind: bool, reference: str,
                   progress: Optional[Callable[[str], None]] = None,
                   rss_helper: Optional[Path] = None) -> KernelResult:
    """Build ``kernel`` with every available compiler, run each build ``repeat`` times, compare checksums.

    The runs are interleaved (each repetition runs every compiler once) so that
    a change of machine load affects all compilers alike.  A build of the
    OpenCL target also runs once before them (cold: it builds the OpenCL
    program) and once after them (profiled).  ``progress``, if given, is told
    each step ("build gcc", "run pencilcc 2/3", "run pencilcc-opencl cold")
    before it starts.  ``rss_helper`` (:mod:`test_suite.bench.rusage`) gives every timed
    run's peak RSS.  The OpenCL target cannot be counted under ``callgrind``
    (its runtime and PoCL call ``clock_gettime`` themselves): :class:`ValueError`.
    """
    def step(text: str) -> None:
        if progress is not None:
            progress(text)

    if callgrind and any(c.opencl and c.available for c in compilers):
        raise ValueError("the OpenCL target cannot be measured under callgrind")

    builds = {}
    for compiler in compilers:
        if compiler.available and not compiler.runs_build_of:
            if compiler.tune_budget and not callgrind:
                step(f"tune {compiler.name}")
                builds[compiler.name] = tuned_build(kernel, macros, compiler, workdir,
                                                    compiler.run_threads or threads, timeout)
                continue
            step(f"build {compiler.name}")
            builds[compiler.name] = build(kernel, macros, compiler, workdir)
    for compiler in compilers:
        if compiler.available and compiler.runs_build_of:
            # Another configuration's executable, run differently: its compile time is not its own.
            shared = builds.get(compiler.runs_build_of)
            builds[compiler.name] = (replace(shared, seconds=None) if shared is not None else
                                     Build(None, None, f"no build of {compiler.runs_build_of} to run"))
    run_threads = {c.name: c.run_threads or threads for c in compilers}
    run_envs = {c.name: dict(c.run_env) for c in compilers}
    runs: dict[str, list[Run]] = {name: [] for name, b in builds.items() if not b.error}
    # The OpenCL builds' disk cache folders, next to their executables.
    caches = {c.name: _opencl_cache(builds[c.name]) for c in compilers if c.opencl and c.name in runs}

    def execute(name: str, profile: bool = False) -> Run:
        executable = builds[name].executable
        assert executable is not None
        if callgrind:
            return run_callgrind(executable, workdir / "callgrind", timeout)
        env = opencl.run_env(caches[name], run_threads[name], profile) if name in caches else None
        return run(executable, run_threads[name], timeout, opencl_env=env, rss_helper=rss_helper,
                   extra_env=run_envs[name])

    cold: dict[str, Run] = {}
    for name, cache in caches.items():
        shutil.rmtree(cache, ignore_errors=True)
        step(f"run {name} cold")
        cold[name] = execute(name)
        if cold[name].error:
            runs[name].append(cold[name])  # no timed run after a failed one
    for repetition in range(1, repeat + 1):
        for name, done in runs.items():
            if done and done[-1].error:
                continue
            step(f"run {name} {repetition}/{repeat}")
            done.append(execute(name))
    profiled: dict[str, Run] = {}
    for name in caches:
        if not any(r.error for r in runs[name]):
            step(f"run {name} profiled")
            profiled[name] = execute(name, profile=True)
    ran = [name for name, done in runs.items() if done and not any(r.error for r in done)]
    reference_name = reference if reference in ran else (ran[0] if ran else "")
    reference_sums = runs[reference_name][0].checksums if reference_name else ()
    outcomes = []
    for compiler in compilers:
        if not compiler.available:
            outcomes.append(Outcome(compiler.name, error=f"n/a: {compiler.unavailable}"))
            continue
        b = builds[compiler.name]
        if b.error:
            outcomes.append(Outcome(compiler.name, b.seconds, error=b.error,
                                    regions_not_optimized=b.regions_not_optimized, tuning=b.tuning))
            continue
        done = runs[compiler.name]
        first, last = cold.get(compiler.name), profiled.get(compiler.name)
        every = [r for r in (first, *done, last) if r is not None]
        failed = next((r.error for r in every if r.error), "")
        if last is not None and last.error:
            failed = f"profiled run: {last.error}"
        outputs = [r.checksums for r in every if not r.error]
        mismatches = _mismatches(reference_sums, outputs) if reference_name else []
        outcomes.append(Outcome(compiler.name, b.seconds,
                                tuple(r.value for r in done if r.value is not None),
                                done[0].checksums, failed, tuple(mismatches), b.regions_not_optimized,
                                cold_seconds=first.value if first is not None else None,
                                profile=last.profile if last is not None else None,
                                rss_kib=tuple(r.max_rss_kib for r in done if r.max_rss_kib is not None),
                                tuning=b.tuning))
    return KernelResult(kernel.label, macros, tuple(outcomes), reference_name)


def tuned_build(kernel: Kernel, macros: tuple[str, ...], compiler: Compiler, outdir: Path, threads: int,
                timeout: float) -> Build:
    """``pencilcc-tune`` on the build's own command, flags and sizes (:mod:`test_suite.bench.tuned`),
    then the build, which picks the tuned sizes up from the tuning's cache folder."""
    outdir.mkdir(parents=True, exist_ok=True)
    exe = executable_path(kernel, compiler, outdir)
    command = build_command(kernel, macros, compiler, tuned.scratch_executable(exe))
    tuning = tuned.tune(compiler, command, exe, thread_env(threads), threads, timeout)
    if tuning.error:
        return Build(None, None, tuning.error, tuning=tuning)
    built = build(kernel, macros, compiler, outdir, extra_env=tuned.build_env(exe))
    sources = tuned.record_sources(exe.with_name(exe.name + ".opt.json")) if not built.error else ()
    return replace(built, tuning=replace(tuning, tile_sizes_from=sources))


def _opencl_cache(built: Build) -> Path:
    """The disk cache folder of an OpenCL build's runs (``PENCILCC_CACHE_DIR``), beside its executable."""
    assert built.executable is not None
    return built.executable.with_name(built.executable.name + ".cache")


def _mismatches(reference: tuple[ArrayChecksum, ...], outputs: list[tuple[ArrayChecksum, ...]]) -> list[str]:
    """The first run's differences from ``reference`` that has any, and whether the runs disagree."""
    for output in outputs:
        problems = checksums.compare(reference, output)
        if problems:
            if len(set(outputs)) > 1:
                problems.append("the runs' checksums differ from one another (nondeterministic: a race?)")
            return problems
    return []
