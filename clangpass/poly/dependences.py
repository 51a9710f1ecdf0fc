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
three (clangpass.poly.annotations); what the annotations allow (the pairs they remove,
the pairs vector loops may ignore, the reductions threads may perform) comes with
the dependences, computed once with them.
Exact reductions (clangpass.poly.exact_reductions: integer array elements every write of which
is an update with one associative, commutative, exact operator, `table[i][j] = max(table[i][j],
e)`) need no order among the updates of one element: those pairs (`reordering`) leave the
`ordering` constraints, which gain every update before a later read of its element
(`reduction_reads`); `all` keeps them, since a loop that carries two updates of one element
is neither parallel nor vector.
The `dependences` pass puts the result on the compilation unit (`PolyUnit.dependences`),
where it holds until a pass changes the model.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Optional

import islpy as isl

from clangpass.poly.annotations import (ThreadReductions, annotation_reductions, declared_independent, reduction_results,
                                        vector_independent)
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.exact_reductions import ExactReduction, exact_reductions, reduction_reads, reordering_pairs
from clangpass.poly.scop import Scop, sorted_pieces
from clangpass.poly.validity import ALL_PAIRS_MAX_STATEMENTS, dates_by_statement, maps_of, ordered_pair, union_of

@dataclass(frozen=True)
class Dependences:
    flow: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T reads what S wrote last }
    anti: isl.UnionMap      # [P] -> { S[i..] -> T[j..] : T overwrites what S read }
    output: isl.UnionMap    # [P] -> { S[i..] -> T[j..] : T overwrites what S wrote }
    note: str = ""          # set when the flow dependences are memory-based (budget exceeded)
    # Pairs of the dependences above that `independent` removed or `ivdep` lets vector loops
    # ignore (clangpass.poly.annotations); None when the region has no such pragma.
    declared: Optional[isl.UnionMap] = None
    # What the loop annotations allow (clangpass.poly.annotations), for the passes that read it:
    independent: Optional[isl.UnionMap] = None          # [P] -> { S -> T }: pairs `independent` removed
    vector_independent: Optional[isl.UnionMap] = None   # [P] -> { S -> T }: pairs vector loops may ignore
    reductions: tuple[ThreadReductions, ...] = ()       # `thread_reductions` of each annotation, in order
    # Exact reductions found in the region (clangpass.poly.exact_reductions), the update pairs
    # whose order does not matter, and each update to the later reads of its element
    # ([P] -> { S -> T }); None when the region has none.
    exact: tuple[ExactReduction, ...] = ()
    reordering: Optional[isl.UnionMap] = None
    reduction_reads: Optional[isl.UnionMap] = None

    @cached_property
    def all(self) -> isl.UnionMap:
        """[P] -> { S[i..] -> T[j..] }: every dependence; what a parallel or vector loop may not carry."""
        return self.flow.union(self.anti).union(self.output).coalesce()

    @cached_property
    def ordering(self) -> isl.UnionMap:
        """[P] -> { S[i..] -> T[j..] }: the order a schedule must keep, the validity constraints of
        scheduling: `all`, less the update pairs of exact reductions, with every update before the
        later reads of its element."""
        if self.reordering is None:
            return self.all
        return relaxed_order(self.all, self)


def relaxed_order(deps: isl.UnionMap, dependences: Dependences) -> isl.UnionMap:
    """`deps` ([P] -> { S -> T }, `dependences.all` or a part of it that orders the same
    statements) with the update pairs of exact reductions left out and their results kept
    (`Dependences.ordering`)."""
    if dependences.reordering is None:
        return deps
    return deps.subtract(dependences.reordering).union(dependences.reduction_reads).coalesce()


def compute_dependences(scop: Scop, max_operations: int = 0, exact: bool = True) -> Dependences:
    """Flow (value-based when the budget allows, else memory-based), anti and output dependences
    (raises BudgetExceeded), with what the loop annotations allow.

    Memory-based flow dependences are a superset of the value-based ones, so falling back to
    them when value-based analysis exceeds `max_operations` only costs scheduling freedom.
    With `exact` (-fpencil-exact-reductions), exact reductions are looked for.
    """
    ctx = scop.context.get_ctx()
    step = "dependence analysis"
    dates = scop.original_schedule.get_map()         # [P] -> { S[i..] -> [t..] } source order, kills included
    if dates.n_map() > ALL_PAIRS_MAX_STATEMENTS:
        flow, anti, output, note = _per_array(scop, dates, max_operations)
    else:
        flow, anti, output, note = _whole(scop, dates, max_operations)
    context = scop.context                           # [P] -> { : ... }
    declared = None
    none = isl.UnionMap.empty(context.get_space())
    independent, vector, reductions = none, none, ()
    if scop.annotations:
        with isl_budget(ctx, max_operations, step):
            reductions = annotation_reductions(scop)
            vector = vector_independent(scop, reductions)
            declared = flow.union(anti).union(output).intersect(vector).coalesce()
            independent = declared_independent(scop, reductions)
            flow, anti, output = (d.subtract(independent) for d in (flow, anti, output))
            # Ordering: after the subtraction (the reads of a reduction's result are outside its loop).
            flow = flow.union(reduction_results(scop, reductions, dates.lex_lt_union_map(dates)))
    found: tuple[ExactReduction, ...] = ()
    reordering = results = None
    if exact:
        with isl_budget(ctx, max_operations, step):
            found = exact_reductions(scop)
            reordering = reordering_pairs(found)
            if reordering is not None:
                results = _simplified(reduction_reads(scop, found, dates), context)
                reordering = _simplified(reordering, context)
    return Dependences(_simplified(flow, context), _simplified(anti, context), _simplified(output, context), note,
                       declared, independent, vector, reductions, found, reordering, results)


def _whole(scop: Scop, dates: isl.UnionMap, max_operations: int) -> tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap, str]:
    """Flow, anti, output dependences and the note, each kind computed at once for the region."""
    ctx = scop.context.get_ctx()
    step = "dependence analysis"
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
    return flow, anti, output, note


def _per_array(scop: Scop, dates: isl.UnionMap,
               max_operations: int) -> tuple[isl.UnionMap, isl.UnionMap, isl.UnionMap, str]:
    """As `_whole`, for a large region: dependences never relate accesses to different arrays, so
    value-based flow is computed array by array and the memory-based relations statement pair by
    statement pair (only pairs that share an array), each under its own `max_operations`: the
    work grows with the pairs, not with the square of the statements. An array whose value-based
    flow exceeds the budget gets memory-based flow dependences (the note names it)."""
    ctx = scop.context.get_ctx()
    step = "dependence analysis"
    by_array: dict[str, list[isl.UnionMap]] = {}
    for k, umap in enumerate((scop.reads, scop.must_writes, scop.may_writes, scop.kills)):
        for m in maps_of(umap):                      # [P] -> { S[i..] -> A[a..] }
            parts = by_array.setdefault(m.get_tuple_name(isl.dim_type.out), [isl.UnionMap.empty(umap.get_space())] * 4)
            parts[k] = parts[k].union(isl.UnionMap.from_map(m))
    order = dates_by_statement(dates)

    def ordered(pairs: isl.UnionMap) -> list[isl.Map]:
        out = []
        for m in maps_of(pairs):
            with isl_budget(ctx, max_operations, step):
                out.append(ordered_pair(m, order))
        return out

    flows: list[isl.Map] = []
    antis: list[isl.Map] = []
    outputs: list[isl.Map] = []
    approximated: list[str] = []
    for array, (reads, must, may, kills) in sorted(by_array.items()):
        writes = must.union(may)
        antis.extend(ordered(reads.apply_range(writes.reverse())))
        outputs.extend(ordered(writes.apply_range(writes.reverse())))
        if reads.is_empty() or writes.is_empty():
            continue
        try:
            with isl_budget(ctx, max_operations, step):
                touching = reads.domain().union(writes.domain()).union(kills.domain())   # [P] -> { S[i..] }
                flows.extend(maps_of(
                    isl.UnionAccessInfo.from_sink(reads).set_must_source(must).set_may_source(may).set_kill(kills)
                    .set_schedule_map(dates.intersect_domain(touching)).compute_flow().get_may_dependence()))
        except (BudgetExceeded, isl.Error):
            approximated.append(array)
            flows.extend(ordered(writes.apply_range(reads.reverse())))
    note = (f"value-based dependence analysis of {', '.join(approximated)} exceeded {max_operations} isl "
            "operations or failed: memory-based flow dependences used" if approximated else "")
    space = scop.context.get_space()
    # Maps of one statement pair from different arrays are united pair by pair.
    return (_merged(flows, space), _merged(antis, space), _merged(outputs, space), note)


def _merged(maps: list[isl.Map], space: isl.Space) -> isl.UnionMap:
    """The union of `maps`, several of which may relate the same statement pair."""
    by_pair: dict[tuple[str, str], isl.Map] = {}
    for m in maps:
        key = (m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out))
        by_pair[key] = by_pair[key].union(m) if key in by_pair else m
    return union_of(list(by_pair.values()), space)


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
