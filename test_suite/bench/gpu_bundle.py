# SPDX-License-Identifier: MIT
"""``python -m test_suite.bench.gpu_bundle``: the kernels prebuilt for a GPU machine without pencilcc.

A machine with a GPU may have no libclang, islpy or pencilcc, and only a few
minutes to spare.  This builds, here, everything a run there needs into one
folder (``--out``):

- ``bin/LABEL.gcc`` and ``bin/LABEL.pencilcc-opencl``: each kernel
  (``--kernels``, default the 30 PolyBench ones) at ``--dataset``, built as the
  ``gcc`` and ``pencilcc-opencl`` columns of ``python -m test_suite.bench`` build
  it (:func:`test_suite.bench.measure.build`, ``-DPENCILCC_BENCH``), but with
  ``-march=--march`` (default ``x86-64-v3``: the other machine's CPU is not this
  one), and their optimisation records (``*.opt.json``);
- ``bin/cl_devices``: a small C program listing the OpenCL platforms and devices
  (name, type, version, local memory type and size, compute units), from
  ``gpu_devices.c``;
- ``lib/libOpenCL.so.1``: this machine's ICD loader (ocl-icd), which the
  programs ``dlopen`` through ``LD_LIBRARY_PATH``, so that ``OCL_ICD_VENDORS``
  works there whatever loader that machine has;
- ``py/``: the runner, :mod:`test_suite.bench.gpu_runner`, with the two modules it
  uses (:mod:`~test_suite.bench.opencl`, :mod:`~test_suite.bench.checksums`,
  :mod:`~test_suite.bench.machine` and
  its :mod:`~test_suite.e2e.harness`): Python's standard library only;
- ``run.sh`` (``gpu_run.sh``): finds the OpenCL driver there, lists the devices,
  runs the runner; ``OUT=DIR bash run.sh`` writes ``DIR/gpu.json``,
  ``DIR/gpu.md`` and ``DIR/log.txt``;
- ``manifest.json``: the kernels, their sizes, the build commands, the commit, the
  tiled OpenCL kernels of each build (their staged and direct variants' names, from
  the record) and, unless ``--no-reference``, one run here of each gcc build
  (one thread): its seconds and checksums, which the runner compares with
  where its own gcc run fails or is skipped.

Exit status: 0, 1 when a build or reference run failed (the bundle is still
written; the runner reports those kernels as not built), 2 on bad usage.
"""

from __future__ import annotations

import argparse
import ctypes.util
import dataclasses
import datetime
import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Optional, Sequence

from test_suite.bench import compilers as compilers_mod
from test_suite.bench import datasets, measure, opencl
from test_suite.bench.compilers import Compiler
from test_suite.bench.datasets import Kernel

_HERE = Path(__file__).resolve().parent
_REPO = _HERE.parents[1]
#: The modules the runner imports, as paths under the repository (copied to ``py/``).
RUNNER_MODULES: tuple[str, ...] = (
    "test_suite/__init__.py", "test_suite/bench/__init__.py", "test_suite/bench/gpu_runner.py",
    "test_suite/bench/opencl.py", "test_suite/bench/checksums.py", "test_suite/bench/machine.py",
    "test_suite/e2e/__init__.py", "test_suite/e2e/harness.py",
)
#: The columns built, by their names in :mod:`test_suite.bench.compilers`.
COLUMNS: tuple[str, ...] = ("gcc", opencl.NAME)
DEFAULT_MARCH = "x86-64-v3"
#: Where Debian and Ubuntu install ocl-icd's loader.
_LOADER_PATHS = ("/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "/usr/lib64/libOpenCL.so.1", "/usr/lib/libOpenCL.so.1")


def find_loader() -> Optional[Path]:
    """This machine's OpenCL ICD loader (``libOpenCL.so.1``), or None."""
    for path in _LOADER_PATHS:
        if Path(path).exists():
            return Path(path)
    name = ctypes.util.find_library("OpenCL")
    for folder in ("/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"):
        if name and (Path(folder) / name).exists():
            return Path(folder) / name
    return None


def _record_kernels(record: Path) -> list[dict[str, Any]]:
    """The OpenCL kernels (``mapping.kernels`` entries) of every region of a build's optimisation record."""
    try:
        document = json.loads(record.read_text())
    except (OSError, ValueError):
        return []
    return [kernel for region in document.get("regions", [])
            for kernel in (region.get("mapping") or {}).get("kernels", [])]


def opencl_kernel_names(record: Path) -> list[str]:
    """The names of a build's OpenCL kernels (none: every region runs on the host)."""
    return [kernel["name"] for kernel in _record_kernels(record) if kernel.get("name")]


def tiled_kernels(record: Path) -> list[dict[str, str]]:
    """The OpenCL kernels of a build's optimisation record that have a staged and a direct variant:
    ``{"gpu": staged name, "cpu": direct name}`` each (the runtime launches one of the two; an
    untiled kernel's record names itself for both)."""
    found = []
    for kernel in _record_kernels(record):
        variants = kernel.get("variants")
        if variants and variants.get("gpu") and variants.get("cpu") and variants["gpu"] != variants["cpu"]:
            found.append({"gpu": variants["gpu"], "cpu": variants["cpu"]})
    return found


def _git_commit() -> str:
    try:
        proc = subprocess.run(["git", "-C", str(_REPO), "describe", "--always", "--dirty"], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return proc.stdout.strip() or "?"


def build_kernel(kernel: Kernel, dataset: str, columns: list[Compiler], bindir: Path, reference: bool,
                 timeout: float) -> dict[str, Any]:
    """One kernel's builds (and its gcc build's reference run) as a manifest entry."""
    macros = kernel.size_macros(dataset)
    entry: dict[str, Any] = {"label": kernel.label, "macros": list(macros)}
    for compiler in columns:
        key = "gcc" if compiler.name == "gcc" else "opencl"
        built = measure.build(kernel, macros, compiler, bindir)
        if built.error or built.executable is None:
            entry[f"{key}_error"] = built.error
            continue
        entry[key] = str(built.executable.relative_to(bindir.parent))
        entry[f"{key}_compile_s"] = round(built.seconds or 0.0, 3)
        if compiler.opencl:
            record = built.executable.with_name(built.executable.name + ".opt.json")
            entry["opencl_kernels"] = opencl_kernel_names(record)
            entry["tiled_kernels"] = tiled_kernels(record)
            entry["regions_not_optimized"] = list(built.regions_not_optimized)
    if reference and "gcc" in entry:
        run = measure.run(bindir.parent / entry["gcc"], 1, timeout)
        entry["reference"] = ({"error": run.error} if run.error else
                              {"seconds": run.value, "checksums": [dataclasses.asdict(c) for c in run.checksums]})
    return entry


def make_bundle(out: Path, kernels: list[Kernel], dataset: str, march: str, *, reference: bool = True,
                jobs: int = 1, timeout: float = 600.0, progress=print) -> dict[str, Any]:
    """Write the bundle into ``out`` (emptied first); its manifest."""
    loader = find_loader()
    if loader is None:
        raise RuntimeError("no OpenCL ICD loader (libOpenCL.so.1) on this machine: install ocl-icd-libopencl1")
    if out.exists():
        shutil.rmtree(out)
    bindir, libdir = out / "bin", out / "lib"
    for folder in (bindir, libdir, out / "py"):
        folder.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="gpu-bundle-probe-") as scratch:
        columns = compilers_mod.detect(list(COLUMNS), march, Path(scratch), need_platform=False)
    missing = [f"{c.name}: {c.unavailable}" for c in columns if not c.available]
    if missing:
        raise RuntimeError("cannot build: " + "; ".join(missing))
    # The devices lister and the loader.
    proc = subprocess.run(["gcc", "-O2", "-std=c99", "-D_GNU_SOURCE", str(_HERE / "gpu_devices.c"),
                           "-o", str(bindir / "cl_devices"), "-ldl"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"cannot build cl_devices: {proc.stderr.strip()}")
    shutil.copy2(loader.resolve(), libdir / "libOpenCL.so.1")
    for module in RUNNER_MODULES:
        target = out / "py" / module
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(_REPO / module, target)
    shutil.copy2(_HERE / "gpu_run.sh", out / "run.sh")
    (out / "run.sh").chmod(0o755)

    def one(kernel: Kernel) -> dict[str, Any]:
        entry = build_kernel(kernel, dataset, columns, bindir, reference, timeout)
        here = (entry.get("reference") or {}).get("seconds")
        problems = [entry[k] for k in ("gcc_error", "opencl_error") if k in entry]
        problems += [f"reference run: {entry['reference']['error']}"] if "error" in entry.get("reference", {}) else []
        progress(f"  {kernel.label}: " + ("; ".join(p[:200] for p in problems) if problems else
                                          f"built{f', gcc here {here:.3f} s' if here is not None else ''}"))
        return entry

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        entries = list(pool.map(one, kernels))
    manifest = {
        "format": 1,
        "dataset": dataset,
        "march": march,
        "commit": _git_commit(),
        "built_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "gcc_command": [*columns[0].command, *measure.BENCH_CFLAGS],
        "opencl_command": [*columns[1].command, *measure.BENCH_CFLAGS],
        "gcc_version": columns[0].version,
        "pencilcc_version": columns[1].version,
        "icd_loader": str(loader.resolve()),
        "reference_threads": 1,
        "kernels": entries,
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n")
    return manifest


def bundle_size(out: Path) -> int:
    return sum(p.stat().st_size for p in out.rglob("*") if p.is_file())


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m test_suite.bench.gpu_bundle",
        description="Build the kernels, their gcc references, a device lister, the ICD loader and a runner "
                    "into one folder that runs on a GPU machine without pencilcc (OUT=DIR bash FOLDER/run.sh).")
    parser.add_argument("--out", required=True, help="the bundle folder (emptied first)")
    parser.add_argument("--kernels", default="polybench", help="kernels and groups as for test_suite.bench "
                                                               "(default: polybench, the 30 PolyBench kernels)")
    parser.add_argument("--dataset", choices=datasets.DATASETS, default="large", help="sizes (default: large)")
    parser.add_argument("--march", default=DEFAULT_MARCH,
                        help=f"-march of both builds (default {DEFAULT_MARCH}: the GPU machine's CPU is another)")
    parser.add_argument("--no-reference", action="store_true",
                        help="do not run the gcc builds here (no checksums to fall back on there)")
    parser.add_argument("--jobs", type=int, default=1, help="kernels built (and run) at a time here (default 1)")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per reference run (default 600)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    try:
        kernels = datasets.select_kernels(args.kernels)
        for kernel in kernels:
            datasets.check_sizes(kernel, args.dataset)
    except ValueError as exc:
        print(f"gpu_bundle: error: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out).resolve()
    print(f"gpu_bundle: {len(kernels)} kernels at {args.dataset}, -march={args.march}, into {out}", flush=True)
    try:
        manifest = make_bundle(out, kernels, args.dataset, args.march, reference=not args.no_reference,
                               jobs=args.jobs, timeout=args.timeout,
                               progress=lambda text: print(text, flush=True))
    except RuntimeError as exc:
        print(f"gpu_bundle: error: {exc}", file=sys.stderr)
        return 2
    failed = [k["label"] for k in manifest["kernels"]
              if "gcc_error" in k or "opencl_error" in k or "error" in k.get("reference", {})]
    here = [k["reference"]["seconds"] for k in manifest["kernels"] if "seconds" in k.get("reference", {})]
    print(f"gpu_bundle: {bundle_size(out) / 2**20:.1f} MiB; gcc here (one thread, one run each): "
          f"{sum(here):.1f} s in all, {max(here, default=0):.1f} s at most"
          + (f"; FAILED: {', '.join(failed)}" if failed else ""))
    print(f"gpu_bundle: run it there with: OUT=/path/to/results bash {out}/run.sh")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
