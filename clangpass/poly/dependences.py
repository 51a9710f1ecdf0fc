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

Flow dependences come from isl's `compute_flow` (Verdoolaege, isl manual,
"Dependence Analysis") on the original schedule; memory-based ones are the pairs
of accesses to one element in source order. Each step is bounded by
`isl_max_operations`: when value-based analysis exceeds it (or isl fails on
it), memory-based flow dependences (a superset) replace it and `note` says so; when the memory-based
relations exceed it, `BudgetExceeded` is raised (the region falls back).
The pairs a `#pragma pencil independent` loop declares absent are removed from all
three (clangpass.poly.annotations).
The result is cached on the Scop (`dependences(scop)`) since only a change of
the model invalidates it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import islpy as isl

from clangpass.poly.annotations import declared_independent, reduction_results, vector_independent
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.scop import Scop, sorted_pieces

_CACHE_KEY = "dependences"


@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T reads what S wrote last }
    anti: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T overwrites what S read }
    output: isl.UnionMap    # [P] -> { S[i..] -> T[j..] : T overwrites what S wrote }
    note: str = ""          # set when the flow dependences are memory-based (budget exceeded)
    # Pairs of the dependences above that `independent` removed or `ivdep` lets vector loops
    # ignore (clangpass.poly.annotations); None when the region has no such pragma.
    declared: Optional[isl.UnionMap] = None

    @property
    def all(self) -> isl.UnionMap:
        """[P] -> { S[i..] -> T[j..] }: every dependence, the validity constraints of scheduling."""
        return self.flow.union(self.anti).union(self.output).coalesce()


def dependences(scop: Scop, max_operations: int = 0) -> Dependences:
    """The dependences of `scop`, computed once per model (raises BudgetExceeded)."""
    cached = scop.analyses.get(_CACHE_KEY)
    if cached is None:
        cached = compute_dependences(scop, max_operations)
        scop.analyses[_CACHE_KEY] = cached
    return cached


def cached_dependences(scop: Scop) -> Optional[Dependences]:
    """The dependences of `scop` if some pass computed them, else None (never computes)."""
    return scop.analyses.get(_CACHE_KEY)


def compute_dependences(scop: Scop, max_operations: int = 0) -> Dependences:
    """Flow (value-based when the budget allows, else memory-based), anti and output dependences.

    Memory-based flow dependences are a superset of the value-based ones, so falling back to
    them when value-based analysis exceeds `max_operations` only costs scheduling freedom.
    """
    ctx = scop.context.get_ctx()
    step = "dependence analysis"
    dates = scop.original_schedule.get_map()         # [P] -> { S[i..] -> [t..] } source order, kills included
    writes = scop.writes                             # [P] -> { S[i..] -> A[a..] }
    note = ""
    with isl_budget(ctx, max_operations, step):
        earlier = dates.lex_lt_union_map(dates)      # [P] -> { S[i..] -> T[j..] : S runs before T }
        # Memory-based: the same element, source before sink.
        anti = scop.reads.apply_range(writes.reverse()).intersect(earlier)
        output = writes.apply_range(writes.reverse()).intersect(earlier)
    try:
        with isl_budget(ctx, max_operations, step):
            flow = (isl.UnionAccessInfo.from_sink(scop.reads)
                    .set_must_source(scop.must_writes)
                    .set_may_source(scop.may_writes)
                    .set_kill(scop.kills)
                    .set_schedule(scop.original_schedule)
                    .compute_flow().get_may_dependence())
    except (BudgetExceeded, isl.Error) as exc:
        # Over budget, or an isl failure ("affine expression involves some of the domain
        # dimensions" was seen on strided loops): memory-based flow is a safe superset.
        with isl_budget(ctx, max_operations, step):
            flow = writes.apply_range(scop.reads.reverse()).intersect(earlier)
        why = (f"exceeded {max_operations} isl operations" if isinstance(exc, BudgetExceeded)
               else f"failed in isl ({isl_error_reason(exc)})")
        note = f"value-based dependence analysis {why}: memory-based flow dependences used"
    context = scop.context                           # [P] -> { : ... }
    declared = None
    if scop.annotations:
        with isl_budget(ctx, max_operations, step):
            declared = flow.union(anti).union(output).intersect(vector_independent(scop)).coalesce()
            independent = declared_independent(scop)
            flow, anti, output = (d.subtract(independent) for d in (flow, anti, output))
            # Ordering: after the subtraction (the reads of a reduction's result are outside its loop).
            flow = flow.union(reduction_results(scop, earlier))
    return Dependences(_simplified(flow, context), _simplified(anti, context), _simplified(output, context), note,
                       declared)


def _simplified(deps: isl.UnionMap, context: isl.Set) -> isl.UnionMap:
    """`deps` under `context`, with redundant constraints removed (a stable, readable form)."""
    return deps.intersect_params(context).coalesce().detect_equalities().remove_redundancies()


def format_deps(deps: Dependences) -> str:
    """The `deps` dump: each kind, one map per line, sorted."""
    lines = [f"Note: {deps.note}"] if deps.note else []
    for heading, umap in (("Flow", deps.flow), ("Anti", deps.anti), ("Output", deps.output)):
        lines.append(f"{heading} :=")
        pieces = sorted_pieces(umap)
        lines.extend(f"    {p};" for p in pieces)
        if not pieces:
            lines.append("    (none)")
    return "\n".join(lines)
