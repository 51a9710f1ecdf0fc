# SPDX-License-Identifier: MIT
"""Scalar expansion along a contiguous parallel loop: a recurrence's state per column.

Input: a `Scop`. Output: the same region in which each web of a region-local scalar that carries a
recurrence down an inner loop, one chain per iteration of an outer loop `j` that subscripts the
last (contiguous) dimension of every array the chain touches, works on an element of a new
region-local array, `t` -> `__pencil_expanded_t[j]`, and what was done (`Expansion`s) with the
run-time condition the new storage needs (`ExpandedScalars.condition`). Deriche's column filter

    for (j ..) { tm1 = 0.0; for (i ..) { Y1[i][j] = a5 * imgOut[i][j] + a6 * tm1 ..; tm1 = imgOut[i][j]; } }

becomes `__pencil_expanded_tm1[j] = 0.0; ... a6 * __pencil_expanded_tm1[j] ...`: the chains of
the columns no longer share `tm1`, so the scheduler may run `i` outside `j` and the `j` loop, now
innermost and parallel, walks rows with unit stride and is vectorised, where the source walks
down columns one element per row (a stride of a whole row).

Why: the scalar's live ranges span the inner loop, so no schedule may interleave two columns'
chains on one scalar (thesis section 2.4: false dependences may only be relaxed where no live
range is interrupted); an array of one element per column is the storage that lets them
interleave (scalar expansion, Feautrier, "Array expansion", ICS 1988; Padua & Wolfe, "Advanced
compiler optimizations for supercomputers", CACM 1986). Each element receives the same operations
in the same order: the results are bit-identical.

Conditions, for a web `B` of scalar `t` (the statements linked by live ranges of `t`):
- `t` is a region-local scalar with no conditional write; the statements of `B` share their
  first `d` loops, `d` being the depth of the shallowest one, and one of them lies in a further
  loop (a live range within one iteration is left to `relax-false-deps`);
- every live range touching `B` has both ends in `B`, in one iteration of those `d` loops, and
  every read of `t` in `B` has a source (value-based flow, `local_live_ranges`): the web is its
  own, and renaming it changes no value any other statement sees;
- profit: every array access of the statements of those loops that lie in further loops has the
  `d`-th iterator `j` as its last subscript (plus a constant) and no deeper iterator there, and
  there is one; and no storage but region-local scalars carries a dependence between two
  iterations of those loops (else `j` stays serial: gramschmidt's `nrm`);
- storage: the arrays' last extent `E` (the smallest constant, or the parametric extent they
  share), within `EXPANDED_BYTES_LIMIT` bytes for all expansions together (checked at run time
  for a parametric one); the instances of `B` whose `j` lies outside `[0, E)` exist only for
  parameters the region's run-time check excludes (the condition returned), or for none.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import descendants, transform
from clangpass.poly.alias_check import c_expression
from clangpass.poly.budget import isl_budget
from clangpass.poly.demotion import iteration_prefix, redirected
from clangpass.poly.live_ranges import local_live_ranges
from clangpass.poly.scop import ArrayInfo, Scop, ScopStatement, accesses_through
from clangpass.poly.validity import maps_of

# The region-local arrays made here are named `__pencil_expanded_<scalar>` (and `_<k>` for a
# scalar's further webs).
EXPANDED_PREFIX = "__pencil_expanded_"

# Bytes of expanded storage a region may allocate: an alloca of the region function and of every
# thread's function, as the private copies of clangpass.poly.privatization.
EXPANDED_BYTES_LIMIT = 1 << 19


@dataclass(frozen=True)
class Expansion:
    """One web of a scalar given an element per iteration of loop `iterator`."""

    scalar: str
    array: str
    iterator: str
    extent: str                    # the new array's extent, as C: `2160`, `p`
    statements: tuple[str, ...]

    def describe(self) -> str:
        return f"{self.scalar} -> {self.array}[{self.iterator}]"


@dataclass(frozen=True)
class ExpandedScalars:
    """What `expand_scalars` did."""

    expansions: tuple[Expansion, ...] = ()
    condition: str = ""            # C condition on the parameters the new storage needs ('' = none)
    macros: tuple[str, ...] = ()   # `#define` lines `condition` uses (isl's min/max)


def expand_scalars(scop: Scop, max_operations: int = 0, guarded: bool = True) -> tuple[Scop, ExpandedScalars]:
    """`scop` with its expandable scalar webs expanded (module doc). `guarded`: the region runs under
    a run-time check the storage's condition may join. Raises BudgetExceeded."""
    local = scop.local_scalars
    if not local:
        return scop, ExpandedScalars()
    ctx = scop.context.get_ctx()
    with isl_budget(ctx, max_operations, "scalar expansion"):
        live = local_live_ranges(scop, max_operations)                  # [P] -> { W[..] -> R[..] }
        chosen: list[_Chosen] = []
        for scalar in sorted(local):
            for web in _webs(scop, scalar, live):
                found = _expandable(scop, scalar, web, live)
                if found is not None and (guarded or found.outside.is_empty() and found.extent.constant is not None):
                    chosen.append(found)
        chosen = _within_storage_limit(scop, chosen)
        if not chosen:
            return scop, ExpandedScalars()
        excluded = isl.Set.empty(scop.context.get_space())
        for found in chosen:
            excluded = excluded.union(found.outside)
        condition, macros = _condition(scop, excluded, _size_terms(scop, chosen))
    expansions = _described(scop, chosen)
    return _rewrite(scop, chosen, expansions), ExpandedScalars(tuple(expansions), condition, macros)


@dataclass(frozen=True)
class _Chosen:
    """A web that may be expanded, with what its expansion needs."""

    scalar: str
    web: tuple[ScopStatement, ...]
    depth: int                     # the loops the web shares; the last one's iterator indexes the array
    extent: "_Extent"
    outside: isl.Set               # [P] -> { : some instance's index lies outside [0, extent) }


def _within_storage_limit(scop: Scop, chosen: list[_Chosen]) -> list[_Chosen]:
    """`chosen` without the webs of constant extent beyond `EXPANDED_BYTES_LIMIT` together (those of
    a parametric extent share what is left, checked at run time: `_size_terms`)."""
    kept: list[_Chosen] = []
    used = 0
    for found in chosen:
        if found.extent.constant is not None:
            size = found.extent.constant * _element_bytes(scop.array(found.scalar).element)
            if used + size > EXPANDED_BYTES_LIMIT:
                continue
            used += size
        kept.append(found)
    return kept


def _size_terms(scop: Scop, chosen: list[_Chosen]) -> list[str]:
    """C conditions that the webs of parametric extent fit in what the constant ones leave of
    `EXPANDED_BYTES_LIMIT`, in equal shares."""
    parametric = [f for f in chosen if f.extent.constant is None]
    if not parametric:
        return []
    used = sum(f.extent.constant * _element_bytes(scop.array(f.scalar).element)
               for f in chosen if f.extent.constant is not None)
    share = (EXPANDED_BYTES_LIMIT - used) // len(parametric)
    build = isl.AstBuild.from_context(isl.Set.universe(scop.context.get_space()))
    terms: list[str] = []
    for f in parametric:
        text, _ = c_expression(build.expr_from_pw_aff(f.extent.extent))
        term = f"((long long)({text}) <= {share // _element_bytes(scop.array(f.scalar).element)}LL)"
        if term not in terms:
            terms.append(term)
    return terms


# ----------------------------------------------------------------------------- conditions
def _webs(scop: Scop, scalar: str, live: isl.UnionMap) -> list[list[ScopStatement]]:
    """The statements accessing `scalar`, grouped by the live ranges of `scalar` that join them,
    each group in textual order."""
    one = frozenset({scalar})
    touching = accesses_through(scop.reads.union(scop.writes), one).domain()
    names = [s.name for s in scop.compute_statements
             if not touching.intersect(isl.UnionSet.from_set(s.domain)).is_empty()]
    through = live.intersect(accesses_through(scop.writes, one).apply_range(
        accesses_through(scop.reads, one).reverse()))                # [P] -> { W -> R through t }
    group = {n: n for n in names}

    def root(n: str) -> str:
        while group[n] != n:
            n = group[n]
        return n

    for m in maps_of(through):
        a, b = m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)
        if a in group and b in group:
            group[root(a)] = root(b)
    webs: dict[str, list[ScopStatement]] = {}
    for s in scop.compute_statements:
        if s.name in group:
            webs.setdefault(root(s.name), []).append(s)
    return list(webs.values())


def _expandable(scop: Scop, scalar: str, web: list[ScopStatement], live: isl.UnionMap) -> Optional[_Chosen]:
    """What expanding `web` needs (`_Chosen`) when it may be expanded (module doc), else None."""
    one = frozenset({scalar})
    instances = isl.UnionSet.empty(scop.context.get_space())
    for s in web:
        instances = instances.union(isl.UnionSet.from_set(s.domain))
    if not accesses_through(scop.may_writes, one).intersect_domain(instances).is_empty():
        return None
    depth = min(len(s.iterators) for s in web)
    if depth == 0 or all(len(s.iterators) == depth for s in web):
        return None
    prefix = web[0].iterators[:depth]
    if any(s.iterators[:depth] != prefix for s in web):
        return None
    # Only the iterators' values matter, not which loops they count: a value that flows from an
    # iteration `x` to the same `x` finds its element there whatever the loops.
    same = _same_iterations(web, depth)                                  # { S[x, ..] -> T[x, ..] }
    through = live.intersect(accesses_through(scop.writes, one).apply_range(
        accesses_through(scop.reads, one).reverse()))
    touching = through.intersect_domain(instances).union(through.intersect_range(instances))
    if not touching.is_subset(same):
        return None
    reads = accesses_through(scop.reads, one).intersect_domain(instances).domain()
    if not reads.intersect_params(scop.context).is_subset(through.range()):
        return None
    members = _loop_members(scop, web[0], depth)
    if not members:
        return None
    extent = _contiguous_extent(scop, members, depth)
    if extent is None or _carried_by_others(scop, members, depth):
        return None
    outside = isl.Set.empty(scop.context.get_space())                   # [P] -> { : .. }
    for s in web:
        n = s.domain.dim(isl.dim_type.set)
        index = isl.PwAff.from_aff(isl.Aff.var_on_domain(isl.LocalSpace.from_space(s.domain.get_space()),
                                                         isl.dim_type.set, depth - 1))   # { S[x..] -> [j] }
        bound = extent.extent.add_dims(isl.dim_type.in_, n).set_tuple_id(
            isl.dim_type.in_, s.domain.get_tuple_id())                   # { S[x..] -> [E] }
        zero = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(s.domain.get_space())))
        beyond = index.ge_set(bound).union(index.lt_set(zero)).intersect(s.domain)
        outside = outside.union(beyond.params())
    return _Chosen(scalar, tuple(web), depth, extent, outside.intersect(scop.context).coalesce())


def _loop_members(scop: Scop, statement: ScopStatement, depth: int) -> list[ScopStatement]:
    """The statements of the first `depth` loops around `statement`, in textual order (empty when
    the source order does not say)."""
    dates = scop.original_schedule.get_map()                             # [P] -> { S[i..] -> [t..] }
    head = _loop_position(dates, statement, depth)
    if head is None:
        return []
    return [s for s in scop.compute_statements
            if len(s.iterators) >= depth and _loop_position(dates, s, depth) == head]


def _carried_by_others(scop: Scop, members: list[ScopStatement], depth: int) -> bool:
    """Whether storage other than region-local scalars carries a dependence between two iterations
    of the `depth` loops whose statements are `members`: the last of those loops would stay
    serial, and running it innermost would only walk the other arrays across (gramschmidt's
    `nrm`, whose `k` loop carries `A`, `Q` and `R`)."""
    instances = isl.UnionSet.empty(scop.context.get_space())
    for s in members:
        instances = instances.union(isl.UnionSet.from_set(s.domain))
    scalars = scop.local_scalars
    writes = accesses_through(scop.writes, scalars, inside=False).intersect_domain(instances)
    touches = accesses_through(scop.reads.union(scop.writes), scalars, inside=False).intersect_domain(instances)
    conflicts = writes.apply_range(touches.reverse()).union(touches.apply_range(writes.reverse()))
    return not conflicts.subtract(_same_iterations(members, depth)).intersect_params(scop.context).is_empty()


def _loop_position(dates: isl.UnionMap, statement: ScopStatement, depth: int) -> Optional[tuple[int, ...]]:
    """The source order's constant positions of `statement` up to its `depth`-th loop (which loops
    it lies in: `[26, j, 3, i, 0]` -> (26,) for depth 1), None if one is not constant."""
    found: list[isl.Map] = []
    dates.foreach_map(lambda m: found.append(m) if m.get_tuple_name(isl.dim_type.in_) == statement.name else None)
    if len(found) != 1:
        return None
    positions: list[int] = []
    for k in range(0, 2 * depth, 2):
        value = found[0].plain_get_val_if_fixed(isl.dim_type.out, k)
        if value.is_nan():
            return None
        positions.append(value.to_python())
    return tuple(positions)


def _same_iterations(statements: list[ScopStatement], depth: int) -> isl.UnionMap:
    """[P] -> { S[x, ..] -> T[x, ..] }: pairs of instances of `statements` in one iteration of the
    first `depth` loops."""
    to_x = iteration_prefix(statements, depth)                           # [P] -> { S[x, y] -> [x] }
    return to_x.apply_range(to_x.reverse())


@dataclass(frozen=True)
class _Extent:
    """The extent of an expansion: the last extent of the arrays its chain walks."""

    extent: isl.PwAff              # [P] -> { [(e)] }
    constant: Optional[int]        # its value when it is a constant
    declared: Optional[N.Expr]     # its C expression, as the region's argument declares it (None: constant)


def _contiguous_extent(scop: Scop, members: list[ScopStatement], depth: int) -> Optional[_Extent]:
    """The extent of the last dimension of the arrays the statements of `members` (those of the
    web's loops) in further loops access (the smallest when they are constants, else the one they
    all share), when each such access has the `depth`-th iterator, plus a constant, as its last
    subscript and no deeper iterator there; None otherwise or without any such access."""
    arrays = {a.name: a for a in scop.arrays if a.extents}
    walked: list[ArrayInfo] = []
    for s in members:
        if len(s.iterators) == depth:
            continue
        own = isl.UnionSet.from_set(s.domain)
        for accesses in (scop.reads, scop.writes):
            for m in maps_of(accesses.intersect_domain(own)):
                array = arrays.get(m.get_tuple_name(isl.dim_type.out))
                if array is None:
                    continue
                if not _walks_last_dimension(m, depth) or array.extents[-1] is None:
                    return None
                walked.append(array)
    if not walked:
        return None
    constants = [_constant(a.extents[-1]) for a in walked]
    if all(c is not None for c in constants):
        smallest = min(range(len(walked)), key=lambda k: constants[k])
        return _Extent(walked[smallest].extents[-1], constants[smallest], None)
    first = walked[0].extents[-1]
    if any(not a.extents[-1].is_equal(first) for a in walked[1:]):
        return None
    declared = _declared_last_extent(scop, walked[0].name)
    return _Extent(first, None, declared) if declared is not None else None


def _constant(extent: isl.PwAff) -> Optional[int]:
    if not extent.is_cst():
        return None
    pieces: list[int] = []
    extent.foreach_piece(lambda _, aff: pieces.append(aff.get_constant_val().to_python()))
    return pieces[0] if len(pieces) == 1 else None


def _declared_last_extent(scop: Scop, name: str) -> Optional[N.Expr]:
    """The C expression of the last extent of argument `name`'s declared type (`p` of
    `double A[m + 2][p]`), None when the region has no such argument or the extent is not written."""
    for arg in scop.region.args:
        if arg.name != name:
            continue
        t = arg.type.pointee if isinstance(arg.type, T.PointerType) else arg.type
        dims = t.dims() if isinstance(t, T.ArrayType) else []
        return dims[-1].extent if dims else None
    return None


def _walks_last_dimension(access: isl.Map, depth: int) -> bool:
    """Whether `access` { S[x..] -> A[.., a] } has a = x[depth - 1] + constant for every instance."""
    n_in = access.dim(isl.dim_type.in_)
    n_out = access.dim(isl.dim_type.out)
    if not access.is_single_valued():
        return False
    last = isl.PwMultiAff.from_map(access).get_pw_aff(n_out - 1)        # { S[x..] -> [a] }
    pieces: list[isl.Aff] = []
    last.foreach_piece(lambda _, aff: pieces.append(aff))
    if len(pieces) != 1:
        return False
    aff = pieces[0]
    for k in range(n_in):
        coefficient = aff.get_coefficient_val(isl.dim_type.in_, k).to_python()
        if coefficient != (1 if k == depth - 1 else 0):
            return False
    return all(aff.get_coefficient_val(isl.dim_type.param, k).to_python() == 0
               for k in range(aff.dim(isl.dim_type.param)))


def _element_bytes(t: T.CType) -> int:
    """Bytes of an element of type `t` (a number: extract models no other scalars)."""
    return max(getattr(t, "bits", 64) // 8, 1)


def _condition(scop: Scop, excluded: isl.Set, sizes: list[str]) -> tuple[str, tuple[str, ...]]:
    """The C condition on the parameters that rules out `excluded` and bounds the storage
    (`sizes`); '' when there is nothing to check."""
    terms = list(sizes)
    macros: tuple[str, ...] = ()
    if not excluded.is_empty():
        allowed = isl.Set.universe(scop.context.get_space()).subtract(excluded).coalesce()
        allowed = allowed.gist(scop.context)
        build = isl.AstBuild.from_context(isl.Set.universe(scop.context.get_space()))
        text, macros = c_expression(build.expr_from_set(allowed))
        terms.append(f"({text})")
    return " && ".join(terms), macros


# ----------------------------------------------------------------------------- rewriting
def _array_name(scalar: str, taken: set[str]) -> str:
    """`__pencil_expanded_<scalar>`, suffixed when a name in `taken` has it (added to `taken`)."""
    name = EXPANDED_PREFIX + scalar
    k = 1
    while name in taken:
        name = f"{EXPANDED_PREFIX}{scalar}_{k}"
        k += 1
    taken.add(name)
    return name


def _described(scop: Scop, chosen: list[_Chosen]) -> list[Expansion]:
    """What expanding `chosen` does, each web with the name of its array."""
    taken = {a.name for a in scop.arrays}
    build = isl.AstBuild.from_context(isl.Set.universe(scop.context.get_space()))
    return [Expansion(f.scalar, _array_name(f.scalar, taken), f.web[0].iterators[f.depth - 1],
                      str(f.extent.constant) if f.extent.constant is not None
                      else c_expression(build.expr_from_pw_aff(f.extent.extent))[0],
                      tuple(s.name for s in f.web))
            for f in chosen]


def _rewrite(scop: Scop, chosen: list[_Chosen], expansions: list[Expansion]) -> Scop:
    """`scop` with each chosen web's accesses to its scalar made accesses to its new array."""
    statements = {s.name: s for s in scop.statements}
    reads, writes = scop.reads, scop.must_writes
    arrays = list(scop.arrays)
    locals_ = list(scop.locals)
    declared = {d.name: d for d in scop.locals}
    for expansion, found in zip(expansions, chosen):
        scalar, web, depth, extent = found.scalar, found.web, found.depth, found.extent
        info = scop.array(scalar)
        name = expansion.array
        # Caller storage to the model (`local` false): its values cross the parallel loops of the
        # columns' filters, so every thread must see one copy (CodegenUnit.shared_locals), and its
        # dependences are the memory-based ones of an array the caller passes.
        arrays.append(ArrayInfo(name, info.element, (extent.extent,)))
        decl = declared.get(scalar)
        loc = decl.loc if decl is not None else scop.region.loc
        if extent.constant is not None:
            storage = T.ArrayType(element=info.element, extent=N.IntLit(extent.constant, type=T.INT, loc=loc),
                                  constant_extent=extent.constant)
        else:
            storage = T.ArrayType(element=info.element, extent=extent.declared)
        locals_.append(N.VarDecl(name, storage, None, loc))
        one = frozenset({scalar})
        iterator = expansion.iterator
        index = _iterator_use(web, iterator) or N.VarRef(iterator, type=T.INT, loc=loc)
        for s in web:
            own = isl.UnionSet.from_set(s.domain)
            n = s.domain.dim(isl.dim_type.set)
            column = isl.Map.identity(isl.Space.map_from_set(s.domain.get_space())).intersect_domain(s.domain)
            column = column.project_out(isl.dim_type.out, depth, n - depth).project_out(
                isl.dim_type.out, 0, depth - 1).set_tuple_name(isl.dim_type.out, name)   # { S[x..] -> X[j] }
            element_access = isl.UnionMap.from_map(column)
            reads = redirected(reads, one, own, element_access)
            writes = redirected(writes, one, own, element_access)
            element = N.Subscript(N.VarRef(name, type=storage, loc=loc), index, type=info.element, loc=loc)
            current = statements[s.name]
            body = transform(current.body, lambda node: element if isinstance(node, N.VarRef) and node.name == scalar
                             else node)
            statements[s.name] = replace(current, body=body)
    return scop.with_model(statements=tuple(statements.values()), arrays=tuple(arrays), reads=reads,
                           must_writes=writes, locals=tuple(locals_))


def _iterator_use(web: list[ScopStatement], iterator: str) -> Optional[N.VarRef]:
    """A use of loop `iterator` in a body of `web` (its type and scope as the front end made them)."""
    for s in web:
        if s.body is None:
            continue
        for node in descendants(s.body):
            if isinstance(node, N.VarRef) and node.name == iterator:
                return node
    return None
