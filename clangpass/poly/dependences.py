# SPDX-License-Identifier: MIT
"""Dependence analysis: which statement instances must stay ordered.

Input: a `Scop` (accesses, kills, original schedule). Output: `Dependences`,
three union maps over statement instances `[P] -> { S[i..] -> T[j..] }`:
- flow: value-based read-after-write (Feautrier, "Dataflow analysis of array and
  scalar references", IJPP 1991): each read depends only on the last write of
  the value it reads; kills (`__pencil_kill`, uninitialised locals) end a value;
- anti: memory-based write-after-read, every pair;
- output: memory-based write-after-write, every pair.
Memory-based anti/output dependences keep every storage location (scalars and
locals included) single-assignment-safe under any schedule that respects them,
which is what lets the back end share one location between iterations.

Computed with isl's `compute_flow` (Verdoolaege, isl manual, "Dependence
Analysis") on the original schedule, bounded by `isl_max_operations`, and cached
on the Scop (`dependences(scop)`) since only a change of the model invalidates it.
"""
from __future__ import annotations

from dataclasses import dataclass

import islpy as isl

from clangpass.poly.scop import Scop, sorted_pieces

_CACHE_KEY = "dependences"


class AnalysisBudgetExceeded(Exception):
    """isl exceeded `isl_max_operations` in an analysis."""


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T reads what S wrote last }
    anti: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T overwrites what S read }
    output: isl.UnionMap    # [P] -> { S[i..] -> T[j..] : T overwrites what S wrote }

    @property
    def all(self) -> isl.UnionMap:
        """[P] -> { S[i..] -> T[j..] }: every dependence, the validity constraints of scheduling."""
        return self.flow.union(self.anti).union(self.output).coalesce()


def dependences(scop: Scop, max_operations: int = 0) -> Dependences:
    """The dependences of `scop`, computed once per model (raises AnalysisBudgetExceeded)."""
    cached = scop.analyses.get(_CACHE_KEY)
    if cached is None:
        cached = compute_dependences(scop, max_operations)
        scop.analyses[_CACHE_KEY] = cached
    return cached


def compute_dependences(scop: Scop, max_operations: int = 0) -> Dependences:
    ctx = scop.context.get_ctx()
    schedule = scop.original_schedule            # source order, kills included
    empty = isl.UnionMap.empty(scop.context.get_space())
    writes = scop.writes                         # [P] -> { S[i..] -> A[a..] }
    ctx.set_max_operations(max_operations)
    ctx.reset_operations()
    try:
        flow = (isl.UnionAccessInfo.from_sink(scop.reads)
                .set_must_source(scop.must_writes)
                .set_may_source(scop.may_writes)
                .set_kill(scop.kills)
                .set_schedule(schedule)
                .compute_flow().get_may_dependence())
        anti = (isl.UnionAccessInfo.from_sink(writes)
                .set_must_source(empty)
                .set_may_source(scop.reads)
                .set_schedule(schedule)
                .compute_flow().get_may_dependence())
        output = (isl.UnionAccessInfo.from_sink(writes)
                  .set_must_source(empty)
                  .set_may_source(writes)
                  .set_schedule(schedule)
                  .compute_flow().get_may_dependence())
    except isl.Error as exc:
        if max_operations and "operations exceeded" in str(exc):
            raise AnalysisBudgetExceeded(f"dependence analysis exceeded {max_operations} isl operations") from None
        raise
    finally:
        ctx.set_max_operations(0)
    context = scop.context                       # [P] -> { : ... }
    return Dependences(flow.intersect_params(context).coalesce(),
                       anti.intersect_params(context).coalesce(),
                       output.intersect_params(context).coalesce())


def format_deps(deps: Dependences) -> str:
    """The `deps` dump: each kind, one map per line, sorted."""
    lines = []
    for heading, umap in (("Flow", deps.flow), ("Anti", deps.anti), ("Output", deps.output)):
        lines.append(f"{heading} :=")
        pieces = sorted_pieces(umap)
        lines.extend(f"    {p};" for p in pieces)
        if not pieces:
            lines.append("    (none)")
    return "\n".join(lines)
