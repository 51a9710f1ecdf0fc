# SPDX-License-Identifier: MIT
"""Pass `register-tile`: unroll-and-jam the point band of a tiled matrix-product-like nest.

Input: Scop after `point-loop-order` (the innermost member of each point band is
its unit-stride loop). Output: each point band (directly under a `point` mark) of
three permutable members `(row, reduction, column)` in any order, with `column` or
`reduction` innermost, whose writes all stay on one element along `reduction` and
step to the next element along `column` (gemm's `C[i][j] += A[i][k] * B[k][j]`, or
syrk's `C[i][j] += alpha * A[i][k] * A[j][k]`, whose reduction `k` is the innermost,
unit-stride loop; the strides are `clangpass.poly.strides`), rebuilt as

    mark `register-tile`
      band [row - row mod R, column - column mod C]   register tiles, atomic
        band [reduction]                              separate: the first reduction
                                                      step (where an initialisation
                                                      such as `C[i][j] *= beta` runs)
                                                      is peeled
          band [row mod R]                            unrolled in full tiles
            band [column mod C]                       unrolled in full tiles

so that the R x C elements of the written array one register tile updates stay in
registers across the reduction loop: LLVM promotes the unrolled loads and stores of
`C`, which no longer move along the reduction loop, to registers (LICM) and
vectorises the rows (SLP), and the inner loop holds only the loads of `A` and `B`,
multiplies and adds. This is the micro-kernel of Goto & van de Geijn ("Anatomy of
high-performance matrix multiplication", TOMS 2008, section 4.2) and of BLIS (Van
Zee & van de Geijn, TOMS 2015, section 2), placed in the schedule tree as Polly's
matrix-multiplication optimisation does (Gareev, Grosser & Kruse, "High-performance
generalized tensor operations: a compiler-oriented approach", TACO 2018, section
3.3): the full register tiles are `isolate`d (isl AST build option) at the register
tile band and at both point bands, so that inside the isolated part the point loops
have constant trip counts and LLVM unrolls them completely (isl's `unroll` loop type
gives the same inner loop for four times the AST work, docs/passes/register-tile.md);
partial tiles (the edges of the iteration domain, tile sizes that are not multiples
of R and C) keep ordinary loops.

Legality: strip-mining two members of a permutable band and moving the reduction
member between the tile and point loops keeps every dependence distance
component-wise non-negative (each member of a permutable band has a non-negative
distance; floor(x / R) and x mod R of a non-negative step are non-negative once the
outer parts are equal), which is the argument for rectangular tiling (Irigoin &
Triolet, POPL 1988; Bondhugula et al., Pluto, PLDI 2008, section 4). The new bands
keep the `coincident` flags of the members they come from; `mark-vector` and
`verify-schedule` check the result against the dependences.

Sizes: R = 4 rows and C columns such that the R x C accumulators fill half of the
vector registers, the other half holding the loads of `B` and the broadcasts of `A`
(`register_tile_sizes`): with -march=native the host's registers (/proc/cpuinfo
flags: avx512f: 32 of 64 bytes, hence 4 x 32 doubles; avx: 16 of 32 bytes, 4 x 8
doubles), otherwise SSE2's 16 of 16 bytes (4 x 4 doubles), the x86-64 baseline
LLVM targets without -march. A band with no full register tile (point tiles
smaller than R x C) is left alone.

A band that also reads other elements of the array it accumulates in (trmm's `B[i][j] +=
A[k][i] * B[k][j]`, `k > i`) is register-tiled only when those reads are a panel that
`pack-panels` copies before the band (`foreign_reads`, `panels_serve`): the micro-kernel then
loads them from the buffer and LLVM can tell them from the accumulators. A reduction range
that depends on the row (trmm's `k > i`, symm's `k < i`) gets its full reduction steps
isolated as well (isl `isolate` at the reduction band): on the diagonal the first steps, where
the register tile's rows start one after another, are partial.

Remainder columns: where the column count is not a multiple of C (gemm LARGE: 1100 = 34 x 32
+ 12), the columns of the incomplete blocks would run as partial tiles, ordinary loops whose
column loop has a trip count LLVM does not know, loading and storing `C` at every reduction
step (12 of 1100 columns, 8 % of the kernel's time). When the band is rectangular (the column
and the reduction ranges depend on no other member) and no dependence forbids running them
last in the point tile, they form parts of their own after the complete blocks
(`column_parts`: one sequence under the mark), register-tiled with one vector's and half a
vector's columns (`remainder_widths`: 4 x 8 and 4 x 4 doubles with AVX-512), whatever is left
still partial. The parts cost isl's AST generator: they are kept only when the register tiles'
AST fits in half of the budget (the other half for `pack-panels`' copies), else the band is
built again without them.

Before register tiling, the statements of the point band whose reduction member is
constant (gemm's `C[i][j] *= beta`) go, with their copy of the band, into a sequence
before the products (`initialisations_first`), unless a dependence runs from a product to
one of them within a point tile: they then stream over the rows of the tile instead of
loading, scaling and storing `C` at the first reduction step inside each register tile.

isl's AST generator works harder on the isolated tiles (gemm: 1.5 million
operations instead of 0.1 million); the pass generates the region's AST once under
`isl_max_operations` and keeps the schedule without register tiles if that fails
(a note says so), since the `codegen` pass would otherwise fall back to the source
order.
"""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from pathlib import Path
from typing import Optional

import islpy as isl

from clangpass.passes.mark_vector import is_innermost_band
from clangpass.passes.pack_panels import panels_serve
from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.tile import POINT_MARK
from clangpass.passes.unit import PolyUnit
from clangpass.options import CompileOptions
from clangpass.poly.annotations import reduction_updates
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.codegen import generate_ast, statement_groups
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK
from clangpass.poly.live_ranges import iteration_private_scalars
from clangpass.poly.scop import Scop, accesses_through, statement_names
from clangpass.poly.strides import Stride, StrideRows, band_dates, stride_table
from clangpass.poly.validity import mark_count

ROWS = 4                                  # rows of a register tile
# The remainder columns' register tiles (`column_parts`) only where the region's register
# tiles then take at most this share of the isl budget (the rest for the copies).
REMAINDER_SHARE = 2
SSE2_REGISTERS = (16, 16)                 # (vector registers, bytes each) of the x86-64 baseline
_CPUINFO = Path("/proc/cpuinfo")


@register
class RegisterTile(Pass):
    """Unroll-and-jam point bands of matrix-product nests: register tiles of R x C accumulators."""

    name = "register-tile"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences", "live-ranges"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        registers = vector_registers(ctx.options)
        limit = ctx.options.isl_max_operations
        tiled = [0]
        remainders = [True]        # register tiles for the remainder columns (`column_parts`)

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Register-tile under `node`; returns the node now at `node`'s position."""
            if (node.get_type() == isl.schedule_node_type.mark
                    and node.mark_get_id().get_name() == POINT_MARK):
                band = node.child(0)
                # Three-address temporaries live in registers: only the arrays count.
                private = iteration_private_scalars(band, scop, unit.live_ranges, limit)
                reads = accesses_through(scop.reads, private, False)
                writes = accesses_through(scop.writes, private, False)
                roles = register_roles(band, reads, writes)
                if roles is not None:
                    element_bytes = _element_bytes(scop, band)
                    sizes = register_tile_sizes(registers, element_bytes)
                    widths = remainder_widths(sizes[1], registers[1] // element_bytes) if remainders[0] else []
                    # The initialisations (gemm's `C[i][j] *= beta`) in a loop nest of their
                    # own before the register tiles, when the dependences allow it.
                    products = initialisations_first(band, roles[1], unit.dependences.all)
                    tiled_band = register_tiles(products if products is not None else band, roles, sizes,
                                                widths, unit.dependences.all)
                    # Reads of rows the band writes (trmm's `B[k][j]`) only from packed copies.
                    foreign = foreign_reads(band, reads, writes)
                    if tiled_band is not None and not (foreign.is_empty() or _packed(
                            tiled_band, scop, foreign, ctx, reduction_updates(unit.dependences.reductions))):
                        tiled_band = None
                    if tiled_band is not None:
                        tiled[0] += 1
                        # register-tile mark -> (filter -> sequence ->) the point mark
                        return tiled_band.parent() if products is None else tiled_band.parent().parent().parent()
                return node
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        while True:
            tiled[0] = 0
            # The remainder columns' parts must leave most of the budget to the copies of
            # `pack-panels`, which `codegen` adds to this AST (2mm: with the parts, the AST with
            # the copies exceeded the budget, and no panel was packed).
            budget = limit // REMAINDER_SHARE if remainders[0] and limit else limit
            try:
                with isl_budget(ctx.isl_ctx, budget, "register-tile"):
                    schedule = visit(scop.schedule.get_root()).get_schedule()
                if not tiled[0]:
                    return unit
                tiled_scop = scop.with_schedule(schedule)
                # `codegen` generates the AST under the same budget and falls back to the source
                # order when it is exceeded: the isolated tiles must not cost the region its tiling.
                with isl_budget(ctx.isl_ctx, budget, "AST generation of register tiles"):
                    generate_ast(tiled_scop, reduction_updates(unit.dependences.reductions))
            except (BudgetExceeded, isl.Error) as exc:
                if remainders[0]:
                    remainders[0] = False       # again, the remainder columns as partial tiles
                    continue
                if isinstance(exc, BudgetExceeded):
                    return unit.with_note(f"{exc}: no register tiles")
                return unit.with_note(
                    f"isl AST generation of register tiles failed ({isl_error_reason(exc)}): no register tiles")
            return replace(unit, scop=tiled_scop)


def _packed(mark: isl.ScheduleNode, scop: Scop, reads: isl.UnionMap, ctx: PassContext,
            unordered: frozenset[str]) -> bool:
    """Whether `pack-panels` will copy what `reads` read under the register-tile `mark` and
    `codegen` generate the copies: the pass is enabled, its packs cover `reads`, and their
    readers are not generated as one group with other statements (three-address code),
    whose one call cannot carry a buffer's indices (clangpass.poly.codegen)."""
    if "pack-panels" in ctx.options.disabled_passes:
        return False
    groups = statement_groups(scop, mark.get_schedule(), unordered)
    grouped = {name for members in groups.values() if len(members) > 1 for name in members}
    if statement_names(reads.domain()) & grouped:
        return False
    return panels_serve(mark, scop, ctx.options, reads)


def initialisations_first(band: isl.ScheduleNode, reduction: int,
                          deps: isl.UnionMap) -> isl.ScheduleNode | None:
    """The point `band` split by statements: a sequence whose first filter holds the
    statements that do not iterate along the `reduction` member (its schedule is constant on
    them: gemm's `C[i][j] *= beta`, 2mm's `tmp[i][j] = 0`), each under its copy of the band,
    and whose second holds the others; returns the band of the others (the products), or None
    when there is nothing to split or when some dependence runs from an instance of the
    products to an instance of an initialisation at the same outer dates (the point tile),
    which the new order would break (a statement after the reduction, such as covariance's
    `cov[i][j] /= n - 1`, stays in the band).

    In the band, the initialisation runs at the first reduction step of the first reduction
    tile, inside the register tile: LLVM cannot keep its element in a register across the
    reduction loop, so it loads, scales and stores `C` (and the first product step loads and
    stores it again) while the element comes from memory the first time, one register tile of
    4 rows 8800 bytes apart at a time, which the hardware prefetchers do not follow. In a nest
    of its own, it runs row after row over the point tile before the register tiles, so `C`
    streams in, and the register tiles have one statement: no peeled first step, fewer
    pieces for isl's AST generator (docs/passes/register-tile.md)."""
    schedule = band.band_get_partial_schedule().get_at(reduction)   # [P] -> { S[i..] -> [r] }
    domain = band.get_domain()
    space = domain.get_space()
    first, rest = isl.UnionSet.empty(space), isl.UnionSet.empty(space)
    pieces = schedule.get_pw_aff_list()
    for k in range(pieces.n_pw_aff()):
        piece = pieces.get_at(k)
        instances = isl.UnionSet.from_set(domain.extract_set(piece.get_domain_space()))
        if piece.is_cst():
            first = first.union(instances)
        else:
            rest = rest.union(instances)
    if first.is_empty() or rest.is_empty():
        return None
    # Dependences from the products to the initialisations within one point tile.
    prefix = band.get_prefix_schedule_relation().intersect_domain(domain)   # { S[i..] -> [outer] }
    backwards = deps.intersect_domain(rest).intersect_range(first)
    if not backwards.intersect(prefix.apply_range(prefix.reverse())).is_empty():
        return None
    return band.order_before(first)


def register_tiled_bands(schedule: isl.Schedule) -> int:
    """How many register-tiled bands `schedule` holds (the record's `register_tiled_bands`)."""
    return mark_count(schedule, REGISTER_TILE_MARK)


def register_roles(band: isl.ScheduleNode, reads: isl.UnionMap,
                   writes: isl.UnionMap) -> tuple[int, int, int] | None:
    """(row, reduction, column) members of `band` if it is a matrix-product point band whose
    accumulators LLVM can keep in registers, else None. The innermost member is the column
    (gemm's `C[i][j] += A[i][k] * B[k][j]` after `point-loop-order`) or the reduction (syrk's
    `C[i][j] += A[i][k] * A[j][k]`, whose reads are unit-stride along `k` only): the register
    tile puts the reduction between the tile loops and the point loops either way."""
    if (band.get_type() != isl.schedule_node_type.band or band.band_n_member() != 3
            or not band.band_get_permutable() or not is_innermost_band(band)):
        return None
    # Entry by entry, each question about a member answered by the first write that can: a
    # stencil's band has no reduction member and is rejected after a write per member
    # (fdtd-2d's skewed point band: 0.15 s of isl work for the whole table).
    along = StrideRows(band, writes)            # along.entry(m, k): stride of write k along member m
    if not len(along):
        return None
    reductions = [m for m in range(3) if along.all_are(m, Stride.INVARIANT)]
    if len(reductions) != 1:
        return None
    columns = [m for m in range(3) if along.all_are(m, Stride.UNIT)]
    if len(columns) != 1 or 2 not in (reductions[0], columns[0]):
        return None
    reduction, column = reductions[0], columns[0]
    row = 3 - reduction - column
    if not band.band_member_get_coincident(column) or any(s is Stride.INVARIANT for s in along.row(row)):
        return None
    if not reads_only_accumulators(band, reads, writes):
        # trmm's `B[i][j] += A[k][i] * B[k][j]`: the other rows' reads must be a panel that
        # `pack-panels` can copy (the rows' invariant, unit-stride along the columns); `run`
        # keeps the register tiles only when it does.
        along_reads = stride_table(band, foreign_reads(band, reads, writes))
        if not (all(s is Stride.INVARIANT for s in along_reads[row])
                and all(s is Stride.UNIT for s in along_reads[column])):
            return None
    return row, reduction, column


def reads_only_accumulators(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap) -> bool:
    """Whether every read of an array the band writes reads an element written in the same
    iteration of the band (`C[i][j] += ...`, or in three-address code `t3 = C[i][j] + t2;
    C[i][j] = t3;`). Otherwise (trmm's `B[i][j] += A[k][i] * B[k][j]`) LLVM cannot tell the
    loads from the accumulators and keeps them in memory: register tiles only cost (trmm 0.05
    -> 0.13 s user time at M=800 N=1000), unless `pack-panels` serves the other reads
    (`foreign_reads`) from a copy, which `run` checks."""
    domain = band.get_domain()                                     # [P] -> { S[i..] }
    dates = band_dates(band)                                       # [P] -> { S[i..] -> [t..] }
    written = writes.intersect_domain(domain)                      # [P] -> { S[i..] -> C[c..] }
    arrays = written.range().universe()                            # [P] -> { C[c..] } for each written C
    read = reads.intersect_domain(domain).intersect_range(arrays)
    # { [t..] -> C[c..] }: the elements read, and written, at each date of the band.
    return dates.reverse().apply_range(read).is_subset(dates.reverse().apply_range(written))


def foreign_reads(band: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap) -> isl.UnionMap:
    """[P] -> { S[i..] -> C[c..] }: the reads (access by access) of arrays the band writes
    that are not reads of the element written in the same iteration of the band (trmm's
    `B[k][j]` beside its accumulator `B[i][j]`); empty for gemm, syrk, syr2k."""
    domain = band.get_domain()
    dates = band_dates(band)
    written = writes.intersect_domain(domain)
    accumulators = dates.reverse().apply_range(written)           # { [t..] -> C[c..] } written
    read = reads.intersect_domain(domain).intersect_range(written.range().universe())
    out = isl.UnionMap.empty(read.get_space())
    maps = read.get_map_list()
    for k in range(maps.n_map()):
        pieces = maps.get_at(k).get_basic_map_list()
        for b in range(pieces.n_basic_map()):
            access = isl.UnionMap.from_basic_map(pieces.get_at(b))
            if not dates.reverse().apply_range(access).is_subset(accumulators):
                out = out.union(access)
    return out


def is_rectangular(band: isl.ScheduleNode, reduction: int) -> bool:
    """Whether, for each statement and outer dates, the reduction member's range does not
    depend on the other two members. A triangular nest (symm's `k < i`, trmm's `k > i`) has
    reduction loops of varying length inside a register tile: without more, guards and no
    constant trip counts (symm 0.30 -> 0.55 s user time at M=800 N=1000), so
    `_register_tile` isolates its full reduction steps too."""
    dates = band_dates(band)                                       # [P] -> { S[i..] -> [outer, p0, p1, p2] }
    depth = band.get_schedule_depth()
    others = [m for m in range(3) if m != reduction]
    rectangular = [True]

    def check(statement: isl.Map) -> None:
        scheduled = statement.range()                              # [P] -> { [outer, p0, p1, p2] }
        free_reduction = (scheduled.project_out(isl.dim_type.set, depth + reduction, 1)
                          .insert_dims(isl.dim_type.set, depth + reduction, 1))
        free_others = scheduled
        for m in reversed(others):
            free_others = free_others.project_out(isl.dim_type.set, depth + m, 1).insert_dims(
                isl.dim_type.set, depth + m, 1)
        if not free_reduction.intersect(free_others).is_subset(scheduled):
            rectangular[0] = False

    dates.foreach_map(check)
    return rectangular[0]


def vector_registers(options: CompileOptions) -> tuple[int, int]:
    """(count, bytes) of the vector registers of the target: the host's with -march=native,
    else SSE2's (see the module docstring)."""
    return _host_vector_registers() if options.march == "native" else SSE2_REGISTERS


@lru_cache(maxsize=1)
def _host_vector_registers() -> tuple[int, int]:
    try:
        flags = next((line.split(":", 1)[1].split() for line in _CPUINFO.read_text().splitlines()
                      if line.startswith("flags")), [])
    except OSError:
        return SSE2_REGISTERS
    if "avx512f" in flags:
        return 32, 64
    if "avx" in flags:
        return 16, 32
    return SSE2_REGISTERS


def register_tile_sizes(registers: tuple[int, int], element_bytes: int) -> list[int]:
    """[R, C]: R rows of C elements whose accumulators fill half of the vector registers."""
    count, width = registers
    vectors_per_row = max(1, count // 2 // ROWS)
    return [ROWS, max(1, vectors_per_row * width // element_bytes)]


def _element_bytes(scop: Scop, band: isl.ScheduleNode) -> int:
    """The widest element the band's statements write, in bytes."""
    written = scop.writes.intersect_domain(band.get_domain()).get_map_list()   # [P] -> { S[i..] -> A[a..] }
    names = {written.get_at(k).get_tuple_name(isl.dim_type.out) for k in range(written.n_map())}
    return max((getattr(scop.array(name).element, "bits", 64) // 8 for name in names), default=8)


def register_tiles(band: isl.ScheduleNode, roles: tuple[int, int, int], sizes: list[int],
                   widths: list[int], deps: isl.UnionMap) -> isl.ScheduleNode | None:
    """The `register-tile` mark over the register-tiled `band` (sizes [R, C]), or None when it
    has no full register tile. The columns of incomplete column blocks (gemm LARGE: 1100 =
    34 x 32 + 12) get register tiles of the narrower `widths` after the others
    (`column_parts`) when the dependences allow it: the mark's child is then a sequence of
    the parts."""
    parts = column_parts(band, roles, sizes[1], widths, deps)
    if len(parts) == 1:
        tiled = _register_tile(band, roles, sizes)
    else:
        filters = isl.UnionSetList.alloc(band.get_ctx(), len(parts))
        for instances, _ in parts:
            filters = filters.add(instances)
        node = band.insert_sequence(filters)
        tiled = None
        for k, (_, width) in enumerate(parts):
            part = node.child(k).child(0)
            done = None if width is None else _register_tile(part, roles, [sizes[0], width])
            if k == 0 and done is None:
                return None                     # no full tile of the main width
            node = (done if done is not None else part).parent().parent()
        tiled = node
    return None if tiled is None else tiled.insert_mark(isl.Id(REGISTER_TILE_MARK, context=band.get_ctx()))


def remainder_widths(columns: int, vector: int) -> list[int]:
    """The column counts of the register tiles of the remainder columns, each tried on what
    the wider ones leave: one vector of `vector` elements and half of one, those narrower than
    the register tile's `columns` and of two elements at least (AVX-512 doubles, 4 x 32
    register tiles: 8 and 4; AVX: 4 and 2; SSE2: 2). Each width is one more part for isl's
    AST generator (compile time); 12 leftover columns at gemm LARGE need both."""
    return [w for w in (vector, vector // 2) if 2 <= w < columns]


def column_parts(band: isl.ScheduleNode, roles: tuple[int, int, int], columns: int, widths: list[int],
                 deps: isl.UnionMap) -> list[tuple[isl.UnionSet, int | None]]:
    """The instances of `band` in the order the register tiles run them, each part with its
    register tile's column count: first those whose block of `columns` columns (`column -
    column mod C` of the column member, C = `columns`) is complete at their other dates, then,
    of the rest, those in complete blocks of each of `narrower_widths` in turn, and last
    (width None) any columns left. One part (the whole band, `columns`) when the band is not
    rectangular (the reduction's or the columns' range depends on another member: triangular
    bands keep one band), when every block is complete, or when
    some dependence runs from an instance of a later part to one of an earlier part at the same
    outer dates (the point tile), which the new order would break.

    Why: the partial register tiles are ordinary loops whose column loop has a trip count LLVM
    does not know (`nj - c1 - c3`), so every reduction step loads and stores the tile's
    elements of `C`; at gemm LARGE, the 12 columns of 1100 beyond the last 32-column block
    (1 % of the products) took about 8 % of the kernel's time."""
    domain = band.get_domain()
    whole = [(domain, columns)]
    if not widths:
        return whole
    # The column range must not depend on the row or the reduction either (covariance's
    # `j >= i`: its parts' sets exceeded isl's budget, and no register tile was left).
    if not (is_rectangular(band, roles[1]) and is_rectangular(band, roles[2])):
        return whole
    dates = band_dates(band)                                   # [P] -> { S[i..] -> [outer, p0, p1, p2] }
    column = isl.Set.from_union_set(dates.range()).dim(isl.dim_type.set) - 3 + roles[2]
    parts: list[tuple[isl.UnionSet, int | None]] = []
    remaining = domain
    for width in [columns] + widths:
        rest = _incomplete_blocks(dates.intersect_domain(remaining), column, width).coalesce()
        complete = remaining.subtract(rest).coalesce()
        if not complete.is_empty():
            parts.append((complete, width))
        remaining = rest
        if remaining.is_empty():
            break
    if not remaining.is_empty():
        parts.append((remaining, None))
    if len(parts) <= 1 or parts[0][1] != columns:
        return whole
    parts = [(instances.gist(domain).coalesce(), width) for instances, width in parts]
    prefix = band.get_prefix_schedule_relation().intersect_domain(domain)   # { S[i..] -> [outer] }
    same_tile = prefix.apply_range(prefix.reverse())
    for k in range(1, len(parts)):
        earlier = parts[0][0]
        for instances, _ in parts[1:k]:
            earlier = earlier.union(instances)
        backwards = deps.intersect_domain(parts[k][0]).intersect_range(earlier)
        if not backwards.intersect(same_tile).is_empty():
            return whole
    return parts


def _incomplete_blocks(dates: isl.UnionMap, column: int, width: int) -> isl.UnionSet:
    """The instances of `dates` ([P] -> { S[i..] -> [t..] }) whose block of `width` values of
    date `column` (`t - t mod width`), the other dates fixed, holds a value no instance has."""
    covered = isl.Set.from_union_set(dates.range())            # [P] -> { [t..] }
    n = covered.dim(isl.dim_type.set)
    params = covered.get_space().get_var_names(isl.dim_type.param)
    same = " and ".join([f"e{k} = d{k}" for k in range(n) if k != column]
                        + [f"floor(e{column} / {width}) = floor(d{column} / {width})"])
    block = isl.Map(f"[{', '.join(params)}] -> {{ [{', '.join(f'd{k}' for k in range(n))}] -> "
                    f"[{', '.join(f'e{k}' for k in range(n))}] : {same} }}", context=covered.get_ctx())
    incomplete = block.intersect_domain(covered).subtract_range(covered).domain()
    return dates.intersect_range(isl.UnionSet.from_set(incomplete)).domain()


def _register_tile(band: isl.ScheduleNode, roles: tuple[int, int, int],
                   sizes: list[int]) -> isl.ScheduleNode | None:
    """The register-tiled subtree replacing `band` (its top band), or None when the band has
    no full register tile. `sizes`: [R, C]."""
    row, reduction, column = roles
    ctx = band.get_ctx()
    rectangular = is_rectangular(band, reduction)
    partial = band.band_get_partial_schedule()                 # [P] -> { S[i..] -> [p0, p1, p2] }
    coincident = [band.band_member_get_coincident(m) for m in range(3)]
    point = _member(partial, row).flat_range_product(_member(partial, column))   # [P] -> { S[i..] -> [p_row, p_column] }
    size = isl.MultiVal.zero(point.get_space())
    for k, s in enumerate(sizes):
        size = size.set_val(k, isl.Val.int_from_si(ctx, s))
    tiles = point.scale_down_multi_val(size).floor().scale_multi_val(size)   # [row - row mod R, col - col mod C]
    inner = point.sub(tiles)                                   # [P] -> { S[i..] -> [row mod R, col mod C] }
    # The column tiles outside the row tiles, as BLIS orders its loops around the micro-kernel:
    # the reduction-long panel of the column tile (B[k][j..j+C-1]) stays in L1 across row tiles.
    tiles = tiles.drop_dims(isl.dim_type.set, 0, 1).flat_range_product(tiles.drop_dims(isl.dim_type.set, 1, 1))

    node = band.delete()
    node = node.insert_partial_schedule(inner)
    node = node.band_set_permutable(1)
    node = node.band_member_set_coincident(0, coincident[row]).band_member_set_coincident(1, coincident[column])
    node = node.insert_partial_schedule(_member(partial, reduction))
    node = node.band_member_set_coincident(0, coincident[reduction])
    # Separate pieces: the first reduction step, where statements without the reduction loop
    # (gemm's `C[i][j] *= beta`) also run, is peeled, and the loop after it runs one statement.
    node = node.band_member_set_ast_loop_type(0, isl.ast_loop_type.separate)
    node = node.insert_partial_schedule(tiles)
    node = node.band_set_permutable(1)
    node = node.band_member_set_coincident(0, coincident[column]).band_member_set_coincident(1, coincident[row])

    # Full register tiles: the prefixes at which the R x C box of (row mod R, col mod C) is covered.
    dates = band_dates(node)                                   # [P] -> { S[i..] -> [outer, col tile, row tile] }
    full = _full_prefixes(dates.flat_range_product(isl.UnionMap.from_multi_union_pw_aff(inner)), sizes)
    if full.is_empty():
        return None
    if not rectangular:
        # A reduction range that depends on the row (trmm's `k > i`): the reduction steps at
        # which the whole box is covered are isolated too, so that their point loops have
        # constant trip counts; the steps of the diagonal (rows starting later) are partial.
        steps = node.child(0)                                  # [P] -> { S[i..] -> [outer, tiles, reduction] }
        full_steps = _full_prefixes(band_dates(steps).flat_range_product(
            isl.UnionMap.from_multi_union_pw_aff(inner)), sizes)
        node = _isolate(steps, full_steps, 1).parent()
    return _isolate(node, full, 2)


def _member(partial: isl.MultiUnionPwAff, m: int) -> isl.MultiUnionPwAff:
    """The one-member partial schedule of member `m` of `partial`."""
    n = partial.dim(isl.dim_type.set)
    return partial.drop_dims(isl.dim_type.set, m + 1, n - m - 1).drop_dims(isl.dim_type.set, 0, m)


def _full_prefixes(dates: isl.UnionMap, sizes: list[int]) -> isl.Set:
    """The values of all but the last len(sizes) dates at which every point of the box
    0 <= d_k < sizes[k] of the last dates is scheduled."""
    # [P] -> { [outer, d] } for every statement instance (one anonymous space)
    covered = isl.Set.from_union_set(dates.range())
    n = covered.dim(isl.dim_type.set)
    depth = n - len(sizes)
    prefixes = covered.project_out(isl.dim_type.set, depth, len(sizes))   # [P] -> { [outer] }
    box = isl.Set.universe(covered.get_space())
    for k, s in enumerate(sizes):
        box = box.lower_bound_val(isl.dim_type.set, depth + k, isl.Val.zero(box.get_ctx()))
        box = box.upper_bound_val(isl.dim_type.set, depth + k, isl.Val.int_from_si(box.get_ctx(), s - 1))
    wanted = box.intersect(prefixes.insert_dims(isl.dim_type.set, depth, len(sizes)))
    missing = wanted.subtract(covered).project_out(isl.dim_type.set, depth, len(sizes))
    full = prefixes.subtract(missing)
    # Only prefixes that occur matter: the constraints they imply are left out (the AST
    # generator's work grows with the pieces of an isolate option).
    isolated = full.gist(prefixes).coalesce()
    if isolated.n_basic_set() > 1:
        isolated = _one_piece(isolated, full, prefixes) or isolated
    return isolated


def _one_piece(isolated: isl.Set, full: isl.Set, prefixes: isl.Set) -> Optional[isl.Set]:
    """One convex piece that holds the same occurring prefixes as `full`, or None.

    The AST generator isolates a convex set; of a union it keeps the hull, partial tiles
    and all, so every register tile keeps its bounds (syrk written j-outer: the tiles below
    the diagonal tile are one piece, the strips of the diagonal tile below the diagonal,
    `i1 = i0 and i3 + 32 <= i4`, another). Tile coordinates are multiples of the tile sizes,
    which the convex hull of the pieces does not see (and computing it within the isl budget
    fails), so the candidates are the pieces' common constraints (their simple hull) with
    one inequality of a piece lifted by one of its equalities, `c + e >= 0` or `c - e >= 0`
    (here `i3 + 32 <= i4 + i0 - i1`), kept when it is exact on the prefixes that occur."""
    common = isolated.simple_hull()
    for piece in isolated.get_basic_sets():
        constraints = piece.get_constraints()
        equalities = [c.get_aff() for c in constraints if c.is_equality()]
        inequalities = [c.get_aff() for c in constraints if not c.is_equality()]
        for equality in equalities:
            for inequality in inequalities:
                for lifted in (inequality.add(equality), inequality.sub(equality)):
                    candidate = isl.Set.from_basic_set(
                        common.add_constraint(isl.Constraint.inequality_from_aff(lifted)))
                    occurring = candidate.intersect(prefixes)
                    if occurring.is_subset(full) and full.is_subset(occurring):
                        return candidate.gist(prefixes).coalesce()
    return None


def _isolate(band: isl.ScheduleNode, full: isl.Set, members: int) -> isl.ScheduleNode:
    """`band` with the isolate option { isolate[[outer] -> [band]] : [outer, band] in `full` }:
    isl generates the full register tiles apart from the partial ones, so that the point
    loops inside them have constant trip counts (LLVM unrolls them completely)."""
    depth = full.dim(isl.dim_type.set) - members
    option = (isl.Map.from_domain(full).move_dims(isl.dim_type.out, 0, isl.dim_type.in_, depth, members)
              .wrap().set_tuple_name("isolate"))               # [P] -> { isolate[[outer] -> [band]] }
    band = band.band_set_ast_build_options(isl.UnionSet.from_set(option))
    for k in range(members):
        band = band.band_member_set_ast_loop_type(k, isl.ast_loop_type.atomic)
        band = band.band_member_set_isolate_ast_loop_type(k, isl.ast_loop_type.atomic)
    return band
