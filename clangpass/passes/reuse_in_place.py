# SPDX-License-Identifier: MIT
"""Pass `reuse-in-place`: an array defined from one that dies is stored in that one's memory.

Input: Scop after `privatize-arrays`. Output: the Scop of clangpass.poly.update_in_place
(one array's accesses renamed to the other's, the copies between them deleted). Its
record's `storage` lists each array whose storage went (array, the array that holds its
values now, bytes before and after, technique: `update-in-place` or `in-place-fold`) and
each candidate kept, with why. Runs when `-fpencil-memory=` is `reuse` or `all`.

Ordering: after `privatize-arrays`, whose private copies are region-local arrays that
may be reused too, and before `dependences`, which then sees the renamed accesses (the
renaming changes the model: the dependences of the old one are dropped); after
`alias-check`, whose pairs are those of the source's arrays (an array this pass no longer
accesses only makes the check stricter).
"""
from __future__ import annotations

from dataclasses import dataclass

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.update_in_place import Reuse, reuse_in_place

# The -fpencil-memory= values that run this pass.
MEMORY_REUSE = ("reuse", "all")


@dataclass(frozen=True)
class ReuseInPlaceRecord(PassRecord):
    """The arrays stored in another one's memory, and the candidates kept (with why)."""

    storage: tuple[dict, ...] = ()


@register
class ReuseInPlace(Pass):
    """Store an array defined from one that dies in that one's memory, deleting the copies."""

    name = "reuse-in-place"
    requires = frozenset({"scop"})
    changes_model = True
    record = ReuseInPlaceRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if ctx.options.memory not in MEMORY_REUSE:
            return unit
        scop, reuse = reuse_in_place(unit.scop, ctx.options.isl_max_operations)
        if not reuse.done and not reuse.kept:
            return unit
        record = ReuseInPlaceRecord(storage_facts(reuse))
        if not reuse.done:
            return unit.with_record(record)
        return unit.with_model(scop).with_record(record)


def storage_facts(reuse: Reuse) -> tuple[dict, ...]:
    """The record's `storage` entries: {array, bytes_before, bytes_after, technique, why_not, into}."""
    done = tuple({"array": r.array, "bytes_before": r.bytes, "bytes_after": 0, "technique": r.technique,
                  "why_not": "", "into": r.into, "mapping": ""} for r in reuse.done)
    kept = tuple({"array": array, "bytes_before": size, "bytes_after": size, "technique": "", "why_not": why,
                  "into": into, "mapping": ""} for array, into, why, size in reuse.kept)
    return done + kept
