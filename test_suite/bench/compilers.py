# SPDX-License-Identifier: MIT
"""The compilers a benchmark run compares, and their detection.

Input: the names asked for (``--compilers``), the ``-march`` value, a scratch
directory.  Output: one :class:`Compiler` per name, available or not (with the
reason).  Nothing is installed: a compiler that is not on ``PATH``, or that
cannot build a tiny program with its benchmark flags, is reported as n/a.

- ``gcc``: ``gcc -O3 -march=M``;
- ``clang``: ``clang -O3 -march=M``;
- ``polly``: ``clang -O3 -march=M -mllvm -polly -mllvm -polly-parallel``,
  linked with ``-lgomp`` (Polly's parallel loops call libgomp); detected by
  building a tiny program with those flags, since distributions ship clang
  with or without Polly;
- ``pencilcc``: ``pencilcc -O3 -march=M`` (the ``pencilcc`` on ``PATH``, else
  ``python -m clangpass`` of this interpreter), compile cache off so that its
  compile time is real, and an optimisation record
  (``-foptimization-record-file``) so that a region the host compiler ran
  instead is reported; its Python modules are byte-compiled first
  (:func:`byte_compile`, and the code of its dataclass methods: :func:`keep_dataclass_code`),
  as installing a wheel does, so that its compile time
  is the compiler's and not Python's compilation of pencilcc's own source;
- ``pencilcc-seq``: the same with ``-fno-pencil-parallel``: tiling and
  rescheduling without threads, which separates what they bring;
- ``pencilcc-scc``, ``pencilcc-bb`` (opt-in): ``pencilcc`` with
  ``-fpencil-cluster=scc`` / ``bb``: the code statement clustering schedules
  (thesis Fig. 3.7: the clustered code's speed against the unclustered);
- ``pencilcc-memory-none`` (opt-in; a default of the ``memory`` group):
  ``pencilcc -O3 -march=M -fpencil-memory=none``: the memory passes
  (reuse-in-place, contract-arrays) off, so that their effect on time and
  peak RSS shows beside ``pencilcc`` (issue 26, item 7);
- ``pencilcc-1t``: ``pencilcc``'s own build, run with ``PENCILCC_NUM_THREADS=1``
  (and ``OMP_NUM_THREADS=1``): the one-thread figure of issue 11, where the
  threaded code runs on one thread (no second build, no compile time of its own);
- ``pencilcc-cold`` (opt-in): ``pencilcc``'s own build, run with
  ``PENCILCC_THREAD_WARM_MS=0``: without the warm start of its thread teams
  (the same as ``pencilcc`` now that the warm start is off by default; it matters with
  ``-fpencil-thread-warm-ms=N`` in the build)
  (docs/passes/thread-team.md), the start test always applies;
- ``pencilcc-started``, ``pencilcc-started-pinned``, ``pencilcc-started-bound`` (opt-in):
  ``pencilcc`` with ``-fpencil-thread-start-work=0`` (every team that passes the per-loop
  test starts its threads, however small), its threads left to the scheduler, pinned by the
  team (``-fpencil-thread-pin``), or bound by libgomp for the whole run
  (``OMP_PROC_BIND=true``): beside ``pencilcc-1t`` on a machine left alone, whether a team
  of a few milliseconds beats one thread, which decides the start threshold
  (docs/passes/thread-team.md, "Pinned teams");
- ``pencilcc-bound`` (opt-in): ``pencilcc``'s own build run with ``OMP_PROC_BIND=true``;
- ``pencilcc-opencl`` (opt-in: not in :data:`DEFAULT_COMPILERS`): ``pencilcc
  -O3 -march=M -fpencil-target=opencl``, whose outermost parallel loops run as
  OpenCL kernels through pencilcc's runtime on the first OpenCL device
  (:mod:`test_suite.bench.opencl`); n/a when pyopencl lists no OpenCL platform.
  On PoCL it measures the runtime's overheads, not a GPU's speed.
- ``pencilcc-opencl-tuned`` (opt-in): ``pencilcc-opencl``'s command, built
  after ``pencilcc-tune`` chose the kernels' work-group sizes for the build's
  own sizes and flags on the same device, in a cache folder of its own
  (:mod:`test_suite.bench.tuned`); timed like ``pencilcc-opencl``.
"""

from __future__ import annotations

import compileall
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from test_suite.bench import opencl

#: pencilcc builds with statement clustering, by name: their -fpencil-cluster value.
CLUSTERED = {"pencilcc-scc": "scc", "pencilcc-bb": "bb"}
#: pencilcc with its memory passes off (``-fpencil-memory=none``).
MEMORY_NONE = "pencilcc-memory-none"
#: pencilcc's own build run without its warm start (``PENCILCC_THREAD_WARM_MS=0``).
COLD = "pencilcc-cold"
#: pencilcc builds whose teams start threads whatever their size (no start test), left to the
#: scheduler, pinned by the team (-fpencil-thread-pin), and bound by libgomp for the whole run
#: (OMP_PROC_BIND=true): the measurement that decides the start threshold
#: (docs/passes/thread-team.md, "Pinned teams"), by name: their extra flags and run environment.
STARTED = {"pencilcc-started": (("-fpencil-thread-start-work=0",), ()),
           "pencilcc-started-pinned": (("-fpencil-thread-start-work=0", "-fpencil-thread-pin"), ()),
           "pencilcc-started-bound": (("-fpencil-thread-start-work=0",), (("OMP_PROC_BIND", "true"),))}
#: pencilcc's own build run with libgomp binding its threads (OMP_PROC_BIND=true).
BOUND = "pencilcc-bound"
COMPILER_NAMES: tuple[str, ...] = ("gcc", "clang", "polly", "pencilcc", "pencilcc-seq", "pencilcc-1t",
                                   *CLUSTERED, MEMORY_NONE, COLD, *STARTED, BOUND, opencl.NAME,
                                   opencl.TUNED_NAME)
#: The compilers of a run without ``--compilers``: every CPU configuration but the clustered
#: ones and the memory passes' switch. The OpenCL, clustered and memory-none ones are asked
#: for by name (or, memory-none, by the memory group: :data:`MEMORY_COMPILERS`).
DEFAULT_COMPILERS: tuple[str, ...] = tuple(n for n in COMPILER_NAMES
                                           if n not in (opencl.NAME, opencl.TUNED_NAME, MEMORY_NONE, COLD, BOUND)
                                           and n not in CLUSTERED and n not in STARTED)
#: Evaluations ``pencilcc-tune`` may spend per region for ``pencilcc-opencl-tuned`` (its most).
TUNE_BUDGET = 20
#: The compilers of a run of the ``memory`` group only without ``--compilers``: the peers,
#: pencilcc, and pencilcc with the memory passes off (the threadless and one-thread
#: configurations say nothing about memory).
MEMORY_COMPILERS: tuple[str, ...] = ("gcc", "clang", "polly", "pencilcc", MEMORY_NONE)
#: The compiler whose checksums every other one must match, and the numerator
#: of the speed-up ratios.
REFERENCE = "gcc"

_PROBE_SOURCE = """\
#include <stdio.h>
static double a[64][64];
int main(void)
{
  int i, j;
  for (i = 1; i < 64; i++)
    for (j = 0; j < 64; j++)
      a[i][j] = a[i - 1][j] + i * j;
  printf("%g\\n", a[63][63]);
  return 0;
}
"""
_PROBE_TIMEOUT_S = 120


@dataclass(frozen=True)
class Compiler:
    """One compiler configuration of a benchmark run."""

    name: str
    #: Command prefix: the compiler and its optimisation flags.
    command: tuple[str, ...] = ()
    #: Added after the sources and ``-o``: libraries.
    link_flags: tuple[str, ...] = ()
    #: Environment entries of its compile commands.
    build_env: tuple[tuple[str, str], ...] = ()
    version: str = ""
    #: Empty when available; otherwise why not ("not on PATH", the probe's error).
    unavailable: str = ""
    #: Whether it takes ``-foptimization-record-file=FILE`` (pencilcc's record of each region).
    writes_record: bool = False
    #: The compiler whose build it runs instead of building its own ("": its own build).
    runs_build_of: str = ""
    #: Threads of its runs, whatever the run's ``--threads`` (0: those).
    run_threads: int = 0
    #: Environment entries of its runs.
    run_env: tuple[tuple[str, str], ...] = ()
    #: Whether its programs launch OpenCL kernels through pencilcc's runtime:
    #: each build then gets a disk cache folder of its own, its first run (which
    #: builds the OpenCL program) is kept apart from the median, one more run
    #: records the runtime's profile, a runtime message (the regions ran on the
    #: CPU) fails the run, and its ratios are not CPU figures.
    opencl: bool = False
    #: ``pencilcc-tune`` (its command) runs before each build, with at most this many
    #: evaluations per region (0: no tuning): :mod:`test_suite.bench.tuned`.
    tune_command: tuple[str, ...] = ()
    tune_budget: int = 0

    @property
    def available(self) -> bool:
        return not self.unavailable


def detect(names: list[str], march: str, scratch: Path, tune_budget: int = TUNE_BUDGET,
           fp_contract: str = "", need_platform: bool = True) -> list[Compiler]:
    """The compilers ``names``, in that order, each probed once (``tune_budget``: the tuned
    configuration's evaluations per region; ``fp_contract``: ``-ffp-contract=`` for every
    build, "" for each compiler's own default; ``need_platform``: the OpenCL ones are n/a
    without an OpenCL platform here, as their runs need one; False for builds that run
    elsewhere, :mod:`test_suite.bench.gpu_bundle`)."""
    scratch.mkdir(parents=True, exist_ok=True)
    probe = scratch / "probe.c"
    probe.write_text(_PROBE_SOURCE)
    target = (f"-march={march}",) + ((f"-ffp-contract={fp_contract}",) if fp_contract else ())
    pencilcc = _pencilcc_command()
    if any(name.startswith("pencilcc") for name in names):
        byte_compile(PENCILCC_PACKAGES)
        keep_dataclass_code()
    compilers = []
    for name in names:
        if name == "gcc":
            compiler = _probed("gcc", ("gcc", "-O3", *target), (), probe)
        elif name == "clang":
            compiler = _probed("clang", (clang_command(), "-O3", *target), (), probe)
        elif name == "polly":
            compiler = _probed("polly", (clang_command(), "-O3", *target, "-mllvm", "-polly",
                                         "-mllvm", "-polly-parallel"), ("-lgomp",), probe)
        elif name in ("pencilcc", "pencilcc-seq", *CLUSTERED, MEMORY_NONE, *STARTED):
            extra = ("-fno-pencil-parallel",) if name == "pencilcc-seq" else ()
            if name in CLUSTERED:
                extra = (f"-fpencil-cluster={CLUSTERED[name]}",)
            if name == MEMORY_NONE:
                extra = ("-fpencil-memory=none",)
            extra, run_env = STARTED.get(name, (extra, ()))
            compiler = replace(_pencilcc(name, pencilcc, ("-O3", *target, *extra)), run_env=run_env)
        elif name == "pencilcc-1t":
            compiler = replace(_pencilcc(name, pencilcc, ("-O3", *target)), runs_build_of="pencilcc",
                               run_threads=1)
        elif name == BOUND:
            compiler = replace(_pencilcc(name, pencilcc, ("-O3", *target)), runs_build_of="pencilcc",
                               run_env=(("OMP_PROC_BIND", "true"),))
        elif name == COLD:
            compiler = replace(_pencilcc(name, pencilcc, ("-O3", *target)), runs_build_of="pencilcc",
                               run_env=(("PENCILCC_THREAD_WARM_MS", "0"),))
        elif name in (opencl.NAME, opencl.TUNED_NAME):
            compiler = replace(_pencilcc(name, pencilcc, ("-O3", *target, opencl.TARGET_FLAG)), opencl=True)
            if name == opencl.TUNED_NAME:
                compiler = replace(compiler, tune_command=_tune_command(), tune_budget=tune_budget)
                if compiler.available and not compiler.tune_command:
                    compiler = replace(compiler, unavailable="pencilcc-tune not on PATH and clangpass not importable")
            if compiler.available and need_platform:
                compiler = replace(compiler, unavailable=opencl.platform_problem())
        else:
            raise ValueError(f"unknown compiler {name!r} (compilers: {', '.join(COMPILER_NAMES)})")
        compilers.append(compiler)
    return compilers


def clang_command() -> str:
    """``clang`` where it is on PATH, else the newest versioned ``clang-N`` (Debian installs
    only those, e.g. ``clang-15`` beside PoCL), else ``clang`` (reported as not on PATH)."""
    if shutil.which("clang"):
        return "clang"
    found = []
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        try:
            names = os.listdir(folder or ".")
        except OSError:
            continue
        for entry in names:
            match = re.fullmatch(r"clang-(\d+)", entry)
            if match and shutil.which(entry):
                found.append((int(match.group(1)), entry))
    return max(found)[1] if found else "clang"


def _probed(name: str, command: tuple[str, ...], link_flags: tuple[str, ...], probe: Path) -> Compiler:
    """A plain C compiler, available if it builds the probe with its benchmark flags."""
    if shutil.which(command[0]) is None:
        return Compiler(name, command, link_flags, unavailable=f"{command[0]} not on PATH")
    version = _first_line([command[0], "--version"])
    exe = probe.with_name(f"probe-{name}")
    try:
        proc = subprocess.run([*command, str(probe), "-o", str(exe), *link_flags],
                              capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Compiler(name, command, link_flags, version=version, unavailable=str(exc))
    if proc.returncode != 0:
        reason = (proc.stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[0]
        return Compiler(name, command, link_flags, version=version, unavailable=reason)
    return Compiler(name, command, link_flags, version=version)


#: The packages of pencilcc's own code (the driver and compile core, the back ends).
PENCILCC_PACKAGES: tuple[str, ...] = ("clangpass", "llvm_backend")


def byte_compile(packages: Sequence[str]) -> None:
    """Write the bytecode (``__pycache__``) of every module of ``packages`` that lacks an up-to-date
    one. Installing a wheel does this; an editable install or a source tree leaves it to the first
    import, which does not write it under ``PYTHONDONTWRITEBYTECODE=1``: every pencilcc process
    then compiled its 120-odd modules from source again, about 0.25 s of CPU of every build's
    compile time (a fifth of a median PolyBench kernel's) that no installed pencilcc pays."""
    for package in packages:
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec is not None else []:
            compileall.compile_dir(folder, quiet=2)


def keep_dataclass_code() -> bool:
    """Write the kept code of pencilcc's dataclass methods (clangpass.dataclass_code), which a
    pencilcc process writes itself except under ``PYTHONDONTWRITEBYTECODE=1``, as the bytecode;
    without it every build compiled 900-odd generated methods again (90 ms of CPU). In a child
    process: it imports all of pencilcc. False if that failed (the builds are only slower)."""
    proc = subprocess.run([sys.executable, "-c", "import clangpass.dataclass_code as d, sys; "
                           "sys.exit(0 if d.prime() else 1)"], capture_output=True)
    return proc.returncode == 0


def _installed(script: str, module: str) -> tuple[str, ...]:
    """How to run one of pencilcc's commands: `script` on PATH, else this interpreter's
    ``-m module``; () when neither is there."""
    if shutil.which(script):
        return (script,)
    if importlib.util.find_spec("clangpass") is not None:
        return (sys.executable, "-m", module)
    return ()


def _pencilcc_command() -> tuple[str, ...]:
    return _installed("pencilcc", "clangpass")


def _tune_command() -> tuple[str, ...]:
    return _installed("pencilcc-tune", "clangpass.driver.tune")


def _pencilcc(name: str, prefix: tuple[str, ...], flags: tuple[str, ...]) -> Compiler:
    if not prefix:
        return Compiler(name, unavailable="pencilcc not on PATH and clangpass not importable")
    version = _first_line([*prefix, "--version"])
    if not version:
        return Compiler(name, (*prefix, *flags), unavailable=f"{' '.join(prefix)} --version failed")
    return Compiler(name, (*prefix, *flags), (),
                    build_env=(("PENCILCC_NO_CACHE", "1"),), version=version, writes_record=True)


def _first_line(command: list[str]) -> str:
    """The first line of ``command``'s output, or "" if it fails."""
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=_PROBE_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    if proc.returncode != 0:
        return ""
    lines = (proc.stdout or proc.stderr).strip().splitlines()
    return lines[0] if lines else ""
