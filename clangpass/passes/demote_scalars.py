# SPDX-License-Identifier: MIT
"""Pass `demote-scalars`: scalar accumulators live across a loop become the array element they
are stored to (clangpass.poly.demotion).

Input: Scop after `alias-check`. Output: the Scop with each demotable scalar's accesses and
uses replaced by the element; its record lists them (`demoted_scalars`: `"t1 -> tmp[i][j]"`).

Ordering: after `alias-check` (the region's arrays are distinct where it runs, which the
demotion, like every pass, assumes) and before `index-set-split` and `privatize-arrays`, which
then see the array's dependences as in the original form (PRE doitgen's `t1` becomes `sum[p]`,
which privatize-arrays then privatizes), and before `dependences`.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.demotion import demote_scalars


@dataclass(frozen=True)
class DemoteScalarsRecord(PassRecord):
    """The scalars replaced, each as `t1 -> tmp[i][j]`."""

    demoted_scalars: tuple[str, ...] = ()


@register
class DemoteScalars(Pass):
    """Replace scalar accumulators live across a loop by the array element they end in."""

    name = "demote-scalars"
    requires = frozenset({"scop"})
    changes_model = True
    record = DemoteScalarsRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        try:
            demoted, done, live = demote_scalars(scop, ctx.options.isl_max_operations, unit.live_ranges)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no scalar demoted")
        # The live ranges it computed are those of the model it returns: handed on to `live-ranges`.
        if not done:
            return replace(unit, live_ranges=live)
        described = unit.record(DemoteScalarsRecord).demoted_scalars + tuple(d.describe() for d in done)
        return replace(unit.with_model(demoted), live_ranges=live).with_record(DemoteScalarsRecord(described))
