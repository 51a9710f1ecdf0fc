# SPDX-License-Identifier: MIT
"""Pass `row-blocks`: matrix-vector products over one matrix, in blocks of rows, on two threads.

Input: Scop after `source-order`, on the CPU with threads on. Output: in a region of
matrix-vector products (every compute statement in at most two loops) where each
statement of two loops reads one read-only matrix `M` by a one-to-one access (`M[i][j]`
or `M[j][i]`) and accumulates either along a row of `M` (it writes an element that
depends on the row `r` only: atax's `tmp[i] += A[i][j] * x[j]`, mvt's `x1`) or along a
column (an element that depends on the column `c` only: atax's `y[j] += A[i][j] * tmp[i]`,
mvt's `x2[i] += A[j][i] * y2[j]`), with at least one of each, the nests that hold those
statements are replaced by one nest over blocks of `BLOCK` rows of `M`:

    band [floor(r / BLOCK)]                      sequential: one thread team, a barrier per phase
      sequence
        filter { row statements, and the one-loop statements of those nests }
          band [r]           parallel            each thread its rows of the block
            band [c]                             the sum along the row, in its order (reduction-jam)
        filter { column statements }
          band [floor(c / COLUMN_TILE)]  parallel  each thread its columns
            band [r]                             the block's rows, ascending
              band [c]                           vector loop (mark-vector)

(a one-loop statement `T[k]` of those nests, such as atax's `tmp[i] = 0`, runs in the row
phase at row `k`, in its source position among the row statements). The nests the source
order keeps apart (the other one-loop statements: atax's `y[i] = 0`) keep their place and
their own subtree of the source order.

Why: the column statements accumulate across rows (`y[j]` receives one term per row of
`A`), so the source order's loop over rows is sequential, and the row statements' sums
are along a row, so the loop over columns is; isl's schedule gets a parallel loop for
each by splitting them into two nests, which read `M` from memory twice (`source-order`
then keeps the source order, one thread: docs/passes/source-order.md). In blocks, both
phases are parallel, the block (24 rows of 2100 doubles: 400 KB) stays in the caches
between them, so `M` comes from memory once, and each element of the results still
receives its terms in the source order (the row sums along `c`, the column sums along
`r`, ascending in both), so the results are bit-identical to the source's. This is loop
tiling of the row loop with the two statements' point loops distributed and each given
its own parallel order inside the tile (Wolfe, "More iteration space tiling", SC 1989;
the fused-and-tiled matrix-vector products of BLAS 2 kernels such as `dgemv_t` +
`dgemv_n` pairs, Howell et al., "Updating the BLAS 2 Kernels", 2008, section 3).
Measured at PolyBench LARGE, 2 threads, in docs/passes/row-blocks.md.

Legality: the new schedule is checked against every dependence of the region (isl); a
region whose blocked schedule breaks one, or that has region-local storage, kill
statements, two matrices with a claim on the rows, or a statement of two loops that fits
neither kind, is left alone. The parallel marks are those of `mark-parallel` on the new
schedule (coincidence computed against the dependences, as `source-order` does for the
source order), so `verify-schedule` checks them again. Knob: --disable-pass=row-blocks;
nothing happens under -fno-pencil-parallel or -fpencil-tile-size=0. The record counts the
blocked nests (`row_blocks` in the optimisation record).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.passes.mark_parallel import mark_parallel_loops, with_coincidence
from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.source_order import CannotGraft, graft
from clangpass.passes.tile import without_tiles
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.scop import Scop, statement_names
from clangpass.poly.validity import PARALLEL_MARK, breaks_dependences, mark_count

#: Rows jammed together in these nests (`reduction-jam` reads it): six independent add chains in
#: the row phase, six terms per load and store of y[c] in the column phase. Three, reduction-jam's
#: JAM elsewhere, leaves the row sums bound by the add latency here; at LARGE, one thread, under
#: load (minima of 30 interleaved runs): atax 3.1 ms with 3, 2.7 with 4, 2.3 with 6 and 8; mvt 3.1,
#: 3.0, 2.6, 2.3.
ROW_JAM = 6
#: Rows of the matrix per block: a multiple of ROW_JAM (its strips of rows stay whole inside a
#: block, so that only the last rows of the matrix may leave one partial), four strips (two
#: threads get two each), and small enough that a block of a few thousand columns stays in the
#: L2 cache between the two phases. Measured on atax at LARGE (M=1900, N=2100), 2 threads,
#: hand-written OpenMP with the same structure: 12 rows 13 GB/s, 16 17.7, 24 19.6-20.7,
#: 32 16-18, 48 12-19.6.
BLOCK = 4 * ROW_JAM
#: Columns per iteration of the column phase's parallel loop: 8 vectors of 8 doubles (AVX-512),
#: and enough tiles (33 at N=2100) that two threads' contiguous chunks differ by at most one.
COLUMN_TILE = 64


@dataclass(frozen=True)
class RowBlocksRecord(PassRecord):
    """The nests of matrix-vector products run in blocks of rows."""

    row_blocks: int = 0


@dataclass(frozen=True)
class _Plan:
    """What the blocked nest is made of: the instances it replaces, the statements of each phase
    in source order, and each statement's row and column dates."""

    nests: tuple[int, ...]             # positions of the source order's top-level nests it replaces
    row_phase: tuple[str, ...]         # row statements and the nests' one-loop statements
    column_phase: tuple[str, ...]      # column statements
    rows: isl.UnionMap                 # [P] -> { S[..] -> [r] } for every statement of the nest
    columns: isl.UnionMap              # [P] -> { S[i, j] -> [c] } for the two-loop statements


@register
class RowBlocks(Pass):
    """Run a nest of row-wise and column-wise matrix-vector products in blocks of rows, both phases
    on threads."""

    name = "row-blocks"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences", "live-ranges"})
    record = RowBlocksRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if not ctx.options.parallel or ctx.options.tile_size == 0:
            return unit
        scop = unit.scop
        if any(a.local for a in scop.arrays) or any(s.kind != "compute" for s in scop.statements):
            return unit
        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "row-blocks"):
                plan = _plan(scop)
                if plan is None:
                    return unit
                original = scop.original_compute_schedule()
                try:
                    schedule = _blocked_schedule(original, plan)
                except CannotGraft:
                    return unit
                if schedule is None or breaks_dependences(schedule, unit.dependences.all):
                    return unit
                flagged = with_coincidence(schedule, unit.dependences.all)
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no nest blocked")
        marked, note = mark_parallel_loops(scop.with_schedule(schedule, reductions=()), flagged, unit.live_ranges,
                                           unit.dependences.reductions, ctx.options.isl_max_operations,
                                           innermost=ctx.traits.innermost_parallel,
                                           second=ctx.traits.coincident_pairs)
        if note or mark_count(marked.schedule, PARALLEL_MARK) < 2:
            return unit            # both phases on threads, or the schedule that was there
        done = unit.record(RowBlocksRecord).row_blocks + 1
        return replace(without_tiles(unit), scop=marked).with_record(RowBlocksRecord(done))


def _plan(scop: Scop) -> Optional[_Plan]:
    """The blocked nest of `scop`'s region, or None when the region is not of that kind."""
    computes = scop.compute_statements
    depth = {s.name: s.domain.dim(isl.dim_type.set) for s in computes}
    if not computes or max(depth.values()) != 2 or min(depth.values()) < 1:
        return None
    deep = [s.name for s in computes if depth[s.name] == 2]
    matrix = _common_matrix(scop, deep)
    if matrix is None:
        return None
    name, by_statement = matrix
    writes = scop.must_writes.union(scop.may_writes)
    ctx = scop.context.get_ctx()
    row_key = isl.Map(f"{{ {name}[r, c] -> [r] }}", context=ctx)
    column_key = isl.Map(f"{{ {name}[r, c] -> [c] }}", context=ctx)
    rows = isl.UnionMap.empty(scop.context.get_space())
    columns = isl.UnionMap.empty(scop.context.get_space())
    kinds: dict[str, str] = {}
    for statement in deep:
        access = by_statement[statement]                              # [P] -> { S[i, j] -> M[r, c] }
        written = writes.intersect_domain(isl.UnionSet.from_set(access.domain()))
        if written.is_empty():
            return None
        # The written element as a function of the matrix element: along a row or along a column.
        element = isl.UnionMap.from_map(access).reverse().apply_range(written)   # { M[r, c] -> V[..] }
        by_row = isl.UnionMap.from_map(row_key).reverse().apply_range(element).is_single_valued()
        by_column = isl.UnionMap.from_map(column_key).reverse().apply_range(element).is_single_valued()
        if by_row == by_column:
            return None            # a full reduction, or an element of its own per iteration
        kinds[statement] = "row" if by_row else "column"
        rows = rows.union(isl.UnionMap.from_map(access.apply_range(row_key)))
        columns = columns.union(isl.UnionMap.from_map(access.apply_range(column_key)))
    if "row" not in kinds.values() or "column" not in kinds.values():
        return None
    nests = _nests_of(scop, set(deep))
    if nests is None:
        return None
    positions, inside = nests
    order = [s.name for s in computes if s.name in inside]
    for s in computes:
        if s.name in inside and depth[s.name] == 1:
            kinds[s.name] = "row"
            rows = rows.union(isl.UnionMap.from_map(isl.Map.identity(
                s.domain.get_space().map_from_set()).intersect_domain(s.domain).reset_tuple_id(isl.dim_type.out)))
    return _Plan(positions, tuple(n for n in order if kinds[n] == "row"),
                 tuple(n for n in order if kinds[n] == "column"), rows, columns)


def _common_matrix(scop: Scop, deep: list[str]) -> Optional[tuple[str, dict[str, isl.Map]]]:
    """The read-only array of two dimensions that every statement of `deep` reads by exactly one
    one-to-one access (its name, and each statement's access), if there is exactly one such array."""
    found: list[tuple[str, dict[str, isl.Map]]] = []
    read_only = {a.name for a in scop.arrays if a.read_only}
    maps: list[isl.Map] = []
    scop.reads.foreach_map(maps.append)
    for array in sorted(read_only):
        by_statement: dict[str, isl.Map] = {}
        ok = True
        for statement in deep:
            mine = [m for m in maps if m.get_tuple_name(isl.dim_type.in_) == statement
                    and m.get_tuple_name(isl.dim_type.out) == array]
            if len(mine) != 1 or mine[0].dim(isl.dim_type.out) != 2 or not mine[0].is_bijective() \
                    or not _is_permutation(mine[0]):
                ok = False
                break
            by_statement[statement] = mine[0]
        if ok:
            found.append((array, by_statement))
    return found[0] if len(found) == 1 else None


def _is_permutation(access: isl.Map) -> bool:
    """Whether `access` is { S[i, j] -> M[i, j] } or { S[i, j] -> M[j, i] } on its domain."""
    ctx = access.get_ctx()
    for text in ("{ [i, j] -> [i, j] }", "{ [i, j] -> [j, i] }"):
        shape = isl.Map(text, context=ctx)
        plain = access.reset_tuple_id(isl.dim_type.in_).reset_tuple_id(isl.dim_type.out)
        shape = shape.intersect_domain(plain.domain())
        if plain.is_subset(shape.intersect_params(plain.params())) and shape.is_subset(plain):
            return True
    return False


def _nests_of(scop: Scop, deep: set[str]) -> Optional[tuple[tuple[int, ...], set[str]]]:
    """The positions of the source order's top-level nests that hold the statements `deep` (one run
    of consecutive nests) and the statements of those nests."""
    root = scop.original_compute_schedule().get_root().child(0)
    if root.get_type() != isl.schedule_node_type.sequence:
        return (0,), {s.name for s in scop.compute_statements}
    nests: list[set[str]] = [set(statement_names(root.child(k).filter_get_filter())) for k in range(root.n_children())]
    positions = [k for k, names in enumerate(nests) if names & deep]
    if positions != list(range(positions[0], positions[-1] + 1)):
        return None
    inside: set[str] = set()
    for k in positions:
        inside |= nests[k]
    return tuple(positions), inside


def _blocked_schedule(original: isl.Schedule, plan: _Plan) -> Optional[isl.Schedule]:
    """The source order `original` with the nests at `plan.nests` replaced by the blocked nest."""
    ctx = original.get_ctx()
    domain = original.get_domain()
    top = original.get_root().child(0)
    if top.get_type() == isl.schedule_node_type.sequence:
        filters = [top.child(k).filter_get_filter() for k in range(top.n_children())]
    else:
        filters = [domain]
    blocked = _instances(domain, plan.row_phase + plan.column_phase)
    kept = [k for k in range(len(filters)) if k not in plan.nests]
    pieces = [(k, filters[k]) for k in kept if k < plan.nests[0]] + [(-1, blocked)] \
        + [(k, filters[k]) for k in kept if k > plan.nests[-1]]
    node = isl.Schedule.from_domain(domain).get_root().child(0)
    if len(pieces) > 1:
        listed = isl.UnionSetList.alloc(ctx, len(pieces))
        for _, piece in pieces:
            listed = listed.add(piece)
        node = node.insert_sequence(listed)
        for j, (k, piece) in enumerate(pieces):
            leaf = node.child(j).child(0)
            if k < 0:
                node = _block_nest(leaf, plan, blocked).parent().parent()
            else:
                node = graft(leaf, top.child(k).child(0), piece).parent().parent()
    else:
        node = _block_nest(node, plan, blocked)
    return node.get_schedule()


def _instances(domain: isl.UnionSet, names: tuple[str, ...]) -> isl.UnionSet:
    """The instances of the statements `names` in `domain`."""
    out = isl.UnionSet.empty(domain.get_space())
    sets = domain.get_set_list()
    for k in range(sets.n_set()):
        if sets.get_at(k).get_tuple_name() in names:
            out = out.union(isl.UnionSet.from_set(sets.get_at(k)))
    return out


def _build(leaf: isl.ScheduleNode, spec: object) -> isl.ScheduleNode:
    """The subtree `spec` inserted at `leaf`; the node at `leaf`'s position. `spec` is None (a leaf),
    ("band", { S[..] -> [t] }, spec) (a one-member band) or ("sequence", [(filter, spec), ...])."""
    if spec is None:
        return leaf
    if spec[0] == "band":
        _, dates, inner = spec
        node = leaf.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(dates))
        return _build(node.child(0), inner).parent()
    _, branches = spec
    if len(branches) == 1:
        return _build(leaf, branches[0][1])
    listed = isl.UnionSetList.alloc(leaf.get_ctx(), len(branches))
    for instances, _ in branches:
        listed = listed.add(instances)
    node = leaf.insert_sequence(listed)
    for k, (_, inner) in enumerate(branches):
        node = _build(node.child(k).child(0), inner).parent().parent()
    return node


def _block_nest(leaf: isl.ScheduleNode, plan: _Plan, instances: isl.UnionSet) -> isl.ScheduleNode:
    """The blocked nest of `plan` inserted at `leaf` (instances `instances`); the node at `leaf`'s position."""
    ctx = leaf.get_ctx()
    block = isl.UnionMap.from_map(isl.Map(f"{{ [r] -> [floor(r / {BLOCK})] }}", context=ctx))
    tile = isl.UnionMap.from_map(isl.Map(f"{{ [c] -> [floor(c / {COLUMN_TILE})] }}", context=ctx))
    rows = plan.rows.intersect_domain(instances)

    def of(names: tuple[str, ...]) -> isl.UnionSet:
        return _instances(instances, names)

    def statements(names: tuple[str, ...]) -> object:
        return None if len(names) < 2 else ("sequence", [(of((n,)), None) for n in names])

    # The row phase: rows on threads, then each statement in source order, consecutive two-loop
    # ones fused along the row (one band over c).
    groups: list[tuple[bool, tuple[str, ...]]] = []
    for name in plan.row_phase:
        two_loops = not plan.columns.intersect_domain(of((name,))).is_empty()
        if two_loops and groups and groups[-1][0]:
            groups[-1] = (True, groups[-1][1] + (name,))
        else:
            groups.append((two_loops, (name,)))
    row_body = ("sequence", [(of(names), ("band", plan.columns.intersect_domain(of(names)), statements(names))
                              if two_loops else None) for two_loops, names in groups])
    row_part = of(plan.row_phase)
    # The column phase: tiles of columns on threads, the block's rows ascending, the columns.
    column_part = of(plan.column_phase)
    columns = plan.columns.intersect_domain(column_part)
    column_nest = ("band", columns.apply_range(tile),
                   ("band", rows.intersect_domain(column_part),
                    ("band", columns, statements(plan.column_phase))))
    spec = ("band", rows.apply_range(block),
            ("sequence", [(row_part, ("band", rows.intersect_domain(row_part), row_body)),
                          (column_part, column_nest)]))
    return _build(leaf, spec)
