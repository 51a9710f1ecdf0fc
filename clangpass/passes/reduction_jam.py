# SPDX-License-Identifier: MIT
"""Pass `reduction-jam`: unroll-and-jam the loop around a serial reduction.

Input: Scop after `mark-vector` (the vector loops are marked). Output: each loop L
whose body holds, one level down, an innermost loop J that accumulates into one
element per iteration of L (`tmp[i] += A[i][j] * x[j]`: the write stays on one
element along J and moves along L, and the statement reads the array it writes
only at that element), strip-mined by R = `JAM` (3) and its point loop sunk to the
leaves of its subtree and unrolled:

    band [L - L mod R]            isolate option: the full strips apart
      ... (the subtree of L, J included, unchanged)
        band [L mod R]            at every leaf; AST loop type `unroll`

so that one iteration of J runs the R statement instances of R consecutive
iterations of L: R independent accumulation chains instead of one. Why: such a J
loop is neither vectorisable (the adds into `tmp[i]` are a floating-point
reduction, which may not be reassociated) nor limited by memory when its data
comes from the caches: each iteration waits for the previous add (3 to 4 cycles
on current x86 cores) while the core could issue two adds a cycle. atax at
PolyBench LARGE (M=1900 N=2100) runs at exactly that bound with gcc -O3 and with
pencilcc's source order (1900 x 2100 x 3 cycles = 12 million cycles, 4.3 ms); the
same loop jammed by 4 by hand runs in 2.3 ms, by this pass (by 3) in 2.65 ms, with
identical results (docs/passes/reduction-jam.md). This is unroll-and-jam (Allen & Cocke, "A
catalogue of optimizing transformations", 1972; Carr & Kennedy, "Improving the
ratio of memory operations to floating-point operations in loops", TOPLAS 1994,
section 3) used for instruction-level parallelism, as register-tile does for
matrix products; each element still receives its terms in the source order, so
the results are bit-identical.

Legality: the new schedule is checked against every memory dependence (isl:
every dependence goes from an earlier to a later date), or, when the region has
local storage, against the relaxed criterion of thesis ch. 2 (its false
dependences may be broken where no live range is interrupted); a loop whose
jammed schedule breaks them is left alone. `verify-schedule` checks again. The
R copies go above each leaf; when that interrupts a live range (three-address
code: `t1 = A[i][j] * x[j]; tmp[i] += t1;` are two leaves, and the copies of the
first would overwrite `t1` before the second reads it), above each sequence of
leaves instead, so that each copy runs its whole block. The `vector`
and `parallel` marks stay where they were: a vector loop J (atax's `y[j] +=
A[i][j] * tmp[i]`) keeps its mark and now updates its element with R terms per
iteration; the parallel loop L becomes its strip loop (same iterations, R at a
time).

Scope: J must hold one or two such chains (`MAX_CHAINS`: gesummv's two chains over
two matrices still wait on the add latency of a 4-cycle core, where an earlier 3-cycle
machine had them at the memory bandwidth); L must have no band below
it but the innermost loops (the jammed subtree is at most two loops deep), hold at
most `MAX_STATEMENTS` statements (the body is copied R times), and have full strips
(isolated by a constant band under the strip loop, so that the unrolled copies need
no guards there).

Triangular chains (`_jam_triangle`): where J's range grows with L (trisolv's `for (j = 0;
j < i; j++) x[i] -= L[i][j] * x[j];` then `x[i] /= L[i][i]`, each row reading the rows
solved before it), J alone under L's sequence is split in two: the rectangle, J's instances
left of the strip of their row (j < i - i mod R, R = `TRIANGLE_JAM`, 8), where every row of
a full strip runs the same j, jammed as above; and the strip's own triangle with the rest of L's body, run row after
row as before. Each row still receives its terms in the order of j, and the legality check
refuses rows that read what an earlier row of their strip finishes later (`x[i - 1]` in the
chain). trisolv at LARGE (N=2000), one thread: 1.35 ms against gcc -O3's 2.80 (2.08x).
L may be the last member of a wider band (split off) and its range may move with the loops
outside it; statements at a constant date of J stay out of the rectangle. The legality check
reads `Dependences.ordering`, where the updates of exact reductions may change places
(clangpass.poly.exact_reductions): nussinov's row starts then run after the rectangle, and
`keep-streams` leaves its band untiled for this pass (`exact_triangle`).

`keep-streams` leaves the two-deep bands of such chains untiled for this pass. The record
counts the jammed loops (`jammed_loops`), triangular ones included.

Scalar chains (`_jam_scalar_chains`): when J's chain statements write nothing but a
region-local scalar they read (symm's `acc += B[k][j] * A[i][k]`, `acc = 0.0` before J and its
use after it, all under L), each jammed copy needs an accumulator of its own: the scalar is
expanded modulo R along L's iterator (clangpass.poly.jam_expansion: `acc` becomes
`__pencil_jam_acc[j % R]`), the jam is checked against the dependences and live ranges of
the expanded model, and the pass hands those on (it changes the model then). R is
`SCALAR_JAM` (16) where the chain's loads are consecutive along L (LLVM vectorises the copies),
else `JAM`. The record lists the expansions (`jam_expanded_scalars`).

Scalar tiles (`_jam_scalar_tile`): when such a J is the only loop of the sequence below the band,
the band's member before L (the rows, which may bound J's range: symm's `k < i`) is jammed too,
by SCALAR_ROWS, under an isl budget of its own (the columns alone are tried next): the scalar
is expanded along both iterators (`acc -> __pencil_jam_acc[i % 4 * 16 + j % 16]`), and J's
rectangle left of each strip of rows (the instances every row of the strip runs) gets SCALAR_ROWS
x SCALAR_JAM chains per step, each load of the columns' operand used by every row; the strip's
triangle and the statements after J run row after row (`_jam_tile`). Checked like the scalar
chains, on the expanded model.

In a nest `row-blocks` built (its record says so), R is `ROW_JAM` (6), L's range may move
with the block loop around it as long as a single strip is ever partial (the last rows of
the matrix: `_one_partial_strip`), and a loop L whose only inner loop is a vector loop J of
column updates (`y[c] += A[r][c] * t[r]`: the element moves with unit stride along J and
stays the same along L) is jammed too, so that each element is loaded and stored once for
R terms, added in L's order (`column_updates`).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.row_blocks import ROW_JAM, RowBlocksRecord
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.dependences import Dependences, compute_dependences
from clangpass.poly.jam_expansion import expand_for_jam
from clangpass.poly.live_ranges import (LiveRanges, RelaxedDependences, breaks_relaxed_criterion, live_ranges,
                                        relax_false_dependences)
from clangpass.poly.scop import Scop, accesses_through, statement_names
from clangpass.poly.strides import Stride, band_dates, stride_table
from clangpass.poly.validity import VECTOR_MARK, breaks_dependences

#: Iterations of L jammed together: independent chains per iteration of J. One add a cycle
#: at a latency of 3 cycles wants 3. Measured at PolyBench LARGE (docs/passes/reduction-jam.md):
#: 3 gives atax 1.65x, mvt 1.25x, bicg 1.5x gcc's speed; 4 is faster on atax and bicg but makes
#: LLVM's SLP vectoriser combine the 4 rows' loads into AVX-512 gathers on mvt and gemver (0.7x
#: and 0.75x of gcc), which no 3-wide vector invites; 2 leaves a third of the gain.
JAM = 3
#: Statements under L beyond which it is not jammed (each is copied JAM times).
MAX_STATEMENTS = 8
#: Rows jammed together over a triangle's rectangle (`_jam_triangle`). trisolv LARGE (N=2000), one
#: thread, minima of 40 interleaved runs: gcc -O3 2.80 ms; by 3 1.65 ms, 4 1.50, 6 1.41, 8 1.35
#: (2.08x; its 16 MB of L at the one-thread triad, 13.2 GB/s, take 1.21 ms). The strip's triangle,
#: R x R / 2 instances run row after row, stays negligible beside the rectangle.
TRIANGLE_JAM = 8
#: Accumulation chains in one J loop beyond which L is not jammed. Two (gesummv's `tmp[i]` and
#: `y[i]`, over A and B) still wait on the add latency: on the AVX-512 Xeon (4 cycles an add),
#: gesummv LARGE jammed by 3 by hand ran 1.15 ms against 1.53 for gcc -O3 and for the source
#: order (minima of 40 interleaved runs, one thread), by 2 1.18 ms.
MAX_CHAINS = 2
#: Iterations of L jammed together when J's chains accumulate into region-local scalars (symm's
#: `acc`), each copy on its own element of the expanded scalar. When L is the unit-stride loop of
#: the chain's operands, the copies' loads are consecutive and LLVM vectorises them; 16 chains
#: hide the latency of the adds. symm LARGE nest by hand (clang -O3, one thread): 1 chain 1.16 s,
#: 3 0.48 s, 8 0.36 s, 16 0.13 s; this pass by 16 0.17 s, by 32 the region's AST falls back to
#: the source order (codegen), 3.4 s.
SCALAR_JAM = 16
#: Rows jammed together with SCALAR_JAM columns when a scalar chain's loop J runs under a loop of
#: rows, which may bound J's range (symm's `k < i`: `_jam_scalar_tile`): SCALAR_ROWS x 2 vector
#: accumulators over the rectangle left of each strip of rows, each load of `B[k][j..]` used by
#: SCALAR_ROWS rows. The rows stay a loop that LLVM unrolls: by 8 it does not (symm 0.64-0.72 s
#: against 0.23 s by 4, loaded machine), and isl's AST of 8 x 16 unrolled copies exceeds the budget.
SCALAR_ROWS = 4


@dataclass(frozen=True)
class ReductionJamRecord(PassRecord):
    """The loops unrolled and jammed (independent add chains), and the scalars given one element
    per jammed copy (`"acc -> __pencil_jam_acc[j % 16]"`)."""

    jammed_loops: int = 0
    jam_expanded_scalars: tuple[str, ...] = ()


@dataclass
class _Model:
    """The model the jams are checked against: the pass's input, or once a scalar chain is
    jammed, the model with its scalars expanded (`expand_for_jam`) and its analyses."""

    scop: Scop
    dependences: Dependences
    live: LiveRanges
    exact: bool = True             # -fpencil-exact-reductions: for the dependences of an expanded model
    split: RelaxedDependences | None = None
    changed: bool = False
    # Whether to try every dependence first. A scalar tile's expanded elements are reused modulo
    # the strips across the tiles, whose order already breaks their false dependences: the strict
    # test fails there (symm: 2.9 s of isl work for nothing) and only the relaxed criterion counts.
    strict_first: bool = True

    def broken(self, schedule: isl.Schedule, limit: int) -> bool:
        """Whether `schedule` breaks a dependence of the model: with region-local storage (three-
        address temporaries), whether it fails the relaxed criterion too, as every schedule must
        (verify-schedule): the temporaries' output dependences from one iteration of L to the
        next are false. The order kept is `Dependences.ordering`: the updates of an exact
        reduction may change places (rows of nussinov's triangle); verify-schedule checks the
        parallel and vector marks against every dependence."""
        if self.strict_first and not breaks_dependences(schedule, self.dependences.ordering):
            return False
        if not any(a.local for a in self.scop.arrays):
            return True
        if self.split is None:
            self.split = relax_false_dependences(self.scop, self.dependences, self.live, limit)
        return breaks_relaxed_criterion(schedule, self.scop, self.split)


@register
class ReductionJam(Pass):
    """Unroll-and-jam loops around serial innermost reductions (independent accumulation chains)."""

    name = "reduction-jam"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences", "live-ranges"})
    # A scalar chain's jam expands the scalar (`expand_for_jam`): the pass then hands on the
    # dependences and live ranges of the model it leaves.
    changes_model = True
    provides = frozenset({"dependences", "live-ranges"})
    record = ReductionJamRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        limit = ctx.options.isl_max_operations
        jammed = [0]
        expanded: list[str] = []
        model = _Model(scop, unit.dependences, unit.live_ranges, ctx.exact_reductions)
        # The column updates of a nest `row-blocks` built are jammed too (its column phase), and
        # its rows by ROW_JAM.
        columns = unit.record(RowBlocksRecord).row_blocks > 0
        factor = ROW_JAM if columns else JAM
        try:
            with isl_budget(ctx.isl_ctx, limit, "reduction-jam"):

                def broken(schedule: isl.Schedule) -> bool:
                    return model.broken(schedule, limit)

                def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
                    """Jam under `node`; returns the node now at `node`'s position."""
                    if node.get_type() == isl.schedule_node_type.band:
                        current = model.scop
                        candidate = _jammable(node, current.reads, current.writes, factor, columns)
                        result = None
                        if candidate is not None:
                            result = _jam(node, candidate, broken, factor)
                        elif not columns:
                            result = _jam_scalar_tile(node, model, limit, expanded)
                            if result is None:
                                result = _jam_scalar_chains(node, model, limit, expanded)
                            if result is None:
                                result = _jam_triangle(node, current.reads, current.writes, broken, TRIANGLE_JAM)
                        if result is not None:
                            jammed[0] += 1
                            return result
                    for k in range(node.n_children()):
                        node = visit(node.child(k)).parent()
                    return node

                schedule = visit(scop.schedule.get_root()).get_schedule()
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no loop jammed")
        if not jammed[0]:
            return unit
        previous = unit.record(ReductionJamRecord)
        record = ReductionJamRecord(previous.jammed_loops + jammed[0],
                                    previous.jam_expanded_scalars + tuple(expanded))
        if not model.changed:
            return replace(unit, scop=scop.with_schedule(schedule)).with_record(record)
        out = unit.with_model(model.scop.with_schedule(schedule))
        return replace(out, dependences=model.dependences, live_ranges=model.live).with_record(record)


def _jam_scalar_chains(band: isl.ScheduleNode, model: _Model, limit: int,
                       expanded: list[str]) -> isl.ScheduleNode | None:
    """`band` jammed (by SCALAR_JAM or JAM: `_scalar_factor`) over chains that accumulate into
    region-local scalars, each jammed copy on its own element of the expanded scalar
    (`expand_for_jam`), or None. The jam is checked against the dependences and live ranges of
    the expanded model, which becomes `model`'s on success (its descriptions appended to
    `expanded`)."""
    found = _scalar_jammable(band, model.scop)
    if found is None:
        return None
    member, scalars, iterator, factor = found
    return _expanded_jam(band, model, limit, expanded, scalars, iterator, factor, None,
                         lambda broken: _jam(band, member, broken, factor))


def _expanded_jam(band: isl.ScheduleNode, model: _Model, limit: int, expanded: list[str],
                  scalars: frozenset[str], iterator: str, factor: int, rows: tuple[str, int] | None,
                  jam: Callable[[Callable[[isl.Schedule], bool]], isl.ScheduleNode | None],
                  strict_first: bool = True) -> isl.ScheduleNode | None:
    """`jam(broken)` on the model with `scalars` expanded (`expand_for_jam`), `broken` checking
    against its dependences and live ranges (with `strict_first`, against every dependence
    first: `_Model`); on success the expanded model becomes `model`'s."""
    rewritten = expand_for_jam(model.scop, scalars, iterator, factor, rows)
    if rewritten is None:
        return None
    scop, done = rewritten
    live = live_ranges(scop, limit)
    if live.flow is None:
        return None                  # the live ranges exceeded the budget: no check possible
    trial = _Model(scop, compute_dependences(scop, limit, model.exact), live, model.exact, strict_first=strict_first)
    result = jam(lambda schedule: trial.broken(schedule, limit))
    if result is None:
        return None
    model.scop, model.dependences, model.live, model.split, model.changed = \
        trial.scop, trial.dependences, trial.live, trial.split, True
    expanded.extend(d.describe() for d in done)
    return result


def _jam_scalar_tile(band: isl.ScheduleNode, model: _Model, limit: int,
                     expanded: list[str]) -> isl.ScheduleNode | None:
    """`band` jammed along its last two members at once, or None: a scalar chain
    (`_scalar_jammable`, by SCALAR_JAM along the last member, the columns L) whose loop J is the
    only loop of the sequence below `band`, jammed with the member before L (the rows; J's range
    may grow with them, symm's `k < i`). The scalar is expanded along both (`acc -> __pencil_jam_acc[i % 4 * 16
    + j % 16]`), and `_jam_tile` gives J's rectangle left of each strip of SCALAR_ROWS rows
    SCALAR_ROWS x SCALAR_JAM chains. Checked like `_jam_scalar_chains`, on the expanded model."""
    found = _scalar_jammable(band, model.scop)
    if found is None:
        return None
    member, scalars, iterator, factor = found
    if factor != SCALAR_JAM or member < 1 or _tile_layout(band) is None:
        return None
    users = statement_names(accesses_through(model.scop.reads, scalars).domain().union(
        accesses_through(model.scop.writes, scalars).domain()))
    rows = _moving_iterator(band, member - 1, model.scop, users)
    if not rows or rows == iterator:
        return None
    # A budget of its own: where the tile's check exceeds it, the columns alone are tried next.
    try:
        with isl_budget(band.get_ctx(), limit, "reduction-jam's scalar tiles"):
            return _expanded_jam(band, model, limit, expanded, scalars, iterator, factor, (rows, SCALAR_ROWS),
                                 lambda broken: _jam_tile(band, member, (SCALAR_ROWS, factor), broken),
                                 strict_first=False)
    except BudgetExceeded:
        return None


def _tile_layout(band: isl.ScheduleNode) -> int | None:
    """The position of J in the sequence below `band` when that sequence holds one loop J (one
    member, nothing below it, no mark above it) and otherwise statements alone (under marks or
    not); else None."""
    if band.n_children() != 1 or band.child(0).get_type() != isl.schedule_node_type.sequence:
        return None
    seq = band.child(0)
    found = None
    for k in range(seq.n_children()):
        below = seq.child(k).child(0)
        while below.get_type() == isl.schedule_node_type.mark and below.child(0).get_type() in (
                isl.schedule_node_type.mark, isl.schedule_node_type.leaf):
            below = below.child(0)            # a statement under marks (`vector`: the row's end)
        if below.get_type() == isl.schedule_node_type.leaf:
            continue
        if below.get_type() != isl.schedule_node_type.band or found is not None \
                or below.band_n_member() != 1 or _inner_bands(below) != []:
            return None
        found = k
    return found


def _jam_tile(band: isl.ScheduleNode, member: int, factors: tuple[int, int],
              broken: Callable[[isl.Schedule], bool]) -> isl.ScheduleNode | None:
    """`band`'s members `member - 1` (the rows) and `member` (the columns L) jammed by `factors`
    (Q, R) over J's rectangle (`_tile_layout`), or None when that breaks a dependence (`broken`)
    or leaves no full strip or no rectangle:

        band [rows - rows mod Q, L - L mod R]   the strips (the members' flags)
          sequence
            filter full strips                every row and column of the strip runs
              sequence
                filter before J               the statements before J
                  band [rows mod Q, L mod R]  rows a loop, columns unrolled
                filter rectangle              J's instances every row of the strip runs
                  band [J]
                    band [rows mod Q, L mod R]    Q x R chains per iteration of J
                filter rest                   the strip's triangle and the statements after J
                  band [rows mod Q]           row after row
                    ... the old sequence      (J's remaining instances, then the row's end)
                          band [L mod R]      unrolled at every leaf
            filter partial strips             (the last rows or columns of the matrix)
              band [rows mod Q, L mod R]      as before, no copies
                ... the old sequence

    The rows stay a loop of Q iterations for LLVM to unroll (its SROA after loop unrolling then
    gives each element of the expanded scalar a register): isl's AST of Q x R unrolled copies
    exceeded the isl budget on symm. The partial strips get no copies either (Q x R guarded copies
    in the AST). Each chain still receives its terms in the order of J. Returns the node at
    `band`'s position."""
    ctx = band.get_ctx()
    node = band
    if member + 1 < node.band_n_member():
        node = node.band_split(member + 1)
    if member > 1:
        node = node.band_split(member - 1).child(0)
    found = _tile_layout(node)
    if found is None:
        return None
    coincident = [node.band_member_get_coincident(k) for k in range(2)]
    permutable = node.band_get_permutable()
    partial = node.band_get_partial_schedule()                   # [P] -> { S[i..] -> [rows, l] }
    size = isl.MultiVal.zero(partial.get_space())
    for k, f in enumerate(factors):
        size = size.set_val(k, isl.Val.int_from_si(ctx, f))
    strips = partial.scale_down_multi_val(size).floor().scale_multi_val(size)
    points = partial.sub(strips)
    row_points = isl.MultiUnionPwAff.from_union_pw_aff(points.get_union_pw_aff(0))
    col_points = isl.MultiUnionPwAff.from_union_pw_aff(points.get_union_pw_aff(1))
    seq = node.child(0)
    inner = seq.child(found).child(0)
    # The rectangle: J's instances whose date along J every row of their strip has.
    key = (node.get_prefix_schedule_union_map()
           .flat_range_product(isl.UnionMap.from_multi_union_pw_aff(partial.set_union_pw_aff(0, strips.get_union_pw_aff(0))))
           .flat_range_product(inner.band_get_partial_schedule_union_map())
           .intersect_domain(inner.get_domain()))                # [P] -> { S[i..] -> [outer, row strip, l, j] }
    whole = _full_prefixes(key.flat_range_product(isl.UnionMap.from_multi_union_pw_aff(row_points)), factors[:1])
    rect = key.intersect_range(isl.UnionSet.from_set(whole)).domain()
    # The full strips (every row and column of the strip runs): the jammed code; the others (the
    # last rows or columns of the matrix) run as before, one instance of the band at a time.
    at_strips = (node.get_prefix_schedule_union_map()
                 .flat_range_product(isl.UnionMap.from_multi_union_pw_aff(strips))
                 .intersect_domain(node.get_domain()))           # [P] -> { S[i..] -> [outer, strips] }
    full = _full_prefixes(at_strips.flat_range_product(isl.UnionMap.from_multi_union_pw_aff(points)), factors)
    jam_part = at_strips.intersect_range(isl.UnionSet.from_set(full)).domain()
    rect = rect.intersect(jam_part)
    if rect.is_empty():
        return None
    partial_part = node.get_domain().subtract(jam_part)
    before = isl.UnionSet.empty(rect.get_space())
    after = isl.UnionSet.empty(rect.get_space())
    for k in range(seq.n_children()):
        here = seq.child(k).child(0).get_domain()             # the filter's statements
        if k < found:
            before = before.union(here)
        elif k > found:
            after = after.union(here)
    rest = inner.get_domain().subtract(rect).union(after).intersect(jam_part)
    before = before.intersect(jam_part)
    node = node.delete()                                         # the old sequence
    halves = [h for h in (jam_part, partial_part) if not h.is_empty()]
    filters = isl.UnionSetList.alloc(ctx, len(halves))
    for h in halves:
        filters = filters.add(h)
    node = node.insert_sequence(filters)
    if not partial_part.is_empty():
        # The partial strips: the old band's order within the strip, no copies.
        child = node.child(1).child(0)
        child = child.insert_partial_schedule(points.intersect_domain(child.get_domain()))
        for k in range(2):
            child = child.band_member_set_coincident(k, coincident[k])
        child = child.band_set_permutable(int(permutable))
        node = child.parent().parent()
    top = node
    parts = [p for p in (before, rect, rest) if not p.is_empty()]
    filters = isl.UnionSetList.alloc(ctx, len(parts))
    for p in parts:
        filters = filters.add(p)
    node = node.child(0).child(0).insert_sequence(filters)      # the full strips' sequence
    for k, p in enumerate(parts):
        child = node.child(k).child(0)
        if p is rest:
            child = child.insert_partial_schedule(row_points.intersect_domain(child.get_domain()))
            child = child.band_member_set_coincident(0, coincident[0])
            child = _sink(child.child(0), col_points, coincident[1], False).parent()
        else:
            child = _sink_tile(child, points, coincident)
        node = child.ancestor(child.get_tree_depth() - node.get_tree_depth())
    top = node.ancestor(node.get_tree_depth() - top.get_tree_depth())
    jammed = top.insert_partial_schedule(strips)
    for k in range(2):
        jammed = jammed.band_member_set_coincident(k, coincident[k])
    jammed = jammed.band_set_permutable(int(permutable))
    if broken(jammed.get_schedule()):
        return None
    return jammed.parent() if member > 1 else jammed


def _sink_tile(node: isl.ScheduleNode, points: isl.MultiUnionPwAff, coincident: list[bool]) -> isl.ScheduleNode:
    """The two-member band `points` inserted above every leaf under `node` that runs something,
    its second member (the columns) unrolled; returns `node`'s position."""
    if node.get_domain().is_empty():
        return node
    if node.get_type() == isl.schedule_node_type.leaf:
        node = node.insert_partial_schedule(points.intersect_domain(node.get_domain()))
        for k in range(2):
            node = node.band_member_set_coincident(k, coincident[k])
        return node.band_member_set_ast_loop_type(1, isl.ast_loop_type.unroll)
    for k in range(node.n_children()):
        node = _sink_tile(node.child(k), points, coincident).parent()
    return node


def _inner_bands(node: isl.ScheduleNode) -> list[isl.ScheduleNode] | None:
    """The band nodes below `node` (not `node` itself), or None when one of them has a band below it."""
    found: list[isl.ScheduleNode] = []

    def walk(at: isl.ScheduleNode, inside_band: bool) -> bool:
        for k in range(at.n_children()):
            child = at.child(k)
            is_band = child.get_type() == isl.schedule_node_type.band
            if is_band:
                if inside_band:
                    return False
                found.append(child)
            if not walk(child, inside_band or is_band):
                return False
        return True

    return found if walk(node, False) else None


def _under_vector_mark(band: isl.ScheduleNode) -> bool:
    parent = band.parent() if band.has_parent() else None
    return (parent is not None and parent.get_type() == isl.schedule_node_type.mark
            and parent.mark_get_id().get_name() == VECTOR_MARK)


def _statement_names(node: isl.ScheduleNode) -> list[str]:
    sets = node.get_domain().get_set_list()
    return [sets.get_at(k).get_tuple_name() for k in range(sets.n_set())]


def _jammable(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap, factor: int = JAM,
              columns: bool = False) -> int | None:
    """The member L of `band` to jam (the last one with a loop below it), or None.

    Either `band` has bands below it, all innermost, and L is its last member with J the
    last member of an inner band; or `band` is innermost with two or more members and L is
    its next-to-last member, J its last. With `columns` (a region `row-blocks` rewrote), also
    a band whose only inner band is a vector loop J of column updates (`column_updates`)."""
    inner = _inner_bands(band)
    if inner is None or len(_statement_names(band)) > MAX_STATEMENTS:
        return None
    if inner:
        member = band.band_n_member() - 1
        chains = [accumulation_chains(b, b.band_n_member() - 1, band, member, reads, writes)
                  for b in inner if not _under_vector_mark(b)]
        if 1 not in chains and columns and len(inner) == 1 and _under_vector_mark(inner[0]) \
                and column_updates(inner[0], inner[0].band_n_member() - 1, band, member, reads, writes):
            chains = [1]       # a vector loop alone under L, its elements updated along L
    else:
        if band.band_n_member() < 2:
            return None
        member = band.band_n_member() - 2
        chains = [accumulation_chains(band, member + 1, band, member, reads, writes)]
    # One or two chains in a J loop: the adds wait on each other. More already overlap (see
    # the module docstring).
    if not any(1 <= c <= MAX_CHAINS for c in chains):
        return None
    return member if _rectangular(band, member, inner, factor) else None


def _rectangular(band: isl.ScheduleNode, member: int, inner: list[isl.ScheduleNode], factor: int) -> bool:
    """Whether L (member `member` of `band`) and the J loops below it (`inner`, or `band`'s last
    member when empty) are rectangular enough to jam by `factor`."""
    # Rectangular only: L's range must not depend on the loops outside it, nor J's on L
    # (syrk's triangular point loops, trisolv's j < i): partial strips everywhere otherwise,
    # and guards inside J.
    l = band.get_schedule_depth() + member
    outer_dates = _date_set(band, l + 1)
    if l and not _is_product(outer_dates, list(range(l)), [l]) and not _one_partial_strip(outer_dates, factor):
        return False
    loops = inner if inner else [band]
    for b in loops:
        dates = _date_set(b, b.get_schedule_depth() + b.band_n_member())
        if not _is_product(dates, [l], [dates.dim(isl.dim_type.set) - 1]):
            return False
    return True


def _scalar_jammable(band: isl.ScheduleNode, scop: Scop) -> tuple[int, frozenset[str], str, int] | None:
    """(L's member, the scalars, L's iterator, the jam factor: `_scalar_factor`) when `band` has
    inner bands, all innermost, whose last member J accumulates into region-local scalars
    (`scalar_chains`), every access to those scalars is under `band`, and L (`band`'s last
    member) moves with one iterator of the statements that access them, the same in each: the
    scalar chains `expand_for_jam` gives each jammed copy its own element of. None otherwise."""
    scalars = scop.local_scalars
    inner = _inner_bands(band)
    if not scalars or not inner or len(_statement_names(band)) > MAX_STATEMENTS:
        return None
    member = band.band_n_member() - 1
    found: set[str] = set()
    for b in inner:
        if _under_vector_mark(b):
            continue
        names = scalar_chains(b, b.band_n_member() - 1, scop.reads, scop.writes, scalars)
        if len(names) > MAX_CHAINS:
            return None
        found |= names
    if not found:
        return None
    one = frozenset(found)
    users = statement_names(accesses_through(scop.reads, one).domain().union(
        accesses_through(scop.writes, one).domain()))
    if not users <= set(_statement_names(band)):
        return None
    iterator = _moving_iterator(band, member, scop, users)
    factor = _scalar_factor([b for b in inner if not _under_vector_mark(b)], scop, one)
    if not iterator or not _rectangular(band, member, inner, factor):
        return None
    return member, one, iterator, factor


def _scalar_factor(inner: list[isl.ScheduleNode], scop: Scop, scalars: frozenset[str]) -> int:
    """SCALAR_JAM when every array the statements of the J loops `inner` that access `scalars`
    read moves with unit stride or not at all along L (the last member of the band above them),
    J and everything else fixed, and one of them with unit stride: the copies' loads in J are
    consecutive, which LLVM combines into vector loads and adds; else JAM (copies whose loads
    stride across rows would be gathered, as `JAM`'s note says). The statements before and
    after J run once per iteration of L and do not count."""
    strides: list[Stride] = []
    for b in inner:
        users = accesses_through(scop.reads, scalars).union(accesses_through(scop.writes, scalars)).domain()
        reads = accesses_through(scop.reads, scalars, inside=False).intersect_domain(
            b.get_domain().intersect(users))
        if not reads.is_empty():
            # L and J's members: the last dimensions at J, L first.
            strides += stride_table(b, reads, b.band_n_member() + 1)[0]
    if strides and all(s is not Stride.OTHER for s in strides) and Stride.UNIT in strides:
        return SCALAR_JAM
    return JAM


def _moving_iterator(band: isl.ScheduleNode, member: int, scop: Scop, users: frozenset[str]) -> str:
    """The iterator L's date (member `member` of `band`) depends on in each of `users`, if it is
    one and the same in all of them ('' otherwise)."""
    dates = band.band_get_partial_schedule().get_union_pw_aff(member)   # [P] -> { S[i..] -> [(l)] }
    pieces = dates.get_pw_aff_list()
    names: set[str] = set()
    for k in range(pieces.n_pw_aff()):
        date = pieces.get_at(k)
        statement = date.get_domain_space().get_tuple_name(isl.dim_type.set)
        if statement not in users:
            continue
        n = date.dim(isl.dim_type.in_)
        moving = [p for p in range(n) if date.involves_dims(isl.dim_type.in_, p, 1)]
        if len(moving) != 1:
            return ""
        names.add(scop.statement(statement).iterators[moving[0]])
    return names.pop() if len(names) == 1 else ""


def scalar_chains(inner: isl.ScheduleNode, j: int, reads: isl.UnionMap, writes: isl.UnionMap,
                  scalars: frozenset[str]) -> frozenset[str]:
    """The region-local scalars among `scalars` that statements of `inner` accumulate into along
    member `j` of `inner`: a statement that runs more than once along J, writes nothing but one
    of them and reads it (symm's `acc += B[k][j] * A[i][k]`)."""
    found: set[str] = set()
    dates = inner.band_get_partial_schedule().get_union_pw_aff(j)     # [P] -> { S[i..] -> [(t_j)] }
    pieces = dates.get_pw_aff_list()
    for k in range(pieces.n_pw_aff()):
        date = pieces.get_at(k)
        if not _varies(date):
            continue
        domain = isl.UnionSet.from_set(date.domain())
        written = statement_names(writes.intersect_domain(domain).range())
        if len(written) != 1 or not written <= scalars:
            continue
        if accesses_through(reads.intersect_domain(domain), written).is_empty():
            continue
        found |= written
    return frozenset(found)


def accumulation_chains(inner: isl.ScheduleNode, j: int, outer: isl.ScheduleNode, l: int,
            reads: isl.UnionMap, writes: isl.UnionMap, elsewhere: bool = False) -> int:
    """How many statements of `inner` iterate along member `j` of `inner` writing one element
    there that moves along member `l` of `outer`, and read the arrays they write only at that
    element (so that LLVM keeps the R accumulators in registers; with `elsewhere`, also at other
    elements: trisolv's x[j], which the rows' accumulators, kept in registers from one
    iteration to the next, are stored beside): the accumulation chains."""
    found = 0
    dates = inner.band_get_partial_schedule().get_union_pw_aff(j)     # [P] -> { S[i..] -> [(t_j)] }
    pieces = dates.get_pw_aff_list()
    for k in range(pieces.n_pw_aff()):
        date = pieces.get_at(k)                                        # [P] -> { S[i..] -> [(t_j)] }
        if not _varies(date):
            continue                                                   # S runs once along J (gesummv's S_0)
        domain = isl.UnionSet.from_set(date.domain())
        written = writes.intersect_domain(domain)                      # [P] -> { S[i..] -> C[c..] }
        if written.is_empty():
            continue
        along_j = stride_table(inner, written)[j]
        along_l = stride_table(outer, written)[l]
        if not (along_j and all(s is Stride.INVARIANT for s in along_j)
                and all(s is not Stride.INVARIANT for s in along_l)):
            continue
        arrays = written.range().universe()                            # [P] -> { C[c..] }
        if elsewhere or reads.intersect_domain(domain).intersect_range(arrays).is_subset(written):
            found += 1
    return found


def column_updates(inner: isl.ScheduleNode, j: int, outer: isl.ScheduleNode, l: int,
                   reads: isl.UnionMap, writes: isl.UnionMap) -> bool:
    """Whether every statement of `inner` writes, along member `j` of `inner`, an element that moves
    with unit stride there and stays the same along member `l` of `outer`, and reads the arrays it
    writes only at that element (`row-blocks`' column phase, `y[c] += A[r][c] * t[r]` under a
    vector loop over c: jammed by R rows, each element is loaded and stored once for R terms)."""
    domain = inner.get_domain()
    written = writes.intersect_domain(domain)                          # [P] -> { S[i..] -> C[c..] }
    if written.is_empty():
        return False
    along_j = stride_table(inner, written)[j]
    if not (along_j and all(s is Stride.UNIT for s in along_j)):
        return False
    # The element, as a function of all dates down to J's but L's: the same along L.
    element = band_dates(inner).reverse().apply_range(written)        # [P] -> { [dates] -> C[c..] }
    at = outer.get_schedule_depth() + l
    maps: list[isl.Map] = []
    element.foreach_map(maps.append)
    if not all(m.project_out(isl.dim_type.in_, at, 1).is_single_valued() for m in maps):
        return False
    arrays = written.range().universe()                                # [P] -> { C[c..] }
    return reads.intersect_domain(domain).intersect_range(arrays).is_subset(written)


def _varies(date: isl.PwAff) -> bool:
    """Whether the date `date` of a statement depends on its iterators (the expressions, not the
    domain: `{ S_0[i] -> [(0)] : 0 <= i < n }` runs once along its loop)."""
    found = [False]
    n = date.dim(isl.dim_type.in_)

    def piece(_: isl.Set, aff: isl.Aff) -> None:
        found[0] = found[0] or aff.involves_dims(isl.dim_type.in_, 0, n)

    date.foreach_piece(piece)
    return found[0]


def _date_set(band: isl.ScheduleNode, dims: int) -> isl.Set:
    """[P] -> { [d0 .. d(dims-1)] }: the first `dims` dates (outer ones, then `band`'s) of the
    instances reaching `band`, all statements together."""
    dates = isl.Set.from_union_set(band_dates(band).range())
    return dates.project_out(isl.dim_type.set, dims, dates.dim(isl.dim_type.set) - dims)


def _one_partial_strip(dates: isl.Set, factor: int) -> bool:
    """Whether, in `dates` ([P] -> { [outer.., l] }), a single strip of `factor` values of l (for each value
    of the parameters) is ever partial: L's range moves with the loops outside it, but in whole
    strips but at one end (`row-blocks`' rows, in blocks of a multiple of `factor` rows: only the strip
    of the last rows may be cut short), not at every outer iteration (a triangle, tiles of 32)."""
    n = dates.dim(isl.dim_type.set)
    prefix = "".join(f"o{k}, " for k in range(n - 1))
    strip = isl.Map(f"{{ [{prefix}l] -> [{prefix}s] : floor(l / {factor}) = floor(s / {factor}) }}",
                    context=dates.get_ctx())                          # { [o.., l] -> [o.., l's strip] }
    missing = dates.apply(strip.align_params(dates.get_space())).subtract(dates)   # not run: partial strips
    if missing.is_empty():
        return True
    rows = missing.project_out(isl.dim_type.set, 0, n - 1)            # [P] -> { [l] }
    strips = rows.apply(isl.Map(f"{{ [l] -> [floor(l / {factor})] }}", context=dates.get_ctx())
                        .align_params(rows.get_space()))               # [P] -> { [strip] }
    return strips.is_equal(strips.lexmin())


def _is_product(dates: isl.Set, first: list[int], second: list[int]) -> bool:
    """Whether, the other dimensions fixed, `dates` is the product of its ranges along the
    dimensions `first` and along `second`."""
    def free(positions: list[int]) -> isl.Set:
        out = dates
        for p in sorted(positions, reverse=True):
            out = out.project_out(isl.dim_type.set, p, 1).insert_dims(isl.dim_type.set, p, 1)
        return out

    return free(first).intersect(free(second)).is_subset(dates)


def _jam(band: isl.ScheduleNode, member: int, broken: Callable[[isl.Schedule], bool],
         factor: int = JAM) -> isl.ScheduleNode | None:
    """`band` with member `member` jammed (see the module docstring), or None when that breaks a
    dependence (`broken`) or leaves no full strip. Returns the node at `band`'s position."""
    ctx = band.get_ctx()
    n = band.band_n_member()
    node = band
    # Member `member` alone in a band: [0 .. member-1] [member] [member+1 ..].
    if member + 1 < n:
        node = node.band_split(member + 1)
    if member > 0:
        node = node.band_split(member).child(0)
    coincident = node.band_member_get_coincident(0)
    permutable = node.band_get_permutable()
    partial = node.band_get_partial_schedule()                   # [P] -> { S[i..] -> [l] }
    size = isl.MultiVal.zero(partial.get_space()).set_val(0, isl.Val.int_from_si(ctx, factor))
    strips = partial.scale_down_multi_val(size).floor().scale_multi_val(size)   # [l - l mod R]
    points = partial.sub(strips)                                                # [l mod R]

    node = node.delete()                     # now at L's child
    # Each leaf's copies together, else (three-address code, whose temporaries' live ranges the
    # leaf-wise order interleaves: atax's `t1 = A[i][j] * x[j]; tmp[i] += t1;`) each block's.
    for blocks in (False, True):
        jammed = _strip_loop(_sink(node, points, coincident, blocks), strips, points, coincident,
                             permutable, factor)
        if jammed is None:
            return None
        if not broken(jammed.get_schedule()):
            break
    else:
        return None
    node = jammed
    # Back to the position of the original band (the splits above L).
    if member > 0:
        node = node.parent()
    return node


def _sink(node: isl.ScheduleNode, points: isl.MultiUnionPwAff, coincident: bool, blocks: bool) -> isl.ScheduleNode:
    """Insert the band `points` above every leaf under `node` (unrolled), or with `blocks` above
    every sequence of leaves (a basic block) and every other leaf; returns `node`'s position."""
    if node.get_type() == isl.schedule_node_type.leaf or blocks and _is_block(node):
        node = node.insert_partial_schedule(points.intersect_domain(node.get_domain()))
        node = node.band_member_set_coincident(0, coincident)
        return node.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
    for k in range(node.n_children()):
        node = _sink(node.child(k), points, coincident, blocks).parent()
    return node


def _is_block(node: isl.ScheduleNode) -> bool:
    """Whether `node` is a sequence of leaves (filters with nothing below)."""
    return node.get_type() == isl.schedule_node_type.sequence and all(
        node.child(k).child(0).get_type() == isl.schedule_node_type.leaf for k in range(node.n_children()))


def _strip_loop(node: isl.ScheduleNode, strips: isl.MultiUnionPwAff, points: isl.MultiUnionPwAff,
                coincident: bool, permutable: bool, factor: int) -> isl.ScheduleNode | None:
    """The strip loop `strips` inserted at `node` (L's coincidence and permutability), its full
    strips isolated; None where no strip is full. The full strips are isolated by a constant
    band under the strip loop, not by the strip loop itself: that loop stays one loop (a
    `parallel` mark above it must find a `for`), and each strip tests once whether it is full."""
    jammed = node.insert_partial_schedule(strips)
    jammed = jammed.band_member_set_coincident(0, coincident).band_set_permutable(int(permutable))
    dates = band_dates(jammed).flat_range_product(isl.UnionMap.from_multi_union_pw_aff(points))
    full = _full_prefixes(dates, factor)
    if full.is_empty():
        return None
    return _isolate(jammed.child(0).insert_partial_schedule(points.sub(points)), full).parent()


def _full_prefixes(dates: isl.UnionMap, factor: int | tuple[int, ...]) -> isl.Set:
    """The values of all dates but the last at which every point 0 <= d < factor of the last one
    is scheduled (the full strips of `factor`); with factors (f1, .., fd), of all dates but the
    last d, every point of the box 0 <= d_k < f_k of the last d scheduled."""
    factors = (factor,) if isinstance(factor, int) else factor
    d = len(factors)
    covered = isl.Set.from_union_set(dates.range())              # [P] -> { [outer, strip, point] }
    depth = covered.dim(isl.dim_type.set) - d
    prefixes = covered.project_out(isl.dim_type.set, depth, d)   # [P] -> { [outer, strip] }
    box = isl.Set.universe(covered.get_space())
    for k, f in enumerate(factors):
        box = (box.lower_bound_val(isl.dim_type.set, depth + k, isl.Val.zero(covered.get_ctx()))
               .upper_bound_val(isl.dim_type.set, depth + k, isl.Val.int_from_si(covered.get_ctx(), f - 1)))
    wanted = box.intersect(prefixes.insert_dims(isl.dim_type.set, depth, d))
    missing = wanted.subtract(covered).project_out(isl.dim_type.set, depth, d)
    return prefixes.subtract(missing).coalesce()


def _isolate(band: isl.ScheduleNode, full: isl.Set) -> isl.ScheduleNode:
    """`band` (one constant member) with the isolate option { isolate[[outer] -> [0]] : full }."""
    option = isl.Map.from_domain(full).add_dims(isl.dim_type.out, 1).wrap().set_tuple_name("isolate")
    band = band.band_set_ast_build_options(isl.UnionSet.from_set(option))
    band = band.band_member_set_ast_loop_type(0, isl.ast_loop_type.atomic)
    return band.band_member_set_isolate_ast_loop_type(0, isl.ast_loop_type.atomic)


# ----------------------------------------------------------------------------- triangular chains
def _triangle_parts(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap,
                    factor: int) -> tuple[int, isl.UnionSet, isl.UnionSet] | None:
    """For a one-member band L over a sequence with one innermost band J (one member) whose
    range is bounded by L's (trisolv's `for (j = 0; j < i; j++) x[i] -= L[i][j] * x[j];`,
    then `x[i] /= L[i][i]`): (J's filter position, the rectangle, the rest), or None.

    The rectangle holds J's instances below the strip of `factor` rows their row belongs to
    (j < i - i mod R): within a full strip, every row runs all of them, in the same order of
    j. The rest (J's instances inside the strip's triangle, and the other statements) is at
    most R x R instances a strip. J must hold one or two accumulation chains (whose statements
    may read the array they write elsewhere: trisolv's x[j]). J may be L's only child, a row
    start fused into its band at a constant date (left out of the rectangle), and L's range may
    depend on the loops outside it (nussinov's i < j < n): the full strips are isolated, the
    partial ones run as before."""
    if band.band_n_member() != 1 or band.n_children() != 1 or len(_statement_names(band)) > MAX_STATEMENTS:
        return None
    seq = band.child(0)
    if seq.get_type() == isl.schedule_node_type.band:
        # J right below L, a row start fused into its band at a constant date (the rectangle
        # leaves it out; the legality check decides whether it may run after the rectangle).
        if _inner_bands(seq) != [] or seq.band_n_member() != 1 or _under_vector_mark(seq):
            return None
        found, inner = 0, seq
    elif seq.get_type() != isl.schedule_node_type.sequence:
        return None
    else:
        found = None
    for k in range(seq.n_children() if seq.get_type() == isl.schedule_node_type.sequence else 0):
        below = seq.child(k).child(0)
        if below.get_type() == isl.schedule_node_type.leaf:
            continue
        if below.get_type() == isl.schedule_node_type.mark:
            below = below.child(0)
        if below.get_type() != isl.schedule_node_type.band or _inner_bands(below) != []:
            return None
        if below.band_n_member() != 1 or _under_vector_mark(below):
            continue            # a statement at a constant date under L (S_2: one row's end)
        if found is not None:
            return None
        found, inner = k, below     # J's band, below its marks
    if found is None:
        return None
    if not 1 <= accumulation_chains(inner, 0, band, 0, reads, writes, elsewhere=True) <= MAX_CHAINS:
        return None
    rows = band.band_get_partial_schedule().get_union_pw_aff(0)        # [P] -> { S[i..] -> [(l)] }
    cols = inner.band_get_partial_schedule().get_union_pw_aff(0)       # [P] -> { S[i..] -> [(j)] }
    rect = isl.UnionSet.empty(inner.get_domain().get_space())
    pieces = cols.get_pw_aff_list()
    instances = inner.get_domain()                                     # [P] -> { S[i..] : ... }
    for k in range(pieces.n_pw_aff()):
        j = pieces.get_at(k)
        if not _varies(j):
            continue            # a statement at a constant date of J (a row's start fused into J's band)
        j = j.intersect_domain(instances.extract_set(j.get_domain_space()))
        domain = isl.UnionSet.from_set(j.domain())
        l_list = rows.intersect_domain(domain).get_pw_aff_list()
        if l_list.n_pw_aff() != 1:
            return None
        l = l_list.get_at(0)
        strip = l.scale_down_val(isl.Val.int_from_si(band.get_ctx(), factor)).floor() \
                 .scale_val(isl.Val.int_from_si(band.get_ctx(), factor))
        rect = rect.union(isl.UnionSet.from_set(j.lt_set(strip)))
        # The triangle stays inside the strip: j < strip + R.
        if not j.ge_set(strip).is_subset(j.lt_set(strip.add_constant_val(isl.Val.int_from_si(band.get_ctx(), factor)))):
            return None
    if rect.is_empty():
        return None
    rest = band.get_domain().subtract(rect)
    return found, rect, rest


def exact_triangle(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap,
                   updates: frozenset[str], factor: int = TRIANGLE_JAM) -> bool:
    """Whether the last member of permutable `band` (two members, neither coincident) is a loop L
    over a triangular chain (`_triangle_parts`) whose chain statements all update exact
    reductions (`updates`: nussinov's `table[i][j] = max(table[i][j], table[i][k] + ..)`): the
    row starts of such a chain may run after its rectangle (clangpass.poly.exact_reductions), so
    `_jam_triangle` can jam it once `keep-streams` keeps the band from being tiled."""
    if not (band.get_type() == isl.schedule_node_type.band and band.band_n_member() == 2
            and band.band_get_permutable()
            and not any(band.band_member_get_coincident(m) for m in range(2))):
        return False
    parts = _triangle_parts(band.band_split(1).child(0), reads, writes, factor)
    if parts is None:
        return False
    names = {s.get_tuple_name() for s in (parts[1].get_set_list().get_at(k)
                                          for k in range(parts[1].get_set_list().n_set()))}
    return bool(names) and names <= updates


def _jam_triangle(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap,
                  broken: Callable[[isl.Schedule], bool], factor: int = TRIANGLE_JAM) -> isl.ScheduleNode | None:
    """`band` (L, see `_triangle_parts`) jammed over its rectangle, or None:

        band [L - L mod R]                    the strip loop (L's marks stay above it)
          band [0]                            isolate option: the full strips apart
            sequence
              filter rectangle
                ... band [J]
                      band [L mod R]          unrolled: R chains per iteration of J
              filter rest
                band [L mod R]                the strip's rows in turn, as before
                  ... L's old subtree         (the triangle and the row's end)

    Each row still accumulates its terms in the order of J (the rectangle's, then the
    triangle's). Returns the node at `band`'s position."""
    outer = 0
    if band.get_type() == isl.schedule_node_type.band and band.band_n_member() > 1:
        # L the last member of a wider band (nussinov's (-i, j) over its k loop): L alone below
        # the others, whose order stays.
        outer = 1
        band = band.band_split(band.band_n_member() - 1).child(0)
    parts = _triangle_parts(band, reads, writes, factor)
    if parts is None:
        return None
    found, rect, rest = parts
    ctx = band.get_ctx()
    coincident = band.band_member_get_coincident(0)
    permutable = band.band_get_permutable()
    partial = band.band_get_partial_schedule()                   # [P] -> { S[i..] -> [l] }
    size = isl.MultiVal.zero(partial.get_space()).set_val(0, isl.Val.int_from_si(ctx, factor))
    strips = partial.scale_down_multi_val(size).floor().scale_multi_val(size)
    points = partial.sub(strips)

    node = band.delete()                                         # L's old child: the sequence
    filters = isl.UnionSetList.alloc(ctx, 2).add(rect).add(rest)
    node = node.insert_sequence(filters)                         # the new sequence
    # The rectangle: R rows per iteration of J, unrolled, at J's leaf.
    # (isl drops the filters the rectangle leaves empty: find J's leaf below it)
    leaf = node.child(0)
    while leaf.get_type() != isl.schedule_node_type.leaf:
        if leaf.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            live = [k for k in range(leaf.n_children()) if not leaf.child(k).get_domain().is_empty()]
            if len(live) != 1:
                return None
            leaf = leaf.child(live[0])
        else:
            leaf = leaf.child(0)
    leaf = leaf.insert_partial_schedule(points.intersect_domain(leaf.get_domain()))
    leaf = leaf.band_member_set_ast_loop_type(0, isl.ast_loop_type.unroll)
    node = leaf.ancestor(leaf.get_tree_depth() - node.get_tree_depth())
    # The rest: row after row of the strip, each as before.
    rest_node = node.child(1).child(0)
    rest_node = rest_node.insert_partial_schedule(points.intersect_domain(rest_node.get_domain()))
    jammed = _strip_loop(rest_node.parent().parent(), strips, points, coincident, permutable, factor)
    if jammed is None or broken(jammed.get_schedule()):
        return None
    return jammed.parent() if outer else jammed
