# SPDX-License-Identifier: MIT
"""Pass `contract-arrays`: arrays whose values die in the region get storage of their conflict set's size.

Input: Scop after `privatize-arrays`. Output: the Scop of clangpass.poly.contraction
(each contracted array's accesses `T[f]` made `T[f mod b]`, in the IR bodies and the
isl accesses; a region-local array declared with the reduced extents). Its record's
`storage` lists every written array: bytes before and after and the technique, or
why not (docs/passes/contract-arrays.md).

Ordering: after `privatize-arrays`, whose private copies are region-local arrays it
may contract too, and before `dependences`, which then sees the reuse of the folded
storage as ordinary anti and output dependences: scheduling, tiling and the parallel
marks stay correct because every later pass reads the contracted model. The
conflict set is the source order's, so any schedule the dependences allow keeps
live ranges apart. Runs under `-fpencil-memory=contract` and `all` (the default).
"""
from __future__ import annotations

from dataclasses import dataclass

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.contraction import contract_arrays

# The -fpencil-memory= values that run this pass.
MEMORY_MODES = frozenset({"contract", "all"})


@dataclass(frozen=True)
class ContractArraysRecord(PassRecord):
    """The written arrays of the region: for each, {array, bytes_before, bytes_after, technique:
    'contract', why_not: '', into: '', mapping} or, for one left as it is, the same keys with
    empty values but why_not (bytes: a number, or a C expression of the parameters; the shape
    reuse-in-place's entries of the shared key have too)."""

    storage: tuple[dict, ...] = ()


@register
class ContractArrays(Pass):
    """Fold arrays whose values die in the region onto the modular storage of their conflict set."""

    name = "contract-arrays"
    requires = frozenset({"scop"})
    changes_model = True
    record = ContractArraysRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if ctx.options.memory not in MEMORY_MODES:
            return unit
        contracted, contraction = contract_arrays(unit.scop, ctx.options.isl_max_operations)
        unit = unit.with_record(ContractArraysRecord(contraction.storage))
        if not contraction.arrays:
            return unit
        return unit.with_model(contracted)
