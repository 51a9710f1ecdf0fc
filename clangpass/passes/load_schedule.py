# SPDX-License-Identifier: MIT
"""Pass `load-schedule`: the region's final schedule read from a file (-fpencil-load-schedule=DIR).

Input: Scop + dependences + live ranges, and the schedule files the driver read from DIR
(`CompileOptions.loaded_schedules`; the file of a region: clangpass.poly.schedule_files).
Output: the Scop with the file's schedule tree, and `PolyUnit.schedule_file` set, so that
the pass manager skips every later pass that only rewrites the schedule tree
(`Pass.rewrites_schedule`: schedule, tile, mark-parallel, ..., verify-schedule,
thread-team) and `codegen` generates the code from the tree as the file has it, marks
included: what -fpencil-save-schedule wrote is the tree `codegen` read, so saving and
loading it gives the same code. As PPCG's --load-schedule and Polly's JSCoP import.

The file's tree is checked before it is used: its domain must be the region's statements
(`Domain :=` of the `scop` dump), and it must pass the checks of `verify-schedule`
(`schedule_violations`: every dependence goes forward, under the relaxed criterion for
local storage, and no loop marked `parallel` or `vector` carries one). A parallel loop of
a `#pragma pencil independent reduction` region gets its reductions as mark-parallel
would give them (`marked_reductions`); with -fno-pencil-parallel the file's `parallel`,
`coincident` and `thread-team` marks are dropped. A schedule that fails a check is not
used: the region is scheduled as usual, and the pass's record holds the problems, each
naming the dependence it breaks (its kind, the array, the statements and their lines),
which the compile core reports as an error. The record of a schedule used says how many
bands the file has tiled (`tiled_bands`; not their sizes, which the tree does not name). A region with no file in DIR is scheduled
as usual too (a -Rpass-missed=pencil remark says so).
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.passes.mark_parallel import marked_reductions
from clangpass.passes.tile import TILE_MARK, TileRecord
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.passes.verify_schedule import schedule_violations
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.codegen import without_marks
from clangpass.poly.codegen_unit import TEAM_MARK
from clangpass.poly.schedule_files import ScheduleFileError, read_schedule, schedule_file_name
from clangpass.poly.scop import Scop, statement_names
from clangpass.poly.validity import COINCIDENT_MARK, PARALLEL_MARK, earlier_pairs, maps_of, mark_count


@dataclass(frozen=True)
class LoadScheduleRecord(PassRecord):
    """The schedule file of the region under -fpencil-load-schedule ('' without it), whether its
    schedule was used, and why not when it was refused."""

    schedule_file: str = ""
    schedule_loaded: bool = False
    schedule_problems: tuple[str, ...] = ()


@register
class LoadSchedule(Pass):
    """Use the region's schedule file of -fpencil-load-schedule=DIR, checked against the dependences."""

    name = "load-schedule"
    requires = frozenset({"scop", "dependences", "live-ranges"})
    record = LoadScheduleRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        options = ctx.options
        if not options.load_schedule_dir:
            return unit
        name = schedule_file_name(unit.region)
        path = os.path.join(options.load_schedule_dir, name)
        text = dict(options.loaded_schedules).get(name)
        if text is None:
            return unit.with_record(LoadScheduleRecord(path))
        try:
            schedule = read_schedule(ctx.isl_ctx, text, path)
        except ScheduleFileError as exc:
            return unit.with_record(LoadScheduleRecord(path, schedule_problems=(str(exc),)))
        if not options.parallel:
            for mark in (PARALLEL_MARK, COINCIDENT_MARK, TEAM_MARK):
                schedule = without_marks(schedule, mark)
        problems = _domain_problems(unit.scop, schedule)
        if not problems:
            try:
                problems = schedule_violations(unit, schedule, ctx)
            except isl.Error as exc:    # a tree whose bands do not cover its domain...
                problems = [f"isl cannot read the schedule's dates ({isl_error_reason(exc)})"]
        if problems:
            return unit.with_record(LoadScheduleRecord(path, schedule_problems=(
                _explained(unit, schedule, problems[0], ctx),)))
        reductions, problems = marked_reductions(unit.scop, schedule, unit.dependences.reductions,
                                                 options.isl_max_operations)
        if problems:
            return unit.with_record(LoadScheduleRecord(path, schedule_problems=tuple(problems[:1])))
        # "schedule" is what the skipped `schedule` pass would have established; the tile record
        # counts the file's tiled bands (its sizes are not in the tree).
        return replace(unit, scop=unit.scop.with_schedule(schedule, reductions=reductions), schedule_file=path,
                       provided=unit.provided | {"schedule"}).with_record(LoadScheduleRecord(path, True)).with_record(
            TileRecord(tiled_bands=mark_count(schedule, TILE_MARK)))


def _domain_problems(scop: Scop, schedule: isl.Schedule) -> list[str]:
    """Why `schedule`'s domain is not the region's statements ([P] -> { S[i..] }; empty: it is)."""
    domain = schedule.get_domain()                         # [P] -> { S[i..] } of the file
    wanted = scop.domain                                   # [P] -> { S[i..] } of the region
    if domain.is_equal(wanted):
        return []
    mine, theirs = statement_names(wanted), statement_names(domain)
    if mine != theirs:
        missing, unknown = sorted(mine - theirs), sorted(theirs - mine)
        return [f"its domain does not hold the region's statements ({'missing ' + ', '.join(missing) if missing else ''}"
                f"{'; ' if missing and unknown else ''}{'unknown ' + ', '.join(unknown) if unknown else ''})"]
    return [f"its domain {domain} is not the region's {wanted.coalesce()}"]


def _explained(unit: PolyUnit, schedule: isl.Schedule, problem: str, ctx: PassContext) -> str:
    """`problem` (of `schedule_violations`) as the user reads it: when it is a dependence the
    schedule does not run source first, which kind (flow first: those are always enforced), the
    array, and the statements with their source lines."""
    if not problem.startswith("dependence broken"):
        return problem
    deps = unit.dependences
    scop = unit.scop
    try:
        with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "schedule verification"):
            dates = schedule.get_map()                     # [P] -> { S[i..] -> [t..] }
            for kind, relation in (("flow", deps.flow), ("anti", deps.anti), ("output", deps.output)):
                broken = relation.subtract(earlier_pairs(relation, dates))   # [P] -> { S[i..] -> T[j..] }
                if not broken.is_empty():
                    return f"violates the {kind} dependence {_described(scop, kind, broken)}"
    except BudgetExceeded:
        pass
    return problem


def _described(scop: Scop, kind: str, broken: isl.UnionMap) -> str:
    """The first of `broken`'s maps ([P] -> { S[i..] -> T[j..] }), with the arrays that make it a
    dependence of `kind` and the source lines of S and T."""
    first: Optional[isl.Map] = min(maps_of(broken.intersect_params(scop.context).coalesce()), key=str)
    source, sink = first.get_tuple_name(isl.dim_type.in_), first.get_tuple_name(isl.dim_type.out)
    before, after = {"flow": (scop.writes, scop.reads), "anti": (scop.reads, scop.writes),
                     "output": (scop.writes, scop.writes)}[kind]
    arrays = []
    for array in sorted({m.get_tuple_name(isl.dim_type.out) for m in maps_of(before.union(after))}):
        elements = isl.UnionSet.from_set(isl.Set.universe(_array_space(before.union(after), array)))   # { A[a..] }
        shared = before.intersect_range(elements).apply_range(after.intersect_range(elements).reverse())
        if not shared.intersect(isl.UnionMap.from_map(first)).is_empty():   # [P] -> { S[i..] -> T[j..] }
            arrays.append(array)
    lines = f"{_where(scop, source)} then {_where(scop, sink)}"
    through = f"array {', '.join(repr(a) for a in arrays)}: " if arrays else ""
    return f"{first} ({through}{lines})"


def _array_space(accesses: isl.UnionMap, array: str) -> isl.Space:
    """The space of `array`'s elements ({ A[a..] }), from one of `accesses` ({ S[i..] -> A[a..] })."""
    return next(m.get_space().range() for m in maps_of(accesses) if m.get_tuple_name(isl.dim_type.out) == array)


def _where(scop: Scop, statement: str) -> str:
    loc = scop.statement(statement).loc
    return f"{statement} at {os.path.basename(loc.file)}:{loc.line}" if loc.line else statement
