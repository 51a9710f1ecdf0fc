# SPDX-License-Identifier: MIT
"""The kernel suite through the OpenCL target, on the embedded device (PoCL).

Every PolyBench-style, PENCIL and image kernel is built by this checkout's pencilcc
with `-O3 -fpencil-target=opencl`, run with `PENCILCC_PROFILE=1` on the first OpenCL
device (CI installs PoCL: .ci/run), and compared with the same program built by
`gcc -O0` (`harness.compare_outputs`, rtol 1e-9; the image kernels print text,
compared exactly). Checked besides the output:
- the record says `"target": "opencl"` for every optimized region and lists its
  kernels; a kernel of the suite whose regions are all optimized has at least one
  kernel, and the profile shows it ran on the device (launches > 0);
- transfers are not repeated: every region of the PolyBench and PENCIL programs runs
  once, so no array is uploaded more often than once per region that uses it on the
  device (jacobi-2d launches 2 x tsteps kernels on two arrays: 2 uploads, not 2 x tsteps;
  durbin's and floyd-warshall's sequential code between kernels runs on one work-item);
- the program is built once per process (no disk cache yet: PENCILCC_CACHE_DIR is
  the test's own folder), and a second run loads it from the disk cache.
The module is skipped where no OpenCL platform exists.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Optional

import pytest

from llvm_backend.opencl.runtime import runtime_flags
from test_suite.e2e import harness

pyopencl = pytest.importorskip("pyopencl")
try:
    _PLATFORMS = pyopencl.get_platforms()
except Exception:   # pyopencl raises its own LogicError when the ICD loader finds none
    _PLATFORMS = []
pytestmark = pytest.mark.skipif(not _PLATFORMS, reason="no OpenCL platform (install PoCL: .ci/run)")

PENCILCC = [sys.executable, "-m", "clangpass"]
IMAGE_DIR = harness.POLYBENCH_DIR.parent / "image"
INCLUDE = harness.POLYBENCH_DIR.parents[2] / "include"
KERNELS = [*harness.polybench_sources(), *harness.pencil_sources(), *sorted(IMAGE_DIR.glob("*.c"))]
# Kernels whose schedule (without tiling) has no parallel loop: their parallelism is in
# wavefronts (seidel-2d) or none isl finds (cholesky, nussinov); they run on the host.
SEQUENTIAL = {"cholesky", "nussinov", "seidel-2d"}

PROFILE = re.compile(r"^pencilcc profile: (?P<what>[^:\n]+?)(?: (?P<name>\S+))?: (?P<rest>.*)$", re.MULTILINE)


def _id(source: Path) -> str:
    return f"{source.parent.name}/{source.stem}"


class Builds:
    """The OpenCL builds of every kernel, started together."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
        self.futures: dict[str, Future] = {_id(s): self.pool.submit(self._build, s) for s in KERNELS}

    def _build(self, source: Path) -> tuple[Path, dict]:
        exe = self.workdir / _id(source).replace("/", "-")
        harness.build(PENCILCC, [source], exe,
                      [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl", "-fsave-optimization-record"],
                      env={"PENCILCC_NO_CACHE": "1"})
        return exe, json.loads(exe.with_name(exe.name + ".opt.json").read_text())

    def result(self, source: Path) -> tuple[Path, dict]:
        return self.futures[_id(source)].result()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory):
    started = Builds(tmp_path_factory.mktemp("opencl_kernels"))
    yield started
    started.pool.shutdown(wait=True, cancel_futures=True)


def _run(exe: Path, cache: Path, env: Optional[dict] = None) -> tuple[str, dict]:
    """stdout and the profile: {'kernel': {name: launches}, 'host-to-device': n, ...}."""
    env = {**(os.environ if env is None else env), "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(cache)}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    profile: dict = {"kernel": {}}
    for m in PROFILE.finditer(proc.stderr):
        numbers = [int(n) for n in re.findall(r"(\d+) (?:launch|transfer|built|loaded)", m["rest"])]
        if m["what"] == "kernel":
            profile["kernel"][m["name"].rstrip(":")] = numbers[0]
        elif m["what"] in ("host-to-device", "device-to-host"):
            profile[m["what"]] = numbers[0]
        elif m["what"] == "programs":
            profile["built"], profile["loaded"] = numbers
    assert "no OpenCL device" not in proc.stderr and "run on the CPU" not in proc.stderr, proc.stderr
    return proc.stdout, profile


def _reference(source: Path, workdir: Path) -> str:
    if source.parent == IMAGE_DIR:
        exe = workdir / f"{source.stem}.gcc-O0"
        harness.build(["gcc"], [source], exe, ["-O0", f"-I{INCLUDE}"])
        return harness.run(exe)
    return harness.gcc_reference(source, workdir)


@pytest.mark.parametrize("source", [pytest.param(s, id=_id(s)) for s in KERNELS])
def test_kernel_on_the_device(source: Path, builds: Builds, tmp_path: Path) -> None:
    reference = _reference(source, tmp_path)
    exe, record = builds.result(source)
    optimized = [r for r in record["regions"] if r["status"] == "optimized"]
    assert all(r["target"] == "opencl" for r in optimized)
    kernels = [k["name"] for r in optimized for k in r["mapping"]["kernels"]]
    if source.stem == "doitgen":
        # Its private sum[np] (of parameter size) is a slice per iteration of a device buffer.
        assert [k["private_arrays"] for r in optimized for k in r["mapping"]["kernels"]] == [["__pencil_private_sum"]]
    if source.stem in SEQUENTIAL:
        assert sum(r["parallel_loops"] for r in optimized) == 0 and not kernels
    elif source.parent != IMAGE_DIR:
        # Every region of these kernels is optimized (test_polybench_pencilcc.py) and has a
        # parallel loop the device can run.
        assert len(optimized) == len(record["regions"]) and kernels, record["regions"]
    output, profile = _run(exe, tmp_path / "cache")
    if source.parent == IMAGE_DIR:
        assert output == reference
    else:
        problems = harness.compare_outputs(reference, output, rtol=1e-9)
        assert problems == [], "; ".join(problems)
    if not kernels:
        return
    # A tiled kernel launches as itself or as its direct variant (`variants`: which, by device).
    variants = {v for r in optimized for k in r["mapping"]["kernels"] for v in k["variants"].values()}
    assert set(profile["kernel"]) <= variants and sum(profile["kernel"].values()) > 0, profile
    if source.parent != IMAGE_DIR:
        # One upload per array a region's kernels use: each region runs once in these programs
        # (the image kernels call theirs several times, and each call uploads its arrays again).
        arrays = sum(len(r["mapping"]["buffers"]) + len(r["mapping"]["local_buffers"]) for r in optimized
                     if r["mapping"]["kernels"])
        assert profile.get("host-to-device", 0) <= arrays, (profile, arrays)
    assert profile["built"] + profile["loaded"] <= len([r for r in optimized if r["mapping"]["kernels"]])
    _, again = _run(exe, tmp_path / "cache")
    assert again["built"] == 0 and again["loaded"] == profile["built"] + profile["loaded"], again


# Tiled kernels of every form (tiling.py): 2x2 points per work-item (jacobi-2d, gemm), one
# (heat-3d, fdtd-2d's three), a triangle's box (syrk), a two-deep nest (doitgen), a strip with
# bounds naming a grid iterator (symm).
TILED = ["jacobi-2d", "heat-3d", "fdtd-2d", "gemm", "syrk", "doitgen", "symm"]


@pytest.mark.parametrize("stem", TILED)
def test_both_mappings_match_gcc(stem: str, tmp_path: Path) -> None:
    """A tiled kernel runs staged in local memory under PENCILCC_OPENCL_MAPPING=gpu and as its
    direct variant under =cpu, each giving gcc -O0's output on this device; auto picks by the
    device's local memory type (PoCL's is CL_GLOBAL: the direct variants)."""
    source = harness.POLYBENCH_DIR / f"{stem}.c"
    exe = tmp_path / stem
    harness.build(PENCILCC, [source], exe,
                  [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl", "-fsave-optimization-record"],
                  env={"PENCILCC_NO_CACHE": "1"})
    record = json.loads(exe.with_name(exe.name + ".opt.json").read_text())
    kernels = [k for r in record["regions"] if r["status"] == "optimized" for k in r["mapping"]["kernels"]]
    tiled = [k for k in kernels if k["tiling"]]
    assert tiled, kernels
    for k in kernels:
        assert k["variants"] == ({"gpu": k["name"], "cpu": k["name"] + "_direct"} if k["tiling"] else
                                 {"gpu": k["name"], "cpu": k["name"]}), k
    reference = harness.gcc_reference(source, tmp_path)
    launched = {}
    for mapping in ("gpu", "cpu", "auto"):
        env = {**os.environ, "PENCILCC_OPENCL_MAPPING": mapping}
        output, profile = _run(exe, tmp_path / f"cache-{mapping}", env)
        problems = harness.compare_outputs(reference, output, rtol=1e-9)
        assert problems == [], f"{mapping}: " + "; ".join(problems)
        launched[mapping] = set(profile["kernel"])
    for mapping in ("gpu", "cpu"):
        # Every tiled kernel that ran, as that mapping's variant; untiled ones as themselves.
        assert launched[mapping] <= {k["variants"][mapping] for k in kernels}, launched
        assert {k["variants"][mapping] for k in tiled} & launched[mapping], launched
    device = _device_of_the_runtime()
    if device is not None:
        global_local = device.local_mem_type == pyopencl.device_local_mem_type.GLOBAL
        assert launched["auto"] == launched["cpu" if global_local else "gpu"], launched


def _device_of_the_runtime():
    """The device the runtime chooses without PENCILCC_DEVICE (the first GPU, else the first
    device: runtime/pencilcc_runtime_device.c), or None when PENCILCC_DEVICE names another."""
    if os.environ.get("PENCILCC_DEVICE"):
        return None
    devices = [d for p in _PLATFORMS for d in p.get_devices()]
    gpus = [d for d in devices if d.type & pyopencl.device_type.GPU]
    return (gpus or devices or [None])[0]


def test_the_remark_counts_kernels_with_a_direct_variant(tmp_path: Path) -> None:
    proc = subprocess.run([*PENCILCC, "-O3", "-fpencil-target=opencl", "-Rpass=pencil", "-c",
                           str(harness.POLYBENCH_DIR / "2mm.c"), "-o", str(tmp_path / "2mm.o")],
                          capture_output=True, text=True, env={**os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stderr
    # 2mm: two zero-fill kernels (untiled) and two products (tiled).
    assert ("4 OpenCL kernels over parallel loops (2 tiled in local memory for GPU devices, with a "
            "direct variant for CPU devices)") in proc.stderr, proc.stderr


def test_an_unknown_mapping_is_said_and_taken_as_auto(tmp_path: Path) -> None:
    source = harness.POLYBENCH_DIR / "jacobi-2d.c"
    exe = tmp_path / "jacobi-2d"
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl"],
                  env={"PENCILCC_NO_CACHE": "1"})
    env = {**os.environ, "PENCILCC_OPENCL_MAPPING": "fast", "PENCILCC_PROFILE": "1",
           "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("pencilcc: PENCILCC_OPENCL_MAPPING=fast is not gpu, cpu or auto; using auto") == 1
    assert "run on the CPU" not in proc.stderr, proc.stderr
    problems = harness.compare_outputs(harness.gcc_reference(source, tmp_path), proc.stdout, rtol=1e-9)
    assert problems == [], "; ".join(problems)


def _program(tmp_path: Path, name: str, text: str) -> tuple[Path, Path]:
    """`text` as tmp_path/name.c built by pencilcc for the OpenCL target (with its record) and
    by gcc -O0; the two executables."""
    source = tmp_path / f"{name}.c"
    source.write_text(text)
    exe = tmp_path / name
    harness.build(PENCILCC, [source], exe, ["-O3", "-fpencil-target=opencl", "-fsave-optimization-record"],
                  env={"PENCILCC_NO_CACHE": "1"})
    reference = tmp_path / "reference"
    harness.build(["gcc"], [source], reference, ["-O0", f"-I{INCLUDE}"])
    return exe, reference


REDUCTIONS = r"""
#include <stdio.h>
#include <pencil.h>
static void sums(int n, const int a[static const restrict n], const double d[static const restrict n],
                 int s[static const restrict 1], double t[static const restrict 1],
                 int lo[static const restrict 1], double hi[static const restrict 1])
{
#pragma pencil independent reduction(+: s, t) reduction(min: lo) reduction(max: hi)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    t[0] = t[0] + d[i];
    lo[0] = min(lo[0], a[i]);
    hi[0] = fmax(hi[0], d[i] * a[i]);
  }
}
static void steps(int T, int n, int a[static const restrict 40000], long s[static const restrict 1],
                  unsigned bits[static const restrict 1])
{
  for (int t = 0; t < T; t++) {
#pragma pencil independent reduction(+: s) reduction(^: bits)
    for (int i = 0; i < n; i++) {
      s[0] += a[i] * (t + 1);
      bits[0] ^= (unsigned)a[i] * 2654435761u;
    }
    for (int i = 0; i < n; i++)
      a[i] = a[i] % 1000 + t;
  }
}
int main(void)
{
  static int a[40000];
  static double d[40000];
  for (int i = 0; i < 40000; i++) { a[i] = (i * 37) % 101 - 50; d[i] = (i % 7) * 0.25 - 0.5; }
  { int s[1] = {7}, lo[1] = {100}; double t[1] = {0.5}, hi[1] = {-1e300};
    sums(40000, a, d, s, t, lo, hi); sums(0, a, d, s, t, lo, hi); sums(100, a, d, s, t, lo, hi);
    printf("== sums\n%d\n%.17g\n%d\n%.17g\n", s[0], t[0], lo[0], hi[0]); }
  { long s[1] = {3}; unsigned bits[1] = {5u}; steps(6, 40000, a, s, bits);
    printf("== steps\n%ld\n%u\n", s[0], bits[0]);
    printf("== a\n"); for (int i = 0; i < 40000; i += 997) printf("%d\n", a[i]); }
  return 0;
}
"""


def test_reductions_run_as_tree_reductions_on_the_device(tmp_path: Path) -> None:
    """`independent reduction(op: v)` loops: work-group trees in local memory, the groups'
    results combined on the host; same results as gcc -O0 (sums of doubles within rtol: the
    order differs, as on CPU threads), for empty and short loops too, and inside a time loop
    whose other kernel writes what the next step's reduction reads."""
    exe, reference = _program(tmp_path, "reductions", REDUCTIONS)
    output, profile = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(harness.run(reference), output, rtol=1e-12) == []
    record = json.loads(exe.with_name(exe.name + ".opt.json").read_text())
    reduced = {(r["variable"], r["operator"]) for region in record["regions"]
               for k in region["mapping"]["kernels"] for r in k["reductions"]}
    assert reduced == {("s", "+"), ("t", "+"), ("lo", "min"), ("hi", "max"), ("bits", "^")}
    assert all(k["local_memory"] for region in record["regions"] for k in region["mapping"]["kernels"]
               if k["reductions"])
    assert not any(region["mapping"]["host_loops"] for region in record["regions"])
    assert sum(profile["kernel"].values()) >= 6 + 6      # steps: a reduction and an update per step


@pytest.mark.parametrize("kernel", ["jacobi-2d", "durbin"])
def test_without_a_device_the_cpu_path_runs(kernel: str, builds: Builds, tmp_path: Path) -> None:
    """No device (a PENCILCC_DEVICE that matches none): one line says so, and the loops run on
    the CPU, with the same results."""
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    exe, _ = builds.result(source)
    env = {**os.environ, "PENCILCC_DEVICE": "no-such-device", "PENCILCC_PROFILE": "1"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0
    assert proc.stderr.count("pencilcc: no OpenCL device matches PENCILCC_DEVICE=no-such-device; "
                             "OpenCL regions run on the CPU\n") == 1
    assert "launches" not in proc.stderr
    assert harness.compare_outputs(harness.gcc_reference(source, tmp_path), proc.stdout, rtol=1e-9) == []


def test_objects_compiled_apart_link_with_the_runtime(tmp_path: Path) -> None:
    """`pencilcc -fpencil-target=opencl -c k.c` then `pencilcc k.o -o prog` (what make does), and
    a plain `cc k.o $(pencilcc -fpencil-target=opencl --show-cc-args=LIBS)`: both link the runtime."""
    source = harness.POLYBENCH_DIR / "jacobi-2d.c"
    obj = tmp_path / "k.o"
    harness.build(PENCILCC, [source], obj, [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-target=opencl", "-c"],
                  libs=(), env={"PENCILCC_NO_CACHE": "1"})
    libs = subprocess.run([*PENCILCC, "-fpencil-target=opencl", "--show-cc-args=LIBS"], capture_output=True,
                          text=True, check=True).stdout.split()
    assert libs[-len(runtime_flags()):] == runtime_flags()    # every file of the runtime, -ldl, -lpthread
    reference = harness.gcc_reference(source, tmp_path)
    for linker, flags in ((PENCILCC, []), (["gcc"], libs)):
        exe = tmp_path / f"prog-{linker[-1]}"
        harness.build(linker, [obj], exe, [], libs=flags)
        output, profile = _run(exe, tmp_path / "cache")
        assert harness.compare_outputs(reference, output, rtol=1e-9) == []
        assert sum(profile["kernel"].values()) > 0


KILLS = r"""
#include <stdio.h>
#include <pencil.h>
static void copy_positive(int n, int A[pencil_array n], int B[pencil_array n])
{
  __pencil_kill(A);
  for (int i = 0; i < n; i++)
    if (B[i] > 0)
      A[i] = B[i];
}
static void through(int n, int A[pencil_array n], int B[pencil_array n])
{
  __pencil_kill(A);
  for (int i = 0; i < n; i++)
    A[i] = 2 * B[i];
  for (int i = 1; i < n; i++)
    B[i] = A[i - 1] + 1;
  __pencil_kill(A);
}
static void reads_first(int n, int A[pencil_array n], int B[pencil_array n])
{
  for (int i = 0; i < n; i++)
    B[i] = A[i] + B[i];
  __pencil_kill(A);
  for (int i = 0; i < n; i++)
    A[i] = B[i];
}
int main(void)
{
  static int A[1000], B[1000];
  long s = 0;
  for (int i = 0; i < 1000; i++) { A[i] = 7; B[i] = i % 3 - 1; }
  copy_positive(1000, A, B);
  for (int i = 0; i < 1000; i++) if (B[i] > 0) s += A[i];
  through(1000, A, B);
  for (int i = 0; i < 1000; i++) A[i] = i % 7;   /* through() left A dead */
  reads_first(1000, A, B);
  for (int i = 0; i < 1000; i++) s += B[i] * (i % 5) + A[i];
  printf("== s\n%ld\n", s);
  return 0;
}
"""


def test_dead_data_is_not_copied(tmp_path: Path) -> None:
    """`__pencil_kill` (thesis 4.3.5.ii): an array killed before it is read is not uploaded, one
    killed after its last write is not read back; one read before its kill is both."""
    exe, reference = _program(tmp_path, "kills", KILLS)
    output, profile = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(harness.run(reference), output, rtol=0) == []
    record = {r["function"]: r["mapping"] for r in json.loads(exe.with_name(exe.name + ".opt.json").read_text())["regions"]}
    assert (record["copy_positive"]["not_copied_in"], record["copy_positive"]["not_copied_back"]) == (["A"], [])
    assert (record["through"]["not_copied_in"], record["through"]["not_copied_back"]) == (["A"], ["A"])
    assert (record["reads_first"]["not_copied_in"], record["reads_first"]["not_copied_back"]) == ([], [])
    # Uploads: B, B, then A and B; read back: A, B, then A and B (A dead after through(), and
    # copy_positive() leaves the elements it did not write undefined: the program reads neither).
    assert (profile["host-to-device"], profile["device-to-host"]) == (4, 4), profile


def test_opencl_dump_prints_each_regions_program(tmp_path: Path) -> None:
    """-fpencil-dump=opencl: the program of each region, as the runtime builds it (C rounding
    under -std=c99: FP_CONTRACT OFF), with the loops left on the host and why."""
    proc = subprocess.run([*PENCILCC, "-O3", "-std=c99", "-fpencil-target=opencl", "-fpencil-dump=opencl", "-c",
                           str(harness.POLYBENCH_DIR / "gemm.c"), "-o", str(tmp_path / "gemm.o")],
                          capture_output=True, text=True, env={**os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith(";; pencilcc opencl 'kernel_gemm#0' after opencl-kernels\n")
    assert "#pragma OPENCL FP_CONTRACT OFF" in proc.stderr
    # One two-dimensional kernel, tiled, and its direct variant (for devices whose local memory is
    # global memory), which stages nothing.
    assert proc.stderr.count("__kernel ") == 2 and "get_global_id(1)" in proc.stderr
    tiled, direct = proc.stderr.split("__kernel ")[1:]
    assert "reqd_work_group_size(16, 16, 1)" in tiled and "__local double" in tiled
    assert direct.startswith("void __pencilcc_kernel_gemm_") and "_k0_direct(" in direct
    assert "__local" not in direct and "barrier" not in direct and "reqd_work_group_size" not in direct


def test_an_object_and_a_source_with_kernels_link_the_runtime_once(tmp_path: Path) -> None:
    """`pencilcc -fpencil-target=opencl k.o main.c`: both inputs need the runtime; it is
    compiled into the program once (twice would define its functions twice)."""
    (tmp_path / "k.c").write_text("void scale(int n, double a[static const restrict n])\n"
                                  "{ for (int i = 0; i < n; i++) a[i] = a[i] + 1.0; }\n")
    (tmp_path / "main.c").write_text(
        "#include <stdio.h>\nvoid scale(int n, double a[static const restrict n]);\n"
        "static void twice(int n, double b[static const restrict n])\n"
        "{ for (int i = 0; i < n; i++) b[i] = 2 * b[i]; }\n"
        "int main(void) { static double a[1000]; for (int i = 0; i < 1000; i++) a[i] = i;\n"
        "  scale(1000, a); twice(1000, a); printf(\"%g\\n\", a[999]); return 0; }\n")
    flags = ["-O3", "-fpencil-target=opencl"]
    harness.build(PENCILCC, [tmp_path / "k.c"], tmp_path / "k.o", [*flags, "-c"], libs=(),
                  env={"PENCILCC_NO_CACHE": "1"})
    harness.build(PENCILCC, [tmp_path / "k.o", tmp_path / "main.c"], tmp_path / "prog", flags,
                  env={"PENCILCC_NO_CACHE": "1"})
    output, profile = _run(tmp_path / "prog", tmp_path / "cache")
    assert output == "2000\n" and len(profile["kernel"]) == 2


FOOTPRINTS = r"""
#include <stdio.h>
static void longer(int n, double A[n], double B[n])
{
#pragma scop
  for (int i = 0; i < 2 * n; i++)
    A[i] = 2.0 * i;
  for (int i = 0; i < n; i++)
    B[i] = A[i + n];
#pragma endscop
}
static void shift(int n, double *a, double *b)
{
#pragma scop
  for (int i = n; i < 2 * n; i++)
    a[i] = 2.0 * b[i - n];
#pragma endscop
}
int main(void)
{
  static double A[200], B[100], a[200];
  for (int i = 0; i < 200; i++) a[i] = i;
  longer(100, A, B);
  shift(100, a, a);
  shift(50, a + 100, a);
  printf("== r\n%.17g\n%.17g\n%.17g\n%.17g\n%.17g\n", A[199], B[99], a[150], a[199], a[175]);
  return 0;
}
"""


def test_device_copies_hold_what_the_region_touches(tmp_path: Path) -> None:
    """C lets a parameter's array be longer than declared (`A[n]` written up to 2n) and pointer
    parameters have no declared size: the device copy holds the rows the region touches (a
    function of the parameters). Two arguments over overlapping host memory (not the same array
    twice) run that launch on the CPU (one line says so)."""
    exe, reference = _program(tmp_path, "footprints", FOOTPRINTS)
    env = {**os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0
    assert harness.compare_outputs(harness.run(reference), proc.stdout, rtol=0) == []
    assert proc.stderr.count("was given overlapping arrays; it runs on the CPU") == 1
    record = {r["function"]: r["mapping"] for r in json.loads(exe.with_name(exe.name + ".opt.json").read_text())["regions"]}
    assert record["longer"]["kernels"] and len(record["shift"]["kernels"]) == 1
    assert record["longer"]["host_loops"] == record["shift"]["host_loops"] == []
    launches = {m["name"].rstrip(":").split("_scop")[0]: m["rest"] for m in PROFILE.finditer(proc.stderr)
                if m["what"] == "kernel"}
    # longer's kernels ran on the device; shift's first call ran on the CPU, its second on the device.
    assert launches["__pencilcc_longer"].startswith("1 launches")
    assert launches["__pencilcc_shift"].startswith("1 launches")
