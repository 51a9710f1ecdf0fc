# SPDX-License-Identifier: MIT
"""Schedule files: a region's final schedule tree as isl's YAML, written out and read back in.

Output (-fpencil-save-schedule=DIR, the driver): one file per optimized region, named by
`schedule_file_name`, holding the schedule tree `codegen` generated the region's code from
(isl's block-style YAML, `format_schedule`, after a comment line naming the region).
Input (-fpencil-load-schedule=DIR): such a file, perhaps edited by hand, parsed by
`read_schedule` in the region's isl context; pass `load-schedule` then checks it against the
region (clangpass.passes.load_schedule). As PPCG's --save-schedule/--load-schedule and
Polly's JSCoP export and import (Grosser et al., "Polly: performing polyhedral
optimizations on a low-level intermediate representation", PPL 2012, section 4.3).
"""
from __future__ import annotations

import os

import islpy as isl

from clangpass.poly.budget import isl_error_reason
from clangpass.poly.scop import format_schedule
from clangpass.poly.validity import tree_problem
from clangpass.regions import OptRegion

SUFFIX = ".schedule.yaml"


class ScheduleFileError(ValueError):
    """A schedule file that is not an isl schedule tree (the message names the file)."""


def schedule_file_name(region: OptRegion) -> str:
    """The file of `region`'s schedule: `<file stem>.<function>[.<n>].schedule.yaml`, from the stem
    of the file that holds the region and its label (`kernel_gemm#0`: the function's first
    `#pragma scop`; a PENCIL function's body has no index)."""
    stem = os.path.splitext(os.path.basename(region.loc.file))[0]
    return f"{stem}.{region.label.replace('#', '.')}{SUFFIX}"


def schedule_file_text(region: OptRegion, schedule: isl.Schedule) -> str:
    """What `schedule_file_name(region)` holds: a comment naming the region, then the tree."""
    return (f"# pencilcc schedule of region '{region.label}' ({region.loc.file}:{region.loc.line})\n"
            f"{format_schedule(schedule)}\n")


def read_schedule(ctx: isl.Context, text: str, path: str) -> isl.Schedule:
    """The schedule tree of the file `path`, whose contents are `text`, in `ctx`; raises
    ScheduleFileError when isl cannot read it or its tree cannot be walked."""
    try:
        schedule = isl.Schedule.read_from_str(ctx, text)
        problem = tree_problem(schedule)
    except isl.Error as exc:
        raise ScheduleFileError(f"'{path}' is not an isl schedule tree ({isl_error_reason(exc)})") from None
    if problem:
        raise ScheduleFileError(f"'{path}' is not a usable isl schedule tree ({problem})")
    return schedule
