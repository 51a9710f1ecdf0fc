# SPDX-License-Identifier: MIT
"""What a GPU would pay, measured without one: OpenCL builds run on oclgrind's simulator.

oclgrind (https://github.com/jrprice/Oclgrind, a Debian package) simulates an
OpenCL device and counts, per kernel, the instructions it executed by kind and
memory space (``--inst-counts``), or checks every memory access for data races,
out-of-bounds addresses and uninitialised values (``--data-races``,
``--uninitialized``).

How a pencilcc program reaches it: ``oclgrind PROGRAM`` puts its runtime in
``LD_PRELOAD``, but pencilcc's runtime opens ``libOpenCL.so.1`` with ``dlopen``
and looks its entry points up in that library (``RTLD_LOCAL``), so the preloaded
symbols are never called (the program even crashes under the wrapper).  The ICD
route works instead: oclgrind ships ``liboclgrind-rt-icd.so``, an ICD the loader
(``libOpenCL.so.1``, ocl-icd) loads when ``OCL_ICD_VENDORS`` names a ``.icd`` file
that points at it; oclgrind is then the only platform, and its options are the
environment variables the wrapper would set (``OCLGRIND_INST_COUNTS=1``,
``OCLGRIND_DATA_RACES=1``, ...).  :func:`run_env` writes that file and those
variables.

Output: with ``--inst-counts`` oclgrind prints, on stdout after each launch,
``Instructions executed for kernel 'K':`` and lines ``   N - op`` (``load global
(B bytes)``, ``store local (B bytes)``, ``call _Z7barrierj()``...):
:func:`parse_counts` sums them per kernel over its launches.  Its checks print a
message line followed by a tab-indented ``Kernel:`` line on stderr:
:func:`parse_errors` collects those messages.
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

#: Where Debian and a source install put the ICD library, relative to the prefix of ``oclgrind``.
_ICD_NAMES = ("lib/oclgrind/liboclgrind-rt-icd.so", "lib/x86_64-linux-gnu/oclgrind/liboclgrind-rt-icd.so",
              "lib/liboclgrind-rt-icd.so")

_HEADER_RE = re.compile(r"^Instructions executed for kernel '([^']+)':\s*$")
_COUNT_RE = re.compile(r"^\s*(\d+) - (.+?)\s*$")
_MEMORY_RE = re.compile(r"^(load|store) (global|local|private|constant) \((\d+) bytes\)$")
#: oclgrind's barrier builtin as it names it (an Itanium-mangled call).
_BARRIER_RE = re.compile(r"^call _Z\d*(work_group_)?barrier")
#: A diagnostic: its message line, then "\tKernel: NAME" on the next line.
_KERNEL_LINE_RE = re.compile(r"^\tKernel: (\S+)")


@dataclass
class KernelCounts:
    """One OpenCL kernel's executed operations, summed over its launches."""

    name: str
    launches: int = 0
    global_loads: int = 0
    global_stores: int = 0
    global_load_bytes: int = 0
    global_store_bytes: int = 0
    local_loads: int = 0
    local_stores: int = 0
    barriers: int = 0
    instructions: int = 0

    def add_line(self, count: int, operation: str) -> None:
        self.instructions += count
        memory = _MEMORY_RE.match(operation)
        if memory:
            kind, space, size = memory.group(1), memory.group(2), int(memory.group(3))
            if space == "global":
                if kind == "load":
                    self.global_loads += count
                    self.global_load_bytes += size
                else:
                    self.global_stores += count
                    self.global_store_bytes += size
            elif space == "local":
                if kind == "load":
                    self.local_loads += count
                else:
                    self.local_stores += count
        elif _BARRIER_RE.match(operation):
            self.barriers += count


@dataclass
class Counts:
    """Every kernel of one run, in the order of their first launch."""

    kernels: dict[str, KernelCounts] = field(default_factory=dict)

    def total(self, attribute: str) -> int:
        return sum(getattr(k, attribute) for k in self.kernels.values())


def parse_counts(stdout: str) -> Counts:
    """The ``--inst-counts`` histograms in a run's stdout (the program's own lines are skipped)."""
    counts = Counts()
    current: Optional[KernelCounts] = None
    for line in stdout.splitlines():
        header = _HEADER_RE.match(line)
        if header:
            name = header.group(1)
            current = counts.kernels.setdefault(name, KernelCounts(name))
            current.launches += 1
            continue
        if current is not None:
            count = _COUNT_RE.match(line)
            if count:
                current.add_line(int(count.group(1)), count.group(2))
                continue
            current = None
    return counts


def parse_errors(stderr: str) -> list[str]:
    """oclgrind's diagnostics in a run's stderr: ``"KERNEL: message"``, one per report."""
    lines = stderr.splitlines()
    found = []
    for i, line in enumerate(lines):
        match = _KERNEL_LINE_RE.match(line)
        if match and i > 0:
            message = lines[i - 1].strip()
            found.append(f"{match.group(1)}: {message}")
    # A report oclgrind prints without the kernel line (an API error, an abort).
    found += [line.strip() for line in lines if line.startswith("Oclgrind") or "[Oclgrind]" in line]
    return found


def icd_library() -> Optional[Path]:
    """oclgrind's ICD library, found beside the ``oclgrind`` on PATH; None when not installed."""
    override = os.environ.get("PENCILCC_OCLGRIND_ICD")
    if override:
        return Path(override) if Path(override).is_file() else None
    program = shutil.which("oclgrind")
    if program is None:
        return None
    prefix = Path(os.path.realpath(program)).parent.parent
    for name in _ICD_NAMES:
        if (prefix / name).is_file():
            return prefix / name
    return None


def problem() -> str:
    """Why oclgrind cannot be used here, or ""."""
    if shutil.which("oclgrind") is None:
        return "oclgrind is not on PATH (Debian: apt-get install oclgrind)"
    if icd_library() is None:
        return "oclgrind's ICD library (liboclgrind-rt-icd.so) was not found beside it"
    return ""


def run_env(workdir: Path, *, counts: bool = False, checks: bool = False) -> dict[str, str]:
    """Environment entries that run a pencilcc OpenCL program on oclgrind: its ICD as the only
    platform, instruction counts (``counts``) and/or its memory checks (``checks``: data races,
    out-of-bounds accesses, uninitialised values); a disk cache of its own under ``workdir``."""
    library = icd_library()
    if library is None:
        raise RuntimeError(problem())
    workdir.mkdir(parents=True, exist_ok=True)
    vendors = workdir / "oclgrind.icd"
    vendors.write_text(f"{library}\n")
    env = {
        "OCL_ICD_VENDORS": str(vendors),
        "PENCILCC_CACHE_DIR": str(workdir / "cache"),
        "PENCILCC_PROFILE": "1",
        # The device decides (oclgrind's local memory is CL_LOCAL: the tiled kernels, the GPU
        # mapping these counts measure), whatever the caller's environment forces.
        "PENCILCC_OPENCL_MAPPING": "auto",
    }
    if counts:
        env["OCLGRIND_INST_COUNTS"] = "1"
    if checks:
        env.update({"OCLGRIND_DATA_RACES": "1", "OCLGRIND_UNINITIALIZED": "1", "OCLGRIND_MAX_ERRORS": "20"})
    return env


# ---------------------------------------------------------------------------- the bench mode
#: Seconds a build may run on the simulator (it interprets every work-item: mini sizes take seconds).
RUN_TIMEOUT_S = 600


@dataclass
class KernelRun:
    """One benchmark program built for the OpenCL target and run on oclgrind."""

    label: str
    counts: Counts = field(default_factory=Counts)
    seconds: float = 0.0
    error: str = ""


def short_name(kernel: str) -> str:
    """``__pencilcc_kernel_gemm_scop0_3a47dd0294_k0`` as ``kernel_gemm_scop0/k0`` (no region hash)."""
    match = re.match(r"^__pencilcc_(.*)_[0-9a-f]{10}_(k\d+)$", kernel)
    return f"{match.group(1)}/{match.group(2)}" if match else kernel


def run_program(executable: Path, workdir: Path, timeout: float, *, counts: bool = False,
                checks: bool = False) -> tuple[str, str, int]:
    """Run ``executable`` on oclgrind; (stdout, stderr, exit status), status -1 on a timeout."""
    import subprocess  # noqa: PLC0415

    env = {**os.environ, **run_env(workdir, counts=counts, checks=checks)}
    try:
        proc = subprocess.run([str(executable)], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "", f"timed out after {timeout:g} s", -1
    return proc.stdout, proc.stderr, proc.returncode


def without_counts(stdout: str) -> str:
    """A run's stdout without oclgrind's histograms: the program's own output."""
    kept = []
    in_histogram = False
    for line in stdout.splitlines():
        if _HEADER_RE.match(line):
            in_histogram = True
            continue
        if in_histogram and _COUNT_RE.match(line):
            continue
        if in_histogram and not line.strip():     # the blank line that ends a histogram
            in_histogram = False
            continue
        in_histogram = False
        kept.append(line)
    return "\n".join(kept) + ("\n" if kept else "")


def run_counts(args, workdir: Path) -> int:
    """``python -m test_suite.bench --oclgrind``: per kernel, its OpenCL build's memory operations on
    oclgrind, its output checked against gcc -O0's; exit status 1 when a build, run or check failed."""
    import json  # noqa: PLC0415
    import time  # noqa: PLC0415

    from test_suite.bench import checksums, compilers as compilers_mod, measure, opencl  # noqa: PLC0415

    opencl_compiler, = compilers_mod.detect([opencl.NAME], args.march, workdir / "probe")
    if not opencl_compiler.command:
        print(f"error: {opencl_compiler.unavailable}")
        return 1
    reference = compilers_mod.Compiler("gcc-O0", ("gcc", "-O0"))
    print(f"oclgrind counts, dataset {args.dataset}: {' '.join(opencl_compiler.command)}", flush=True)
    runs: list[KernelRun] = []
    for index, kernel in enumerate(args.kernel_list, 1):
        macros = kernel.size_macros(args.dataset)
        print(f"[{index}/{len(args.kernel_list)}] {kernel.label}", file=sys_stderr(), flush=True)
        result = KernelRun(kernel.label)
        runs.append(result)
        built = measure.build(kernel, macros, opencl_compiler, workdir / "build")
        expected = measure.build(kernel, macros, reference, workdir / "build")
        if built.error or expected.error:
            result.error = built.error or expected.error
            continue
        started = time.perf_counter()
        stdout, stderr, status = run_program(built.executable, workdir / "oclgrind" / kernel.label.replace("/", "-"),
                                             args.timeout, counts=True)
        result.seconds = time.perf_counter() - started
        problems = opencl.runtime_problems(stderr) + parse_errors(stderr)
        if status != 0 or problems:
            result.error = f"exit status {status}: " + " | ".join(problems or stderr.strip().splitlines()[-3:])
            continue
        result.counts = parse_counts(stdout)
        if not result.counts.kernels:
            result.error = "no kernel ran on the device"
            continue
        import subprocess  # noqa: PLC0415
        want = subprocess.run([str(expected.executable)], capture_output=True, text=True, timeout=args.timeout).stdout
        got = without_counts(stdout)
        try:
            mismatch = checksums.compare(checksums.parse(want), checksums.parse(got))
        except ValueError:
            mismatch = [] if want == got else ["the output differs from gcc -O0's"]
        if mismatch:
            result.error = "MISMATCH: " + "; ".join(mismatch)
    print()
    print(format_counts(runs))
    if args.json:
        args.json.write_text(json.dumps({"mode": "oclgrind", "dataset": args.dataset, "kernels": [
            {"label": r.label, "error": r.error, "seconds": round(r.seconds, 2),
             "opencl_kernels": [vars(k) for k in r.counts.kernels.values()]} for r in runs]}, indent=2) + "\n")
    return 1 if any(r.error for r in runs) else 0


def sys_stderr():
    import sys  # noqa: PLC0415
    return sys.stderr


_COLUMNS = (("launches", "launches"), ("global loads", "global_loads"), ("global stores", "global_stores"),
            ("local loads", "local_loads"), ("local stores", "local_stores"), ("barriers", "barriers"))


def format_counts(runs: list[KernelRun]) -> str:
    """The per-kernel table: one line per OpenCL kernel and a total line per program."""
    width = max([24, *(len(short_name(k)) + 2 for r in runs for k in r.counts.kernels)])
    label_width = max([14, *(len(r.label) for r in runs)])
    header = f"{'program':{label_width}s} {'OpenCL kernel':{width}s}" + "".join(f" {t:>13s}" for t, _ in _COLUMNS)
    lines = [header, "-" * len(header)]
    for r in runs:
        if r.error:
            lines.append(f"{r.label:{label_width}s} {r.error}")
            continue
        for k in r.counts.kernels.values():
            lines.append(f"{r.label:{label_width}s} {short_name(k.name):{width}s}"
                         + "".join(f" {getattr(k, a):13d}" for _, a in _COLUMNS))
        lines.append(f"{r.label:{label_width}s} {'total (' + format(r.seconds, '.1f') + ' s on oclgrind)':{width}s}"
                     + "".join(f" {r.counts.total(a):13d}" for _, a in _COLUMNS))
    return "\n".join(lines)
