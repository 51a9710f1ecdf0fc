# SPDX-License-Identifier: MIT
"""One parallel loop of a `CodegenUnit` as an OpenCL C kernel.

Input: the for node under a `parallel` mark (its iterations are independent), the
unit, and the isl iterators the host binds around it. Output: a `Kernel`: its
OpenCL C text and the list of its parameters, each saying where the host finds the
value (`KernelParam.source`), so that `llvm_backend.opencl.host` can pass them.

Mapping (one dimension): work-item g runs iteration `start + g * step` of the loop,
for g < trips; the host computes `start` and `trips` (the runtime may round the
global size up to a multiple of the work-group size, so every kernel returns early
past its trip count). The loop's body, inner loops included, is the work-item's
code: the same isl AST and IR statement bodies the CPU target lowers, printed as C
by `clangpass.poly.ast_c` and `clangpass.ir.c_printer` in the OpenCL dialect below.

Data:
- region arguments passed by value: kernel arguments of their C type (`_Bool` as
  `uchar`: OpenCL forbids bool arguments); every integer one is also an isl
  parameter, so all are passed;
- region arrays and pointers the statements use: `__global` buffers (the runtime's,
  `pencilcc_cl_run`), flat: `A[i][j]` of `double A[n][m]` is `A[i * m + j]`, the
  row extents passed as `long` arguments computed by the host;
- region locals (`CodegenUnit.locals`): scalars are private, copied in from the region's
  value at the launch (as the CPU target's threads copy them, firstprivate); arrays, when no
  statement outside the kernel names them (nothing flows in or out), are private arrays when
  small and of constant size, else each iteration's copy is a slice of a device-only buffer;
  a kernel of one work-item (`single`, sequential code between kernels) uses the region's
  own locals, in buffers;
- host iterators: `long` arguments.
Names: C variables are printed `v_<name>`, isl iterators `t_<name>`, our own
`__pencilcc_*`: no user name can meet an OpenCL keyword or builtin.

What the kernel cannot express (a struct, a call to a non-builtin function, a
reduction, an array without a known size...) raises `Unmappable`: the host runs that
loop itself, and the record says why.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from dataclasses import replace
from typing import Callable, Mapping, Optional, Sequence

import islpy as isl

from clangpass import builtins as B
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.c_printer import CDialect, CPrinter, Unprintable
from clangpass.ir.walk import base_variable, descendants, transform, written_variables
from clangpass.poly.affine import NotAffine
from clangpass.poly.codegen_unit import CodegenUnit, StatementBody, statement_names
from clangpass.poly.privatization import source_name
from clangpass.poly.scop import LoopReduction
from clangpass.regions import iter_stmts, stmt_exprs
from clangpass.poly.ast_c import AstPrinter, identifiers, iterator_name
from llvm_backend.opencl import triangle
from llvm_backend.opencl.tiling import Stage, TileMapping, tile_mapping

#: Private arrays larger than this many elements stay on the host (private memory is small).
MAX_PRIVATE_ELEMENTS = 1024


class Unmappable(Exception):
    """The loop cannot run as a kernel; the message says why."""


@dataclass(frozen=True)
class KernelParam:
    """One kernel argument. `kind`: 'value' (a region argument by value), 'buffer' (a region
    array, a 'pointer' argument's scalar or a region local: `access` bits 1 read, 2 write), 'extent' (row extent `dim` of array
    `source`; of region arrays and of region locals), 'iterator' (a host isl iterator),
    'start' / 'trips' (the loop's first iteration and trip count; 'inner-start' / 'inner-trips'
    of a two-dimensional kernel's inner loop), 'elements' and 'scratch' (a private array's
    elements and the device-only buffer of every iteration's copies), 'partial' (the work-group
    results of reduction `dim` of the kernel: a buffer of `GROUPS` elements of `ctype`)."""

    name: str
    kind: str
    source: str = ""
    ctype: Optional[T.CType] = None
    access: int = 0
    dim: int = 0


@dataclass(frozen=True)
class Kernel:
    name: str
    loop: isl.AstNode
    params: tuple[KernelParam, ...]
    source: str
    private_arrays: tuple[str, ...] = ()
    statements: frozenset[str] = field(default=frozenset())
    single: bool = False          # one work-item runs the whole subtree (sequential code between kernels)
    reductions: tuple[LoopReduction, ...] = ()   # performed as tree reductions (`_reduction_kernel`)
    inner: Optional[isl.AstNode] = None           # the loop of dimension 0 of a two-dimensional kernel
    tiling: Optional[TileMapping] = None          # tiles to work-groups, staged footprints (tiling.py)
    # A triangle (`inner`'s bounds name the outer iterator, triangle.py): isl AST expressions of
    # the first and last iteration of `inner` over the whole outer loop, dimension 0's launch.
    box: Optional[tuple[isl.AstExpr, isl.AstExpr]] = None
    # A tiled kernel's direct variant (`source` holds both): the name of the kernel that runs the
    # same iterations one work-item each, without local copies or barriers, for devices whose
    # local memory is global memory (the runtime's pencilcc_cl_mapping picks); None: one variant.
    direct: Optional[str] = None

    @property
    def dimensions(self) -> int:
        return 2 if self.inner is not None else 1


READ, WRITE = 1, 2

_OPENCL_INT = {(8, True): "char", (8, False): "uchar", (16, True): "short", (16, False): "ushort",
               (32, True): "int", (32, False): "uint", (64, True): "long", (64, False): "ulong"}


def opencl_type(t: T.CType) -> str:
    """The OpenCL C spelling of a scalar C type."""
    t = t.unqualified()
    if isinstance(t, T.IntType):
        if t.name == "_Bool":
            return "bool"
        spelled = _OPENCL_INT.get((t.bits, t.signed))
        if spelled is None:
            raise Unprintable(f"type '{t.spelling()}'")
        return spelled
    if isinstance(t, T.FloatType) and t.bits in (32, 64):
        return "float" if t.bits == 32 else "double"
    if isinstance(t, T.VoidType):
        return "void"
    raise Unprintable(f"type '{t.spelling()}'")


def builtin_name(callee: str) -> Optional[str]:
    """The OpenCL builtin a PENCIL builtin is (pencil.h's C99 spellings name OpenCL's
    overloads by prefix and suffix: `lmax` is `max` on long, `fmaxf` is `fmax` on float)."""
    if callee in B.PENCIL_SPECIAL:
        return None
    for prefix in sorted(B.INTEGER_PREFIXES, key=len, reverse=True):
        rest = callee[len(prefix):]
        if callee.startswith(prefix) and rest in B.INTEGER_FUNCTIONS:
            return rest
    if callee in B.FLOAT_FUNCTIONS:
        return callee
    if callee.endswith("f") and callee[:-1] in B.FLOAT_FUNCTIONS:
        return callee[:-1]
    stem = callee[:-1] if callee.endswith("f") and callee[:-1].startswith("f") else callee
    if stem.startswith("f") and stem[1:] in B.SHARED_FUNCTIONS:
        return {"fclamp": "clamp"}.get(stem, stem)
    return None


class OpenclDialect(CDialect):
    """OpenCL C for kernel bodies: renamed variables, flat buffers, OpenCL builtins."""

    def __init__(self, extents: dict[str, list[str]], indirect: frozenset[str] = frozenset()) -> None:
        self.extents = extents      # array name -> spellings of its row extents
        self.indirect = indirect    # scalars in a one-element buffer (region 'pointer' arguments)
        # Arrays whose accesses read a work-group's copy in local memory (tiling.StagedArray),
        # with the spelling of the copy: set while a stage's code is printed.
        self.staged: dict[str, tuple[object, str]] = {}
        self.written: set[str] = set()      # arrays the kernel writes (a register is stored back)

    def name(self, ref: N.VarRef) -> str:
        return f"(*v_{ref.name})" if ref.name in self.indirect else f"v_{ref.name}"

    def type_name(self, t: T.CType) -> str:
        return opencl_type(t)

    def subscript(self, root: N.VarRef, indices: Sequence[str]) -> str:
        # A copy of this reference alone (tiling.StagedArray.keys), else of the whole array.
        entry = self.staged.get(id(root)) or self.staged.get(root.name)    # type: ignore[call-overload]
        if entry is not None and entry[0] is None:     # a private register
            return entry[1]
        if entry is not None:
            array, local = entry
            offset = f"(({indices[0]}) - {local}_o0)"
            for d in range(1, len(indices)):
                extent = array.row if d == len(indices) - 1 else array.extents[d]
                offset = f"({offset} * {extent} + (({indices[d]}) - {local}_o{d}))"
            return f"{local}[{offset}]"
        extents = self.extents.get(root.name)
        if extents is None:
            if len(indices) == 1 and isinstance(root.type, T.PointerType):
                return f"{self.name(root)}[{indices[0]}]"
            raise Unprintable(f"the subscript of '{root.name}'")
        offset = indices[0]
        for index, extent in zip(indices[1:], extents):
            offset = f"({offset} * {extent} + {index})"
        if len(indices) != len(extents) + 1:
            raise Unprintable(f"a partial subscript of '{root.name}'")
        return f"{self.name(root)}[{offset}]"

    def call(self, call: N.Call, args: Sequence[str]) -> str:
        name = builtin_name(call.callee) if call.builtin else None
        if name is None:
            raise Unprintable(f"a call to '{call.callee}'")
        # The result in the C type clang gave the call (OpenCL's abs is unsigned, for one).
        return f"(({opencl_type(call.type)}){name}({', '.join(args)}))"

    def iterator(self, name: str) -> str:
        return f"t_{name}"

    def parameter(self, name: str, arithmetic: bool) -> str:
        return f"((long)v_{name})"

    def integer(self, value: int) -> str:
        return f"{value}L"

    def minmax(self, which: str, a: str, b: str) -> str:
        return f"{which}({a}, {b})"


# FP_CONTRACT OFF: OpenCL C lets a compiler fuse a * b + c into an fma by default; C (as
# gcc -O0 and the CPU target compile it) rounds the product first. ON under -ffp-contract=fast.
_PRELUDE = """\
#pragma OPENCL FP_CONTRACT {contract}
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
static inline long __pencilcc_floord(long a, long b)
{
  long q = a / b;
  return (a % b != 0 && ((a % b < 0) != (b < 0))) ? q - 1 : q;
}
"""


def program_source(kernels: Sequence[Kernel], contract: bool = False) -> str:
    """One OpenCL program holding `kernels`; `contract`: -ffp-contract=fast."""
    return _PRELUDE.replace("{contract}", "ON" if contract else "OFF") + "".join("\n" + k.source for k in kernels)


class KernelBuilder:
    """Builds the kernels of one unit (names `<prefix><n>`)."""

    def __init__(self, unit: CodegenUnit, prefix: str,
                 tile_group: Optional[Callable[[int], tuple[tuple[int, ...], tuple[int, ...]]]] = None) -> None:
        """`tile_group(band)`: the work-group and the points per work-item (each dimension 0 first;
        (): none given) that `-fpencil-tile-sizes=` or the tuning cache give the band-th band
        kernel (llvm_backend.opencl.work_groups); a tiled kernel takes them for its tiles."""
        self.unit = unit
        self.prefix = prefix
        self.tile_group = tile_group
        self.kernels: list[Kernel] = []
        self.locals = {d.name: d for d in unit.locals}
        self.args = {a.name: a for a in unit.region.args}

    def build(self, node: isl.AstNode, host_iterators: Sequence[str], single: bool = False,
              inner: Optional[isl.AstNode] = None) -> Kernel:
        """The kernel of the for node `node` (one work-item per iteration; with `inner`, the for
        node directly inside it, one per iteration of both: dimension 0 is `inner`'s), or with
        `single`, of the whole subtree `node` on one work-item; raises Unmappable."""
        unit = self.unit
        statements = statement_names(node)
        reductions = [] if single else [r for r in unit.reductions if set(r.statements) & statements]
        for r in reductions:
            if r.operator not in _TREE_OPERATORS or not isinstance(r.target.type, (T.IntType, T.FloatType)):
                raise Unmappable(f"the loop performs a '{r.operator}' reduction of '{r.variable}' "
                                 "(on the device: + * min max & | ^ of numbers)")
        # The updates of each reduction accumulate in the work-item's `acc<k>` (as the CPU
        # target's threads do in their partial results).
        bodies_by_name = _on_accumulators(unit, reductions)
        bodies = [bodies_by_name[s] for s in sorted(statements)]
        used: set[str] = set()
        written: set[str] = set()
        iterator_types: dict[str, T.CType] = {}
        for body in bodies:
            for n in descendants(body.body):
                if isinstance(n, N.VarRef):
                    used.add(n.name)
                    if n.name in body.iterators:
                        iterator_types.setdefault(n.name, n.type)
            written |= written_names(body.body)
        name = f"{self.prefix}{len(self.kernels)}"
        params: list[KernelParam] = []
        extents: dict[str, list[str]] = {}
        private: list[str] = []
        prologue: list[str] = []
        indirect = {a.name for a in unit.region.args if a.passing == "pointer"}

        def buffer(source: str, ctype: T.CType, rows: int) -> None:
            access = READ | (WRITE if source in written else 0)
            params.append(KernelParam(f"v_{source}", "buffer", source, ctype, access))
            extents[source] = [f"__pencilcc_{source}_e{d + 1}" for d in range(rows)]
            params.extend(KernelParam(e, "extent", source, dim=d + 1) for d, e in enumerate(extents[source]))

        for arg in unit.region.args:
            if arg.passing == "value":
                if isinstance(arg.type, T.IntType) or arg.name in used:
                    params.append(KernelParam(f"v_{arg.name}", "value", arg.name, arg.type))
            elif arg.name in used:
                if arg.passing == "array" and arg.name in unit.beyond_extents:
                    raise Unmappable(f"the elements of '{arg.name}' the region touches are not bounded "
                                     "by its parameters (a device copy must hold them)")
                sized = arg.name in unit.device_rows or (isinstance(arg.type, T.ArrayType) and
                                                         (arg.type.constant_extent is not None or
                                                          arg.type.extent is not None))
                if arg.passing == "array" and not sized:
                    raise Unmappable(f"the size of the array '{arg.name}' is unknown")
                buffer(arg.name, arg.type, len(_row_dims(arg.type)))
        outside = self._named_outside(set(self.locals) & used, statements)
        for local in sorted(set(self.locals) & used):
            decl = self.locals[local]
            scalar = isinstance(decl.type, (T.IntType, T.FloatType))
            if not scalar and not isinstance(decl.type, T.ArrayType):
                raise Unmappable(f"the local {source_name(local)} of type '{decl.type.spelling()}'")
            if single:
                # One work-item: the local is the host's, in a buffer (its value flows between
                # kernels and host code of the region).
                buffer(local, decl.type, len(_row_dims(decl.type)))
                if scalar:
                    indirect.add(local)
            elif scalar:
                # Private to each work-item, copied in from the region's current value.
                params.append(KernelParam(f"__pencilcc_in_{local}", "buffer", local, decl.type, READ))
                prologue.append(f"  {opencl_type(decl.type)} v_{local} = *__pencilcc_in_{local};")
            else:
                if local in outside and local not in unit.iteration_locals:
                    raise Unmappable(f"the local array {source_name(local)} is also used outside the loop, and its "
                                     "values cross an iteration of it (a work-item's private copy would lose them)")
                count, row = _constant_extents(decl.type)
                element = opencl_type(decl.type.scalar_element())
                private.append(local)
                if count is not None and count <= MAX_PRIVATE_ELEMENTS:
                    extents[local] = [str(e) for e in row]
                    prologue.append(f"  {element} v_{local}[{count}];")
                    continue
                # Too big for private memory, or of parameter size: each iteration's copy is a
                # slice of a device-only buffer (the runtime's SCRATCH), trips x elements long.
                rows = len(_row_dims(decl.type))
                extents[local] = [f"__pencilcc_{local}_e{d + 1}" for d in range(rows)]
                params.extend(KernelParam(e, "extent", local, dim=d + 1) for d, e in enumerate(extents[local]))
                params.append(KernelParam(f"__pencilcc_{local}_n", "elements", local))
                params.append(KernelParam(f"__pencilcc_scratch_{local}", "scratch", local, decl.type))
                slot = "(__pencilcc_gid * __pencilcc_trips0 + __pencilcc_gid0)" if inner is not None \
                    else "__pencilcc_gid"
                prologue.append(f"  __global {element} *restrict v_{local} = __pencilcc_scratch_{local} "
                                f"+ {slot} * __pencilcc_{local}_n;")
        params += [KernelParam(f"t_{it}", "iterator", it) for it in host_iterators]
        params += [KernelParam("__pencilcc_start", "start"), KernelParam("__pencilcc_trips", "trips")]
        if inner is not None:
            params += [KernelParam("__pencilcc_start0", "inner-start"), KernelParam("__pencilcc_trips0", "inner-trips")]

        for k, r in enumerate(reductions):
            params.append(KernelParam(f"__pencilcc_partial{k}", "partial", r.variable, r.target.type, WRITE, dim=k))
        dialect = OpenclDialect(extents, frozenset(indirect))
        dialect.written = set(written)
        printer = AstPrinter(CPrinter(dialect), bodies_by_name, iterator_types)
        bound = set(host_iterators)
        mapping = None
        # A triangle (triangle.py): the grid is its bounding box, and it is a kernel only tiled.
        triangular = inner is not None and iterator_name(node) in (identifiers(inner.for_get_init())
                                                                   | identifiers(inner.for_get_cond()))
        box, meets, within = None, "", ""
        if inner is not None and not reductions and not single:
            integers = [a.name for a in unit.region.args if a.passing == "value" and isinstance(a.type, T.IntType)]
            # This kernel's band: the kernels before it that are bands too (work_groups.is_band).
            band = sum(1 for k in self.kernels if not k.single and not k.reductions)
            given, given_points = self.tile_group(band) if self.tile_group is not None else ((), ())
            group = (given[0], given[1]) if len(given) == 2 else None
            points = (given_points[0], given_points[1]) if len(given_points) == 2 else None
            # A region local (private scalar or array) is one per work-item, not per point: the
            # points of a work-item would share it, so one point each.
            if prologue or private:
                points = (1, 1)
            try:
                domain = triangle.domain(inner) if triangular else ()
            except NotAffine:
                raise Unmappable("the inner loop's bounds name the outer iterator in a form isl's "
                                 "sets cannot say") from None
            mapping = tile_mapping(node, inner, bodies_by_name, integers, written, extents, host_iterators, group,
                                   unit.context, frozenset(private), domain, points)
            if triangular and mapping is not None:
                box = triangle.bounding_box(node, inner, [*integers, *host_iterators])
                meets = triangle.tile_meets_domain(node, inner, integers, host_iterators, mapping.group)
                mapping = mapping if box is not None and meets is not None else None
        if triangular and mapping is None:
            raise Unmappable("the inner loop's bounds name the outer iterator and its tiles stage nothing")
        try:
            if mapping is not None:
                outer_it, inner_it = iterator_name(node), iterator_name(inner)
                bound |= {outer_it, inner_it}
                # One point per work-item: its grid iterators for the whole kernel (a nest's, a
                # hull strip's and a triangle's code name them outside `_at_points`); several:
                # declared at each point (`_at_points`).
                first = [f"  const long t_{outer_it} = __pencilcc_start + __pencilcc_gid;",
                         f"  const long t_{inner_it} = __pencilcc_start0 + __pencilcc_gid0;"] \
                    if mapping.points == (1, 1) else []
                if triangular:
                    # A work-item of the box outside the triangle copies and computes nothing.
                    within = (f"t_{inner_it} >= {printer.expr(inner.for_get_init(), bound, True)} && "
                              f"({printer.condition(inner.for_get_cond(), bound)})")
                body = _tiled_body(mapping, printer, dialect, inner.for_get_body(), bound, (outer_it, inner_it))
                # The direct variant: the same iterations one work-item each, as an untiled
                # two-dimensional kernel runs them (a triangle's box tested by `within`).
                direct_first, direct_body = _one_per_iteration(printer, node, inner, bound)
            elif single:
                first = []
                body = printer.node(node, "  ", bound)
            elif inner is not None:
                bound |= {iterator_name(node), iterator_name(inner)}
                first, body = _one_per_iteration(printer, node, inner, bound)
            else:
                it = iterator_name(node)
                bound.add(it)
                step = printer.expr(node.for_get_inc(), bound)
                first = [f"  const long t_{it} = __pencilcc_start + __pencilcc_gid * {step};"]
                body = printer.node(node.for_get_body(), "  ", bound)
            signature = ", ".join(self._param_decl(p) for p in params)
        except Unprintable as exc:
            raise Unmappable(f"OpenCL C cannot express {exc}") from None
        if reductions:
            lines = _reduction_kernel(name, signature, reductions, first + prologue + body)
        elif mapping is not None:
            locals_ = [f"  __local {opencl_type(a.element)} {a.local_name(k)}[{a.elements}];"
                       for k, stage in enumerate(mapping.stages) for a in stage.arrays]
            g, tile = mapping.group, mapping.tile
            lines = [f"__kernel __attribute__((reqd_work_group_size({g[0]}, {g[1]}, 1)))",
                     f"void {name}({signature})", "{", *locals_,
                     "  const long __pencilcc_gid0 = (long)get_global_id(0);",
                     "  const long __pencilcc_gid = (long)get_global_id(1);",
                     "  const long __pencilcc_l0 = (long)get_local_id(0), __pencilcc_l1 = (long)get_local_id(1);",
                     f"  const int __pencilcc_lid = (int)(__pencilcc_l1 * {g[0]} + __pencilcc_l0);",
                     *first,
                     "  const long t___pcl_s1 = __pencilcc_start, t___pcl_n1 = __pencilcc_trips;",
                     "  const long t___pcl_s0 = __pencilcc_start0, t___pcl_n0 = __pencilcc_trips0;",
                     f"  const long t___pcl_o1 = __pencilcc_start + (long)get_group_id(1) * {tile[1]};",
                     f"  const long t___pcl_o0 = __pencilcc_start0 + (long)get_group_id(0) * {tile[0]};",
                     # The work-item's first point exists (its others follow it a work-group apart).
                     "  const int __pencilcc_active = t___pcl_o1 + __pencilcc_l1 < t___pcl_s1 + t___pcl_n1 && "
                     f"t___pcl_o0 + __pencilcc_l0 < t___pcl_s0 + t___pcl_n0{f' && ({within})' if within else ''};",
                     # A triangle's group whose tile misses it leaves at once: a condition of the
                     # group alone, so all its work-items leave before any barrier, or none.
                     *([f"  if (!{meets})", "    return;"] if meets else []),
                     *prologue, *body, "}", "",
                     *_two_dimensional(f"{name}{DIRECT_SUFFIX}", signature, direct_first +
                                       ([f"  if (!({within}))", "    return;"] if within else []),
                                       prologue, direct_body)]
        elif inner is not None:
            lines = _two_dimensional(name, signature, first, prologue, body)
        else:
            lines = [f"__kernel void {name}({signature})", "{",
                     "  const long __pencilcc_gid = (long)get_global_id(0);",
                     "  if (__pencilcc_gid >= __pencilcc_trips)", "    return;",
                     *first, *prologue, *body, "}", ""]
        kernel = Kernel(name, node, tuple(params), "\n".join(lines), tuple(private), frozenset(statements), single,
                        tuple(reductions), inner, mapping, box,
                        f"{name}{DIRECT_SUFFIX}" if mapping is not None else None)
        self.kernels.append(kernel)
        return kernel

    def _param_decl(self, p: KernelParam) -> str:
        if p.kind == "buffer":
            ctype = p.ctype
            # An array's elements, or the scalar a 'pointer' argument (or a local) is.
            element = ctype.scalar_element() if isinstance(ctype, T.ArrayType) else \
                ctype.pointee if isinstance(ctype, T.PointerType) else ctype
            if not isinstance(element, (T.IntType, T.FloatType)):
                raise Unprintable(f"the array '{p.source}' of '{ctype.spelling()}'")
            if isinstance(element, T.IntType) and element.name == "_Bool":
                raise Unprintable(f"the _Bool array '{p.source}'")
            const = "const " if not p.access & WRITE else ""
            # The host runs the region only when no written array overlaps another
            # (restrict parameters, or the region's alias check): as the CPU target's noalias.
            restrict = "restrict " if self.unit.alias_check is not None or ctype.restrict \
                or p.source in self.locals else ""
            return f"__global {const}{opencl_type(element)} *{restrict}{p.name}"
        if p.kind == "scratch":
            return f"__global {opencl_type(p.ctype.scalar_element())} *restrict {p.name}"
        if p.kind == "partial":
            return f"__global {opencl_type(p.ctype)} *restrict {p.name}"
        if p.kind == "value":
            t = p.ctype
            if isinstance(t, T.IntType) and t.name == "_Bool":
                return f"uchar {p.name}"
            return f"{opencl_type(t)} {p.name}"
        return f"long {p.name}"

    def _named_outside(self, names: set[str], inside: set[str]) -> set[str]:
        """Which of `names` a statement other than those of `inside` (the AST's calls, each
        running its whole statement group) names."""
        inside = inside | {m for leader in inside for m in self.unit.groups.get(leader, ())}
        found: set[str] = set()
        for stmt_name, body in self.unit.statements.items():
            if stmt_name not in inside:
                found.update(node.name for node in descendants(body.body)
                             if isinstance(node, N.VarRef) and node.name in names)
        return found


#: The name of a tiled kernel's direct variant is the kernel's with this suffix (`Kernel.direct`).
DIRECT_SUFFIX = "_direct"


def _one_per_iteration(printer: AstPrinter, node: isl.AstNode, inner: isl.AstNode,
                       bound: set[str]) -> tuple[list[str], list[str]]:
    """The declarations of the two loops' iterators of work-item (gid0, gid) and the body of
    `inner` under them: a two-dimensional kernel's code, one work-item per iteration."""
    outer_it, inner_it = iterator_name(node), iterator_name(inner)
    first = [f"  const long t_{outer_it} = __pencilcc_start + __pencilcc_gid * "
             f"{printer.expr(node.for_get_inc(), bound)};",
             f"  const long t_{inner_it} = __pencilcc_start0 + __pencilcc_gid0 * "
             f"{printer.expr(inner.for_get_inc(), bound)};"]
    return first, printer.node(inner.for_get_body(), "  ", bound)


def _two_dimensional(name: str, signature: str, first: list[str], prologue: list[str],
                     body: list[str]) -> list[str]:
    """A kernel of one work-item per iteration of two loops (dimension 0 the inner one), whose
    work-items past either trip count return at once."""
    return [f"__kernel void {name}({signature})", "{",
            "  const long __pencilcc_gid0 = (long)get_global_id(0);",
            "  const long __pencilcc_gid = (long)get_global_id(1);",
            "  if (__pencilcc_gid >= __pencilcc_trips || __pencilcc_gid0 >= __pencilcc_trips0)",
            "    return;", *first, *prologue, *body, "}", ""]


def root_name(e: N.Expr) -> Optional[str]:
    """The variable an lvalue designates an element of (`A` of `A[i][j]`, `s` of `*s`)."""
    var = base_variable(e)
    return var.name if var is not None else None


def written_names(stmt: N.Stmt) -> set[str]:
    """The variables a statement body assigns to (elements of, for arrays)."""
    return {v.name for s in iter_stmts(stmt) for e in stmt_exprs(s) for v in written_variables(e)}


def _row_dims(t: T.CType) -> list[T.ArrayType]:
    return t.dims()[1:] if isinstance(t, T.ArrayType) else []


def _constant_extents(t: T.ArrayType) -> tuple[Optional[int], list[int]]:
    """(elements, row extents) of an array type of constant extents; (None, []) otherwise."""
    extents = [d.constant_extent for d in t.dims()]
    if any(e is None for e in extents):
        return None, []
    count = 1
    for e in extents:
        count *= e
    return count, extents[1:]


# ---------------------------------------------------------------------------- reductions
#: Work-items per work-group of a reduction kernel (its tree in local memory has as many
#: slots; the kernel says so with reqd_work_group_size and the runtime launches it so), and
#: the most work-groups it is launched with: each work-item strides over the iterations, so
#: the host combines at most GROUPS partial results.
GROUP_SIZE = 64
GROUPS = 256
_TREE_OPERATORS = ("+", "*", "min", "max", "&", "|", "^")


def _on_accumulators(unit: CodegenUnit, reductions: Sequence[LoopReduction]) -> dict[str, StatementBody]:
    """The unit's statements with each reduction's updates writing `acc<k>` for its target."""
    statements = dict(unit.statements)
    for k, r in enumerate(reductions):
        acc = N.VarRef(f"__pencilcc_acc{k}", "local", type=r.target.type)

        def redirect(node: object, target: N.Expr = r.target, acc: N.VarRef = acc) -> object:
            return acc if isinstance(node, N.Expr) and node == target else node

        for name in r.statements:
            if name in statements:
                statements[name] = replace(statements[name], body=transform(statements[name].body, redirect))
    return statements


def _identity(r: LoopReduction) -> str:
    t = r.target.type
    spelled = opencl_type(t)
    if isinstance(t, T.FloatType):
        return {"+": "0.0", "*": "1.0", "min": "INFINITY", "max": "(-INFINITY)"}[r.operator]
    if r.operator == "min":
        return f"(({spelled})({(1 << (t.bits - 1)) - 1 if t.signed else -1}))"
    if r.operator == "max":
        return f"(({spelled})({-(1 << (t.bits - 1)) if t.signed else 0}))"
    return {"+": "0", "*": "1", "&": f"(({spelled})-1)", "|": "0", "^": "0"}[r.operator]


def _operation(r: LoopReduction, lhs: str, rhs: str) -> str:
    """`lhs op rhs` (min and max of floating values as fmin and fmax: what the CPU target's
    llvm.minnum and llvm.maxnum compute)."""
    if r.operator in ("min", "max"):
        prefix = "f" if isinstance(r.target.type, T.FloatType) else ""
        return f"{prefix}{r.operator}({lhs}, {rhs})"
    return f"({lhs} {r.operator} {rhs})"


def _reduction_kernel(name: str, signature: str, reductions: Sequence[LoopReduction],
                      iteration: list[str]) -> list[str]:
    """A kernel whose work-items stride over the iterations with private accumulators, then
    combine them in a tree in local memory (fixed pairing: the result depends only on the
    launch size, which the host fixes from the trip count) and store one result per work-group
    in `partial<k>`; the host combines those in group order (llvm_backend.opencl.host)."""
    lines = [f"__kernel __attribute__((reqd_work_group_size({GROUP_SIZE}, 1, 1)))",
             f"void {name}({signature})", "{"]
    for k, r in enumerate(reductions):
        t = opencl_type(r.target.type)
        lines += [f"  __local {t} __pencilcc_tree{k}[{GROUP_SIZE}];", f"  {t} v___pencilcc_acc{k} = {_identity(r)};"]
    lines += ["  for (long __pencilcc_gid = (long)get_global_id(0); __pencilcc_gid < __pencilcc_trips;",
              "       __pencilcc_gid += (long)get_global_size(0)) {",
              *("  " + line for line in iteration), "  }",
              "  const int __pencilcc_lid = (int)get_local_id(0);"]
    for k in range(len(reductions)):
        lines.append(f"  __pencilcc_tree{k}[__pencilcc_lid] = v___pencilcc_acc{k};")
    lines += ["  barrier(CLK_LOCAL_MEM_FENCE);",
              f"  for (int __pencilcc_s = {GROUP_SIZE // 2}; __pencilcc_s > 0; __pencilcc_s >>= 1) {{",
              "    if (__pencilcc_lid < __pencilcc_s) {"]
    for k, r in enumerate(reductions):
        here, there = f"__pencilcc_tree{k}[__pencilcc_lid]", f"__pencilcc_tree{k}[__pencilcc_lid + __pencilcc_s]"
        lines.append(f"      {here} = {_operation(r, here, there)};")
    lines += ["    }", "    barrier(CLK_LOCAL_MEM_FENCE);", "  }", "  if (__pencilcc_lid == 0) {"]
    for k in range(len(reductions)):
        lines.append(f"    __pencilcc_partial{k}[get_group_id(0)] = __pencilcc_tree{k}[0];")
    return lines + ["  }", "}", ""]


def inner_coincident_loop(loop: isl.AstNode) -> Optional[isl.AstNode]:
    """The for node directly under `loop`'s body mark `coincident` (mark-parallel's second
    member), when its bounds and step do not name `loop`'s iterator (a rectangle of work-items)."""
    inner = triangle.coincident_child(loop)
    if inner is None:
        return None
    outer = iterator_name(loop)
    if any(outer in identifiers(e) for e in (inner.for_get_init(), inner.for_get_cond(), inner.for_get_inc())):
        return None
    return inner



# ---------------------------------------------------------------------------- tiled kernels
def _tiled_body(mapping: TileMapping, printer: AstPrinter, dialect: OpenclDialect, body: isl.AstNode,
                bound: set[str], grid: tuple[str, str]) -> list[str]:
    """The code under the two grid loops of a tiled kernel (tiling.py): every work-item of the
    group reaches the copies and barriers; only active ones (inside the iteration space) compute,
    each at its points (`_at_points`)."""
    whole = [s for s in mapping.stages if not s.loop]
    if whole:
        return _stage_code(whole[0], 0, printer, dialect, body, bound, mapping, grid)
    out: list[str] = []
    while mapping.unmarked and body.get_type() == isl.ast_node_type.mark:
        body = body.mark_get_node()
    children = [body] if body.get_type() != isl.ast_node_type.block else \
        [body.block_get_children().get_at(i) for i in range(body.block_get_children().n_ast_node())]
    for index, child in enumerate(children):
        stage = next((s for s in mapping.stages if s.index == index), None)
        if stage is not None:
            out += _stage_code(stage, mapping.stages.index(stage), printer, dialect, stage.node, bound,
                               mapping, grid)
        else:
            out += ["  if (__pencilcc_active) {",
                    *_at_points(mapping, grid, "    ", lambda indent: printer.node(child, indent, bound)), "  }"]
    return out


def _point_iterator(mapping: TileMapping, grid: tuple[str, str], dim: int) -> str:
    """The declaration of the grid iterator of dimension `dim` (0: the inner loop) at the point
    `__pencilcc_p<dim>` of the work-item: points of one work-item lie a work-group apart, so that
    neighbouring work-items run neighbouring iterations."""
    name = grid[1 - dim]
    return (f"const long t_{name} = t___pcl_o{dim} + __pencilcc_l{dim} + "
            f"(long)__pencilcc_p{dim} * {mapping.group[dim]};")


def _exists(grid: tuple[str, str], dims: Sequence[int]) -> str:
    return " && ".join(f"t_{grid[1 - d]} < t___pcl_s{d} + t___pcl_n{d}" for d in dims)


def _at_points(mapping: TileMapping, grid: tuple[str, str], indent: str,
               code: Callable[[str], list[str]]) -> list[str]:
    """`code(indent)` once per point of the work-item that exists (outer dimension first), with
    the grid iterators of that point declared: unrolled, each point's number a constant (so
    that the private slots of the points are plain registers, whatever the device compiler
    unrolls)."""
    if mapping.points == (1, 1):
        # One point: the work-item's grid iterators are the kernel's own (KernelBuilder's `first`).
        return [f"{indent}{{ const int __pencilcc_p1 = 0, __pencilcc_p0 = 0;", *code(indent + "  "), f"{indent}}}"]
    out = []
    for p1 in range(mapping.points[1]):
        for p0 in range(mapping.points[0]):
            out += [f"{indent}{{ const int __pencilcc_p1 = {p1}, __pencilcc_p0 = {p0};",
                    f"{indent}  {_point_iterator(mapping, grid, 1)}", f"{indent}  {_point_iterator(mapping, grid, 0)}",
                    f"{indent}  if ({_exists(grid, (1, 0))}) {{", *code(indent + "    "), f"{indent}  }}",
                    f"{indent}}}"]
    return out


def _copies(stage: Stage, number: int, dialect: OpenclDialect, indent: str, bound: set[str],
            group: tuple[int, int]) -> list[str]:
    out = []
    for a in stage.arrays:
        local = a.local_name(number)
        volume = 1
        for e in a.extents:
            volume *= e
        out += [f"{indent}const long {local}_o{d} = {o};" for d, o in enumerate(a.offsets)]
        out += [f"{indent}for (int __pencilcc_x = __pencilcc_lid; __pencilcc_x < {volume}; "
                f"__pencilcc_x += {group[0] * group[1]}) {{"]
        # Coordinates by division and a multiply-subtract (never / and % of one operand: LLVM then
        # adds a `freeze` that oclgrind's uninitialised-value checker cannot interpret).
        out.append(f"{indent}  long __pencilcc_q{len(a.extents)} = __pencilcc_x;")
        for d in reversed(range(len(a.extents))):
            here = f"__pencilcc_q{d + 1}"
            out.append(f"{indent}  const long __pencilcc_q{d} = {here} / {a.extents[d]};")
            out.append(f"{indent}  const long __pencilcc_i{d} = {here} - __pencilcc_q{d} * {a.extents[d]};")
            out.append(f"{indent}  const long t___pcl_e{d} = {local}_o{d} + __pencilcc_i{d};")
        saved, dialect.staged = dialect.staged, {}
        source = dialect.subscript(a.root, [f"t___pcl_e{d}" for d in range(len(a.extents))])
        dialect.staged = saved
        offset = f"__pencilcc_q{len(a.extents) - 1} * {a.row} + __pencilcc_i{len(a.extents) - 1}"
        out += [f"{indent}  if ({a.guard})", f"{indent}    {local}[{offset}] = {source};", f"{indent}}}"]
    return out


def _barriers(stage: Stage) -> tuple[list[str], str]:
    """The barrier before a stage (none unless `Stage.fence`) and the one ending each strip."""
    if stage.fence:
        return ["  barrier(CLK_GLOBAL_MEM_FENCE);"], "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);"
    return [], "barrier(CLK_LOCAL_MEM_FENCE);"


def _stage_code(stage: Stage, number: int, printer: AstPrinter, dialect: OpenclDialect, node: isl.AstNode,
                bound: set[str], mapping: TileMapping, grid: tuple[str, str]) -> list[str]:
    group = mapping.group
    if stage.nest is not None:
        return _nest_code(stage, number, printer, dialect, node, bound, group)
    staged = {key: (a, a.local_name(number)) for a in stage.arrays for key in a.keys()}
    if not stage.loop:
        out = _copies(stage, number, dialect, "  ", bound, group)
        out.append("  barrier(CLK_LOCAL_MEM_FENCE);")
        dialect.staged = staged
        try:
            out += ["  if (__pencilcc_active) {",
                    *_at_points(mapping, grid, "    ", lambda indent: printer.node(node, indent, bound)), "  }"]
        finally:
            dialect.staged = {}
        return out
    it = iterator_name(node)
    inner = bound | {it, "__pcl_ok"}
    init = printer.condition(node.for_get_init(), bound)
    cond = f"({printer.condition(node.for_get_cond(), inner)})"
    p0, p1 = mapping.points
    start = "t___pcl_ok"
    if stage.hull is not None:
        # Bounds that name a grid iterator: the group's strips cover the loop's range over the
        # whole tile (tiling._Builder._hull); each work-item runs its own iterations in them
        # (one point per work-item: TileMapping.single_point).
        out = [f"  const long __pencilcc_last{number} = {stage.hull[1]};",
               f"  for (long t___pcl_ok = {stage.hull[0]}; t___pcl_ok <= __pencilcc_last{number}; "
               f"t___pcl_ok += {stage.tile_k}) {{"]
        start = f"max(t___pcl_ok, (long)({init}))"
    else:
        out = [f"  for (long t___pcl_ok = {init}; ; t___pcl_ok += {stage.tile_k}) {{",
               f"    {{ const long t_{it} = t___pcl_ok; if (!{cond}) break; }}"]
    out += _copies(stage, number, dialect, "    ", inner, group)
    out.append("    barrier(CLK_LOCAL_MEM_FENCE);")
    # Elements a work-item alone uses in the loop, one per point: in private variables across it.
    registers = []
    for name, indices, element, root in stage.registers:
        variable = f"__pencilcc_r{number}_{name}"
        saved, dialect.staged = dialect.staged, {}
        source = dialect.subscript(root, indices)
        dialect.staged = saved
        registers.append((name, variable, source, opencl_type(element)))
        staged[name] = (None, f"{variable}[__pencilcc_p1 * {p0} + __pencilcc_p0]")
    before = [f"  {t} {v}[{p0 * p1}];" for _, v, _, t in registers]
    if registers:
        before += ["  if (__pencilcc_active) {", *_at_points(mapping, grid, "    ", lambda indent: [
            f"{indent}{v}[__pencilcc_p1 * {p0} + __pencilcc_p0] = {src};" for _, v, src, _ in registers]), "  }"]
    written = [r for r in registers if r[0] in dialect.written]
    after = ["  if (__pencilcc_active) {", *_at_points(mapping, grid, "    ", lambda indent: [
        f"{indent}{src} = {v}[__pencilcc_p1 * {p0} + __pencilcc_p0];" for _, v, src, _ in written]), "  }"] \
        if written else []
    # Elements of a local copy that a row (column) of the work-item's points all read in one
    # iteration: read once into a private slot per row (column).
    loads = []
    for name, indices, element, root, dim in stage.shared:
        variable = f"__pencilcc_x{number}_{name}"
        dialect.staged = {name: staged[name]}
        try:
            source = dialect.subscript(root, indices)
        finally:
            dialect.staged = {}
        slots = 1 if dim is None else mapping.points[dim]
        # Declared before the loop, as the registers are.
        before.append(f"  {opencl_type(element)} {variable}[{slots}];")
        if dim is None:
            loads.append(f"        {variable}[0] = {source};")
        else:
            for p in range(slots):
                loads += [f"        {{ const int __pencilcc_p{dim} = {p};",
                          f"          {_point_iterator(mapping, grid, dim)}",
                          f"          if ({_exists(grid, (dim,))})", f"            {variable}[{p}] = {source};",
                          "        }"]
        staged[name] = (None, f"{variable}[{0 if dim is None else f'__pencilcc_p{dim}'}]")
    first, end = _barriers(stage)
    out = first + before + out
    dialect.staged = staged
    try:
        out += ["    if (__pencilcc_active) {",
                f"      for (long t_{it} = {start}; t_{it} < t___pcl_ok + {stage.tile_k} && {cond}; t_{it} += 1) {{",
                *loads,
                *_at_points(mapping, grid, "        ", lambda indent: printer.node(node.for_get_body(), indent, inner)),
                "      }", "    }"]
    finally:
        dialect.staged = {}
    out += [f"    {end}", "  }", *after]
    return out


def _nest_code(stage: Stage, number: int, printer: AstPrinter, dialect: OpenclDialect, node: isl.AstNode,
               bound: set[str], group: tuple[int, int]) -> list[str]:
    """A two-deep nest stage (tiling.Nest): for each strip of p, the children before the inner
    loop and the registers' loads for the whole strip; for each strip of s, the copies between
    barriers and the strip of p by the strip of s; then the registers' stores and the children
    after the inner loop for the whole strip of p."""
    nest = stage.nest
    p, s = iterator_name(node), iterator_name(nest.inner)
    outer = bound | {p, "__pcl_op"}
    inner = outer | {s, "__pcl_ok"}
    p_cond = f"({printer.condition(node.for_get_cond(), outer)})"
    s_cond = f"({printer.condition(nest.inner.for_get_cond(), inner)})"
    p_strip = f"for (long t_{p} = t___pcl_op; t_{p} < t___pcl_op + {nest.tile_p} && {p_cond}; t_{p} += 1) {{"
    staged = {key: (a, a.local_name(number)) for a in stage.arrays for key in a.keys()}
    first, end = _barriers(stage)
    out = list(first)
    loads, stores = [], []
    for name, indices, element, root in stage.registers:
        variable = f"__pencilcc_r{number}_{name}"
        saved, dialect.staged = dialect.staged, {}
        source = dialect.subscript(root, indices)
        dialect.staged = saved
        out.append(f"  {opencl_type(element)} {variable}[{nest.tile_p}];")
        here = f"{variable}[t_{p} - t___pcl_op]"
        loads.append(f"        {here} = {source};")
        if name in dialect.written:
            stores.append(f"        {source} = {here};")
        staged[name] = (None, here)
    out += [f"  for (long t___pcl_op = {printer.condition(node.for_get_init(), bound)}; ; "
            f"t___pcl_op += {nest.tile_p}) {{",
            f"    {{ const long t_{p} = t___pcl_op; if (!{p_cond}) break; }}"]
    before = [line for child in nest.before for line in printer.node(child, "        ", outer)] + loads
    if before:
        out += ["    if (__pencilcc_active) {", f"      {p_strip}", *before, "      }", "    }"]
    out += [f"    for (long t___pcl_ok = {printer.condition(nest.inner.for_get_init(), outer)}; ; "
            f"t___pcl_ok += {stage.tile_k}) {{",
            f"      {{ const long t_{s} = t___pcl_ok; if (!{s_cond}) break; }}" if nest.last is None else
            f"      if (!(t___pcl_ok <= {nest.last})) break;"]
    out += _copies(stage, number, dialect, "      ", inner, group)
    out.append("      barrier(CLK_LOCAL_MEM_FENCE);")
    dialect.staged = staged
    try:
        out += ["      if (__pencilcc_active) {", f"        {p_strip}",
                f"          for (long t_{s} = t___pcl_ok; t_{s} < t___pcl_ok + {stage.tile_k} && {s_cond}; "
                f"t_{s} += 1) {{",
                *printer.node(nest.inner.for_get_body(), "            ", inner), "          }", "        }", "      }"]
    finally:
        dialect.staged = {}
    out += [f"      {end}", "    }"]
    after = stores + [line for child in nest.after for line in printer.node(child, "        ", outer)]
    if after:
        out += ["    if (__pencilcc_active) {", f"      {p_strip}", *after, "      }", "    }"]
    return out + ["  }"]
