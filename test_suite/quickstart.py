# SPDX-License-Identifier: MIT
"""`python -m test_suite.quickstart`: the README's first command, what pencilcc does in a few lines.

It builds one bundled kernel (gemm by default, `--kernel NAME` for another of
test_suite/kernels/polybench) twice: with `gcc -O3` and with
`pencilcc -O3 -Rpass=pencil`, at a size that runs in about a second, and prints

- the remark pencilcc gives for each region (what it tiled, parallelised, vectorised),
- whether the two programs' outputs match (per-array checksums, test_suite.bench.checksums),
- the time of the kernel in each (the best of three runs) and the ratio.

It is a demonstration, not a measurement: the benchmark is `python -m test_suite.bench`
(docs/benchmarks.md), which runs alone, with gcc, clang and Polly, and reports the load.
Exit status 0 when the outputs match, 1 when they do not or a build fails.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from test_suite.bench import checksums

ROOT = Path(__file__).resolve().parents[1]
KERNELS = ROOT / "test_suite" / "kernels" / "polybench"
# Sizes that take about a second with gcc -O3 on one core of a current x86 machine.
SIZES = {"gemm": ("-DNI=1000", "-DNJ=1100", "-DNK=1200"),
         "jacobi-2d": ("-DTSTEPS=500", "-DN=1300"),
         "2mm": ("-DNI=800", "-DNJ=900", "-DNK=1000", "-DNL=1100")}
_SECONDS = re.compile(r"pencilcc-bench-seconds: ([0-9.]+)")


def _pencilcc() -> list[str]:
    found = shutil.which("pencilcc")
    return [found] if found else [sys.executable, "-m", "clangpass"]


def _build(command: list[str], source: Path, sizes: tuple[str, ...], output: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*command, "-O3", "-DPENCILCC_BENCH", *sizes, str(source), "-o", str(output), "-lm"],
                          capture_output=True, text=True, timeout=600)


def _best_run(executable: Path, runs: int) -> tuple[float, str]:
    best, stdout = float("inf"), ""
    for _ in range(runs):
        proc = subprocess.run([str(executable)], capture_output=True, text=True, timeout=600, check=True)
        seconds = _SECONDS.search(proc.stderr)
        if seconds is None:
            raise RuntimeError(f"{executable.name} printed no time")
        best, stdout = min(best, float(seconds.group(1))), proc.stdout
    return best, stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m test_suite.quickstart", description=__doc__.split("\n")[0])
    parser.add_argument("--kernel", default="gemm", help="a kernel of test_suite/kernels/polybench (default gemm)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each program; the best time counts")
    parser.add_argument("--small", action="store_true", help="the kernel's own small sizes (a quick check)")
    args = parser.parse_args(argv)
    source = KERNELS / f"{args.kernel}.c"
    if not source.is_file():
        parser.error(f"no kernel '{args.kernel}' in {KERNELS}")
    sizes = () if args.small else SIZES.get(args.kernel, ())
    host = os.environ.get("CC", "gcc") if shutil.which(os.environ.get("CC", "gcc")) else "cc"
    with tempfile.TemporaryDirectory(prefix="pencilcc-quickstart-") as scratch:
        folder = Path(scratch)
        print(f"$ pencilcc -O3 -Rpass=pencil {source.relative_to(ROOT)} -o {args.kernel}   "
              f"({' '.join(sizes) or 'default sizes'})")
        ours = _build([*_pencilcc(), "-Rpass=pencil"], source, sizes, folder / "pencilcc")
        for line in ours.stderr.splitlines():
            if "remark:" in line or "warning:" in line or "error:" in line:
                print("  " + line.replace(str(ROOT) + "/", ""))
        theirs = _build([host], source, sizes, folder / "host")
        if ours.returncode != 0 or theirs.returncode != 0:
            print(f"build failed:\n{ours.stderr}{theirs.stderr}", file=sys.stderr)
            return 1
        host_seconds, host_out = _best_run(folder / "host", args.runs)
        our_seconds, our_out = _best_run(folder / "pencilcc", args.runs)
    differences = checksums.compare(checksums.parse(host_out), checksums.parse(our_out))
    arrays = ", ".join(c.name for c in checksums.parse(our_out))
    if differences:
        print(f"result: DIFFERS from {host} -O3: " + "; ".join(differences))
    else:
        print(f"result: {arrays} match {host} -O3's (checksums of every element)")
    threads = os.environ.get("PENCILCC_NUM_THREADS") or os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count())
    print(f"time of the kernel: {host} -O3 {host_seconds:.3f} s, pencilcc -O3 {our_seconds:.3f} s "
          f"({threads} threads): {host_seconds / our_seconds:.2f}x")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
