# SPDX-License-Identifier: MIT
"""Benchmark kernels and their problem sizes, per dataset.

Input: the kernel programs of ``test_suite/kernels`` (the 30 PolyBench-style
programs and their PENCIL variants), whose sizes are ``#ifndef`` macros.
Output: :class:`Kernel` values and the ``-D`` macros of a dataset.

Datasets:

- ``mini``: no ``-D`` at all, the programs' own small defaults (what the
  correctness tests run); for ``--callgrind`` and smoke runs;
- ``small``: about an eighth of ``medium``'s work (tens of milliseconds);
- ``medium`` (the default): chosen so that each kernel call takes roughly
  0.2-2 s with ``gcc -O3 -march=native`` on one core of the 2-core AMD EPYC
  machine of ``docs/benchmarks.md``; the memory-bound matrix-vector kernels
  (atax, bicg, gesummv, mvt, trisolv) stop near 0.1 s, their matrices already
  being 0.5-0.8 GB;
- ``large``: PolyBench/C 4.2.1's ``LARGE_DATASET`` sizes (some kernels run
  10 s and more there).

A PENCIL variant (``pencil/gemm``) uses the sizes of its PolyBench twin, whose
macro names it shares.

The ``memory`` group (issue 26, item 7) holds the value-style programs of the
memory passes (reuse-in-place, contract-arrays): ``memory/lu_ssa``,
``memory/nw_diag``, ``memory/plane_fold`` (test_suite/kernels/value_style) and
``memory/jacobi_1d_expanded``, ``memory/stencil_2d_expanded``,
``memory/image_pipeline`` (test_suite/kernels/memory).  Their ``medium`` sizes
are the programs' own ``-DBENCH`` sizes, where ``gcc -O3`` takes about 1-3 s
(the issue's benchmark sizes); ``small`` is about an eighth of that work,
``large`` about twice (there is no PolyBench size for them).  They include
``<pencil.h>``: their builds get ``-I include``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from test_suite.e2e import harness
from test_suite.kernels import loop_orders

DATASETS: tuple[str, ...] = ("mini", "small", "medium", "large")
DEFAULT_DATASET = "medium"

#: The kernels of a run without ``--kernels``: two per PolyBench category and
#: the kinds of code a polyhedral compiler treats differently (matrix
#: products, a 3-D contraction, memory-bound matrix-vector sweeps, a
#: triangular factorisation, a reduction over observations, integer
#: dynamic programming, Jacobi and Gauss-Seidel stencils).  A default run of
#: these 12 with five compilers and three repetitions takes 3-4 minutes.
DEFAULT_KERNELS: tuple[str, ...] = (
    "gemm", "2mm", "syr2k", "doitgen", "mvt", "gemver",
    "lu", "covariance", "floyd-warshall", "jacobi-2d", "heat-3d", "seidel-2d",
)

#: Kernel groups accepted by ``--kernels`` besides kernel names.
GROUPS: tuple[str, ...] = ("default", "all", "polybench", "pencil", "3ac", "pre", "order", "memory")
#: The ``memory`` group: value-style programs of the memory passes, by folder of test_suite/kernels.
MEMORY_KERNELS: dict[str, tuple[str, ...]] = {
    "value_style": ("lu_ssa", "nw_diag", "plane_fold"),
    "memory": ("jacobi_1d_expanded", "stencil_2d_expanded", "image_pipeline"),
}
#: Label prefix of the ``memory`` group's kernels (``memory/lu_ssa``).
MEMORY_GROUP = "memory"
#: Flags of the ``memory`` group's builds: their programs include ``<pencil.h>``.
MEMORY_CFLAGS: tuple[str, ...] = (f"-I{harness.REPO_ROOT / 'include'}",)
#: Folders of the generated three-address and PRE variants (test_suite/kernels/variants.py), by group.
VARIANT_DIRS: dict[str, Path] = {
    form: harness.REPO_ROOT / "test_suite" / "kernels" / "three_address" / f"polybench_{form}" for form in ("3ac", "pre")}
#: The ``order`` group: loop-order variants (test_suite/kernels/loop_orders.py), labels ``order/<kernel>.<order>``.
ORDER_GROUP = loop_orders.GROUP
ORDER_DIR: Path = loop_orders.ORDER_DIR

#: ``-D`` macros per dataset and PolyBench kernel (``mini`` has none).
SIZES: dict[str, dict[str, str]] = {
    "small": {
        "2mm": "NI=500 NJ=550 NK=600 NL=650",
        "3mm": "NI=400 NJ=450 NK=500 NL=550 NM=600",
        "adi": "TSTEPS=20 N=500",
        "atax": "M=2000 N=2500",
        "bicg": "M=2500 N=2000",
        "cholesky": "N=800",
        "correlation": "M=600 N=700",
        "covariance": "M=400 N=500",
        "deriche": "W=2048 H=1080",
        "doitgen": "NR=110 NQ=100 NP=120",
        "durbin": "N=5000",
        "fdtd-2d": "TMAX=100 NX=500 NY=600",
        "floyd-warshall": "N=500",
        "gemm": "NI=600 NJ=650 NK=700",
        "gemver": "N=2000",
        "gesummv": "N=2000",
        "gramschmidt": "M=400 N=400",
        "heat-3d": "TSTEPS=100 N=60",
        "jacobi-1d": "TSTEPS=500 N=100000",
        "jacobi-2d": "TSTEPS=100 N=650",
        "lu": "N=650",
        "ludcmp": "N=650",
        "mvt": "N=2000",
        "nussinov": "N=800",
        "seidel-2d": "TSTEPS=50 N=500",
        "spmv": "N=200000 DEG=16 TSTEPS=5",
        "symm": "M=400 N=500",
        "syr2k": "M=400 N=500",
        "syrk": "M=600 N=750",
        "trisolv": "N=2500",
        "trmm": "M=400 N=500",
        # The memory group: about an eighth of medium's work.
        "lu_ssa": "N=350",
        "nw_diag": "N=450 M=450",
        "plane_fold": "P=64 N=512 M=512",
        "jacobi_1d_expanded": "TSTEPS=750 N=20000",
        "stencil_2d_expanded": "TSTEPS=75 N=500 M=500",
        "image_pipeline": "H=2100 W=2100",
    },
    "medium": {
        "2mm": "NI=900 NJ=1000 NK=1100 NL=1200",
        "3mm": "NI=800 NJ=900 NK=1000 NL=1100 NM=1200",
        "adi": "TSTEPS=40 N=1000",
        "atax": "M=8000 N=9000",
        "bicg": "M=9000 N=8000",
        "cholesky": "N=1600",
        "correlation": "M=1200 N=1400",
        "covariance": "M=800 N=1000",
        "deriche": "W=4096 H=2160",
        "doitgen": "NR=220 NQ=200 NP=240",
        "durbin": "N=20000",
        "fdtd-2d": "TMAX=250 NX=1000 NY=1200",
        "floyd-warshall": "N=1000",
        "gemm": "NI=1200 NJ=1300 NK=1400",
        "gemver": "N=8000",
        "gesummv": "N=7000",
        "gramschmidt": "M=800 N=800",
        "heat-3d": "TSTEPS=200 N=120",
        "jacobi-1d": "TSTEPS=1000 N=400000",
        "jacobi-2d": "TSTEPS=250 N=1300",
        "lu": "N=1300",
        "ludcmp": "N=1300",
        "mvt": "N=8000",
        "nussinov": "N=1600",
        "seidel-2d": "TSTEPS=100 N=1000",
        "spmv": "N=500000 DEG=32 TSTEPS=10",
        "symm": "M=800 N=1000",
        "syr2k": "M=800 N=1000",
        "syrk": "M=1200 N=1500",
        "trisolv": "N=10000",
        "trmm": "M=800 N=1000",
        # The memory group: the programs' -DBENCH sizes (gcc -O3 about 1-3 s).
        "lu_ssa": "N=700",
        "nw_diag": "N=900 M=900",
        "plane_fold": "P=512 N=512 M=512",
        "jacobi_1d_expanded": "TSTEPS=3000 N=40000",
        "stencil_2d_expanded": "TSTEPS=150 N=1000 M=1000",
        "image_pipeline": "H=6000 W=6000",
    },
    "large": {
        "2mm": "NI=800 NJ=900 NK=1100 NL=1200",
        "3mm": "NI=800 NJ=900 NK=1000 NL=1100 NM=1200",
        "adi": "TSTEPS=500 N=1000",
        "atax": "M=1900 N=2100",
        "bicg": "M=1900 N=2100",
        "cholesky": "N=2000",
        "correlation": "M=1200 N=1400",
        "covariance": "M=1200 N=1400",
        "deriche": "W=4096 H=2160",
        "doitgen": "NR=150 NQ=140 NP=160",
        "durbin": "N=2000",
        "fdtd-2d": "TMAX=500 NX=1000 NY=1200",
        "floyd-warshall": "N=2800",
        "gemm": "NI=1000 NJ=1100 NK=1200",
        "gemver": "N=2000",
        "gesummv": "N=1300",
        # PolyBench's LARGE is M=1000 N=1200: 1200 columns in a 1000-dimensional space, so from
        # column 1000 on the norms are 0 and every build computes NaN (no checksum can compare).
        # The transposed shape has the same work and a full-rank matrix.
        "gramschmidt": "M=1200 N=1000",
        "heat-3d": "TSTEPS=500 N=120",
        "jacobi-1d": "TSTEPS=500 N=2000",
        "jacobi-2d": "TSTEPS=500 N=1300",
        "lu": "N=2000",
        "ludcmp": "N=2000",
        "mvt": "N=2000",
        "nussinov": "N=2500",
        "seidel-2d": "TSTEPS=500 N=2000",
        "spmv": "N=1000000 DEG=32 TSTEPS=20",
        "symm": "M=1000 N=1200",
        "syr2k": "M=1000 N=1200",
        "syrk": "M=1000 N=1200",
        "trisolv": "N=2000",
        "trmm": "M=1000 N=1200",
        # The memory group: about twice medium's work (there is no PolyBench LARGE for them).
        "lu_ssa": "N=880",
        "nw_diag": "N=1130 M=1130",
        "plane_fold": "P=1024 N=512 M=512",
        "jacobi_1d_expanded": "TSTEPS=6000 N=40000",
        "stencil_2d_expanded": "TSTEPS=300 N=1000 M=1000",
        "image_pipeline": "H=8500 W=8500",
    },
}

_SIZE_MACRO_RE = re.compile(r"^#\s*ifndef\s+(\w+)\s*$", re.MULTILINE)
#: ``#ifndef NAME`` / ``# define NAME VALUE``: a size macro with its default.
_SIZE_DEFAULT_RE = re.compile(r"^#\s*ifndef\s+(\w+)\s*\n#\s*define\s+\1\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class Kernel:
    """One benchmark program: ``gemm`` (PolyBench) or ``pencil/gemm`` (PENCIL variant)."""

    label: str
    source: Path
    #: The key of its sizes in :data:`SIZES`: the PolyBench kernel whose sizes it uses (its own
    #: name, or its twin's); a memory-group program's own name.
    polybench_name: str
    #: Flags its builds need besides the benchmark's (the memory group's ``-I include``).
    cflags: tuple[str, ...] = ()

    def size_macros(self, dataset: str) -> tuple[str, ...]:
        """The ``NAME=VALUE`` macros of ``dataset`` (empty for ``mini``)."""
        if dataset == "mini":
            return ()
        return tuple(SIZES[dataset][self.polybench_name].split())

    def size_values(self, dataset: str) -> dict[str, int]:
        """Every size macro's value at ``dataset``: the program's defaults, overridden by the dataset's."""
        values = {name: int(value) for name, value in _SIZE_DEFAULT_RE.findall(self.source.read_text())}
        for macro in self.size_macros(dataset):
            name, _, value = macro.partition("=")
            values[name] = int(value)
        return values

    def size_macro_names(self) -> frozenset[str]:
        """The size macros the program declares (its ``#ifndef NAME`` lines)."""
        return frozenset(_SIZE_MACRO_RE.findall(self.source.read_text()))


def all_kernels() -> list[Kernel]:
    """Every benchmark program: the 30 PolyBench kernels, the PENCIL variants, the 3AC and PRE
    variants (`3ac/NAME`, `pre/NAME`, test_suite/kernels/variants.py), the loop-order variants
    (`order/NAME.ORDER`, test_suite/kernels/loop_orders.py), each with its original's sizes,
    then the memory group (`memory/NAME`)."""
    kernels = [Kernel(p.stem, p, p.stem) for p in harness.polybench_sources()]
    kernels += [Kernel(f"pencil/{p.stem}", p, p.stem) for p in harness.pencil_sources()]
    kernels += [Kernel(f"{form}/{p.stem}", p, p.stem) for form, folder in VARIANT_DIRS.items()
                for p in sorted(folder.glob("*.c"))]
    kernels += [Kernel(f"{ORDER_GROUP}/{p.stem}", p, loop_orders.kernel_of(p.stem)) for p in sorted(ORDER_DIR.glob("*.c"))]
    kernels += [Kernel(f"{MEMORY_GROUP}/{name}", harness.KERNELS_DIR / folder / f"{name}.c", name, MEMORY_CFLAGS)
                for folder, names in MEMORY_KERNELS.items() for name in names]
    return kernels


#: Label prefix of the image kernels (test_suite/kernels/image): self-checking programs without
#: ``-DPENCILCC_BENCH`` timers, only for ``--oclgrind`` (counts, not times), at their own sizes.
IMAGE_GROUP = "image"
#: The kernels of an ``--oclgrind`` run without ``--kernels`` (issue 27's list; its conv2d is the
#: image suite's general 2-D convolution, ``image/filter2d``).
OCLGRIND_KERNELS: tuple[str, ...] = ("gemm", "2mm", "3mm", "syrk", "syr2k", "symm", "jacobi-2d", "heat-3d",
                                     "image/filter2d", "doitgen")


def image_kernels() -> list[Kernel]:
    """The image kernels as ``image/NAME`` (``--oclgrind`` only; ``mini``: their own sizes)."""
    return [Kernel(f"{IMAGE_GROUP}/{p.stem}", p, p.stem, MEMORY_CFLAGS)
            for p in sorted((harness.KERNELS_DIR / "image").glob("*.c"))]


def is_image_kernel(kernel: Kernel) -> bool:
    return kernel.label.startswith(f"{IMAGE_GROUP}/")


def select_kernels(spec: str, images: bool = False) -> list[Kernel]:
    """The kernels named by ``--kernels``: a comma list of labels and groups, in order
    (with ``images``, also ``image/NAME`` and the group ``image``).

    Raises :class:`ValueError` for an unknown name.
    """
    known = {k.label: k for k in [*all_kernels(), *(image_kernels() if images else [])]}
    chosen: dict[str, Kernel] = {}
    for item in (part.strip() for part in spec.split(",")):
        if not item:
            continue
        if item == "default":
            labels = list(DEFAULT_KERNELS)
        elif item == "all":
            labels = [label for label in known
                      if label.split("/")[0] not in (*VARIANT_DIRS, ORDER_GROUP, MEMORY_GROUP)]
        elif item == "polybench":
            labels = [label for label in known if "/" not in label]
        elif item in ("pencil", *VARIANT_DIRS, ORDER_GROUP, MEMORY_GROUP, *((IMAGE_GROUP,) if images else ())):
            labels = [label for label in known if label.startswith(f"{item}/")]
        elif item in known:
            labels = [item]
        else:
            raise ValueError(f"unknown kernel {item!r} (kernels: {', '.join(known)}; "
                             f"groups: {', '.join(GROUPS)})")
        for label in labels:
            chosen.setdefault(label, known[label])
    return list(chosen.values())


def check_sizes(kernel: Kernel, dataset: str) -> None:
    """Raise :class:`ValueError` if ``dataset`` sets a macro the program does not declare.

    A misspelt macro would silently leave the program at its default size.
    """
    if is_image_kernel(kernel) and dataset != "mini":
        raise ValueError(f"{kernel.label}: an image kernel runs only at its own sizes (--dataset mini)")
    declared = kernel.size_macro_names()
    unknown = [m for m in kernel.size_macros(dataset) if m.split("=", 1)[0] not in declared]
    if unknown:
        raise ValueError(f"{kernel.label}: dataset {dataset} sets {' '.join(unknown)}, "
                         f"but the program declares only {' '.join(sorted(declared))}")


def is_memory_kernel(kernel: Kernel) -> bool:
    """Whether ``kernel`` belongs to the ``memory`` group (peak RSS table, ``pencilcc-memory-none``)."""
    return kernel.label.startswith(f"{MEMORY_GROUP}/")
