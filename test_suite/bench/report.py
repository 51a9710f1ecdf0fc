# SPDX-License-Identifier: MIT
"""The text tables and the JSON document of a benchmark run.

Input: the :class:`~test_suite.bench.measure.KernelResult` of every kernel,
the compilers, the run's settings.  Output: strings (the CLI prints them) and
a JSON-ready dict.  Pure functions: nothing here prints or measures.

Ratios are ``numerator / denominator`` of the median kernel times (or
instruction counts), so ``gcc/pencilcc`` above 1 is pencilcc's speed-up over
gcc.  A ratio, and the geometric means at the bottom, use only kernels where
both compilers ran and matched the reference checksums.  pencilcc is compared
with every peer (gcc, clang, Polly).  The BLAS-like kernels also get GFLOP/s
and the percentage of the machine's peak (:mod:`test_suite.bench.flops`).

The OpenCL target's ratio (``gcc/pencilcc-opencl``) is shown beside the
others, geomean included, but it is not a figure of the CPU compiler: on PoCL
it measures the OpenCL runtime's overheads.  The JSON keeps its geometric mean
apart (``geomean_opencl``), so that ``geomean`` holds the CPU figures only; a
table of its own gives the cold first run and the runtime's profile.  The tuned
OpenCL configuration (``pencilcc-opencl-tuned``) gets the same, its ratio to the
untuned one (``pencilcc-opencl/pencilcc-opencl-tuned``), and a table of the
tuner's evaluations and choices (:func:`format_tuning`; ``tuning`` in the JSON).

A run with kernels of the ``memory`` group also gets the peak resident set
size of every build's runs (:func:`format_memory`), as a percentage of gcc's
(below 100%: less memory than gcc) and, for ``pencilcc``, of
``pencilcc-memory-none``'s (what the memory passes save).

With the machine's measured roofs (:class:`~test_suite.bench.machine.Roofs`),
the kernels with flop and byte counts get a roofline table
(:func:`format_roofline`): per build the attained GFLOP/s or GB/s and the
fraction of the bound that applies (:mod:`test_suite.bench.roofline`), with
numpy's BLAS beside them where the kernel is a BLAS operation
(:mod:`test_suite.bench.blas`).
"""

from __future__ import annotations

import math
from dataclasses import asdict
from typing import Any, Optional, Sequence

from test_suite.bench import blas, opencl, roofline, tuned
from test_suite.bench.compilers import MEMORY_NONE, Compiler
from test_suite.bench.flops import BLAS_LIKE, Peak
from test_suite.bench.machine import Machine, Roofs
from test_suite.bench.measure import KernelResult, Outcome

#: Ratio columns, shown when both compilers are in the run and available:
#: pencilcc's speed-up over every peer, and the threadless build's and the one-thread run's over gcc.
RATIO_PAIRS: tuple[tuple[str, str], ...] = (
    ("gcc", "pencilcc"), ("clang", "pencilcc"), ("polly", "pencilcc"), ("gcc", "pencilcc-seq"),
    ("gcc", "pencilcc-1t"), ("gcc", MEMORY_NONE), (MEMORY_NONE, "pencilcc"), ("gcc", opencl.NAME),
    ("gcc", opencl.TUNED_NAME), (opencl.NAME, opencl.TUNED_NAME),
    ("pencilcc", "pencilcc-scc"), ("pencilcc", "pencilcc-bb"),
)
#: The peak-RSS table's percentage columns besides ``NAME/gcc`` for every other compiler:
#: what the memory passes save.
RSS_PAIRS: tuple[tuple[str, str], ...] = (("pencilcc", MEMORY_NONE),)
MISMATCH = "MISMATCH"


def ratio_pairs(compilers: Sequence[Compiler]) -> list[tuple[str, str]]:
    """The ratio columns of a run with ``compilers``."""
    available = {c.name for c in compilers if c.available}
    return [(a, b) for a, b in RATIO_PAIRS if a in available and b in available]


def cpu_pair(compilers: Sequence[Compiler], pair: tuple[str, str]) -> bool:
    """Whether a ratio column compares CPU code (not the OpenCL target, whose ratio only informs)."""
    opencl_names = {c.name for c in compilers if c.opencl}
    return not opencl_names.intersection(pair)


def ratio(result: KernelResult, numerator: str, denominator: str) -> Optional[float]:
    """``numerator``'s median over ``denominator``'s, if both ran and matched the reference."""
    top, bottom = result.outcome(numerator), result.outcome(denominator)
    if top is None or bottom is None or not top.usable or not bottom.usable:
        return None
    assert top.median is not None and bottom.median is not None
    if bottom.median <= 0:
        return None
    return top.median / bottom.median


def geometric_mean(values: Sequence[float]) -> Optional[float]:
    positive = [v for v in values if v > 0]
    if not positive:
        return None
    return math.exp(sum(math.log(v) for v in positive) / len(positive))


def size_text(macros: Sequence[str]) -> str:
    return " ".join(macros) if macros else "defaults"


def status(result: KernelResult) -> str:
    """``ok``, or what went wrong, loudest first: MISMATCH, FAIL, fallback."""
    words = []
    mismatched = [o.compiler for o in result.outcomes if o.mismatches]
    failed = [o.compiler for o in result.outcomes if o.error and not o.error.startswith("n/a")]
    fallback = [o.compiler for o in result.outcomes if o.regions_not_optimized]
    if mismatched:
        words.append(f"{MISMATCH} {','.join(mismatched)}")
    if failed:
        words.append(f"FAIL {','.join(failed)}")
    if fallback:
        words.append(f"fallback {','.join(fallback)}")
    return "; ".join(words) or "ok"


def _cell(outcome: Optional[Outcome], callgrind: bool) -> str:
    if outcome is None or outcome.error.startswith("n/a"):
        return "n/a"
    if outcome.median is None:
        return "FAIL"
    text = f"{outcome.median / 1e6:.2f}M" if callgrind else f"{outcome.median:.3g}"
    if outcome.mismatches:
        text += "!"
    if outcome.regions_not_optimized:
        text += "*"
    return text


def _ratio_cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def _table(header: list[str], rows: list[list[str]], left: int) -> str:
    """Columns aligned: the first ``left`` to the left, the others to the right; status last, unpadded."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(row: list[str]) -> str:
        cells = [cell.ljust(widths[i]) if i < left else cell.rjust(widths[i]) for i, cell in enumerate(row)]
        return "  ".join(cells).rstrip()

    return "\n".join([line(header), *(line(row) for row in rows)])


def format_results(results: Sequence[KernelResult], compilers: Sequence[Compiler], callgrind: bool) -> str:
    """The main table: one row per kernel, the median per compiler, the ratios, a status."""
    names = [c.name for c in compilers]
    pairs = ratio_pairs(compilers)
    header = ["kernel", "size", *names, *(f"{a}/{b}" for a, b in pairs), "status"]
    rows = []
    for result in results:
        rows.append([result.kernel, size_text(result.macros),
                     *(_cell(result.outcome(n), callgrind) for n in names),
                     *(_ratio_cell(ratio(result, a, b)) for a, b in pairs), status(result)])
    means = [geometric_mean([r for r in (ratio(res, a, b) for res in results) if r is not None])
             for a, b in pairs]
    counts = [sum(ratio(res, a, b) is not None for res in results) for a, b in pairs]
    rows.append(["geomean", "", *("" for _ in names), *(_ratio_cell(m) for m in means), ""])
    if callgrind:
        unit = "kernel instructions (callgrind, millions); ratio = left / right (> 1: fewer with the right-hand one)"
    else:
        unit = "median kernel seconds; ratio = left / right (> 1: the right-hand compiler is faster)"
    lines = [unit,
             _table(header, rows, 2)]
    if pairs:
        lines.append("geomean over " + ", ".join(f"{a}/{b} {n} kernels" for (a, b), n in zip(pairs, counts)))
    informative = [f"{a}/{b}" for a, b in pairs if not cpu_pair(compilers, (a, b))]
    if informative:
        lines.append(f"{', '.join(informative)}: the OpenCL target, timed with transfers and launches "
                     "(the first run, which builds the OpenCL program, left out); on PoCL (OpenCL on the "
                     "CPU) it measures the runtime's overheads, not a GPU, and is no CPU figure")
    lines.append("! = MISMATCH (checksums differ from the reference: a bug), "
                 "* = a region fell back to the host compiler, FAIL = build or run failed")
    return "\n".join(lines)


def gflops(result: KernelResult, compiler: str) -> Optional[float]:
    """GFLOP/s of ``compiler``'s build (None: no flop count, or no usable time)."""
    outcome = result.outcome(compiler)
    if result.flops is None or outcome is None or not outcome.usable:
        return None
    assert outcome.median is not None
    if outcome.median <= 0:
        return None
    return result.flops / outcome.median / 1e9


def format_flops(results: Sequence[KernelResult], compilers: Sequence[Compiler], peak: Optional[Peak]) -> str:
    """GFLOP/s and percentage of peak per BLAS-like kernel and compiler; "" if the run has none."""
    counted = [r for r in results if r.flops is not None and _polybench_name(r.kernel) in BLAS_LIKE]
    if not counted:
        return ""
    names = [c.name for c in compilers if c.available]
    rows = []
    for result in counted:
        row = [result.kernel, f"{result.flops / 1e9:.3g}"]
        for name in names:
            rate = gflops(result, name)
            if rate is None:
                row.append("-")
            elif peak is None:
                row.append(f"{rate:.2f}")
            else:
                row.append(f"{rate:.2f} ({100 * rate * 1e9 / peak.flops_per_second:.0f}%)")
        rows.append(row)
    lines = ["GFLOP/s (percentage of peak) of the BLAS-like kernels; flops counted from the loops "
             "after hoisting loop invariants (test_suite/bench/flops.py)",
             _table(["kernel", "GFLOP", *names], rows, 1),
             peak.describe() if peak is not None else "peak unknown (no /proc/cpuinfo flags or clock)"]
    return "\n".join(lines)


def _polybench_name(label: str) -> str:
    """The PolyBench kernel of a label: ``gemm`` for ``gemm``, ``pencil/gemm`` and ``3ac/gemm``."""
    return label.rsplit("/", 1)[-1]


def compiler_threads(compiler: Compiler, threads: int) -> int:
    """The threads ``compiler``'s builds run with in a run of ``threads`` threads."""
    return compiler.run_threads or threads


def attained(result: KernelResult, compiler: Compiler, roofs: Optional[Roofs],
             threads: int) -> Optional[roofline.Attained]:
    """``compiler``'s rate and fraction of the bound on the roof of its threads (None: no counts or time)."""
    outcome = result.outcome(compiler.name)
    if roofs is None or outcome is None or not outcome.usable:
        return None
    return roofline.attained(result.flops, result.bytes, outcome.median,
                             roofs.at(compiler_threads(compiler, threads)))


def numpy_attained(result: KernelResult, roofs: Optional[Roofs], threads: int) -> Optional[roofline.Attained]:
    """numpy's rate and fraction of the bound (its BLAS runs with the run's threads)."""
    if roofs is None or result.numpy is None:
        return None
    return roofline.attained(result.flops, result.bytes, result.numpy.median, roofs.at(threads))


def numpy_ratio(result: KernelResult, compiler: str) -> Optional[float]:
    """numpy's median seconds over ``compiler``'s (above 1: the build is faster than numpy's BLAS)."""
    outcome = result.outcome(compiler)
    if result.numpy is None or result.numpy.median is None or outcome is None or not outcome.usable:
        return None
    assert outcome.median is not None
    return result.numpy.median / outcome.median if outcome.median > 0 else None


def _attained_cell(value: Optional[roofline.Attained], row_kind: str) -> str:
    if value is None:
        return "-"
    unit = "" if value.bound.kind == row_kind else f" {value.bound.unit}"
    return f"{value.rate / 1e9:.3g}{unit} ({100 * value.fraction:.0f}%)"


def format_roofline(results: Sequence[KernelResult], compilers: Sequence[Compiler], roofs: Optional[Roofs],
                    threads: int) -> str:
    """Per kernel with a byte count: its counts, the bound that applies and every build's attained
    rate and fraction of it, numpy's BLAS where the kernel is a BLAS operation; "" if none applies."""
    roof = roofs.at(threads) if roofs is not None else None
    counted = [r for r in results if r.bytes]
    if roof is None or not counted:
        return ""
    available = [c for c in compilers if c.available]
    with_numpy = any(r.numpy is not None for r in counted)
    ratio_names = [n for n in ("pencilcc",) if any(c.name == n for c in available)] if with_numpy else []
    header = ["kernel", "GFLOP", "MB", "flop/B", "bound", *(c.name for c in available),
              *([blas.NAME] if with_numpy else []), *(f"{blas.NAME}/{n}" for n in ratio_names)]
    rows = []
    for result in counted:
        limit = roofline.bound(result.flops, result.bytes, roof)
        assert limit is not None
        ai = roofline.intensity(result.flops, result.bytes)
        row = [result.kernel, "-" if result.flops is None else f"{result.flops / 1e9:.3g}",
               f"{result.bytes / 1e6:.4g}", "-" if ai is None else f"{ai:.3g}", f"{limit.kind} {limit.unit}"]
        row += [_attained_cell(attained(result, c, roofs, threads), limit.kind) for c in available]
        if with_numpy:
            if result.numpy is None:
                row.append("-")
            elif result.numpy.error:
                row.append("FAIL")
            else:
                row.append(_attained_cell(numpy_attained(result, roofs, threads), limit.kind))
        row += [_ratio_cell(numpy_ratio(result, n)) for n in ratio_names]
        rows.append(row)
    assert roofs is not None
    lines = [f"roofline at {threads} thread{'s' if threads != 1 else ''}: attained rate in the bound's unit "
             "(fraction of the bound); bound = compute (measured FMA peak) where flop/B x triad bandwidth "
             "reaches the peak, else bandwidth (measured triad); bytes = compulsory traffic "
             "(test_suite/bench/flops.py)",
             _table(header, rows, 1),
             roofs.describe()]
    others = {c.name: compiler_threads(c, threads) for c in available if compiler_threads(c, threads) != threads}
    if others:
        lines.append("; ".join(f"{name}: against the roofs of {count} thread{'s' if count != 1 else ''}"
                               for name, count in others.items())
                     + " (the threads it runs with); a unit in a cell: its bound differs from the row's")
    if with_numpy:
        lines.append(f"{blas.NAME}: numpy's BLAS calls for the same operation and sizes at {threads} BLAS "
                     f"threads (test_suite/bench/blas.py); {blas.NAME}/pencilcc above 1: pencilcc is faster")
        libraries = sorted({r.numpy.library for r in counted if r.numpy is not None and r.numpy.library})
        if libraries:
            lines.append(f"{blas.NAME} BLAS: {'; '.join(libraries)}")
        lines += [f"{blas.NAME} FAIL {r.kernel}: {r.numpy.error}" for r in counted
                  if r.numpy is not None and r.numpy.error]
    return "\n".join(lines)


def format_compile_times(results: Sequence[KernelResult], compilers: Sequence[Compiler]) -> str:
    """Compile (and link) seconds per kernel and compiler, with geometric means."""
    names = [c.name for c in compilers]
    rows = []
    per_compiler: dict[str, list[float]] = {n: [] for n in names}
    for result in results:
        row = [result.kernel]
        for name in names:
            outcome = result.outcome(name)
            if outcome is None or outcome.compile_seconds is None:
                row.append("n/a")
                continue
            row.append(f"{outcome.compile_seconds:.2f}")
            per_compiler[name].append(outcome.compile_seconds)
        rows.append(row)
    means = [geometric_mean(per_compiler[n]) for n in names]
    rows.append(["geomean", *("-" if m is None else f"{m:.2f}" for m in means)])
    lines = ["compile + link seconds (pencilcc: compile cache off)", _table(["kernel", *names], rows, 1)]
    by_name = dict(zip(names, means))
    for name in ("pencilcc", "pencilcc-seq"):
        if by_name.get(name) and by_name.get("gcc"):
            lines.append(f"{name}/gcc compile time (geomean): {by_name[name] / by_name['gcc']:.1f}x")
    return "\n".join(lines)


def format_opencl(results: Sequence[KernelResult], compilers: Sequence[Compiler]) -> str:
    """The OpenCL target per kernel: cold and warm seconds, launches, transfers, programs; "" if not run."""
    names = [c.name for c in compilers if c.opencl and c.available]
    if not names:
        return ""
    header = ["kernel", "compiler", "cold s", "warm s", "kernels", "launches", "kernel ms",
              "to device", "MB", "ms", "to host", "MB", "ms", "programs built/loaded", "buffers new/reused"]
    rows = []
    devices: list[str] = []
    for result in results:
        for name in names:
            outcome = result.outcome(name)
            if outcome is None:
                continue
            cold = "-" if outcome.cold_seconds is None else f"{outcome.cold_seconds:.3g}"
            row = [result.kernel, name, cold, _cell(outcome, callgrind=False)]
            p = outcome.profile
            if p is None:
                row += ["-"] * (len(header) - len(row))
            else:
                row += [str(len(p.kernels)), str(p.launches), f"{sum(k.milliseconds for k in p.kernels):.3g}"]
                for way in (p.host_to_device, p.device_to_host):
                    row += [str(way.count), f"{way.bytes / 1e6:.3g}", f"{way.milliseconds:.3g}"]
                row += [f"{p.programs_built}/{p.programs_loaded}", f"{p.buffers_allocated}/{p.buffers_reused}"]
                if p.device not in devices:
                    devices.append(p.device)
            rows.append(row)
    lines = ["OpenCL target: cold = first run (builds the OpenCL program into an empty disk cache), "
             "warm = the median of the timed runs (program loaded from the disk cache; the kernel call "
             "includes the runtime's start: device, context, program); kernels, launches, their device "
             "time and the transfers (count, MB, ms) from one more run with PENCILCC_PROFILE=1",
             _table(header, rows, 2),
             "device: " + ("; ".join(devices) if devices else "unknown (no profiled run)")]
    return "\n".join(lines)


def tuning_json(tuning: Optional[tuned.Tuning]) -> Optional[dict[str, Any]]:
    """A tuned build's ``tuning`` field: evaluations, choices per region, the build's sources."""
    if tuning is None:
        return None
    return {"evaluations": tuning.evaluations, "seconds": tuning.seconds, "error": tuning.error,
            "sizes": tuning.sizes_text(), "tile_sizes_from": list(tuning.tile_sizes_from),
            "regions": [{"label": r.label, "bands": {str(b): list(s) for b, s in r.bands},
                         "direct_bands": {str(b): list(s) for b, s in r.direct},
                         "evaluations": r.evaluations, "seconds": r.seconds, "default_seconds": r.default_seconds}
                        for r in tuning.regions]}


def format_tuning(results: Sequence[KernelResult], compilers: Sequence[Compiler]) -> str:
    """Per kernel and tuned configuration: the tuner's evaluations and choices, where the build's
    sizes came from, the tuning's seconds, and the ratio to the untuned OpenCL build; "" if none ran."""
    names = [c.name for c in compilers if c.tune_budget and c.available]
    if not names:
        return ""
    header = ["kernel", "compiler", "evaluations", "sizes chosen", "build's sizes from", "tuning s",
              f"{opencl.NAME}/tuned"]
    rows = []
    for result in results:
        for name in names:
            outcome = result.outcome(name)
            if outcome is None:
                continue
            t = outcome.tuning
            if t is None:
                rows.append([result.kernel, name, "-", "-", "-", "-", "-"])
                continue
            rows.append([result.kernel, name, str(t.evaluations) if not t.error else "FAIL", t.sizes_text(),
                         ",".join(t.tile_sizes_from) or "-", "-" if t.seconds is None else f"{t.seconds:.1f}",
                         _ratio_cell(ratio(result, opencl.NAME, name))])
    budgets = sorted({c.tune_budget for c in compilers if c.tune_budget and c.available})
    return "\n".join([
        f"pencilcc-tune before the OpenCL build (at most {'/'.join(map(str, budgets))} evaluations per region; "
        "sizes: band=outer x inner work-group, 'default' where nothing beat the build without tuned sizes "
        "by the tuner's margin); tuning s = the tuner's wall time (not in the compile or kernel times); "
        f"{opencl.NAME}/tuned above 1: the tuned build is faster",
        _table(header, rows, 4)])


def rss_pairs(compilers: Sequence[Compiler]) -> list[tuple[str, str]]:
    """The percentage columns of the peak-RSS table: every compiler over gcc, then :data:`RSS_PAIRS`."""
    available = [c.name for c in compilers if c.available]
    pairs = [(name, "gcc") for name in available if name != "gcc" and "gcc" in available]
    return pairs + [(a, b) for a, b in RSS_PAIRS if a in available and b in available]


def rss_ratio(result: KernelResult, numerator: str, denominator: str) -> Optional[float]:
    """``numerator``'s peak RSS over ``denominator``'s, if both ran and matched the reference."""
    top, bottom = result.outcome(numerator), result.outcome(denominator)
    if top is None or bottom is None or not top.usable or not bottom.usable:
        return None
    if top.peak_rss_kib is None or not bottom.peak_rss_kib:
        return None
    return top.peak_rss_kib / bottom.peak_rss_kib


def _rss_cell(outcome: Optional[Outcome]) -> str:
    if outcome is None or outcome.error.startswith("n/a"):
        return "n/a"
    if outcome.peak_rss_kib is None:
        return "FAIL"
    return f"{outcome.peak_rss_kib / 1024:.1f}" + ("!" if outcome.mismatches else "")


def _percent_cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.3g}%"


def format_memory(results: Sequence[KernelResult], compilers: Sequence[Compiler]) -> str:
    """Peak RSS per kernel and compiler (MiB) and its percentages of gcc's (and of memory-none's)."""
    names = [c.name for c in compilers]
    pairs = rss_pairs(compilers)
    header = ["kernel", "size", *names, *(f"{a}/{b}" for a, b in pairs)]
    rows = [[result.kernel, size_text(result.macros), *(_rss_cell(result.outcome(n)) for n in names),
             *(_percent_cell(rss_ratio(result, a, b)) for a, b in pairs)] for result in results]
    means = [geometric_mean([r for r in (rss_ratio(res, a, b) for res in results) if r is not None])
             for a, b in pairs]
    rows.append(["geomean", "", *("" for _ in names), *(_percent_cell(m) for m in means)])
    return "\n".join([
        "peak resident set size, MiB: the largest of the timed runs' (each run's own process: wait4's "
        "ru_maxrss); percentage = left / right (< 100%: the left-hand build needs less memory)",
        _table(header, rows, 2),
        "! = MISMATCH (checksums differ from the reference), FAIL = build or run failed"])


def format_problems(results: Sequence[KernelResult]) -> str:
    """One line per mismatch, failure and fallback, with the kernel and size; "" if none."""
    lines = []
    for result in results:
        where = f"{result.kernel} [{size_text(result.macros)}]"
        for o in result.outcomes:
            for problem in o.mismatches:
                lines.append(f"{MISMATCH} {where} {o.compiler} vs {result.reference}: {problem}")
            if o.error and not o.error.startswith("n/a"):
                lines.append(f"FAIL {where} {o.compiler}: {o.error}")
            for region in o.regions_not_optimized:
                lines.append(f"fallback {where} {o.compiler}: {region}")
    return "\n".join(lines)


def format_header(machine: Machine, load_start: Sequence[float], settings: dict[str, Any],
                  compilers: Sequence[Compiler]) -> str:
    lines = [f"machine: {machine.describe()}; load average {load_start[0]:.2f} {load_start[1]:.2f} "
             f"{load_start[2]:.2f} at start",
             "settings: " + ", ".join(f"{k} {v}" for k, v in settings.items())]
    width = max([13, *(len(c.name) for c in compilers)])
    for c in compilers:
        if c.available:
            lines.append(f"  {c.name:{width}s} {' '.join(c.command)}  [{c.version}]")
        else:
            lines.append(f"  {c.name:{width}s} n/a ({c.unavailable})")
    return "\n".join(lines)


def to_json(results: Sequence[KernelResult], compilers: Sequence[Compiler], machine: Machine,
            load: dict[str, Sequence[float]], settings: dict[str, Any],
            peak: Optional[Peak] = None, roofs: Optional[Roofs] = None) -> dict[str, Any]:
    """The whole run as a JSON-ready dict (``--json``)."""
    threads = int(settings.get("threads", 1))

    def attained_json(value: Optional[roofline.Attained]) -> Optional[dict[str, Any]]:
        if value is None:
            return None
        return {"bound": value.bound.kind, "limit": value.bound.limit, "rate": value.rate,
                "fraction": value.fraction}

    def numpy_json(r: KernelResult) -> Optional[dict[str, Any]]:
        if r.numpy is None:
            return None
        return {"values": list(r.numpy.values), "median": r.numpy.median, "error": r.numpy.error,
                "library": r.numpy.library, "roofline": attained_json(numpy_attained(r, roofs, threads)),
                "ratios": {f"{blas.NAME}/{c.name}": numpy_ratio(r, c.name) for c in compilers if c.available}}

    pairs = ratio_pairs(compilers)
    opencl_names = {c.name for c in compilers if c.opencl}
    tuned_names = {c.name for c in compilers if c.tune_budget}

    def means(cpu: bool) -> dict[str, Optional[float]]:
        return {f"{a}/{b}": geometric_mean([x for x in (ratio(r, a, b) for r in results) if x is not None])
                for a, b in pairs if cpu_pair(compilers, (a, b)) == cpu}

    return {
        "machine": asdict(machine),
        "peak": None if peak is None else {**asdict(peak), "flops_per_second": peak.flops_per_second},
        "roofs": None if roofs is None else {"build": list(roofs.build), "roofs": [
            {**asdict(r), "balance": r.balance} for r in roofs.roofs]},
        "load_average": {k: list(v) for k, v in load.items()},
        "settings": settings,
        "compilers": [{"name": c.name, "command": list(c.command), "link_flags": list(c.link_flags),
                       "version": c.version, "available": c.available, "unavailable": c.unavailable,
                       "opencl": c.opencl, **({"tune_budget": c.tune_budget} if c.tune_budget else {})}
                      for c in compilers],
        "results": [
            {"kernel": r.kernel, "size": list(r.macros), "reference": r.reference, "status": status(r),
             "outcomes": [{"compiler": o.compiler, "compile_seconds": o.compile_seconds,
                           "values": list(o.values), "median": o.median, "error": o.error,
                           "mismatches": list(o.mismatches),
                           "regions_not_optimized": list(o.regions_not_optimized),
                           "checksums": [asdict(c) for c in o.checksums],
                           "rss_kib": list(o.rss_kib), "peak_rss_kib": o.peak_rss_kib,
                           **({"cold_seconds": o.cold_seconds,
                               "profile": None if o.profile is None else asdict(o.profile)}
                              if o.compiler in opencl_names else {}),
                           **({"tuning": tuning_json(o.tuning)} if o.compiler in tuned_names else {})}
                          for o in r.outcomes],
             "ratios": {f"{a}/{b}": ratio(r, a, b) for a, b in pairs},
             "rss_ratios": {f"{a}/{b}": rss_ratio(r, a, b) for a, b in rss_pairs(compilers)},
             "flops": r.flops,
             "gflops": {c.name: gflops(r, c.name) for c in compilers if c.available},
             "bytes": r.bytes, "flop_per_byte": roofline.intensity(r.flops, r.bytes),
             "roofline": {c.name: attained_json(attained(r, c, roofs, threads)) for c in compilers
                          if c.available},
             "numpy": numpy_json(r)}
            for r in results],
        "geomean": means(cpu=True),
        "geomean_opencl": means(cpu=False),
        "geomean_rss": {f"{a}/{b}": geometric_mean([x for x in (rss_ratio(r, a, b) for r in results)
                                                    if x is not None])
                        for a, b in rss_pairs(compilers)},
    }
