# SPDX-License-Identifier: MIT
"""The compilation unit the polyhedral passes transform: one region on its way to an AST.

Input: an `OptRegion` and its `Module` (stage REGION). The `extract` pass adds the
`Scop` (stage SCOP), scheduling passes replace it by rescheduled copies, and
`codegen` adds the `CodegenUnit` for the back ends (stage AST).

Analyses are typed fields of the unit, each set by the pass that computes it and named
in that pass's `provides` (`dependences`, `live-ranges`, `relaxed-dependences`,
`clustering`, `alias-check`); `provided` names what is established so far, which the
pass manager checks against each pass's `requires` before anything runs. An analysis
holds for the model it was computed from: a pass that changes the model (statements,
accesses, original schedule: `Scop.model`) declares `changes_model` and returns
`unit.with_model(scop)`, which drops them (the manager checks both). A transformation
that computed an analysis itself on a model it leaves as it found it hands it on in
the field (index-set-split its dependences, demote-scalars its live ranges), and the
analysis pass then keeps it rather than computing it again.

What the passes did goes to `records` (one frozen record per pass, declared beside it:
clangpass.passes.registry.PassRecord) and `notes` (what a pass gave up and why, in
order: the record's `reason`); the optimisation record is their flattening.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Optional, TypeVar

from clangpass.ir import nodes as N
from clangpass.poly.alias_check import AliasCheck
from clangpass.poly.clustering import Clustering
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.poly.dependences import Dependences
from clangpass.poly.live_ranges import LiveRanges, RelaxedDependences
from clangpass.poly.scop import Scop
from clangpass.regions import OptRegion

if TYPE_CHECKING:
    from clangpass.passes.registry import PassRecord

R = TypeVar("R", bound="PassRecord")


class RunAgainAfter(Exception):
    """Raised by a pass: the pass manager runs the pipeline again on `unit`, from the pass after
    `after` (a transformation whose cost shows only at AST generation: `PolyUnit.unskewed`)."""

    def __init__(self, after: str, unit: "PolyUnit") -> None:
        super().__init__(f"run the passes after '{after}' again")
        self.after = after
        self.unit = unit


class Stage(enum.Enum):
    REGION = "region"
    SCOP = "scop"
    AST = "ast"


# The analyses of the model, which a pass that changes the model drops (`PolyUnit.with_model`).
MODEL_ANALYSES = frozenset({"dependences", "live-ranges", "relaxed-dependences", "clustering"})


@dataclass(frozen=True)
class PolyUnit:
    region: OptRegion
    module: N.Module
    stage: Stage = Stage.REGION
    scop: Optional[Scop] = None
    codegen: Optional[CodegenUnit] = None
    # Analyses of the model (MODEL_ANALYSES), each set by the pass that provides it.
    dependences: Optional[Dependences] = None      # set by `dependences`
    live_ranges: Optional[LiveRanges] = None       # set by `live-ranges`: flow through region-local storage
    relaxed: Optional[RelaxedDependences] = None   # set by relax-false-deps when local storage has false deps
    clustering: Optional[Clustering] = None        # set by cluster-stmts: what `schedule` schedules
    alias_check: Optional[AliasCheck] = None       # set by alias-check
    # Set by load-schedule: the file the schedule came from (-fpencil-load-schedule); the passes
    # that only rewrite the schedule tree (`Pass.rewrites_schedule`) then leave it as it is.
    schedule_file: str = ""
    # Set by contract-scheduled: the model before its contraction, which holds for the final
    # schedule only; `codegen` goes back to it when it must use the source order instead.
    uncontracted: Optional[Scop] = None
    # Set by wavefront: the unit as it was before its skew. `codegen` generates the AST of the
    # skewed schedule under the wavefront's share of the budget; when it does not fit, the passes
    # after `wavefront` run again on this unit (`RunAgainAfter`), which has no wavefront.
    unskewed: Optional["PolyUnit"] = None
    records: tuple["PassRecord", ...] = ()         # what each pass did, one record per pass (registry.PassRecord)
    notes: tuple[str, ...] = ()                    # what the passes gave up and why, in order
    provided: frozenset[str] = field(default=frozenset())

    def with_model(self, scop: Scop) -> "PolyUnit":
        """The unit with `scop`, whose model differs from the current one: the analyses of the
        model are dropped (the pipeline computes them again before their next user)."""
        return replace(self, scop=scop, dependences=None, live_ranges=None, relaxed=None, clustering=None,
                       provided=self.provided - MODEL_ANALYSES)

    def with_note(self, note: str) -> "PolyUnit":
        return replace(self, notes=self.notes + (note,))

    def with_record(self, record: "PassRecord") -> "PolyUnit":
        """The unit with `record` in place of the record of its type, if any."""
        return replace(self, records=tuple(r for r in self.records if type(r) is not type(record)) + (record,))

    def record(self, kind: type[R]) -> R:
        """The record of type `kind` (its default when the pass has not put one yet)."""
        return next((r for r in self.records if type(r) is kind), None) or kind()
