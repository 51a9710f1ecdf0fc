# SPDX-License-Identifier: MIT
"""The OpenCL target: parallel loops as OpenCL C kernels, the rest of each region on the host.

Input: the `CodegenUnit`s of one translation unit. Output: the same host object as
the CPU target (`llvm_backend.cpu`: llvmlite, LLVM's pipeline, the C ABI of
`clangpass.regions`), in which every outermost parallel loop that `kernels` can
express is a launch through the C runtime (runtime/, whose files `runtime` lists, linked
by `link_flags`), with the loop's CPU code kept for a machine without a device
(`host`). The kernels of a region form one OpenCL program, embedded as a string and
built by the runtime on first use (and cached on disk).

Pipeline: the CPU target's up to `mark-parallel`, without tiling, wavefronts, thread
teams or register tiles: a kernel maps the iterations of the outermost parallel
loop to work-items, so that loop must be the point loop (a tile loop would give one
work-item per tile): `llvm_backend.opencl.pipeline`. Its traits tell the passes so
(an innermost parallel loop is a kernel, two coincident loops a two-dimensional one,
the data moves to a device).

Device-aware kernels: a tiled kernel (tiling.py: tiles in `__local` memory, barriers, fixed
work-groups, several points per work-item) is the mapping for devices with local memory
(GPUs, oclgrind); on a device whose local memory is global memory (CPU devices such as PoCL)
those copies and barriers only cost, so its program also holds a direct variant
(`Kernel.direct`: one work-item per iteration, as an untiled kernel), and the host code asks
the runtime which to launch (`pencilcc_cl_mapping`; PENCILCC_OPENCL_MAPPING=gpu|cpu|auto).

The record (`mapping`): per region, its kernels (name, dimensions, private arrays, the kernel
each mapping launches: `variants`) and each parallel loop left on the host with the reason.
"""
from __future__ import annotations

from pathlib import Path
from typing import Sequence

from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.poly.privatization import source_variable
from clangpass.targets import Artifact, Output, TargetTraits
from llvm_backend.cpu import CpuTarget, runtime_link_flags
from llvm_backend.cpu.context import FunctionState
from llvm_backend.cpu.lower_ast import AstLowering
from llvm_backend.cpu.lower_region import MakeLowering
from llvm_backend.opencl.host import HostLowering, Plan
from llvm_backend.opencl import pipeline as pipelines
from llvm_backend.opencl.kernels import GROUP_SIZE, GROUPS, Kernel, program_source
from llvm_backend.opencl import runtime, work_groups
from clangpass.tile_spec import summary

__all__ = ["TARGET", "OpenclTarget", "mapping"]


def mapping(unit: CodegenUnit, options: CompileOptions) -> dict:
    """How `unit` maps onto the device (plain values, for the optimisation record)."""
    plan = Plan(unit, options.parallel, options)
    used = {p.source for k in plan.kernels for p in k.params if p.kind == "buffer"}
    local_buffers = used & {d.name for d in unit.locals}
    buffers = used - local_buffers
    return {
        "kernels": [_with_work_group(_kernel_record(k), plan.work_groups.get(k.name)) for k in plan.kernels],
        # Where the work-group sizes came from (clangpass.tile_spec: model is the runtime's
        # choice) and the given sizes that did not fit a kernel.
        "tile_sizes_from": summary([c.source for c in plan.work_groups.values()]),
        "tile_size_problems": [p for c in plan.work_groups.values() for p in (c.problem, c.direct_problem) if p],
        # The same for the direct variants of tiled kernels ('' when the region has none):
        # `direct:` rules (clangpass.tile_spec), what pencilcc-tune chose for the cpu mapping.
        "direct_tile_sizes_from": summary([c.direct_source for c in plan.work_groups.values() if c.direct_source]),
        "host_loops": [why for _, k, why in plan.loops if k is None],
        "buffers": sorted(buffers),
        "local_buffers": sorted(local_buffers),   # region locals kernels read or write in device memory
        # Dead data the region does not copy (clangpass.poly.live_ranges: killed or overwritten
        # before it is read / left dead).
        "not_copied_in": sorted(buffers & unit.entry_dead),
        "not_copied_back": sorted(buffers & unit.exit_dead),
    }


def _with_work_group(record: dict, choice) -> dict:
    return {**record, **work_groups.record_fields(choice, record["work_items"])}


def _kernel_record(k: Kernel) -> dict:
    if k.single:
        work = "one work-item (sequential code between kernels)"
    elif k.reductions:
        work = f"{GROUP_SIZE} work-items per group, at most {GROUPS} groups striding over the iterations"
    else:
        work = "one work-item per iteration; group size from the device's limits (runtime)"
    if k.inner is not None:
        work = ("one work-item per iteration of the two loops (dimension 0 the inner one); "
                "group shape from the device's limits (runtime)")
    local = [f"__pencilcc_tree{i}[{GROUP_SIZE}]" for i in range(len(k.reductions))]
    tiling = None
    if k.tiling is not None:
        group, tile, points = k.tiling.group, k.tiling.tile, k.tiling.points
        each = "one work-item per point" if points == (1, 1) else \
            f"{points[0]} x {points[1]} points per work-item, a work-group apart"
        work = (f"tiles of {tile[0]} x {tile[1]} iterations to work-groups (dimension 0 the inner "
                f"loop), {each}")
        local += [f"{a.local_name(n)}[{a.elements}]" for n, s in enumerate(k.tiling.stages) for a in s.arrays]
        tiling = {"work_group": list(group), "local_bytes": k.tiling.local_bytes,
                  "points_per_work_item": list(points), "tile": list(tile),
                  "stages": [{"strip": s.tile_k if s.loop else None,
                              # a two-deep nest's outer strip (tiling.Nest; None: one loop strip-mined)
                              "outer_strip": s.nest.tile_p if s.nest is not None else None,
                              "local_arrays": [{"array": a.name, "box": list(a.extents), "padded_row": a.row}
                                               for a in s.arrays],
                              "private_elements": [r[0] for r in s.registers],
                              "private_shared_reads": [r[0] for r in s.shared]} for s in k.tiling.stages]}
    return {"name": k.name, "dimensions": k.dimensions, "work_items": work, "tiling": tiling,
            # The kernel each PENCILCC_OPENCL_MAPPING launches (the runtime's pencilcc_cl_mapping;
            # auto: cpu on a device whose local memory is global memory, gpu otherwise): a tiled
            # kernel's staged self on gpu, its direct variant on cpu; one kernel for both otherwise.
            "variants": {"gpu": k.name, "cpu": k.direct or k.name},
            "local_memory": local,
            "private_arrays": list(k.private_arrays),
            # The same arrays as the source names them (a privatized array's private copy is
            # `private_arrays`' `__pencil_private_C`, here 'C').
            "source_private_arrays": [source_variable(name) for name in k.private_arrays],
            "reductions": [{"variable": r.variable, "operator": r.operator} for r in k.reductions]}


def _host_lowering(options: CompileOptions) -> MakeLowering:
    def make(state: FunctionState, unit: CodegenUnit) -> AstLowering:
        return HostLowering(state, unit, Plan(unit, options.parallel, options))
    return make


class OpenclTarget(CpuTarget):
    """OpenCL devices through pencilcc's runtime: the compile core's `opencl` target."""

    name = "opencl"
    # Kernels: an innermost parallel loop is one, two coincident loops make a two-dimensional
    # one, and the data moves to the device and back.
    traits = TargetTraits(innermost_parallel=True, coincident_pairs=True, device_data=True, exact_reductions=False)

    def pipeline(self, opt_level: int) -> Sequence[str]:
        return pipelines.pipeline(opt_level)

    def lowering(self, options: CompileOptions) -> MakeLowering:
        return _host_lowering(options)

    def emit(self, units: Sequence[CodegenUnit], options: CompileOptions, output: Output,
             module_name: str, dumps: DumpSink) -> Artifact:
        if dumps.wants("opencl"):
            for unit in units:
                plan = Plan(unit, options.parallel, options)
                if plan.loops:
                    notes = "".join(f"// on the host: {why}\n" for _, k, why in plan.loops if k is None)
                    dumps.emit("opencl", unit.region.label, "opencl-kernels", notes + program_source(plan.kernels, options.fp_contract))
        return super().emit(units, options, output, module_name, dumps)

    def mappings(self, units: Sequence[CodegenUnit], options: CompileOptions) -> dict[str, dict]:
        return {u.region.symbol: mapping(u, options) for u in units}

    def link_flags(self, units: Sequence[CodegenUnit], options: CompileOptions) -> tuple[str, ...]:
        flags = [f for f in runtime_link_flags(units, options) if f != "-fopenmp"]
        if any(Plan(u, options.parallel, options).kernels for u in units):
            flags += runtime.runtime_flags()
        return tuple(flags)

    def runtime_flags(self) -> tuple[str, ...]:
        """What a link adds for objects of this target that launch kernels, whatever their
        units: the runtime's sources and libraries (`llvm_backend.opencl.runtime`). The driver
        asks for it when it links objects built earlier and for `--show-cc-args=LIBS`."""
        return tuple(runtime.runtime_flags())

    def code_roots(self) -> tuple[Path, ...]:
        """The CPU target's (its host side is built on it), this package and the C runtime
        that links of its programs compile (runtime/)."""
        return (*super().code_roots(), Path(__file__).resolve().parent, runtime.runtime_dir())


TARGET = OpenclTarget()
