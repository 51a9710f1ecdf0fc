# SPDX-License-Identifier: MIT
"""Same source and flags, same object (issue 30, item 5; docs/architecture.md, "Deterministic
results"): whether a region is optimized, and the code it becomes, depend only on the input and
the flags, never on the machine's load, so reproducible builds and compile caches hold.

- Two `pencilcc -O3 -c` of the kernel whose analysis takes longest (3AC nussinov), one with
  the CPUs busy beside it, give the same bytes and the same record.
- A region over a deterministic bound (more statements than -fpencil-max-statements, loops
  deeper than -fpencil-max-loop-depth) falls back by that bound, not by the clock.
- `ccache pencilcc -c` (a miss, then a hit, and with `run_second_cpp = false`) and plain
  pencilcc give the same bytes; a `distccd` on localhost with pencilcc as the compiler too,
  where it can run (skipped without ccache or distcc, and where distccd, which runs compilers
  as user `distcc` when started by root, cannot run this Python).
- A preprocessed file of `pencilcc -E` (what distcc's servers and ccache with `run_second_cpp =
  false` compile) carries its sources (clangpass.driver.bundle): compiled elsewhere, without
  the sources and the preprocessing flags, it gives the object of its source, for PolyBench
  kernels and for a build folder with a region in a user header of an include folder. A `.i`
  of another preprocessor goes to the host compiler with a -Wpencil warning; a damaged bundle
  too, saying why. `pencilcc -E -MD` still writes gcc's dependency file.
- Where the compile ran leaves no trace (clangpass.prefix_map): absolute paths and -g under a
  distcc server (real and as it does) and ccache give plain pencilcc's bytes, `__FILE__` the
  client's path; gcc's own distcc object with -g is its plain one, compilation directory
  included. `-ffile-prefix-map` gives one object from two build folders, as gcc does; two
  `util.c` of two folders link into one program.

Every compile has a private TMPDIR and no compile cache of pencilcc's (PENCILCC_NO_CACHE=1).
"""
from __future__ import annotations

import json
import os
import signal
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.random.large import stencil_chain

KERNEL = harness.KERNELS_DIR / "three_address" / "polybench_3ac" / "nussinov.c"
FLAGS = [*harness.KERNEL_CFLAGS, "-O3"]
TIME_FIELDS = ("scheduling_seconds", "clustering_time", "scheduling_time")


def _environment(workdir: Path, **extra: str) -> dict[str, str]:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("PENCILCC_", "CCACHE_", "DISTCC_"))}
    (workdir / "tmp").mkdir(exist_ok=True)
    environment.update(TMPDIR=str(workdir / "tmp"), PENCILCC_NO_CACHE="1", **extra)
    return environment


def _pencilcc_command(workdir: Path, python: str = sys.executable) -> Path:
    """An executable named `pencilcc` (ccache and distcc run a compiler by name) for `python`."""
    folder = workdir / "bin"
    folder.mkdir(exist_ok=True)
    script = folder / "pencilcc"
    script.write_text(f"#!/bin/sh\nexec {python} -m clangpass \"$@\"\n")
    script.chmod(0o755)
    return script


def _compile(command: list[str], source: Path, output: Path, workdir: Path, *flags: str, absolute: bool = False,
             **env: str) -> subprocess.CompletedProcess:
    """Compile `source` in its folder, named as the command line's file name (`absolute`: its
    absolute path)."""
    name = str(source) if absolute else source.name
    proc = subprocess.run([*command, *FLAGS, *flags, "-c", name, "-o", str(output)], cwd=source.parent,
                          capture_output=True, text=True, env=_environment(workdir, **env), timeout=600)
    assert proc.returncode == 0, proc.stderr
    return proc


def _record(path: Path) -> list[dict]:
    """The record's regions without the fields that measure time."""
    return [{k: v for k, v in r.items() if k not in TIME_FIELDS} for r in json.loads(path.read_text())["regions"]]


def _copy(source: Path, workdir: Path) -> Path:
    folder = workdir / "src"
    folder.mkdir(exist_ok=True)
    shutil.copy(source, folder / source.name)
    return folder / source.name


class CpuHogs:
    """Busy processes, two per CPU, for the duration of a `with` block."""

    def __enter__(self) -> "CpuHogs":
        count = 2 * (os.cpu_count() or 1)
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
        time.sleep(0.5)
        return self

    def __exit__(self, *exc: object) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            process.wait()


# ----------------------------------------------------------------------------- load
def test_a_loaded_machine_gives_the_same_object(tmp_path: Path) -> None:
    source = _copy(KERNEL, tmp_path)
    command = [sys.executable, "-m", "clangpass"]
    _compile(command, source, tmp_path / "idle.o", tmp_path, f"-foptimization-record-file={tmp_path / 'idle.json'}")
    with CpuHogs():
        _compile(command, source, tmp_path / "busy.o", tmp_path, f"-foptimization-record-file={tmp_path / 'busy.json'}")
    [region] = _record(tmp_path / "idle.json")
    assert region["status"] == "optimized" and region["nondeterministic"] == "", region["reason"]
    assert _record(tmp_path / "busy.json") == [region]
    assert (tmp_path / "idle.o").read_bytes() == (tmp_path / "busy.o").read_bytes()


# ----------------------------------------------------------------------------- deterministic bounds
def test_too_many_statements_fall_back_by_count(tmp_path: Path) -> None:
    (tmp_path / "big.c").write_text(stencil_chain(2000))
    proc = _compile([sys.executable, "-m", "clangpass"], tmp_path / "big.c", tmp_path / "big.o", tmp_path,
                    f"-foptimization-record-file={tmp_path / 'big.json'}")
    [region] = _record(tmp_path / "big.json")
    assert region["status"] == "fallback" and region["nondeterministic"] == ""
    assert region["reason"] == ("2000 statements, more than the 1500 pencilcc analyses in one region "
                                "(-fpencil-max-statements=)")
    assert "-fpencil-max-statements=" in proc.stderr


def _deep_nest(depth: int) -> str:
    heads = "".join(f"{'  ' * k}for (int i{k} = 0; i{k} < n; i{k}++)\n" for k in range(depth))
    return (f"void deep(int n, float A[static const restrict n])\n{{\n{heads}"
            f"{'  ' * depth}A[i0] += 1.0f + i{depth - 1};\n}}\n")


@pytest.mark.parametrize("flags, status", [((), "fallback"), (("-fpencil-max-loop-depth=17",), "optimized")])
def test_a_deep_nest_falls_back_by_its_depth(tmp_path: Path, flags: tuple[str, ...], status: str) -> None:
    (tmp_path / "d.c").write_text(_deep_nest(17))
    _compile([sys.executable, "-m", "clangpass"], tmp_path / "d.c", tmp_path / "d.o", tmp_path, *flags,
             f"-foptimization-record-file={tmp_path / 'd.json'}")
    [region] = _record(tmp_path / "d.json")
    assert region["status"] == status and region["nondeterministic"] == "", region["reason"]
    if status == "fallback":
        assert region["reason"] == ("loops nested 17 deep, deeper than the 16 pencilcc analyses "
                                    "(-fpencil-max-loop-depth=)")


# ----------------------------------------------------------------------------- ccache
@pytest.mark.skipif(shutil.which("ccache") is None, reason="ccache is not installed")
@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_ccache_gives_the_object_of_pencilcc(tmp_path: Path, absolute: bool) -> None:
    """ccache runs `pencilcc -E` to hash the file, then, on a miss, compiles the source itself
    (`run_second_cpp`, its default); a hit returns the bytes it stored. With `run_second_cpp =
    false` it compiles the preprocessed output, whose bundled sources give the same object, the
    source named by a relative or an absolute path (the region symbols hash the client's)."""
    source = _copy(harness.POLYBENCH_DIR / "gemm.c", tmp_path)
    pencilcc = _pencilcc_command(tmp_path)
    _compile([str(pencilcc)], source, tmp_path / "plain.o", tmp_path, absolute=absolute)
    cache = {"CCACHE_DIR": str(tmp_path / "ccache"), "CCACHE_NOHASHDIR": "1"}
    _compile(["ccache", str(pencilcc)], source, tmp_path / "miss.o", tmp_path, absolute=absolute, **cache)
    _compile(["ccache", str(pencilcc)], source, tmp_path / "hit.o", tmp_path, absolute=absolute, **cache)
    stats = subprocess.run(["ccache", "--print-stats"], capture_output=True, text=True,
                           env=_environment(tmp_path, **cache)).stdout
    assert "direct_cache_hit\t1" in stats or "preprocessed_cache_hit\t1" in stats, stats
    plain = (tmp_path / "plain.o").read_bytes()
    assert b"__pencilcc_kernel_gemm_scop0" in plain       # the region was optimized
    assert (tmp_path / "miss.o").read_bytes() == plain
    assert (tmp_path / "hit.o").read_bytes() == plain
    # Without run_second_cpp ccache compiles the preprocessed file: the sources bundled in it.
    cache = {"CCACHE_DIR": str(tmp_path / "ccache-i"), "CCACHE_NOHASHDIR": "1", "CCACHE_NOCPP2": "1"}
    proc = _compile(["ccache", str(pencilcc)], source, tmp_path / "cpp-output.o", tmp_path, absolute=absolute,
                    **cache)
    assert "not optimized" not in proc.stderr
    assert (tmp_path / "cpp-output.o").read_bytes() == plain


# ----------------------------------------------------------------------------- preprocessed input
# What distcc strips from the command line its servers run (distcc's strip.c): the
# preprocessing and dependency-file flags.
_DISTCC_STRIPPED = ("-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
                    "-MF", "-MT", "-MQ")
_DISTCC_STRIPPED_EXACT = ("-MD", "-MMD", "-MP", "-MG", "-M", "-MM", "-nostdinc", "-undef")


def _server_flags(flags: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for a in flags:
        if skip:
            skip = False
        elif a in _DISTCC_STRIPPED:
            skip = True
        elif a in _DISTCC_STRIPPED_EXACT or a.startswith(_DISTCC_STRIPPED):
            continue
        else:
            out.append(a)
    return out


def _run(command: list[str], cwd: Path, workdir: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, env=_environment(workdir), timeout=600)


def _as_distcc_does(tmp_path: Path, cwd: Path, flags: list[str], source: str) -> tuple[bytes, bytes, str]:
    """(plain `pencilcc -c` object, object of the `.i` compiled elsewhere, the latter's stderr):
    `pencilcc -E` in `cwd`, then in a folder with none of the sources the compile of the `.i`
    with the preprocessing flags stripped, as a distcc server runs it."""
    command = [sys.executable, "-m", "clangpass"]
    plain = tmp_path / "plain.o"
    proc = _run([*command, *flags, "-c", source, "-o", str(plain)], cwd, tmp_path)
    assert proc.returncode == 0, proc.stderr
    server = tmp_path / "server"
    server.mkdir()
    proc = _run([*command, *flags, "-E", source, "-o", str(server / "distccd_1234.i")], cwd, tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = _run([*command, *_server_flags(flags), "-c", "distccd_1234.i", "-o", "out.o"], server, tmp_path)
    assert proc.returncode == 0, proc.stderr
    return plain.read_bytes(), (server / "out.o").read_bytes(), proc.stderr


@pytest.mark.parametrize("kernel", ["gemm", "jacobi-2d", "atax"])
def test_a_preprocessed_file_compiles_to_the_object_of_its_source(tmp_path: Path, kernel: str) -> None:
    """`pencilcc -E` bundles the source with the preprocessed text; the compile of the `.i`
    elsewhere, without the sources and the -D/-I flags, gives pencilcc's object of the source."""
    source = _copy(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path)
    plain, served, stderr = _as_distcc_does(tmp_path, source.parent, [*FLAGS, "-DPOLYBENCH_TIME"], source.name)
    assert b"__pencilcc_kernel_" in plain             # the region was optimized
    assert served == plain
    assert "not optimized" not in stderr


_HEADER = """#include "factor.h"
static void scale(int n, double A[static const restrict n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = A[i] * FACTOR + 1.0;
#pragma endscop
}
"""
_MAIN = """#include <stdio.h>
#include <kernels.h>
void shift(int n, int m, double B[static const restrict n][m]) {
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      B[i][j] = B[i][j] + i * OFFSET + j;
#pragma endscop
}
int main(void) { double A[10] = {0}; double B[4][5] = {{0}}; scale(10, A); shift(4, 5, B);
  printf("%f %f\\n", A[3], B[2][3]); return 0; }
"""


def test_headers_of_include_folders_and_their_regions_come_along(tmp_path: Path) -> None:
    """A build folder beside the sources (`-I ../include`, `../src/main.c`), a region in a user
    header and a macro from a -D: the same object from the `.i` elsewhere."""
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "kernels.h").write_text(_HEADER)
    (tmp_path / "include" / "factor.h").write_text("#define FACTOR 2.0\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.c").write_text(_MAIN)
    (tmp_path / "build").mkdir()
    plain, served, _ = _as_distcc_does(tmp_path, tmp_path / "build",
                                       ["-O3", "-I", "../include", "-DOFFSET=3"], "../src/main.c")
    symbols = subprocess.run(["nm", str(tmp_path / "plain.o")], capture_output=True, text=True).stdout
    assert "__pencilcc_scale_function0_" in symbols and "__pencilcc_shift_function0_" in symbols
    assert served == plain


def _layout(root: Path, main: str = _MAIN) -> Path:
    """include/ (a region in kernels.h), src/main.c and an empty build/ under `root`."""
    (root / "include").mkdir(parents=True)
    (root / "include" / "kernels.h").write_text(_HEADER)
    (root / "include" / "factor.h").write_text("#define FACTOR 2.0\n")
    (root / "src").mkdir()
    (root / "src" / "main.c").write_text(main)
    (root / "build").mkdir()
    return root / "build"


def _debug_info(data: bytes, workdir: Path) -> str:
    (workdir / "probe.o").write_bytes(data)
    return subprocess.run(["readelf", "--debug-dump=info", str(workdir / "probe.o")], capture_output=True,
                          text=True, check=True).stdout


def _comp_dirs(info: str) -> set[str]:
    return {line.rsplit(": ", 1)[1].strip() for line in info.splitlines() if "DW_AT_comp_dir" in line}


@pytest.mark.parametrize("absolute, debug", [(True, False), (False, True), (True, True)],
                         ids=["absolute", "relative-g", "absolute-g"])
def test_where_a_preprocessed_file_is_compiled_leaves_no_trace(tmp_path: Path, absolute: bool,
                                                                debug: bool) -> None:
    """Absolute paths (the region symbols hash the client's path, not the private folder's) and
    -g (the compilation directory and file names are the client's, as gcc's own `.i` compile
    writes them from the `# 1 "cwd//"` line): the object of the `.i` compiled elsewhere is the
    source's, and `__FILE__` in it names the client's file."""
    build = _layout(tmp_path, _MAIN.replace('printf("%f %f\\n", A[3], B[2][3]);',
                                           'printf("%f %f %s\\n", A[3], B[2][3], __FILE__);'))
    include, source = ("../include", "../src/main.c") if not absolute else \
        (str(tmp_path / "include"), str(tmp_path / "src" / "main.c"))
    flags = ["-O3", "-I", include, "-DOFFSET=3", "-fsave-optimization-record", "-Rpass=pencil",
             *(["-g"] if debug else [])]
    plain, served, stderr = _as_distcc_does(tmp_path, build, flags, source)
    assert "not optimized" not in stderr
    # Messages and the record name the client's files.
    assert f"{source}:3:" in stderr and "remark: region in 'shift' optimized" in stderr
    assert str(tmp_path / "tmp") not in stderr
    record = json.loads((tmp_path / "server" / "out.opt.json").read_text())["regions"]
    assert sorted(r["file"] for r in record) == sorted([include + "/kernels.h", source])
    symbols = subprocess.run(["nm", str(tmp_path / "plain.o")], capture_output=True, text=True).stdout
    assert "__pencilcc_scale_function0_" in symbols and "__pencilcc_shift_function0_" in symbols
    assert served == plain
    # Nothing of the folder the `.i` was compiled in (under TMPDIR) is in the object.
    assert str(tmp_path / "tmp").encode() not in served
    if debug:
        assert _comp_dirs(_debug_info(served, tmp_path)) == {str(build)}
    proc = _run([sys.executable, "-m", "clangpass", str(tmp_path / "server" / "out.o"), "-o", "prog"],
                tmp_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True).stdout.split()[-1] == source


def test_a_prefix_map_gives_one_object_from_two_build_folders(tmp_path: Path) -> None:
    """The same tree in two folders, built with absolute paths and -g: with
    `-ffile-prefix-map=FOLDER=/project` pencilcc's objects are the same bytes, as gcc's are (its
    DWARF names the mapped folders, the region symbols hash the mapped path); without it they
    differ, as gcc's do."""
    command = [sys.executable, "-m", "clangpass"]
    objects: dict[tuple[str, str, bool], bytes] = {}
    for tree in ("one", "two"):
        root = tmp_path / tree
        build = _layout(root)
        for compiler in ("pencilcc", "gcc"):
            for mapped in (False, True):
                output = build / f"{compiler}-{mapped}.o"
                proc = _run([*(command if compiler == "pencilcc" else ["gcc"]), "-O3", "-g", "-I",
                             str(root / "include"), "-DOFFSET=3",
                             *([f"-ffile-prefix-map={root}=/project"] if mapped else []), "-c",
                             str(root / "src" / "main.c"), "-o", str(output)], build, tmp_path)
                assert proc.returncode == 0, proc.stderr
                objects[(tree, compiler, mapped)] = output.read_bytes()
    for compiler in ("pencilcc", "gcc"):
        assert objects[("one", compiler, True)] == objects[("two", compiler, True)], compiler
        assert objects[("one", compiler, False)] != objects[("two", compiler, False)], compiler
    mapped = objects[("one", "pencilcc", True)]
    assert str(tmp_path).encode() not in mapped
    assert _comp_dirs(_debug_info(mapped, tmp_path)) == {"/project/build"}
    assert _comp_dirs(_debug_info(objects[("one", "gcc", True)], tmp_path)) == {"/project/build"}
    symbols = subprocess.run(["nm", str(tmp_path / "one" / "build" / "pencilcc-True.o")], capture_output=True,
                             text=True).stdout
    assert "__pencilcc_scale_function0_" in symbols and "__pencilcc_shift_function0_" in symbols


_UTIL = """static double twice(double x) __attribute__((const));
static double twice(double x) { return 2.0 * x; }
static void scale(int n, double A[static const restrict n]) {
#pragma scop
  for (int i = 0; i < n; i++)
    A[i] = twice(A[i]) + i * STEP;
#pragma endscop
}
void run_NAME(int n, double *A) { scale(n, A); }
"""
_TWO_UTILS_MAIN = """#include <stdio.h>
void run_one(int n, double *A);
void run_two(int n, double *A);
int main(void) {
  double A[8], B[8];
  for (int i = 0; i < 8; i++) A[i] = B[i] = i * 0.5;
  run_one(8, A); run_two(8, B);
  for (int i = 0; i < 8; i++) printf("%g %g\\n", A[i], B[i]);
  return 0;
}
"""


@pytest.mark.parametrize("where", ["top", "absolute", "own-folder"])
def test_files_of_one_name_in_two_folders_link_into_one_program(tmp_path: Path, where: str) -> None:
    """one/util.c and two/util.c, each with a static region function of the same name calling a
    static function of the same name: their objects link into one program that prints what gcc
    -O0's prints. Named `one/util.c` and `two/util.c`, or by absolute paths, their symbols differ;
    compiled each in its folder as `util.c`, the names are the same, and local, as gcc's own
    static functions are."""
    for name, step in (("one", 1), ("two", 3)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "util.c").write_text(_UTIL.replace("NAME", name).replace("STEP", str(step)))
    (tmp_path / "main.c").write_text(_TWO_UTILS_MAIN)
    command = [sys.executable, "-m", "clangpass"]
    objects = []
    for name in ("one", "two"):
        output = tmp_path / f"{name}.o"
        folder, spelt = {"top": (tmp_path, f"{name}/util.c"), "absolute": (tmp_path, str(tmp_path / name / "util.c")),
                         "own-folder": (tmp_path / name, "util.c")}[where]
        proc = _run([*command, "-O3", "-c", spelt, "-o", str(output)], folder, tmp_path)
        assert proc.returncode == 0, proc.stderr
        objects.append(output)
    symbols = []
    for output in objects:
        listing = subprocess.run(["nm", str(output)], capture_output=True, text=True, check=True).stdout
        ours = {line.split()[-1]: line.split()[-2] for line in listing.splitlines() if "__pencilcc_" in line}
        assert any(s.startswith("__pencilcc_scale_") for s in ours), listing
        assert any(s.startswith("__pencilcc_call_twice_") for s in ours), listing
        assert all(kind.islower() for kind in ours.values()), listing      # local symbols
        symbols.append(set(ours))
    if where == "own-folder":
        assert symbols[0] == symbols[1]
    else:
        assert not symbols[0] & symbols[1]
    proc = _run([*command, "-O3", *map(str, objects), "main.c", "-o", "prog"], tmp_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    proc = _run(["gcc", "-O0", "one/util.c", "two/util.c", "main.c", "-o", "ref"], tmp_path, tmp_path)
    assert proc.returncode == 0, proc.stderr
    got = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    want = subprocess.run([str(tmp_path / "ref")], capture_output=True, text=True, check=True).stdout
    assert got == want and len(want.splitlines()) == 8


def test_a_preprocessed_file_without_sources_goes_to_the_host(tmp_path: Path) -> None:
    """A `.i` from another preprocessor (gcc -E) keeps its pragmas; pencilcc compiles it with the
    host compiler and says so (-Wpencil), the same object every time; -Werror=pencil stops it.
    A damaged bundle is a warning that says why, and the host's object."""
    source = _copy(harness.POLYBENCH_DIR / "gemm.c", tmp_path)
    command = [sys.executable, "-m", "clangpass"]
    preprocessed = tmp_path / "gemm.i"
    proc = _run(["gcc", *FLAGS, "-E", source.name, "-o", str(preprocessed)], source.parent, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "#pragma scop" in preprocessed.read_text()
    first = _compile(command, preprocessed, tmp_path / "i1.o", tmp_path)
    assert "carries no sources of pencilcc's" in first.stderr
    proc = _run([*command, *FLAGS, "-Werror=pencil", "-c", "gemm.i", "-o", str(tmp_path / "e.o")], tmp_path, tmp_path)
    assert proc.returncode == 1 and not (tmp_path / "e.o").exists()
    proc = _run([*command, *FLAGS, "-E", source.name, "-o", str(tmp_path / "b.i")], source.parent, tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "b.i").read_bytes()
    (tmp_path / "b.i").write_bytes(text.replace(b"pencilcc-bundle 1 ", b"pencilcc-bundle 9 "))
    damaged = _compile(command, tmp_path / "b.i", tmp_path / "i2.o", tmp_path)
    assert "bundled in it cannot be used: it is of version 9" in damaged.stderr
    assert (tmp_path / "i1.o").read_bytes() == (tmp_path / "i2.o").read_bytes()


def test_dependency_files_of_a_preprocessing_command_stay_the_sources(tmp_path: Path) -> None:
    """`pencilcc -E -MD` writes gcc's dependency file (the source and its headers), untouched
    by the bundle's own look at the headers."""
    source = _copy(harness.POLYBENCH_DIR / "gemm.c", tmp_path)
    proc = _run([sys.executable, "-m", "clangpass", *FLAGS, "-E", "-MD", source.name, "-o", "gemm.i"],
                source.parent, tmp_path)
    assert proc.returncode == 0, proc.stderr
    depfile = (source.parent / "gemm.d").read_text()
    assert depfile.startswith("gemm.o: gemm.c ")
    proc = _run(["gcc", *FLAGS, "-E", "-MD", source.name, "-o", "gcc.i"], source.parent, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (source.parent / "gcc.d").read_text() == depfile
    assert b"/* pencilcc-bundle 1 " in (source.parent / "gemm.i").read_bytes()


# ----------------------------------------------------------------------------- distcc
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.skipif(shutil.which("distcc") is None or shutil.which("distccd") is None,
                    reason="distcc is not installed")
@pytest.mark.parametrize("absolute, flags", [(False, ()), (True, ()), (True, ("-g",))],
                         ids=["relative", "absolute", "absolute-g"])
def test_distcc_gives_the_object_of_pencilcc(tmp_path: Path, absolute: bool, flags: tuple[str, ...]) -> None:
    """distcc runs `pencilcc -E` here and sends the preprocessed file, with the sources pencilcc
    bundles in it, to the server, which runs `pencilcc -c` on it without the -I/-D flags: the
    object of the source, as plain pencilcc's, the source named by a relative or an absolute
    path, with -g too. gcc's own object of a `.i` compiled with -g on the server has the
    client's compilation directory (from the `.i`'s `# 1 "cwd//"` line) and, for a file
    without macros (whose expansion moves the columns of what follows them in the `.i`), is
    gcc's plain object: pencilcc's is too. Skipped where distccd cannot run pencilcc:
    started by root, it runs compilers as user `distcc` (or `nobody`), who may not run this
    Python (PENCILCC_TEST_DISTCC_PYTHON names one with pencilcc installed that they can run)."""
    source = _copy(harness.POLYBENCH_DIR / "gemm.c", tmp_path)
    (source.parent / "plain_c.c").write_text("int plain_c(int x) { return x + 1; }\n")
    # The daemon's user may not enter this test's folder: the command it runs and its
    # temporary files live outside it.
    shared = Path(tempfile.mkdtemp(prefix="pencilcc-distcc-"))
    shared.chmod(0o1777)
    try:
        # A Python with pencilcc installed that the daemon's user can run, where this one is not.
        pencilcc = _pencilcc_command(shared, os.environ.get("PENCILCC_TEST_DISTCC_PYTHON", sys.executable))
        pencilcc.parent.chmod(0o755)
        _compile([str(pencilcc)], source, tmp_path / "plain.o", tmp_path, *flags, absolute=absolute)
        (tmp_path / "distcc").mkdir()
        port = _free_port()
        env = _environment(tmp_path, PATH=f"{pencilcc.parent}{os.pathsep}{os.environ.get('PATH', '')}")
        env["TMPDIR"] = str(shared)
        server = subprocess.Popen(["distccd", "--daemon", "--no-detach", "--allow", "127.0.0.1", "--listen",
                                   "127.0.0.1", "--port", str(port), "--enable-tcp-insecure", "--log-stderr"],
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                  start_new_session=True)   # its preforked workers die with it (killpg)
        client = {**env, "DISTCC_HOSTS": f"127.0.0.1:{port}", "DISTCC_FALLBACK": "0",
                  "DISTCC_DIR": str(tmp_path / "distcc")}

        def distcc(name: str, output: Path, compiler: str = str(pencilcc)) -> subprocess.CompletedProcess:
            return subprocess.run(["distcc", compiler, *FLAGS, *flags, "-c", name, "-o", str(output)],
                                  cwd=source.parent, capture_output=True, text=True, timeout=600, env=client)
        try:
            time.sleep(0.5)
            assert server.poll() is None, server.stderr.read() if server.stderr else ""
            probe = distcc("plain_c.c", tmp_path / "plain_c.o")
            if probe.returncode != 0:
                pytest.skip(f"distccd cannot run pencilcc here: {probe.stderr.strip()[-300:]}")
            proc = distcc(str(source) if absolute else source.name, tmp_path / "distcc.o")
            if flags:
                gcc = distcc(str(source.parent / "plain_c.c"), tmp_path / "gcc-distcc.o", "gcc")
                assert gcc.returncode == 0, gcc.stderr
                _compile(["gcc"], source.parent / "plain_c.c", tmp_path / "gcc-plain.o", tmp_path, *flags,
                         absolute=True)
        finally:
            try:
                os.killpg(server.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            server.wait()
    finally:
        shutil.rmtree(shared, ignore_errors=True)
    assert proc.returncode == 0, proc.stderr
    assert "not optimized" not in proc.stderr, proc.stderr
    assert b"__pencilcc_kernel_gemm_scop0" in (tmp_path / "plain.o").read_bytes()
    assert (tmp_path / "distcc.o").read_bytes() == (tmp_path / "plain.o").read_bytes()
    if flags:
        gcc = (tmp_path / "gcc-distcc.o").read_bytes()
        assert gcc == (tmp_path / "gcc-plain.o").read_bytes()
        assert _comp_dirs(_debug_info(gcc, tmp_path)) == {str(source.parent)}
        assert _comp_dirs(_debug_info((tmp_path / "distcc.o").read_bytes(), tmp_path)) == {str(source.parent)}
