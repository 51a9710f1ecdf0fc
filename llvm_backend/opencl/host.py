# SPDX-License-Identifier: MIT
"""The host side of an OpenCL region: the CPU back end's lowering, with parallel loops
launched on the device through the runtime (runtime/pencilcc_runtime.h).

Input: a `CodegenUnit`. Output: the outlined function `<symbol>(args...)` in the C ABI
of `clangpass.regions`, as the CPU target emits it, except:
- an outermost `parallel` loop that `kernels.KernelBuilder` can express (`Plan.loops`)
  becomes a call `pencilcc_cl_run(program, kernel, n, args, dims, global)` (nothing when
  it has no iteration): one work-item per iteration, of both loops for a two-dimensional
  kernel; a reduction's kernel is launched over at most GROUPS groups of GROUP_SIZE and
  the groups' results are combined here, in group order, into the target. When the call
  fails (no device, a build or launch error, overlapping arrays: said once by the
  runtime) the loop runs here, sequentially, as the CPU target would run it;
- a `parallel` loop it cannot express runs here, sequentially (the record says why);
- code between kernels inside a loop that launches kernels, or between two kernels of a
  block (`Plan.singles`), is a kernel of one work-item (here again if that fails);
- `thread-team` marks are transparent (the device has its own threads);
- the arrays' home is the host between region calls: the call starts with
  `pencilcc_cl_region_begin` (every device copy stale: the program may have written the
  arrays), then `pencilcc_cl_discard` for what need not be uploaded (arrays dead at the
  entry, region locals), and ends with `pencilcc_cl_discard` for what need not come back
  (arrays dead at the exit, locals) and `pencilcc_cl_region_end` (device results read
  back). Inside the call, data stays on the device across kernels; host code first asks
  for the arrays it touches (`pencilcc_cl_to_host`, a no-op when the host copy is
  current) and says which it wrote (`pencilcc_cl_host_wrote`), at the outermost AST node
  that holds no kernel, not per statement. A device copy holds the array's declared
  elements, or the rows the region touches where those reach further
  (`CodegenUnit.device_rows`).
The kernels of a unit form one OpenCL program, a string constant of the module.
"""
from __future__ import annotations

from typing import Optional, Sequence

import islpy as isl
import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir.walk import descendants
from clangpass.poly.codegen_unit import TEAM_MARK, CodegenUnit, statement_names
from clangpass.poly.validity import PARALLEL_MARK
from llvm_backend.cpu.context import FunctionState
from llvm_backend.cpu.lower_ast import AstLowering, iterator_name
from llvm_backend.cpu.lower_types import I8, I32, I64, PTR, VOID, llvm_type, scalar_element
from llvm_backend.cpu.control import for_range
from llvm_backend.cpu.parallel import combine, trip_count
from clangpass.options import CompileOptions
from llvm_backend.opencl import work_groups
from llvm_backend.opencl.kernels import (GROUP_SIZE, GROUPS, Kernel, KernelBuilder, Unmappable,
                                         inner_coincident_loop, program_source, root_name, written_names)
from llvm_backend.opencl.triangle import triangular_inner_loop

#: struct pencilcc_cl_arg { const void *data; uint64_t size; int32_t kind; int32_t access; }
ARG = ir.LiteralStructType([PTR, I64, I32, I32])
VALUE, BUFFER, SCRATCH = 0, 1, 2


class Plan:
    """Which parts of a unit run on the device, decided before any code is emitted.

    `loops`: the outermost parallel loops in AST order, each a kernel (one work-item per
    iteration) or the reason it stays on the host. `singles`: code between kernels inside a
    host loop that launches kernels (durbin's scalar updates, floyd-warshall's pivot rows),
    each a kernel of one work-item when it can be one: otherwise every iteration of that
    loop would read its arrays back to the host and upload them again.
    """

    def __init__(self, unit: CodegenUnit, parallel: bool, options: Optional[CompileOptions] = None) -> None:
        """`options`: where work-group sizes given by hand or tuned come from (`work_groups`)."""
        tile_group = None
        if options is not None:
            def tile_group(band: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
                choice = work_groups.band_choice(options, unit.region.label, unit.region.function.name, band, 2)
                return choice.local, choice.points
        self.builder = KernelBuilder(unit, f"{unit.region.symbol}_k", tile_group)
        self.loops: list[tuple[str, Optional[Kernel], str]] = []    # (loop text, kernel, why not)
        self.singles: dict[str, tuple[Optional[Kernel], str]] = {}  # subtree text -> (kernel, why not)
        if parallel:
            self._walk(unit.ast, [])
        self.mapped = {text for text, k, _ in self.loops if k is not None}
        if self.mapped:
            self._between(unit.ast, [], False)
        self.kernels = list(self.builder.kernels)
        # The work-groups -fpencil-tile-sizes= or the tuning cache give (by kernel name).
        self.work_groups: dict[str, work_groups.WorkGroupChoice] = {}
        if options is not None:
            self.work_groups = work_groups.choose_work_groups(self.kernels, options, unit.region.label,
                                                              unit.region.function.name)
            sized = work_groups.apply(self.kernels, self.work_groups)
            self.kernels = [sized[k.name] for k in self.kernels]
            self.loops = [(text, sized[k.name] if k is not None else None, why) for text, k, why in self.loops]

    def _walk(self, node: isl.AstNode, iterators: list[str]) -> None:
        kind = node.get_type()
        if kind == isl.ast_node_type.mark:
            child = node.mark_get_node()
            if is_offloadable(node):
                kernel, why = None, ""
                triangle = triangular_inner_loop(child)
                if triangle is not None:
                    # Over the triangle's bounding box when it tiles (triangle.py); else as below.
                    try:
                        kernel = self.builder.build(child, iterators, inner=triangle)
                    except Unmappable:
                        kernel = None
                if kernel is None:
                    try:
                        kernel, why = self.builder.build(child, iterators, inner=inner_coincident_loop(child)), ""
                    except Unmappable as exc:
                        kernel, why = None, str(exc)
                self.loops.append((child.to_C_str(), kernel, why))
                return
            self._walk(child, iterators)
        elif kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for i in range(children.n_ast_node()):
                self._walk(children.get_at(i), iterators)
        elif kind == isl.ast_node_type.if_:
            self._walk(node.if_get_then_node(), iterators)
            if node.if_has_else_node():
                self._walk(node.if_get_else_node(), iterators)
        elif kind == isl.ast_node_type.for_:
            self._walk(node.for_get_body(), iterators + [iterator_name(node)])

    def _between(self, node: isl.AstNode, iterators: list[str], in_launching_loop: bool) -> None:
        """Find the `singles` under `node`: maximal subtrees without kernels inside a loop
        that launches kernels."""
        if not self.holds_kernel(node):
            if in_launching_loop:
                text = node.to_C_str()
                if text not in self.singles:
                    try:
                        self.singles[text] = (self.builder.build(node, iterators, single=True), "")
                    except Unmappable as exc:
                        self.singles[text] = (None, str(exc))
            return
        kind = node.get_type()
        if kind == isl.ast_node_type.mark:
            if not is_offloadable(node):
                self._between(node.mark_get_node(), iterators, in_launching_loop)
        elif kind == isl.ast_node_type.block:
            # Code between two kernels of a block runs on the device too: on the host it would
            # read back what the first kernel wrote and upload it again for the second.
            children = [node.block_get_children().get_at(i) for i in range(node.block_get_children().n_ast_node())]
            launching = [i for i, child in enumerate(children) if self.holds_kernel(child)]
            for i, child in enumerate(children):
                self._between(child, iterators, in_launching_loop or launching[0] < i < launching[-1])
        elif kind == isl.ast_node_type.if_:
            self._between(node.if_get_then_node(), iterators, in_launching_loop)
            if node.if_has_else_node():
                self._between(node.if_get_else_node(), iterators, in_launching_loop)
        elif kind == isl.ast_node_type.for_:
            self._between(node.for_get_body(), iterators + [iterator_name(node)],
                          in_launching_loop or not node.for_is_degenerate())

    def holds_kernel(self, node: isl.AstNode) -> bool:
        """Whether a parallel loop that is a kernel is at or under `node`."""
        found = []

        def visit(n: isl.AstNode) -> bool:
            if is_offloadable(n):
                if n.mark_get_node().to_C_str() in self.mapped:
                    found.append(True)
                return False
            return not found

        node.foreach_descendant_top_down(visit)
        return bool(found)


def is_offloadable(node: isl.AstNode) -> bool:
    """A `parallel` mark directly above a for node of more than one iteration."""
    if node.get_type() != isl.ast_node_type.mark or node.mark_get_id().get_name() != PARALLEL_MARK:
        return False
    child = node.mark_get_node()
    return child.get_type() == isl.ast_node_type.for_ and not child.for_is_degenerate()


class HostLowering(AstLowering):
    """`AstLowering` for the host function of an OpenCL region."""

    def __init__(self, state: FunctionState, unit: CodegenUnit, plan: Plan) -> None:
        super().__init__(state, unit, _offload)
        self.plan = plan
        self.next_loop = 0
        self.on_host = 0           # > 0 inside a subtree that runs on the host
        self._program: Optional[ir.Value] = None
        self._names: dict[str, ir.Value] = {}

    # ------------------------------------------------------------------ region and host code
    def lower_region(self, ast: isl.AstNode) -> None:
        if not self.plan.kernels:
            self.lower(ast)
            return
        on_device = {p.source for k in self.plan.kernels for p in k.params if p.kind == "buffer"}
        self._call("pencilcc_cl_region_begin", [])
        # Dead data is not copied (thesis 4.3.5.ii): arrays the region overwrites or kills
        # before reading them are not uploaded, arrays it leaves dead and its own locals are
        # not read back.
        locals_ = {d.name for d in self.unit.locals}
        for name in sorted(on_device & (self.unit.entry_dead | locals_)):
            self._call("pencilcc_cl_discard", [self._array_address(name)])
        self.lower(ast)
        for name in sorted(on_device & (self.unit.exit_dead | locals_)):
            self._call("pencilcc_cl_discard", [self._array_address(name)])
        self._call("pencilcc_cl_region_end", [])

    def lower(self, node: isl.AstNode) -> None:
        if self.on_host or not self.plan.kernels or self.plan.holds_kernel(node):
            super().lower(node)
            return
        single, _ = self.plan.singles.get(node.to_C_str(), (None, ""))
        if single is not None:
            # Sequential code between kernels, on one work-item (the host's copy if that fails).
            failed = self._launch(single, ir.Constant(I64, 0), ir.Constant(I64, 1))
            with self.builder.if_then(self.builder.icmp_signed("!=", failed, ir.Constant(I32, 0))):
                self.run_here(node, lambda: super(HostLowering, self).lower(node))
            return
        self.run_here(node, lambda: super(HostLowering, self).lower(node))

    def run_here(self, node: isl.AstNode, emit) -> None:
        """Emit `node` as host code (by `emit`), between the calls that keep its arrays current."""
        used, written = self._arrays(node) if self.plan.kernels else (set(), set())
        for name in sorted(used):
            self._call("pencilcc_cl_to_host", [self._array_address(name)])
        self.on_host += 1
        saved, self.run_on_threads = self.run_on_threads, None     # nested parallel loops: sequential
        try:
            emit()
        finally:
            self.on_host -= 1
            self.run_on_threads = saved
        for name in sorted(written):
            self._call("pencilcc_cl_host_wrote", [self._array_address(name)])

    # ------------------------------------------------------------------ kernels
    def offload(self, node: isl.AstNode) -> None:
        if node.get_type() == isl.ast_node_type.mark and node.mark_get_id().get_name() == TEAM_MARK:
            self.lower(node.mark_get_node())
            return
        if not is_offloadable(node):       # a team mark's child (run_on_threads' other use)
            self.lower(node)
            return
        loop = node.mark_get_node()
        # The plan's loops in AST order; those under subtrees run on the host are passed over.
        text = loop.to_C_str()
        while self.next_loop < len(self.plan.loops) and self.plan.loops[self.next_loop][0] != text:
            self.next_loop += 1
        if self.next_loop == len(self.plan.loops):
            raise RuntimeError("the OpenCL host lowering met a parallel loop its plan does not have")
        _, kernel, _ = self.plan.loops[self.next_loop]
        self.next_loop += 1
        if kernel is None:
            self.run_here(node, lambda: self.lower_For(loop, parallel=True))
            return
        b = self.builder
        start = self.integer(loop.for_get_init())
        step = self.integer(loop.for_get_inc())
        trips = trip_count(self, loop, start, step)
        with b.if_then(b.icmp_signed(">", trips, ir.Constant(I64, 0))):
            if kernel.inner is not None:
                inner = kernel.inner
                if kernel.box is not None:
                    # A triangle: dimension 0 over its bounding box (the kernel tests the bounds).
                    start0 = self.integer(kernel.box[0])
                    span = b.sub(self.integer(kernel.box[1]), start0)
                    trips0 = b.select(b.icmp_signed("<", span, ir.Constant(I64, 0)), ir.Constant(I64, 0),
                                      b.add(span, ir.Constant(I64, 1)), name="pencil.box.trips")
                else:
                    start0 = self.integer(inner.for_get_init())
                    step0 = self.integer(inner.for_get_inc())
                    trips0 = trip_count(self, inner, start0, step0)
                with b.if_then(b.icmp_signed(">", trips0, ir.Constant(I64, 0))):
                    failed = self._launch(kernel, start, trips, inner=(start0, trips0))
                    with b.if_then(b.icmp_signed("!=", failed, ir.Constant(I32, 0))):
                        self.run_here(node, lambda: self.lower_For(loop, parallel=True))
                return
            if not kernel.reductions:
                failed = self._launch(kernel, start, trips)
                with b.if_then(b.icmp_signed("!=", failed, ir.Constant(I32, 0))):
                    self.run_here(node, lambda: self.lower_For(loop, parallel=True))
                return
            # A reduction: GROUP_SIZE work-items per group striding over the iterations, at most
            # GROUPS groups, whose results the host combines in group order into the target.
            size = b.mul(b.sdiv(b.add(trips, ir.Constant(I64, GROUP_SIZE - 1)), ir.Constant(I64, GROUP_SIZE)),
                         ir.Constant(I64, GROUP_SIZE))
            size = b.select(b.icmp_signed("<", size, ir.Constant(I64, GROUP_SIZE * GROUPS)), size,
                            ir.Constant(I64, GROUP_SIZE * GROUPS), name="pencil.global")
            partials = [self.state.alloca(ir.ArrayType(llvm_type(r.target.type), GROUPS), f"pencil.{r.variable}.groups")
                        for r in kernel.reductions]
            for partial in partials:       # written before it is read: nothing to upload
                self._call("pencilcc_cl_discard", [partial])
            failed = self._launch(kernel, start, trips, size, partials)
            with b.if_else(b.icmp_signed("!=", failed, ir.Constant(I32, 0))) as (on_host, launched):
                with on_host:
                    self.run_here(node, lambda: self.lower_For(loop, parallel=True))
                with launched:
                    groups = b.sdiv(size, ir.Constant(I64, GROUP_SIZE), name="pencil.groups")
                    for r, partial in zip(kernel.reductions, partials):
                        self._combine(r, partial, groups)

    def _combine(self, r, partial: ir.Value, groups: ir.Value) -> None:
        """target = target op (partial[0] op partial[1] ... op partial[groups - 1]), on the host."""
        b = self.builder
        ty = llvm_type(r.target.type)
        self._call("pencilcc_cl_to_host", [partial])
        total = self.state.alloca(ty, f"pencil.{r.variable}.total")
        b.store(b.load(partial, typ=ty), total)
        with for_range(b, ir.Constant(I64, 1), lambda g: b.icmp_signed("<", g, groups), ir.Constant(I64, 1),
                       f"pencil.{r.variable}.combine") as g:
            slot = b.gep(partial, [ir.Constant(I64, 0), g], inbounds=True, source_etype=ir.ArrayType(ty, GROUPS))
            b.store(combine(self.state, b, r.operator, r.target.type, b.load(total, typ=ty), b.load(slot, typ=ty)),
                    total)
        root = root_name(r.target)
        self._call("pencilcc_cl_to_host", [self._array_address(root)])
        target = self.exprs.address(r.target)
        self.exprs.store(target, combine(self.state, b, r.operator, r.target.type, self.exprs.load(target),
                                         b.load(total, typ=ty)))
        self._call("pencilcc_cl_host_wrote", [self._array_address(root)])

    def _launch(self, kernel: Kernel, start: ir.Value, trips: ir.Value, size: Optional[ir.Value] = None,
                partials: Sequence[ir.Value] = (), inner: Optional[tuple[ir.Value, ir.Value]] = None) -> ir.Value:
        """Call `pencilcc_cl_run` for `kernel` over `size` work-items (default: `trips`; with
        `inner`, its start and trips: trips(inner) x trips); returns its status (0: it ran)."""
        b = self.builder
        state = self.state
        args = state.alloca(ir.ArrayType(ARG, len(kernel.params)), f"pencil.{kernel.name}.args")
        for i, p in enumerate(kernel.params):
            if p.kind == "partial":
                element = self.state.ctx.size_of(llvm_type(p.ctype))
                data, bytes_, kind, access = partials[p.dim], ir.Constant(I64, GROUPS * element), BUFFER, p.access
            elif p.kind == "scratch":
                # Every iteration's copy of a private array: trips (x inner trips) x elements.
                element = self.state.ctx.size_of(llvm_type(scalar_element(p.ctype)))
                count = trips if inner is None else b.mul(trips, inner[1])
                count = b.mul(count, self.state.scope[p.source].elements)
                data, bytes_, kind, access = (self._string(f"{kernel.name}.{p.name}"),
                                              b.mul(count, ir.Constant(I64, element)), SCRATCH, 0)
            elif p.kind in ("inner-start", "inner-trips"):
                data, bytes_, kind, access = self._argument(p, *inner)
            else:
                data, bytes_, kind, access = self._argument(p, start, trips)
            slot = b.gep(args, [ir.Constant(I32, 0), ir.Constant(I32, i)], inbounds=True,
                         source_etype=ir.ArrayType(ARG, len(kernel.params)))
            for field, value in enumerate((data, bytes_, ir.Constant(I32, kind), ir.Constant(I32, access))):
                b.store(value, b.gep(slot, [ir.Constant(I32, 0), ir.Constant(I32, field)], inbounds=True,
                                     source_etype=ARG))
        extents = [trips if size is None else size] if inner is None else [inner[1], trips]
        name = self._string(kernel.name)
        if kernel.tiling is not None:
            # A tiled kernel's work-items run several points each: ceil(trips / points) of them.
            # Its direct variant, which the runtime picks for a device whose local memory is
            # global memory (pencilcc_cl_mapping), runs one work-item per iteration.
            direct = b.icmp_signed("!=", self._call("pencilcc_cl_mapping", [], I32), ir.Constant(I32, 0),
                                   name="pencil.direct")
            name = b.select(direct, self._string(kernel.direct), name)
            extents = [e if p == 1 else b.select(direct, e, b.sdiv(b.add(e, ir.Constant(I64, p - 1)),
                                                                     ir.Constant(I64, p)))
                       for e, p in zip(extents, kernel.tiling.points)]
        global_size = state.alloca(ir.ArrayType(I64, len(extents)), f"pencil.{kernel.name}.global")
        for d, extent in enumerate(extents):
            b.store(extent, b.gep(global_size, [ir.Constant(I32, 0), ir.Constant(I32, d)], inbounds=True,
                                  source_etype=ir.ArrayType(I64, len(extents))))
        return self._call("pencilcc_cl_run", [self._program_text(), name,
                                              ir.Constant(I32, len(kernel.params)), args,
                                              ir.Constant(I32, len(extents)), global_size], I32)

    def _argument(self, p, start: ir.Value, trips: ir.Value) -> tuple[ir.Value, ir.Value, int, int]:
        """(data, size, kind, access) of one `pencilcc_cl_arg`."""
        state = self.state
        ctx = state.ctx
        if p.kind == "buffer":
            return self._array_address(p.source), self._array_bytes(p.source), BUFFER, p.access
        if p.kind == "value":
            value = self.exprs.lower_VarRef(N.VarRef(p.source, "param", type=p.ctype))
        elif p.kind == "extent":
            value = state.scope[p.source].extents[p.dim - 1]
        elif p.kind == "elements":
            value = state.scope[p.source].elements
        elif p.kind == "iterator":
            value = state.isl_ids[p.source]
        elif p.kind in ("start", "inner-start"):
            value = start
        else:
            value = trips
        slot = state.alloca(value.type, f"pencil.arg.{p.name}")
        self.builder.store(value, slot)
        return slot, ir.Constant(I64, ctx.size_of(value.type)), VALUE, 0

    # ------------------------------------------------------------------ helpers
    def _arrays(self, node: isl.AstNode) -> tuple[set[str], set[str]]:
        """The region arrays and pointers the statements under `node` name, and those they write."""
        # Locals too: a kernel of one work-item keeps them in buffers (Plan.singles).
        buffers = {a.name for a in self.unit.region.args if a.passing in ("array", "pointer")}
        buffers |= {d.name for d in self.unit.locals}
        used: set[str] = set()
        written: set[str] = set()
        for name in statement_names(node):
            body = self.unit.statements[name].body
            used.update(n.name for n in descendants(body) if isinstance(n, N.VarRef) and n.name in buffers)
            written |= written_names(body) & buffers
        return used, written

    def _array_address(self, name: str) -> ir.Value:
        return self.state.scope[name].value

    def _array_bytes(self, name: str) -> ir.Value:
        """The bytes of a region array or pointed-to scalar (extents evaluated at entry)."""
        var = self.state.scope[name]
        ctx = self.state.ctx
        if var.kind != "array":      # a 'pointer' argument: the address of one scalar
            return ir.Constant(I64, ctx.size_of(llvm_type(var.ctype)))
        t = var.ctype
        element = ir.Constant(I64, ctx.size_of(llvm_type(scalar_element(t))))
        if var.elements is not None:          # a region local (allocate_local counted it)
            with self.state.at_entry():
                return self.state.builder.mul(var.elements, element, flags=("nsw",), name=f"pencil.{name}.bytes")
        with self.state.at_entry():
            rows = self.unit.device_rows.get(name)
            if rows is not None:               # the rows the region touches (CodegenUnit.device_rows)
                count = self.integer(rows)
            elif t.constant_extent is not None:
                count = ir.Constant(I64, t.constant_extent)
            else:
                count = self.exprs.index_value(t.extent)
            b = self.state.builder
            for extent in var.extents:
                count = b.mul(count, extent, flags=("nsw",))
            return b.mul(count, element, flags=("nsw",), name=f"pencil.{name}.bytes")

    def _program_text(self) -> ir.Value:
        if self._program is None:
            self._program = self._global_string(f"{self.unit.region.symbol}.cl",
                                                program_source(self.plan.kernels,
                                                               self.state.ctx.options.fp_contract))
        return self._program

    def _string(self, text: str) -> ir.Value:
        if text not in self._names:
            self._names[text] = self._global_string(f"{text}.name", text)
        return self._names[text]

    def _global_string(self, name: str, text: str) -> ir.Value:
        data = bytearray(text.encode() + b"\0")
        g = ir.GlobalVariable(self.state.ctx.module, ir.ArrayType(I8, len(data)), name=name)
        g.linkage = "private"
        g.global_constant = True
        g.unnamed_addr = True
        g.initializer = ir.Constant(ir.ArrayType(I8, len(data)), data)
        g.type = PTR
        return g

    def _call(self, name: str, args: list[ir.Value], result: ir.Type = VOID) -> ir.Value:
        fn = self.state.ctx.declare(name, result, [a.type for a in args])
        return self.builder.call(fn, args)


def _offload(lowering: AstLowering, node: isl.AstNode) -> None:
    """`AstLowering.run_on_threads` of the host lowering: parallel loops go to the device."""
    assert isinstance(lowering, HostLowering)
    lowering.offload(node)
