# SPDX-License-Identifier: MIT
"""Run time of the 3AC, PRE and loop-order variants against their originals, interleaved (thesis Table 2.2).

    python -m test_suite.bench.variants [--kernels 2mm,gemm,gemm.kij,...] [--rounds 7] [--threads N]
                                        [--dataset medium] [--json FILE]

Every kernel with a variant (test_suite/kernels/variants.py) is built by `pencilcc -O3` in each of
its forms (the original, `3ac`, `pre`); a loop-order variant (test_suite/kernels/loop_orders.py,
named `gemm.kij`) is a row of its own, its form `order` beside its original. Then `--rounds` rounds run every build once, the forms of
one kernel back to back and their order rotated from round to round. A drift of the machine's
speed (another tenant, the clock) then falls on the forms of a kernel alike, which the main
benchmark's kernel-after-kernel order does not give: there all the originals ran minutes before
their variants. Per variant: the median over the rounds of the paired ratio original seconds /
variant seconds of one round (at least 0.95: within 5%, the issue's target), and each form's
median seconds. Every run's checksums are compared with the original's first run; a variant that
differs, or fails to build or run, is a miss and the row says why. Prints a Markdown table
(docs/benchmarks.md); run it alone, as the main benchmark.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from test_suite.bench import checksums, compilers, datasets, machine, measure
from test_suite.kernels import loop_orders
from test_suite.kernels.variants import VARIANT_DIRS

FORMS = ("original", *VARIANT_DIRS, loop_orders.GROUP)
TARGET = 0.95


@dataclass
class Form:
    """One form of one kernel: its build and its runs, round by round."""

    kernel: datasets.Kernel
    executable: Optional[Path] = None
    seconds: list[float] = field(default_factory=list)
    error: str = ""


def kernel_forms(names: Sequence[str]) -> dict[str, dict[str, datasets.Kernel]]:
    """PolyBench name -> form -> benchmark kernel, for the kernels of `names` that have a variant; a
    loop-order variant's name (`gemm.kij`) -> its original and its `order` form."""
    known = {k.label: k for k in datasets.all_kernels()}
    table: dict[str, dict[str, datasets.Kernel]] = {}
    for name in names:
        if name in loop_orders.BY_NAME:
            table[name] = {"original": known[loop_orders.kernel_of(name)],
                           loop_orders.GROUP: known[f"{loop_orders.GROUP}/{name}"]}
            continue
        forms = {form: known[label] for form in FORMS
                 for label in [name if form == "original" else f"{form}/{name}"] if label in known}
        if name not in known:
            raise ValueError(f"unknown kernel {name!r}")
        if len(forms) > 1:
            table[name] = forms
    return table


def measure_forms(table: dict[str, dict[str, datasets.Kernel]], rounds: int, threads: int, dataset: str,
                  workdir: Path, timeout: float) -> dict[str, dict[str, Form]]:
    """Build every form, then run them `rounds` times, interleaved as the module says."""
    pencilcc = compilers.detect(["pencilcc"], "native", workdir / "probe")[0]
    if not pencilcc.available:
        raise RuntimeError(f"pencilcc unavailable: {pencilcc.unavailable}")
    results: dict[str, dict[str, Form]] = {}
    for name, forms in table.items():
        results[name] = {}
        for form, kernel in forms.items():
            built = measure.build(kernel, kernel.size_macros(dataset), pencilcc, workdir / "build")
            results[name][form] = Form(kernel, built.executable, error=built.error)
            print(f"built {kernel.label} ({built.seconds:.1f} s){': ' + built.error if built.error else ''}",
                  file=sys.stderr, flush=True)
    reference: dict[str, tuple] = {}
    for turn in range(rounds):
        for name, forms in results.items():
            order = list(forms)
            order = order[turn % len(order):] + order[:turn % len(order)]
            for form in order:
                entry = forms[form]
                if entry.executable is None or entry.error:
                    continue
                run = measure.run(entry.executable, threads, timeout)
                if run.error:
                    entry.error = run.error
                    continue
                if form == "original" and name not in reference:
                    reference[name] = run.checksums
                entry.seconds.append(run.value)
                if name in reference:
                    problems = checksums.compare(reference[name], run.checksums)
                    if problems:
                        entry.error = "checksums differ from the original's: " + problems[0]
        print(f"round {turn + 1}/{rounds} done", file=sys.stderr, flush=True)
    return results


def paired_ratio(original: list[float], variant: list[float]) -> Optional[float]:
    """The median over rounds of original / variant seconds within one round."""
    pairs = [o / v for o, v in zip(original, variant) if v > 0]
    return statistics.median(pairs) if pairs else None


def report(results: dict[str, dict[str, Form]]) -> tuple[str, dict]:
    """The Markdown table and a JSON-ready summary."""
    variants = [f for f in FORMS if f != "original"]
    lines = ["| kernel | original s | " + " | ".join(f"{v} s | original / {v}" for v in variants) + " |",
             "|---|---|" + "---|---|" * len(variants)]
    summary: dict = {"kernels": {}, "within": {}}
    within = {v: [0, 0] for v in variants}
    for name, forms in results.items():
        original = forms["original"]
        cells = [name, f"{statistics.median(original.seconds):.3g}" if original.seconds else original.error or "-"]
        summary["kernels"][name] = {}
        for v in variants:
            entry = forms.get(v)
            if entry is None:
                cells += ["-", "-"]
                continue
            ratio = None if entry.error or original.error else paired_ratio(original.seconds, entry.seconds)
            within[v][1] += 1
            within[v][0] += ratio is not None and ratio >= TARGET
            cells += [f"{statistics.median(entry.seconds):.3g}" if entry.seconds else "-",
                      f"{ratio:.2f}" if ratio is not None else f"miss: {entry.error or original.error}"]
            summary["kernels"][name][v] = {"seconds": entry.seconds, "ratio": ratio, "error": entry.error}
        summary["kernels"][name]["original"] = {"seconds": original.seconds, "error": original.error}
        lines.append("| " + " | ".join(cells) + " |")
    for v, (good, total) in within.items():
        if not total:
            continue                       # no kernel of the run has this form
        lines.append(f"\n{v}: {good} of {total} within 5% (original / {v} >= {TARGET})")
        summary["within"][v] = [good, total]
    return "\n".join(lines), summary


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m test_suite.bench.variants", description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", default="", help="comma list of PolyBench names and loop-order variants "
                        "(gemm.kij) (default: every kernel with a variant, every loop-order variant)")
    parser.add_argument("--rounds", type=int, default=7, help="runs of each build, interleaved (default 7)")
    parser.add_argument("--threads", type=int, default=0, help="threads of the runs (default: the CPU count)")
    parser.add_argument("--dataset", choices=datasets.DATASETS, default=datasets.DEFAULT_DATASET)
    parser.add_argument("--timeout", type=float, default=300, help="seconds allowed per run (default 300)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the runs and ratios as JSON to FILE")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.kernels.split(",") if n.strip()] or sorted(
        {k.polybench_name for k in datasets.all_kernels() if k.label.split("/")[0] in VARIANT_DIRS}) + sorted(
        loop_orders.BY_NAME)
    try:
        table = kernel_forms(names)
    except ValueError as exc:
        parser.error(str(exc))
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    threads = args.threads or machine.describe_machine().cores
    load_start = machine.load_average()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="test_suite-variants-") as scratch:
        results = measure_forms(table, args.rounds, threads, args.dataset, Path(scratch), args.timeout)
    load_end = machine.load_average()
    text, summary = report(results)
    print(f"python -m test_suite.bench.variants {' '.join(argv if argv is not None else sys.argv[1:])}; "
          f"{args.rounds} rounds, {threads} threads, dataset {args.dataset}\n")
    print(text)
    print(f"\nload average {load_start[0]:.2f} at start, {load_end[0]:.2f} at end; "
          f"{time.perf_counter() - started:.0f} s in all")
    if args.json:
        summary.update(rounds=args.rounds, threads=threads, dataset=args.dataset,
                       load={"start": load_start, "end": load_end})
        args.json.write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
