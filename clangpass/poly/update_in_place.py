# SPDX-License-Identifier: MIT
"""Update in place: an array defined from another one that dies is stored in that one's memory.

Input: a `Scop`. Output: the same region with the accesses of an array `B` renamed to an
array `A` whose memory `B` may share, and the copies between them (`B[x] = A[x]`,
`A[x] = B[x]`), identities after the renaming, deleted (`Reuse` says what was done, and
why the other candidate pairs were kept).

Why: value-style code (single assignment, SAC-like array code, generated code) defines a
new array per step from the previous one -- a copy of everything the step does not change
-- and copies it back or lets the old one die. Storing the new array in the old one's
memory removes the copies and one array (Guo, Bernecky, Thiyagalingam & Scholz,
"Polyhedral methods for improving parallel update-in-place", IMPACT 2014: PRA, section 3,
Algorithms 1 and 2). The same renaming is the in-place accumulator of a fold whose
accumulator is a sub-array, `new[j] = acc[j] + X[k][j]; acc[j] = new[j];` (van Cuyck &
Scholz, "In-place folding of non-scalar hyper-planes of multi-dimensional arrays", IFL
2021, section 6): one accumulator, no copy back.

Candidates (Algorithm 1, line 23: an array is considered only if the nest copies part of
it): the pairs of arrays of one element type and row shape that a copy statement joins,
`B[x] = A[x]` or `A[x] = B[x]` (the same element, as isl maps). `B`, the array whose
storage goes, is region-local or dead after the region (not live-out: `__pencil_kill`),
and no value of it enters the region.

Exactness, in two parts:
1. The values (the sequential program after the renaming computes what it did): every
   write of `B` that is not a copy of `A`'s element writes an element of `A` whose value
   is dead there -- the next access of that element of `A` in the source order is not a
   read (a write or a kill; after the region: only for local `A`) -- and the same with
   the roles of the arrays exchanged. A copy writes the value already there and
   clobbers nothing. A kill of either array's element stays only where the other
   array's element is dead too. This is an interference test of live ranges per element
   (Chaitin's, with copies coalesced), computed exactly with value-based flow in isl.
2. The parallel order (PRA's criterion, section 3.1: "the iteration spaces associated to
   all non-in-place reads from A map into iteration spaces of copy assignments"): in each
   nest that defines `B` -- a maximal run of the source order's sequence whose statements
   write `B`, within one iteration of the loops around it that redefine `B` -- no
   instance reads an element of `A` that another instance of the nest writes (other than
   by a copy). In-place reads (the element the instance itself writes) never restrict the
   order; a read of an element the nest only copies reads the same value before and after
   the renaming. The renaming then adds no dependence between the instances of a nest, so
   every parallel order of the nest stays legal: the reuse does not restrict parallelism.
   Dependences across nests are recomputed by the `dependences` pass after this one.

What is not done: storing `A` in `B`'s memory when `A` is the one that dies and `B` is
live-out (the caller's memory of `B` must hold the result); reuse of an array of another
shape; a `B` written by may-writes or under loop annotations (`independent` would hide
the dependences the renaming adds); PRA's reference counting (run-time sharing) is the
liveness above, decided at compile time.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional, Union

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import base_variable, descendants, strip_implicit_casts, transform
from clangpass.poly.affine import integer_constant
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.live_ranges import declared_elements
from clangpass.poly.scop import ArrayInfo, Scop, accesses_through, instances_of, statement_names
from clangpass.poly.validity import maps_of, union_of

UPDATE_IN_PLACE = "update-in-place"
IN_PLACE_FOLD = "in-place-fold"


@dataclass(frozen=True)
class StorageReuse:
    """One array now stored in another one's memory."""

    array: str                     # the array whose storage went away
    into: str                      # the array whose memory now holds its values
    technique: str                 # UPDATE_IN_PLACE (B built from A) or IN_PLACE_FOLD (A accumulated through B)
    removed: tuple[str, ...]       # the copy statements deleted
    bytes: Union[int, str]         # bytes of `array`: a number, or a C expression of the parameters


@dataclass(frozen=True)
class Reuse:
    """What `reuse_in_place` did to a Scop."""

    done: tuple[StorageReuse, ...] = ()
    kept: tuple[tuple[str, str, str, Union[int, str]], ...] = ()   # (array, into, why not, bytes)


@dataclass(frozen=True)
class _Copy:
    statement: str
    target: str
    source: str


def reuse_in_place(scop: Scop, max_operations: int = 0) -> tuple[Scop, Reuse]:
    """`scop` with every array that may live in another's memory stored there (see the module)."""
    done: list[StorageReuse] = []
    kept: dict[tuple[str, str], str] = {}
    tried: set[frozenset[str]] = set()
    ctx = scop.context.get_ctx()
    while True:
        pair = next((p for p in _candidate_pairs(scop) if frozenset(p) not in tried), None)
        if pair is None:
            break
        tried.add(frozenset(pair))
        reasons: list[tuple[str, str, str]] = []
        for drop, keep in _orders(scop, *pair):
            try:
                with isl_budget(ctx, max_operations, f"reuse of '{keep}' for '{drop}'"):
                    why = _why_not(scop, keep, drop)
                    if not why:
                        scop, reuse = _rewrite(scop, keep, drop)
            except BudgetExceeded as exc:
                why = str(exc)
            except isl.Error as exc:
                why = f"isl failed ({isl_error_reason(exc)})"
            if not why:
                done.append(reuse)
                break
            reasons.append((drop, keep, why))
        else:
            drop, keep, why = reasons[0]
            kept[(drop, keep)] = why
    merged = {r.array for r in done}
    return scop, Reuse(tuple(done), tuple((d, k, why, _bytes(scop, d)) for (d, k), why in kept.items()
                                          if d not in merged and k not in merged))


# ----------------------------------------------------------------------------- candidates
def _copies(scop: Scop) -> list[_Copy]:
    """The statements `T[x] = S[x]` of the region: one must-write and one read, of the same
    element of two arrays of one element type, the value the element itself."""
    out: list[_Copy] = []
    for s in scop.compute_statements:
        if s.opaque or not isinstance(s.body, N.ExprStmt):
            continue
        e = s.body.expr
        if not isinstance(e, N.Assign) or e.op != "=":
            continue
        value = strip_implicit_casts(e.value)
        target, source = base_variable(e.target), base_variable(value)
        if not isinstance(value, (N.Subscript, N.VarRef)) or target is None or source is None \
                or target.name == source.name:
            continue
        reads, writes = _maps(scop.reads, s.name), _maps(scop.must_writes, s.name)
        if len(reads) != 1 or len(writes) != 1 or _maps(scop.may_writes, s.name):
            continue
        if reads[0].get_tuple_name(isl.dim_type.out) != source.name or \
                writes[0].get_tuple_name(isl.dim_type.out) != target.name:
            continue
        try:
            a, b = scop.array(target.name), scop.array(source.name)
        except KeyError:
            continue
        if a.element.spelling() != b.element.spelling() or a.rank != b.rank or a.rank == 0:
            continue
        if not reads[0].set_tuple_name(isl.dim_type.out, target.name).is_equal(writes[0]):
            continue
        out.append(_Copy(s.name, target.name, source.name))
    return out


def _candidate_pairs(scop: Scop) -> list[tuple[str, str]]:
    """The pairs of arrays some copy joins, sorted."""
    return sorted({tuple(sorted((c.target, c.source))) for c in _copies(scop)})


def _orders(scop: Scop, a: str, b: str) -> list[tuple[str, str]]:
    """(array whose storage goes, array that keeps it) for the pair, the likelier first: a local
    array goes before a caller's, a dead one before a live-out one, one that something other
    than a copy writes (the new array of a step, the new accumulator) before one only copied to."""
    copied = {c.statement for c in _copies(scop)}

    def rank(name: str) -> tuple[bool, bool, bool, str]:
        info = scop.array(name)
        computed = not _without(accesses_through(scop.must_writes, frozenset({name})), copied).is_empty()
        return (not info.local, info.live_out, not computed, name)
    first, second = sorted((a, b), key=rank)
    return [(first, second), (second, first)]


# ----------------------------------------------------------------------------- conditions
def _why_not(scop: Scop, keep: str, drop: str) -> str:
    """Why `drop` cannot be stored in `keep`'s memory ('' if it can)."""
    kept, dropped = scop.array(keep), scop.array(drop)
    why = _shape_problem(scop, kept, dropped)
    if why:
        return why
    if kept.read_only:
        return f"'{keep}' is only read in the region (its memory may be read-only)"
    if dropped.live_out and not dropped.local:
        return f"'{drop}' is live after the region (its memory must hold its values)"
    names = frozenset({keep, drop})
    if not accesses_through(scop.may_writes, names).is_empty():
        return "conditionally written (may-writes)"
    touching = statement_names(accesses_through(scop.reads.union(scop.writes).union(scop.kills), names).domain())
    if any(scop.statement(s).opaque for s in touching):
        return "accessed by control flow the model runs whole"
    for note in scop.annotations:
        if set(note.statements) & touching or set(note.reductions) & names:
            return f"a '{note.kind}' loop annotation covers its statements"
    for s in statement_names(accesses_through(scop.must_writes, names).domain()):
        mine = accesses_through(_restricted(scop.must_writes, s), names)
        if len(maps_of(mine)) != 1 or not mine.is_single_valued():
            return f"statement {s} writes more than one element of '{keep}' or '{drop}'"
    if _enters(scop, drop):
        return f"values of '{drop}' enter the region"
    copies = [c for c in _copies(scop) if {c.target, c.source} == {keep, drop}]
    copied = {c.statement for c in copies}
    writes_drop = _without(accesses_through(scop.must_writes, frozenset({drop})), copied)   # { S[..] -> B[..] }
    writes_keep = _without(accesses_through(scop.must_writes, frozenset({keep})), copied)   # { S[..] -> A[..] }
    dates = scop.original_schedule.get_map()                                                # { S[..] -> [t..] }
    clobbered = _live_after(scop, _renamed(writes_drop, drop, keep), keep, dates)
    if not clobbered.is_empty():
        return f"'{drop}' is written where a value of '{keep}' is still read ({_first(clobbered)})"
    clobbered = _live_after(scop, _renamed(writes_keep, keep, drop), drop, dates)
    if not clobbered.is_empty():
        return f"'{keep}' is written where a value of '{drop}' is still read ({_first(clobbered)})"
    return _parallel_problem(scop, keep, drop, writes_keep, writes_drop)


def _shape_problem(scop: Scop, kept: ArrayInfo, dropped: ArrayInfo) -> str:
    """Why `dropped`'s elements cannot be addressed as `kept`'s ('' if they can)."""
    if kept.element.spelling() != dropped.element.spelling() or kept.rank != dropped.rank:
        return f"'{kept.name}' and '{dropped.name}' differ in element type or rank"
    if any(e is None for e in dropped.extents) or any(e is None for e in kept.extents[1:]):
        return "an extent is not known"
    for k in range(1, kept.rank):
        if not kept.extents[k].is_equal(dropped.extents[k]):
            return f"'{kept.name}' and '{dropped.name}' have rows of different extents"
    used = _renamed(accesses_through(scop.reads.union(scop.writes), frozenset({dropped.name})),
                    dropped.name, kept.name).range()                   # { A[e..] }
    if kept.extents[0] is not None:
        room = isl.UnionSet.from_set(declared_elements(scop, kept))
    else:
        room = accesses_through(scop.reads.union(scop.writes), frozenset({kept.name})).range()
    if not used.intersect_params(scop.context).is_subset(room):
        return f"'{dropped.name}' uses elements beyond those of '{kept.name}'"
    return ""


def _enters(scop: Scop, name: str) -> bool:
    """Whether some read of array `name` may read a value from before the region."""
    names = frozenset({name})
    reads = accesses_through(scop.reads, names)
    if reads.is_empty():
        return False
    flow = (isl.UnionAccessInfo.from_sink(reads).set_must_source(accesses_through(scop.must_writes, names))
            .set_kill(accesses_through(scop.kills, names)).set_schedule(scop.original_schedule).compute_flow())
    return not flow.get_may_no_source().intersect_params(scop.context).is_empty()


def _live_after(scop: Scop, points: isl.UnionMap, name: str, dates: isl.UnionMap) -> isl.UnionSet:
    """[P] -> { [x[..] -> X[e..]] }: the pairs of `points` ({ x[..] -> X[e..] }, X = `name`)
    after whose instance the value of X[e] is still read: the next access of X[e] in the
    source order (strictly after x: an instance reads before it writes) is a read, or there
    is none and X is the caller's (its values outlive the region)."""
    names = frozenset({name})
    reads = accesses_through(scop.reads, names)                         # { S[..] -> X[e..] }
    events = reads.union(accesses_through(scop.writes, names)).union(accesses_through(scop.kills, names))
    event_dates = events.domain_map().apply_range(dates)                # { [S[..] -> X[e..]] -> [t..] }
    point_dates = points.domain_map().apply_range(dates)                # { [x[..] -> X[e..]] -> [t..] }
    same = points.range_map().apply_range(events.range_map().reverse())   # { [x -> X[e]] -> [S -> X[e]] }
    after = same.intersect(point_dates.lex_lt_union_map(event_dates))
    next_date = after.apply_range(event_dates).lexmin()                 # { [x -> X[e]] -> [t..] }
    read_dates = points.range_map().apply_range(reads.reverse()).apply_range(dates)
    live = next_date.intersect(read_dates).domain()
    if not scop.array(name).local:
        live = live.union(points.wrap().subtract(after.domain()))
    return live.intersect_params(scop.context)


def _parallel_problem(scop: Scop, keep: str, drop: str, writes_keep: isl.UnionMap, writes_drop: isl.UnionMap) -> str:
    """Why storing `drop` in `keep` would order instances of a nest that defines them (PRA's
    criterion, see the module; '' if it would not)."""
    writers = statement_names(writes_drop.domain().union(writes_keep.domain()))
    if not writers:
        return ""
    all_drop = accesses_through(scop.must_writes, frozenset({drop}))
    # The merged accesses, all on `keep`'s elements: { S[..] -> A[e..] }.
    reads_keep = accesses_through(scop.reads, frozenset({keep}))
    reads_drop = _renamed(accesses_through(scop.reads, frozenset({drop})), drop, keep)
    new_keep = _renamed(writes_drop, drop, keep)            # non-copy writes of B, now of A
    new_drop = writes_keep                                  # non-copy writes of A, read through B before
    merged = _renamed(all_drop, drop, keep).union(writes_keep)     # { S[..] -> A[e..] }: every write that stays
    for prefix, statements in _nests(scop.original_schedule.get_root(), writers, merged):
        run = _restricted_many(all_drop, statements)
        written = _renamed(run, drop, keep).union(_restricted_many(writes_keep, statements))
        same = _same_iteration(prefix, written, instances_of(scop.domain, statements))
        if same is None:
            return f"a nest writes an element of '{drop}' more than once"
        conflict = (_restricted_many(reads_keep, statements).apply_range(_restricted_many(new_keep, statements).reverse())
                    .union(_restricted_many(reads_drop, statements).apply_range(
                        _restricted_many(new_drop, statements).reverse())))
        conflict = conflict.intersect(same).subtract(conflict.domain().identity()).intersect_params(scop.context)
        if not conflict.is_empty():
            return (f"an instance reads an element of '{keep}' or '{drop}' that another instance of the same nest "
                    f"overwrites ({_first(conflict)}): the reuse would order the nest")
    return ""


def _nests(node: isl.ScheduleNode, writers: frozenset[str], written: isl.UnionMap
           ) -> list[tuple[isl.UnionMap, frozenset[str]]]:
    """The nests of the source order that write through `writers`: (prefix schedule { S[..] ->
    [outer loops] }, statements). A sequence whose children hold writers in more than one
    child splits them into runs of consecutive children (a child without writers, a kill,
    ends a run), and a run ends too before a child that writes an element the run wrote in
    the same iteration of the loops around it: `B = A; B[k] = f(B[k]); C = g(B)` are three
    definitions, as SAC's three WITH-loops (`written`: { S[..] -> A[e..] }, the writes)."""
    names = statement_names(_instances(node))
    if not names & writers:
        return []
    kind = node.get_type()
    if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        children = [node.child(k) for k in range(node.n_children())]
        held = [statement_names(_instances(c)) for c in children]
        holding = [k for k in range(len(children)) if held[k] & writers]
        if len(holding) == 1:
            return _nests(children[holding[0]], writers, written)
        prefix = node.get_prefix_schedule_union_map()
        same = prefix.apply_range(prefix.reverse())                         # { S[..] -> T[..] }: one iteration
        runs: list[list[int]] = []
        for k in holding:
            if runs and (runs[-1][-1] == k - 1 or kind == isl.schedule_node_type.set):
                mine = _restricted_many(written, frozenset().union(*(held[j] for j in runs[-1])))
                theirs = _restricted_many(written, held[k])
                if mine.apply_range(theirs.reverse()).intersect(same).is_empty():
                    runs[-1].append(k)
                    continue
            runs.append([k])
        # A run of one child is that child's own nests, as when only one child holds writers
        # (a fold after an unrelated nest is still a fold).
        return [nest for run in runs
                for nest in (_nests(children[run[0]], writers, written) if len(run) == 1
                             else [(prefix, frozenset().union(*(held[k] for k in run)))])]
    if kind == isl.schedule_node_type.leaf:
        return [(node.get_prefix_schedule_union_map(), names)]
    return _nests(node.child(0), writers, written)


def _instances(node: isl.ScheduleNode) -> isl.UnionSet:
    """[P] -> { S[..] }: the instances the subtree of `node` runs."""
    if node.get_type() == isl.schedule_node_type.domain:
        return node.domain_get_domain()
    domain = node.get_domain()
    if node.get_type() == isl.schedule_node_type.filter:
        domain = domain.intersect(node.filter_get_filter())
    return domain


def _same_iteration(prefix: isl.UnionMap, written: isl.UnionMap, instances: isl.UnionSet) -> Optional[isl.UnionMap]:
    """{ S[..] -> T[..] }: the pairs of instances in one iteration of the outermost loops of
    `prefix` within which the nest writes each element once (the loops around it that
    redefine the array: the step loop of LU, the fold loop); None if there are none."""
    maps = maps_of(prefix)
    depth = min((m.dim(isl.dim_type.out) for m in maps), default=0)
    for d in range(depth + 1):
        outer = union_of([m.project_out(isl.dim_type.out, d, m.dim(isl.dim_type.out) - d) for m in maps],
                         prefix.get_space()).intersect_domain(instances)
        same = outer.apply_range(outer.reverse())                           # { S[..] -> T[..] }
        twice = written.apply_range(written.reverse()).intersect(same).subtract(written.domain().identity())
        if twice.is_empty():
            return same
    return None


# ----------------------------------------------------------------------------- rewriting
def _rewrite(scop: Scop, keep: str, drop: str) -> tuple[Scop, StorageReuse]:
    """`scop` with `drop`'s accesses on `keep`, the identity copies deleted and the kills that
    would now kill a live value of either array dropped."""
    dates = scop.original_schedule.get_map()
    copies = [c for c in _copies(scop) if {c.target, c.source} == {keep, drop}]
    kills_keep = accesses_through(scop.kills, frozenset({keep}))                 # { K[..] -> A[..] }
    kills_drop = _renamed(accesses_through(scop.kills, frozenset({drop})), drop, keep)
    # A kill of one array's element survives where the other array's element is dead too.
    live_drop = _renamed(_live_after(scop, _renamed(kills_keep, keep, drop), drop, dates).unwrap(), drop, keep)
    merged_kills = (kills_keep.wrap().subtract(live_drop.wrap())
                    .union(kills_drop.wrap().subtract(_live_after(scop, kills_drop, keep, dates))).unwrap())
    # Elements the region never accesses hold no value it reads: their kills say nothing.
    used = accesses_through(scop.reads.union(scop.writes), frozenset({keep, drop}))
    merged_kills = merged_kills.intersect_range(_renamed(used, drop, keep).range())
    kills = accesses_through(scop.kills, frozenset({keep, drop}), inside=False).union(merged_kills)
    killing = statement_names(kills.domain())
    reference = _reference(scop, keep)
    removed = frozenset(c.statement for c in copies)
    statements = []
    for s in scop.statements:
        if s.name in removed or (s.kind == "kill" and s.name not in killing):
            continue
        body = s.body if s.body is None else transform(
            s.body, lambda n: reference if isinstance(n, N.VarRef) and n.name == drop else n)
        statements.append(replace(s, body=body))
    remaining = isl.UnionSet.empty(scop.context.get_space())
    compute = remaining
    for s in statements:
        remaining = remaining.union(isl.UnionSet.from_set(s.domain))
        if s.kind == "compute":
            compute = compute.union(isl.UnionSet.from_set(s.domain))
    gone = isl.UnionSet.empty(scop.context.get_space())
    for s in scop.statements:
        if s.name in removed:
            gone = gone.union(isl.UnionSet.from_set(s.domain))
    arrays = tuple(replace(a, killed=not accesses_through(kills, frozenset({keep})).is_empty(),
                           live_out=a.live_out or scop.array(drop).live_out, read_only=False)
                   if a.name == keep else a for a in scop.arrays if a.name != drop)
    locals_ = tuple(d for d in scop.locals if d.name != drop)
    original = scop.original_schedule.intersect_domain(remaining)
    annotations = tuple(replace(a, statements=tuple(s for s in a.statements if s not in removed))
                        for a in scop.annotations)
    result = scop.with_model(
        statements=tuple(statements), arrays=arrays, locals=locals_,
        reads=_renamed(scop.reads.subtract_domain(gone), drop, keep),
        must_writes=_renamed(scop.must_writes.subtract_domain(gone), drop, keep),
        may_writes=scop.may_writes.subtract_domain(gone), kills=kills,
        original_schedule=original, schedule=original.intersect_domain(compute), annotations=annotations)
    technique = UPDATE_IN_PLACE if any(c.target == drop for c in copies) else IN_PLACE_FOLD
    return result, StorageReuse(drop, keep, technique, tuple(sorted(removed, key=_statement_index)), _bytes(scop, drop))


def _reference(scop: Scop, name: str) -> N.VarRef:
    """A use of variable `name` as the region's statements write it."""
    for s in scop.compute_statements:
        for node in descendants(s.body):
            if isinstance(node, N.VarRef) and node.name == name:
                return node
    raise KeyError(name)


def _statement_index(name: str) -> tuple[str, int]:
    prefix, _, number = name.partition("_")
    return prefix, int(number) if number.isdigit() else -1


# ----------------------------------------------------------------------------- isl helpers
def _maps(umap: isl.UnionMap, statement: str) -> list[isl.Map]:
    return [m for m in maps_of(umap) if m.get_tuple_name(isl.dim_type.in_) == statement]


def _restricted(umap: isl.UnionMap, statement: str) -> isl.UnionMap:
    return union_of(_maps(umap, statement), umap.get_space())


def _restricted_many(umap: isl.UnionMap, statements: frozenset[str]) -> isl.UnionMap:
    return union_of([m for m in maps_of(umap) if m.get_tuple_name(isl.dim_type.in_) in statements], umap.get_space())


def _without(umap: isl.UnionMap, statements: set[str]) -> isl.UnionMap:
    return union_of([m for m in maps_of(umap) if m.get_tuple_name(isl.dim_type.in_) not in statements],
                    umap.get_space())


def _renamed(umap: isl.UnionMap, old: str, new: str) -> isl.UnionMap:
    """`umap` with the range tuple `old` renamed `new`."""
    return union_of([m.set_tuple_name(isl.dim_type.out, new) if m.get_tuple_name(isl.dim_type.out) == old else m
                     for m in maps_of(umap)], umap.get_space())


def _first(uset: Union[isl.UnionSet, isl.UnionMap]) -> str:
    """One piece of `uset` as text, for a reason."""
    pieces: list[str] = []
    if isinstance(uset, isl.UnionMap):
        uset.foreach_map(lambda m: pieces.append(str(m.coalesce())))
    else:
        uset.foreach_set(lambda s: pieces.append(str(s.coalesce())))
    return sorted(pieces)[0] if pieces else ""


def _bytes(scop: Scop, name: str) -> Union[int, str]:
    """The bytes of array `name`: a number, or a C expression of the parameters ('' if unknown)."""
    info = scop.array(name) if any(a.name == name for a in scop.arrays) else None
    if info is None or any(e is None for e in info.extents):
        return ""
    size = getattr(info.element, "bits", 0) // 8
    constants = [integer_constant(e) for e in info.extents]
    if all(c is not None for c in constants):
        return size * math.prod(constants)
    texts = []
    for e in info.extents:
        build = isl.AstBuild.from_context(isl.Set.universe(e.get_domain_space()))
        texts.append(f"({build.expr_from_pw_aff(e).to_C_str()})")
    return " * ".join(texts + [str(size)])
