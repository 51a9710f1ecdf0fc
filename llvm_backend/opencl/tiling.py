# SPDX-License-Identifier: MIT
"""PPCG-style mapping of a two-dimensional kernel: tiles to work-groups, reused footprints in `__local`.

Input: the kernel's two coincident for nodes (`outer`, `inner`: dimension 1 and 0 of the
grid), the unit's statement bodies and the arrays the kernel writes. Output: a `TileMapping`
(or None when nothing is worth staging), which `kernels.KernelBuilder` prints.

Mapping: a work-group of `group[0] x group[1]` work-items runs one tile of `group[d] *
points[d]` iterations of the two loops (dimension 0 first), each work-item `points[0] x
points[1]` points of it, a work-group apart (work-item (l0, l1) runs (o0 + l0 + a * group[0],
o1 + l1 + b * group[1]) for a < points[0], b < points[1]: neighbouring work-items still run
neighbouring iterations, for coalesced global and conflict-free local accesses). The kernel
declares `reqd_work_group_size`, so the runtime launches exactly that shape; the host launches
ceil(trips / points) work-items a dimension, the runtime rounds that up to the work-group, and
the surplus work-items only help copy. A work-item runs its points one after the other for each
child of the body (the two loops are coincident: their iterations are independent), unrolled in
the kernel's source (kernels._at_points: each point's private slots have constant numbers, which
device compilers keep in registers; PoCL kept point loops' slots in memory, 2x slower on gemm).

Staging (thesis / PPCG's shared-memory copies): the code under the two loops is a sequence
of children. A child that is a sequential for node whose bounds name neither grid iterator
(every work-item of the group runs the same iterations, so a barrier inside is reached by all)
is strip-mined by `tile_k`; for each strip, every array that child only reads whose accesses
in that child have reuse within the tile (the tile's footprint is smaller than the accesses
it serves) is copied into `__local` memory by the whole group, between two barriers, and the
child's accesses of that array read the copy. A sequential for node whose bounds do name a grid
iterator (symm's `for (k = 0; k < i; k++)` under the grid loops of i and j) is strip-mined too,
over its range on the whole tile (`_Builder._hull`: the least first and the greatest last
iteration over the tile's points, isl functions of the tile's origin alone, so every
work-item runs the same strips and barriers); in each strip a work-item runs only its own
iterations (from the greater of the strip's start and its own first one, while its own
condition holds). Without such a loop (a stencil), the whole body is one stage: its
footprint (the tile and its halo) is copied once. An array the kernel
writes in another child may be staged too: the grid's loops are coincident, so each element
of the tile's footprint is written only by the work-item that reads it, and a barrier with a
global fence before the stage and at the end of each strip orders those writes and the
group's copies (`Stage.fence`).

Two-deep nests (`Nest`; doitgen's `for p { sum[p] = 0; for s sum[p] += A[r][q][s] * C4[s][p]; }`
under its (r, q) grid): when the child's loop p has, among its children, exactly one uniform
for node s, and no iteration of p touches an element another one writes (isl: the accesses
of written arrays over the grid and p, the deeper iterators projected out; no written
scalar), the iterations of p may run in any order, each in its own: p is strip-mined by
`tile_p` around the strips of s, the children before s run for the whole p strip first and
those after it last. A child is tried as a nest first (its strips cover the inner loop's
arrays too), then as one strip-mined loop. The s loop's upper bound may name the grid's
iterators (doitgen's s stops one short at its last (r, q), whose final s the last-value copy
of privatization runs apart): its strips then run to the tile's last s (`Nest.last`, an isl
maximum), each work-item to its own bound. When no child of the body is staged, the
children under marks (a `coincident` p loop) are tried too (`TileMapping.unmarked`). The footprint of a p strip by an s strip is a box even when s has a
parameter extent, and each element of an s strip (A's row piece) serves the whole p strip.
Elements a work-item alone uses throughout s, over the grid and p (doitgen's privatized
`sum[p]`, otherwise a slice of a global scratch buffer), are `tile_p` private registers.

Register tiling (the device's): in a strip-mined loop, elements a work-item alone uses at one
point throughout the loop (`Stage.registers`: gemm's C[i][j]) are one private variable per point,
loaded before the loop and stored after it; elements of a local copy that all the points of one
row (or column) of the work-item read in one iteration of the loop (`Stage.shared`: gemm's
A[i][k] for its rows, B[k][j] for its columns) are read from the copy once per iteration into
one private slot per row (column), so that a work-item of 2 x 2 points does 4 local loads for
its 4 multiply-adds where one point per work-item did 2 for 1.

Footprints are isl sets (islpy): the accesses of each statement (its IR subscripts as
affine functions of the AST iterators, `clangpass.poly.affine.AffineScope`) applied to the
tile's iterations, which are parameters of the tile's origin. The copy's shape is the
footprint's bounding box, whose extents must be constants (else the array is not staged),
or, with the bounds of the loops under the strip, have a constant maximum where the region's
parameter constraints hold (`CodegenUnit.context`: filter2d's `__pencil_assume(ker_cols <= 15)`
bounds its `r < ker_cols` loop; a clamped subscript, `clamp(j + r - ker_cols / 2, 0, cols - 1)`,
which `clangpass.poly.affine_locals` has put in place of its local, has a piecewise box);
its guard is the footprint clipped to the iterations that exist (the loops' bounds and the
conditions above each statement), so that no element outside what the original code reads is
loaded (no out-of-bounds read, no read of an element nobody wrote). The last dimension of a
copy is padded by one element when its length is a multiple of 16 (bank conflicts between
rows read down a column).

Separate copies of one array: when an array's footprint as a whole has no constant box (syrk
reads `A[i][k]` and `A[j][k]`, rows of the tile's outer and of its inner iterations, which lie a
parameter apart), its references are grouped so that each group's footprint has one, and each
group is a copy of its own (`StagedArray.refs`: the references it serves, by their IR node).

Triangles (triangle.py): when the inner loop's bounds name the outer iterator (syrk's and
syr2k's `j <= i`), the grid is the triangle's bounding box and the inner loop's bounds are
constraints of the iterations that exist (`domain`): they clip the copies' guards; in the
kernel, a work-item outside them is inactive, and a work-group whose tile misses the triangle
returns before its first barrier (kernels.KernelBuilder).

Sizes: the work-group `-fpencil-tile-sizes=` or the tuning cache give the kernel's band
(`work_groups.band_choice`), else `GROUP` (16 x 16 = 256 work-items, a common limit of devices
and what the runtime allows by default); `tile_k` halved from 16 until the copies fit
`LOCAL_BYTES` (32 KiB, below every OpenCL device's minimum CL_DEVICE_LOCAL_MEM_SIZE of 32 KiB
for full profile); a nest's `tile_p` is 16 (doitgen: `A`'s 16 x 16 x 8 doubles and `C4`'s 8 x 17,
17 KiB). Local arrays of which each work-item has its own copy (a privatized array's scratch
slice) are never staged, only held in registers. The points per work-item: the band's third
and fourth sizes when the rule gives them (`a,b,c,d`: work-group a x b, c x d points, outer loop
first), else the model's (`choose_points`): among `POINTS` (at most `MAX_POINTS` a work-item,
`MAX_PRIVATE` private values), the mapping that copies the fewest elements from global memory
per iteration, each candidate's copies fitting local memory (a larger tile shares its halo, 34 x
34 / (32 x 32) = 1.13 loads a point for a 3 x 3 stencil against 18 x 18 / (16 x 16) = 1.27, and
its strips: gemm's A and B copies serve twice the points), the fewer points on a tie; heat-3d
keeps one point, its three-dimensional box for a 32 x 32 tile fits only with a strip of 1. A
kernel that uses a region local (one per work-item, not per point) runs one point per
work-item. Several points need every stage to be a plain (or whole-body) stage: a nest
(`_nest_code` runs one point), a triangle's grid, a hull strip or a per-reference copy
(`StagedArray.refs`) keeps one point per work-item (`TileMapping.single_point`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional, Sequence

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import descendants
from clangpass.poly.affine import AffineScope, NotAffine
from clangpass.poly.codegen_unit import StatementBody
from clangpass.ir.c_printer import Unprintable
from clangpass.poly.ast_c import OP, expression, identifiers, iterator_name

GROUP = (16, 16)
TILE_K = 16
LOCAL_BYTES = 32 * 1024
#: Points per work-item the model considers (dimension 0 first), and its limits: points per
#: work-item, private values per work-item the mapping adds.
POINTS = ((1, 1), (2, 1), (1, 2), (2, 2))
MAX_POINTS = 4
MAX_PRIVATE = 64
#: Names of the tile's parameters in the isl sets (printed `t_<name>` in the kernel).
ORIGIN = ("__pcl_o1", "__pcl_o0", "__pcl_ok", "__pcl_op")   # origins of the outer, inner, strip and nest loops
BOUNDS = ("__pcl_s1", "__pcl_n1", "__pcl_s0", "__pcl_n0")   # start, trips of outer and inner


@dataclass
class StagedArray:
    """One array copied into local memory for one stage."""

    name: str
    element: T.CType
    extents: tuple[int, ...]       # the box
    row: int                       # the padded length of the last dimension
    offsets: tuple[str, ...]       # OpenCL C (long) of the box's first element, per dimension
    guard: str                     # OpenCL C: element t_<e0..en> is in the clipped footprint
    root: N.VarRef = field(default=None)   # type: ignore[assignment]
    # A copy of some references of the array only (`_Builder._parts`): their VarRef nodes (by
    # id) and the copy's number among the array's; () and 0: every reference of the array.
    refs: tuple[int, ...] = ()
    part: int = 0

    @property
    def elements(self) -> int:
        count = self.row
        for e in self.extents[:-1]:
            count *= e
        return count

    def local_name(self, stage: int) -> str:
        return f"__pencilcc_l{stage}_{self.name}" + (f"_{self.part}" if self.part else "")

    def keys(self) -> list:
        """What the OpenCL dialect looks a reference up by: the array's name, or the ids of the
        VarRef nodes of a part's references."""
        return list(self.refs) if self.refs else [self.name]


@dataclass
class Stage:
    """A child of the kernel body with staged arrays (`loop`: a strip-mined for node, or None:
    the whole body once)."""

    node: isl.AstNode
    loop: bool
    arrays: list[StagedArray]
    tile_k: int = 1
    index: int = -1                # which child of the body (a strip-mined loop)
    # Elements one work-item alone uses throughout the loop (the subscripts name only the grid
    # iterators): (array, OpenCL C index of the element over t_<grid>, element type, root), kept
    # in a private variable loaded before the loop and stored after it when the kernel writes it.
    registers: list = field(default_factory=list)
    # Elements of a staged array that a work-item reads at every point of one row (or column) of
    # its points in one iteration of the loop (gemm's A[i][k], B[k][j]): (array, OpenCL C index
    # over t_<grid> and t_<loop>, element type, root, dimension: 1 the subscripts name only the
    # outer grid iterator, 0 only the inner one, None neither), read from the local copy once per
    # iteration into a private variable of one slot per row (column) of points.
    shared: list = field(default_factory=list)
    # A loop whose bounds name a grid iterator (symm's `k < i`): OpenCL C of the first and last
    # iteration over the whole tile (`_Builder._hull`), the range of the group's strips.
    hull: Optional[tuple[str, str]] = None
    nest: Optional["Nest"] = None  # the loop is itself strip-mined around a strip-mined inner loop
    # A staged array is written elsewhere in the kernel (each element by the work-item that reads
    # it): a barrier with a global fence before the stage and at the end of each strip orders
    # those writes and the group's copies.
    fence: bool = False


@dataclass
class Nest:
    """A stage over a two-deep nest: the stage's loop (iterator p) strip-mined by `tile_p`
    around its child for node `inner`, strip-mined by the stage's `tile_k`; the children of the
    loop before and after `inner` run for the whole p strip before and after the inner strips.
    Registers (`Stage.registers`) are `tile_p` private elements, one per p of the strip."""

    inner: isl.AstNode
    before: list
    after: list
    tile_p: int
    # OpenCL C: the last iteration of `inner` some work-item of the tile runs, when its upper
    # bound names the grid's iterators (doitgen's last (r, q), whose final s the last-value copy
    # runs apart); None: the same for all, the loop's own condition ends the strips.
    last: Optional[str] = None


@dataclass
class TileMapping:
    stages: list[Stage]
    group: tuple[int, int] = (16, 16)      # the work-group (dimension 0 first)
    points: tuple[int, int] = (1, 1)       # points per work-item (dimension 0 first)

    @property
    def tile(self) -> tuple[int, int]:
        """The iterations of one work-group (dimension 0 first): the work-group times the points."""
        return (self.group[0] * self.points[0], self.group[1] * self.points[1])
    unmarked: bool = False                 # `Stage.index` counts the children of the body without its marks

    @property
    def local_bytes(self) -> int:
        return max((sum(a.elements * _size(a.element) for a in s.arrays) for s in self.stages), default=0)

    @property
    def private_elements(self) -> int:
        """Private values per work-item the mapping adds (registers and shared reads), the widest stage."""
        p0, p1 = self.points
        return max((len(s.registers) * p0 * p1 + sum(p1 if d == 1 else p0 if d == 0 else 1
                                                      for *_, d in s.shared) for s in self.stages), default=0)

    @property
    def single_point(self) -> bool:
        """Whether a stage runs one point per work-item only: a nest (`_nest_code`), a hull strip,
        or a copy of some references of an array (`StagedArray.refs`)."""
        return any(s.nest is not None or s.hull is not None or any(a.refs for a in s.arrays) for s in self.stages)

    @property
    def copies_per_point(self) -> float:
        """The model's cost: elements copied from global memory per iteration of the grid (each
        stage's copies over the tile's points and its strip)."""
        points = self.tile[0] * self.tile[1]
        return sum(sum(a.elements for a in s.arrays) / (points * s.tile_k) for s in self.stages)


def _size(t: T.CType) -> int:
    return max(1, t.bits // 8) if isinstance(t, (T.IntType, T.FloatType)) else 8


def isl_text(e: isl.AstExpr) -> str:
    """An isl AST expression in isl's own syntax (for parsing into sets and maps)."""
    kind = e.get_type()
    if kind == isl.ast_expr_type.int:
        return str(e.int_get_val().to_python())
    if kind == isl.ast_expr_type.id:
        return e.id_get_id().get_name()
    op = e.op_get_type()
    args = [isl_text(e.op_get_arg(i)) for i in range(e.op_get_n_arg())]
    binary = {OP.add: "+", OP.sub: "-", OP.mul: "*", OP.and_: "and", OP.and_then: "and", OP.or_: "or",
              OP.or_else: "or", OP.eq: "=", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">"}
    if op in binary:
        return f"({args[0]}) {binary[op]} ({args[1]})"
    if op == OP.minus:
        return f"-({args[0]})"
    if op in (OP.min, OP.max):
        return f"{'min' if op == OP.min else 'max'}({', '.join(args)})"
    if op in (OP.fdiv_q, OP.pdiv_q, OP.div):
        return f"floor(({args[0]})/({args[1]}))"
    if op in (OP.pdiv_r, OP.zdiv_r):
        return f"(({args[0]}) mod ({args[1]}))"
    raise NotAffine(f"isl AST operation {op}")


class _StatementScope(AffineScope):
    """Subscripts of one statement call as functions of the AST iterators: the statement's
    iterators are the call's arguments."""

    def __init__(self, base: AffineScope, bindings: dict[str, isl.PwAff]) -> None:
        object.__setattr__(self, "_bindings", bindings)
        super().__init__(base.space, base.iterators, base.params, base.domain, base.context)

    def variable(self, name: str) -> Optional[isl.PwAff]:
        bound = self._bindings.get(name)
        return bound if bound is not None else super().variable(name)


class _Builder:
    def __init__(self, outer: isl.AstNode, inner: isl.AstNode, statements: Mapping[str, StatementBody],
                 params: Sequence[str], written: set[str], extents: Mapping[str, list[str]],
                 host_iterators: Sequence[str] = (), group: tuple[int, int] = (16, 16),
                 context: Optional[isl.Set] = None, private: frozenset[str] = frozenset(),
                 domain: Sequence[str] = (), points: tuple[int, int] = (1, 1)) -> None:
        self.host = tuple(host_iterators)      # parameters of the kernel too, printed t_<name>
        # Constraints of the grid iterators beyond the grid's box (a triangle's inner bounds:
        # triangle.domain): part of the iterations that exist.
        self.domain = list(domain)
        self.references: dict[str, list] = {}  # per array: (full, clipped, root) of each reference
        self.group = group
        self.points = points
        self.tile = (group[0] * points[0], group[1] * points[1])
        self.outer_it, self.inner_it = iterator_name(outer), iterator_name(inner)
        self.statements = statements
        self.params = tuple(dict.fromkeys([*params, *host_iterators, *ORIGIN, *BOUNDS]))
        self.written = written
        self.extents = extents
        self.context = self._context(context)
        # Local arrays of which each work-item has its own copy (never a group's shared copy).
        self.private = private

    def _context(self, context: Optional[isl.Set]) -> isl.Set:
        """The region's parameter constraints over this builder's parameters (the others
        projected out; the universe when unknown)."""
        universe = isl.Set(f"[{', '.join(self.params)}] -> {{ : }}")
        if context is None:
            return universe
        known = isl.Set(str(context))          # in islpy's default context, as the sets here
        for d in reversed(range(known.dim(isl.dim_type.param))):
            if known.get_dim_name(isl.dim_type.param, d) not in self.params:
                known = known.project_out(isl.dim_type.param, d, 1)
        return known.align_params(universe.get_space()).intersect(universe).coalesce()

    # -------------------------------------------------------------- isl helpers
    def _space_text(self, iterators: Sequence[str]) -> tuple[str, str]:
        return f"[{', '.join(self.params)}]", f"[{', '.join(iterators)}]"

    def _set(self, iterators: Sequence[str], constraints: Sequence[str]) -> isl.Set:
        params, tup = self._space_text(iterators)
        body = " and ".join(f"({c})" for c in constraints) if constraints else ""
        return isl.Set(f"{params} -> {{ {tup} {': ' + body if body else ''} }}")

    def _pw_aff(self, iterators: Sequence[str], text: str) -> isl.PwAff:
        params, tup = self._space_text(iterators)
        return isl.PwAff(f"{params} -> {{ {tup} -> [({text})] }}")

    def _scope(self, call: isl.AstExpr, iterators: list[str], domain: isl.Set) -> tuple[StatementBody, AffineScope]:
        """The statement a call runs, and the scope of its subscripts (its iterators bound to the
        call's arguments, over the AST iterators `iterators`)."""
        stmt = self.statements[call.op_get_arg(0).id_get_id().get_name()]
        bindings = {it: self._pw_aff(iterators, isl_text(call.op_get_arg(i + 1)))
                    for i, it in enumerate(stmt.iterators)}
        space = self._set(iterators, []).get_space()
        return stmt, _StatementScope(AffineScope(space, tuple(iterators), self.params, domain, self.context),
                                     bindings)

    # -------------------------------------------------------------- accesses
    def _calls(self, node: isl.AstNode, iterators: list[str], constraints: list[str], out: list,
               loops: Sequence[str] = ()) -> None:
        """(statement call, iterators, constraints, the loop bounds among them) of every user
        node under `node`."""
        kind = node.get_type()
        if kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for i in range(children.n_ast_node()):
                self._calls(children.get_at(i), iterators, constraints, out, loops)
        elif kind == isl.ast_node_type.mark:
            self._calls(node.mark_get_node(), iterators, constraints, out, loops)
        elif kind == isl.ast_node_type.if_:
            cond = isl_text(node.if_get_cond())
            self._calls(node.if_get_then_node(), iterators, constraints + [cond], out, loops)
            if node.if_has_else_node():
                self._calls(node.if_get_else_node(), iterators, constraints + [f"not ({cond})"], out, loops)
        elif kind == isl.ast_node_type.for_:
            it = iterator_name(node)
            inc = node.for_get_inc()
            if inc.get_type() != isl.ast_expr_type.int or inc.int_get_val().to_python() != 1:
                raise NotAffine("a loop of step other than 1")
            bounds = [f"{it} >= {isl_text(node.for_get_init())}", isl_text(node.for_get_cond())]
            self._calls(node.for_get_body(), iterators + [it], constraints + bounds, out, [*loops, *bounds])
        elif kind == isl.ast_node_type.user:
            out.append((node.user_get_expr(), list(iterators), list(constraints), list(loops)))
        else:
            raise NotAffine(f"AST node {kind}")

    def _written_under(self, node: isl.AstNode, base: list[str]) -> set[str]:
        """The variables the statements under `node` assign to (elements of, for arrays)."""
        from llvm_backend.opencl.kernels import written_names   # noqa: PLC0415 (kernels imports this module)
        calls: list = []
        self._calls(node, base, [], calls)
        found: set[str] = set()
        for call, *_ in calls:
            found |= written_names(self.statements[call.op_get_arg(0).id_get_id().get_name()].body)
        return found

    def _footprints(self, node: isl.AstNode, base: list[str], tile: list[str], clip: list[str],
                    stage: Optional[set[str]] = None) -> dict[str, tuple[isl.Set, isl.Set, int, N.VarRef, isl.Set]]:
        """Per array read under `node`: (footprint over the unclipped tile, over the clipped one,
        number of accesses per iteration, a reference, footprint over the unclipped tile and the
        bounds of the loops under `node`), for arrays no statement under `node` writes (the kernel
        may write them elsewhere: each element only by the work-item that reads it, the grid's
        loops being coincident; `Stage.fence` orders those writes and the copies). `stage`: the
        variables written anywhere in the stage, when it is more than `node`."""
        calls: list = []
        self._calls(node, base, [], calls)
        inside = self._written_under(node, base) | (stage or set())
        found: dict[str, list] = {}
        for call, iterators, constraints, loops in calls:
            stmt, scope = self._scope(call, iterators, self._set(iterators, constraints + clip))
            refs = _subscripts(stmt.body)
            for root, indices in refs:
                if root.name in inside or root.name in self.private or root.name not in self.extents:
                    continue
                try:
                    pieces = [scope.pw_aff(i) for i in indices]
                except NotAffine:
                    found.setdefault(root.name, []).append(None)
                    continue
                access = isl.Map.from_pw_aff(pieces[0])
                for p in pieces[1:]:
                    access = access.flat_range_product(isl.Map.from_pw_aff(p))
                full = self._set(iterators, tile)
                wide = self._set(iterators, tile + loops)
                clipped = self._set(iterators, tile + clip + constraints)
                found.setdefault(root.name, []).append((access.intersect_domain(full).range(),
                                                        access.intersect_domain(clipped).range(), root,
                                                        access.intersect_domain(wide).range()))
        self.references = found
        result = {}
        for name, items in found.items():
            if any(i is None for i in items):
                continue
            full, clipped, wide = items[0][0], items[0][1], items[0][3]
            for f, c, _, w in items[1:]:
                full, clipped, wide = full.union(f), clipped.union(c), wide.union(w)
            result[name] = (full.coalesce(), clipped.coalesce(), len(items), items[0][2], wide.coalesce())
        return result

    def _box(self, full: isl.Set) -> Optional[tuple[list[int], list[isl.PwAff]]]:
        """(extents, first elements) of the box of `full`: of constant size and offsets of one piece."""
        if not full.is_bounded():          # a loop under the strip (its bounds are in `wide`)
            return None
        extents, lows = [], []
        for d in range(full.dim(isl.dim_type.set)):
            low, high = full.dim_min(d), full.dim_max(d)
            size = high.sub(low)
            if size.n_piece() != 1 or not size.is_cst() or low.n_piece() != 1:
                return None
            values = []
            size.foreach_piece(lambda _s, aff: values.append(aff.get_constant_val().to_python()))
            extents.append(int(values[0]) + 1)
            lows.append(low)
        return extents, lows

    def _bounded_box(self, wide: isl.Set) -> Optional[tuple[list[int], list[isl.PwAff]]]:
        """(extents, first elements) of a box holding `wide` whatever the parameters the region's
        context allows: each extent the largest size there (`__pencil_assume(kc <= 15)` bounds a
        loop of parameter extent; a clamped subscript's box is piecewise)."""
        if not wide.is_bounded():
            return None
        extents, lows = [], []
        for d in range(wide.dim(isl.dim_type.set)):
            low, high = wide.dim_min(d), wide.dim_max(d)
            size = high.sub(low).intersect_params(self.context)
            if size.is_empty():
                return None
            largest = size.max_val()
            if not largest.is_int():
                return None
            extents.append(int(largest.to_python()) + 1)
            lows.append(low)
        return extents, lows

    def _staged(self, name: str, full: isl.Set, clipped: isl.Set, root: N.VarRef, stage: int,
                wide: Optional[isl.Set] = None) -> Optional[StagedArray]:
        dims = full.dim(isl.dim_type.set)
        box = self._box(full)
        if box is None and wide is not None:
            box = self._bounded_box(wide)
        if box is None:
            return None
        extents, lows = box
        build = isl.AstBuild.from_context(isl.Set(f"[{', '.join(self.params)}] -> {{ : }}"))
        offsets = [build.expr_from_pw_aff(low) for low in lows]
        names = [f"__pcl_e{d}" for d in range(dims)]
        for d, n in enumerate(names):
            clipped = clipped.set_dim_name(isl.dim_type.set, d, n)
        guard_set = clipped.move_dims(isl.dim_type.param, clipped.dim(isl.dim_type.param),
                                      isl.dim_type.set, 0, dims).params().coalesce()
        guard_build = isl.AstBuild.from_context(guard_set.universe(guard_set.get_space()))
        bound = set(ORIGIN) | set(BOUNDS) | set(names) | set(self.host)
        guard = _kernel_expr(guard_build.expr_from_set(guard_set), bound)
        row = extents[-1] + (1 if extents[-1] % 16 == 0 else 0)
        element = _scalar(root.type)
        return StagedArray(name, element, tuple(extents), row,
                           tuple(_kernel_expr(o, bound) for o in offsets), guard, root)

    def mapping(self, body: isl.AstNode) -> Optional[TileMapping]:
        grid = [self.outer_it, self.inner_it]
        tile = [f"__pcl_o1 <= {self.outer_it} < __pcl_o1 + {self.tile[1]}",
                f"__pcl_o0 <= {self.inner_it} < __pcl_o0 + {self.tile[0]}"]
        clip = [f"__pcl_s1 <= {self.outer_it} < __pcl_s1 + __pcl_n1",
                f"__pcl_s0 <= {self.inner_it} < __pcl_s0 + __pcl_n0", *self.domain]
        children = _children(body)
        stages = self._loop_stages(children, grid, tile, clip)
        if not stages and not any(c.get_type() == isl.ast_node_type.for_ for c in children):
            stage = self._stage(body, grid, tile, clip, loop=False, number=0)
            if stage is not None:
                stages.append(stage)
        unmarked = False
        if not stages:
            # Loops under marks (a `coincident` p of doitgen-like nests), tried last so that the
            # kernels staged whole (a stencil over a marked loop) keep their mapping.
            stages = self._loop_stages(_children(body, unmark=True), grid, tile, clip)
            unmarked = bool(stages)
        for stage in stages:
            stage.fence = any(a.name in self.written for a in stage.arrays)
        return TileMapping(stages, self.group, self.points, unmarked) if stages else None

    def _loop_stages(self, children: list[isl.AstNode], grid: list[str], tile: list[str],
                     clip: list[str]) -> list[Stage]:
        stages: list[Stage] = []
        for index, child in enumerate(children):
            if child.get_type() != isl.ast_node_type.for_ or child.for_is_degenerate():
                continue
            stage, hull = None, None
            if _uniform_loop(child, set(grid)):
                # A nest first: its strips cover the inner loop's arrays too.
                stage = self._nest_stage(child, grid, tile, clip, number=len(stages))
            else:
                # Bounds that name a grid iterator: strips over the loop's range on the whole tile.
                hull = self._hull(child, grid, tile, clip)
                if hull is None:
                    continue
            if stage is None:
                stage = self._stage(child, grid, tile, clip, loop=True, number=len(stages))
            if stage is not None:
                stage.index = index
                stage.hull = hull
                stages.append(stage)
        return stages

    def _hull(self, node: isl.AstNode, grid: list[str], tile: list[str], clip: list[str]
              ) -> Optional[tuple[str, str]]:
        """For a loop whose bounds name a grid iterator: OpenCL C of its first and last iteration
        over every iteration of the tile that exists, functions of the tile's origin alone (so
        every work-item of the group runs the same strips and reaches the same barriers; each
        runs only its own iterations in them); first 0 and last -1 where the tile has none."""
        it = iterator_name(node)
        try:
            bounds = [f"{it} >= {isl_text(node.for_get_init())}", isl_text(node.for_get_cond())]
            column = self._set(grid + [it], tile + clip + bounds).project_out(isl.dim_type.set, 0, len(grid))
            first, last = column.dim_min(0), column.dim_max(0)
            if first.involves_nan() or last.involves_nan():
                return None
            params = f"[{', '.join(self.params)}]"
            none = first.domain().complement()
            first = first.union_max(isl.PwAff(f"{params} -> {{ [(0)] }}").intersect_params(none)).coalesce()
            last = last.union_max(isl.PwAff(f"{params} -> {{ [(-1)] }}").intersect_params(none)).coalesce()
            build = isl.AstBuild.from_context(isl.Set(f"{params} -> {{ : }}"))
            bound = set(ORIGIN) | set(BOUNDS) | set(self.host)
            return (_kernel_expr(build.expr_from_pw_aff(first), bound),
                    _kernel_expr(build.expr_from_pw_aff(last), bound))
        except (NotAffine, isl.Error, Unprintable):
            return None

    registers: list = []

    def _registers(self, node: isl.AstNode, grid: list[str], it: str) -> list:
        try:
            return _registers_of(self, node, grid, it)
        except (NotAffine, isl.Error):
            return []

    def _shared(self, node: isl.AstNode, grid: list[str], arrays: list[StagedArray]) -> list:
        if self.points == (1, 1):
            return []      # one point: each value is read once per iteration anyway
        try:
            return _shared_of(self, node.for_get_body(), grid, iterator_name(node), {a.name for a in arrays})
        except (NotAffine, isl.Error):
            return []

    def _stage(self, node: isl.AstNode, grid: list[str], tile: list[str], clip: list[str], loop: bool,
               number: int) -> Optional[Stage]:
        tile_k = TILE_K if loop else 1
        while tile_k >= 1:
            try:
                arrays = self._stage_arrays(node, grid, tile, clip, loop, tile_k, number)
            except (NotAffine, isl.Error):
                return None
            if sum(a.elements * _size(a.element) for a in arrays) <= LOCAL_BYTES:
                if not arrays:
                    return None
                shared = self._shared(node, grid, arrays) if loop else []
                return Stage(node, loop, arrays, tile_k, registers=self.registers if loop else [], shared=shared)
            if not loop:
                return None
            tile_k //= 2
        return None

    def _stage_arrays(self, node: isl.AstNode, grid: list[str], tile: list[str], clip: list[str], loop: bool,
                      tile_k: int, number: int) -> list[StagedArray]:
        if loop:
            it = iterator_name(node)
            inc = node.for_get_inc()
            if inc.get_type() != isl.ast_expr_type.int or inc.int_get_val().to_python() != 1:
                raise NotAffine("a loop of step other than 1")
            tile = tile + [f"__pcl_ok <= {it} < __pcl_ok + {tile_k}"]
            clip = clip + [f"{it} >= {isl_text(node.for_get_init())}", isl_text(node.for_get_cond())]
            footprints = self._footprints(node.for_get_body(), grid + [it], tile, clip)
            iterations = self.tile[0] * self.tile[1] * tile_k
            self.registers = self._registers(node.for_get_body(), grid, it)
        else:
            footprints = self._footprints(node, grid, tile, clip)
            iterations = self.tile[0] * self.tile[1]
        return self._worth_staging(footprints, iterations, number)

    def _worth_staging(self, footprints: dict, iterations: int, number: int) -> list[StagedArray]:
        arrays = []
        for name, (full, clipped, accesses, root, wide) in sorted(footprints.items()):
            staged = self._staged(name, full, clipped, root, number, wide)
            if staged is None:
                arrays += self._parts(name, number, iterations)
                continue
            # Reuse: the copy loads fewer elements than the accesses it replaces.
            if staged is not None and staged.elements < accesses * iterations:
                arrays.append(staged)
        return arrays

    def _parts(self, name: str, number: int, iterations: int) -> list[StagedArray]:
        """Copies of groups of the references of `name` when its footprint as a whole has no box
        of constant extents (syrk's A[i][k] and A[j][k]: rows of the tile's outer and inner
        iterations, a parameter apart): references join a group while the group's footprint
        keeps one; each group worth copying (reuse) is a copy of its own."""
        groups: list[list] = []
        for item in self.references.get(name, []):
            if item is None:
                return []
            full, clipped, root, wide = item
            for g in groups:
                merged = [g[0].union(full).coalesce(), g[1].union(clipped).coalesce(), g[3].union(wide).coalesce()]
                if self._staged(name, merged[0], merged[1], root, number, merged[2]) is not None:
                    g[0], g[1], g[3] = merged
                    g[2].append(root)
                    break
            else:
                if self._staged(name, full, clipped, root, number, wide) is None:
                    return []
                groups.append([full, clipped, [root], wide])
        ids = [id(r) for g in groups for r in g[2]]
        if len(groups) < 2 or len(set(ids)) != len(ids):     # one node in two groups: no key
            return []
        parts: list[StagedArray] = []
        for full, clipped, roots, wide in groups:
            staged = self._staged(name, full, clipped, roots[0], number, wide)
            if staged is not None and staged.elements < len(roots) * iterations:
                staged.refs = tuple(id(r) for r in roots)
                staged.part = len(parts) + 1
                parts.append(staged)
        return parts

    # -------------------------------------------------------------- two-deep nests
    def _nest_stage(self, node: isl.AstNode, grid: list[str], tile: list[str], clip: list[str],
                    number: int) -> Optional[Stage]:
        """A stage strip-mining `node` (iterator p) and the one uniform for node among its
        children (iterator s) when p carries no dependence within a work-item (doitgen's
        `for p { sum[p] = 0; for s sum[p] += A[r][q][s] * C4[s][p]; }`): the footprint of a
        p strip by an s strip is a box of constant size even where that of a whole p iteration
        is not (s of parameter extent), and each element of a strip of s is reused by the
        whole p strip."""
        p = iterator_name(node)
        children = _children(node.for_get_body(), unmark=True)
        loops = [k for k, c in enumerate(children) if _uniform_loop(c, {p}, set(grid))]
        if len(loops) != 1:
            return None
        inner = children[loops[0]]
        s = iterator_name(inner)
        try:
            last = None
            if not _uniform_loop(inner, set(grid)):
                last = self._last(inner, grid, tile, clip)
            if not self._p_independent(node, grid, p):
                return None
            written = self._written_under(node.for_get_body(), grid + [p])
            clip = clip + [f"{p} >= {isl_text(node.for_get_init())}", isl_text(node.for_get_cond()),
                           f"{s} >= {isl_text(inner.for_get_init())}", isl_text(inner.for_get_cond())]
            registers = self._registers(inner.for_get_body(), grid + [p], s)
            tile_p = TILE_K
            tile_k = TILE_K
            while tile_k >= 1:
                strips = tile + [f"__pcl_op <= {p} < __pcl_op + {tile_p}", f"__pcl_ok <= {s} < __pcl_ok + {tile_k}"]
                footprints = self._footprints(inner.for_get_body(), grid + [p, s], strips, clip, written)
                arrays = [a for a in self._worth_staging(footprints, self.group[0] * self.group[1] * tile_p * tile_k,
                                                         number) if a.name not in {r[0] for r in registers}]
                if sum(a.elements * _size(a.element) for a in arrays) <= LOCAL_BYTES:
                    if not arrays:
                        return None
                    return Stage(node, True, arrays, tile_k, registers=registers,
                                 nest=Nest(inner, children[:loops[0]], children[loops[0] + 1:], tile_p, last))
                tile_k //= 2
        except (NotAffine, isl.Error):
            return None
        return None

    def _last(self, inner: isl.AstNode, grid: list[str], tile: list[str], clip: list[str]) -> str:
        """OpenCL C: the largest value of `inner`'s iterator over the tile's iterations (its upper
        bound names the grid's iterators, its start does not)."""
        s = iterator_name(inner)
        runs = self._set(grid + [s], tile + clip + [f"{s} >= {isl_text(inner.for_get_init())}",
                                                    isl_text(inner.for_get_cond())])
        largest = runs.project_out(isl.dim_type.set, 0, len(grid)).dim_max(0)
        if largest.n_piece() == 0:
            raise NotAffine("an inner loop no work-item runs")
        build = isl.AstBuild.from_context(isl.Set(f"[{', '.join(self.params)}] -> {{ : }}"))
        return _kernel_expr(build.expr_from_pw_aff(largest), set(ORIGIN) | set(BOUNDS) | set(self.host))

    def _p_independent(self, node: isl.AstNode, grid: list[str], p: str) -> bool:
        """Whether no element a statement under `node` writes is touched by two iterations of
        `node` (iterator p) of one work-item, and no scalar is written under it: then the
        iterations of p may run in any order, each in its own order (exact: isl sets of the
        accesses, over the iterators grid + p, the deeper ones projected out)."""
        base = grid + [p]
        written = self._written_under(node.for_get_body(), base)
        calls: list = []
        self._calls(node.for_get_body(), base, [f"{p} >= {isl_text(node.for_get_init())}",
                                                isl_text(node.for_get_cond())], calls)
        touched: dict[str, list] = {}
        for call, iterators, constraints, _ in calls:
            stmt, scope = self._scope(call, iterators, self._set(iterators, constraints))
            refs = _subscripts(stmt.body)
            subscripted = {id(r) for r, _ in refs}
            for n in descendants(stmt.body):
                if isinstance(n, N.VarRef) and n.name in written and id(n) not in subscripted:
                    return False            # a scalar (or a pointer's target) written under p
            for root, indices in refs:
                if root.name not in written:
                    continue
                if root.name not in self.extents:
                    return False
                pieces = [scope.pw_aff(i) for i in indices]     # NotAffine: the caller gives up
                access = isl.Map.from_pw_aff(pieces[0])
                for piece in pieces[1:]:
                    access = access.flat_range_product(isl.Map.from_pw_aff(piece))
                access = access.intersect_domain(self._set(iterators, constraints))
                extra = len(iterators) - len(base)
                access = access.project_out(isl.dim_type.in_, len(base), extra)
                touched.setdefault(root.name, []).append(access)
        params, _ = self._space_text(base)
        pairs = ", ".join(grid)
        distinct = isl.Map(f"{params} -> {{ [{pairs}, __pcl_p] -> [{pairs}, __pcl_q] : __pcl_p != __pcl_q }}")
        for accesses in touched.values():
            if len({a.dim(isl.dim_type.out) for a in accesses}) != 1:
                return False
            union = accesses[0]
            for a in accesses[1:]:
                union = union.union(a)
            same = union.apply_range(union.reverse())
            if not same.intersect(distinct.align_params(same.get_space())).is_empty():
                return False
        return True


def _uniform_loop(node: isl.AstNode, names: set[str], bounded: set[str] = frozenset()) -> bool:
    """Whether `node` is a for node of more than one iteration whose bounds and step name none of
    `names` (every work-item of a group runs the same iterations: a barrier inside is reached by
    all), nor, but for its upper bound, any of `bounded`."""
    if node.get_type() != isl.ast_node_type.for_ or node.for_is_degenerate():
        return False
    ids = set().union(*(identifiers(e) for e in (node.for_get_init(), node.for_get_cond(), node.for_get_inc())))
    start = set().union(*(identifiers(e) for e in (node.for_get_init(), node.for_get_inc())))
    return not (ids & names) and not (start & bounded)


def _grid_accesses(builder: "_Builder", node: isl.AstNode, grid: list[str], it: str, keep: int) -> dict[str, list]:
    """Per array referenced under `node` (the body of the loop `it` directly under the grid loops):
    for each reference, (its subscripts as functions of the grid iterators and, for `keep` 1, of
    `it`; the reference; whether no condition or deeper loop is around it), or None where a
    subscript is not affine or names an iterator beyond those."""
    calls: list = []
    builder._calls(node, grid + [it], [], calls)
    seen: dict[str, list] = {}
    kept = len(grid) + keep
    for call, iterators, constraints, _ in calls:
        stmt, scope = builder._scope(call, iterators, builder._set(iterators, constraints))
        for root, indices in _subscripts(stmt.body):
            if root.name not in builder.extents:
                continue
            try:
                pieces = [scope.pw_aff(i) for i in indices]
            except NotAffine:
                seen.setdefault(root.name, []).append(None)
                continue
            if any(p.involves_dims(isl.dim_type.in_, kept, len(iterators) - kept) for p in pieces):
                seen.setdefault(root.name, []).append(None)
                continue
            pieces = [p.drop_dims(isl.dim_type.in_, kept, len(iterators) - kept) for p in pieces]
            seen.setdefault(root.name, []).append((pieces, root, not constraints))
    return seen


def _one_subscript(refs: list) -> Optional[list]:
    """The subscripts every reference of `refs` shares, or None (one differs, or is None)."""
    if any(r is None for r in refs):
        return None
    first = refs[0][0]
    if any(len(r[0]) != len(first) or not all(a.is_equal(b) for a, b in zip(r[0], first)) for r in refs[1:]):
        return None
    return first


def _index_texts(builder: "_Builder", pieces: list, names: list[str]) -> list[str]:
    """OpenCL C of subscripts over the iterators `names` (printed t_<name>)."""
    texts = []
    for piece in pieces:
        as_params = piece.move_dims(isl.dim_type.param, piece.dim(isl.dim_type.param),
                                    isl.dim_type.in_, 0, len(names))
        build = isl.AstBuild.from_context(as_params.domain().params().universe(
            as_params.domain().params().get_space()))
        texts.append(_kernel_expr(build.expr_from_pw_aff(as_params), set(names) | set(builder.host)))
    return texts


def _registers_of(builder: "_Builder", node: isl.AstNode, grid: list[str], it: str) -> list:
    found = []
    for name, refs in sorted(_grid_accesses(builder, node, grid, it, 0).items()):
        first = _one_subscript(refs)
        if first is None:
            continue
        root = refs[0][1]
        found.append((name, _index_texts(builder, first, grid), _scalar(root.type), root))
    return found


def _shared_of(builder: "_Builder", node: isl.AstNode, grid: list[str], it: str, staged: set[str]) -> list:
    """The staged arrays whose one subscript names the loop's iterator and at most one grid
    iterator, referenced only outside conditions and deeper loops (so every point that reads
    the element in an iteration exists, and the copy holds it): `Stage.shared`."""
    found = []
    for name, refs in sorted(_grid_accesses(builder, node, grid, it, 1).items()):
        first = _one_subscript(refs)
        if name not in staged or first is None or not all(r[2] for r in refs):
            continue
        outer, inner = (any(p.involves_dims(isl.dim_type.in_, d, 1) for p in first) for d in (0, 1))
        if outer and inner:
            continue
        root = refs[0][1]
        found.append((name, _index_texts(builder, first, grid + [it]), _scalar(root.type), root,
                      1 if outer else 0 if inner else None))
    return found


def _scalar(t: T.CType) -> T.CType:
    while isinstance(t, (T.ArrayType, T.PointerType)):
        t = t.scalar_element() if isinstance(t, T.ArrayType) else t.pointee
    return t


def _unmarked(node: isl.AstNode) -> isl.AstNode:
    """`node` without the marks above it (`coincident`, `vector`...: informational in a kernel)."""
    while node.get_type() == isl.ast_node_type.mark:
        node = node.mark_get_node()
    return node


def _children(node: isl.AstNode, unmark: bool = False) -> list[isl.AstNode]:
    """The statements of a block (or `node` alone); with `unmark`, without their marks and with
    the statements of the blocks among them in their place."""
    if not unmark:
        if node.get_type() == isl.ast_node_type.block:
            children = node.block_get_children()
            return [children.get_at(i) for i in range(children.n_ast_node())]
        return [node]
    node = _unmarked(node)
    if node.get_type() != isl.ast_node_type.block:
        return [node]
    children = node.block_get_children()
    return [c for i in range(children.n_ast_node()) for c in _children(children.get_at(i), unmark=True)]


def _subscripts(stmt: N.Stmt) -> list[tuple[N.VarRef, list[N.Expr]]]:
    """Every outermost subscript chain `A[i0]...[in]` of a full element under `stmt`."""
    found = []
    inner = set()
    for n in descendants(stmt):
        if isinstance(n, N.Subscript) and id(n) not in inner and not isinstance(n.type, T.ArrayType):
            indices = [n.index]
            node = n.base
            while isinstance(node, N.Subscript):
                inner.add(id(node))
                indices.append(node.index)
                node = node.base
            if isinstance(node, N.VarRef):
                found.append((node, indices[::-1]))
    return found


def tile_mapping(outer: isl.AstNode, inner: isl.AstNode, statements: Mapping[str, StatementBody],
                 params: Sequence[str], written: set[str], extents: Mapping[str, list[str]],
                 host_iterators: Sequence[str] = (), group: Optional[tuple[int, int]] = None,
                 context: Optional[isl.Set] = None, private: frozenset[str] = frozenset(),
                 domain: Sequence[str] = (), points: Optional[tuple[int, int]] = None) -> Optional[TileMapping]:
    """The staging of the kernel over `outer` x `inner` in work-groups of `group` (dimension 0
    first; None: `GROUP`), each work-item running `points` (dimension 0 first; None: the model's
    choice, `choose_points`) (None: nothing worth copying); `context`: the region's parameter
    constraints (`CodegenUnit.context`), which bound boxes over loops of parameter extent;
    `private`: the local arrays of which each work-item has a copy of its own (not staged);
    `domain`: constraints of the two iterators beyond the grid's box (triangle.domain). A
    triangle's grid, and a mapping with a stage that runs one point (`TileMapping.single_point`),
    run one point per work-item whatever `points` asks."""
    if any(n.for_get_inc().get_type() != isl.ast_expr_type.int or n.for_get_inc().int_get_val().to_python() != 1
           for n in (outer, inner)):
        return None
    group = group or GROUP

    def build(candidate: tuple[int, int]) -> Optional[TileMapping]:
        try:
            mapping = _Builder(outer, inner, statements, params, written, extents, host_iterators, group,
                               context, private, domain, candidate).mapping(inner.for_get_body())
        except (NotAffine, isl.Error, Unprintable):
            return None
        if mapping is not None and candidate != (1, 1) and mapping.single_point:
            return None
        return mapping

    if domain:
        points = (1, 1)      # triangle grids (kernels' early exit, Kernel.box): one point per work-item
    if points is not None:
        return build(points) or (build((1, 1)) if points != (1, 1) else None)
    one = build((1, 1))
    if one is not None and one.single_point:
        return one           # a nest, a hull strip or per-reference copies: not several points
    return choose_points([m for m in [one, *map(build, POINTS[1:])] if m is not None])


def choose_points(mappings: Sequence[TileMapping]) -> Optional[TileMapping]:
    """The model's choice among the mappings of one kernel for several points per work-item: the
    fewest elements copied from global memory per iteration (`TileMapping.copies_per_point`: a
    larger tile shares its halo and its strips among more points), among those within
    `MAX_POINTS` points and `MAX_PRIVATE` private values per work-item (local memory is checked
    when each is built); on a tie the fewer points (more work-items to spread the tile over)."""
    fitting = [m for m in mappings if m.points[0] * m.points[1] <= MAX_POINTS and
               (m.points == (1, 1) or m.private_elements <= MAX_PRIVATE)]
    return min(fitting, key=lambda m: (round(m.copies_per_point, 9), m.points[0] * m.points[1], m.points),
               default=None)


def _kernel_expr(e: isl.AstExpr, bound: set[str]) -> str:
    """An isl expression as the kernel spells it (clangpass.poly.ast_c in the OpenCL dialect)."""
    from llvm_backend.opencl.kernels import OpenclDialect   # noqa: PLC0415 (kernels imports this module)
    return expression(e, OpenclDialect({}), bound)
