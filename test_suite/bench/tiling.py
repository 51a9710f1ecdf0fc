# SPDX-License-Identifier: MIT
"""``python -m test_suite.bench.tiling``: Tables 2.1 and 2.2 of Baghdadi's thesis, for pencilcc.

For every PolyBench-style kernel, its three-address (3AC) and PRE variants
(test_suite/kernels/three_address, made by test_suite/kernels/variants.py) are
compiled with ``pencilcc -O3`` (``-c``, nothing runs), with and without the
``relax-false-deps`` pass (``--disable-pass=relax-false-deps``), both without
``demote-scalars``, and as pencilcc ships (``default``); the optimisation
record gives each region's tiled bands and parallel loops. The table prints them
as ``tiled/parallel`` per form and setting, in Markdown, with the thesis's answer
(Pluto 0.6, "was the kernel tiled") beside them. Compiles only: no timing, so it
may run on a loaded machine.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from test_suite.bench.datasets import VARIANT_DIRS
from test_suite.e2e import harness

FORMS = ("original", "3ac", "pre")
# The thesis's experiment is the relaxation alone: demote-scalars (which undoes PRE's scalar
# replacement, docs/passes/demote-scalars.md) is off in both of its settings, and on in
# `default`, pencilcc -O3 as it ships.
SETTINGS = {"relaxed": ("--disable-pass=demote-scalars",),
            "unrelaxed": ("--disable-pass=relax-false-deps", "--disable-pass=demote-scalars"),
            "default": ()}

# Thesis Table 2.1 (Pluto --tile --parallel on PolyBench 3.2): tiled? for the original,
# the 3AC form, and the 3AC form with --ignore-false-dependences. Kernel names as here.
THESIS_3AC: dict[str, tuple[str, str, str]] = {
    **{k: ("yes", "no", "yes") for k in ("2mm", "3mm", "gemm", "gemver", "gesummv", "mvt", "gramschmidt",
                                          "fdtd-2d", "trisolv", "trmm", "syr2k", "syrk", "covariance",
                                          "correlation", "atax", "bicg")},
    **{k: ("yes", "no", "no") for k in ("lu", "jacobi-2d", "jacobi-1d", "seidel-2d")},
    **{k: ("no", "no", "yes") for k in ("symm", "cholesky")},
    **{k: ("no", "no", "no") for k in ("ludcmp", "durbin")},
}
# Thesis Table 2.2: the same for the PRE form (original, PRE, PRE with --ignore-false-dependences).
THESIS_PRE: dict[str, tuple[str, str, str]] = {
    **{k: ("yes", "no", "yes") for k in ("2mm", "3mm", "gemm", "syr2k", "syrk")},
    **{k: ("yes", "no", "no") for k in ("gemver", "gesummv", "mvt", "correlation")},
}


@dataclass(frozen=True)
class Outcome:
    """What the record says of one build: summed over the file's regions."""

    tiled_bands: int
    parallel_loops: int
    status: str                  # 'optimized' when every region is, else the first other status
    local_variables: tuple[str, ...]
    kept_variables: tuple[str, ...]

    def cell(self) -> str:
        text = f"{self.tiled_bands}/{self.parallel_loops}"
        return text if self.status == "optimized" else f"{text} ({self.status})"


def source(kernel: str, form: str) -> Optional[Path]:
    path = harness.POLYBENCH_DIR / f"{kernel}.c" if form == "original" else VARIANT_DIRS[form] / f"{kernel}.c"
    return path if path.is_file() else None


def compile_record(path: Path, flags: Sequence[str], workdir: Path) -> Outcome:
    """Compile `path` with pencilcc -O3 `flags` and read its optimisation record."""
    tag = f"{path.parent.name}-{path.stem}-{len(flags)}"
    record = workdir / f"{tag}.json"
    proc = subprocess.run([sys.executable, "-m", "clangpass", "-O3", *harness.KERNEL_CFLAGS, *flags, "-c",
                           str(path), "-o", str(workdir / f"{tag}.o"), f"-foptimization-record-file={record}"],
                          capture_output=True, text=True, env={**os.environ, "PENCILCC_NO_CACHE": "1"})
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        return Outcome(0, 0, f"error: {last[:120]}", (), ())
    regions = json.loads(record.read_text())["regions"]
    statuses = [r["status"] for r in regions if r["status"] != "optimized"]
    return Outcome(sum(r["tiled_bands"] for r in regions), sum(r["parallel_loops"] for r in regions),
                   statuses[0] if statuses else "optimized",
                   tuple(v for r in regions for v in r.get("local_variables", ())),
                   tuple(f"{k}: {why}" for r in regions for k, why in r.get("kept_variables", {}).items()))


def measure(kernels: Sequence[str], jobs: int) -> dict[tuple[str, str, str], Outcome]:
    """(kernel, form, setting) -> Outcome for every variant that exists."""
    todo = [(k, form, setting) for k in kernels for form in FORMS for setting in SETTINGS if source(k, form)]
    with tempfile.TemporaryDirectory() as tmp, ThreadPoolExecutor(max_workers=jobs) as pool:
        def one(item: tuple[str, str, str]) -> Outcome:
            kernel, form, setting = item
            workdir = Path(tmp) / setting
            workdir.mkdir(exist_ok=True)
            return compile_record(source(kernel, form), SETTINGS[setting], workdir)
        return dict(zip(todo, pool.map(one, todo)))


def table(results: dict[tuple[str, str, str], Outcome], kernels: Sequence[str], form: str) -> str:
    """Markdown: per kernel, tiled bands/parallel loops of the original and of `form`, relaxed or not."""
    thesis = THESIS_3AC if form == "3ac" else THESIS_PRE
    label = form.upper()
    lines = [f"| kernel | original | {label} unrelaxed | {label} relaxed | {label} default | original unrelaxed | "
             f"thesis: original / {label} / {label} ignore-false-deps |",
             "|---|---|---|---|---|---|---|"]
    for k in kernels:
        if (k, form, "relaxed") not in results:
            continue
        cells = [results[(k, "original", "default")].cell(), results[(k, form, "unrelaxed")].cell(),
                 results[(k, form, "relaxed")].cell(), results[(k, form, "default")].cell(),
                 results[(k, "original", "unrelaxed")].cell(),
                 " / ".join(thesis[k]) if k in thesis else "not in the thesis"]
        lines.append(f"| {k} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m test_suite.bench.tiling", description=__doc__.split("\n\n")[0])
    parser.add_argument("--kernels", help="comma list (default: all 30)")
    parser.add_argument("--jobs", type=int, default=2, help="compilations at a time (default 2)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write every outcome as JSON to FILE")
    args = parser.parse_args(argv)
    kernels = args.kernels.split(",") if args.kernels else [p.stem for p in harness.polybench_sources()]
    results = measure(kernels, args.jobs)
    for form in ("3ac", "pre"):
        print(f"\n### {form.upper()} (tiled bands/parallel loops, pencilcc -O3)\n")
        print(table(results, kernels, form))
    if args.json:
        args.json.write_text(json.dumps({"/".join(key): vars(o) for key, o in results.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
