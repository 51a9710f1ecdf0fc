# SPDX-License-Identifier: MIT
"""What the PENCIL loop annotations let the optimiser assume.

Input: a `Scop` whose `annotations` the extractor filled from `#pragma pencil
independent [reduction(op: v)]` and `#pragma pencil ivdep` on its loops. Output:
the dependence pairs each annotation declares absent, as union maps over statement
instances `[P] -> { S[i..] -> T[j..] }`, and a plain account of what each
annotation did (`PragmaUse`, reported by `-Rpass=pencil` / `-Rpass-missed=pencil`
and in the optimisation record).

Meaning (PENCIL definition, Baghdadi et al., PACT 2015, section 3, and thesis
appendix A): `independent` says that the iterations of its loop carry no
dependence, so any two instances of statements inside it that agree on the
enclosing loops and differ on this loop's iterator need no order; a wrong
annotation is the programmer's error, as in the definition. `ivdep` says less:
the carried dependences do not prevent executing consecutive iterations as
vector lanes, so they are ignored only when choosing vector loops
(clangpass.passes.mark_vector), never for scheduling or threads.

Not every carried dependence is dropped: those through storage the back end
shares between iterations stay, since dropping them would make the generated code
race rather than merely reorder: region-local variables (relax-false-deps and
the live-range checks own them), scalars of the caller (no per-thread copy is
made), and the variables of `reduction(...)` clauses (combined in order, as
no reduction code is generated for them yet). A pair of instances that conflicts
on such storage keeps its dependence even if it also touches an array.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import iter_stmts
from clangpass.poly.scop import LoopAnnotation, Scop, accesses_through

_CACHE_KEY = "annotations"


@dataclass(frozen=True)
class PragmaUse:
    """What one loop pragma did; plain values (it crosses processes in the region outcome)."""

    kind: str          # 'independent' | 'ivdep'
    file: str
    line: int
    column: int
    used: bool         # whether the optimiser relied on it
    detail: str        # what it changed ('' if nothing)
    missed: str = ""   # what of it could not be used, and why ('' if nothing)

    def as_record(self) -> dict:
        return {"pragma": self.kind, "line": self.line, "column": self.column, "used": self.used,
                "detail": self.detail, "missed": self.missed}


def carried_pairs(scop: Scop, annotation: LoopAnnotation) -> isl.UnionMap:
    """[P] -> { S[i..] -> T[j..] }: instance pairs inside the annotated loop, in the same iteration
    of the loops around it and in different iterations of it."""
    out = isl.UnionMap.empty(scop.context.get_space())
    inside = [scop.statement(name) for name in annotation.statements]
    d = annotation.depth
    for s in inside:
        for t in inside:
            pairs = isl.Map.from_domain_and_range(s.domain, t.domain)
            for k in range(d):
                pairs = pairs.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
            apart = (pairs.order_lt(isl.dim_type.in_, d, isl.dim_type.out, d)
                     .union(pairs.order_gt(isl.dim_type.in_, d, isl.dim_type.out, d)))
            out = out.union(isl.UnionMap.from_map(apart))
    return out


def kept_storage(scop: Scop, annotation: LoopAnnotation) -> frozenset[str]:
    """The variables whose dependences the annotation does not remove (see the module doc)."""
    return frozenset(a.name for a in scop.arrays
                     if a.local or a.rank == 0 or a.name in annotation.reductions)


def _conflicts(scop: Scop, names: frozenset[str]) -> isl.UnionMap:
    """[P] -> { S[i..] -> T[j..] : both access one element of a variable in `names`, one writes }."""
    reads = accesses_through(scop.reads, names)
    writes = accesses_through(scop.writes, names)
    touch = writes.apply_range(writes.reverse())
    touch = touch.union(writes.apply_range(reads.reverse())).union(reads.apply_range(writes.reverse()))
    return touch


def removable(scop: Scop, annotation: LoopAnnotation) -> isl.UnionMap:
    """The dependence pairs `annotation` declares absent."""
    return carried_pairs(scop, annotation).subtract(_conflicts(scop, kept_storage(scop, annotation)))


def _union(scop: Scop, kinds: tuple[str, ...]) -> isl.UnionMap:
    out = isl.UnionMap.empty(scop.context.get_space())
    for a in scop.annotations:
        if a.kind in kinds:
            out = out.union(removable(scop, a))
    return out.coalesce()


def declared_independent(scop: Scop) -> isl.UnionMap:
    """Pairs no dependence joins, by `independent` loops (removed from every dependence)."""
    cache = scop.analyses.setdefault(_CACHE_KEY, {})
    if "independent" not in cache:
        cache["independent"] = _union(scop, ("independent",))
    return cache["independent"]


def vector_independent(scop: Scop) -> isl.UnionMap:
    """Pairs that do not keep a loop from being a vector loop (`ivdep` and `independent` loops)."""
    cache = scop.analyses.setdefault(_CACHE_KEY, {})
    if "vector" not in cache:
        cache["vector"] = _union(scop, ("independent", "ivdep"))
    return cache["vector"]


def pragma_uses(scop: Scop, declared: Optional[isl.UnionMap]) -> tuple[PragmaUse, ...]:
    """What each annotation of an optimized region did, given `declared`: the dependences the
    annotations removed or let vector loops ignore (`Dependences.declared`; None: none known)."""
    uses = []
    for a in scop.annotations:
        gone = (declared.intersect(removable(scop, a)) if declared is not None
                else isl.UnionMap.empty(scop.context.get_space()))
        kept = sorted(kept_storage(scop, a) & _touched_in_loop(scop, a))
        if gone.is_empty():
            detail = ""
        elif a.kind == "independent":
            detail = "dependences carried by the loop ignored"
        else:
            detail = "the loop's carried dependences ignored when choosing vector loops"
        missed = []
        reduced = [v for v in kept if v in a.reductions]
        if reduced:
            missed.append(f"reduction variable{'s' if len(reduced) > 1 else ''} "
                          f"{', '.join(repr(v) for v in reduced)} kept in order: CPU reductions are not "
                          "generated yet")
        shared = [v for v in kept if v not in a.reductions]
        if shared:
            missed.append(f"dependences through {', '.join(repr(v) for v in shared)} kept: the pragma does "
                          "not privatise scalars or region-local variables")
        if gone.is_empty() and not missed:
            missed.append("the loop carries no dependence through arrays to ignore")
        uses.append(PragmaUse(a.kind, a.loc.file, a.loc.line, a.loc.col, not gone.is_empty(), detail,
                              "; ".join(missed)))
    return tuple(uses)


def _touched_in_loop(scop: Scop, annotation: LoopAnnotation) -> frozenset[str]:
    """Variables written inside the annotated loop (only those can carry a dependence)."""
    names: set[str] = set()
    inside = set(annotation.statements)

    def note(m: isl.Map) -> None:
        if m.get_tuple_name(isl.dim_type.in_) in inside:
            names.add(m.get_tuple_name(isl.dim_type.out))
    scop.writes.foreach_map(note)
    return frozenset(names)


def unused_pragmas(body: N.Stmt, reason: str) -> tuple[PragmaUse, ...]:
    """The loop pragmas of a region the optimiser did not transform, each with `reason`."""
    uses = []
    for s in iter_stmts(body):
        for p in s.pragmas:
            if p.kind in ("independent", "ivdep"):
                uses.append(PragmaUse(p.kind, p.loc.file, p.loc.line, p.loc.col, False, "", reason))
    return tuple(uses)
