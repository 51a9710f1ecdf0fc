# SPDX-License-Identifier: MIT
"""Nightly-size random differential run: `python -m test_suite.random --count 5000`.

Generates programs for seeds `seed .. seed + count - 1`, builds each with
`gcc -std=c99 -O0` and with the candidate compiler (default `pencilcc -O3`, split
with shlex), runs both and compares outputs at relative tolerance 1e-9.  Prints one
summary line `random: P passed, F failed`, then the seed and the kept source of
every failure, and exits 1 if any seed failed.  `--show SEED` prints one program.
"""
from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from test_suite.random.differential import Outcome, check_seed
from test_suite.random.generator import SMALL, GenConfig, generate, with_pending_forms, without_pending_forms


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m test_suite.random", description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=100, help="number of programs (default 100)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--compiler", default="pencilcc -O3 -fpencil-thread-min-work=0",
                        help='candidate compiler command (default "pencilcc -O3 -fpencil-thread-min-work=0": '
                             'every parallel loop on threads, however small)')
    parser.add_argument("--keep-failures", type=Path, metavar="DIR",
                        help="keep failing programs here (default: a new temporary folder)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="programs checked in parallel (default: CPU count)")
    parser.add_argument("--small", action="store_true",
                        help="small programs (the configuration of the pytest run)")
    parser.add_argument("--max-size", type=int, help="largest size parameter value")
    parser.add_argument("--no-pending-forms", action="store_true",
                        help="leave out the spelling forms pencilcc does not handle yet (generator.PENDING_FORMS, "
                             "none at present), which are on by default")
    parser.add_argument("--show", type=int, metavar="SEED",
                        help="print the program of SEED and exit")
    return parser.parse_args(argv)


def _reason(warning: str) -> str:
    """A fallback warning without its program-specific parts, for tallying."""
    text = re.sub(r"^region in '[^']*' not optimized, compiled by the host compiler: ", "", warning)
    text = re.sub(r"\(PENCILCC_DEBUG=1[^)]*\)|\[pencil\]|; please report it| at \S+\.c:\d+:\d+",
                  "", text)
    return text.strip()[:160]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    config = with_pending_forms(SMALL if args.small else replace(GenConfig(), p_detect=SMALL.p_detect))
    if args.no_pending_forms:
        config = without_pending_forms(config)
    if args.max_size is not None:
        config = replace(config, max_size=args.max_size)
    if args.show is not None:
        sys.stdout.write(generate(args.show, config).source)
        return 0
    candidate = shlex.split(args.compiler)
    if not candidate:
        print("random: --compiler is empty", file=sys.stderr)
        return 2
    keep = args.keep_failures or Path(tempfile.mkdtemp(prefix="pencilcc-random-failures-"))
    workdir = Path(tempfile.mkdtemp(prefix="pencilcc-random-"))
    seeds = range(args.seed, args.seed + args.count)
    start = time.monotonic()
    failures: list[Outcome] = []
    fallbacks: list[tuple[str, int]] = []       # (reason, seed)
    passed = 0
    try:
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            for outcome in pool.map(lambda s: check_seed(s, workdir, candidate, config, keep=keep),
                                    seeds):
                if outcome.fell_back:
                    reason = next(w for w in outcome.candidate_warnings if "not optimized" in w)
                    fallbacks.append((_reason(reason), outcome.seed))
                if outcome.passed:
                    passed += 1
                else:
                    failures.append(outcome)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.monotonic() - start
    print(f"random: {passed} passed, {len(failures)} failed "
          f"(seeds {args.seed}..{args.seed + args.count - 1}, {args.compiler!r}, {elapsed:.0f}s)")
    for outcome in failures:
        print(outcome.summary())
    if fallbacks:
        # passing, but not through the polyhedral path: say how often and why
        print(f"random: {len(fallbacks)} of {args.count} programs had a region compiled by the "
              f"host compiler instead of pencilcc; most common reasons:")
        for reason, count in Counter(r for r, _ in fallbacks).most_common(5):
            seeds_of = [str(seed) for r, seed in fallbacks if r == reason]
            print(f"  {count:6d}  {reason} (seed{'s' if count > 1 else ''} {', '.join(seeds_of[:10])}"
                  f"{', ...' if count > 10 else ''})")
    if not failures and args.keep_failures is None:
        shutil.rmtree(keep, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
