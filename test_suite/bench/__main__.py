# SPDX-License-Identifier: MIT
"""``python -m test_suite.bench``: pencilcc against gcc, clang and Polly, side by side, in one run.

For each kernel (``--kernels``) at the sizes of a dataset (``--dataset``),
every available compiler (``--compilers``) builds the program with
``-DPENCILCC_BENCH``; each build runs ``--repeat`` times, interleaved, with
``--threads`` threads; the table gives the median kernel seconds, the ratios
``gcc/pencilcc``, ``clang/pencilcc`` and ``polly/pencilcc`` (speed-ups of
pencilcc over every peer), their geometric means, and a status that says ``MISMATCH`` when a build's checksums differ from
gcc's.  The BLAS-like kernels (gemm, 2mm, 3mm, syrk, syr2k, symm, trmm,
doitgen) also get GFLOP/s and the percentage of the peak of the cores used,
whose formula and inputs are printed.  At its start a timing run measures
the machine's roofs (multiply-add peak and triad bandwidth, at one thread and
at ``--threads``: :func:`~test_suite.bench.machine.measure_roofs`); the kernels
with flop and byte counts then get a roofline table (attained GFLOP/s or GB/s
and the fraction of the bound that applies), with numpy's BLAS beside them on
the kernels that are BLAS operations (:mod:`test_suite.bench.blas`);
``--no-roofline`` skips both.  ``--charts DIR`` writes a roofline and a
speed-up chart (matplotlib, the optional extra ``bench``).  A further table gives compile times.  ``--callgrind`` counts the
kernels' instructions instead (one thread, repeatable, small sizes).
``--oclgrind`` runs the OpenCL builds on oclgrind's simulated device and
counts, per OpenCL kernel, global and local memory operations and barriers
(:mod:`test_suite.bench.oclgrind`; mini sizes).

``--kernels memory`` measures the value-style programs of the memory passes
(issue 26, item 7) with gcc, clang, Polly, pencilcc and ``pencilcc
-fpencil-memory=none`` (``pencilcc-memory-none``), and adds a table of every
build's peak resident set size (each run's own process: ``wait4``'s ``ru_maxrss``
through a small helper, :mod:`test_suite.bench.rusage`) with its percentage of gcc's.

``--compilers ...,pencilcc-opencl`` adds the OpenCL target (opt-in): its
column, its ratio to gcc (not a CPU figure: on PoCL it measures the runtime's
overheads) and a table of its cold first runs and of the runtime's profile
(launches, transfers, programs built or loaded).  ``pencilcc-opencl-tuned``
(opt-in too) runs ``pencilcc-tune`` (``--tune-budget``, 20) on each kernel
before its build and reports the tuner's evaluations and choices and the
ratio ``pencilcc-opencl/pencilcc-opencl-tuned`` (:mod:`test_suite.bench.tuned`).

Exit status: 0, or 1 when a MISMATCH was found (a miscompile), 2 on bad usage.
See ``test_suite/bench/README.md`` and ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional, Sequence

from test_suite.bench import compilers as compilers_mod
from test_suite.bench import blas, charts, datasets, flops, machine, oclgrind, opencl, report, rusage
from test_suite.bench.datasets import Kernel
from test_suite.bench.measure import KernelResult, measure_kernel

#: ``-march`` under callgrind: valgrind does not decode AVX-512, which
#: ``-march=native`` enables on recent x86 machines.
CALLGRIND_MARCH = "x86-64-v3"


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m test_suite.bench",
        description="Benchmark pencilcc against gcc, clang and clang+Polly on the kernel suite, in one run.")
    parser.add_argument("--kernels",
                        help="comma list of kernels (gemm, pencil/gemm, ...) and groups "
                             f"({', '.join(datasets.GROUPS)}); default: the 12 of 'default' "
                             f"(with --oclgrind: {','.join(datasets.OCLGRIND_KERNELS)}; image/NAME allowed)")
    parser.add_argument("--dataset", choices=datasets.DATASETS,
                        help=f"problem sizes (default: {datasets.DEFAULT_DATASET}; mini with --callgrind)")
    parser.add_argument("--repeat", type=int,
                        help="runs per build, median taken (default: 3; 1 with --callgrind)")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1,
                        help="OMP_NUM_THREADS and PENCILCC_NUM_THREADS of the runs (default: the CPU count)")
    parser.add_argument("--compilers",
                        help=f"comma list among {', '.join(compilers_mod.COMPILER_NAMES)} "
                             f"(default: {','.join(compilers_mod.DEFAULT_COMPILERS)}; for the memory group "
                             f"{','.join(compilers_mod.MEMORY_COMPILERS)}; {compilers_mod.MEMORY_NONE} is added "
                             "when memory kernels run with others)")
    parser.add_argument("--tune-budget", type=int, default=compilers_mod.TUNE_BUDGET, metavar="N",
                        help=f"evaluations pencilcc-tune may spend per region for {opencl.TUNED_NAME} "
                             f"(1 to {compilers_mod.TUNE_BUDGET}; default {compilers_mod.TUNE_BUDGET})")
    parser.add_argument("--march", help=f"-march of every build (default: native; {CALLGRIND_MARCH} "
                                        "with --callgrind)")
    parser.add_argument("--fp-contract", choices=("off", "on", "fast"), default="",
                        help="-ffp-contract= of every build (default: none, each compiler's own: under "
                             "-std=c99 gcc's off, pencilcc's and clang's on, which fuses a multiply "
                             "into the add of its own expression); fast lets every compiler form FMAs "
                             "anywhere; without FMAs no build passes half of the FMA peak")
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per run (default 300)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the results as JSON to FILE")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="build in DIR and keep the executables and optimisation records")
    parser.add_argument("--callgrind", action="store_true",
                        help="count kernel instructions with valgrind --tool=callgrind (one thread)")
    parser.add_argument("--oclgrind", action="store_true",
                        help="run the OpenCL builds on oclgrind's simulated device and count, per kernel, "
                             "global and local memory operations and barriers (mini sizes by default)")
    parser.add_argument("--no-roofline", action="store_true",
                        help="do not measure the machine's roofs (FMA peak, triad bandwidth) at the start, "
                             "nor time numpy's BLAS: no roofline table")
    parser.add_argument("--charts", type=Path, metavar="DIR",
                        help="write roofline.png and speedup.png to DIR (needs matplotlib: pip install -e '.[bench]')")
    parser.add_argument("--list", action="store_true", help="list the selected kernels and their sizes, and exit")
    args = parser.parse_args(argv)
    try:
        spec = args.kernels or (",".join(datasets.OCLGRIND_KERNELS) if args.oclgrind else "default")
        args.kernel_list = datasets.select_kernels(spec, images=args.oclgrind)
        args.compiler_names = ([n.strip() for n in args.compilers.split(",") if n.strip()] if args.compilers
                               else list(default_compilers(args.kernel_list)))
        unknown = [n for n in args.compiler_names if n not in compilers_mod.COMPILER_NAMES]
        if unknown:
            raise ValueError(f"unknown compiler(s) {', '.join(unknown)} "
                             f"(compilers: {', '.join(compilers_mod.COMPILER_NAMES)})")
        args.dataset = args.dataset or ("mini" if args.callgrind or args.oclgrind else datasets.DEFAULT_DATASET)
        for kernel in args.kernel_list:
            datasets.check_sizes(kernel, args.dataset)
    except ValueError as exc:
        parser.error(str(exc))
    args.repeat = args.repeat or (1 if args.callgrind else 3)
    args.march = args.march or (CALLGRIND_MARCH if args.callgrind else "native")
    if args.repeat < 1 or args.threads < 1:
        parser.error("--repeat and --threads must be at least 1")
    if args.oclgrind and args.callgrind:
        parser.error("--oclgrind and --callgrind are separate modes")
    if args.oclgrind and args.charts:
        parser.error("--charts draws a timing run's roofline and speed-ups; --oclgrind counts memory operations")
    if args.oclgrind and oclgrind.problem():
        parser.error(f"--oclgrind: {oclgrind.problem()}")
    if args.callgrind and shutil.which("valgrind") is None:
        parser.error("--callgrind needs valgrind on PATH")
    for name in (opencl.NAME, opencl.TUNED_NAME):
        if args.callgrind and name in args.compiler_names:
            parser.error(f"--callgrind cannot count {name}: its OpenCL runtime and PoCL call "
                         "clock_gettime themselves, which splits the count of the kernel call")
    if not 1 <= args.tune_budget <= compilers_mod.TUNE_BUDGET:
        parser.error(f"--tune-budget expects 1 to {compilers_mod.TUNE_BUDGET}, got {args.tune_budget}")
    return args


def default_compilers(kernels: Sequence[Kernel]) -> tuple[str, ...]:
    """The compilers of a run without ``--compilers``.

    The memory group alone: :data:`~test_suite.bench.compilers.MEMORY_COMPILERS`;
    memory kernels among others: the default ones and ``pencilcc-memory-none``;
    no memory kernel: the default ones.
    """
    memory = [datasets.is_memory_kernel(k) for k in kernels]
    if memory and all(memory):
        return compilers_mod.MEMORY_COMPILERS
    if any(memory):
        return (*compilers_mod.DEFAULT_COMPILERS, compilers_mod.MEMORY_NONE)
    return compilers_mod.DEFAULT_COMPILERS


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    if args.list:
        width = max([20, *(len(k.label) for k in args.kernel_list)])
        for kernel in args.kernel_list:
            print(f"{kernel.label:{width}s} {report.size_text(kernel.size_macros(args.dataset))}")
        return 0
    run = oclgrind.run_counts if args.oclgrind else run_benchmark
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        return run(args, args.keep)
    with tempfile.TemporaryDirectory(prefix="test_suite-bench-") as scratch:
        return run(args, Path(scratch))


def run_benchmark(args: argparse.Namespace, workdir: Path) -> int:
    host = machine.describe_machine()
    load_start = machine.load_average()
    threads = 1 if args.callgrind else args.threads
    settings: dict[str, Any] = {
        "mode": "callgrind" if args.callgrind else "timing", "dataset": args.dataset,
        "repeat": args.repeat, "threads": threads, "march": args.march, "fp_contract": args.fp_contract or "default",
        "command": " ".join(["python -m test_suite.bench", *sys.argv[1:]]),
        "roofline": not (args.callgrind or args.no_roofline),
    }
    if opencl.TUNED_NAME in args.compiler_names:
        settings["tune_budget"] = args.tune_budget
    compilers = compilers_mod.detect(args.compiler_names, args.march, workdir / "probe", args.tune_budget,
                                     args.fp_contract)
    # The percentage of peak is of the cores the runs may use.
    peak = flops.machine_peak(min(threads, host.cores))
    print(report.format_header(host, load_start, settings, compilers), flush=True)
    print(peak.describe() if peak is not None else "peak: unknown (no /proc/cpuinfo flags or clock)",
          flush=True)
    for compiler in compilers:
        if compiler.opencl and not compiler.available:
            print(f"note: {compiler.name} skipped: {compiler.unavailable}", flush=True)
    rss_helper, rss_problem = (None, "") if args.callgrind else rusage.build_helper(workdir / "rusage")
    if rss_problem:
        print(f"note: no peak RSS: {rss_problem}", flush=True)
    if load_start[0] > 0.5:
        print(f"note: 1-minute load average {load_start[0]:.2f} at start: other work may disturb the timings",
              flush=True)
    roofs: Optional[machine.Roofs] = None
    if settings["roofline"]:
        print("measuring the machine's roofs (FMA peak, triad bandwidth) ...", file=sys.stderr, flush=True)
        roofs, roofs_problem = machine.measure_roofs(workdir / "roofs", threads)
        print(roofs.describe() if roofs is not None else f"note: no roofline: {roofs_problem}", flush=True)
    numpy_timings: dict[tuple[str, tuple[tuple[str, int], ...]], blas.NumpyTiming] = {}
    results: list[KernelResult] = []
    started = time.perf_counter()
    total = len(args.kernel_list)
    for index, kernel in enumerate(args.kernel_list, 1):
        macros = kernel.size_macros(args.dataset)
        print(f"[{index}/{total}] {kernel.label} {report.size_text(macros)}", file=sys.stderr, flush=True)

        def progress(step: str, index: int = index, label: str = kernel.label) -> None:
            print(f"    [{index}/{total}] {label}: {step} ({time.perf_counter() - started:.0f} s elapsed)",
                  file=sys.stderr, flush=True)

        result = measure_kernel(kernel, macros, compilers, workdir / "build", repeat=args.repeat,
                                threads=threads, timeout=args.timeout, callgrind=args.callgrind,
                                reference=compilers_mod.REFERENCE, progress=progress, rss_helper=rss_helper)
        if not args.callgrind:
            sizes = kernel.size_values(args.dataset)
            numpy_timing = None
            if roofs is not None and blas.is_blas_kernel(kernel.polybench_name):
                key = (kernel.polybench_name, tuple(sorted(sizes.items())))
                if key not in numpy_timings:
                    progress(f"run {blas.NAME} x{args.repeat}")
                    numpy_timings[key] = blas.time_numpy(kernel.polybench_name, sizes, threads, args.repeat,
                                                         args.timeout)
                numpy_timing = numpy_timings[key]
            result = replace(result, flops=flops.kernel_flops(kernel.polybench_name, sizes),
                             bytes=flops.kernel_bytes(kernel.polybench_name, sizes), numpy=numpy_timing)
        results.append(result)
        print(f"    {report.status(result)}", file=sys.stderr, flush=True)
    load_end = machine.load_average()
    print()
    print(report.format_results(results, compilers, args.callgrind))
    print()
    roofline_table = report.format_roofline(results, compilers, roofs, threads)
    # The measured roofline supersedes the table of the nominal peak.
    flop_table = roofline_table or report.format_flops(results, compilers, peak)
    if flop_table:
        print(flop_table)
        print()
    if not args.callgrind and any(datasets.is_memory_kernel(k) for k in args.kernel_list):
        print(report.format_memory(results, compilers))
        print()
    opencl_table = report.format_opencl(results, compilers)
    if opencl_table:
        print(opencl_table)
        print()
    tuning_table = report.format_tuning(results, compilers)
    if tuning_table:
        print(tuning_table)
        print()
    print(report.format_compile_times(results, compilers))
    problems = report.format_problems(results)
    if problems:
        print()
        print(problems)
    print()
    print(f"load average {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} at start, "
          f"{load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f} at end; "
          f"{time.perf_counter() - started:.0f} s in all")
    if args.json:
        document = report.to_json(results, compilers, host, {"start": load_start, "end": load_end}, settings,
                                  peak, roofs)
        args.json.write_text(json.dumps(document, indent=2) + "\n")
    if args.charts:
        title = f"{args.dataset}, {threads} thread{'s' if threads != 1 else ''}"
        try:
            written = charts.write_charts(results, compilers, roofs, args.charts, title)
        except charts.ChartsUnavailable as exc:
            print(f"note: charts skipped: {exc}")
        else:
            print("charts: " + (", ".join(str(p) for p in written) if written
                                else "none (no timings or counts to chart)"))
    return 1 if any(o.mismatches for r in results for o in r.outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
