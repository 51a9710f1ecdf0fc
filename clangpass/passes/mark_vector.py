# SPDX-License-Identifier: MIT
"""Pass `mark-vector`: mark the innermost loop of each nest whose iterations are independent.

Input: Scop after `point-loop-order` (the innermost loops are chosen) and
`mark-parallel`. Output: for each band with no band below it whose last member
carries no dependence (`clangpass.poly.validity.carries_dependence`, with the
outer bands and the band's other members fixed), that member split into a band of
its own under a `vector` mark. The CPU back end lowers a marked loop with its
loads and stores of shared arrays in one access group listed as
`llvm.loop.parallel_accesses` and with `llvm.loop.vectorize.enable`: the loop
vectoriser then needs no run-time alias or dependence checks (the array
arguments of a PENCIL function may share storage as far as LLVM can tell), which
is what kept it from vectorising most point loops. This is the innermost-loop
half of PPCG's parallelism detection (Verdoolaege et al., TACO 2013, section 5.1)
handed to LLVM's vectoriser instead of thread-level code.

A loop under `#pragma pencil ivdep` ignores the dependences it carries here
(clangpass.poly.annotations): the pragma says they do not prevent vector lanes.

A band over statements that call a function (one with a summary or a PENCIL function
that returns a value: clangpass.poly.calls) is not marked: LLVM cannot vectorise an
opaque call, and a `vectorize.enable` it cannot follow only earns a remark.

A band directly under a `parallel` mark runs on threads and is left alone; the
mark is checked again by `verify-schedule` like a parallel loop's.

Statements split apart: where the last member carries a dependence only because
several statements share the loop (time-skewed stencils: jacobi-2d's tiles run
`S_1(t, i - 1, j - 1); S_0(t, i, j)` in one loop over j, S_1 reading at j what S_0
wrote one iteration before), the member is split by statement into a sequence of
loops, one per statement, when (a) the dependences between instances that share
the outer dates (all memory dependences, false ones included, so that no live range
is cut) order the statements without a cycle, the sequence following that order,
and (b) at least one of the single-statement loops then carries no dependence and
gets its `vector` mark. Consecutive statements of that order that would give no vector
loop (a constant date there, or a dependence carried) keep sharing one loop (`_grouped`):
only the vector loops are split off, and only loops that iterate are marked. This is
loop distribution (Kennedy & Allen, "Optimizing compilers for modern architectures",
2001, section 2.4.2: the statements of an acyclic dependence graph in topological
order) applied to the innermost point loop, where it costs no locality: the loops run
over the same few cache lines.
"""
from __future__ import annotations

from dataclasses import replace

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import iter_exprs, iter_stmts, stmt_exprs

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.live_ranges import scalar_accesses, scalar_units
from clangpass.poly.scop import accesses_through, instances_of, statement_names
from clangpass.poly.validity import (PARALLEL_MARK, VECTOR_MARK, carries_dependence, carries_local,
                                     local_dependences, maps_of)


@register
class MarkVector(Pass):
    """Insert a `vector` mark above the innermost member of each innermost band that carries no dependence."""

    name = "mark-vector"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        marked = [0]
        calling = calling_statements(scop)
        accesses: list[tuple[tuple[str, str], ...]] = []      # the region's, computed once if needed
        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "mark-vector"):
                # The dependences verify-schedule holds parallel loops to: after relax-false-deps
                # the enforced ones (local storage is not in the loop's access group: LLVM
                # checks it itself).
                deps = unit.relaxed.enforced if unit.relaxed is not None else unit.dependences.all   # [P] -> { S -> T }
                if scop.annotations:
                    deps = deps.subtract(unit.dependences.vector_independent)   # `ivdep` loops (and `independent`)

                def memory_deps() -> isl.UnionMap:
                    """Every memory dependence: what a split into statements must keep in order."""
                    return unit.dependences.all                      # [P] -> { S -> T }

                def local_scalar_accesses() -> tuple[tuple[str, str], ...]:
                    """The region's `scalar_accesses`, computed when a band first needs them."""
                    if not accesses:
                        accesses.append(scalar_accesses(scop))
                    return accesses[0]

                def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
                    """Mark under `node`; returns the node now at `node`'s position."""
                    if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() in (
                            PARALLEL_MARK, VECTOR_MARK) and is_innermost_band(node.child(0)):
                        return node              # the threads' loop, or already marked
                    if node.get_type() == isl.schedule_node_type.band and is_innermost_band(node):
                        if statement_names(node.get_domain()) & calling:
                            return node          # LLVM cannot vectorise a call of ours (and says so)
                        last = node.band_n_member() - 1
                        local = local_dependences(node, deps, last)    # once for every statement set
                        if not carries_local(node, local, last):
                            marked[0] += 1
                            return _mark_last(node)
                        # By statement, else (three-address code) by units of statements
                        # that share a temporary.
                        order = (_statement_order(node, last, memory_deps(), None)
                                 or _statement_order(node, last, memory_deps(), local_scalar_accesses()))
                        if order is not None:
                            vector = [_iterates(node, last, f) and not carries_local(
                                          node, local.intersect_domain(f).intersect_range(f), last) for f in order]
                            if any(vector):
                                node, count = _split_last(node, _grouped(order, vector), deps)
                                marked[0] += count
                        return node
                    for k in range(node.n_children()):
                        node = visit(node.child(k)).parent()
                    return node

                schedule = visit(scop.schedule.get_root()).get_schedule()
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no vector loop marked")
        if not marked[0]:
            return unit
        return replace(unit, scop=scop.with_schedule(schedule))


def calling_statements(scop) -> set[str]:
    """The statements that call a function other than a builtin (clangpass.poly.calls)."""
    out = set()
    for stmt in scop.statements:
        if stmt.body is not None and any(isinstance(sub, N.Call) and not sub.builtin
                                         for sub_stmt in iter_stmts(stmt.body) for e in stmt_exprs(sub_stmt) for sub in iter_exprs(e)):
            out.add(stmt.name)
    return out


def is_innermost_band(node: isl.ScheduleNode) -> bool:
    """Whether `node` is a band with no band below it."""
    if node.get_type() != isl.schedule_node_type.band:
        return False
    below = [False]

    def look(descendant: isl.ScheduleNode) -> bool:
        if descendant.get_type() == isl.schedule_node_type.band and not descendant.is_equal(node):
            below[0] = True
        return not below[0]

    node.foreach_descendant_top_down(look)
    return not below[0]


def _mark_last(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """Split off `band`'s last member and mark it; returns the node at `band`'s position."""
    n = band.band_n_member()
    node = band.band_split(n - 1).child(0) if n > 1 else band
    node = node.insert_mark(isl.Id(VECTOR_MARK, context=node.get_ctx()))
    return node.parent() if n > 1 else node


#: Statements sharing an innermost loop beyond which it is not split (a sequence of
#: that many loops, each over few cache lines, is not worth isl's AST work).
MAX_SPLIT_STATEMENTS = 8


def _statement_order(band: isl.ScheduleNode, member: int, deps: isl.UnionMap,
                     accesses: tuple[tuple[str, str], ...] | None) -> list[isl.UnionSet] | None:
    """The instances of each statement reaching `band` (with the region's `scalar_accesses`, of
    each unit of statements that share a region-local scalar: `scalar_units`), in an order in which member `member` may run
    one loop per unit (see the module docstring), or None: one unit, too many, or dependences
    between instances sharing the outer dates in both directions."""
    instances = band.get_domain()                                    # [P] -> { S[i..] }
    names = sorted(statement_names(instances), key=lambda n: (len(n), n))   # S_2 before S_10: textual order
    units = scalar_units(names, accesses) if accesses is not None else [[n] for n in names]
    names = [unit[0] for unit in units]                              # each unit by its first statement
    if not 2 <= len(names) <= MAX_SPLIT_STATEMENTS:
        return None
    pieces = {unit[0]: instances_of(instances, set(unit)) for unit in units}
    prefix = band.get_prefix_schedule_union_map()                    # [P] -> { S[i..] -> [outer dates] }
    partial = band.band_get_partial_schedule()
    for k in range(member):
        prefix = prefix.flat_range_product(isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(k)))
    local = (deps.intersect_domain(instances).intersect_range(instances)
             .intersect(prefix.apply_range(prefix.reverse())))       # [P] -> { S -> T : same outer dates }
    before = {n: set() for n in names}                               # before[t]: statements that must precede t
    for source in names:
        for target in names:
            if source != target and not local.intersect_domain(pieces[source]).intersect_range(
                    pieces[target]).is_empty():
                before[target].add(source)
    order: list[str] = []
    while len(order) < len(names):                                   # Kahn's algorithm, textual order on ties
        ready = [n for n in names if n not in order and before[n] <= set(order)]
        if not ready:
            return None                                              # a cycle: the loop stays fused
        order.append(ready[0])
    return [pieces[n] for n in order]


def _iterates(band: isl.ScheduleNode, member: int, instances: isl.UnionSet) -> bool:
    """Whether a statement of `instances` runs more than once along `member`: its date there
    depends on its iterators (the expression, not the domain). A statement with a constant date
    (gesummv's `tmp[i] = 0` in the `j` band isl fused it into) gives no vector loop when split off."""
    dates = band.band_get_partial_schedule().get_union_pw_aff(member).intersect_domain(instances)
    pieces = dates.get_pw_aff_list()
    found = [False]
    for k in range(pieces.n_pw_aff()):
        date = pieces.get_at(k)
        n = date.dim(isl.dim_type.in_)
        date.foreach_piece(lambda _, aff: found.__setitem__(0, found[0] or aff.involves_dims(isl.dim_type.in_, 0, n)))
    return found[0]


def _grouped(order: list[isl.UnionSet], vector: list[bool]) -> list[isl.UnionSet]:
    """`order` with each run of consecutive pieces that give no vector loop (`vector` False: a
    constant date, or a dependence carried) joined into one piece: those statements keep sharing
    one loop. Joining neighbours of a valid order keeps it valid: the band ran them in one loop,
    and no other piece comes between them. Split apart they would only lose: two recurrences
    (PRE adi's `p` and `q` sweeps, each a chain of divisions) overlap in one loop and run one
    after the other in two, and the statements' shared loads are repeated."""
    grouped: list[isl.UnionSet] = []
    for k, piece in enumerate(order):
        if k and not vector[k] and not vector[k - 1]:
            grouped[-1] = grouped[-1].union(piece)
        else:
            grouped.append(piece)
    return grouped


def _split_last(band: isl.ScheduleNode, order: list[isl.UnionSet],
                deps: isl.UnionMap) -> tuple[isl.ScheduleNode, int]:
    """`band` with its last member split into one loop per statement set of `order`, each
    marked `vector` where it carries no dependence; (the node at `band`'s position, marks)."""
    n = band.band_n_member()
    node = band.band_split(n - 1).child(0) if n > 1 else band
    filters = isl.UnionSetList.alloc(node.get_ctx(), len(order))
    for piece in order:
        filters = filters.add(piece)
    node = node.insert_sequence(filters)                             # sequence { filter: band copy }
    marked = 0
    for k in range(node.n_children()):
        loop = node.child(k).child(0)                                # the member's loop over one statement
        if _iterates(loop, 0, loop.get_domain()) and not carries_dependence(loop, deps, 0):
            loop = loop.insert_mark(isl.Id(VECTOR_MARK, context=loop.get_ctx()))
            marked += 1
        node = loop.parent().parent()                                # filter, then the sequence
    return (node.parent() if n > 1 else node), marked
