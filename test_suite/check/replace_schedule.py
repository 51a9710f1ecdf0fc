# SPDX-License-Identifier: MIT
"""Fault injection for check tests: `pencilcc` with a wrong schedule handed to a pass.

    python test_suite/check/replace_schedule.py --after=PASS 'PARTIAL' PENCILCC-ARGS...

runs `pencilcc PENCILCC-ARGS` with pass PASS followed by a replacement of each region's
schedule by its domain under the one band `PARTIAL` (an isl multi-union-pw-aff, e.g.
`[n] -> [{ S_0[i] -> [(-i)] }]`, which reverses a loop). It stands in for a broken
scheduler or schedule pass, so that a check test can see what `verify-schedule` does with
a schedule that breaks a dependence; no schedule the compiler builds itself does.
The compile cache is off (a cached compile would replay the unbroken pipeline's output).
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace

import islpy as isl

from clangpass.driver.main import main
from clangpass.passes.registry import load_passes


def broken(run, partial: str):
    def run_then_replace(self, unit, ctx):
        unit = run(self, unit, ctx)
        scop = unit.scop
        band = isl.MultiUnionPwAff.read_from_str(scop.domain.get_ctx(), partial)
        schedule = isl.Schedule.from_domain(scop.domain).insert_partial_schedule(band)
        return replace(unit, scop=scop.with_schedule(schedule))
    return run_then_replace


if __name__ == "__main__":
    after, partial, *args = sys.argv[1:]
    assert after.startswith("--after="), "usage: replace_schedule.py --after=PASS 'PARTIAL' ARGS..."
    cls = load_passes()[after[len("--after="):]]
    cls.run = broken(cls.run, partial)
    os.environ["PENCILCC_NO_CACHE"] = "1"
    sys.exit(main(args))
