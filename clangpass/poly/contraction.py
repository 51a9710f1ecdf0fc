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
is parametric keeps its extent. Not implemented: the optimised bases of section 4.1.1
(Farkas), the lattice-space Heuristic 2 of section 4.2 and their combination (4.3);
mappings are along the canonical axes only (docs/passes/contract-arrays.md).

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
from clangpass.poly.scop import ArrayInfo, Scop, accesses_through, statement_names
from clangpass.poly.validity import COINCIDENT_MARK, PARALLEL_MARK, VECTOR_MARK

# Dimensions up to which every order of them is tried (4! = 24 orders).
MAX_PERMUTED_RANK = 4

# Marks whose band's iterations the back ends may run in any order: on threads, as work-items,
# interleaved by the vectoriser (clangpass.poly.validity).
UNORDERED_MARKS = frozenset({PARALLEL_MARK, VECTOR_MARK, COINCIDENT_MARK})

Bytes = Union[int, str]   # a byte count: a number, or a C expression of the parameters


@dataclass(frozen=True)
class ContractedArray:
    """One array folded onto the box of its moduli."""

    name: str
    moduli: tuple[Optional[int], ...]     # per dimension, b_k (None: the full extent, no folding)
    bytes_before: Bytes
    bytes_after: Bytes
    mapping: str                          # `A[t mod 2][i]`, for dumps and remarks


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
def conflict_relation(scop: Scop, name: str, precedes: Optional[isl.UnionMap] = None) -> isl.UnionMap:
    """[P] -> { T[a..] -> T[b..] }: the elements of array `name` whose live ranges overlap (paper
    section 3.1): some access of `a` is not known to precede some write of `b`, and some access of
    `b` not known to precede some write of `a`. Without `precedes`, in the source order (total:
    an access not before a write is at or after it); with it, in the partial order it gives
    ({ S[i..] -> S'[j..] }: the instance pairs run one before the other for sure,
    `scheduled_order`)."""
    names = frozenset({name})
    reads = accesses_through(scop.reads, names)                        # [P] -> { S[i..] -> T[a..] }
    writes = accesses_through(scop.writes, names)                      # [P] -> { S[i..] -> T[a..] }
    uses = reads.union(writes)
    if precedes is None:
        dates = scop.original_schedule.get_map()                      # [P] -> { S[i..] -> [t..] }
        written_at = writes.reverse().apply_range(dates)               # [P] -> { T[a..] -> [t..] }
        used_at = uses.reverse().apply_range(dates)                    # [P] -> { T[a..] -> [t..] }
        overlap = used_at.lex_ge_union_map(written_at)                 # [P] -> { T[a..] -> T[b..] }
    else:
        pairs = isl.UnionMap.from_domain_and_range(uses.domain(), writes.domain())
        unordered = pairs.subtract(precedes)                           # [P] -> { S[i..] -> S'[j..] }
        overlap = uses.reverse().apply_range(unordered).apply_range(writes)  # { T[a..] -> T[b..] }
    return overlap.intersect(overlap.reverse()).intersect_params(scop.context)


def conflict_differences(scop: Scop, array: ArrayInfo, precedes: Optional[isl.UnionMap] = None) -> isl.Set:
    """[P] -> { [x..] }: the conflicting differences DS of `array` (0-symmetric; empty when no
    two elements' live ranges overlap, not even an element with itself: nothing is read)."""
    deltas = conflict_relation(scop, array.name, precedes).deltas()    # [P] -> { T[x..] }
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
            leaves.append((flat, tuple(flags)))
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


def scheduled_order(schedule: isl.Schedule) -> isl.UnionMap:
    """[P] -> { S[i..] -> S'[j..] }: the instance pairs that `schedule` runs one before the other
    whatever the threads and the vectoriser do: their dates first differ in a dimension whose
    iterations run in order, the first one's smaller there. Dates that first differ in a
    parallel loop, a vector loop or a `set` are unordered (the paper's section 3.1: the conflict
    set of a parallel schedule)."""
    leaves = _flat_dims(schedule)
    depth = max((len(flags) for _, flags in leaves), default=0)
    ctx = schedule.get_ctx()
    padded: list[tuple[isl.UnionMap, tuple[bool, ...]]] = []
    for flat, flags in leaves:
        rest = depth - len(flags)
        if rest:
            # Dates of a shallower leaf padded with zeros (a sequence position already
            # separates it from every deeper one).
            zeros = isl.Set("{ [" + ", ".join("0" for _ in range(rest)) + "] }", context=ctx)
            flat = flat.flat_range_product(isl.UnionMap.from_domain_and_range(flat.domain(),
                                                                              isl.UnionSet.from_set(zeros)))
        padded.append((flat, flags + (False,) * rest))
    dates = isl.UnionMap.empty(schedule.get_domain().get_space())      # [P] -> { S[i..] -> [d..] }
    for flat, _ in padded:
        dates = dates.union(flat)
    precedes = isl.UnionMap.empty(schedule.get_domain().get_space())
    names = [f"d{k}" for k in range(depth)]
    primed = [f"e{k}" for k in range(depth)]
    for k in range(depth):
        ordered = isl.UnionMap.empty(schedule.get_domain().get_space())
        for flat, flags in padded:
            if not flags[k]:
                ordered = ordered.union(flat)
        if ordered.is_empty():
            continue
        equal = " and ".join([f"{a} = {b}" for a, b in zip(names[:k], primed[:k])] + [f"{names[k]} < {primed[k]}"])
        later = isl.Map(f"{{ [{', '.join(names)}] -> [{', '.join(primed)}] : {equal} }}", context=ctx)
        # { S[i..] -> S'[j..] }: first different date dimension k, ordered there
        precedes = precedes.union(ordered.apply_range(isl.UnionMap.from_map(later)).apply_range(dates.reverse()))
    return precedes.coalesce()


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


# ----------------------------------------------------------------------------- the pass's work
def contract_arrays(scop: Scop, max_operations: int = 0,
                    schedule: Optional[isl.Schedule] = None) -> tuple[Scop, Contraction]:
    """`scop` with its contractible arrays folded (see the module); raises nothing: an array
    whose analysis exceeds the budget is kept, with the reason. Without `schedule`, the
    conflict sets are the source order's; with it (the final schedule tree,
    `contract-scheduled`), those of its order (`scheduled_order`), and arrays folded already
    are left as they are."""
    ctx = scop.context.get_ctx()
    args = {a.name: a for a in scop.region.args}
    chosen: list[tuple[ArrayInfo, tuple[Optional[int], ...]]] = []
    kept: list[tuple[str, str]] = []
    screened: set[str] = set()
    done: list[ContractedArray] = []
    technique = "contract" if schedule is None else "contract-scheduled"
    precedes: Optional[isl.UnionMap] = None
    order_problem = ""
    for array in sorted(scop.arrays, key=lambda a: a.name):
        if array.read_only or array.rank == 0:
            continue
        why = _unsuitable(scop, array, args.get(array.name))
        if not why and schedule is not None and array.storage:
            why = "folded already in the source order (contract-arrays)"
        moduli: tuple[Optional[int], ...] = ()
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
                        if schedule is not None and precedes is None and not order_problem:
                            try:
                                precedes = scheduled_order(schedule)
                            except UnsupportedTree as exc:
                                order_problem = str(exc)
                        if order_problem:
                            why = order_problem
                        else:
                            extents = tuple(_constant(e) for e in array.extents)
                            moduli = choose_moduli(conflict_differences(scop, array, precedes), extents,
                                                   outer_first=not array.local)
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
        chosen.append((array, moduli))
        done.append(ContractedArray(array.name, moduli, _bytes_before(array), _bytes_after(array, moduli),
                                    _mapping_text(array, moduli)))
    if not chosen:
        return scop, Contraction(kept=tuple(kept), technique=technique, screened=frozenset(screened))
    return _rewrite(scop, chosen), Contraction(tuple(done), tuple(kept), technique, frozenset(screened))


def _unsuitable(scop: Scop, array: ArrayInfo, arg) -> str:
    """Why `array` is no candidate, for reasons of its kind and use ('' if it is one)."""
    if not array.local:
        if arg is None or arg.passing != "array":
            return "not an array the region owns or the caller passes by address"
        if array.live_out:
            return "live-out: its values leave the region"
    if any(e is None for e in array.extents):
        return "an extent is not known"
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


def _mapping_text(array: ArrayInfo, moduli: tuple[Optional[int], ...]) -> str:
    letters = [f"a{k}" for k in range(array.rank)]
    return array.name + "".join(f"[{x} mod {b}]" if b is not None else f"[{x}]" for x, b in zip(letters, moduli))


# ----------------------------------------------------------------------------- rewriting
def _fold_map(scop: Scop, array: ArrayInfo, moduli: tuple[Optional[int], ...]) -> isl.UnionMap:
    """[P] -> { T[a..] -> T[a_k mod b_k..] }."""
    dims = [f"a{k}" for k in range(array.rank)]
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


def _reduced_type(t: T.CType, moduli: tuple[Optional[int], ...]) -> T.CType:
    """The array type `t` with dimension k of extent b_k where b_k is set."""
    if not moduli or not isinstance(t, T.ArrayType):
        return t
    element = _reduced_type(t.element, moduli[1:])
    b = moduli[0]
    if b is None:
        return replace(t, element=element)
    return replace(t, element=element, extent=N.IntLit(b, type=T.INT), constant_extent=b)


def _rewrite(scop: Scop, chosen: list[tuple[ArrayInfo, tuple[Optional[int], ...]]]) -> Scop:
    statements = list(scop.statements)
    arrays = list(scop.arrays)
    locals_ = list(scop.locals)
    reads, must_writes, kills = scop.reads, scop.must_writes, scop.kills
    for array, moduli in chosen:
        fold = _fold_map(scop, array, moduli)
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
        statements = [replace(s, body=_folded_body(s.body, array, moduli, new_type)) if s.body is not None else s
                      for s in statements]
    return scop.with_model(statements=tuple(statements), arrays=tuple(arrays), reads=reads.coalesce(),
                           must_writes=must_writes.coalesce(), kills=kills.coalesce(), locals=tuple(locals_))
