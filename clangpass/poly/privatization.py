# SPDX-License-Identifier: MIT
"""Array privatization with a last-value copy-out: caller storage used as a per-iteration temporary.

Input: a `Scop`. Output: the same region with each privatizable array or scalar of
the caller `T` (doitgen's `sum[]`) replaced in every statement by a region-local
copy `__pencil_private_T`, and the instances that write the last value of an element
split off their statement into one whose body also stores to the caller's element,
`sum[p] = (__pencil_private_sum[p] += ...)`, at the writer's place in the source order
(`Privatization` says what was done, and why the others were kept).

Why: a temporary the caller passes (`double sum[np]`) is storage of the caller, so
its anti and output dependences serialise every loop around it, and only
region-local storage has the false dependences that `relax-false-deps` may relax
(clangpass.poly.live_ranges). When no value of `T` enters the region and every
value read is written in the same iteration of some loop that also reuses the
elements (a false dependence carried by it), the loop runs as well on a private
copy per iteration: array privatization (Maydan, Amarasinghe & Lam, "Array
data-flow analysis and its use in array privatization", POPL 1993; Tu & Padua,
"Automatic array privatization", LCPC 1993, with its "last value assignment" for
arrays live after the loop). The last value of each element is found exactly in
the model: the lexicographically last write of the element in the source order
(Feautrier, "Dataflow analysis of array and scalar references", IJPP 1991); it is
stored to the caller's element by the writing instance itself (a separate copy
statement would be a dependence component of its own, which minimal fusion runs
after the whole loop nest), so no private value leaves a parallel loop (`mark-parallel` checks `values_leaving`) and the
back end's per-thread copies need no copy back.

Conditions on `T`: written only by must-writes (one element per statement instance,
one write expression per statement), of a numeric element type, with every extent
known; not live-in (every read has a source in the region: value-based flow
analysis with the region's kills); not named by a `reduction` clause; and some
loop level `k` of the source order such that every flow dependence through `T`
stays within one iteration of the first `k` schedule dimensions while some false
dependence does not (otherwise privatization frees no loop: 2mm's `tmp[i][j]`), a
dimension no other dependence carries (`_Blocking`: adi's rows reused across its time
loop stay shared).

Storage: the private copy is a region local, an alloca in the region function and
in each thread's function. Arrays whose bytes may exceed `PRIVATE_BYTES_LIMIT` are
guarded at run time: the size condition joins the region's versioning condition
(the alias check, clangpass.poly.alias_check), so that an oversized temporary
runs the original code instead of overflowing a stack; constant sizes are
decided here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import base_variable, iter_exprs, transform
from clangpass.poly.alias_check import AliasCheck, c_expression, with_condition
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.dependences import Dependences
from clangpass.poly.live_ranges import LiveRanges, false_dependences, live_ranges, scalar_accesses, scalar_units
from clangpass.poly.scop import ArrayInfo, LoopAnnotation, Scop, ScopStatement, accesses_through, statement_names
from clangpass.poly.validity import earlier_pairs, maps_of, union_of

PRIVATE_PREFIX = "__pencil_private_"
# The region-local scalars of split-off three-address instances (`_three_address_units`).
LAST_PREFIX = "__pencil_last_"


def source_variable(name: str) -> str:
    """The user's variable the storage `name` stands for: a private copy's or last-value
    scalar's original, anything else itself (unquoted, for the record's lists)."""
    for prefix in (PRIVATE_PREFIX, LAST_PREFIX):
        if name.startswith(prefix):
            return name[len(prefix):]
    return name


def source_name(name: str) -> str:
    """How a message names the storage `name`, quoted: a private copy or a last-value scalar this
    pass made as the user's variable it stands for ("'C' (privatized)"), anything else as itself.
    Internal names never reach a message."""
    for prefix, what in ((PRIVATE_PREFIX, "privatized"), (LAST_PREFIX, "its last value")):
        if name.startswith(prefix):
            return f"'{name[len(prefix):]}' ({what})"
    return f"'{name}'"

# Bytes of private storage a region may allocate without a run-time check: each private
# copy is an alloca on the caller's stack and on every thread's (glibc's default thread
# stack is 8 MiB; libgomp's may be smaller through OMP_STACKSIZE).
PRIVATE_BYTES_LIMIT = 1 << 20


@dataclass(frozen=True)
class PrivateArray:
    """One caller array (or scalar) the region now works on privately."""

    name: str                      # the caller's storage, still written by the copy-outs
    private: str                   # the region-local copy every other statement uses
    copies: tuple[str, ...]        # the statements that also store last values to `name`
    level: int                     # schedule dimensions whose iterations own their values


@dataclass(frozen=True)
class Privatization:
    """What `privatize_arrays` did to a Scop."""

    arrays: tuple[PrivateArray, ...] = ()
    kept: tuple[tuple[str, str], ...] = ()    # (array, why it stays shared) for written caller arrays
    size_condition: str = ""                  # C condition on the private storage's size ('' = none)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arrays)


def privatize_arrays(scop: Scop, deps: Dependences, max_operations: int = 0, bytes_limit: int = PRIVATE_BYTES_LIMIT,
                     guarded: bool = True, live: Optional[LiveRanges] = None) -> tuple[Scop, Privatization]:
    """`scop` with its privatizable caller arrays made private (raises BudgetExceeded), given its
    dependences and, if known, its live ranges (computed here when needed otherwise).

    `guarded`: the region runs under a versioning condition the size condition can join;
    without one, only arrays of constant size are privatized."""
    ctx = scop.context.get_ctx()
    args = {a.name: a for a in scop.region.args}
    reduced = {v for note in scop.annotations for v in note.reductions}
    chosen: list[tuple[ArrayInfo, int, isl.UnionMap]] = []
    kept: list[tuple[str, str]] = []
    dates = scop.original_schedule.get_map()                         # [P] -> { S[i..] -> [t..] }
    blocking = _Blocking(scop, deps, dates, max_operations)
    for array in scop.arrays:
        if array.local or array.read_only:
            continue
        why = _unsuitable(scop, array, args.get(array.name), reduced) or _written_outside_loops(scop, array.name)
        level, last = 0, None
        if not why:
            try:
                with isl_budget(ctx, max_operations, f"privatization of '{array.name}'"):
                    why, level, last = _analyse(scop, array.name, dates)
            except BudgetExceeded as exc:
                why = str(exc)
            except isl.Error as exc:
                # isl's dataflow analysis fails on some strided loops ("affine expression involves
                # some of the domain dimensions", as in clangpass.poly.dependences): no exact
                # last writers, so the array stays shared (random program seed 4430047).
                why = f"isl's dataflow analysis failed ({isl_error_reason(exc)})"
        if not why:
            why = blocking.why_nothing_freed(array.name, level)
        if not why:
            shared = [a.name for a, _, other in chosen if not _writers(other).intersect(_writers(last)).is_empty()]
            why = f"a statement also writes '{shared[0]}', privatized first" if shared else ""
        if why:
            kept.append((array.name, why))
        else:
            chosen.append((array, level, last))
    if not chosen:
        return scop, Privatization(kept=tuple(kept))
    terms: list[str] = []
    for array, level, last in list(chosen):
        fixed, term = _size_condition(array, args[array.name], bytes_limit)
        if fixed is not None and fixed > bytes_limit:
            chosen.remove((array, level, last))
            kept.append((array.name, f"its private copy would take {fixed} bytes (limit {bytes_limit})"))
        elif term and not guarded:
            chosen.remove((array, level, last))
            kept.append((array.name, "its size is only known at run time and the region has no run-time check"))
        elif term:
            terms.append(term)
    if not chosen:
        return scop, Privatization(kept=tuple(kept))
    try:
        return _rewrite(scop, chosen, tuple(kept), " && ".join(terms), max_operations, live)
    except _UnexpectedNode as exc:
        return scop, Privatization(kept=tuple(kept) + tuple(
            (a.name, f"the source order has a {exc} node") for a, _, _ in chosen))


def with_size_condition(check: Optional[AliasCheck], privatization: Privatization) -> Optional[AliasCheck]:
    """The region's versioning condition with the private storage's size condition added."""
    return with_condition(check, privatization.size_condition)


# ----------------------------------------------------------------------------- conditions
def _unsuitable(scop: Scop, array: ArrayInfo, arg, reduced: set[str]) -> str:
    """Why `array` cannot be privatized for reasons of its type and use ('' if it can)."""
    if arg is None or arg.passing not in ("array", "pointer"):
        return "not passed by address"
    if array.name in reduced:
        return "named by a reduction clause"
    t = arg.type
    while isinstance(t, T.ArrayType):
        t = t.element
    if not isinstance(t, (T.IntType, T.FloatType)) or isinstance(arg.type, T.PointerType):
        return "not an array of numbers with known extents"
    if any(e is None for e in array.extents):
        return "an extent is not known"
    if not accesses_through(scop.may_writes, frozenset({array.name})).is_empty():
        return "conditionally written"
    written = accesses_through(scop.must_writes, frozenset({array.name}))   # [P] -> { S[i..] -> T[e..] }
    writers = statement_names(written.domain())
    for s in scop.compute_statements:
        if s.name not in writers:
            continue
        writes = written.intersect_domain(isl.UnionSet.from_set(s.domain))
        if writes.is_empty():
            continue
        if len(_write_targets(s.body, array.name)) != 1:
            return f"statement {s.name} writes it more than once"
        if any(isinstance(e, N.Unary) and e.op in ("post++", "post--") and e is not s.body.expr
               for e in iter_exprs(s.body.expr)):
            return f"statement {s.name} uses the value of a post-increment"
        if not writes.is_single_valued():
            return f"statement {s.name} writes more than one element per instance"
    return ""


def _written_outside_loops(scop: Scop, name: str) -> str:
    """Why `name` frees no loop when every statement writing it runs once (no loop around it: the
    coefficients 3AC adi computes at the region's top, each 0.1 s of dataflow analysis)."""
    writers = statement_names(accesses_through(scop.must_writes, frozenset({name})).domain())
    if writers and all(scop.statement(w).domain.dim(isl.dim_type.set) == 0 for w in writers):
        return "written outside loops only: no loop reuses it, nothing to free"
    return ""


def _analyse(scop: Scop, name: str, dates: isl.UnionMap) -> tuple[str, int, isl.UnionMap]:
    """(why not, level, last writes [P] -> { S[i..] -> T[e..] }) for the caller array `name`."""
    names = frozenset({name})
    reads = accesses_through(scop.reads, names)                      # [P] -> { S[i..] -> T[e..] }
    writes = accesses_through(scop.must_writes, names)               # [P] -> { S[i..] -> T[e..] }
    kills = accesses_through(scop.kills, names)                      # [P] -> { K[i..] -> T[e..] }
    flow = (isl.UnionAccessInfo.from_sink(reads).set_must_source(writes).set_kill(kills)
            .set_schedule(scop.original_schedule).compute_flow())
    if not flow.get_may_no_source().intersect_params(scop.context).is_empty():
        return "read before it is written: its values enter the region", 0, writes
    values = flow.get_may_dependence().intersect_params(scop.context)   # [P] -> { W[..] -> R[..] }
    mine = dates.intersect_domain(reads.domain().union(writes.domain()).union(kills.domain()))
    pairs = reads.apply_range(writes.reverse()).union(writes.apply_range(writes.reverse()))   # same element
    false = false_dependences(reads, writes, earlier_pairs(pairs, mine)).intersect_params(scop.context)
    level = _private_level(values, false, mine)
    if level == 0:
        return "no loop reuses it without carrying its values: nothing to free", 0, writes
    # [P] -> { T[e..] -> [t..] }: when each element is last written or killed, in source order.
    events = writes.union(kills).reverse().apply_range(mine)
    last = events.lexmax().apply_range(mine.reverse()).reverse()    # [P] -> { S[i..] -> T[e..] }
    return "", level, last.intersect(writes)


class _Blocking:
    """The dependences privatizing one array leaves in place, and whether they still carry every
    loop the array's false dependences carry (then privatization frees nothing: adi's `p` and
    `q` rows are reused across the time loop, which `u` and `v` carry anyway)."""

    def __init__(self, scop: Scop, deps: Dependences, dates: isl.UnionMap, max_operations: int):
        self.scop, self.deps, self.dates, self.max_operations = scop, deps, dates, max_operations
        self._false: dict[str, isl.UnionMap] = {}
        self._same: dict[int, isl.UnionMap] = {}

    def same_prefix(self, k: int) -> isl.UnionMap:
        """`_same_prefix(dates, k)`, computed once for every array examined (every statement pair
        of the region: 3AC adi's were computed twice per loop depth and array)."""
        if k not in self._same:
            self._same[k] = _same_prefix(self.dates, k)
        return self._same[k]

    def false_dependences_of(self, name: str) -> isl.UnionMap:
        """[P] -> { S[i..] -> T[j..] }: the anti and output dependences through array `name`, the
        source order applied only to the statement pairs that share an element of it (all pairs of
        3AC adi's 80 statements at once, for each array examined, took 3.5 s of its 10)."""
        if name not in self._false:
            names = frozenset({name})
            reads, writes = accesses_through(self.scop.reads, names), accesses_through(self.scop.writes, names)
            pairs = reads.apply_range(writes.reverse()).union(writes.apply_range(writes.reverse()))   # same element
            self._false[name] = false_dependences(reads, writes, earlier_pairs(pairs, self.dates))
        return self._false[name]

    def why_nothing_freed(self, name: str, level: int) -> str:
        """'' when some schedule dimension within `level` is carried by `name`'s false dependences
        and by no other dependence (flow through any storage, false through the caller's)."""
        scop = self.scop
        flow = self.deps.flow                                        # [P] -> { S[i..] -> T[j..] }
        ctx = scop.context.get_ctx()
        try:
            with isl_budget(ctx, self.max_operations, f"privatization of '{name}'"):
                shared = [a.name for a in scop.arrays if not a.local and a.name != name]
                other = union_of([m for a in shared for m in maps_of(self.false_dependences_of(a))] + maps_of(flow),
                                 flow.get_space())
                other = other.subtract(self.deps.independent).intersect_params(scop.context)
                mine = self.false_dependences_of(name).intersect_params(scop.context)
                for k in range(level):
                    outer, inner = self.same_prefix(k), self.same_prefix(k + 1)
                    carried = mine.intersect(outer).subtract(inner)
                    if carried.is_empty():
                        continue
                    # Only the loops (executions of dimension k) the array's dependences are in:
                    # another nest's loop at the same depth carrying its own dependences frees
                    # nothing here and blocks nothing either.
                    instances = _in_same_loops(self.dates, k, carried.domain())
                    if other.intersect_domain(instances).intersect(outer).subtract(inner).is_empty():
                        return ""
        except BudgetExceeded as exc:
            return str(exc)
        return "every loop it would free carries other dependences"


def _private_level(values: isl.UnionMap, false: isl.UnionMap, dates: isl.UnionMap) -> int:
    """The most schedule dimensions k whose iterations every value flow stays in, if some false
    dependence leaves them (0: privatization frees no loop)."""
    depth = _date_depth(dates)
    level = 0
    for k in range(1, depth + 1):
        same = _same_prefix(dates, k)                                 # [P] -> { S -> T : equal first k dates }
        if not values.is_subset(same):
            break
        level = k
    if level == 0 or false.is_subset(_same_prefix(dates, level)):
        return 0
    return level


def _in_same_loops(dates: isl.UnionMap, k: int, instances: isl.UnionSet) -> isl.UnionSet:
    """[P] -> { S[i..] }: every instance whose first k dates are those of some instance in
    `instances` (the instances of the same executions of the loops around dimension k)."""
    prefix = _prefix(dates, k)
    return instances.apply(prefix).apply(prefix.reverse())


def _date_depth(dates: isl.UnionMap) -> int:
    depths: list[int] = []
    dates.foreach_map(lambda m: depths.append(m.dim(isl.dim_type.out)))
    return min(depths) if depths else 0


def _prefix(dates: isl.UnionMap, k: int) -> isl.UnionMap:
    """[P] -> { S[i..] -> [t0..t(k-1)] }: the first k dates of each instance."""
    prefix = isl.UnionMap.empty(dates.get_space())
    maps: list[isl.Map] = []
    dates.foreach_map(maps.append)
    for m in maps:
        n = m.dim(isl.dim_type.out)
        prefix = prefix.union(isl.UnionMap.from_map(m.project_out(isl.dim_type.out, k, n - k)))
    return prefix


def _same_prefix(dates: isl.UnionMap, k: int) -> isl.UnionMap:
    """[P] -> { S[i..] -> T[j..] : the first k dates of both instances are equal }."""
    prefix = _prefix(dates, k)
    return prefix.apply_range(prefix.reverse())


def _writers(last: isl.UnionMap) -> isl.UnionSet:
    """[P] -> { S[i..] }: the statements (all their instances) some of whose instances are in `last`."""
    out = isl.UnionSet.empty(last.get_space().params())
    sets: list[isl.Set] = []
    last.domain().foreach_set(sets.append)
    for piece in sets:
        out = out.union(isl.UnionSet.from_set(isl.Set.universe(piece.get_space())))
    return out


def _write_targets(body: Optional[N.Stmt], name: str) -> list[N.Expr]:
    """The lvalues of `body`'s assignments and increments that lie in the variable `name`."""
    if not isinstance(body, N.ExprStmt):
        return []
    out: list[N.Expr] = []
    for e in iter_exprs(body.expr):
        target = (e.target if isinstance(e, N.Assign)
                  else e.operand if isinstance(e, N.Unary) and e.op in ("++", "--", "post++", "post--")
                  else None)
        if target is not None:
            var = base_variable(target)
            if var is not None and var.name == name:
                out.append(target)
    return out


# ----------------------------------------------------------------------------- storage size
def _size_condition(array: ArrayInfo, arg, limit: int) -> tuple[Optional[int], str]:
    """(the private copy's bytes when its extents are constant, else None; the C condition that
    it takes at most `limit` bytes, '' when decided here)."""
    bytes_per = _element_bits(arg.type) // 8
    constants = [_constant(e) for e in array.extents]
    if all(c is not None for c in constants):
        return bytes_per * math.prod(constants), ""
    # Partial products, each bounded by the test before it, cannot overflow `long long`.
    factors = [_c_extent(e) for e in array.extents]
    bound = max(limit // bytes_per, 0)
    return None, " && ".join(f"({' * '.join(factors[:k + 1])} <= {bound}LL)" for k in range(len(factors)))


def _element_bits(t: T.CType) -> int:
    while isinstance(t, T.ArrayType):
        t = t.element
    return t.bits


def _constant(extent: isl.PwAff) -> Optional[int]:
    if not extent.is_cst():
        return None
    value: list[int] = []
    extent.foreach_piece(lambda _, aff: value.append(aff.get_constant_val().to_python()))
    return value[0] if len(value) == 1 else None


def _c_extent(extent: isl.PwAff) -> str:
    """`extent` as a C `long long` expression of the region's arguments (an extent is an `int`
    value of the program, so only the products need the wider type)."""
    build = isl.AstBuild.from_context(isl.Set.universe(extent.get_domain_space()))
    text, _ = c_expression(build.expr_from_pw_aff(extent))
    return f"(long long)({text})"


# ----------------------------------------------------------------------------- rewriting
def _rewrite(scop: Scop, chosen: list[tuple[ArrayInfo, int, isl.UnionMap]], kept: tuple[tuple[str, str], ...],
             condition: str, max_operations: int = 0, live: Optional[LiveRanges] = None) -> tuple[Scop, Privatization]:
    """The Scop with the arrays of `chosen` private and their last writes split off (see the module)."""
    args = {a.name: a for a in scop.region.args}
    renamed = {a.name: PRIVATE_PREFIX + a.name for a, _, _ in chosen}
    statements = {s.name: replace(s, body=_renamed_ir(s.body, renamed)) for s in scop.statements}
    next_index = 1 + max((int(s.name[2:]) for s in scop.compute_statements), default=-1)
    finals: dict[str, tuple[isl.Set, isl.MultiAff]] = {}   # writer -> ({ F[i..] }, { F[i..] -> S[i..] })
    reads, writes = _renamed(scop.reads, renamed), _renamed(scop.must_writes, renamed)
    done: list[PrivateArray] = []

    def split_off(s: ScopStatement, final: isl.Set, body: Optional[N.Stmt]) -> str:
        """Statement `s`'s instances `final` made a statement of their own running `body`."""
        nonlocal reads, writes, next_index
        name = f"S_{next_index}"
        next_index += 1
        domain = final.set_tuple_name(name)                                   # [P] -> { F[i..] }
        to_writer = isl.MultiAff.identity_on_domain_space(domain.get_space()).set_tuple_name(
            isl.dim_type.out, s.name)                                          # { F[i..] -> S[i..] }
        split = isl.UnionSet.from_set(final)
        reads = reads.subtract_domain(split).union(_pulled_back(reads, s.name, to_writer, domain))
        writes = writes.subtract_domain(split).union(_pulled_back(writes, s.name, to_writer, domain))
        statements[s.name] = replace(statements[s.name], domain=s.domain.subtract(final))
        statements[name] = ScopStatement(name, "compute", body, s.iterators, domain, s.loc)
        finals[s.name] = (domain, to_writer)
        return name

    for array, level, last in chosen:
        names: list[str] = []
        for s in scop.compute_statements:
            mine = last.intersect_domain(isl.UnionSet.from_set(s.domain))        # [P] -> { S[i..] -> T[e..] }
            if mine.is_empty():
                continue
            final = mine.domain().extract_set(s.domain.get_space())             # [P] -> { S[i..] }
            body = _final_body(s.body, array.name, renamed)
            if s.domain.subtract(final).is_empty():
                # Every instance writes a last value: the statement writes both copies.
                statements[s.name] = replace(statements[s.name], body=body)
                writes = writes.union(mine)
                names.append(s.name)
                continue
            names.append(split_off(s, final, body))
            writes = writes.union(isl.UnionMap.from_map(
                isl.Map.from_union_map(mine).preimage_domain_multi_aff(finals[s.name][1])))
        done.append(PrivateArray(array.name, renamed[array.name], tuple(names), level))
    fresh: dict[str, str] = {}
    for writer, companions, scalars in _three_address_units(scop, finals, max_operations, live):
        # The unit's split-off instances work on scalars of their own (see `_three_address_units`).
        fresh.update((t, LAST_PREFIX + t) for t in scalars)
        for companion, instances in companions:
            split_off(companion, instances, statements[companion.name].body)
        for s in [writer] + [c.name for c, _ in companions]:
            split = isl.UnionSet.from_set(finals[s][0])
            name = finals[s][0].get_tuple_name()
            ours = {t: fresh[t] for t in scalars}
            statements[name] = replace(statements[name], body=_renamed_ir(statements[name].body, ours))
            reads = reads.subtract_domain(split).union(_renamed(reads.intersect_domain(split), ours))
            writes = writes.subtract_domain(split).union(_renamed(writes.intersect_domain(split), ours))
    arrays = list(scop.arrays)
    locals_ = list(scop.locals)
    for array, _, _ in chosen:
        private = renamed[array.name]
        arrays[arrays.index(array)] = replace(array, killed=False)
        arrays.append(replace(array, name=private, local=True, live_out=False))
        locals_.append(N.VarDecl(private, args[array.name].type.unqualified(), None, scop.region.loc))
    declared = {d.name: d for d in scop.locals}
    for array in [a for a in scop.arrays if a.name in fresh]:
        arrays.append(replace(array, name=fresh[array.name], killed=False))
        locals_.append(replace(declared[array.name], name=fresh[array.name]))
    every = isl.UnionSet.empty(scop.context.get_space())                           # [P] -> { S[i..] }
    compute = every
    for s in statements.values():
        every = every.union(isl.UnionSet.from_set(s.domain))
        if s.kind == "compute":
            compute = compute.union(isl.UnionSet.from_set(s.domain))
    original = _with_final_writes(scop.original_schedule, finals).intersect_domain(every)
    annotations = tuple(_with_final_statements(a, finals) for a in scop.annotations)
    result = scop.with_model(statements=tuple(statements.values()), arrays=tuple(arrays), reads=reads,
                             must_writes=writes, kills=_renamed(scop.kills, renamed),
                             original_schedule=original, schedule=original.intersect_domain(compute),
                             locals=tuple(locals_), annotations=annotations)
    return result, Privatization(tuple(done), kept, condition)


def _three_address_units(scop: Scop, finals: dict[str, tuple[isl.Set, isl.MultiAff]], max_operations: int,
                         live_ranges_of_scop: Optional[LiveRanges] = None
                         ) -> list[tuple[str, list[tuple[ScopStatement, isl.Set]], frozenset[str]]]:
    """For each split-off last writer of `finals`, the statements that compute its value through
    region-local scalars in the same loops (3AC doitgen's `t1 = A[r][q][s] * C4[s][p]; t2 = sum[p]
    + t1;` before `sum[p] = t2;`: `scalar_units`), each with its instances at the writer's
    split-off iterations, and the scalars they use: (writer, [(statement, instances)], scalars).

    Split at the same iterations and given scalars of their own, those instances and the writer's
    are a unit with no false dependence on the others: the scheduler may run them after the
    loop nest, as it runs the one split-off statement of the original form, where the shared
    temporaries' anti and output dependences would keep them inside it. Renaming is exact when
    every value of those scalars that the split-off instances write is read by split-off
    instances only, and every value they read was written by one (value-based flow,
    `live_ranges_of_scop`, computed here if not given); a unit where that does not hold is left
    as it is."""
    scalars = scop.local_scalars
    by_name = {s.name: s for s in scop.compute_statements}
    writers = [n for n in finals if n in by_name]
    if not scalars or not writers:
        return []
    try:
        live = (live_ranges_of_scop or live_ranges(scop, max_operations)).get()   # [P] -> { W[..] -> R[..] }
    except BudgetExceeded:
        return []
    accesses = scalar_accesses(scop)
    found: list[tuple[str, list[tuple[ScopStatement, isl.Set]], frozenset[str]]] = []
    taken = set(writers)
    for writer in writers:
        final = finals[writer][0].set_tuple_name(writer)                   # [P] -> { S[i..] }
        loops = [s.name for s in scop.compute_statements if s.iterators == by_name[writer].iterators]
        unit = next(u for u in scalar_units(loops, accesses) if writer in u)
        if any(n in taken and n != writer for n in unit):
            continue
        companions = [(by_name[n], final.set_tuple_name(n).intersect(by_name[n].domain)) for n in unit if n != writer]
        companions = [(s, part) for s, part in companions if not part.is_empty()]
        split = isl.UnionSet.from_set(final)
        for _, part in companions:
            split = split.union(isl.UnionSet.from_set(part))
        used = accesses_through(scop.reads.union(scop.writes), scalars).intersect_domain(split)
        ctx = scop.context.get_ctx()
        with isl_budget(ctx, max_operations, "three-address units"):
            closed = (live.intersect_domain(split).subtract_range(split).is_empty()
                      and live.intersect_range(split).subtract_domain(split).is_empty())
        if companions and closed:
            taken.update(s.name for s, _ in companions)
            found.append((writer, companions, frozenset(m.get_tuple_name(isl.dim_type.out) for m in maps_of(used))))
    return found


def _pulled_back(accesses: isl.UnionMap, writer: str, to_writer: isl.MultiAff, domain: isl.Set) -> isl.UnionMap:
    """[P] -> { F[i..] -> A[a..] }: the accesses of statement `writer` as accesses of its split-off part."""
    out = isl.UnionMap.empty(accesses.get_space())
    maps: list[isl.Map] = []
    accesses.foreach_map(maps.append)
    for m in maps:
        if m.get_tuple_name(isl.dim_type.in_) == writer:
            out = out.union(isl.UnionMap.from_map(m.preimage_domain_multi_aff(to_writer).intersect_domain(domain)))
    return out


def _final_body(body: N.ExprStmt, name: str, renamed: dict[str, str]) -> N.ExprStmt:
    """`body` on the private copies, its write to `name` also stored to the caller's element:
    `sum[p] += x` becomes `sum[p] = (__pencil_private_sum[p] += x)` (an assignment's value is
    the value stored), `t++` becomes `t = ++__pencil_private_t`."""
    target = _write_targets(body, name)[0]            # the caller's lvalue, as written

    def rewrite(node: object) -> object:
        if isinstance(node, N.VarRef) and node.name in renamed:
            return replace(node, name=renamed[node.name], scope="local")
        written = (node.target if isinstance(node, N.Assign)
                   else node.operand if isinstance(node, N.Unary) and node.op in _INCREMENTS else None)
        base = base_variable(written) if written is not None else None
        if base is None or base.name != renamed[name]:
            return node
        if isinstance(node, N.Unary):
            node = replace(node, op=_INCREMENTS[node.op])
        return N.Assign("=", target, node, type=target.type, loc=node.loc)

    return transform(body, rewrite)


# The increments whose value is the stored value: a post-increment (only ever the whole
# statement, see `_unsuitable`) becomes the pre-increment.
_INCREMENTS = {"++": "++", "--": "--", "post++": "++", "post--": "--"}


def _renamed(accesses: isl.UnionMap, renamed: dict[str, str]) -> isl.UnionMap:
    """`accesses` with the arrays named in `renamed` replaced by their new names."""
    out = isl.UnionMap.empty(accesses.get_space())
    maps: list[isl.Map] = []
    accesses.foreach_map(maps.append)
    for m in maps:
        name = m.get_tuple_name(isl.dim_type.out)
        out = out.union(isl.UnionMap.from_map(m.set_tuple_name(isl.dim_type.out, renamed[name])
                                              if name in renamed else m))
    return out


def _renamed_ir(node, renamed: dict[str, str]):
    """The IR `node` (statement or expression) with the variables of `renamed` replaced by region locals."""
    if node is None:
        return None
    return transform(node, lambda n: replace(n, name=renamed[n.name], scope="local")
                     if isinstance(n, N.VarRef) and n.name in renamed else n)


def _with_final_statements(annotation: LoopAnnotation, finals: dict[str, tuple[isl.Set, isl.MultiAff]]) -> LoopAnnotation:
    """A loop annotation that also covers the split-off last writes of the statements inside the loop."""
    added = tuple(finals[s][0].get_tuple_name() for s in annotation.statements if s in finals)
    return replace(annotation, statements=annotation.statements + added) if added else annotation


class _UnexpectedNode(Exception):
    """A schedule tree node the rebuild does not handle (the source order has none)."""


def _with_final_writes(schedule: isl.Schedule, finals: dict[str, tuple[isl.Set, isl.MultiAff]]) -> isl.Schedule:
    """The source-order `schedule` with each split-off last write at its writer's place: in the
    writer's leaf, with the writer's dates (the two parts' instances are disjoint)."""

    def at(node: isl.ScheduleNode) -> isl.Schedule:
        kind = node.get_type()
        if kind in (isl.schedule_node_type.domain, isl.schedule_node_type.filter):
            return at(node.child(0))
        if kind == isl.schedule_node_type.leaf:
            here = node.get_domain()                                  # [P] -> { S[i..] } reaching this leaf
            for domain, to_writer in finals.values():
                writer = here.extract_set(to_writer.get_space().range())
                if not writer.is_empty():
                    here = here.union(isl.UnionSet.from_set(writer.preimage_multi_aff(to_writer).intersect(domain)))
            return isl.Schedule.from_domain(here)
        if kind == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()
            band = isl.UnionMap.from_multi_union_pw_aff(partial)                          # { S[i..] -> [t] }
            added = False
            for domain, to_writer in finals.values():
                own = _pulled_back(band, to_writer.get_tuple_name(isl.dim_type.out), to_writer, domain)
                if not own.is_empty():
                    band, added = band.union(own), True
            # A band whose partial schedule has no piece (its statements run no instance: random
            # program seed 4701812) has no range space to rebuild it from: it is kept as it is.
            inner = at(node.child(0)).insert_partial_schedule(
                isl.MultiUnionPwAff.from_union_map(band) if added else partial)
            rebuilt = inner.get_root().child(0).band_set_permutable(node.band_get_permutable())
            for m in range(node.band_n_member()):
                rebuilt = rebuilt.band_member_set_coincident(m, node.band_member_get_coincident(m))
            return rebuilt.get_schedule()
        if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            parts = [at(node.child(k)) for k in range(node.n_children())]
            combine = isl.Schedule.sequence if kind == isl.schedule_node_type.sequence else isl.Schedule.set
            result = parts[0]
            for part in parts[1:]:
                result = combine(result, part)
            return result
        if kind == isl.schedule_node_type.mark:
            return at(node.child(0)).get_root().child(0).insert_mark(node.mark_get_id()).get_schedule()
        raise _UnexpectedNode(str(kind))

    return at(schedule.get_root())
