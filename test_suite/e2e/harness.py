# SPDX-License-Identifier: MIT
"""Differential-execution harness for the pencilcc kernel suite.

The kernels under ``test_suite/kernels`` are complete C99 programs that print
their output arrays as sections::

    == NAME
    <one value per line, "%.17g" for doubles, "%d" for ints>
    == OTHER
    ...

A test builds the same program with a reference compiler (``gcc -O0``) and with
a candidate (pencilcc, or gcc with other flags), runs both, and compares the
outputs section by section with :func:`compare_outputs`.

This module has no pytest dependency so that benchmarks and ad-hoc scripts can
use it too::

    from test_suite.e2e import harness
    ref = harness.gcc_reference(src, workdir)
    harness.build(["pencilcc", "-O3"], [src], workdir / "cand", harness.KERNEL_CFLAGS)
    problems = harness.compare_outputs(ref, harness.run(workdir / "cand"), rtol=1e-9)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

__all__ = [
    "REPO_ROOT",
    "KERNELS_DIR",
    "POLYBENCH_DIR",
    "PENCIL_DIR",
    "POLYBENCH_KERNELS",
    "KERNEL_CFLAGS",
    "DEFAULT_ATOL",
    "HarnessError",
    "BuildError",
    "RunError",
    "build",
    "build_polybench",
    "run",
    "parse_values",
    "compare_outputs",
    "nonfinite_values",
    "gcc_reference",
    "polybench_sources",
    "pencil_sources",
]

#: Root of the pencilcc repository (the folder holding ``test_suite/``).
REPO_ROOT: Path = Path(__file__).resolve().parents[2]
#: Root of the bundled kernel programs.
KERNELS_DIR: Path = REPO_ROOT / "test_suite" / "kernels"
#: The 30 PolyBench-style kernels (``#pragma scop`` regions).
POLYBENCH_DIR: Path = KERNELS_DIR / "polybench"
#: PENCIL-function variants of some of them.
PENCIL_DIR: Path = KERNELS_DIR / "pencil"

#: Names (file stems) of the 30 PolyBench/C 4.2.1 kernels of the suite.
POLYBENCH_KERNELS: tuple[str, ...] = (
    # linear algebra: BLAS-like
    "gemm", "gemver", "gesummv", "symm", "syr2k", "syrk", "trmm",
    # linear algebra: kernels
    "2mm", "3mm", "atax", "bicg", "doitgen", "mvt",
    # linear algebra: solvers
    "cholesky", "durbin", "gramschmidt", "lu", "ludcmp", "trisolv",
    # data mining
    "correlation", "covariance",
    # medley
    "deriche", "floyd-warshall", "nussinov",
    # stencils
    "adi", "fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d", "seidel-2d",
)

#: Flags every kernel build needs: C99, and silence about ``#pragma scop`` /
#: ``#pragma pencil`` which gcc does not know.  ``-lm`` is added by :func:`build`.
KERNEL_CFLAGS: tuple[str, ...] = ("-std=c99", "-Wno-unknown-pragmas")

#: Default absolute tolerance of :func:`compare_outputs`.  Values are compared
#: relatively, but a value whose exact result is 0 can come out as a tiny
#: residue (say 1e-17 vs -3e-17) after a legal reordering of floating-point
#: operations; any difference at most this large is accepted.
DEFAULT_ATOL: float = 1e-12

Number = Union[int, float]
Section = tuple[str, list[Number]]

_HEADER = "== "
_INT_RE = re.compile(r"^[+-]?\d+$")


class HarnessError(Exception):
    """Base class of the harness errors."""


class BuildError(HarnessError):
    """A compiler invocation failed; carries the command and its stderr."""

    def __init__(self, command: Sequence[str], returncode: Optional[int], stderr: str) -> None:
        self.command = list(command)
        self.returncode = returncode
        self.stderr = stderr
        status = "timed out" if returncode is None else f"exit status {returncode}"
        super().__init__(
            f"build failed ({status}): {' '.join(self.command)}\n{stderr.rstrip()}"
        )


class RunError(HarnessError):
    """A built program failed: non-zero exit status, signal or timeout."""

    def __init__(self, program: Path, returncode: Optional[int], stderr: str, stdout: str = "") -> None:
        self.program = program
        self.returncode = returncode
        self.stderr = stderr
        self.stdout = stdout
        if returncode is None:
            status = "timed out"
        elif returncode < 0:
            status = f"killed by signal {-returncode}"
        else:
            status = f"exit status {returncode}"
        super().__init__(f"{program} failed ({status})\n{stderr.rstrip()}")


def host_has_cpu_flag(flag: str) -> bool:
    """Whether /proc/cpuinfo lists `flag` (avx512f, fma...) for this machine's CPU."""
    try:
        with open("/proc/cpuinfo") as f:
            return any(line.startswith("flags") and flag in line.split() for line in f)
    except OSError:
        return False


def build(
    compiler: Sequence[str],
    sources: Sequence[Path],
    out: Path,
    flags: Sequence[str],
    *,
    libs: Sequence[str] = ("-lm",),
    env: Optional[Mapping[str, str]] = None,
    timeout: float = 300,
) -> subprocess.CompletedProcess:
    """Compile and link ``sources`` into the executable ``out``.

    Runs ``compiler + flags + sources + ["-o", out] + libs`` (libraries last so
    that the linker sees them after the objects).  ``compiler`` is a command
    prefix such as ``["gcc"]`` or ``["python3", "-m", "clangpass", "-O3"]``.
    ``env`` entries are added to the current environment.  Raises
    :class:`BuildError`, with the compiler's stderr, when the command fails or
    times out; otherwise returns the completed process (its stderr holds any
    warnings).
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [*compiler, *flags, *(str(s) for s in sources), "-o", str(out), *libs]
    full_env = None if env is None else {**os.environ, **env}
    try:
        proc = subprocess.run(
            cmd, capture_output=True, text=True, env=full_env, timeout=timeout
        )
    except subprocess.TimeoutExpired as exc:
        raise BuildError(cmd, None, _text(exc.stderr)) from None
    except OSError as exc:  # compiler not found / not executable
        raise BuildError(cmd, 127, str(exc)) from None
    if proc.returncode != 0:
        raise BuildError(cmd, proc.returncode, proc.stderr)
    return proc


def build_recorded(sources: Sequence[Path], out: Path, flags: Sequence[str],
                   compiler: Sequence[str] = (sys.executable, "-m", "clangpass"),
                   ) -> tuple[subprocess.CompletedProcess, dict[str, dict]]:
    """`build` with pencilcc (this interpreter's `-m clangpass`) and an optimisation record
    next to `out`: the completed process and the record's regions by their `label`
    (the function's name, `f#1` for its second scop)."""
    record = Path(out).with_suffix(".record.json")
    proc = build(compiler, sources, out, [*flags, f"-foptimization-record-file={record}"])
    regions = json.loads(record.read_text())["regions"]
    labels: dict[str, dict] = {}
    for r in regions:
        label = r["function"]
        k = 1
        while label in labels:
            label, k = f"{r['function']}#{k}", k + 1
        labels[label] = r
    return proc, labels


def build_polybench(workdir: Path, kernel: str, sizes: Sequence[str], flags: Sequence[str] = ()) -> tuple[Path, list[dict]]:
    """Build PolyBench kernel ``kernel`` with pencilcc -O3 (this interpreter's
    ``-m clangpass``), ``-D`` each of ``sizes`` and ``flags``; the executable and the
    regions of its optimisation record."""
    exe = Path(workdir) / kernel
    record = Path(workdir) / "record.json"
    build([sys.executable, "-m", "clangpass"], [POLYBENCH_DIR / f"{kernel}.c"], exe,
          ["-O3", *KERNEL_CFLAGS, *(f"-D{d}" for d in sizes), *flags, f"-foptimization-record-file={record}"])
    return exe, json.loads(record.read_text())["regions"]


def run(program: Path, env: Optional[dict] = None, timeout: float = 60) -> str:
    """Run ``program`` (no arguments) and return its stdout.

    ``env`` entries are added to the current environment (``None``: inherit it
    unchanged).  Raises :class:`RunError` on a non-zero exit status, a signal
    or a timeout.
    """
    program = Path(program)
    full_env = None if env is None else {**os.environ, **{k: str(v) for k, v in env.items()}}
    try:
        proc = subprocess.run(
            [str(program.resolve())],
            capture_output=True,
            text=True,
            env=full_env,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        raise RunError(program, None, _text(exc.stderr), _text(exc.stdout)) from None
    if proc.returncode != 0:
        raise RunError(program, proc.returncode, proc.stderr, proc.stdout)
    return proc.stdout


def _text(data: Union[str, bytes, None]) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes):
        return data.decode(errors="replace")
    return data


def _parse_number(token: str) -> Number:
    if _INT_RE.match(token):
        return int(token)
    return float(token)  # accepts 1e-5, inf, -inf, nan, -nan


def parse_values(text: str) -> list[Section]:
    """Parse a kernel's output into ``[(section name, values), ...]``.

    A line ``== NAME`` opens a section; every other non-blank line is one
    value.  Tokens that look like integers (``-12``) become ``int``, all others
    ``float`` (so a double that happens to be integral, printed by ``%.17g`` as
    ``3``, is an ``int`` here; :func:`compare_outputs` deals with that).
    Raises ``ValueError`` for a value before the first header or a line that
    is not a number.
    """
    sections: list[Section] = []
    for lineno, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        if line.startswith("=="):
            name = line[2:].strip()
            if not name:
                raise ValueError(f"line {lineno}: section header without a name")
            sections.append((name, []))
            continue
        if not sections:
            raise ValueError(f"line {lineno}: value {line!r} before the first '== NAME' header")
        try:
            sections[-1][1].append(_parse_number(line))
        except ValueError:
            raise ValueError(f"line {lineno}: not a number: {line!r}") from None
    return sections


def _close(ref: float, cand: float, rtol: float, atol: float) -> bool:
    if math.isnan(ref) or math.isnan(cand):
        return math.isnan(ref) and math.isnan(cand)
    if math.isinf(ref) or math.isinf(cand):
        return ref == cand
    return abs(cand - ref) <= max(atol, rtol * max(abs(ref), abs(cand)))


def compare_outputs(
    reference: str,
    candidate: str,
    rtol: float,
    atol: float = DEFAULT_ATOL,
    *,
    max_per_section: int = 5,
) -> list[str]:
    """Compare two kernel outputs; return human-readable mismatches (``[]`` if equal).

    Rules:

    * both outputs must have the same sections, with the same names in the same
      order and the same number of values each;
    * a section in which every value of both outputs is an integer token is an
      integer section (``int`` arrays, printed with ``%d``): values must be
      equal;
    * otherwise values are compared as floats: ``ref`` and ``cand`` match when
      ``|cand - ref| <= max(atol, rtol * max(|ref|, |cand|))``.  ``rtol`` is the
      relative tolerance; ``atol`` (default :data:`DEFAULT_ATOL` = 1e-12) is an
      absolute floor so that values that should be 0 but come out as
      round-off residues of either sign do not fail a relative test.  NaN
      matches only NaN, and an infinity only the same infinity.

    At most ``max_per_section`` value mismatches are listed per section,
    followed by a count of the others.  An unparseable output is reported as
    a mismatch, not raised.
    """
    try:
        ref_sections = parse_values(reference)
    except ValueError as exc:
        return [f"reference output is malformed: {exc}"]
    try:
        cand_sections = parse_values(candidate)
    except ValueError as exc:
        return [f"candidate output is malformed: {exc}"]

    problems: list[str] = []
    ref_names = [name for name, _ in ref_sections]
    cand_names = [name for name, _ in cand_sections]
    if ref_names != cand_names:
        problems.append(
            f"sections differ: reference has {len(ref_names)} {ref_names}, "
            f"candidate has {len(cand_names)} {cand_names}"
        )
    cand_by_name = {}
    for name, values in cand_sections:
        cand_by_name.setdefault(name, values)

    for name, ref_values in ref_sections:
        if name not in cand_by_name:
            continue  # already reported above
        cand_values = cand_by_name[name]
        if len(ref_values) != len(cand_values):
            problems.append(
                f"section {name}: reference has {len(ref_values)} values, "
                f"candidate has {len(cand_values)}"
            )
            continue
        integral = all(isinstance(v, int) for v in ref_values) and all(
            isinstance(v, int) for v in cand_values
        )
        bad = 0
        for index, (r, c) in enumerate(zip(ref_values, cand_values)):
            if integral:
                ok = r == c
            else:
                ok = _close(float(r), float(c), rtol, atol)
            if ok:
                continue
            bad += 1
            if bad <= max_per_section:
                if integral:
                    problems.append(f"section {name}[{index}]: reference {r}, candidate {c}")
                else:
                    rel = _relative_difference(float(r), float(c))
                    problems.append(
                        f"section {name}[{index}]: reference {float(r)!r}, candidate "
                        f"{float(c)!r} (relative difference {rel:.3g}, rtol {rtol:g}, atol {atol:g})"
                    )
        if bad > max_per_section:
            problems.append(
                f"section {name}: {bad - max_per_section} more mismatches "
                f"({bad} of {len(ref_values)} values differ)"
            )
    return problems


def _relative_difference(ref: float, cand: float) -> float:
    if math.isnan(ref) or math.isnan(cand) or math.isinf(ref) or math.isinf(cand):
        return math.inf
    scale = max(abs(ref), abs(cand))
    return 0.0 if scale == 0 else abs(cand - ref) / scale


def nonfinite_values(text: str) -> list[str]:
    """Return ``"NAME[index] = value"`` for every NaN or infinity in an output."""
    found = []
    for name, values in parse_values(text):
        for index, value in enumerate(values):
            if isinstance(value, float) and not math.isfinite(value):
                found.append(f"{name}[{index}] = {value}")
    return found


_reference_cache: dict[tuple, str] = {}
_reference_locks: dict[tuple, threading.Lock] = {}
_cache_lock = threading.Lock()


def gcc_reference(
    source: Path,
    workdir: Path,
    defines: Sequence[str] = (),
    *,
    timeout: float = 60,
) -> str:
    """Build ``source`` with ``gcc -std=c99 -O0 ... -lm``, run it, return its stdout.

    ``defines`` are macro definitions such as ``"N=100"`` (a leading ``-D`` is
    optional).  The executable goes into ``workdir``.  Results are cached within
    the process, keyed by the source's resolved path, its modification time and
    the defines, so repeated calls (and concurrent calls from threads) build
    each variant once.
    """
    source = Path(source).resolve()
    flags = tuple(d if d.startswith("-D") else f"-D{d}" for d in defines)
    key = (str(source), source.stat().st_mtime_ns, flags)
    with _cache_lock:
        if key in _reference_cache:
            return _reference_cache[key]
        lock = _reference_locks.setdefault(key, threading.Lock())
    with lock:
        with _cache_lock:
            if key in _reference_cache:
                return _reference_cache[key]
        tag = hashlib.sha1(repr(key).encode()).hexdigest()[:10]
        exe = Path(workdir) / f"{source.stem}.gcc-O0.{tag}"
        build(["gcc"], [source], exe, [*KERNEL_CFLAGS, "-O0", *flags])
        output = run(exe, timeout=timeout)
        with _cache_lock:
            _reference_cache[key] = output
        return output


def polybench_sources() -> list[Path]:
    """The PolyBench-style kernel sources, sorted by name."""
    return sorted(POLYBENCH_DIR.glob("*.c"))


def pencil_sources() -> list[Path]:
    """The PENCIL kernel sources, sorted by name."""
    return sorted(PENCIL_DIR.glob("*.c"))


def assert_matches_gcc_O0(source: Path, exe: Path, workdir: Path, flags: Sequence[str] = (),
                          threads: Sequence[int] = (1, 2), rtol: float = 0) -> None:
    """Build `source` with `gcc -O0 flags`, run it and `exe` (with each PENCILCC_NUM_THREADS of
    `threads`), and assert the outputs agree (compare_outputs with `rtol`)."""
    reference = Path(workdir) / f"{Path(source).stem}.gcc-O0"
    build(["gcc"], [source], reference, [*flags, "-O0"])
    expected = run(reference)
    for n in threads:
        out = run(exe, env={"PENCILCC_NUM_THREADS": str(n)})
        assert compare_outputs(expected, out, rtol=rtol) == [], n
