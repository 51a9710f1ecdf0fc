# SPDX-License-Identifier: MIT
"""A fixed sample of the fuzz driver (python -m test_suite.fuzz): no case may be BAD.

Seeds 0-15, plus four seeds that together apply every mutation of
test_suite.fuzz.mutate (checked below, so that the sample keeps covering them).
About 3 s per case on the shared test machine.
"""
from __future__ import annotations

import random
import sys

import pytest

from clangpass.toolchain import host_cc
from test_suite.fuzz.__main__ import describe
from test_suite.fuzz.campaign import Run, classify, kernel_sources, run_case
from test_suite.fuzz.mutate import MUTATIONS, mutate

COVERING_SEEDS = (19, 71, 72, 1406)
SEEDS = tuple(range(16)) + COVERING_SEEDS
PENCILCC = [sys.executable, "-m", "clangpass"]


def test_covering_seeds_apply_every_mutation() -> None:
    applied: set[str] = set()
    for seed in COVERING_SEEDS:
        rng = random.Random(seed)
        kernel = rng.choice(kernel_sources())
        applied.update(mutate(kernel.read_bytes(), rng)[1])
    assert applied == set(MUTATIONS)


@pytest.mark.parametrize("seed", SEEDS)
def test_mutated_kernel_is_handled(seed: int) -> None:
    case = run_case(seed, 120.0, PENCILCC, host_cc())
    logs = "\n".join(f"{name}: exit {run.returncode}\n{run.stderr[-1500:]}" for name, run in case.runs.items())
    assert not case.bad, f"{describe(case)}\n{logs}"


@pytest.mark.parametrize("lint, compile_, gcc, output_left, temp_left, labels", [
    (Run([]), Run([]), Run([]), False, [], ["ok"]),
    (Run([], 1, "x.c:1:1: error: e"), Run([], 1, "x.c:1:1: error: e"), Run([], 1), False, [], ["user-error"]),
    (Run([], -11), Run([]), Run([]), False, [], ["BAD-signal"]),
    (Run([]), Run([], 70, "pencilcc: internal error: boom"), Run([], 1), False, [], ["BAD-internal-error"]),
    (Run([], 1, "Traceback (most recent call last):\n"), Run([]), Run([]), False, [], ["BAD-traceback"]),
    (Run([], timed_out=True), Run([]), Run([]), False, [], ["BAD-hang"]),
    (Run([]), Run([]), Run([]), False, ["pencilcc-x1"], ["BAD-leftover-temp-files"]),
    (Run([]), Run([], 1, "error: no"), Run([]), True, [], ["BAD-output-left-after-failure",
                                                         "BAD-rejects-what-gcc-compiles"]),
    (Run([]), Run([], 1, ""), Run([], 1), False, [], ["BAD-silent-failure"]),
    (Run([]), Run([]), Run([], 1), False, [], ["BAD-accepts-what-gcc-rejects"]),
    (Run([]), Run([], timed_out=True), Run([], timed_out=True), False, [], ["slow-input"]),
    (Run([]), Run([], timed_out=True), Run([], timed_out=True), False, ["x"],
     ["slow-input", "BAD-leftover-temp-files"]),
])
def test_classification(lint: Run, compile_: Run, gcc: Run, output_left: bool, temp_left: list[str],
                        labels: list[str]) -> None:
    assert classify(lint, compile_, gcc, output_left, temp_left) == labels
