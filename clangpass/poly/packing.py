# SPDX-License-Identifier: MIT
"""Packed panels: copies of the block of an array one register-tiled point band reads.

Input: a `Scop` whose schedule holds `register-tile` marks (clangpass.passes.register_tile)
and the `Pack`s pass `pack-panels` chose (`Scop.packs`). Output, at AST generation
(clangpass.poly.codegen): the schedule with one copy statement per pack grafted before
its register-tile mark (`graft_copies`), the calls' extra arguments that index the buffer
(`PackIndices`, an isl `at_each_domain` callback), and the statement bodies: the readers
rewritten to read the buffer, the copies (`pack_bodies`).

A pack names an array `X` that the statements under one register-tile mark only read
(the `B` of `C[i][j] += alpha * A[i][k] * B[k][j]`), a region-local buffer and its
sizes. For every date `p` of the bands above the mark (the tile loops), the elements the
band reads form the footprint `F(p)`; its lower corner `lo(p)` (isl `dim_min`) is an
affine function of `p`, and `F(p) - lo(p)` fits the constant box `sizes` (`footprint`,
checked when the pass chooses the pack and again here). Then:

- the copy statement `P_<buffer>[p, a]`, for `a` in `F(p)`, runs `buffer[a - lo(p)] = X[a]`.
  It enters the schedule tree as an extension node grafted before the mark (isl
  `graft_before`, as PPCG inserts its copies to GPU shared memory: Verdoolaege et al.,
  "Polyhedral parallel code generation for CUDA", TACO 2013, section 4.4), with one band
  over `a` (the copy loops in the buffer's order: unit stride in both arrays, or, for a
  transposed panel, unit-stride stores and a column of the array read);
- a statement `S[i]` under the mark that read `X[f(i)]` reads `buffer[x]` instead, where
  `x = f(i) - lo(p)`, `p` the outer dates, comes as extra call arguments: at each user node
  the AST build writes `x` as an expression of the loop iterators (`build.get_schedule`
  inverted), which inside a register tile is the point loops' offset (`c5`, `c3 + c7`), no
  division and no modulo, so that LLVM sees unit-stride loads of one contiguous row.

Correctness: the copy reads `X` before the mark, and no statement under the mark writes an
element of `F(p)` before a read of it at the same outer dates (`X` is read-only in the region,
or `copy_is_current` holds: trmm's `B[k][j]`, a row the band writes only after every read of
it), and the buffer is written only by the copy and read only under the mark the copy
precedes, at the same outer dates: every value a statement reads from the buffer is the
element it read before. The buffer is a region local, so every thread running a parallel loop above the
mark has its own (the CPU back end's contract, clangpass.poly.codegen_unit). The copies
and the extra arguments exist only in the AST: the passes see the schedule and the model
without them.
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import children, descendants, transform
from clangpass.poly.affine import access_of
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK, StatementBody
from clangpass.poly.validity import earlier_pairs

COPY_PREFIX = "P_"
_CACHE_LINE = 64            # bytes
_INDEX_PREFIX = "__pencil_pack"
# Rows of the array a transposed copy reads per strip (`_copy_tree`): fewer than the 64 pages
# the L1 data TLB of current x86 cores maps.
COPY_STRIP = 32


@dataclass(frozen=True)
class Pack:
    """The elements of `array` the `statements` under one register-tile mark read, copied
    before the mark into the region local `buffer` of `sizes` elements per dimension."""

    array: str
    buffer: str
    statements: tuple[str, ...]
    sizes: tuple[int, ...]
    element: T.CType
    # The expression of the reader's body whose value the buffer holds (`alpha * A[i][k]`, its
    # only subscript of `array` and otherwise read-only scalars and constants); None: the element.
    value: Optional[N.Expr] = None
    # The one read the buffer replaces, `[P] -> { S[i..] -> X[a..] }` in isl's notation; None:
    # every read of `array` by `statements`. syrk's `C[i][j] += alpha * A[i][k] * A[j][k]` reads
    # A twice, as the A panel (`alpha * A[i][k]`) and as the B panel (`A[j][k]`).
    access: Optional[str] = None
    # The array's dimension each buffer dimension holds, outermost first; None: the array's
    # order. (1, 0) copies `A[j][k]` into `buffer[k][j]`: the register tile's columns `j`, along
    # which `A[j][k]` jumps a row of A, become the buffer's unit-stride rows (a transposed panel).
    order: Optional[tuple[int, ...]] = None

    @property
    def layout(self) -> tuple[int, ...]:
        """`order`, or the array's order."""
        return self.order if self.order is not None else tuple(range(len(self.sizes)))

    @property
    def copy(self) -> str:
        """The copy statement's name."""
        return COPY_PREFIX + self.buffer

    def indices(self) -> tuple[str, ...]:
        """The extra iterators that carry the buffer's indices to a reading statement."""
        return tuple(f"{_INDEX_PREFIX}_{self.buffer}_x{d}" for d in range(len(self.sizes)))

    @property
    def extents(self) -> tuple[int, ...]:
        """The buffer's declared extents: `sizes`, with rows of an even number of cache lines
        padded by one line. Rows 2 KB apart (256 doubles) would map to 2 of the 64 sets of a
        48 KB, 12-way L1 and evict each other: the micro-kernel's k x 32 block of the packed B
        (128 rows of 4 lines) would not stay in L1 across the register tiles of a column tile.
        With an odd number of lines per row, consecutive rows fall on every set."""
        element = self._element_bytes
        sizes = tuple(self.sizes[d] for d in self.layout)
        row = sizes[-1] * element
        if row % (2 * _CACHE_LINE) == 0 and _CACHE_LINE % element == 0:
            return (*sizes[:-1], sizes[-1] + _CACHE_LINE // element)
        return sizes

    def declaration(self) -> N.VarDecl:
        """The buffer as a region-local array declaration."""
        t: T.CType = self.value.type if self.value is not None else self.element
        for size in reversed(self.extents):
            t = T.ArrayType(element=t, extent=N.IntLit(size, type=T.LONG), constant_extent=size)
        return N.VarDecl(self.buffer, t)

    @property
    def _element_bytes(self) -> int:
        t = self.value.type if self.value is not None else self.element
        return getattr(t, "bits", 64) // 8

    @property
    def bytes(self) -> int:
        count = 1
        for s in self.extents:
            count *= s
        return count * self._element_bytes


@dataclass(frozen=True)
class Footprint:
    """What a pack copies at one register-tile mark: `elements` `[P] -> { [p] -> X[a] }` over
    the dates `p` of the bands above the mark, its lower corner `lo` `[P] -> { [p] -> [lo] }`,
    and the box `sizes` every `F(p) - lo(p)` fits in."""

    elements: isl.Map
    lo: isl.PwMultiAff
    sizes: tuple[int, ...]


def reads_of(reads: isl.UnionMap, statements: set[str] | frozenset[str], array: str,
             domain: isl.UnionSet) -> isl.UnionMap:
    """[P] -> { S[i] -> X[a] }: the reads of `array` by `statements`, restricted to `domain`."""
    out = isl.UnionMap.empty(reads.get_space())
    maps = reads.intersect_domain(domain).get_map_list()
    for k in range(maps.n_map()):
        m = maps.get_at(k)
        if m.get_tuple_name(isl.dim_type.in_) in statements and m.get_tuple_name(isl.dim_type.out) == array:
            out = out.union(isl.UnionMap.from_map(m))
    return out


def pack_reads(reads: isl.UnionMap, pack: Pack, domain: isl.UnionSet) -> isl.UnionMap:
    """[P] -> { S[i] -> X[a] }: the reads `pack`'s buffer replaces, restricted to `domain`."""
    if pack.access is None:
        return reads_of(reads, set(pack.statements), pack.array, domain)
    return isl.UnionMap.read_from_str(reads.get_ctx(), pack.access).intersect_domain(domain)


def footprint(mark: isl.ScheduleNode, reads: isl.UnionMap) -> Optional[Footprint]:
    """The footprint at `mark` of `reads` (one array's reads by statements under it), or None
    when it is not a box of constant sizes at an affine corner."""
    if reads.is_empty():
        return None
    prefix = mark.get_prefix_schedule_relation().intersect_domain(mark.get_domain())   # { S[i] -> [p] }
    joined = prefix.reverse().apply_range(reads)                                       # { [p] -> X[a] }
    if joined.get_map_list().n_map() != 1:
        return None
    elements = isl.Map.from_union_map(joined).coalesce()
    rank = elements.dim(isl.dim_type.out)
    if rank == 0:
        return None
    context = elements.domain()
    corner = [elements.dim_min(d).coalesce().gist(context) for d in range(rank)]
    corner = [c if c.n_piece() == 1 else _bounding_piece(elements, d, c) for d, c in enumerate(corner)]
    if any(c is None for c in corner):
        return None
    corners = isl.PwAffList.alloc(elements.get_ctx(), rank)
    for c in corner:
        corners = corners.add(c)
    lo = isl.MultiPwAff.from_pw_aff_list(
        isl.Space.map_from_domain_and_range(context.get_space(),
                                            isl.Space.set_alloc(elements.get_ctx(), 0, rank)
                                            .align_params(context.get_space())), corners)
    # { a - lo(p) } over every p: its largest value per dimension, over all parameters.
    offsets = isl.Map.from_multi_pw_aff(lo).reverse().apply_range(
        elements.reset_tuple_id(isl.dim_type.out)).deltas()
    sizes = []
    for d in range(rank):
        coordinate = isl.Aff.var_on_domain(isl.LocalSpace.from_space(offsets.get_space()), isl.dim_type.set, d)
        top = offsets.max_val(coordinate)
        if not top.is_int():
            return None
        sizes.append(top.to_python() + 1)
    return Footprint(elements, isl.PwMultiAff.from_multi_pw_aff(lo), tuple(sizes))


def _bounding_piece(elements: isl.Map, d: int, corner: isl.PwAff) -> Optional[isl.PwAff]:
    """A corner of dimension `d` of `elements` ({ [p] -> X[a] }) of one affine piece, when the
    lowest element's `dim_min` has several: of its pieces that bound dimension `d` of every
    element from below with a constant largest offset, the one of the smallest (trmm's
    diagonal tiles, where the rows read start one after the tile's first row: `max(kt, it +
    1)`; `kt` bounds them all, 127 rows above it at most); None if none does."""
    context = elements.domain()
    along = elements.project_out(isl.dim_type.out, d + 1, elements.dim(isl.dim_type.out) - d - 1)
    along = along.project_out(isl.dim_type.out, 0, d).reset_tuple_id(isl.dim_type.out)   # { [p] -> [a_d] }
    pieces: list[isl.Aff] = []
    corner.foreach_piece(lambda _set, aff: pieces.append(aff))
    best: Optional[tuple[int, isl.PwAff]] = None
    for aff in pieces:
        bound = isl.PwAff.from_aff(aff).intersect_domain(context)
        # { a_d - lo_d(p) } over every p: all non-negative, the largest a constant.
        offsets = isl.Map.from_pw_aff(bound).reverse().apply_range(along).deltas()
        coordinate = isl.Aff.var_on_domain(isl.LocalSpace.from_space(offsets.get_space()), isl.dim_type.set, 0)
        low, top = offsets.min_val(coordinate), offsets.max_val(coordinate)
        if low.is_int() and low.to_python() >= 0 and top.is_int() and (best is None or top.to_python() < best[0]):
            best = (top.to_python(), bound)
    return None if best is None else best[1]


def copy_is_current(mark: isl.ScheduleNode, reads: isl.UnionMap, writes: isl.UnionMap) -> bool:
    """Whether a copy, made just before `mark` at each of its outer dates, of the elements
    `reads` ([P] -> { S[i] -> X[a] }, the reads a buffer would serve) holds the value each of
    those reads gets in place: no instance under `mark` at the same outer dates writes
    (`writes`) an element before a read of it (dates of the schedule tree `mark` is in). True
    of an array the region only reads; of trmm's `B[k][j]`, `k > i`, in its register tiles
    (a row of `B` is written from its own rows' tiles on, after the rows above it read it)."""
    domain = mark.get_domain()
    written = writes.intersect_domain(domain)
    read = reads.intersect_domain(domain)
    same = written.apply_range(read.reverse())                   # { W[w] -> R[r] : one element }
    if same.is_empty():
        return True
    prefix = mark.get_prefix_schedule_relation().intersect_domain(domain)   # { S[i] -> [p] }
    same = same.intersect(prefix.apply_range(prefix.reverse()))
    if same.is_empty():
        return True
    # The order under the mark: the pairs share their prefix, the subtree's dates decide.
    dates = prefix.flat_range_product(mark.get_subtree_schedule_union_map().intersect_domain(domain))
    return earlier_pairs(same, dates).is_empty()


def graft_copies(schedule: isl.Schedule, reads: isl.UnionMap,
                 packs: tuple[Pack, ...]) -> tuple[isl.Schedule, dict[str, Footprint]]:
    """`schedule` with the copy statement of every pack grafted before its register-tile mark,
    and the footprint of each pack (by buffer). A pack whose footprint is no longer a box of
    its sizes (the schedule changed since `pack-panels`) raises isl.Error."""
    found: dict[str, Footprint] = {}
    if not packs:
        return schedule, found

    # The marks' positions (child indices from the root), grafted last first: a graft adds
    # siblings after earlier marks' positions or nodes above its own mark, never above another's.
    paths: list[tuple[int, ...]] = []

    def find(node: isl.ScheduleNode, path: tuple[int, ...]) -> None:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == REGISTER_TILE_MARK:
            paths.append(path)
            return
        for k in range(node.n_children()):
            find(node.child(k), path + (k,))

    find(schedule.get_root(), ())
    for path in reversed(paths):
        node = schedule.get_root()
        for k in path:
            node = node.child(k)
        names = _statement_names(node.get_domain())
        for pack in packs:
            if pack.buffer in found or not set(pack.statements) <= names:
                continue
            box = footprint(node, pack_reads(reads, pack, node.get_domain()))
            if box is None or box.sizes != pack.sizes:
                raise isl.Error(f"pack {pack.buffer}: the footprint is no box of {pack.sizes}")
            found[pack.buffer] = box
            node = node.graft_before(_copy_tree(pack, box))
        schedule = node.get_schedule()
    missing = [p.buffer for p in packs if p.buffer not in found]
    if missing:
        raise isl.Error(f"packs {', '.join(missing)}: no register-tile mark holds their statements")
    return schedule, found


def _copy_tree(pack: Pack, box: Footprint) -> isl.ScheduleNode:
    """An extension node adding `P[p, a]` for `a` in F(p), with one band over `a` in the
    buffer's order (`Pack.layout`): the innermost copy loop walks the buffer's rows.

    For a transposed pack (`buffer[k][j] = A[j][k]`) that makes the stores unit-stride and the
    loads one column of `A` (LLVM: one `vgatherqpd` per vector of 8 doubles, then an aligned
    store), in strips of `COPY_STRIP` rows of `A` (`[floor(j / S), k, j]`): a strip's gathers
    touch S rows, each on a page of its own when rows are long, fewer pages than the L1 data
    TLB holds, and reuse each row's cache line over 8 steps of `k`. In the array's order LLVM
    vectorised the copy with `vscatterqpd` stores 1 KB apart. syr2k LARGE (two transposed
    packs, 128^3 tiles), share of the kernel's samples in the copies: array order 24 %,
    buffer order 19-24 %, in strips of 32 rows 16 % (docs/passes/pack-panels.md)."""
    elements = box.elements                                           # { [p] -> X[a] }
    outer = elements.dim(isl.dim_type.in_)
    extension = (elements.domain().identity().flat_range_product(elements)
                 .set_tuple_name(isl.dim_type.out, pack.copy))        # { [p] -> P[p, a] }
    instances = extension.range()                                     # { P[p, a] }
    element = (isl.MultiAff.identity(isl.Space.map_from_set(instances.get_space()))
               .drop_dims(isl.dim_type.out, 0, outer).reset_tuple_id(isl.dim_type.out))   # { P[p, a] -> [a] }
    loops = isl.MultiAff.from_aff(element.get_aff(pack.layout[0]))    # { P[p, a] -> [a in the buffer's order] }
    for d in pack.layout[1:]:
        loops = loops.flat_range_product(isl.MultiAff.from_aff(element.get_aff(d)))
    if pack.layout != tuple(range(len(pack.layout))):
        # Transposed: strips of COPY_STRIP array rows, { P[p, a] -> [floor(j / S), k, j] }.
        inner = loops.get_aff(len(pack.layout) - 1)
        strip = inner.scale_down_val(isl.Val.int_from_ui(inner.get_ctx(), COPY_STRIP)).floor()
        loops = isl.MultiAff.from_aff(strip).flat_range_product(loops)
    graft = isl.ScheduleNode.from_extension(isl.UnionMap.from_map(extension)).child(0)
    graft = graft.insert_partial_schedule(isl.MultiUnionPwAff.from_multi_pw_aff(isl.MultiPwAff.from_multi_aff(loops)))
    return graft.parent()


class PackIndices:
    """The isl `at_each_domain` callback that adds the buffer indices to the calls of packed
    statements: `S(i.., x..)` for a reader, `P(p.., a.., x..)` for a copy. Errors inside the
    callback (which isl would only print) are kept in `errors`."""

    def __init__(self, scop_reads: isl.UnionMap, packs: tuple[Pack, ...], found: dict[str, Footprint]):
        self.packs = [p for p in packs if p.buffer in found]
        self.found = found
        self.reads = scop_reads
        self.errors: list[str] = []

    def __call__(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        try:
            return self._rewrite(node, build)
        except Exception as exc:   # noqa: BLE001 - isl swallows callback exceptions: keep them
            self.errors.append(f"{type(exc).__name__}: {exc}")
            return node

    def _rewrite(self, node: isl.AstNode, build: isl.AstBuild) -> isl.AstNode:
        call = node.user_get_expr()
        name = call.op_get_arg(0).id_get_id().get_name()
        copies = [p for p in self.packs if p.copy == name]
        readers = [p for p in self.packs if name in p.statements]
        if not copies and not readers:
            return node
        schedule = isl.Map.from_union_map(build.get_schedule())           # { S[i] -> [t] }
        inverse = isl.PwMultiAff.from_map(schedule.reverse())               # { [t] -> S[i] }
        args = inverse
        ctx = schedule.get_ctx()
        for pack in copies:
            box = self.found[pack.buffer]
            outer = box.elements.dim(isl.dim_type.in_)
            rank = len(pack.sizes)
            instance = schedule.get_space().domain()                        # { P[p, a] }
            ident = isl.MultiAff.identity(isl.Space.map_from_set(instance))
            dates = ident.drop_dims(isl.dim_type.out, outer, rank).reset_tuple_id(isl.dim_type.out)
            element = ident.drop_dims(isl.dim_type.out, 0, outer).reset_tuple_id(isl.dim_type.out)
            offset = isl.PwMultiAff.from_multi_aff(element).sub(box.lo.pullback_multi_aff(dates))
            args = args.flat_range_product(_in_layout(offset.pullback_pw_multi_aff(inverse), pack.layout))
        for pack in readers:
            box = self.found[pack.buffer]
            outer = box.elements.dim(isl.dim_type.in_)
            access = isl.Map.from_union_map(pack_reads(self.reads, pack, isl.UnionSet.from_set(schedule.domain())))
            element = isl.PwMultiAff.from_map(access).pullback_pw_multi_aff(inverse)   # { [t] -> X[a] }
            dates = schedule.range().identity()                                      # { [t] -> [t] }
            n = dates.dim(isl.dim_type.out)
            prefix = isl.PwMultiAff.from_map(dates.project_out(isl.dim_type.out, outer, n - outer))
            offset = element.reset_tuple_id(isl.dim_type.out).sub(box.lo.pullback_pw_multi_aff(prefix))
            args = args.flat_range_product(_in_layout(offset, pack.layout))
        args = args.set_tuple_id(isl.dim_type.out, isl.Id(name, context=ctx))
        return isl.AstNode.user_from_expr(build.call_from_pw_multi_aff(args))


def _in_layout(offset: isl.PwMultiAff, layout: tuple[int, ...]) -> isl.PwMultiAff:
    """`offset` (an element's offset in the array's dimensions) in the buffer's order."""
    if layout == tuple(range(len(layout))):
        return offset
    out = isl.PwMultiAff.from_pw_aff(offset.get_pw_aff(layout[0]))
    for d in layout[1:]:
        out = out.flat_range_product(isl.PwMultiAff.from_pw_aff(offset.get_pw_aff(d)))
    return out


def pack_bodies(statements: dict[str, StatementBody], packs: tuple[Pack, ...], found: dict[str, Footprint],
                outer: dict[str, int]) -> dict[str, StatementBody]:
    """`statements` with every reader of a pack reading its buffer (the buffer's indices as
    extra iterators) and the copy statements added; `outer` gives each pack's number of
    outer dates (by buffer). A reader whose body names the array other than in whole
    subscripts raises ValueError (pack-panels chose it, so this is a bug)."""
    out = dict(statements)
    for pack in packs:
        if pack.buffer not in found:
            continue
        chains: list[N.Subscript] = []
        ctx = found[pack.buffer].elements.get_ctx()
        for name in pack.statements:
            stmt = out[name]
            body, chain = _reading_buffer(stmt.body, pack, reads_access(pack, stmt.iterators, ctx))
            chains.extend(chain)
            out[name] = StatementBody(name, body, stmt.iterators + pack.indices())
        if not chains:
            raise ValueError(f"pack {pack.buffer}: no statement reads {pack.array}")
        example = chains[0]
        dates = tuple(f"{_INDEX_PREFIX}_{pack.buffer}_p{k}" for k in range(outer[pack.buffer]))
        elements = tuple(f"{_INDEX_PREFIX}_{pack.buffer}_a{d}" for d in range(len(pack.sizes)))
        if pack.value is not None:
            chain = whole_subscripts(pack.value, pack.array, len(pack.sizes))[0]
            element = _subscripts(_root(chain), [_iterator(a) for a in elements], chain)
            source = transform(pack.value, lambda n: element if n is chain else n)
            target = _buffer_element(pack, pack.value)
        else:
            source = _subscripts(_root(example), [_iterator(a) for a in elements], example)
            target = _buffer_element(pack, example)
        body = N.ExprStmt(expr=N.Assign("=", target, source, type=target.type))
        out[pack.copy] = StatementBody(pack.copy, body, dates + elements + pack.indices())
    return out


def readable(body: N.Stmt, array: str, rank: int, targets_ok: bool = False) -> bool:
    """Whether every use of `array` in `body` is a whole subscript `X[..]..[..]` of `rank` levels
    and none is assigned to (what `pack_bodies` can redirect); with `targets_ok`, assigned
    whole subscripts are allowed (`assigned` lists them: the buffer must replace none)."""
    whole = 0
    for node in descendants(body):
        if isinstance(node, N.Assign):
            target = _root(node.target)
            if target is not None and target.name == array and not (targets_ok and _depth(node.target) == rank):
                return False
        if isinstance(node, N.Unary) and node.op in ("&", "++pre", "--pre", "post++", "post--"):
            operand = _root(node.operand)
            if operand is not None and operand.name == array:
                return False
        if isinstance(node, N.Subscript) and _depth(node) == rank:
            root = _root(node)
            if root is not None and root.name == array:
                whole += 1
    uses = sum(1 for node in descendants(body) if isinstance(node, N.VarRef) and node.name == array)
    return whole > 0 and whole == uses


def assigned(body: N.Stmt, array: str) -> list[N.Expr]:
    """The targets of `body`'s assignments to elements of `array`."""
    out: list[N.Expr] = []
    for node in descendants(body):
        if isinstance(node, N.Assign):
            target = _root(node.target)
            if target is not None and target.name == array:
                out.append(node.target)
    return out


def packed_value(body: N.Stmt, array: str, rank: int, scalars: frozenset[str],
                 chosen=lambda chain: True) -> Optional[N.Expr]:
    """The largest expression of `body` around its one whole subscript of `array` for which
    `chosen` holds that reads nothing else but the `scalars` and constants, through + - * /
    and casts (`alpha * A[i][k]` in `C[i][j] += alpha * A[i][k] * B[k][j]`, C's left-to-right
    product), if it is more than the subscript; else None. Its value depends only on the
    subscript's element, so a buffer may hold it: the copy evaluates the same operations on
    the same values."""
    chains = [c for c in whole_subscripts(body, array, rank) if chosen(c)]
    if len(chains) != 1:
        return None
    path = _path(body, chains[0])
    if path is None:
        return None
    value: N.Expr = chains[0]
    for parent in reversed(path[:-1]):
        if isinstance(parent, N.Binary) and parent.op in ("+", "-", "*", "/"):
            other = parent.rhs if parent.lhs is value else parent.lhs
            if other is value or not _constant_for(other, scalars):
                break
        elif isinstance(parent, N.Cast) or (isinstance(parent, N.Unary) and parent.op in ("+", "-")):
            pass
        else:
            break
        value = parent
    return value if value is not chains[0] else None


def _constant_for(expr: N.Expr, scalars: frozenset[str]) -> bool:
    """Whether `expr` reads nothing but `scalars` and constants, through arithmetic and casts."""
    for node in descendants(expr):
        if isinstance(node, N.VarRef):
            if node.name not in scalars:
                return False
        elif isinstance(node, N.Binary):
            if node.op not in ("+", "-", "*", "/"):
                return False
        elif isinstance(node, N.Unary):
            if node.op not in ("+", "-"):
                return False
        elif isinstance(node, N.Expr) and not isinstance(node, (N.IntLit, N.FloatLit, N.Cast)):
            return False
    return True


def _path(root: object, target: object) -> Optional[list]:
    """The nodes from `root` down to `target` (by identity), both included."""
    if root is target:
        return [root]
    for child in children(root):
        below = _path(child, target)
        if below is not None:
            return [root, *below]
    return None


def whole_subscripts(node: object, array: str, rank: int) -> list[N.Subscript]:
    return [n for n in descendants(node) if isinstance(n, N.Subscript) and _depth(n) == rank
            and _root(n) is not None and _root(n).name == array]


def reads_access(pack: Pack, iterators: tuple[str, ...], ctx: isl.Context):
    """Whether a whole subscript of `pack.array` in a reader (loop `iterators`) is the read the
    buffer replaces: always without `pack.access`, else when its subscripts are that access."""
    if pack.access is None:
        return lambda chain: True
    access = isl.Map.read_from_str(ctx, pack.access)              # [P] -> { S[i..] -> X[a..] }
    return lambda chain: access_of(chain, iterators, access.get_space()).intersect_domain(
        access.domain()).is_equal(access)


def _reading_buffer(body: N.Stmt, pack: Pack, replaced=lambda chain: True) -> tuple[N.Stmt, list[N.Subscript]]:
    """`body` with the reads of `pack.array` for which `replaced` holds (or `pack.value`) reading
    the buffer, and the subscripts replaced."""
    rank = len(pack.sizes)
    chains: list[N.Subscript] = []
    if pack.value is not None:
        value = pack.value

        def swap_value(node: object) -> object:
            if node == value:
                chains.extend(whole_subscripts(node, pack.array, rank))
                return _buffer_element(pack, value)
            return node

        return _transform_top_down(body, swap_value), chains

    def swap(node: object) -> object:
        if isinstance(node, N.Subscript) and _depth(node) == rank:
            root = _root(node)
            if root is not None and root.name == pack.array and replaced(node):
                chains.append(node)
                return _buffer_element(pack, node)
        return node

    return transform(body, swap), chains


def _transform_top_down(node: object, fn) -> object:
    """`node` with the outermost sub-nodes for which `fn` returns another node replaced."""
    done = fn(node)
    if done is not node:
        return done
    kids = set(map(id, children(node)))
    changes = {}
    for f in fields(node):  # type: ignore[arg-type]
        value = getattr(node, f.name)
        if isinstance(value, tuple) and any(id(v) in kids for v in value):
            new = tuple(_transform_top_down(v, fn) if id(v) in kids else v for v in value)
            if any(a is not b for a, b in zip(new, value)):
                changes[f.name] = new
        elif id(value) in kids:
            new_value = _transform_top_down(value, fn)
            if new_value is not value:
                changes[f.name] = new_value
    return replace(node, **changes) if changes else node


def _buffer_element(pack: Pack, like: N.Expr) -> N.Expr:
    """`buffer[x0]..[xk]`, each level typed as the buffer's declaration says."""
    decl = pack.declaration()
    out: N.Expr = N.VarRef(name=pack.buffer, scope="local", type=decl.type, loc=like.loc)
    t = decl.type
    for x in pack.indices():
        t = t.element                                   # type: ignore[attr-defined]
        out = N.Subscript(out, _iterator(x), type=t, loc=like.loc)
    return out


def _subscripts(base: N.Expr, indices: list[N.Expr], like: N.Subscript) -> N.Subscript:
    """`base[indices..]`, each level typed as `like`'s level."""
    levels: list[N.Subscript] = []
    node: N.Expr = like
    while isinstance(node, N.Subscript):
        levels.append(node)
        node = node.base
    levels.reverse()                                  # outermost subscript level first
    out: N.Expr = base
    for level, index in zip(levels, indices):
        out = N.Subscript(out, index, type=level.type, loc=level.loc)
    return out                                         # type: ignore[return-value]


def _iterator(name: str) -> N.VarRef:
    return N.VarRef(name=name, scope="local", type=T.LONG)


def _root(node: N.Expr) -> Optional[N.VarRef]:
    while isinstance(node, N.Subscript):
        node = node.base
    return node if isinstance(node, N.VarRef) else None


def _depth(node: N.Expr) -> int:
    depth = 0
    while isinstance(node, N.Subscript):
        node = node.base
        depth += 1
    return depth


def _statement_names(instances: isl.UnionSet) -> set[str]:
    names: set[str] = set()
    sets = instances.get_set_list()
    for k in range(sets.n_set()):
        names.add(sets.get_at(k).get_tuple_name())
    return names
