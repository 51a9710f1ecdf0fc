# SPDX-License-Identifier: MIT
"""Modulo expansion of region-local scalars for `reduction-jam`: one copy of an accumulator per
jammed iteration.

Input: a `Scop`, region-local scalars `t` (0-d local storage), the statements that access them,
an iterator name `x` common to those statements and a factor `R`. Output: the same region in
which every access to `t` is an access to `__pencil_jam_t[x mod R]`, a new region-local array of
`R` elements, in the IR bodies and in the isl accesses together (`Expansion`), or None when the
rewrite does not apply (module conditions below).

Why: `reduction-jam` runs R consecutive iterations of a loop L together inside an inner loop J,
so that J carries R independent accumulation chains instead of one. When the chain accumulates
into a scalar (symm's `acc += B[k][j] * A[i][k]` under `for j`, `acc = 0.0` before J and its
use after it), the R copies of one iteration of J would all add into the same scalar: each copy
needs its own. Expanding `t` along L's iterator modulo R gives consecutive iterations of L
distinct elements (modulo variable expansion, Lam, "Software pipelining", PLDI 1988; scalar
expansion, Kuck et al. 1981), and after unrolling the element indices are constants, which
LLVM's SROA turns back into R registers. Each copy still adds its terms in the order of J:
nothing is reassociated.

With a second iterator `y` and factor `Q` (`reduction-jam`'s scalar tiles, rows and columns
jammed together) the element is `(y mod Q) * R + x mod R` of a `Q * R`-element array.

The caller checks the result: the jammed schedule against the dependences and live ranges of
the rewritten model (no live range of an element interrupted by another write to it), so an
iterator whose residues do not separate the copies of a strip is refused there.

Conditions: every statement that accesses `t` names `x` among its iterators, is not control flow
run whole (an opaque loop or `if`), never has `t` as a may-write; `t` is region-local and scalar,
and no `reduction` clause names it. The index is `x % R` in C when `x` is never
negative where `t` is accessed, else `(x % R + R) % R` (C's `%` truncates; isl's `mod` floors).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import transform
from clangpass.poly.demotion import redirected
from clangpass.poly.scop import Scop, accesses_through, statement_names

JAM_PREFIX = "__pencil_jam_"


@dataclass(frozen=True)
class Expansion:
    """One scalar expanded for a jam: `acc -> __pencil_jam_acc[j % 16]`."""

    scalar: str
    array: str
    iterator: str
    factor: int
    rows: Optional[tuple[str, int]] = None     # the row iterator and factor of a 2-D jam

    def describe(self) -> str:
        if self.rows is None:
            return f"{self.scalar} -> {self.array}[{self.iterator} % {self.factor}]"
        row, count = self.rows
        return f"{self.scalar} -> {self.array}[{row} % {count} * {self.factor} + {self.iterator} % {self.factor}]"


def expand_for_jam(scop: Scop, scalars: frozenset[str], iterator: str, factor: int,
                   rows: Optional[tuple[str, int]] = None) -> Optional[tuple[Scop, tuple[Expansion, ...]]]:
    """`scop` with each of `scalars` expanded along `iterator` modulo `factor` (module doc), and
    what was done; None when a condition fails. With `rows` (an iterator `y` and a factor `Q`:
    a jam of rows and columns together, `reduction-jam`'s scalar tiles), along both: the element
    `(y mod Q) * R + x mod R` of a `Q * R`-element array."""
    local = scop.local_scalars
    if not scalars or not scalars <= local or factor < 2 or rows is not None and (rows[1] < 2 or rows[0] == iterator):
        return None
    if not accesses_through(scop.may_writes, scalars).is_empty():
        return None
    if any(t in a.reductions for a in scop.annotations for t in scalars):
        return None                  # a reduction clause names it: the clause would name a vanished variable
    taken = {a.name for a in scop.arrays} | {d.name for d in scop.locals}
    infos = {a.name: a for a in scop.arrays}
    declared = {d.name: d for d in scop.locals}
    statements = {s.name: s for s in scop.statements}
    reads, writes = scop.reads, scop.must_writes
    arrays, locals_ = list(scop.arrays), list(scop.locals)
    done: list[Expansion] = []
    ctx_space = scop.context.get_space()
    for t in sorted(scalars):
        if t not in declared:
            return None
        name = JAM_PREFIX + t
        while name in taken:
            name += "_"
        taken.add(name)
        one = frozenset({t})
        users = statement_names(accesses_through(reads, one).domain().union(
            accesses_through(writes, one).domain()))
        if not users:
            return None
        element = infos[t].element
        size = factor * (rows[1] if rows is not None else 1)
        array_type = T.ArrayType(element=element, extent=N.IntLit(size, type=T.INT), constant_extent=size)
        for s_name in sorted(users):
            s = statements[s_name]
            if iterator not in s.iterators or s.body is None or s.opaque:
                return None          # control flow run whole might declare a name of its own
            if rows is not None and rows[0] not in s.iterators:
                return None
            p = s.iterators.index(iterator)
            space = s.domain.get_space()
            index = _residue(s.domain, p, factor)
            subscript = _index(iterator, factor, _nonnegative(scop, s.domain, p))
            if rows is not None:
                q = s.iterators.index(rows[0])
                index = _residue(s.domain, q, rows[1]).scale_val(isl.Val.int_from_si(space.get_ctx(), factor)).add(index)
                row = _index(rows[0], rows[1], _nonnegative(scop, s.domain, q))
                subscript = N.Binary("+", N.Binary("*", row, N.IntLit(factor, type=T.LONG), type=T.LONG),
                                     subscript, type=T.LONG)
            to_element = isl.Map.from_aff(index).set_tuple_name(isl.dim_type.out, name) \
                .intersect_domain(s.domain)                           # [P] -> { S[x..] -> t'[(x_p mod R)] }
            own = isl.UnionSet.from_set(s.domain)
            element_access = isl.UnionMap.from_map(to_element)
            reads = redirected(reads, one, own, element_access)
            writes = redirected(writes, one, own, element_access)
            ref = N.VarRef(name, type=array_type)
            body = transform(s.body, lambda node, ref=ref, subscript=subscript:
                             N.Subscript(ref, subscript, type=element, loc=node.loc)
                             if isinstance(node, N.VarRef) and node.name == t else node)
            statements[s_name] = replace(s, body=body)
        extent = isl.PwAff.from_aff(isl.Aff.zero_on_domain(isl.LocalSpace.from_space(ctx_space))
                                    .set_constant_val(isl.Val.int_from_si(ctx_space.get_ctx(), size)))
        arrays.append(replace(infos[t], name=name, extents=(extent,), killed=False, live_out=False, storage=()))
        locals_.append(N.VarDecl(name, array_type, None, declared[t].loc))
        done.append(Expansion(t, name, iterator, factor, rows))
    expanded = scop.with_model(statements=tuple(statements[s.name] for s in scop.statements),
                               arrays=tuple(arrays), reads=reads.coalesce(), must_writes=writes.coalesce(),
                               locals=tuple(locals_))
    return expanded, tuple(done)


def _residue(domain: isl.Set, p: int, factor: int) -> isl.Aff:
    """{ S[x..] -> [(x_p mod factor)] } on `domain`'s space."""
    return isl.Aff.var_on_domain(isl.LocalSpace.from_space(domain.get_space()), isl.dim_type.set, p) \
        .mod_val(isl.Val.int_from_si(domain.get_ctx(), factor))


def _nonnegative(scop: Scop, domain: isl.Set, p: int) -> bool:
    """Whether iterator `p` is never negative in `domain` (under the region's context)."""
    return domain.intersect_params(scop.context).is_subset(
        domain.lower_bound_val(isl.dim_type.set, p, isl.Val.zero(domain.get_ctx())))


def _index(iterator: str, factor: int, nonnegative: bool) -> N.Expr:
    """The C index `x % R`, or `(x % R + R) % R` when `x` may be negative (iterators are long)."""
    x = N.VarRef(iterator, type=T.LONG)
    r = N.IntLit(factor, type=T.LONG)
    rem = N.Binary("%", x, r, type=T.LONG)
    if nonnegative:
        return rem
    return N.Binary("%", N.Binary("+", rem, r, type=T.LONG), r, type=T.LONG)
