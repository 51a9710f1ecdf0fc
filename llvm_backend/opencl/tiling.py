# SPDX-License-Identifier: MIT
"""PPCG-style mapping of a two-dimensional kernel: tiles to work-groups, reused footprints in `__local`.

Input: the kernel's two coincident for nodes (`outer`, `inner`: dimension 1 and 0 of the
grid), the unit's statement bodies and the arrays the kernel writes. Output: a `TileMapping`
(or None when nothing is worth staging), which `kernels.KernelBuilder` prints.

Mapping: a work-group of `group[0] x group[1]` work-items runs one tile of the two loops,
each work-item one point (the kernel declares `reqd_work_group_size`, so the runtime launches
exactly that shape; the grid is rounded up and the surplus work-items only help copy).

Staging (thesis / PPCG's shared-memory copies): the code under the two loops is a sequence
of children. A child that is a sequential for node whose bounds name neither grid iterator
(every work-item of the group runs the same iterations, so a barrier inside is reached by all)
is strip-mined by `tile_k`; for each strip, every array the kernel only reads whose accesses
in that child have reuse within the tile (the tile's footprint is smaller than the accesses
it serves) is copied into `__local` memory by the whole group, between two barriers, and the
child's accesses of that array read the copy. A sequential for node whose bounds do name a grid
iterator (symm's `for (k = 0; k < i; k++)` under the grid loops of i and j) is strip-mined too,
over its range on the whole tile (`_Builder._hull`: the least first and the greatest last
iteration over the tile's points, isl functions of the tile's origin alone, so every
work-item runs the same strips and barriers); in each strip a work-item runs only its own
iterations (from the greater of the strip's start and its own first one, while its own
condition holds). Without such a loop (a stencil), the whole body is one stage: its
footprint (the tile and its halo) is copied once.

Footprints are isl sets (islpy): the accesses of each statement (its IR subscripts as
affine functions of the AST iterators, `clangpass.poly.affine.AffineScope`) applied to the
tile's iterations, which are parameters of the tile's origin. The copy's shape is the
footprint's bounding box, whose extents must be constants (else the array is not staged);
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
(`work_groups.group_for`), else `GROUP` (16 x 16 = 256 work-items, a common limit of devices
and what the runtime allows by default); and `tile_k` halved from 16 until the copies fit `LOCAL_BYTES` (32 KiB,
below every OpenCL device's minimum CL_DEVICE_LOCAL_MEM_SIZE of 32 KiB for full profile).
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
#: Names of the tile's parameters in the isl sets (printed `t_<name>` in the kernel).
ORIGIN = ("__pcl_o1", "__pcl_o0", "__pcl_ok")      # origins of the outer, inner and strip loops
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
    # A loop whose bounds name a grid iterator (symm's `k < i`): OpenCL C of the first and last
    # iteration over the whole tile (`_Builder._hull`), the range of the group's strips.
    hull: Optional[tuple[str, str]] = None


@dataclass
class TileMapping:
    stages: list[Stage]
    group: tuple[int, int] = (16, 16)      # the work-group (dimension 0 first): one tile of the grid

    @property
    def local_bytes(self) -> int:
        return max((sum(a.elements * _size(a.element) for a in s.arrays) for s in self.stages), default=0)


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
                 domain: Sequence[str] = ()) -> None:
        self.host = tuple(host_iterators)      # parameters of the kernel too, printed t_<name>
        # Constraints of the grid iterators beyond the grid's box (a triangle's inner bounds:
        # triangle.domain): part of the iterations that exist.
        self.domain = list(domain)
        self.references: dict[str, list] = {}  # per array: (full, clipped, root) of each reference
        self.group = group
        self.outer_it, self.inner_it = iterator_name(outer), iterator_name(inner)
        self.statements = statements
        self.params = tuple(dict.fromkeys([*params, *host_iterators, *ORIGIN, *BOUNDS]))
        self.written = written
        self.extents = extents

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

    # -------------------------------------------------------------- accesses
    def _calls(self, node: isl.AstNode, iterators: list[str], constraints: list[str], out: list) -> None:
        """(statement call, iterators, constraints) of every user node under `node`."""
        kind = node.get_type()
        if kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for i in range(children.n_ast_node()):
                self._calls(children.get_at(i), iterators, constraints, out)
        elif kind == isl.ast_node_type.mark:
            self._calls(node.mark_get_node(), iterators, constraints, out)
        elif kind == isl.ast_node_type.if_:
            cond = isl_text(node.if_get_cond())
            self._calls(node.if_get_then_node(), iterators, constraints + [cond], out)
            if node.if_has_else_node():
                self._calls(node.if_get_else_node(), iterators, constraints + [f"not ({cond})"], out)
        elif kind == isl.ast_node_type.for_:
            it = iterator_name(node)
            inc = node.for_get_inc()
            if inc.get_type() != isl.ast_expr_type.int or inc.int_get_val().to_python() != 1:
                raise NotAffine("a loop of step other than 1")
            bounds = [f"{it} >= {isl_text(node.for_get_init())}", isl_text(node.for_get_cond())]
            self._calls(node.for_get_body(), iterators + [it], constraints + bounds, out)
        elif kind == isl.ast_node_type.user:
            out.append((node.user_get_expr(), list(iterators), list(constraints)))
        else:
            raise NotAffine(f"AST node {kind}")

    def _footprints(self, node: isl.AstNode, base: list[str], tile: list[str], clip: list[str]
                    ) -> dict[str, tuple[isl.Set, isl.Set, int, N.VarRef]]:
        """Per array read under `node`: (footprint over the unclipped tile, over the clipped one,
        number of accesses per iteration, a reference), for arrays the kernel does not write."""
        calls: list = []
        self._calls(node, base, [], calls)
        found: dict[str, list] = {}
        for call, iterators, constraints in calls:
            stmt = self.statements[call.op_get_arg(0).id_get_id().get_name()]
            bindings = {it: self._pw_aff(iterators, isl_text(call.op_get_arg(i + 1)))
                        for i, it in enumerate(stmt.iterators)}
            space = self._set(iterators, []).get_space()
            domain = self._set(iterators, constraints + clip)
            scope = _StatementScope(AffineScope(space, tuple(iterators), self.params, domain,
                                                isl.Set(f"[{', '.join(self.params)}] -> {{ : }}")), bindings)
            refs = _subscripts(stmt.body)
            for root, indices in refs:
                if root.name in self.written or root.name not in self.extents:
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
                clipped = self._set(iterators, tile + clip + constraints)
                found.setdefault(root.name, []).append((access.intersect_domain(full).range(),
                                                        access.intersect_domain(clipped).range(), root))
        self.references = found
        result = {}
        for name, items in found.items():
            if any(i is None for i in items):
                continue
            full, clipped = items[0][0], items[0][1]
            for f, c, _ in items[1:]:
                full, clipped = full.union(f), clipped.union(c)
            result[name] = (full.coalesce(), clipped.coalesce(), len(items), items[0][2])
        return result

    def _staged(self, name: str, full: isl.Set, clipped: isl.Set, root: N.VarRef, stage: int) -> Optional[StagedArray]:
        dims = full.dim(isl.dim_type.set)
        extents, offsets = [], []
        build = isl.AstBuild.from_context(isl.Set(f"[{', '.join(self.params)}] -> {{ : }}"))
        for d in range(dims):
            low, high = full.dim_min(d), full.dim_max(d)
            size = high.sub(low)
            if size.n_piece() != 1 or not size.is_cst():
                return None
            values = []
            size.foreach_piece(lambda _s, aff: values.append(aff.get_constant_val().to_python()))
            extents.append(int(values[0]) + 1)
            if low.n_piece() != 1:
                return None
            offsets.append(build.expr_from_pw_aff(low))
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
        tile = [f"__pcl_o1 <= {self.outer_it} < __pcl_o1 + {self.group[1]}",
                f"__pcl_o0 <= {self.inner_it} < __pcl_o0 + {self.group[0]}"]
        clip = [f"__pcl_s1 <= {self.outer_it} < __pcl_s1 + __pcl_n1",
                f"__pcl_s0 <= {self.inner_it} < __pcl_s0 + __pcl_n0", *self.domain]
        children = _children(body)
        stages: list[Stage] = []
        for index, child in enumerate(children):
            if child.get_type() != isl.ast_node_type.for_ or child.for_is_degenerate():
                continue
            ids = set().union(*(identifiers(e) for e in (child.for_get_init(), child.for_get_cond(),
                                                          child.for_get_inc())))
            hull = None
            if ids & set(grid):
                hull = self._hull(child, grid, tile, clip)
                if hull is None:
                    continue
            stage = self._stage(child, grid, tile, clip, loop=True, number=len(stages))
            if stage is not None:
                stage.index = index
                stage.hull = hull
                stages.append(stage)
        if not stages and not any(c.get_type() == isl.ast_node_type.for_ for c in children):
            stage = self._stage(body, grid, tile, clip, loop=False, number=0)
            if stage is not None:
                stages.append(stage)
        return TileMapping(stages, self.group) if stages else None

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

    def _stage(self, node: isl.AstNode, grid: list[str], tile: list[str], clip: list[str], loop: bool,
               number: int) -> Optional[Stage]:
        tile_k = TILE_K if loop else 1
        while tile_k >= 1:
            try:
                arrays = self._stage_arrays(node, grid, tile, clip, loop, tile_k, number)
            except (NotAffine, isl.Error):
                return None
            if sum(a.elements * _size(a.element) for a in arrays) <= LOCAL_BYTES:
                return Stage(node, loop, arrays, tile_k, registers=self.registers if loop else []) \
                    if arrays else None
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
            iterations = self.group[0] * self.group[1] * tile_k
            self.registers = self._registers(node.for_get_body(), grid, it)
        else:
            footprints = self._footprints(node, grid, tile, clip)
            iterations = self.group[0] * self.group[1]
        arrays = []
        for name, (full, clipped, accesses, root) in sorted(footprints.items()):
            staged = self._staged(name, full, clipped, root, number)
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
            full, clipped, root = item
            for g in groups:
                merged = g[0].union(full).coalesce()
                if self._staged(name, merged, g[1].union(clipped).coalesce(), root, number) is not None:
                    g[0], g[1] = merged, g[1].union(clipped).coalesce()
                    g[2].append(root)
                    break
            else:
                if self._staged(name, full, clipped, root, number) is None:
                    return []
                groups.append([full, clipped, [root]])
        ids = [id(r) for g in groups for r in g[2]]
        if len(groups) < 2 or len(set(ids)) != len(ids):     # one node in two groups: no key
            return []
        parts: list[StagedArray] = []
        for full, clipped, roots in groups:
            staged = self._staged(name, full, clipped, roots[0], number)
            if staged is not None and staged.elements < len(roots) * iterations:
                staged.refs = tuple(id(r) for r in roots)
                staged.part = len(parts) + 1
                parts.append(staged)
        return parts


def _registers_of(builder: "_Builder", node: isl.AstNode, grid: list[str], it: str) -> list:
    calls: list = []
    builder._calls(node, grid + [it], [], calls)
    seen: dict[str, list] = {}
    for call, iterators, constraints in calls:
        stmt = builder.statements[call.op_get_arg(0).id_get_id().get_name()]
        bindings = {name: builder._pw_aff(iterators, isl_text(call.op_get_arg(i + 1)))
                    for i, name in enumerate(stmt.iterators)}
        space = builder._set(iterators, []).get_space()
        scope = _StatementScope(AffineScope(space, tuple(iterators), builder.params,
                                            builder._set(iterators, constraints),
                                            isl.Set(f"[{', '.join(builder.params)}] -> {{ : }}")), bindings)
        for root, indices in _subscripts(stmt.body):
            if root.name not in builder.extents:
                continue
            try:
                pieces = [scope.pw_aff(i) for i in indices]
            except NotAffine:
                seen.setdefault(root.name, []).append(None)
                continue
            # Over the grid iterators alone (a dimension beyond them: not one element per work-item).
            if any(p.involves_dims(isl.dim_type.in_, len(grid), len(iterators) - len(grid)) for p in pieces):
                seen.setdefault(root.name, []).append(None)
                continue
            pieces = [p.drop_dims(isl.dim_type.in_, len(grid), len(iterators) - len(grid)) for p in pieces]
            seen.setdefault(root.name, []).append((pieces, root))
    found = []
    for name, refs in sorted(seen.items()):
        if any(r is None for r in refs):
            continue
        first = refs[0][0]
        if any(len(r[0]) != len(first) or not all(a.is_equal(b) for a, b in zip(r[0], first)) for r in refs[1:]):
            continue
        indices = []
        for piece in first:
            named = piece      # its input dimensions are named after the grid iterators
            as_params = named.move_dims(isl.dim_type.param, named.dim(isl.dim_type.param),
                                        isl.dim_type.in_, 0, len(grid))
            build = isl.AstBuild.from_context(as_params.domain().params().universe(
                as_params.domain().params().get_space()))
            indices.append(_kernel_expr(build.expr_from_pw_aff(as_params), set(grid) | set(builder.host)))
        root = refs[0][1]
        element = _scalar(root.type)
        found.append((name, indices, element, root))
    return found


def _scalar(t: T.CType) -> T.CType:
    while isinstance(t, (T.ArrayType, T.PointerType)):
        t = t.scalar_element() if isinstance(t, T.ArrayType) else t.pointee
    return t


def _children(node: isl.AstNode) -> list[isl.AstNode]:
    if node.get_type() == isl.ast_node_type.block:
        children = node.block_get_children()
        return [children.get_at(i) for i in range(children.n_ast_node())]
    return [node]


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
                 domain: Sequence[str] = ()) -> Optional[TileMapping]:
    """The staging of the kernel over `outer` x `inner` in work-groups of `group` (dimension 0
    first; None: `GROUP`) (None: nothing worth copying); `domain`: constraints of the two
    iterators beyond the grid's box (triangle.domain)."""
    if any(n.for_get_inc().get_type() != isl.ast_expr_type.int or n.for_get_inc().int_get_val().to_python() != 1
           for n in (outer, inner)):
        return None
    try:
        return _Builder(outer, inner, statements, params, written, extents,
                        host_iterators, group or GROUP, domain).mapping(inner.for_get_body())
    except (NotAffine, isl.Error, Unprintable):
        return None


def _kernel_expr(e: isl.AstExpr, bound: set[str]) -> str:
    """An isl expression as the kernel spells it (clangpass.poly.ast_c in the OpenCL dialect)."""
    from llvm_backend.opencl.kernels import OpenclDialect   # noqa: PLC0415 (kernels imports this module)
    return expression(e, OpenclDialect({}), bound)
