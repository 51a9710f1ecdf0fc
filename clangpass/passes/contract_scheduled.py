# SPDX-License-Identifier: MIT
"""Pass `contract-scheduled`: contraction against the final schedule (line buffers of a fused pipeline).

Input: Scop after `verify-schedule`, its schedule the final one. Output: the Scop of
clangpass.poly.contraction (`contract_arrays` with the schedule: each contracted
array's accesses `T[f]` made `T[f mod b]`, in the IR bodies and the isl accesses,
a region-local array declared with the reduced extents). Its record's `storage`
lists the arrays it contracted (technique `contract-scheduled`) and those whose
conflict set it computed and that still fold nowhere, with the reason
(docs/passes/contract-arrays.md, "Against the final schedule").

Why a second placement: `contract-arrays` computes conflict sets in the source order,
before `dependences`, so that every later pass respects the folded storage's reuse.
In a producer-consumer pipeline over whole arrays (test_suite/kernels/memory/
image_pipeline.c) each stage finishes before the next starts in the source order,
so every element of a scratch array is live while the whole of it is written and
nothing folds. The scheduler fuses the stages (a shift by the consumer's reach),
and against that schedule a few rows of the scratch array are live at a time: the
conflict set of the final schedule (paper section 3.1, the conflict set with
respect to a schedule, parallel ones included) folds it onto line buffers. The
loops marked `parallel`, `vector` or `coincident` and `set` nodes count as unordered
(threads, work-items and the vectoriser run their iterations in any order): two
elements conflict unless the sequential dimensions put every access of one before
every write of the other.

Ordering: after `verify-schedule`, so that no later pass reorders anything (the
passes after it, `thread-team` and `codegen`, add a mark that changes no order and
read the schedule); the analyses of the model (dependences, live ranges) are no
longer needed then and are dropped with the model (`codegen` reads the Scop's
statements, accesses and array descriptors, which this pass rewrites together, and
computes the reductions of the annotations again from the contracted model: arrays
named by a reduction or used in an annotated loop are no candidates). Runs under
`-fpencil-memory=contract` and `all` (the default).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from clangpass.passes.contract_arrays import MEMORY_MODES
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.contraction import contract_arrays


@dataclass(frozen=True)
class ContractScheduledRecord(PassRecord):
    """Entries of the shared `storage` key (contract-arrays' shape): the arrays folded against the
    final schedule (technique 'contract-scheduled') and those analysed and kept, with why_not;
    arrays that were no candidates at all appear only in contract-arrays' entries."""

    storage: tuple[dict, ...] = ()


@register
class ContractScheduled(Pass):
    """Fold the arrays whose values die in the region onto the conflict set of the final schedule."""

    name = "contract-scheduled"
    requires = frozenset({"scop", "schedule"})
    changes_model = True
    record = ContractScheduledRecord
    dump_stage = "scop"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if ctx.options.memory not in MEMORY_MODES:
            return unit
        scop = unit.scop
        contracted, contraction = contract_arrays(scop, ctx.options.isl_max_operations, scop.schedule)
        analysed = tuple(e for e in contraction.storage if e["array"] not in contraction.screened)
        unit = unit.with_record(ContractScheduledRecord(analysed))
        if not contraction.arrays:
            return unit
        # The folded storage is valid for this schedule only: codegen, when isl's AST of it
        # fails and it takes the source order, takes the model before the contraction too.
        return replace(unit.with_model(contracted), uncontracted=scop)
