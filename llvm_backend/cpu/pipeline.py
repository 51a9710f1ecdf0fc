# SPDX-License-Identifier: MIT
"""The CPU target's pass pipelines, -O0 to -O3: plain lists of pass names (clangpass.passes).

The compile core runs the one of the `-O` level (`pipeline`) on every region, after
clangpass.passes.manager.build_pipeline has checked it.
"""
from __future__ import annotations

# Ordering:
# - `dependences` before `schedule`: the scheduler's constraints are the dependences;
# - `live-ranges` after the last pass that changes the model (contract-arrays), before its readers;
# - `reuse-in-place` after `privatize-arrays` (its private copies are local arrays it may reuse)
#   and before `dependences`: it renames accesses and deletes copies, a new model;
# - `contract-arrays` after `reuse-in-place` (it contracts what reuse left, private copies
#   included) and before `dependences`, which then sees the folded storage's reuse as anti and
#   output dependences that every later pass respects;
# - `expand-scalars` right after `contract-arrays` (which would fold an expansion back into one
#   scalar: one of its elements is live at a time in the source order) and before `dependences`,
#   which then sees one recurrence chain per column;
# - `relax-false-deps` between them: it splits the dependences the scheduler then reads;
# - `cluster-stmts` right before `schedule`: it reads every dependence and the source's basic
#   blocks, and `schedule` schedules its macro-statements (relaxed dependences mapped onto them);
# - `load-schedule` right before `schedule`: it needs the dependences and live ranges its check
#   reads (verify-schedule's), and a schedule it loads takes the place of everything from
#   `schedule` to `thread-team` (the passes that only rewrite the schedule tree), so that the
#   file's tree is the one `codegen` reads, as -fpencil-save-schedule wrote it;
# - `keep-streams` between `schedule` and `tile`: it splits the two-deep bands that tiling would
#   only slow down, so that `tile` skips them;
# - `tile` before `mark-parallel`: tiling keeps the coincident flags, so the parallel mark
#   lands on the outermost tile loop (coarse-grained parallelism) rather than on a point loop;
# - `wavefront` between them: it rewrites tile bands that `tile` produced and flags the
#   coincident tile loop that `mark-parallel` then marks;
# - `row-blocks` right after `source-order`: it replaces the source order's nests of row- and
#   column-wise matrix-vector products (which `source-order` keeps against isl's split nests) by
#   one nest over blocks of rows, and marks its parallel loops as `mark-parallel` would; the passes
#   after it jam its row sums (`reduction-jam`) and vectorise its column updates (`mark-vector`);
# - `point-loop-order` after `mark-parallel`: it permutes only bands with no band below them,
#   never the threads' loop, and `mark-vector` then marks the innermost loop it chose;
# - `register-tile` between them: it needs the unit-stride loop innermost in the point band, and
#   it makes that loop a band of its own, which `mark-vector` then marks (partial tiles);
# - `pack-panels` right after `register-tile`: it reads the register-tile marks and the bands under
#   them as that pass leaves them; its copies are made at AST generation only (`codegen`);
# - `verify-schedule` after every schedule transformation, so that it judges the final one;
# - `contract-scheduled` right after it: it folds arrays onto the conflict set of the final
#   schedule (line buffers of a fused pipeline), so no later pass may reorder anything; it
#   drops the dependences and live ranges, which no later pass reads;
# - `thread-team` after `verify-schedule`: it only groups the parallel loops that survived it
#   under one fork, which changes no execution order;
# - `codegen` last: it reads the final schedule.
# - `demote-scalars` right after `alias-check`, before every pass that reads dependences: it
#   replaces scalars by array elements in the model they compute;
# - `alias-check` right after `extract`, at every level: without it a region whose arrays may
#   overlap falls back (it reads only the model's accesses, which no later pass changes).
# -O0 and -O1 keep the source order: no scheduling, tiling or parallel marks. -O1 still
# computes dependences (they validate the model and appear in the `deps` dump).
LEVEL_3 = [
    "extract", "alias-check", "demote-scalars", "index-set-split", "privatize-arrays", "reuse-in-place",
    "contract-arrays", "expand-scalars", "dependences", "live-ranges", "relax-false-deps", "cluster-stmts",
    "load-schedule", "schedule", "keep-streams",
    "tile", "wavefront", "mark-parallel", "source-order", "row-blocks", "point-loop-order", "register-tile",
    "pack-panels", "mark-vector", "reduction-jam", "verify-schedule", "contract-scheduled", "thread-team", "codegen",
]

PIPELINES: dict[int, list[str]] = {
    0: ["extract", "alias-check", "codegen"],
    1: ["extract", "alias-check", "dependences", "codegen"],
    2: LEVEL_3,
    3: LEVEL_3,
}


def pipeline(opt_level: int) -> list[str]:
    """The pipeline of `opt_level` (-Os/-Oz are 2; levels above 3 are 3)."""
    return PIPELINES[max(0, min(3, opt_level))]
