# SPDX-License-Identifier: MIT
"""Pass `privatize-arrays`: caller arrays used as per-iteration temporaries get region-local copies.

Input: Scop after `alias-check`. Output: the Scop of clangpass.poly.privatization
(private copies, last-value copy-out statements, a new source order) and the
region's versioning condition extended by the private storage's size condition.
The record lists the arrays in `privatized_arrays`.

Ordering: after `alias-check`, whose ranges and pairs are those of the caller's
arrays as the source accesses them (the copy-outs write a subset of them), and
before `dependences`, which then sees the private copies as region-local storage
whose false dependences `relax-false-deps` relaxes.
"""
from __future__ import annotations

from dataclasses import replace

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded
from clangpass.poly.privatization import privatize_arrays, with_size_condition


@register
class PrivatizeArrays(Pass):
    """Give caller arrays that only carry values within one loop iteration a private copy."""

    name = "privatize-arrays"
    requires = frozenset({"scop"})
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        try:
            private, privatization = privatize_arrays(scop, ctx.options.isl_max_operations,
                                                      guarded=unit.alias_check is not None)
        except BudgetExceeded as exc:
            return replace(unit, scop=scop.with_note(f"{exc}: no array privatized"))
        if not privatization.arrays:
            return unit
        return replace(unit, scop=private, alias_check=with_size_condition(unit.alias_check, privatization))
