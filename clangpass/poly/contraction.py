# SPDX-License-Identifier: MIT
"""Array contraction by modular mappings: storage of the size of an array's conflict set.

Darte, Isoard & Yuki, "Extended lattice-based memory allocation" (RR-8840, 2015).
Input: a `Scop`. Output: the same region with each array whose values die inside it
folded onto a box at the origin of its own storage, every access `T[f]` rewritten
`T[f mod b]` in the IR bodies and in the isl access relations together
(`Contraction` says what was done, and why the other written arrays were kept).

Conflict set (paper section 3.1), computed with respect to the source order (the
original schedule, sequential and total): the live range of element `a` of `T` runs
from its first write to its last access, and two elements conflict when their live
ranges overlap, i.e. unless every access of one precedes every write of the other
(`conflict_relation`: access and write dates, `lex_ge`, in isl). Its conflicting
differences `DS = { a - b : a conflicts with b }` (`conflict_differences`) are
0-symmetric, which is all Theorem 1 needs.

Modular mapping (sections 3.2 and 4.1, Heuristic 1 on the canonical basis: the
"successive modulo" of Lefebvre and Feautrier): along an order of the dimensions,
`b_k = 1 + max { x_k : x in DS, x_j = 0 for the dimensions j before k }`
(`successive_moduli`), the full extent when that maximum is unbounded or reaches the
extent. Every order of the dimensions is tried (the paper's remark after Theorem 1;
rank <= 4) and the smallest mapping kept (`choose_moduli`). Only constant moduli are
used: `x mod n` with a parameter `n` is not quasi-affine, so a dimension whose width
is parametric keeps its extent. General bases (section 4.1, `general_mappings`): rows
among small primitive integer vectors, greedy by width and once per first row, kept when
strictly smaller than the canonical orders; every mapping is checked in isl
(`mapping_is_valid`) before it is used, and a row `v . f` that may be negative is
indexed `((v . f) % b + b) % b` in C. Not implemented: the optimised bases of section
4.1.1 (Farkas), the lattice-space Heuristic 2 of section 4.2 and their combination (4.3)
(docs/passes/contract-arrays.md).

Candidates: region-local arrays, and caller arrays passed by address whose values
neither enter the region (every read has a source write in it, or reads a value
killed before: `live_ranges.reads_values_from_entry`) nor leave it (`ArrayInfo.live_out`
false: every written element killed after its last write). Kept as they are: arrays
written by may-writes (a write that does not happen would leave another element's
value to be read), arrays named by a reduction clause or accessed in an `independent`
/ `ivdep` loop (the conflict set is the source order's; such a loop may run its
iterations in any order), arrays with an unknown extent or used other than through
full subscripts, and caller arrays whose outermost dimension does not fold.

Storage: the box `[0, b_1) x ... x [0, b_n)` of the array's own storage, so nothing is
allocated. A caller array keeps its C type (row strides); with its outermost dimension
folded the box is a prefix of the caller's memory, and the rest of it is never touched
(its pages never resident). A region-local array's declaration gets the reduced extents.
The reuse becomes ordinary anti and output dependences, which `dependences` computes
from the rewritten accesses: every later pass sees the contracted model.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Optional, Union

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import descendants, strip_casts, transform
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.live_ranges import declared_elements, reads_values_from_entry
from clangpass.poly.jam_expansion import JAM_PREFIX
from clangpass.poly.scop import ArrayInfo, Scop, accesses_through, statement_names
from clangpass.poly.validity import COINCIDENT_MARK, PARALLEL_MARK, VECTOR_MARK

# Dimensions up to which every order of them is tried (4! = 24 orders).
MAX_PERMUTED_RANK = 4

# Marks whose band's iterations the back ends may run in any order: on threads, as work-items,
# interleaved by the vectoriser (clangpass.poly.validity).
UNORDERED_MARKS = frozenset({PARALLEL_MARK, VECTOR_MARK, COINCIDENT_MARK})

Bytes = Union[int, str]   # a byte count: a number, or a C expression of the parameters


# Why an array whose values leave the region keeps its memory: the ordinary case of every
# output array, which -Rpass-missed does not report (clangpass.report).
LIVE_OUT = "live-out: its values leave the region"


@dataclass(frozen=True)
class ContractedArray:
    """One array folded onto the box of its moduli."""

    name: str
    moduli: tuple[Optional[int], ...]     # per dimension, b_k (None: the full extent, no folding)
    bytes_before: Bytes
    bytes_after: Bytes
    mapping: str                          # `A[t mod 2][i]`, for dumps and remarks
    # A mapping along general vectors: per storage position, (v, b) (`moduli` then holds the
    # sizes b, None where a unit row keeps its extent); () for the canonical form `moduli` says.
    rows: tuple = ()


@dataclass(frozen=True)
class Contraction:
    """What `contract_arrays` did to a Scop."""

    arrays: tuple[ContractedArray, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()     # (array, why not contracted) for written arrays
    technique: str = "contract"                # the record's name for it ("contract-scheduled")
    # Arrays of `kept` that were no candidates at all (their kind or use: `_unsuitable`, values
    # entering the region, storage folded already), their conflict set not computed.
    screened: frozenset[str] = frozenset()

    @property
    def storage(self) -> tuple[dict, ...]:
        """The record's `storage` entries: one per written array, in name order."""
        # The one shape of the record's `storage` entries, shared with reuse-in-place's.
        out = [{"array": a.name, "bytes_before": a.bytes_before, "bytes_after": a.bytes_after,
                "technique": self.technique, "why_not": "", "into": "", "mapping": a.mapping} for a in self.arrays]
        out += [{"array": name, "bytes_before": "", "bytes_after": "", "technique": "", "why_not": why,
                 "into": "", "mapping": ""} for name, why in self.kept]
        return tuple(sorted(out, key=lambda e: e["array"]))


# ----------------------------------------------------------------------------- conflict set
def conflict_relation(scop: Scop, name: str, unordered: Optional[isl.UnionMap] = None) -> isl.UnionMap:
    """[P] -> { T[a..] -> T[b..] }: the elements of array `name` whose live ranges overlap (paper
    section 3.1): some access of `a` is not known to precede some write of `b`, and some access of
    `b` not known to precede some write of `a`. Without `unordered`, in the source order (total:
    an access not before a write is at or after it); with it, in the partial order whose
    complement it is ({ S[i..] -> S'[j..] }: the instance pairs not run one before the other
    for sure, `scheduled_disorder`)."""
    names = frozenset({name})
    reads = accesses_through(scop.reads, names)                        # [P] -> { S[i..] -> T[a..] }
    writes = accesses_through(scop.writes, names)                      # [P] -> { S[i..] -> T[a..] }
    uses = reads.union(writes)
    if unordered is None:
        dates = scop.original_schedule.get_map()                      # [P] -> { S[i..] -> [t..] }
        written_at = writes.reverse().apply_range(dates)               # [P] -> { T[a..] -> [t..] }
        used_at = uses.reverse().apply_range(dates)                    # [P] -> { T[a..] -> [t..] }
        overlap = used_at.lex_ge_union_map(written_at)                 # [P] -> { T[a..] -> T[b..] }
    else:
        overlap = uses.reverse().apply_range(unordered).apply_range(writes)  # { T[a..] -> T[b..] }
    return overlap.intersect(overlap.reverse()).intersect_params(scop.context)


def conflict_differences(scop: Scop, array: ArrayInfo, unordered: Optional[isl.UnionMap] = None) -> isl.Set:
    """[P] -> { [x..] }: the conflicting differences DS of `array` (0-symmetric; empty when no
    two elements' live ranges overlap, not even an element with itself: nothing is read)."""
    deltas = conflict_relation(scop, array.name, unordered).deltas()    # [P] -> { T[x..] }
    space = isl.Space.set_alloc(scop.context.get_ctx(), 0, array.rank).align_params(scop.context.get_space())
    out = isl.Set.empty(space)
    pieces: list[isl.Set] = []
    deltas.foreach_set(pieces.append)
    for piece in pieces:
        out = out.union(piece.reset_tuple_id().align_params(space))
    return out.coalesce()


# ----------------------------------------------------------------------------- the final schedule's order
class UnsupportedTree(Exception):
    """A schedule tree node whose order `scheduled_order` does not model (expansion, extension)."""


def _flat_dims(schedule: isl.Schedule) -> list[tuple[isl.UnionMap, tuple[bool, ...]]]:
    """Per leaf of `schedule`: [P] -> { S[i..] -> [d..] } (its instances' dates: band members and
    sequence positions, outermost first) and per date dimension whether its iterations may run
    in any order (a band member under a `parallel`, `vector` or `coincident` mark, a `set`)."""
    leaves: list[tuple[isl.UnionMap, tuple[bool, ...]]] = []
    ctx = schedule.get_ctx()

    def constant(instances: isl.UnionSet, k: int) -> isl.UnionMap:
        # { S[i..] -> [k] } over `instances`
        position = isl.Set(f"{{ [{k}] }}", context=ctx)
        return isl.UnionMap.from_domain_and_range(instances, isl.UnionSet.from_set(position))

    def visit(node: isl.ScheduleNode, maps: list[isl.UnionMap], flags: list[bool], marked: bool) -> None:
        kind = node.get_type()
        if kind == isl.schedule_node_type.leaf:
            instances = node.get_domain()
            flat = isl.UnionMap.from_domain_and_range(instances, isl.UnionSet.from_set(isl.Set("{ [] }", context=ctx)))
            for m in maps:
                flat = flat.flat_range_product(m.intersect_domain(instances))
            # Coalesced here, the joins of `scheduled_order` and the coalescing of their union
            # work on the simpler dates (doitgen's tile dates, with their `mod` divisions:
            # scheduled_order 0.12 s -> 0.06 s).
            leaves.append((flat.coalesce(), tuple(flags)))
        elif kind == isl.schedule_node_type.band:
            members = node.band_n_member()
            if members:
                maps = maps + [node.band_get_partial_schedule_union_map()]
                flags = flags + [marked] * members
            visit(node.child(0), maps, flags, False)
        elif kind == isl.schedule_node_type.mark:
            visit(node.child(0), maps, flags, marked or node.mark_get_id().get_name() in UNORDERED_MARKS)
        elif kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            for k in range(node.n_children()):
                child = node.child(k)
                visit(child, maps + [constant(child.get_domain(), k)],
                      flags + [kind == isl.schedule_node_type.set], False)
        elif kind in (isl.schedule_node_type.expansion, isl.schedule_node_type.extension):
            raise UnsupportedTree("the final schedule tree has an expansion or extension node")
        else:   # domain, filter, context, guard: no date of their own
            for k in range(node.n_children()):
                visit(node.child(k), maps, flags, marked)

    visit(schedule.get_root(), [], [], False)
    return leaves


def _padded_dates(schedule: isl.Schedule) -> tuple[isl.UnionMap, list[tuple[isl.UnionMap, tuple[bool, ...]]], int]:
    """([P] -> { S[i..] -> [d..] } all instances' dates, per leaf its dates and flags as in
    `_flat_dims`, the depth): every leaf's dates padded with zeros to the deepest leaf's (a
    sequence position already separates a shallower leaf from every deeper one)."""
    leaves = _flat_dims(schedule)
    depth = max((len(flags) for _, flags in leaves), default=0)
    ctx = schedule.get_ctx()
    padded: list[tuple[isl.UnionMap, tuple[bool, ...]]] = []
    for flat, flags in leaves:
        rest = depth - len(flags)
        if rest:
            zeros = isl.Set("{ [" + ", ".join("0" for _ in range(rest)) + "] }", context=ctx)
            flat = flat.flat_range_product(isl.UnionMap.from_domain_and_range(flat.domain(),
                                                                              isl.UnionSet.from_set(zeros)))
        padded.append((flat, flags + (False,) * rest))
    dates = isl.UnionMap.empty(schedule.get_domain().get_space())      # [P] -> { S[i..] -> [d..] }
    for flat, _ in padded:
        dates = dates.union(flat)
    return dates, padded, depth


def _first_difference(ctx: isl.Context, depth: int, k: int, op: str) -> isl.Map:
    """{ [d..] -> [e..] }: the date pairs that first differ in dimension k, `d_k op e_k` there."""
    names = [f"d{j}" for j in range(depth)]
    primed = [f"e{j}" for j in range(depth)]
    equal = " and ".join([f"{a} = {b}" for a, b in zip(names[:k], primed[:k])] + [f"{names[k]} {op} {primed[k]}"])
    return isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(primed)}] : {equal} }}", context=ctx)


def scheduled_order(schedule: isl.Schedule) -> isl.UnionMap:
    """[P] -> { S[i..] -> S'[j..] }: the instance pairs that `schedule` runs one before the other
    whatever the threads and the vectoriser do: their dates first differ in a dimension whose
    iterations run in order, the first one's smaller there. Dates that first differ in a
    parallel loop, a vector loop or a `set` are unordered (the paper's section 3.1: the conflict
    set of a parallel schedule)."""
    dates, padded, depth = _padded_dates(schedule)
    ctx = schedule.get_ctx()
    precedes = isl.UnionMap.empty(schedule.get_domain().get_space())
    for k in range(depth):
        ordered = isl.UnionMap.empty(schedule.get_domain().get_space())
        for flat, flags in padded:
            if not flags[k]:
                ordered = ordered.union(flat)
        if ordered.is_empty():
            continue
        later = _first_difference(ctx, depth, k, "<")
        # { S[i..] -> S'[j..] }: first different date dimension k, ordered there
        precedes = precedes.union(ordered.apply_range(isl.UnionMap.from_map(later)).apply_range(dates.reverse()))
    return precedes.coalesce()


def scheduled_disorder(schedule: isl.Schedule) -> isl.UnionMap:
    """[P] -> { S[i..] -> S'[j..] }: the instance pairs of `schedule`'s domain that it does not
    run one before the other for sure, the complement of `scheduled_order` among them: dates
    equal, first different in an ordered dimension with the first one's larger there, or first
    different in a dimension whose iterations run in any order. Built from the dates directly
    (one join per pattern of unordered dimensions), which costs less than subtracting
    `scheduled_order` from all pairs (doitgen: 0.13 s -> 0.06 s with the conflict relation).
    The flags of the first instance's leaf decide: two leaves first differ at a dimension of a
    common ancestor, whose flags they share."""
    dates, padded, depth = _padded_dates(schedule)
    ctx = schedule.get_ctx()
    space = schedule.get_domain().get_space()
    by_flags: dict[tuple[bool, ...], isl.UnionMap] = {}
    for flat, flags in padded:
        by_flags[flags] = by_flags.get(flags, isl.UnionMap.empty(space)).union(flat)
    out = isl.UnionMap.empty(space)
    for flags, flat in by_flags.items():
        # { [d..] -> [e..] }: d lexicographically at or after e, or first different in an
        # unordered dimension
        loose = isl.Map.lex_ge(isl.Space.set_alloc(ctx, 0, depth))
        for k in range(depth):
            if flags[k]:
                loose = loose.union(_first_difference(ctx, depth, k, "<"))
        out = out.union(flat.apply_range(isl.UnionMap.from_map(loose.coalesce())).apply_range(dates.reverse()))
    return out


# ----------------------------------------------------------------------------- moduli
def successive_moduli(differences: isl.Set, order: tuple[int, ...]) -> tuple[Optional[int], ...]:
    """Heuristic 1 on the canonical basis taken in `order` (Lefebvre-Feautrier's successive
    modulo): per dimension, 1 + the largest difference along it among the conflicting
    differences that are 0 on the dimensions before it (None: unbounded, over every value of
    the parameters). Indexed by dimension, not by position in `order`."""
    moduli: list[Optional[int]] = [None] * differences.dim(isl.dim_type.set)
    rest = differences
    for k in order:
        if rest.is_empty():
            moduli[k] = 1
        else:
            top = rest.dim_max_val(k)
            moduli[k] = None if top.is_infty() or top.is_nan() else top.to_python() + 1
        rest = rest.fix_val(isl.dim_type.set, k, isl.Val.int_from_si(rest.get_ctx(), 0))
    return tuple(moduli)


def _capped(moduli: tuple[Optional[int], ...], extents: tuple[Optional[int], ...]) -> tuple[Optional[int], ...]:
    """`moduli` with those that do not shrink a dimension of constant extent set to None."""
    return tuple(None if b is None or (e is not None and b >= e) else max(b, 1) for b, e in zip(moduli, extents))


def _size_key(moduli: tuple[Optional[int], ...], extents: tuple[Optional[int], ...], outer_first: bool):
    """What `choose_moduli` minimises: (outermost dimension unfolded, when `outer_first`;
    parametric extents kept; product of the constant sizes)."""
    parametric = sum(1 for b, e in zip(moduli, extents) if b is None and e is None)
    constant = math.prod(b if b is not None else (e if e is not None else 1) for b, e in zip(moduli, extents))
    return ((moduli[0] is None) if outer_first else False, parametric, constant)


def choose_moduli(differences: isl.Set, extents: tuple[Optional[int], ...],
                  outer_first: bool = False) -> tuple[Optional[int], ...]:
    """The smallest successive-modulo mapping over every order of the dimensions (rank <= 4, else
    the source order only): per dimension its modulus, None where the dimension keeps its extent
    (`extents`: constant extents, None for parametric ones). `outer_first` prefers a mapping that
    folds the outermost dimension (a caller array: then the box is a prefix of its memory)."""
    rank = len(extents)
    orders = itertools.permutations(range(rank)) if rank <= MAX_PERMUTED_RANK else [tuple(range(rank))]
    best: Optional[tuple[Optional[int], ...]] = None
    for order in orders:
        moduli = _capped(successive_moduli(differences, order), extents)
        if best is None or _size_key(moduli, extents, outer_first) < _size_key(best, extents, outer_first):
            best = moduli
    return best if best is not None else tuple(None for _ in extents)


# ----------------------------------------------------------------------------- general bases
# Rows of a general mapping: (integer vector v, modulus b); b None only for a unit vector e_k at
# storage position k (the dimension keeps its extent). Storage position k holds row k's residue.
Row = tuple[tuple[int, ...], Optional[int]]

# Largest coefficient of the candidate rows, per rank (primitive vectors, first nonzero positive).
GENERAL_COEFFICIENTS = {2: 2, 3: 1}


def candidate_vectors(rank: int, bound: int) -> list[tuple[int, ...]]:
    """The primitive integer vectors with coefficients in [-bound, bound], first nonzero
    coefficient positive (v and -v give the same widths), unit vectors first, then by L1 norm."""
    out = []
    for v in itertools.product(range(-bound, bound + 1), repeat=rank):
        nonzero = [c for c in v if c]
        if not nonzero or nonzero[0] < 0 or math.gcd(*[abs(c) for c in nonzero]) != 1:
            continue
        out.append(v)
    return sorted(out, key=lambda v: (sum(1 for c in v if c) != 1, sum(abs(c) for c in v), [-c for c in v]))


def _rank_of(vectors: list[tuple[int, ...]]) -> int:
    """The rank of integer `vectors` (fraction-free Gaussian elimination)."""
    rows = [list(v) for v in vectors]
    rank = 0
    columns = len(rows[0]) if rows else 0
    for col in range(columns):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][col]:
                a, b = rows[rank][col], rows[r][col]
                rows[r] = [a * x - b * y for x, y in zip(rows[r], rows[rank])]
        rank += 1
    return rank


def _dot(v: tuple[int, ...], names: list[str]) -> str:
    """`v . x` over the variables `names`, as isl text."""
    terms = [f"{c}*{x}" for c, x in zip(v, names) if c]
    return " + ".join(terms) if terms else "0"


def _along(differences: isl.Set, v: tuple[int, ...]) -> isl.Set:
    """[P] -> { [v . x] : x in differences }."""
    names = [f"x{k}" for k in range(len(v))]
    proj = isl.Map(f"{{ [{', '.join(names)}] -> [{_dot(v, names)}] }}", context=differences.get_ctx())
    return differences.apply(proj.align_params(differences.get_space()))


def width(differences: isl.Set, v: tuple[int, ...]) -> Optional[int]:
    """max { v . x : x in differences } over every value of the parameters (None: unbounded;
    0 when `differences` is empty)."""
    if differences.is_empty():
        return 0
    top = _along(differences, v).dim_max_val(0)
    return None if top.is_infty() or top.is_nan() else max(top.to_python(), 0)


def _orthogonal(differences: isl.Set, v: tuple[int, ...]) -> isl.Set:
    """`differences` restricted to v . x = 0."""
    names = [f"x{k}" for k in range(len(v))]
    plane = isl.Set(f"{{ [{', '.join(names)}] : {_dot(v, names)} = 0 }}", context=differences.get_ctx())
    return differences.intersect(plane.align_params(differences.get_space()))


def _complete(differences: isl.Set, chosen: list[Row], candidates: list[tuple[int, ...]]) -> list[Row]:
    """Heuristic 1 (section 4.1) from the rows `chosen`: each next row the candidate, linearly
    independent of the rows so far, of smallest constant width over the differences orthogonal
    to them (modulus: the width + 1). When no candidate has a constant width the rest are unit
    vectors that keep their dimension's extent (modulus None)."""
    rows = list(chosen)
    rest = differences
    for v, _ in rows:
        rest = _orthogonal(rest, v)
    rank = len(candidates[0])
    while len(rows) < rank:
        vectors = [v for v, _ in rows]
        best: Optional[tuple[int, tuple[int, ...]]] = None
        for v in candidates:
            if _rank_of(vectors + [v]) <= len(vectors):
                continue
            w = width(rest, v)
            if w is not None and (best is None or w < best[0]):
                best = (w, v)
                if w == 0:
                    break
        if best is None:
            # Unbounded along every direction left: keep extents along unit vectors, the innermost
            # first (the outer positions are then the folded ones: a caller array's box is a prefix
            # of its storage only when its outermost dimension folds).
            for k in reversed(range(rank)):
                e = tuple(int(j == k) for j in range(rank))
                if len(rows) < rank and _rank_of([v for v, _ in rows] + [e]) > len(rows):
                    rows.append((e, None))
            break
        rows.append((best[1], best[0] + 1))
        rest = _orthogonal(rest, best[1])
    return rows


def _placed(rows: list[Row]) -> Optional[tuple[Row, ...]]:
    """`rows` in storage positions: a kept-extent row e_k at position k, the others in their
    order in the positions left (None when two kept rows want one position)."""
    rank = len(rows)
    out: list[Optional[Row]] = [None] * rank
    for v, b in rows:
        if b is None:
            k = v.index(1)
            if out[k] is not None:
                return None
            out[k] = (v, b)
    free = [k for k in range(rank) if out[k] is None]
    for row, k in zip([r for r in rows if r[1] is not None], free):
        out[k] = row
    return tuple(out)   # type: ignore[arg-type]


def general_mappings(differences: isl.Set) -> list[tuple[Row, ...]]:
    """Mappings along general integer vectors (section 4.1, Heuristic 1 with the basis chosen
    among small primitive vectors, `GENERAL_COEFFICIENTS`): the greedy one (each row the
    smallest width), and, since that greedy choice misses the reverse L's hole along (1, 1)
    (the paper's Fig. 2), one per first row of constant width, completed greedily (the
    combination of section 4.3 looks for the mapping row orthogonal to a short reuse vector;
    trying every first row finds it among the candidates). Rows in storage positions."""
    rank = differences.dim(isl.dim_type.set)
    if rank not in GENERAL_COEFFICIENTS or differences.is_empty():
        return []
    candidates = candidate_vectors(rank, GENERAL_COEFFICIENTS[rank])
    found = [_complete(differences, [], candidates)]
    for v in candidates:
        w = width(differences, v)
        if w is not None:
            found.append(_complete(differences, [(v, w + 1)], candidates))
    out = []
    for rows in found:
        placed = _placed(rows)
        if placed is not None and placed not in out:
            out.append(placed)
    return out


def is_canonical(rows: tuple[Row, ...]) -> bool:
    """Row k is the unit vector e_k for every k (Lefebvre-Feautrier's mapping form)."""
    return all(v == tuple(int(j == k) for j in range(len(v))) for k, (v, _) in enumerate(rows))


def canonical_rows(moduli: tuple[Optional[int], ...]) -> tuple[Row, ...]:
    rank = len(moduli)
    return tuple((tuple(int(j == k) for j in range(rank)), b) for k, b in enumerate(moduli))


def mapping_is_valid(differences: isl.Set, rows: tuple[Row, ...], context: Optional[isl.Set] = None) -> bool:
    """No nonzero conflicting difference maps to all-zero residues: `(v_k . x) mod b_k = 0` for
    every row with a modulus and `v_k . x = 0` for the others (isl's mod: floor-based)."""
    rank = len(rows)
    names = [f"x{k}" for k in range(rank)]
    zero = [f"({_dot(v, names)}) mod {b} = 0" if b is not None else f"{_dot(v, names)} = 0" for v, b in rows]
    nonzero = " or ".join(f"{x} < 0 or {x} > 0" for x in names)
    bad = isl.Set(f"{{ [{', '.join(names)}] : {' and '.join(zero)} and ({nonzero}) }}", context=differences.get_ctx())
    bad = differences.intersect(bad.align_params(differences.get_space()))
    if context is not None:
        bad = bad.intersect_params(context.align_params(bad.get_space()))
    return bad.is_empty()


def _fits(scop: Scop, array: ArrayInfo, sizes: tuple[Optional[int], ...]) -> bool:
    """Each constant size is at most its dimension's extent for every value of the parameters (a
    caller array keeps its row strides: the box must lie in its storage)."""
    for size, extent in zip(sizes, array.extents):
        if size is None:
            continue
        if extent is None:
            return False
        too_small = extent.lt_set(isl.PwAff.val_on_domain(extent.domain(), isl.Val.int_from_si(extent.get_ctx(), size)))
        if not too_small.intersect_params(scop.context.align_params(too_small.get_space())).is_empty():
            return False
    return True


def _choose_mapping(scop: Scop, array: ArrayInfo, differences: isl.Set, extents: tuple[Optional[int], ...],
                    general_bases: bool) -> tuple[tuple[Optional[int], ...], Optional[tuple[Row, ...]]]:
    """(sizes per storage position, rows) of the smallest valid mapping among the canonical orders
    (`choose_moduli`) and, with `general_bases`, the general bases (`general_mappings`); a general
    one only when it is strictly smaller (and, for a caller array, its box lies in the caller's
    storage). Rows None: the mapping failed `mapping_is_valid`.

    General bases only against the final schedule (`contract-scheduled`): in the source order a
    skewed mapping (`T[(t - i) mod 17]` for a time-expanded row) reuses cells across iterations
    of a loop the scheduler would run in parallel, and the dependences that reuse adds take the
    parallelism away; against the final schedule, parallel and vector loops are unordered in the
    conflict set, so no mapping it allows can cost one."""
    outer_first = not array.local
    moduli = choose_moduli(differences, extents, outer_first=outer_first)
    best: tuple[tuple[Optional[int], ...], tuple[Row, ...]] = (moduli, canonical_rows(moduli))
    if any(b is not None for b in moduli) and not mapping_is_valid(differences, best[1], scop.context):
        return moduli, None
    try:
        general = general_mappings(differences) if general_bases else []
    except isl.Error:
        # An optional search: on an isl failure the canonical mapping stands.
        general = []
    for rows in general:
        if is_canonical(rows):
            continue
        sizes = tuple(b for _, b in rows)
        if _size_key(sizes, extents, outer_first) >= _size_key(best[0], extents, outer_first):
            continue
        if not array.local and not _fits(scop, array, sizes):
            continue
        if mapping_is_valid(differences, rows, scop.context):
            best = (sizes, rows)
    return best


# ----------------------------------------------------------------------------- the pass's work
def contract_arrays(scop: Scop, max_operations: int = 0,
                    schedule: Optional[isl.Schedule] = None) -> tuple[Scop, Contraction]:
    """`scop` with its contractible arrays folded (see the module); raises nothing: an array
    whose analysis exceeds the budget is kept, with the reason. Without `schedule`, the
    conflict sets are the source order's; with it (the final schedule tree,
    `contract-scheduled`), those of its order (`scheduled_order`, computed as its complement
    `scheduled_disorder`), and arrays folded already are left as they are."""
    ctx = scop.context.get_ctx()
    args = {a.name: a for a in scop.region.args}
    chosen: list[tuple[ArrayInfo, tuple[Optional[int], ...], Optional[tuple[Row, ...]]]] = []
    kept: list[tuple[str, str]] = []
    screened: set[str] = set()
    done: list[ContractedArray] = []
    technique = "contract" if schedule is None else "contract-scheduled"
    unordered: Optional[isl.UnionMap] = None
    order_problem = ""
    for array in sorted(scop.arrays, key=lambda a: a.name):
        if array.read_only or array.rank == 0:
            continue
        why = _unsuitable(scop, array, args.get(array.name))
        if not why and schedule is not None and array.storage:
            why = "folded already in the source order (contract-arrays)"
        moduli: tuple[Optional[int], ...] = ()
        rows: Optional[tuple[Row, ...]] = ()
        if why:
            screened.add(array.name)
        else:
            try:
                with isl_budget(ctx, max_operations, f"contraction of '{array.name}'"):
                    # A PENCIL function's accesses stay within the declared extents: a read
                    # outside them (jacobi's `A[tsteps][i]` when tsteps = -1) reads nothing.
                    within = declared_elements(scop, array) if scop.region.kind == "function" else None
                    if not array.local and reads_values_from_entry(scop, array, within):
                        why = "its values enter the region (a read has no write before it)"
                        screened.add(array.name)
                    else:
                        if schedule is not None and unordered is None and not order_problem:
                            try:
                                unordered = scheduled_disorder(schedule)
                            except UnsupportedTree as exc:
                                order_problem = str(exc)
                        if order_problem:
                            why = order_problem
                        else:
                            extents = tuple(_constant(e) for e in array.extents)
                            differences = conflict_differences(scop, array, unordered)
                            moduli, rows = _choose_mapping(scop, array, differences, extents,
                                                           general_bases=schedule is not None)
                            if rows is None:
                                why = "its mapping failed the validity check (a conflicting difference folds to 0)"
            except BudgetExceeded as exc:
                why = str(exc)
            except isl.Error as exc:
                why = f"isl failed on its conflict set ({isl_error_reason(exc)})"
        if not why and all(b is None for b in moduli):
            why = "its conflict set spans every dimension: no dimension folds"
        elif not why and not array.local and moduli[0] is None:
            why = "only inner dimensions fold: the region would still touch every row of the caller's array"
        if why:
            kept.append((array.name, why))
            continue
        general = None if is_canonical(rows) else rows
        chosen.append((array, moduli, general))
        done.append(ContractedArray(array.name, moduli, _bytes_before(array), _bytes_after(array, moduli),
                                    _mapping_text(array, moduli, general), general or ()))
    if not chosen:
        return scop, Contraction(kept=tuple(kept), technique=technique, screened=frozenset(screened))
    return _rewrite(scop, chosen), Contraction(tuple(done), tuple(kept), technique, frozenset(screened))


def _unsuitable(scop: Scop, array: ArrayInfo, arg) -> str:
    """Why `array` is no candidate, for reasons of its kind and use ('' if it is one)."""
    if not array.local:
        if arg is None or arg.passing != "array":
            return "not an array the region owns or the caller passes by address"
        if array.live_out:
            return LIVE_OUT
    if any(e is None for e in array.extents):
        return "an extent is not known"
    if array.local and array.name.startswith(JAM_PREFIX):
        # One element per copy of reduction-jam's jammed chains (clangpass.poly.jam_expansion):
        # as small as the jam allows, and LLVM keeps it in registers. Its conflict set under the
        # scalar tiles' schedule exceeded the isl budget (symm, 4 s).
        return "the accumulators of a jammed loop (reduction-jam)"
    names = frozenset({array.name})
    if not accesses_through(scop.may_writes, names).is_empty():
        return "conditionally written"
    for note in scop.annotations:
        if array.name in note.reductions:
            return "named by a reduction clause"
    touched = accesses_through(scop.reads.union(scop.writes), names).domain()
    annotated = {s for note in scop.annotations for s in note.statements}
    if statement_names(touched) & annotated:
        return "accessed in an 'independent' or 'ivdep' loop, whose iterations may run in any order"
    for s in scop.compute_statements:
        if s.body is not None and _subscripted(s.body, array) is None:
            return f"statement {s.name} uses it other than through {array.rank} subscripts"
    return ""


def _chain(e: N.Expr) -> tuple[Optional[N.VarRef], list[N.Expr]]:
    """(the variable, the subscripts outermost first) of `A[i][j]`; (None, []) otherwise."""
    indices: list[N.Expr] = []
    while isinstance(e, N.Subscript):
        indices.append(e.index)
        e = strip_casts(e.base)
    return (e, indices[::-1]) if isinstance(e, N.VarRef) else (None, [])


def _subscripted(body: N.Stmt, array: ArrayInfo) -> Optional[int]:
    """How many full-rank subscript chains of `array` `body` has; None when some use of the
    variable is not one (passed whole, a row taken, its address...)."""
    uses = sum(1 for n in descendants(body) if isinstance(n, N.VarRef) and n.name == array.name)
    chains = 0
    for n in descendants(body):
        if isinstance(n, N.Subscript):
            var, indices = _chain(n)
            if var is not None and var.name == array.name and len(indices) == array.rank:
                chains += 1
    return chains if chains == uses else None


# ----------------------------------------------------------------------------- sizes and texts
def _constant(extent: Optional[isl.PwAff]) -> Optional[int]:
    if extent is None or not extent.is_cst():
        return None
    values: list[int] = []
    extent.foreach_piece(lambda _, aff: values.append(aff.get_constant_val().to_python()))
    return values[0] if len(values) == 1 else None


def _extent_text(extent: isl.PwAff) -> str:
    build = isl.AstBuild.from_context(isl.Set.universe(extent.get_domain_space()))
    return build.expr_from_pw_aff(extent).to_C_str()


def _product(factors: list[Union[int, str]]) -> Bytes:
    """The product of `factors`: a number when all are numbers, else a C expression."""
    number = math.prod(f for f in factors if isinstance(f, int))
    texts = [f if f.isidentifier() else f"({f})" for f in factors if isinstance(f, str)]
    return " * ".join([str(number)] + texts) if texts else number


def _element_bytes(array: ArrayInfo) -> int:
    return array.element.bits // 8 if hasattr(array.element, "bits") else 1


def _bytes_before(array: ArrayInfo) -> Bytes:
    return _product([_element_bytes(array)] + [_constant(e) if _constant(e) is not None else _extent_text(e)
                                               for e in array.extents])


def _bytes_after(array: ArrayInfo, moduli: tuple[Optional[int], ...]) -> Bytes:
    """The bytes of the storage the region touches: the box of `moduli` for a local (its new
    declaration); for a caller array, the box within the caller's row strides (up to its
    last element)."""
    sizes = [b if b is not None else (_constant(e) if _constant(e) is not None else _extent_text(e))
             for b, e in zip(moduli, array.extents)]
    if array.local or all(b is None for b in moduli[1:]):
        return _product([_element_bytes(array)] + sizes)
    # The box's last element + 1, in the caller's layout: sum of (size_k - 1) * stride_k, plus 1.
    extents = [_constant(e) if _constant(e) is not None else _extent_text(e) for e in array.extents]
    terms: list[Bytes] = [1]
    for k, size in enumerate(sizes):
        stride = _product([1] + extents[k + 1:])
        terms.append(_product([size - 1, stride]) if isinstance(size, int) else f"({size} - 1) * {stride}")
    if all(isinstance(t, int) for t in terms):
        return _element_bytes(array) * sum(terms)   # type: ignore[arg-type]
    return f"{_element_bytes(array)} * (" + " + ".join(str(t) for t in terms if t != 0) + ")"


def _linear_text(v: tuple[int, ...], names: list[str]) -> str:
    """`v . names` as text: `a0 - a1`, `2*a0 - a1`."""
    out = ""
    for c, x in zip(v, names):
        if not c:
            continue
        term = x if abs(c) == 1 else f"{abs(c)}*{x}"
        out += (f" - {term}" if c < 0 else f" + {term}") if out else (f"-{term}" if c < 0 else term)
    return out or "0"


def _mapping_text(array: ArrayInfo, moduli: tuple[Optional[int], ...], rows: Optional[tuple[Row, ...]] = None) -> str:
    letters = [f"a{k}" for k in range(array.rank)]
    if rows:
        out = array.name
        for v, b in rows:
            text = _linear_text(v, letters)
            single = sum(1 for c in v if c) == 1 and max(v) == 1
            out += f"[{text}]" if b is None else f"[{text} mod {b}]" if single else f"[({text}) mod {b}]"
        return out
    return array.name + "".join(f"[{x} mod {b}]" if b is not None else f"[{x}]" for x, b in zip(letters, moduli))


# ----------------------------------------------------------------------------- rewriting
def _fold_map(scop: Scop, array: ArrayInfo, moduli: tuple[Optional[int], ...],
              rows: Optional[tuple[Row, ...]] = None) -> isl.UnionMap:
    """[P] -> { T[a..] -> T[a_k mod b_k..] }; with general `rows`, [P] -> { T[a..] -> T[(v_k . a) mod b_k..] }
    (isl's mod is floor-based: the residues are in [0, b_k))."""
    dims = [f"a{k}" for k in range(array.rank)]
    if rows:
        image = [f"({_dot(v, dims)}) mod {b}" if b is not None else _dot(v, dims) for v, b in rows]
    else:
        image = [f"{x} mod {b}" if b is not None else x for x, b in zip(dims, moduli)]
    fold = isl.Map(f"{{ {array.name}[{', '.join(dims)}] -> {array.name}[{', '.join(image)}] }}",
                   context=scop.context.get_ctx())
    return isl.UnionMap.from_map(fold.align_params(scop.context.get_space()))


def _folded(accesses: isl.UnionMap, name: str, fold: isl.UnionMap) -> isl.UnionMap:
    """`accesses` with those to `name` applied `fold`."""
    names = frozenset({name})
    return accesses_through(accesses, names, inside=False).union(accesses_through(accesses, names).apply_range(fold))


def _folded_kills(scop: Scop, kills: isl.UnionMap, array: ArrayInfo, fold: isl.UnionMap) -> isl.UnionMap:
    """`kills` with those of `array` that kill all of it killing all of its box; a kill of part of
    it is dropped (its image could kill the value of another element folded onto the same place,
    and the array's values neither enter nor leave the region: no read needs a kill to find its
    source)."""
    names = frozenset({array.name})
    mine = accesses_through(kills, names)                                # [P] -> { K[i..] -> T[a..] }
    declared = isl.UnionSet.from_set(declared_elements(scop, array))
    whole = isl.UnionMap.empty(kills.get_space())
    pieces: list[isl.Map] = []
    mine.foreach_map(pieces.append)
    for piece in pieces:
        covering = isl.UnionMap.from_domain_and_range(isl.UnionSet.from_set(piece.domain()), declared)
        if covering.intersect_params(scop.context).is_subset(isl.UnionMap.from_map(piece)):
            whole = whole.union(isl.UnionMap.from_map(piece))
    return accesses_through(kills, names, inside=False).union(whole.apply_range(fold))


def _folded_body(body: N.Stmt, array: ArrayInfo, moduli: tuple[Optional[int], ...],
                 new_type: Optional[T.ArrayType]) -> N.Stmt:
    """`body` with each `T[f..]` of `array` made `T[(f) % b..]`, and, for a local given
    `new_type`, its references typed so."""

    def rewrite(node: object) -> object:
        if not isinstance(node, N.Subscript):
            return node
        var, indices = _chain(node)
        if var is None or var.name != array.name or len(indices) != array.rank:
            return node
        t = new_type if new_type is not None else var.type
        out: N.Expr = replace(var, type=t) if new_type is not None else var
        rows = t.dims() if isinstance(t, T.ArrayType) else []
        for k, (index, b) in enumerate(zip(indices, moduli)):
            if b == 1:
                # One row left: every index is 0 (no `% 1` in the code).
                index = N.IntLit(0, type=index.type, loc=index.loc)
            elif b is not None and isinstance(index, N.IntLit):
                index = replace(index, value=index.value % b)
            elif b is not None:
                index = N.Binary("%", index, N.IntLit(b, type=index.type, loc=index.loc), type=index.type,
                                 loc=index.loc)
            row = rows[k].element if k < len(rows) else node.type
            out = N.Subscript(out, index, type=row, loc=node.loc)
        return out

    return transform(body, rewrite)


def _general_index(indices: list[N.Expr], v: tuple[int, ...], b: Optional[int], nonnegative: bool) -> N.Expr:
    """The C index of row (v, b) over the subscripts `indices`: `v . f`, and with a modulus
    `(v . f) % b` when v . f is never negative on the accessed elements, else
    `((v . f) % b + b) % b` (C's % truncates: the residue of floor division is wanted)."""
    wide = T.LONG if any(getattr(i.type, "bits", 32) > 32 for i in indices) else T.INT
    loc = indices[0].loc
    expr: Optional[N.Expr] = None
    for c, index in zip(v, indices):
        if not c:
            continue
        term = index if abs(c) == 1 else N.Binary("*", N.IntLit(abs(c), type=wide, loc=loc), index, type=wide, loc=loc)
        if expr is None:
            expr = term if c > 0 else N.Unary("-", term, type=wide, loc=loc)
        else:
            expr = N.Binary("+" if c > 0 else "-", expr, term, type=wide, loc=loc)
    assert expr is not None
    if b is None:
        return expr
    if b == 1:
        return N.IntLit(0, type=wide, loc=loc)
    modulus = N.IntLit(b, type=wide, loc=loc)
    expr = N.Binary("%", expr, modulus, type=wide, loc=loc)
    if not nonnegative:
        expr = N.Binary("%", N.Binary("+", expr, modulus, type=wide, loc=loc), modulus, type=wide, loc=loc)
    return expr


def _folded_body_general(body: N.Stmt, array: ArrayInfo, rows: tuple[Row, ...], nonnegative: tuple[bool, ...],
                         new_type: Optional[T.ArrayType]) -> N.Stmt:
    """`body` with each `T[f..]` of `array` made `T[(v_k . f) mod b_k..]` (`_general_index`)."""

    def rewrite(node: object) -> object:
        if not isinstance(node, N.Subscript):
            return node
        var, indices = _chain(node)
        if var is None or var.name != array.name or len(indices) != array.rank:
            return node
        t = new_type if new_type is not None else var.type
        out: N.Expr = replace(var, type=t) if new_type is not None else var
        dims = t.dims() if isinstance(t, T.ArrayType) else []
        for k, ((v, b), positive) in enumerate(zip(rows, nonnegative)):
            row = dims[k].element if k < len(dims) else node.type
            out = N.Subscript(out, _general_index(indices, v, b, positive), type=row, loc=node.loc)
        return out

    return transform(body, rewrite)


def _nonnegative_rows(scop: Scop, array: ArrayInfo, rows: tuple[Row, ...]) -> tuple[bool, ...]:
    """Per row, whether v . a >= 0 for every element `a` the region accesses."""
    touched = accesses_through(scop.reads.union(scop.writes), frozenset({array.name})).range()
    touched = touched.intersect_params(scop.context)
    pieces: list[isl.Set] = []
    touched.foreach_set(pieces.append)
    out = []
    for v, _ in rows:
        ok = True
        for piece in pieces:
            low = _along(piece.reset_tuple_id(), v).dim_min_val(0)
            if low.is_infty() or low.is_neginfty() or low.is_nan() or low.to_python() < 0:
                ok = False
        out.append(ok)
    return tuple(out)


def _reduced_type(t: T.CType, moduli: tuple[Optional[int], ...]) -> T.CType:
    """The array type `t` with dimension k of extent b_k where b_k is set."""
    if not moduli or not isinstance(t, T.ArrayType):
        return t
    element = _reduced_type(t.element, moduli[1:])
    b = moduli[0]
    if b is None:
        return replace(t, element=element)
    return replace(t, element=element, extent=N.IntLit(b, type=T.INT), constant_extent=b)


def _rewrite(scop: Scop, chosen: list[tuple[ArrayInfo, tuple[Optional[int], ...], Optional[tuple[Row, ...]]]]) -> Scop:
    statements = list(scop.statements)
    arrays = list(scop.arrays)
    locals_ = list(scop.locals)
    reads, must_writes, kills = scop.reads, scop.must_writes, scop.kills
    for array, moduli, rows in chosen:
        fold = _fold_map(scop, array, moduli, rows)
        reads, must_writes = _folded(reads, array.name, fold), _folded(must_writes, array.name, fold)
        kills = _folded_kills(scop, kills, array, fold)
        new_type: Optional[T.ArrayType] = None
        info = replace(array, storage=moduli)
        if array.local:
            k = next(i for i, d in enumerate(locals_) if d.name == array.name)
            new_type = _reduced_type(locals_[k].type, moduli)   # type: ignore[assignment]
            locals_[k] = replace(locals_[k], type=new_type)
            ctx_space = scop.context.get_space()
            info = replace(info, extents=tuple(
                e if b is None else isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(ctx_space))
                                                       .set_constant_val(isl.Val.int_from_si(ctx_space.get_ctx(), b)))
                for e, b in zip(array.extents, moduli)))
        arrays[arrays.index(array)] = info
        if rows:
            positive = _nonnegative_rows(scop, array, rows)
            statements = [replace(s, body=_folded_body_general(s.body, array, rows, positive, new_type))
                          if s.body is not None else s for s in statements]
        else:
            statements = [replace(s, body=_folded_body(s.body, array, moduli, new_type)) if s.body is not None else s
                          for s in statements]
    return scop.with_model(statements=tuple(statements), arrays=tuple(arrays), reads=reads.coalesce(),
                           must_writes=must_writes.coalesce(), kills=kills.coalesce(), locals=tuple(locals_))
