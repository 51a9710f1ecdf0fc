# SPDX-License-Identifier: MIT
"""runtime/, the OpenCL runtime of generated host code (its files: llvm_backend.opencl.runtime).

A C driver (runtime_c/driver.c) calls the runtime the way generated code does,
with hand-written kernels, falls back to the same loops on the CPU when a launch
is refused, checks its results against a CPU computation and prints `key=value`
facts; the runtime's `PENCILCC_PROFILE=1` lines say what happened on the device
(launches, transfers, buffer reuse, program cache). Tests that need a device
skip when pyopencl finds no OpenCL platform; the build and no-device tests run
everywhere gcc does.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from llvm_backend.opencl.runtime import RUNTIME_HEADERS, RUNTIME_LIBS, RUNTIME_SOURCES, runtime_sources

ROOT = Path(__file__).resolve().parents[2]
RUNTIME = [str(path) for path in runtime_sources()]
HEADER_DIR = ROOT / "runtime"
DRIVER = Path(__file__).resolve().parent / "runtime_c" / "driver.c"
GCC = shutil.which("gcc")
WARNINGS = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]

pytestmark = pytest.mark.skipif(GCC is None, reason="gcc is needed to build the runtime")


def _platform_devices() -> list[tuple[str, str, int]]:
    """(platform name, device name, device type) of every OpenCL device, in ICD order."""
    try:
        import pyopencl as cl
        return [(p.name.strip(), d.name.strip(), d.type)
                for p in cl.get_platforms() for d in p.get_devices()]
    except Exception:  # no pyopencl, no ICD loader, or no platform (CL_PLATFORM_NOT_FOUND_KHR)
        return []


DEVICES = _platform_devices()
needs_device = pytest.mark.skipif(
    not DEVICES, reason="no OpenCL platform (pyopencl finds none): install PoCL, "
    "e.g. `apt-get install pocl-opencl-icd ocl-icd-libopencl1` or `pip install pocl-binary-distribution`")

N = 100003  # not a multiple of any work-group size: the kernels' early return is exercised


@dataclass
class Profile:
    device: str | None = None
    kernels: dict[str, int] = field(default_factory=dict)  # name -> launches
    h2d: tuple[int, int] | None = None                    # (transfers, bytes)
    d2h: tuple[int, int] | None = None
    built: int | None = None
    loaded: int | None = None
    allocated: int | None = None
    reused: int | None = None


_PROFILE_LINES = [
    ("device", re.compile(r"device (.+ / .+)")),
    ("kernel", re.compile(r"kernel (\w+): (\d+) launches, \d+\.\d{3} ms")),
    ("h2d", re.compile(r"host-to-device: (\d+) transfers, (\d+) bytes, \d+\.\d{3} ms")),
    ("d2h", re.compile(r"device-to-host: (\d+) transfers, (\d+) bytes, \d+\.\d{3} ms")),
    ("programs", re.compile(r"programs: (\d+) built, (\d+) loaded from disk cache")),
    ("buffers", re.compile(r"buffers: (\d+) allocated, (\d+) reused")),
]


def parse_profile(stderr: str) -> Profile:
    """The profile lines of a run; any `pencilcc profile:` line of another form fails."""
    prof = Profile()
    for line in stderr.splitlines():
        if not line.startswith("pencilcc profile: "):
            continue
        body = line[len("pencilcc profile: "):]
        for kind, pattern in _PROFILE_LINES:
            m = pattern.fullmatch(body)
            if not m:
                continue
            if kind == "device":
                prof.device = m[1]
            elif kind == "kernel":
                assert m[1] not in prof.kernels, f"two lines for kernel {m[1]}"
                prof.kernels[m[1]] = int(m[2])
            elif kind == "h2d":
                prof.h2d = (int(m[1]), int(m[2]))
            elif kind == "d2h":
                prof.d2h = (int(m[1]), int(m[2]))
            elif kind == "programs":
                prof.built, prof.loaded = int(m[1]), int(m[2])
            else:
                prof.allocated, prof.reused = int(m[1]), int(m[2])
            break
        else:
            pytest.fail(f"malformed profile line: {line!r}")
    return prof


@dataclass
class Run:
    rc: int
    facts: dict[str, str]
    stderr: str
    profile: Profile

    def messages(self) -> list[str]:
        """The runtime's `pencilcc:` lines (not the profile)."""
        return [ln for ln in self.stderr.splitlines() if ln.startswith("pencilcc: ")]


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("rt") / "driver"
    subprocess.run([GCC, *WARNINGS, "-O2", f"-I{HEADER_DIR}", str(DRIVER), *RUNTIME,
                    "-o", str(exe), *RUNTIME_LIBS, "-lm"], check=True)
    return exe


def run(driver: Path, *args: object, cache: Path | None = None, **env: str) -> Run:
    full = {k: v for k, v in os.environ.items() if not k.startswith("PENCILCC_")}
    full["PENCILCC_PROFILE"] = "1"
    if cache is not None:
        full["PENCILCC_CACHE_DIR"] = str(cache)
    full.update(env)
    proc = subprocess.run([str(driver), *map(str, args)], env=full, capture_output=True,
                          text=True, timeout=120)
    facts = dict(ln.split("=", 1) for ln in proc.stdout.splitlines() if "=" in ln)
    return Run(proc.returncode, facts, proc.stderr, parse_profile(proc.stderr))


def expect_ok(r: Run, *keys: str) -> None:
    for key in keys:
        assert r.facts.get(key) == "ok", (key, r.facts, r.stderr)
    assert r.rc == 0, r.stderr


def expect_cpu_only(r: Run, reason: str | None) -> None:
    """No device: exactly one line saying why (starting with `reason` when given),
    every loop on the CPU with the right result, no profile."""
    [message] = r.messages() or [""]
    assert len(r.messages()) == 1, r.stderr
    assert message.startswith(f"pencilcc: {reason or ''}"), message
    assert message.endswith("; OpenCL regions run on the CPU"), message
    assert r.facts["available"] == "0"
    assert r.facts["device_launches"] == "0" and int(r.facts["cpu_launches"]) > 0
    assert r.profile.device is None
    expect_ok(r, "result")


# --- building ------------------------------------------------------------------

API = {"pencilcc_cl_available", "pencilcc_cl_run", "pencilcc_cl_to_host", "pencilcc_cl_host_wrote",
       "pencilcc_cl_discard", "pencilcc_cl_region_begin", "pencilcc_cl_region_end", "pencilcc_cl_keep_device_data",
       "pencilcc_cl_residency_push", "pencilcc_cl_residency_pop", "pencilcc_cl_mapping"}


def test_runtime_sources_are_the_folder_s_c_files() -> None:
    """The target links every C file of runtime/ (a file left out would leave the program with
    undefined symbols, one not there would fail the link), and the headers are there."""
    assert sorted(RUNTIME_SOURCES) == sorted(p.name for p in HEADER_DIR.glob("*.c"))
    assert len(set(RUNTIME_SOURCES)) == len(RUNTIME_SOURCES)
    assert sorted(RUNTIME_HEADERS) == sorted(p.name for p in HEADER_DIR.glob("*.h"))
    assert all(Path(path).is_file() for path in RUNTIME)


@pytest.mark.parametrize("opt", ["-O0", "-O3"])
def test_runtime_compiles_warning_free_without_opencl_symbols(opt: str, tmp_path: Path) -> None:
    undefined, defined = "", set()
    for source in RUNTIME:
        obj = tmp_path / (Path(source).stem + ".o")
        proc = subprocess.run([GCC, *WARNINGS, opt, "-c", source, "-o", str(obj)],
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stderr == "", f"{source}: {proc.stderr}"
        undefined += subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True).stdout
        defined |= set(subprocess.run(["nm", "-g", "--defined-only", "--format=just-symbols", str(obj)],
                                      capture_output=True, text=True, check=True).stdout.split())
    # OpenCL is reached through dlopen only: linking never needs -lOpenCL.
    assert "dlopen" in undefined
    assert not re.search(r"\bcl[A-Z]\w+", undefined), undefined
    # The runtime is compiled into the user's program: besides the API, only names of its own
    # (what its files share, pencilcc_rt_*: pencilcc_runtime_internal.h) are visible there.
    assert API <= defined
    assert not {name for name in defined - API if not name.startswith("pencilcc_rt_")}, defined


def test_shared_object_exports_only_the_api(tmp_path: Path) -> None:
    """Linked into a shared object (clangpass.compile's), the runtime exports its API and
    nothing else: what its files share is hidden, as when it was static in one file."""
    so = tmp_path / "rt.so"
    subprocess.run([GCC, *WARNINGS, "-O2", "-shared", "-fPIC", *RUNTIME, "-o", str(so), *RUNTIME_LIBS],
                   check=True)
    exported = subprocess.run(["nm", "-D", "--defined-only", "--format=just-symbols", str(so)],
                              capture_output=True, text=True, check=True).stdout.split()
    assert {name for name in exported if "pencilcc" in name} == API


def test_header_is_valid_cplusplus(tmp_path: Path) -> None:
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("no g++")
    src = tmp_path / "use.cc"
    src.write_text('#include "pencilcc_runtime.h"\n'
                   'int f() { return pencilcc_cl_available(); }\n')
    proc = subprocess.run([gxx, "-Wall", "-Wextra", "-pedantic", "-Werror", f"-I{HEADER_DIR}",
                           "-fsyntax-only", str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# --- launches, buffers, transfers ------------------------------------------------

@needs_device
def test_axpy_matches_cpu_and_regions_reuse_buffers(driver: Path, tmp_path: Path) -> None:
    r = run(driver, "axpy", N, 3, cache=tmp_path)
    expect_ok(r, "result")
    assert r.facts["available"] == "1" and r.facts["device_launches"] == "3"
    p = r.profile
    assert p.kernels == {"axpy": 3}
    # Two arrays, allocated once; the later two regions find both.
    assert (p.allocated, p.reused) == (2, 4)
    # Every region uploads both (region_begin: the host may have written them; it
    # wrote x) and reads back y, the only array written.
    assert p.h2d == (6, 6 * N * 8)
    assert p.d2h == (3, 3 * N * 8)
    assert (p.built, p.loaded) == (1, 0)


@needs_device
def test_two_and_three_dimensional_launches(driver: Path, tmp_path: Path) -> None:
    r = run(driver, "grid", cache=tmp_path)
    expect_ok(r, "grid2d", "grid3d")
    assert r.facts["device_launches"] == "2"
    assert r.profile.kernels == {"scale2d": 1, "fill3d": 1}


@needs_device
def test_to_host_and_host_wrote_inside_a_region(driver: Path, tmp_path: Path) -> None:
    n = 5000
    r = run(driver, "tohost", n, cache=tmp_path)
    # to_host after the writing kernel: the host saw the device's y before region_end.
    expect_ok(r, "tohost", "result")
    assert r.facts["device_launches"] == "2"
    # Uploads: x and y for the first launch, then y again after host_wrote; not x.
    assert r.profile.h2d == (3, 3 * n * 8)
    # Read-backs: to_host, then region_end.
    assert r.profile.d2h == (2, 2 * n * 8)


@needs_device
def test_same_address_with_another_size_reallocates(driver: Path, tmp_path: Path) -> None:
    r = run(driver, "resize", cache=tmp_path)
    expect_ok(r, "result")
    assert r.facts["device_launches"] == "2"
    assert (r.profile.allocated, r.profile.reused) == (4, 0)


@needs_device
def test_threads_run_kernels_concurrently(driver: Path, tmp_path: Path) -> None:
    threads, regions = 2, 5
    r = run(driver, "threads", threads, 20000, regions, cache=tmp_path)
    expect_ok(r, *(f"thread{t}" for t in range(threads)))
    launches = threads * regions * 2
    assert r.facts["device_launches"] == str(launches)
    assert r.profile.kernels == {"axpy": launches}
    assert r.profile.allocated == 2 * threads
    assert r.profile.reused == 2 * launches - 2 * threads
    # Each region uploads its x and y; another thread's region_begin between a
    # region's two launches makes its x stale again (y is newer on the device).
    assert 2 * threads * regions <= r.profile.h2d[0] <= 3 * threads * regions


@needs_device
def test_build_error_prints_log_once_and_runs_on_cpu(driver: Path, tmp_path: Path) -> None:
    r = run(driver, "builderror", cache=tmp_path)
    expect_ok(r, "result")
    assert r.facts["rc1"] == "1" and r.facts["rc2"] == "1"
    assert r.stderr.count("Build log:") == 1, r.stderr
    assert "this_is_not_declared" in r.stderr
    assert (r.profile.built, r.profile.loaded) == (0, 0)
    assert not list((tmp_path / "opencl").glob("*.clbin"))


# --- program cache on disk -------------------------------------------------------------

def cache_files(cache: Path) -> list[Path]:
    return sorted((cache / "opencl").iterdir())


@needs_device
def test_second_process_loads_program_from_disk_cache(driver: Path, tmp_path: Path) -> None:
    first = run(driver, "axpy", 1000, 2, cache=tmp_path)
    expect_ok(first, "result")
    assert (first.profile.built, first.profile.loaded) == (1, 0)
    files = cache_files(tmp_path)
    assert len(files) == 1 and files[0].suffix == ".clbin"  # no temporary left behind
    second = run(driver, "axpy", 1000, 2, cache=tmp_path)
    expect_ok(second, "result")
    assert (second.profile.built, second.profile.loaded) == (0, 1)
    assert second.facts["device_launches"] == "2"


def _truncate(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _garbage(data: bytes) -> bytes:
    return bytes((i * 7919) & 0xFF for i in range(len(data)))


def _flip_binary_byte(data: bytes) -> bytes:
    # A byte of the device binary (stored last): only the checksum can tell.
    b = bytearray(data)
    b[-10] ^= 0x5A
    return bytes(b)


def _huge_lengths(data: bytes) -> bytes:
    return data[:8] + b"\xff" * 40 + data[48:]


@needs_device
@pytest.mark.parametrize("corrupt", [_truncate, _garbage, _flip_binary_byte, _huge_lengths])
def test_corrupt_cache_entry_is_rebuilt_and_rewritten(driver: Path, tmp_path: Path,
                                                      corrupt) -> None:
    expect_ok(run(driver, "axpy", 1000, 1, cache=tmp_path), "result")
    [entry] = cache_files(tmp_path)
    entry.write_bytes(corrupt(entry.read_bytes()))
    rebuilt = run(driver, "axpy", 1000, 1, cache=tmp_path)
    expect_ok(rebuilt, "result")
    assert rebuilt.facts["device_launches"] == "1"
    assert (rebuilt.profile.built, rebuilt.profile.loaded) == (1, 0)
    assert cache_files(tmp_path) == [entry]
    again = run(driver, "axpy", 1000, 1, cache=tmp_path)
    assert (again.profile.built, again.profile.loaded) == (0, 1)


@needs_device
def test_unusable_cache_dir_means_no_disk_cache(driver: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    for _ in range(2):
        r = run(driver, "axpy", 1000, 1, cache=blocker)
        expect_ok(r, "result")
        assert (r.profile.built, r.profile.loaded) == (1, 0)
        assert r.messages() == []


@needs_device
def test_cache_dir_others_may_write_or_no_cache_env_means_no_disk_cache(driver: Path, tmp_path: Path) -> None:
    """Cached binaries are native code: a folder others may write is not used, nor any with
    PENCILCC_NO_CACHE=1."""
    shared = tmp_path / "shared"
    (shared / "opencl").mkdir(parents=True)
    (shared / "opencl").chmod(0o777)
    for _ in range(2):
        r = run(driver, "axpy", 1000, 1, cache=shared)
        expect_ok(r, "result")
        assert (r.profile.built, r.profile.loaded) == (1, 0)
    assert list((shared / "opencl").iterdir()) == []
    private = tmp_path / "private"
    for _ in range(2):
        r = run(driver, "axpy", 1000, 1, cache=private, PENCILCC_NO_CACHE="1")
        assert (r.profile.built, r.profile.loaded) == (1, 0)
    assert not (private / "opencl").exists() or list((private / "opencl").iterdir()) == []


@needs_device
def test_cache_dir_falls_back_to_xdg_then_home(driver: Path, tmp_path: Path) -> None:
    xdg, home = tmp_path / "xdg", tmp_path / "home"
    home.mkdir()
    r = run(driver, "axpy", 100, 1, XDG_CACHE_HOME=str(xdg), HOME=str(home))
    expect_ok(r, "result")
    assert len(list((xdg / "pencilcc" / "opencl").glob("*.clbin"))) == 1
    r = run(driver, "axpy", 100, 1, XDG_CACHE_HOME="", HOME=str(home))
    expect_ok(r, "result")
    assert len(list((home / ".cache" / "pencilcc" / "opencl").glob("*.clbin"))) == 1


# --- device choice ----------------------------------------------------------------

def _device_line(index: int) -> str:
    platform, device, _ = DEVICES[index]
    return f"{platform} / {device}"


def _first_cpu() -> int:
    import pyopencl as cl
    return next((i for i, d in enumerate(DEVICES) if d[2] & cl.device_type.CPU), -1)


@needs_device
def test_device_cpu_and_index_select_the_listed_device(driver: Path, tmp_path: Path) -> None:
    # 0:0 is platform 0's first device, the first of pyopencl's flat list.
    r = run(driver, "axpy", 100, 1, cache=tmp_path, PENCILCC_DEVICE="0:0")
    expect_ok(r, "result")
    assert r.profile.device == _device_line(0)
    cpu = _first_cpu()
    if cpu < 0:
        pytest.skip("no OpenCL CPU device")
    r = run(driver, "axpy", 100, 1, cache=tmp_path, PENCILCC_DEVICE="cpu")
    expect_ok(r, "result")
    assert r.facts["device_launches"] == "1"
    assert r.profile.device == _device_line(cpu)


@needs_device
def test_device_by_name_substring_ignores_case(driver: Path, tmp_path: Path) -> None:
    platform, device, _ = DEVICES[-1]
    r = run(driver, "axpy", 100, 1, cache=tmp_path, PENCILCC_DEVICE=device.swapcase())
    expect_ok(r, "result")
    assert r.facts["device_launches"] == "1"
    assert r.profile.device is not None and device in r.profile.device


def test_unmatched_device_runs_on_cpu(driver: Path, tmp_path: Path) -> None:
    r = run(driver, "axpy", 1000, 2, cache=tmp_path, PENCILCC_DEVICE="nosuchdevice")
    # Without any platform the line gives that reason instead.
    expect_cpu_only(r, "no OpenCL device matches PENCILCC_DEVICE=nosuchdevice"
                    if DEVICES else None)


def test_no_platform_runs_on_cpu(driver: Path, tmp_path: Path) -> None:
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    r = run(driver, "axpy", 1000, 2, cache=tmp_path, OCL_ICD_VENDORS=str(vendors))
    # Without an ICD loader at all the line says the library cannot be loaded.
    expect_cpu_only(r, "no OpenCL platform" if DEVICES else None)


def test_unloadable_library_runs_on_cpu(driver: Path, tmp_path: Path) -> None:
    libs = tmp_path / "lib"
    libs.mkdir()
    for name in ("libOpenCL.so.1", "libOpenCL.so"):
        (libs / name).write_text("not an ELF file\n")
    r = run(driver, "axpy", 1000, 2, cache=tmp_path, LD_LIBRARY_PATH=str(libs))
    expect_cpu_only(r, "cannot load the OpenCL library")


def _runtime_device_local_is_global() -> bool:
    """Whether the device the runtime picks by default (the first GPU, else the first device)
    has local memory of type CL_GLOBAL."""
    import pyopencl as cl
    devices = [d for p in cl.get_platforms() for d in p.get_devices()]
    device = ([d for d in devices if d.type & cl.device_type.GPU] or devices)[0]
    return device.local_mem_type == cl.device_local_mem_type.GLOBAL


@needs_device
def test_mapping_follows_the_device_unless_forced(driver: Path, tmp_path: Path) -> None:
    # auto (unset, empty or named): the direct variants where local memory is global memory.
    expected = "1" if _runtime_device_local_is_global() else "0"
    for env in ({}, {"PENCILCC_OPENCL_MAPPING": ""}, {"PENCILCC_OPENCL_MAPPING": "AUTO"}):
        r = run(driver, "mapping", cache=tmp_path, **env)
        expect_ok(r, "result")
        assert r.facts["available"] == "1" and r.facts["mapping"] == expected, (env, r.facts)
        assert r.messages() == [], r.stderr
    for value, expected in (("gpu", "0"), ("cpu", "1"), ("Cpu", "1")):
        r = run(driver, "mapping", cache=tmp_path, PENCILCC_OPENCL_MAPPING=value)
        expect_ok(r, "result")
        assert r.facts["mapping"] == expected, (value, r.facts)
    r = run(driver, "mapping", cache=tmp_path, PENCILCC_OPENCL_MAPPING="fast")
    expect_ok(r, "result")
    assert r.facts["mapping"] == ("1" if _runtime_device_local_is_global() else "0")
    assert r.messages() == ["pencilcc: PENCILCC_OPENCL_MAPPING=fast is not gpu, cpu or auto; using auto"], r.stderr


def test_without_a_device_the_mapping_is_the_staged_one(driver: Path, tmp_path: Path) -> None:
    vendors = tmp_path / "vendors"
    vendors.mkdir()
    r = run(driver, "mapping", cache=tmp_path, OCL_ICD_VENDORS=str(vendors), PENCILCC_OPENCL_MAPPING="cpu")
    expect_ok(r, "result")
    assert r.facts["available"] == "0" and r.facts["mapping"] == "0", r.facts


def test_region_calls_without_launch_never_initialise(driver: Path, tmp_path: Path) -> None:
    # Nothing is loaded, chosen or reported until a kernel is launched.
    r = run(driver, "noregion", cache=tmp_path, PENCILCC_DEVICE="nosuchdevice")
    expect_ok(r, "result")
    assert r.stderr == ""
