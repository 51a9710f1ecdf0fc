# SPDX-License-Identifier: MIT
"""Every kernel of the suite's OpenCL build, checked by oclgrind's simulated device.

Each PolyBench-style, PENCIL and image kernel (test_opencl_target.py's list) is built with
`-O3 -fpencil-target=opencl` at its own (smallest) sizes and run on oclgrind
(test_suite.bench.oclgrind: its ICD as the only platform) with its data-race detection
and uninitialised-value checks on; its out-of-bounds check is always on. A kernel passes
when oclgrind reports nothing, the runtime ran every region on the device (no "runs on
the CPU" message) and the output is gcc -O0's (the same comparison as on PoCL).
Also checked: that several points per work-item (the device's register tiling) cut
jacobi-2d's global loads at least 4x against one load per access, and gemm's local loads by
half, against one point per work-item; and that oclgrind's checks fire on this route at all (a racy, an out-of-bounds
and an uninitialised kernel, each reported), so a silent pass means something.
The module is skipped where oclgrind or its ICD library is not installed.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from llvm_backend.opencl.kernels import DIRECT_SUFFIX
from test_suite.bench import oclgrind
from test_suite.e2e import harness
from test_suite.e2e.test_opencl_target import IMAGE_DIR, INCLUDE, KERNELS, PENCILCC, _id, _reference

pytestmark = pytest.mark.skipif(bool(oclgrind.problem()), reason=oclgrind.problem() or "oclgrind present")

TIMEOUT_S = 600
# Time loops cut to 2 steps: the same kernels, each launch checked, a tenth of the simulation
# (heat-3d took 5 minutes at its 10 steps with the checks on, on a loaded 2-core machine).
STEPS = {"adi": "TSTEPS=2", "fdtd-2d": "TMAX=2", "heat-3d": "TSTEPS=2", "jacobi-1d": "TSTEPS=2",
         "jacobi-2d": "TSTEPS=2", "seidel-2d": "TSTEPS=2"}


def _defines(source: Path) -> list[str]:
    return [STEPS[source.stem]] if source.stem in STEPS and source.parent != IMAGE_DIR else []


def _build(source: Path, workdir: Path) -> Path:
    exe = workdir / _id(source).replace("/", "-")
    flags = [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl", *(f"-D{d}" for d in _defines(source))]
    if source.parent == IMAGE_DIR:
        flags.append(f"-I{INCLUDE}")
    harness.build(PENCILCC, [source], exe, flags, env={"PENCILCC_NO_CACHE": "1"})
    return exe


@pytest.fixture(scope="module")
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    workdir = tmp_path_factory.mktemp("oclgrind_kernels")
    pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
    # Only the kernels this session selected (-k) are built, all started at once.
    selected = {_id(item.callspec.params["source"]) for item in request.session.items
                if getattr(item, "module", None) is request.module and hasattr(item, "callspec")
                and "source" in item.callspec.params}
    futures = {_id(s): pool.submit(_build, s, workdir) for s in KERNELS if _id(s) in selected}
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("source", [pytest.param(s, id=_id(s)) for s in KERNELS])
def test_kernel_is_clean_on_oclgrind(source: Path, built, tmp_path: Path) -> None:
    exe = built[_id(source)].result()
    started = time.perf_counter()
    stdout, stderr, status = oclgrind.run_program(exe, tmp_path / "oclgrind", TIMEOUT_S, checks=True)
    seconds = time.perf_counter() - started
    assert status == 0, stderr[-2000:]
    errors = oclgrind.parse_errors(stderr)
    assert errors == [], "\n".join(errors[:10])
    assert "run on the CPU" not in stderr and "runs on the CPU" not in stderr, stderr
    _assert_staged(stderr, kernels=source.stem not in HOST_ONLY)
    reference = _reference(source, tmp_path) if not _defines(source) else \
        harness.gcc_reference(source, tmp_path, _defines(source))
    if source.parent == IMAGE_DIR:
        assert stdout == reference
    else:
        problems = harness.compare_outputs(reference, stdout, rtol=1e-9)
        assert problems == [], "; ".join(problems)
    print(f"{_id(source)}: {seconds:.1f} s on oclgrind")


# Kernels of the suite whose OpenCL builds launch no kernel (their regions' loops stay on the
# host with a reason in the record's host_loops: cholesky's and nussinov's and seidel-2d's sweeps).
HOST_ONLY = frozenset({"cholesky", "nussinov", "seidel-2d"})


def _assert_staged(stderr: str, kernels: bool = True) -> None:
    """oclgrind's local memory is CL_LOCAL: the runtime launched the tiled kernels themselves,
    never their direct variants (`<name>_direct`, for devices whose local memory is global),
    so the counts here are the GPU mapping's."""
    launched = re.findall(r"^pencilcc profile: kernel (\S+?):? \d+ launch", stderr, re.MULTILINE)
    assert bool(launched) == kernels, stderr[-2000:]
    assert not [k for k in launched if k.endswith(DIRECT_SUFFIX)], stderr[-2000:]


def _counted(source: Path, workdir: Path, name: str, flags: list[str]) -> tuple[oclgrind.Counts, list[dict]]:
    """`source`'s OpenCL build with `flags` (time loops cut to 2 steps) run on oclgrind with its
    instruction counts, its output checked against gcc -O0's, and its tiled kernels' records."""
    exe = workdir / name
    defines = _defines(source)
    proc, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl",
                                                           *(f"-D{d}" for d in defines), *flags])
    stdout, stderr, status = oclgrind.run_program(exe, workdir / f"{name}.oclgrind", TIMEOUT_S, counts=True)
    assert status == 0, stderr[-2000:]
    assert "run on the CPU" not in stderr and "runs on the CPU" not in stderr, stderr
    _assert_staged(stderr)
    problems = harness.compare_outputs(harness.gcc_reference(source, workdir, defines),
                                       oclgrind.without_counts(stdout), rtol=1e-9)
    assert problems == [], "; ".join(problems)
    return oclgrind.parse_counts(stdout), [k["tiling"] for r in regions.values()
                                           for k in r["mapping"]["kernels"] if k["tiling"]]


def test_points_per_work_item_cut_global_and_local_loads(tmp_path: Path) -> None:
    """Register tiling on the device (llvm_backend/opencl/tiling.py): jacobi-2d's 5-point stencil
    loads 5 elements a point untiled (one global store a point); a 16 x 16 tile of one point per
    work-item copies its 18 x 18 box (1.27 loads a point, not 4x fewer), the model's 2 x 2 points
    per work-item a 32 x 32 tile's 34 x 34 box (1.13: 4.4x fewer). gemm's work-items of 2 x 2
    points read each A[i][k] and B[k][j] of the local copies once for two points (half the local
    loads where all four points exist) and copy fewer elements per point from global memory."""
    jacobi = harness.POLYBENCH_DIR / "jacobi-2d.c"
    model, tilings = _counted(jacobi, tmp_path, "jacobi", [])
    one, one_tilings = _counted(jacobi, tmp_path, "jacobi-1x1", ["-fpencil-tile-sizes=16,16,1,1"])
    assert [t["points_per_work_item"] for t in tilings] == [[2, 2], [2, 2]]
    assert [t["points_per_work_item"] for t in one_tilings] == [[1, 1], [1, 1]]
    points = model.total("global_stores")
    assert points == one.total("global_stores") > 0
    assert 4 * model.total("global_loads") <= 5 * points, (model.total("global_loads"), points)
    assert 4 * one.total("global_loads") > 5 * points, (one.total("global_loads"), points)

    gemm = harness.POLYBENCH_DIR / "gemm.c"
    model, tilings = _counted(gemm, tmp_path, "gemm", [])
    one, _ = _counted(gemm, tmp_path, "gemm-1x1", ["-fpencil-tile-sizes=16,16,1,1"])
    assert [t["points_per_work_item"] for t in tilings] == [[2, 2]]
    assert tilings[0]["stages"][0]["private_shared_reads"] == ["A", "B"]
    # Half in full tiles; the edge tiles of these small sizes have work-items of fewer points.
    assert model.total("local_loads") <= 0.6 * one.total("local_loads"), (model.total("local_loads"),
                                                                          one.total("local_loads"))
    assert model.total("global_loads") < one.total("global_loads")


def test_3mm_counted_exits_cleanly(tmp_path: Path) -> None:
    """3mm's build (2 x 2 points per work-item), its program built from source under oclgrind's
    instruction counts, exits with status 0: the runtime's exit work (profile, releases) runs
    before the calling thread's thread-local destructors, not after them in an atexit handler,
    where every OpenCL call wrote into oclgrind's freed per-thread state and this run's heap
    was corrupted (abort at exit, every run). `_counted` checks the output and the status."""
    counts, tilings = _counted(harness.POLYBENCH_DIR / "3mm.c", tmp_path, "3mm", [])
    assert [t["points_per_work_item"] for t in tilings] == [[2, 2]] * 3
    assert counts.total("global_loads") > 0


# Global loads of the OpenCL builds before their kernels were tiled (one work-item per grid
# point, every access of the loop nests a global load; docs/benchmarks.md's oclgrind table), at the
# programs' own sizes: doitgen (NR, NQ, NP = 24, 20, 36) loads sum[p], A[r][q][s] and C4[s][p] per
# (r, q, p, s) and sum[p] once more per (r, q, p) to copy it back; filter2d (40 x 56 pixels) loads
# src and kern per tap of its 5x5, 3x7 and 3x3 filters.
UNTILED_LOADS = {"polybench/doitgen": 24 * 20 * 36 * (3 * 36 + 1), "image/filter2d": 2 * 40 * 56 * (25 + 21 + 9)}


@pytest.mark.parametrize("kernel", sorted(UNTILED_LOADS))
def test_tiled_nests_load_a_quarter(kernel: str, tmp_path: Path) -> None:
    """doitgen's (r, q) grid strip-mines its p loop around its s loop (tiling.Nest: C4's and A's
    strips in local memory, sum[p] in registers) and filter2d's (i, j) grid its e loop (boxes
    bounded by `__pencil_assume`, src's through clamped subscripts): their global loads fall by
    at least 4x against the untiled build, and the output is still gcc -O0's."""
    source = next(s for s in KERNELS if _id(s) == kernel)
    exe = tmp_path / source.stem
    flags = [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl", "-fsave-optimization-record"]
    if source.parent == IMAGE_DIR:
        flags.append(f"-I{INCLUDE}")
    harness.build(PENCILCC, [source], exe, flags, env={"PENCILCC_NO_CACHE": "1"})
    record = json.loads(exe.with_name(exe.name + ".opt.json").read_text())
    stages = [s for region in record["regions"] for k in region["mapping"]["kernels"] if k["tiling"]
              for s in k["tiling"]["stages"]]
    staged = {a["array"] for s in stages for a in s["local_arrays"]}
    if kernel == "polybench/doitgen":
        assert any(s["outer_strip"] for s in stages), stages
        assert {"A", "C4"} <= staged and any(s["private_elements"] for s in stages), stages
    else:
        assert {"src", "kern"} <= staged, stages
    stdout, stderr, status = oclgrind.run_program(exe, tmp_path / "oclgrind", TIMEOUT_S, counts=True)
    assert status == 0, stderr[-2000:]
    loads = oclgrind.parse_counts(stdout).total("global_loads")
    assert 0 < loads * 4 <= UNTILED_LOADS[kernel], (loads, UNTILED_LOADS[kernel])
    output = oclgrind.without_counts(stdout)
    reference = _reference(source, tmp_path)
    if source.parent == IMAGE_DIR:
        assert output == reference
    else:
        assert harness.compare_outputs(reference, output, rtol=1e-9) == []


NEST = r"""#include <stdio.h>
#include <stdlib.h>

/* A doitgen-like nest: under the (r, q) grid, p strips around s strips, a child before the
   s loop (acc's start), one after it (out), a read-only bias[p] used throughout s. */
static void nest(int nr, int nq, int np, int ns, double A[nr][nq][ns], double W[ns][np],
                 double bias[np], double out[nr][nq][np], double acc[nr][nq][np])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++)
      for (p = 0; p < np; p++) {
        acc[r][q][p] = 0.5 * bias[p];
        for (s = 0; s < ns; s++)
          acc[r][q][p] += A[r][q][s] * W[s][p] + bias[p];
        out[r][q][p] = 2.0 * acc[r][q][p] - A[r][q][p % 3];
      }
#pragma endscop
}

/* p carries a dependence through t[r][q] (not a nest the tiling may reorder). */
static void chain(int nr, int nq, int np, int ns, double A[nr][nq][ns], double W[ns][np],
                  double t[nr][nq], double out[nr][nq][np])
{
  int r, q, p, s;
#pragma scop
  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++)
      for (p = 0; p < np; p++) {
        for (s = 0; s < ns; s++)
          t[r][q] = 0.5 * t[r][q] + A[r][q][s] * W[s][p];
        out[r][q][p] = t[r][q];
      }
#pragma endscop
}

int main(int argc, char **argv)
{
  int nr = 19, nq = 21, np = 37, ns = 23 + argc - 1;
  double (*A)[nq][ns] = malloc(sizeof(double[nr][nq][ns]));
  double (*W)[np] = malloc(sizeof(double[ns][np]));
  double *bias = malloc(sizeof(double[np]));
  double (*out)[nq][np] = malloc(sizeof(double[nr][nq][np]));
  double (*acc)[nq][np] = malloc(sizeof(double[nr][nq][np]));
  double (*t)[nq] = malloc(sizeof(double[nr][nq]));
  int i, j, k;

  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++) {
      t[i][j] = (double)(i - j) / 7;
      for (k = 0; k < ns; k++)
        A[i][j][k] = (double)((i * 3 + j * 5 + k) % 17) / 17;
    }
  for (i = 0; i < ns; i++)
    for (j = 0; j < np; j++)
      W[i][j] = (double)((i * j + 3) % 11) / 11;
  for (j = 0; j < np; j++)
    bias[j] = (double)(j % 5) / 5;
  nest(nr, nq, np, ns, A, W, bias, out, acc);
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        printf("%.17g %.17g\n", out[i][j][k], acc[i][j][k]);
  chain(nr, nq, np, ns, A, W, t, out);
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++) {
      printf("%.17g\n", t[i][j]);
      for (k = 0; k < np; k++)
        printf("%.17g\n", out[i][j][k]);
    }
  return 0;
}
"""


def test_nest_strips_only_independent_p_loops(tmp_path: Path) -> None:
    """A doitgen-like nest with children before and after its s loop (extents not multiples of
    the strips) is tiled as a nest and stays gcc -O0's, race-free; the same nest whose p loop
    carries a dependence (t[r][q] across p) is not reordered (no tiling: nothing else to stage)."""
    source = tmp_path / "nest.c"
    source.write_text(NEST)
    exe = tmp_path / "nest"
    # -ffp-contract=off: the bits are compared with gcc -O0's (GNU C's default would fuse)
    harness.build(PENCILCC, [source], exe, ["-O3", "-ffp-contract=off", "-fpencil-target=opencl",
                                            "-fsave-optimization-record"], env={"PENCILCC_NO_CACHE": "1"})
    record = json.loads(exe.with_name(exe.name + ".opt.json").read_text())
    tiling = {r["function"]: [k["tiling"] for k in r["mapping"]["kernels"]] for r in record["regions"]}
    stage, = tiling["nest"][0]["stages"]
    assert tiling["nest"][0]["points_per_work_item"] == [1, 1]     # a nest runs one point per work-item
    assert (stage["outer_strip"], sorted(a["array"] for a in stage["local_arrays"])) == (16, ["A", "W"]), stage
    assert sorted(stage["private_elements"]) == ["acc", "bias"], stage
    assert tiling["chain"] == [None], tiling
    stdout, stderr, status = oclgrind.run_program(exe, tmp_path / "oclgrind", TIMEOUT_S, checks=True)
    assert status == 0, stderr[-2000:]
    assert oclgrind.parse_errors(stderr) == []
    reference = tmp_path / "reference"
    harness.build(["gcc"], [source], reference, ["-O0"])
    assert stdout == harness.run(reference)    # each sum in its own order: the same bits


_BROKEN = r'''
import pyopencl as cl
ctx = cl.Context(cl.get_platforms()[0].get_devices())
queue = cl.CommandQueue(ctx)
program = cl.Program(ctx, """
__kernel void racy(__global int *a) { a[0] = (int)get_global_id(0); }
__kernel void beyond(__global int *a) { a[get_global_id(0) + 1] = 1; }
__kernel void unset(__global int *a) { int x[2]; x[0] = 1; a[get_global_id(0)] = x[get_global_id(0) & 1]; }
""").build()
data = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 64 * 4)
for kernel in (program.racy, program.beyond, program.unset):
    kernel(queue, (64,), (16,), data)
    queue.finish()
print(cl.get_platforms()[0].name)
'''


def test_oclgrind_checks_fire(tmp_path: Path) -> None:
    """oclgrind's checks are on through `oclgrind.run_env`: a racy kernel, one writing past its
    buffer and one reading an unset private value are each reported (a silent run means something)."""
    pytest.importorskip("pyopencl")
    script = tmp_path / "broken.py"
    script.write_text(_BROKEN)
    env = {**os.environ, **oclgrind.run_env(tmp_path, checks=True), "OCLGRIND_MAX_ERRORS": "1000"}
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=TIMEOUT_S)
    assert "Oclgrind" in proc.stdout, proc.stderr
    errors = oclgrind.parse_errors(proc.stderr)
    assert any(e.startswith("racy: ") and "data race" in e for e in errors), errors
    assert any(e.startswith("beyond: ") and "Invalid write" in e for e in errors), errors
    assert any(e.startswith("unset: ") and "ninitiali" in e for e in errors), errors


def test_parse_errors_and_counts() -> None:
    stderr = ("Read-write data race at global memory address 0x100000000\n"
              "\tKernel: k0\n\tEntity: Global(1,0,0) Local(1,0,0) Group(0,0,0)\n\n"
              "Invalid read of size 8 at global memory address 0x200000040\n\tKernel: k1\n")
    assert oclgrind.parse_errors(stderr) == [
        "k0: Read-write data race at global memory address 0x100000000",
        "k1: Invalid read of size 8 at global memory address 0x200000040"]
    stdout = ("Instructions executed for kernel 'k0':\n      10 - load global (80 bytes)\n"
              "       4 - store local (32 bytes)\n       2 - call _Z7barrierj()\n\nresult 1\n"
              "Instructions executed for kernel 'k0':\n       5 - load global (40 bytes)\n\n")
    counts = oclgrind.parse_counts(stdout)
    k0 = counts.kernels["k0"]
    assert (k0.launches, k0.global_loads, k0.global_load_bytes, k0.local_stores, k0.barriers) == (2, 15, 120, 4, 2)
    assert oclgrind.without_counts(stdout) == "result 1\n"
