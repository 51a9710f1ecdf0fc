# SPDX-License-Identifier: MIT
"""Pass `privatize-arrays`: caller arrays used as per-iteration temporaries get region-local copies.

Input: Scop after `alias-check`. Output: the Scop of clangpass.poly.privatization
(private copies, last-value copy-out statements, a new source order) and the
region's versioning condition extended by the private storage's size condition.
Its record lists the arrays (`privatized_arrays`).

Ordering: after `alias-check`, whose ranges and pairs are those of the caller's
arrays as the source accesses them (the copy-outs write a subset of them), and
before `dependences`, which then sees the private copies as region-local storage
whose false dependences `relax-false-deps` relaxes. It needs the dependences of the model
it is given: handed on by `index-set-split`, or computed here (and handed on to
`dependences` when no array is privatized).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.dependences import compute_dependences
from clangpass.poly.privatization import privatize_arrays, with_size_condition


@dataclass(frozen=True)
class PrivatizeArraysRecord(PassRecord):
    """The caller arrays given private copies."""

    privatized_arrays: tuple[str, ...] = ()


@register
class PrivatizeArrays(Pass):
    """Give caller arrays that only carry values within one loop iteration a private copy."""

    name = "privatize-arrays"
    requires = frozenset({"scop"})
    changes_model = True
    record = PrivatizeArraysRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        limit = ctx.options.isl_max_operations
        dependences = unit.dependences
        try:
            if dependences is None:
                dependences = compute_dependences(scop, limit, ctx.exact_reductions)
            private, privatization = privatize_arrays(scop, dependences, limit, guarded=unit.alias_check is not None,
                                                      live=unit.live_ranges)
        except BudgetExceeded as exc:
            return replace(unit.with_note(f"{exc}: no array privatized"), dependences=dependences)
        if not privatization.arrays:
            return replace(unit, dependences=dependences)
        done = unit.record(PrivatizeArraysRecord).privatized_arrays + privatization.names
        return replace(unit.with_model(private), alias_check=with_size_condition(unit.alias_check, privatization)
                       ).with_record(PrivatizeArraysRecord(done))
