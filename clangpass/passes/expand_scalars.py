# SPDX-License-Identifier: MIT
"""Pass `expand-scalars`: a recurrence's scalar state gets one element per column
(clangpass.poly.expansion).

Input: Scop after `contract-arrays`. Output: the Scop with each expandable web of a region-local
scalar working on a new region-local array indexed by the loop that walks the contiguous
dimension of the arrays, and the region's run-time check extended by the condition that storage
needs; its record lists them (`expanded_scalars`: `"tm1 -> __pencil_expanded_tm1[j]"`).

Ordering: after `contract-arrays`, which folds region-local arrays onto the conflict set of the
source order, where one element of an expansion is live at a time (it would fold it back into one
scalar), and after `demote-scalars` (an accumulator that ends in an array element needs no new
storage); before `dependences`, which then sees one chain per column.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.alias_check import with_condition
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.expansion import expand_scalars


@dataclass(frozen=True)
class ExpandScalarsRecord(PassRecord):
    """The scalar webs expanded, each as `tm1 -> __pencil_expanded_tm1[j]`."""

    expanded_scalars: tuple[str, ...] = ()


@register
class ExpandScalars(Pass):
    """Give a scalar recurrence one element per iteration of the loop along the contiguous dimension."""

    name = "expand-scalars"
    requires = frozenset({"scop"})
    changes_model = True
    record = ExpandScalarsRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        try:
            expanded, done = expand_scalars(unit.scop, ctx.options.isl_max_operations,
                                            guarded=unit.alias_check is not None)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no scalar expanded")
        if not done.expansions:
            return unit
        described = unit.record(ExpandScalarsRecord).expanded_scalars + tuple(e.describe() for e in done.expansions)
        check = with_condition(unit.alias_check, done.condition, done.macros)
        return replace(unit.with_model(expanded), alias_check=check).with_record(ExpandScalarsRecord(described))

