# SPDX-License-Identifier: MIT
"""A description of the machine a benchmark ran on: CPU, cores, memory, load, measured roofs.

Timings mean little without it: the results in ``docs/benchmarks.md`` quote
it, and ``--json`` records it.  Load averages are read at the start and at the
end of the run, since another job on a 2-core machine changes every ratio.

The machine's roofs (:func:`measure_roofs`) are measured, not computed: a
small C program (:data:`ROOFS_SOURCE`), built with the host compiler at the
start of the run, times

- ``fma``: twelve independent chains of vector multiply-adds per thread, as
  wide as the target's vectors (``-march=native``: 8 doubles with AVX-512, 4
  with AVX, 2 otherwise), enough chains to hide the multiply-add latency on two
  pipes; each multiply-add of a lane is 2 flops.  The best of three runs.
- ``triad``: the STREAM triad ``a[i] = b[i] + s * c[i]`` over three arrays of
  :data:`TRIAD_ELEMENTS` doubles (480 MB, far beyond any last-level cache), 24
  bytes per element (read ``b`` and ``c``, write ``a``: the STREAM convention,
  write-allocate reads not counted, as in the kernels' byte counts of
  :mod:`test_suite.bench.flops`).  The best of :data:`TRIAD_REPEATS` runs.

Each at one thread and at the run's thread count (OpenMP).  It measures what
the project's machine notes measure with ``fma_peak.c`` and
``stream_triad.c``; this program is the bench's own, written for any vector
width.
"""

from __future__ import annotations

import os
import platform
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

@dataclass(frozen=True)
class Machine:
    """What the results depend on: CPU model, core count, memory, operating system."""

    cpu: str
    cores: int
    memory_gib: float
    system: str

    def describe(self) -> str:
        return f"{self.cpu}, {self.cores} cores, {self.memory_gib:.0f} GiB, {self.system}"


def describe_machine() -> Machine:
    """This machine, from ``/proc`` where available."""
    return Machine(cpu_model(), os.cpu_count() or 1, _memory_gib(), f"{platform.system()} {platform.release()}")


def load_average() -> tuple[float, float, float]:
    """The 1-, 5- and 15-minute load averages (zeros where the system has none)."""
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def cpu_model() -> str:
    """The CPU's model name (/proc/cpuinfo), else what `platform` says."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / (1024 * 1024)
    except OSError:
        pass
    return 0.0


#: Doubles per triad array: 3 x 160 MB.
TRIAD_ELEMENTS = 20_000_000
TRIAD_REPEATS = 8
#: Iterations of the twelve multiply-add chains per thread (about 0.2 s at 3 GHz with two pipes).
FMA_ITERATIONS = 100_000_000
_ROOFS_TIMEOUT_S = 120
_RESULT_RE = re.compile(r"^(fma|triad) (\d+) ([0-9.eE+-]+)$", re.MULTILINE)

ROOFS_SOURCE = r"""
/* The bench's machine roofs: ./roofs fma ITERATIONS | ./roofs triad ELEMENTS REPEATS
 * prints "fma THREADS FLOP_PER_S" or "triad THREADS BYTES_PER_S". */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__AVX512F__)
# define VECTOR_BYTES 64
#elif defined(__AVX__)
# define VECTOR_BYTES 32
#else
# define VECTOR_BYTES 16
#endif
#define LANES (VECTOR_BYTES / (int)sizeof(double))
typedef double vec __attribute__((vector_size(VECTOR_BYTES)));

/* Keep a register's value opaque to the optimiser (x86: any vector register). */
#if defined(__x86_64__) || defined(__i386__)
# if defined(__AVX__)
#  define OPAQUE(r) __asm__ volatile("" : "+v"(r))
# else
#  define OPAQUE(r) __asm__ volatile("" : "+x"(r))
# endif
#else
# define OPAQUE(r) __asm__ volatile("" : "+w"(r))
#endif

static double chains(long iterations)
{
  vec a[12], m, c;
  for (int k = 0; k < LANES; k++) {
    m[k] = 0.9999999;
    c[k] = 1e-7;
  }
  for (int r = 0; r < 12; r++)
    a[r] = c + (double)r;
  vec a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3], a4 = a[4], a5 = a[5];
  vec a6 = a[6], a7 = a[7], a8 = a[8], a9 = a[9], a10 = a[10], a11 = a[11];
  for (long i = 0; i < iterations; i++) {
    a0 = a0 * m + c; a1 = a1 * m + c; a2 = a2 * m + c; a3 = a3 * m + c;
    a4 = a4 * m + c; a5 = a5 * m + c; a6 = a6 * m + c; a7 = a7 * m + c;
    a8 = a8 * m + c; a9 = a9 * m + c; a10 = a10 * m + c; a11 = a11 * m + c;
    OPAQUE(a0); OPAQUE(a1); OPAQUE(a2); OPAQUE(a3); OPAQUE(a4); OPAQUE(a5);
    OPAQUE(a6); OPAQUE(a7); OPAQUE(a8); OPAQUE(a9); OPAQUE(a10); OPAQUE(a11);
  }
  vec s = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));
  double total = 0;
  for (int k = 0; k < LANES; k++)
    total += s[k];
  return total;
}

static int fma_peak(long iterations)
{
  int threads = omp_get_max_threads();
  double best = 0, sink = 0;
  for (int run = 0; run < 3; run++) {
    double start = omp_get_wtime();
#pragma omp parallel reduction(+ : sink)
    sink += chains(iterations);
    double seconds = omp_get_wtime() - start;
    double rate = (double)threads * iterations * 12 * LANES * 2 / seconds;
    if (rate > best)
      best = rate;
  }
  printf("fma %d %.6e\n", threads, best);
  fprintf(stderr, "lanes %d, checksum %g\n", LANES, sink);
  return 0;
}

static int triad(long n, int repeats)
{
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *c = malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
  /* First touch by the threads that use the pages. */
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double best = 1e30, scalar = 3.0;
  for (int run = 0; run < repeats; run++) {
    double start = omp_get_wtime();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; i++)
      a[i] = b[i] + scalar * c[i];
    double seconds = omp_get_wtime() - start;
    if (seconds < best)
      best = seconds;
  }
  double check = 0;
  for (long i = 0; i < n; i += 4096)
    check += a[i];
  printf("triad %d %.6e\n", omp_get_max_threads(), 24.0 * n / best);
  fprintf(stderr, "checksum %g\n", check);
  free(a);
  free(b);
  free(c);
  return 0;
}

int main(int argc, char **argv)
{
  if (argc == 3 && strcmp(argv[1], "fma") == 0)
    return fma_peak(atol(argv[2]));
  if (argc == 4 && strcmp(argv[1], "triad") == 0)
    return triad(atol(argv[2]), atoi(argv[3]));
  fprintf(stderr, "usage: %s fma ITERATIONS | triad ELEMENTS REPEATS\n", argv[0]);
  return 2;
}
"""


@dataclass(frozen=True)
class Roof:
    """The measured limits of ``threads`` threads: multiply-add flop/s and triad bytes/s."""

    threads: int
    flops_per_second: float
    bytes_per_second: float

    @property
    def balance(self) -> float:
        """Flops per byte where the two roofs meet: below it a kernel is bandwidth-bound."""
        return self.flops_per_second / self.bytes_per_second

    def describe(self) -> str:
        return (f"{self.threads} thread{'s' if self.threads != 1 else ''}: FMA peak "
                f"{self.flops_per_second / 1e9:.1f} GFLOP/s, triad {self.bytes_per_second / 1e9:.1f} GB/s, "
                f"balance {self.balance:.2f} flop/byte")


@dataclass(frozen=True)
class Roofs:
    """The roofs measured at the start of a run, one per thread count (fewest threads first)."""

    roofs: tuple[Roof, ...]
    #: The command that built the measuring program.
    build: tuple[str, ...] = ()

    def at(self, threads: int) -> Optional[Roof]:
        """The roof of ``threads`` threads; for a count not measured, the largest count below it."""
        below = [r for r in self.roofs if r.threads <= threads]
        return max(below, key=lambda r: r.threads) if below else None

    def describe(self) -> str:
        return "machine roofs (measured): " + "; ".join(r.describe() for r in self.roofs)


def parse_roof_output(text: str) -> dict[str, tuple[int, float]]:
    """The ``fma``/``triad`` lines of the measuring program: ``{kind: (threads, rate)}``."""
    found = {kind: (int(threads), float(rate)) for kind, threads, rate in _RESULT_RE.findall(text)}
    for kind, (threads, rate) in found.items():
        if threads < 1 or not rate > 0:
            raise ValueError(f"bad {kind} measurement: {threads} threads, {rate}")
    return found


def roof_thread_counts(threads: int) -> tuple[int, ...]:
    """The thread counts whose roofs a run with ``threads`` threads measures: one, and its own."""
    return (1,) if threads <= 1 else (1, threads)


def measure_roofs(directory: Path, threads: int, compiler: str = "gcc") -> tuple[Optional[Roofs], str]:
    """Build the measuring program in ``directory`` and run it at one thread and at ``threads``:
    ``(roofs, "")``, or ``(None, why not)``."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "roofs.c"
    source.write_text(ROOFS_SOURCE)
    program = directory / "roofs"
    command = (compiler, "-O2", "-march=native", "-ffp-contract=fast", "-fopenmp", str(source), "-o", str(program))
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=_ROOFS_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cannot build the roofs program with {compiler}: {exc}"
    if proc.returncode != 0:
        return None, f"cannot build the roofs program with {compiler}: {proc.stderr.strip()[-300:]}"
    roofs = []
    for count in roof_thread_counts(threads):
        env = {**os.environ, "OMP_NUM_THREADS": str(count)}
        rates: dict[str, float] = {}
        for arguments in (["fma", str(FMA_ITERATIONS)], ["triad", str(TRIAD_ELEMENTS), str(TRIAD_REPEATS)]):
            try:
                run = subprocess.run([str(program), *arguments], capture_output=True, text=True, env=env,
                                     timeout=_ROOFS_TIMEOUT_S)
                found = parse_roof_output(run.stdout)
            except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
                return None, f"roofs program ({arguments[0]}, {count} threads): {exc}"
            if run.returncode != 0 or arguments[0] not in found:
                return None, (f"roofs program ({arguments[0]}, {count} threads) failed: "
                              f"{run.stderr.strip()[-300:]}")
            rates[arguments[0]] = found[arguments[0]][1]
        roofs.append(Roof(count, rates["fma"], rates["triad"]))
    return Roofs(tuple(roofs), command), ""
