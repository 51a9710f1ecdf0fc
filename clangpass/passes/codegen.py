# SPDX-License-Identifier: MIT
"""Pass `codegen`: isl AST and statement bodies for the back ends (clangpass.poly.codegen).

A schedule with wavefronts (`PolyUnit.unskewed`) gets its AST under the wavefront's share of the
isl budget (clangpass.passes.wavefront.ast_trial_budget); when it does not fit, or isl fails on it,
the pass asks the pass manager to run the passes after `wavefront` again without the skew
(`RunAgainAfter`).

Its record counts what the final code has: the loops marked `parallel`, `wavefront` and
`vector` in the AST, and the register-tiled bands of the schedule it was generated from.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes import wavefront
from clangpass.passes.pack_panels import PackRecord
from clangpass.passes.register_tile import register_tiled_bands
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.tile import without_tiles
from clangpass.passes.unit import PolyUnit, RunAgainAfter, Stage
from clangpass.poly.annotations import annotation_reductions, reduction_updates
from clangpass.poly.ast_soundness import Unreadable, scan_mismatches, strided_statements, self_bounded_loops
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.codegen import generate_ast
from clangpass.poly.live_ranges import device_footprints, entry_dead_arrays, exit_dead_arrays, iteration_locals
from clangpass.poly.extract import NotModelled
from clangpass.poly.scop import Scop, instances_of
from clangpass.poly.codegen_unit import CodegenUnit


@dataclass(frozen=True)
class CodegenRecord(PassRecord):
    """What the generated code has: parallel loops, wavefront loops and vector loops (marks in
    the AST), and register-tiled bands."""

    parallel_loops: int = 0
    wavefronts: int = 0
    vector_loops: int = 0
    register_tiled_bands: int = 0


@register
class GenerateAst(Pass):
    """Final schedule -> isl AST with parallel/tile marks -> CodegenUnit."""

    name = "codegen"
    requires = frozenset({"scop"})
    provides = frozenset({"ast"})
    # Only where it must take the source order after contract-scheduled: the model before that
    # contraction comes back (`_source_order`).
    changes_model = True
    record = CodegenRecord
    dump_stage = "ast"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        original = scop.original_compute_schedule()
        # Without dependences (-O0), what the annotations allow is computed here.
        updates = reduction_updates(unit.dependences.reductions if unit.dependences is not None
                                    else annotation_reductions(scop))
        try:
            # A transformed schedule's AST is bounded by the isl budget: isl's AST generator
            # has been seen to run for minutes on a skewed schedule (random program seed 30239).
            budget = 0 if scop.schedule.plain_is_equal(original) else ctx.options.isl_max_operations
            step = "AST generation"
            if unit.unskewed is not None:
                # Wavefronts: within their share of the budget, else the passes after
                # `wavefront` run again without them (clangpass.passes.wavefront).
                budget, step = wavefront.ast_trial_budget(ctx.options), wavefront.AST_STEP
            with isl_budget(ctx.isl_ctx, budget, step):
                codegen = generate_ast(scop, updates)
        except (isl.Error, BudgetExceeded) as exc:
            if unit.unskewed is not None:
                raise RunAgainAfter(wavefront.Wavefront.name, wavefront.unskewed_after(unit, exc)) from None
            # isl's AST generator can fail on a transformed schedule; the source order is
            # the one it must handle (a failure there is a bug and propagates).
            if scop.schedule.plain_is_equal(original):
                raise
            why = str(exc) if isinstance(exc, BudgetExceeded) else \
                f"isl AST generation failed ({isl_error_reason(exc)})"
            scop, unit = _source_order(unit, scop, original)
            unit = without_tiles(unit).with_note(f"{why}: original schedule used")
            codegen = generate_ast(scop, updates)
        # isl's AST generator can stop a loop of a strided domain early and drop instances, or
        # lose a loop's stride (clangpass.poly.ast_soundness; random program seeds 900227 and
        # 107 SMALL): the AST is read back and must run exactly the schedule's domain. If not,
        # the source order is used instead, and if even its AST is unsound the host compiler
        # takes the region.
        unsound = _ast_problems(codegen, scop, ctx)
        if unsound and not scop.schedule.plain_is_equal(original):
            # First isl's own loop types (they separate where atomic loops merged the domains).
            try:
                with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "AST generation"):
                    retry = generate_ast(scop, updates, atomic=False)
            except (isl.Error, BudgetExceeded):
                retry = None
            if retry is not None and not _ast_problems(retry, scop, ctx):
                codegen, unsound = retry, []
        if unsound and not scop.schedule.plain_is_equal(original):
            scop, unit = _source_order(unit, scop, original)
            unit = without_tiles(unit).with_note(f"unsound isl AST ({unsound[0]}): original schedule used")
            codegen = generate_ast(scop, updates)
            unsound = _ast_problems(codegen, scop, ctx)
        if unsound:
            raise NotModelled("pencil-unsound-ast", f"unsound isl AST of the source order ({unsound[0]})")
        if ctx.traits.device_data:
            # What a device copy of the data holds and need not move (clangpass.poly.live_ranges).
            # Over the budget: no array is known to stay within its extents, everything moves.
            try:
                with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "data at the region's boundary"):
                    rows, beyond = device_footprints(scop)
                    build = isl.AstBuild.from_context(scop.context)
                    # An array copied by its footprint is not skipped on entry: the declared
                    # elements the entry analysis covers are not all of it.
                    codegen = replace(codegen, device_rows={a: build.expr_from_pw_aff(r) for a, r in rows.items()},
                                      beyond_extents=beyond, entry_dead=entry_dead_arrays(scop) - set(rows),
                                      exit_dead=exit_dead_arrays(scop))
            except BudgetExceeded:
                codegen = replace(codegen, beyond_extents=frozenset(a.name for a in scop.arrays))
            try:
                if unit.live_ranges is None:
                    raise BudgetExceeded("no live ranges")
                with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "locals of one iteration"):
                    codegen = replace(codegen, iteration_locals=iteration_locals(scop, unit.live_ranges.get()))
            except (BudgetExceeded, isl.Error):
                pass    # no local array is known to stay in one iteration: each used elsewhere stays on the host
        record = CodegenRecord(codegen.parallel_loops, codegen.wavefronts, codegen.vector_loops,
                               register_tiled_bands(scop.schedule))
        chosen = unit.record(PackRecord)
        if chosen.packed_panels != len(codegen.packs):
            unit = unit.with_record(replace(chosen, packed_panels=len(codegen.packs),
                                            packed_arrays=tuple(p.array for p in codegen.packs)))
            if scop.packs and not codegen.packs:
                unit = unit.with_note("packed panels not generated (their statements are generated as one "
                                      "group, or the AST with the copies failed or exceeded its budget)")
        return replace(unit, stage=Stage.AST, scop=scop, codegen=codegen).with_record(record)


def _source_order(unit: PolyUnit, scop: Scop, original: isl.Schedule) -> tuple[Scop, PolyUnit]:
    """`scop` with the source order `original` instead of its schedule; the model before
    contract-scheduled's contraction, folded for the final schedule only, when it ran (random
    program seed 9100035: 'J' folded to three rows of a fused pipeline, then run in the source
    order, where every row is live at once). Its record then lists nothing contracted."""
    before = unit.uncontracted
    if before is None:
        return scop.with_schedule(original), unit
    from clangpass.passes.contract_scheduled import ContractScheduledRecord
    undone = ", ".join(sorted({e["array"] for e in unit.record(ContractScheduledRecord).storage
                               if e.get("technique")}))
    unit = replace(unit.with_model(before), uncontracted=None).with_record(ContractScheduledRecord(()))
    unit = unit.with_note(f"the contraction of {undone or 'arrays'} against the final schedule undone with it")
    return before.with_schedule(original), unit


def _ast_problems(codegen: CodegenUnit, scop: Scop, ctx: PassContext) -> list[str]:
    """Why `codegen`'s AST does not run exactly `scop`'s domain (empty: it does). A group's
    call runs its members' instances, which are the first member's (`statement_groups`).

    Only what leads to strided statements is read back (ast_soundness.strided_statements);
    one that cannot be read within the isl budget is not vouched for, which is a problem
    for a transformed schedule (the source order is then used) and not for the source order
    (whose AST only the syntactic check vouches for, as for unstrided domains).
    """
    problems = self_bounded_loops(codegen.ast)
    followers = frozenset(name for members in codegen.groups.values() for name in members[1:])
    domain = scop.domain.subtract(instances_of(scop.domain, followers))
    strided = strided_statements(domain)
    if problems or not strided:
        return problems
    try:
        with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "AST check"):
            return scan_mismatches(codegen.ast, domain, scop.context, strided)
    except (Unreadable, BudgetExceeded, isl.Error) as exc:
        if scop.schedule.plain_is_equal(scop.original_compute_schedule()):
            return []
        why = str(exc) if not isinstance(exc, isl.Error) else isl_error_reason(exc)
        return [f"AST of a strided domain not verified: {why}"]
