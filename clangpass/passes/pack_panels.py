# SPDX-License-Identifier: MIT
"""Pass `pack-panels`: copy the panel a register-tiled band streams into a contiguous buffer.

Input: Scop after `register-tile`. Output: the same schedule and model, with `Scop.packs`
naming, for each register-tiled band, the read-only arrays whose elements the micro-kernel
loads as vectors from a row that changes at every step of the reduction loop: every access
of the array is invariant along the register tile's row loop and unit-stride along its
column loop (the `B[k][j]` of `C[i][j] += alpha * A[i][k] * B[k][j]`, BLIS's `B` panel:
Van Zee & van de Geijn, "BLIS", TOMS 2015, section 2; Goto & van de Geijn, TOMS 2008,
section 5.2). The copies themselves are made at AST generation (clangpass.poly.packing):
before the band, the block of the array the band reads at the current tile dates is
copied into a region-local buffer of the tile's sizes, and the band reads the buffer,
whose rows are contiguous (`kc` rows of `nc` elements) instead of one row of the array
per reduction step, a new page each (8800 bytes apart in gemm LARGE).

A pack is chosen only when the copy is exact and cheap to address: the array is read-only
in the region, or no statement under the mark writes an element of the block before a read
of it at the same tile dates (trmm's `B[k][j]`: `clangpass.poly.packing.copy_is_current`), every statement reading it under the mark reads it through whole subscripts
and one affine access, the block read at each tile date is a box of constant sizes whose
corner is an affine function of the tile dates, the region's buffers together fit the tile
budget (half of L2: they are stack arrays of the region function, and of each thread's), and
no parallel loop runs under the mark (a buffer is private to the thread that runs the loops
above it). Besides `B`, the `A` panel (one element per row of the register tile) is packed
when an expression of it and of read-only scalars moves out of the micro-kernel with it
(`alpha * A[i][k]`, clangpass.poly.packing.packed_value): the buffer holds its value, the
micro-kernel broadcasts it from memory (a load, not a multiply and a shuffle on the vector
ports). A statement that reads the array more than once (syrk's `alpha * A[i][k] * A[j][k]`)
gets one pack per read (`Pack.access`), and a read that is invariant along the rows but walks
down a column of the array along the register tile's columns (`A[j][k]`) is copied transposed
(`Pack.order`), so that its buffer's rows are what the micro-kernel loads as vectors.
docs/passes/pack-panels.md has the measurements.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.options import CompileOptions
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK
from clangpass.poly.packing import (Pack, assigned, copy_is_current, footprint, pack_reads, packed_value, readable,
                                    reads_access, reads_of, whole_subscripts)
from clangpass.poly.scop import Scop, statement_names
from clangpass.poly.strides import Stride, StrideRows
from clangpass.poly.tile_sizes import host_cache_sizes, tile_budget
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK


@dataclass(frozen=True)
class PackRecord(PassRecord):
    """The arrays copied into buffers before register-tiled bands (`packed_panels`: how many
    copies, `packed_arrays`: the arrays, in schedule order)."""

    packed_panels: int = 0
    packed_arrays: tuple[str, ...] = ()


@register
class PackPanels(Pass):
    """Choose the panels of register-tiled bands to copy into contiguous buffers."""

    name = "pack-panels"
    # Not `rewrites_schedule`: it reads the tree (its register-tile marks) and leaves it as it is,
    # so it runs on a tree loaded from a schedule file too, and the object is the saved one's.
    requires = frozenset({"schedule"})
    record = PackRecord
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        budget = tile_budget(ctx.options.cache_sizes or host_cache_sizes())
        packs: list[Pack] = []

        def visit(node: isl.ScheduleNode) -> None:
            if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == REGISTER_TILE_MARK:
                for pack in _panels(node, scop, budget, len(scop.packs) + len(packs)):
                    # The buffers are stack arrays of the region function (and of each thread's):
                    # all of them together within the tile budget.
                    if sum(p.bytes for p in (*scop.packs, *packs, pack)) <= budget:
                        packs.append(pack)
                return
            for k in range(node.n_children()):
                visit(node.child(k))

        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "pack-panels"):
                visit(scop.schedule.get_root())
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no packed panels")
        if not packs:
            return unit
        record = unit.record(PackRecord)
        return replace(unit, scop=scop.with_schedule(scop.schedule, packs=scop.packs + tuple(packs))).with_record(
            replace(record, packed_panels=record.packed_panels + len(packs),
                    packed_arrays=record.packed_arrays + tuple(p.array for p in packs)))


def _panels(mark: isl.ScheduleNode, scop: Scop, budget: int, number: int) -> list[Pack]:
    """The packs of the register-tiled band under `mark` (see the module docstring)."""
    if _has_parallel_mark(mark.child(0)):
        return []
    point = _point_members(mark)
    if point is None:
        return []
    domain = mark.get_domain()
    names = statement_names(domain)
    reads = scop.reads.intersect_domain(domain)
    arrays = sorted({reads.get_map_list().get_at(k).get_tuple_name(isl.dim_type.out)
                     for k in range(reads.get_map_list().n_map())})
    scalars = frozenset(a.name for a in scop.arrays if a.rank == 0 and a.read_only) | frozenset(scop.params)
    out: list[Pack] = []
    for name in arrays:
        info = scop.array(name)
        if info.local or info.rank == 0:
            continue
        readers = tuple(sorted(s for s in names if not reads_of(reads, {s}, name, domain).is_empty()))
        if not readers or not all(scop.statement(s).body is not None and
                                  readable(scop.statement(s).body, name, info.rank, not info.read_only)
                                  for s in readers):
            continue
        if info.read_only and all(_one_affine_read(reads_of(reads, {s}, name, domain)) for s in readers):
            choices = [None]                    # one buffer for the array
        elif len(readers) == 1 or not info.read_only:
            # One buffer per read (syrk's A[i][k] and A[j][k]), each a read the body spells once;
            # of an array the region writes, each read on its own (trmm's B[k][j], not the
            # accumulator B[i][j] its three-address form reads in another statement).
            choices = _affine_reads(reads_of(reads, set(readers), name, domain))
            if choices is None:
                continue
        else:
            continue
        for access in choices:
            pack = _panel(mark, scop, point, reads, domain, name,
                          readers if access is None else (access.get_tuple_name(isl.dim_type.in_),),
                          access, scalars, number + len(out))
            # An array the region writes: only where the copy holds what each read gets.
            if pack is not None and not info.read_only and not copy_is_current(
                    mark, pack_reads(scop.reads, pack, domain), scop.writes):
                continue
            if pack is not None and pack.bytes <= budget:
                out.append(pack)
    return out


def panels_serve(mark: isl.ScheduleNode, scop: Scop, options: CompileOptions, reads: isl.UnionMap) -> bool:
    """Whether the packs this pass would choose under the register-tile `mark` serve every
    read of `reads` (register-tile keeps trmm's tiles only then: docs/passes/register-tile.md)."""
    packs = _panels(mark, scop, tile_budget(options.cache_sizes or host_cache_sizes()), len(scop.packs))
    served = isl.UnionMap.empty(reads.get_space())
    for pack in packs:
        served = served.union(pack_reads(scop.reads, pack, mark.get_domain()))
    return reads.intersect_domain(mark.get_domain()).is_subset(served)


def _panel(mark: isl.ScheduleNode, scop: Scop, point: isl.ScheduleNode, reads: isl.UnionMap,
           domain: isl.UnionSet, name: str, readers: tuple[str, ...], access: isl.BasicMap | None,
           scalars: frozenset[str], number: int) -> Pack | None:
    """The pack of `name`'s reads by `readers` under `mark` (only the read `access` when given),
    or None when it is neither panel."""
    info = scop.array(name)
    accesses = reads_of(reads, set(readers), name, domain)
    spelled = None if access is None else access.to_str()
    if access is not None:
        accesses = isl.UnionMap.from_basic_map(access)
        # The body must spell the read once, as one whole subscript (the one the buffer replaces).
        probe = Pack(name, "", readers, (1,) * info.rank, info.element, access=spelled)
        chosen = reads_access(probe, scop.statement(readers[0]).iterators, access.get_ctx())
        if sum(1 for c in whole_subscripts(scop.statement(readers[0]).body, name, info.rank) if chosen(c)) != 1:
            return None
        if any(chosen(c) for c in assigned(scop.statement(readers[0]).body, name)):
            return None                                 # the buffer replaces reads only
    elif not info.read_only and any(assigned(scop.statement(s).body, name) for s in readers):
        return None
    else:
        def chosen(chain: object) -> bool:
            return True
    # [row, column], entry by entry: each question below stops at the first access that answers it.
    along = StrideRows(point, accesses, members=2)
    if not len(along):
        return None
    value, order = None, None
    if along.all_are(0, Stride.INVARIANT) and along.all_are(1, Stride.UNIT):
        pass                                            # the B panel: vector loads of one row
    elif along.all_are(0, Stride.INVARIANT) and access is not None:
        # A B panel the columns walk down a column of (syrk's A[j][k]): copied transposed, the
        # dimension the columns advance last, so that the buffer's rows are the vectors.
        order = _transposed(point, accesses, name, info.rank)
        if order is None:
            return None
        # syr2k's `A[j][k] * alpha * B[i][k]`: the buffer holds `A[j][k] * alpha`, a multiply
        # per element copied instead of one per vector and step of the micro-kernel.
        value = packed_value(scop.statement(readers[0]).body, name, info.rank, scalars, chosen)
    elif along.all_are(1, Stride.INVARIANT) and len(readers) == 1:
        # The A panel: one element per row of the register tile, broadcast to the row's
        # vectors. Worth a copy when an expression of it moves out of the micro-kernel with
        # it (`alpha * A[i][k]`): its multiply and the register broadcast of its result, or
        # when the rows' elements are adjacent (below).
        value = packed_value(scop.statement(readers[0]).body, name, info.rank, scalars, chosen)
        # Without one, a panel whose rows' elements are adjacent (trmm's `A[k][i]`): the
        # reduction walks down its column, a row of the array (a new page) per step; the copy
        # makes the block contiguous (trmm LARGE, one thread: 0.032 -> 0.026 s).
        if value is None and not along.all_are(0, Stride.UNIT):
            return None
    else:
        return None
    box = footprint(mark, accesses)
    if box is None:
        return None
    return Pack(name, f"__pencil_pack{number}_{name}", readers, box.sizes, info.element, value,
                access=spelled, order=order)


def _transposed(point: isl.ScheduleNode, accesses: isl.UnionMap, name: str, rank: int) -> tuple[int, ...] | None:
    """The order of `name`'s dimensions, the one the register tile's column advances last, in
    which `accesses` become unit-stride along the column (as gemm's `B[k][j]`); None if none."""
    for across in range(rank - 1):
        order = tuple(d for d in range(rank) if d != across) + (across,)
        names = [f"a{d}" for d in range(rank)]
        permute = isl.UnionMap.read_from_str(
            accesses.get_ctx(), f"{{ {name}[{', '.join(names)}] -> {name}[{', '.join(names[d] for d in order)}] }}")
        if StrideRows(point, accesses.apply_range(permute), members=2).all_are(1, Stride.UNIT):
            return order
    return None


def _affine_reads(reads: isl.UnionMap) -> list[isl.BasicMap] | None:
    """The reads of one array by one statement, one basic map each, when each is one affine
    function; else None."""
    maps = reads.get_map_list()
    out: list[isl.BasicMap] = []
    for k in range(maps.n_map()):
        pieces = maps.get_at(k).get_basic_map_list()
        for b in range(pieces.n_basic_map()):
            piece = pieces.get_at(b)
            if not isl.Map.from_basic_map(piece).is_single_valued():
                return None
            out.append(piece)
    return out


def _one_affine_read(reads: isl.UnionMap) -> bool:
    """Whether `reads` (one statement's reads of one array) is one affine function."""
    maps = reads.get_map_list()
    if maps.n_map() != 1:
        return False
    m = maps.get_at(0)
    return m.is_single_valued() and m.get_basic_map_list().n_basic_map() == 1


def _point_members(mark: isl.ScheduleNode) -> isl.ScheduleNode | None:
    """The band whose last two schedule dimensions are the register tile's row and column
    under `mark`: the last band of the chain of bands below it when it has two members, or
    the last of two one-member bands a `vector` mark separates (`mark-vector` splits the
    point band; a tree loaded from a schedule file has its marks); None otherwise. Where the
    remainder columns have register tiles of their own (a sequence under the mark, the full
    column blocks first: docs/passes/register-tile.md), the first part's band."""
    node, bands = mark.child(0), []
    while True:
        if node.get_type() == isl.schedule_node_type.sequence and not bands:
            node = node.child(0).child(0)
            continue
        if node.get_type() == isl.schedule_node_type.band:
            bands.append(node)
        elif not (node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == VECTOR_MARK):
            break
        if node.n_children() != 1:
            break
        node = node.child(0)
    if bands and bands[-1].band_n_member() == 2:
        return bands[-1]
    if len(bands) >= 2 and bands[-1].band_n_member() == 1 and bands[-2].band_n_member() == 1:
        return bands[-1]
    return None


def _has_parallel_mark(node: isl.ScheduleNode) -> bool:
    if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK:
        return True
    return any(_has_parallel_mark(node.child(k)) for k in range(node.n_children()))
