# SPDX-License-Identifier: MIT
"""Fuzz pencilcc with mutated kernels: `python -m test_suite.fuzz --count 200 --seed 0`.

For seeds `seed .. seed + count - 1`: mutate one of test_suite/kernels/**.c
(test_suite.fuzz.mutate), run `pencilcc --lint`, `pencilcc -O3 -c` and the host
`gcc -c` on it under a timeout, and classify the case (test_suite.fuzz.campaign).
Prints one line per BAD case and a summary `fuzz: N cases, ok A, user-error U,
BAD B` with the count of every class; exits 1 if any case is BAD.
"""
from __future__ import annotations

import argparse
import shlex
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from clangpass.toolchain import host_cc
from test_suite.fuzz.campaign import Case, keep_case, run_case


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m test_suite.fuzz", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="number of mutated inputs (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--jobs", type=int, default=1, help="cases run in parallel (default 1)")
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds each command may run before the case is a hang (default 60)")
    parser.add_argument("--keep-failures", type=Path, metavar="DIR",
                        help="write each BAD case's input and log here (default: a new temporary folder)")
    parser.add_argument("--compiler", default="pencilcc", help='pencilcc command (default "pencilcc")')
    return parser.parse_args(argv)


def describe(case: Case) -> str:
    return f"seed {case.seed}: {case.kernel} [{', '.join(case.mutations)}]: {' '.join(case.labels)}"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    pencilcc, cc = shlex.split(args.compiler), host_cc()
    seeds = range(args.seed, args.seed + args.count)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        cases = list(pool.map(lambda seed: run_case(seed, args.timeout, pencilcc, cc), seeds))
    tally = Counter(label for case in cases for label in case.labels)
    bad = [case for case in cases if case.bad]
    if bad:
        keep = args.keep_failures or Path(tempfile.mkdtemp(prefix="test_suite-fuzz-failures-"))
        for case in bad:
            print(f"{describe(case)} -> {keep_case(case, keep)}")
    classes = ", ".join(f"{label} {n}" for label, n in sorted(tally.items()))
    print(f"fuzz: {len(cases)} cases, BAD {len(bad)} ({classes})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
