# SPDX-License-Identifier: MIT
"""Work-group sizes of a region's kernels given by hand or by the tuner (clangpass.tile_spec).

Input: the kernels `Plan` built for a unit, and the rules of `-fpencil-tile-sizes=` and of the
tuning cache (`CompileOptions.tile_sizes`, `tuned_tile_sizes`). Output: the kernels whose band
a rule names declare `reqd_work_group_size`, which the runtime honours exactly
(runtime/pencilcc_runtime_launch.c; a device that cannot launch that shape runs the loop on
the host, said once), and a `WorkGroupChoice` per kernel for the record.

Bands on this target: the kernels over parallel loops of the region in the order of the code,
reduction kernels excepted (their tree in local memory fixes their work-group: `GROUP_SIZE`)
and so are the kernels of one work-item between them. A band's sizes are outer loop first: a
two-dimensional kernel's `a,b` is a work-group of `b` work-items along dimension 0 (the inner
loop) and `a` along dimension 1. Without a rule the runtime picks the size from the device's
limits (`model`); a rule that gives the outer size only takes `DEFAULT_INNER` for the inner
loop. A two-dimensional kernel's rule may give two sizes more, `a,b,c,d`: its work-items run
`c` points of the outer loop and `d` of the inner one each (a tile of `a*c` x `b*d` iterations
per work-group), where the kernel is tiled (llvm_backend.opencl.tiling; an untiled kernel runs
one point per work-item); `a,b,c` is `a,b,c,1`; without them the tiling's model chooses.

A tiled kernel's direct variant (`Kernel.direct`, what a device whose local memory is global
memory runs: the runtime's pencilcc_cl_mapping) has a work-group of its own: the band's
`direct:` rule (clangpass.tile_spec.DIRECT; work-group sizes only, outer loop first) makes it
declare `reqd_work_group_size` too, which the runtime honours as it does for an untiled kernel
(the global size rounded up to it; the direct kernel's work-items past a trip count return at
once); without one the runtime picks it at launch. The tiled kernel's sizes, for devices with
local memory, stay the band's plain rule's.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence

from clangpass.options import CompileOptions
from clangpass.tile_spec import DIRECT, MODEL, choose
from llvm_backend.opencl.kernels import Kernel

#: The inner size of a two-dimensional kernel whose rule names only the outer one.
DEFAULT_INNER = 16


@dataclass(frozen=True)
class WorkGroupChoice:
    """The work-group of one kernel: OpenCL's order (dimension 0 first), () for the runtime's choice."""

    band: int
    local: tuple[int, ...]
    source: str
    problem: str = ""
    points: tuple[int, ...] = ()     # points per work-item (dimension 0 first), () or a 0: the model's
    # A tiled kernel's direct variant: its work-group (dimension 0 first; (): the runtime's
    # choice), where that came from ('' for a kernel without one), why a rule was not used.
    direct: tuple[int, ...] = ()
    direct_source: str = ""
    direct_problem: str = ""


def is_band(kernel: Kernel) -> bool:
    """Whether `kernel` is a band that tile sizes may name (see the module docstring)."""
    return not kernel.single and not kernel.reductions


def band_choice(options: CompileOptions, label: str, function: str, band: int, members: int) -> WorkGroupChoice:
    """The work-group of band `band` (`members` loops) of region `label` in `function`."""
    # Two-dimensional kernels: two sizes more, the points per work-item (0: the model's).
    default = (DEFAULT_INNER,) * members + ((0,) * members if members == 2 else ())
    pick = choose(options.tile_sizes, options.tuned_tile_sizes, label, function, band, members, default)
    local = () if pick.source == MODEL else tuple(reversed(pick.sizes[:members]))
    # None given: the model's (); the outer one only: one point along the inner loop.
    points = tuple(reversed([p or 1 for p in pick.sizes[members:]])) if any(pick.sizes[members:]) else ()
    return WorkGroupChoice(band, local, pick.source, pick.problem, points)


def direct_choice(options: CompileOptions, label: str, function: str, band: int,
                  members: int) -> tuple[tuple[int, ...], str, str]:
    """The work-group of band `band`'s direct variant (dimension 0 first, (): the runtime's
    choice), where it came from, and why a rule was not used ('')."""
    pick = choose(options.tile_sizes, options.tuned_tile_sizes, label, function, band, members,
                  (DEFAULT_INNER,) * members, DIRECT)
    return (() if pick.source == MODEL else tuple(reversed(pick.sizes))), pick.source, pick.problem


def choose_work_groups(kernels: Sequence[Kernel], options: CompileOptions, label: str,
                       function: str) -> dict[str, WorkGroupChoice]:
    """By kernel name: the work-group of every band among `kernels` (in code order). A tiled
    kernel (llvm_backend.opencl.tiling) was built for its band's choice (`band_choice`, which
    `KernelBuilder` asks) or, without one, for the tiling's own `GROUP`: its entry is the
    work-group it declares, from where the choice came (MODEL: the tiling's default)."""
    chosen: dict[str, WorkGroupChoice] = {}
    for band, kernel in enumerate(k for k in kernels if is_band(k)):
        choice = band_choice(options, label, function, band, kernel.dimensions)
        if kernel.tiling is not None:
            direct, source, problem = direct_choice(options, label, function, band, kernel.dimensions)
            choice = replace(choice, local=tuple(kernel.tiling.group), points=tuple(kernel.tiling.points),
                             direct=direct, direct_source=source, direct_problem=problem)
        chosen[kernel.name] = choice
    return chosen


def _declaring(source: str, name: str, local: tuple[int, ...]) -> str:
    """`source` with its kernel `name` declaring the work-group `local` (dimension 0 first)."""
    header = f"__kernel void {name}("
    if source.count(header) != 1:
        raise ValueError(f"kernel {name} already declares its work-group")
    sizes = ", ".join(map(str, (*local, 1, 1)[:3]))
    return source.replace(header, f"__kernel __attribute__((reqd_work_group_size({sizes}))) void {name}(")


def with_work_group(kernel: Kernel, local: tuple[int, ...]) -> Kernel:
    """`kernel` declaring the work-group `local` (dimension 0 first); unchanged for ()."""
    return replace(kernel, source=_declaring(kernel.source, kernel.name, local)) if local else kernel


def with_direct_work_group(kernel: Kernel, local: tuple[int, ...]) -> Kernel:
    """A tiled `kernel` whose direct variant declares the work-group `local`; unchanged for ()."""
    if not local or kernel.direct is None:
        return kernel
    return replace(kernel, source=_declaring(kernel.source, kernel.direct, local))


def apply(kernels: Sequence[Kernel], choices: dict[str, WorkGroupChoice]) -> dict[str, Kernel]:
    """By kernel name: `kernels` with the work-groups `choices` give them (a tiled kernel
    already declares its own, which `choose_work_groups` reports; its direct variant takes
    the choice's `direct`)."""
    sized = {}
    for k in kernels:
        choice = choices.get(k.name)
        if choice is None:
            sized[k.name] = k
        elif k.tiling is None:
            sized[k.name] = with_work_group(k, choice.local)
        else:
            sized[k.name] = with_direct_work_group(k, choice.direct)
    return sized


def record_fields(choice: Optional[WorkGroupChoice], work_items: str) -> dict:
    """A kernel's `work_group` (dimension 0 first, or None: the runtime's), `work_group_from`, and
    its record's `work_items` phrase with the work-group it declares."""
    # A tiled kernel's direct variant: its work-group (None: the runtime's) and from where.
    direct = {"direct_work_group": list(choice.direct) if choice is not None and choice.direct else None,
              "direct_work_group_from": choice.direct_source if choice is not None else ""}
    if choice is None or not choice.local:
        return {"work_items": work_items, "work_group": None, "work_group_from": choice.source if choice else "",
                **direct}
    shape = "x".join(map(str, choice.local))
    return {"work_items": f"{work_items.split(';')[0]}; work-groups of {shape} ({choice.source})",
            "work_group": list(choice.local), "work_group_from": choice.source, **direct}
