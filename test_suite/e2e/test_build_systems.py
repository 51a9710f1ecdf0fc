# SPDX-License-Identifier: MIT
"""pencilcc as a drop-in compiler for existing builds (make and CMake).

Every build here is of ``sample_project/`` (a static library of kernels plus a
program), copied to a temporary folder, and must print exactly what the gcc
build prints:

* ``make`` with the system compiler gives the reference output, which must agree
  with an exact model of the computation (all values are dyadic rationals, so
  every evaluation order gives the same doubles);
* ``make -j2 CC=pencilcc``: same output, dependency files that name the real
  headers, optimisation records that report the PENCIL kernels ``optimized``, and
  a touched header rebuilds only the objects that include it;
* ``cmake -DCMAKE_C_COMPILER=pencilcc``: compiler detection passes, same output;
* the PENCIL CMake package (``-DUSE_PENCIL_PACKAGE=ON``): gcc builds the project
  and ``pencil_add_sources`` routes only the kernels through pencilcc.

When ``pencilcc`` is not on PATH, a wrapper script running
``python -m clangpass`` from this checkout stands in for it (CMake needs a
single executable for ``CMAKE_C_COMPILER``).  ``test_many_files`` imports the
helpers below.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Mapping, Optional, Sequence

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
SAMPLE_PROJECT = Path(__file__).resolve().parent / "sample_project"

#: Sources of the sample project holding PENCIL code -> the function that must be optimised.
KERNEL_FUNCTIONS = {
    "lib/kernels/matmul.c": "sample_matmul",   # PENCIL function
    "lib/kernels/stencil.c": "sample_heat2d",  # #pragma scop region
}
#: Every object of the Makefile build, by source path without ".c".
SAMPLE_OBJECTS = ("lib/kernels/matmul", "lib/kernels/stencil", "lib/kernels/grid", "src/main")

COMMAND_TIMEOUT = 600

#: Variables of the calling environment that would change what make and CMake do.
_BUILD_VARIABLES = ("CC", "CFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "MAKEFLAGS", "MFLAGS",
                    "MAKELEVEL", "CMAKE_GENERATOR", "CMAKE_BUILD_TYPE", "CMAKE_C_FLAGS",
                    "CMAKE_EXPORT_COMPILE_COMMANDS", "PENCIL_DIR")

needs_make = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
needs_cmake = pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is not installed")


# ---------------------------------------------------------------------------
# helpers shared with test_many_files
# ---------------------------------------------------------------------------

def build_environment(bin_dir: Path, cache_dir: Path) -> dict[str, str]:
    """The environment for a build: no inherited compiler settings, pencilcc on PATH.

    If ``pencilcc`` is not on PATH, an executable ``bin_dir/pencilcc`` running
    ``python -m clangpass`` from this checkout is put first on PATH.  pencilcc's
    compile cache goes to ``cache_dir`` so that tests neither read nor fill the
    user's cache.
    """
    env = {k: v for k, v in os.environ.items() if k not in _BUILD_VARIABLES}
    if shutil.which("pencilcc", path=env.get("PATH")) is None:
        bin_dir.mkdir(parents=True, exist_ok=True)
        wrapper = bin_dir / "pencilcc"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"PYTHONPATH='{REPO_ROOT}'${{PYTHONPATH:+:$PYTHONPATH}}\n"
            "export PYTHONPATH\n"
            f"exec '{sys.executable}' -m clangpass \"$@\"\n")
        wrapper.chmod(0o755)
        env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PENCILCC_CACHE_DIR"] = str(cache_dir)
    return env


def run_checked(cmd: Sequence[str], cwd: Path, env: Mapping[str, str]) -> str:
    """Run a command; fail the test with its output if it fails; return its stdout."""
    proc = subprocess.run(list(cmd), cwd=cwd, env=dict(env), capture_output=True, text=True,
                          timeout=COMMAND_TIMEOUT)
    assert proc.returncode == 0, (
        f"`{' '.join(cmd)}` failed with exit status {proc.returncode} in {cwd}\n"
        f"--- stdout (tail)\n{proc.stdout[-4000:]}\n--- stderr (tail)\n{proc.stderr[-4000:]}")
    return proc.stdout


def first_difference(actual: str, expected: str) -> Optional[str]:
    """None if the two outputs are equal, else a description of the first differing line."""
    if actual == expected:
        return None
    got, want = actual.splitlines(), expected.splitlines()
    for number, (g, w) in enumerate(zip(got, want), start=1):
        if g != w:
            return f"line {number}: got {g!r}, expected {w!r}"
    return f"got {len(got)} lines, expected {len(want)}"


def optimised_functions(record_path: Path) -> dict[str, str]:
    """function -> 'optimized' or 'fallback: <reason>' for the regions of one record."""
    assert record_path.is_file(), f"no optimisation record {record_path}"
    document = json.loads(record_path.read_text())
    outcome: dict[str, str] = {}
    for region in document["regions"]:
        status = region["status"]
        if status != "optimized":
            status = f"{status}: {region.get('reason', '')}"
        # Any fallback region of a function is the news worth keeping.
        if outcome.get(region["function"], "optimized") == "optimized":
            outcome[region["function"]] = status
    return outcome


def parse_dependency_file(path: Path) -> tuple[list[str], list[str]]:
    """Targets and prerequisites of the first rule of a make dependency file."""
    text = path.read_text().replace("\\\n", " ")
    first_rule = next(line for line in text.splitlines() if line.strip())
    targets, _, prerequisites = first_rule.partition(":")
    return targets.split(), prerequisites.split()


def tree_files(root: Path, skip: Sequence[str] = ()) -> set[str]:
    """Paths (relative to root) of the files below root, outside the top-level folders in skip."""
    found = set()
    for path in root.rglob("*"):
        relative = path.relative_to(root)
        if relative.parts[0] in skip or path.is_dir():
            continue
        found.add(relative.as_posix())
    return found


def mtimes(paths: Sequence[Path]) -> dict[Path, int]:
    return {p: p.stat().st_mtime_ns for p in paths}


# ---------------------------------------------------------------------------
# exact model of the sample program (src/main.c and lib/kernels/*.c)
# ---------------------------------------------------------------------------

def _ramp(rows: int, cols: int, seed: int) -> list[list[Fraction]]:
    return [[Fraction((i * 3 + j * 5 + seed) % 17 - 8) for j in range(cols)] for i in range(rows)]


def sample_model_output() -> str:
    ni, nj, nk, n, tsteps = 24, 20, 28, 32, 6
    alpha = Fraction(1, 4)
    a, b = _ramp(ni, nk, 1), _ramp(nk, nj, 2)
    c = [[sum((alpha * a[i][k] * b[k][j] for k in range(nk)), Fraction(0)) for j in range(nj)]
         for i in range(ni)]
    heat = _ramp(n, n, 3)
    scratch = [[Fraction(0)] * n for _ in range(n)]
    centre, neighbour = Fraction(1, 2), Fraction(1, 8)
    for _ in range(tsteps):
        for src, dst in ((heat, scratch), (scratch, heat)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    dst[i][j] = centre * src[i][j] + neighbour * (
                        src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1])
    lines = ["== matmul"] + ["%.17g" % float(v) for row in c for v in row]
    lines += ["== heat2d"] + ["%.17g" % float(v) for row in heat for v in row]
    lines += ["== sums",
              "ramp %.17g" % float(sum(v for row in a for v in row)),
              "matmul %.17g" % float(sum(v for row in c for v in row)),
              "heat2d %.17g" % float(sum(v for row in heat for v in row))]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# fixtures
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def build_env(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("pencilcc-env")
    return build_environment(root / "bin", root / "cache")


def copy_sample(destination: Path) -> Path:
    shutil.copytree(SAMPLE_PROJECT, destination, ignore=shutil.ignore_patterns("build", "build-*"))
    return destination


@pytest.fixture(scope="module")
def reference_output(tmp_path_factory, build_env) -> str:
    """What the gcc (system cc) build of the sample prints."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    project = copy_sample(tmp_path_factory.mktemp("gcc") / "sample")
    run_checked(["make", "-j2"], project, build_env)
    return run_checked(["./build/sample"], project, build_env)


@pytest.fixture(scope="module")
def pencilcc_make_build(tmp_path_factory, build_env) -> Path:
    """The sample built with `make -j2 CC=pencilcc CFLAGS="-O3 -fsave-optimization-record"`."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    project = copy_sample(tmp_path_factory.mktemp("make-pencilcc") / "sample")
    run_checked(["make", "-j2", "CC=pencilcc", "CFLAGS=-O3 -fsave-optimization-record"],
                project, build_env)
    return project


# ---------------------------------------------------------------------------
# the reference: make with the system compiler
# ---------------------------------------------------------------------------

@needs_make
def test_gcc_build_matches_exact_model(reference_output):
    assert first_difference(reference_output, sample_model_output()) is None


@needs_make
def test_gcc_build_is_incremental_and_clean_restores_the_tree(tmp_path, build_env):
    project = copy_sample(tmp_path / "sample")
    sources = tree_files(project)
    run_checked(["make", "-j2"], project, build_env)
    for stem in SAMPLE_OBJECTS:
        assert (project / "build" / f"{stem}.d").is_file()
    assert subprocess.run(["make", "-q"], cwd=project, env=build_env).returncode == 0
    run_checked(["make", "clean"], project, build_env)
    assert tree_files(project) == sources


# ---------------------------------------------------------------------------
# make CC=pencilcc
# ---------------------------------------------------------------------------

@needs_make
def test_make_cc_pencilcc_prints_the_gcc_output(pencilcc_make_build, reference_output, build_env):
    output = run_checked(["./build/sample"], pencilcc_make_build, build_env)
    assert first_difference(output, reference_output) is None


@needs_make
def test_make_cc_pencilcc_records_report_kernels_optimized(pencilcc_make_build):
    for source, function in KERNEL_FUNCTIONS.items():
        record = pencilcc_make_build / "build" / source.replace(".c", ".opt.json")
        assert optimised_functions(record).get(function) == "optimized", record.name


@needs_make
def test_make_cc_pencilcc_dependency_files_name_the_real_headers(
        pencilcc_make_build, tmp_path, build_env):
    gcc_project = copy_sample(tmp_path / "sample")
    run_checked(["make", "-j2"], gcc_project, build_env)
    for stem in SAMPLE_OBJECTS:
        want_targets, want = parse_dependency_file(gcc_project / "build" / f"{stem}.d")
        targets, got = parse_dependency_file(pencilcc_make_build / "build" / f"{stem}.d")
        assert targets == want_targets == [f"build/{stem}.o"]
        assert got[0] == f"{stem}.c"
        assert set(want) <= set(got), f"{stem}.d misses {set(want) - set(got)}"
        for prerequisite in got:
            # A temporary copy of a source or header would be gone by now.
            assert (pencilcc_make_build / prerequisite).is_file(), f"{stem}.d names {prerequisite}"
    # Nothing out of date: no dependency on a vanished file (with -MP it would be phony).
    assert subprocess.run(["make", "-q", "CC=pencilcc", "CFLAGS=-O3 -fsave-optimization-record"],
                          cwd=pencilcc_make_build, env=build_env).returncode == 0


@needs_make
def test_make_cc_pencilcc_writes_only_into_the_build_folder(pencilcc_make_build):
    assert tree_files(pencilcc_make_build, skip=("build",)) == tree_files(SAMPLE_PROJECT, skip=("build",))
    outputs = tree_files(pencilcc_make_build / "build")
    expected = {"sample", "libkernels.a"}
    for stem in SAMPLE_OBJECTS:
        expected |= {f"{stem}.o", f"{stem}.d"}
    records = {name for name in outputs if name.endswith(".opt.json")}
    assert outputs - records == expected
    assert records <= {f"{stem}.opt.json" for stem in SAMPLE_OBJECTS}
    for source in KERNEL_FUNCTIONS:
        assert source.replace(".c", ".opt.json") in records


@needs_make
def test_make_cc_pencilcc_touched_header_rebuilds_only_its_dependents(
        tmp_path, build_env, reference_output):
    project = copy_sample(tmp_path / "sample")
    make = ["make", "-j2", "CC=pencilcc"]
    run_checked(make, project, build_env)
    objects = [project / "build" / f"{stem}.o" for stem in SAMPLE_OBJECTS]
    assert subprocess.run([*make, "-q"], cwd=project, env=build_env).returncode == 0

    cases = {"lib/kernels/stencil_weights.h": {"lib/kernels/stencil"},
             "include/sample/matmul.h": {"lib/kernels/matmul", "src/main"}}
    for header, dependents in cases.items():
        before = mtimes(objects)
        os.utime(project / header)
        run_checked(make, project, build_env)
        after = mtimes(objects)
        rebuilt = {str(p.relative_to(project / "build"))[:-2] for p in objects if after[p] != before[p]}
        assert rebuilt == dependents, header
        assert subprocess.run([*make, "-q"], cwd=project, env=build_env).returncode == 0, header
    output = run_checked(["./build/sample"], project, build_env)
    assert first_difference(output, reference_output) is None


# ---------------------------------------------------------------------------
# CMake
# ---------------------------------------------------------------------------

def cmake_cache_value(build_dir: Path, name: str) -> str:
    match = re.search(rf"^{re.escape(name)}:[A-Z]+=(.*)$", (build_dir / "CMakeCache.txt").read_text(),
                      re.MULTILINE)
    assert match, f"{name} is not in the CMake cache"
    return match.group(1)


def cmake_compiler_id(build_dir: Path) -> str:
    (compiler_file,) = build_dir.glob("CMakeFiles/*/CMakeCCompiler.cmake")
    match = re.search(r'set\(CMAKE_C_COMPILER_ID "([^"]*)"\)', compiler_file.read_text())
    assert match
    return match.group(1)


@needs_make
@needs_cmake
def test_cmake_with_pencilcc_as_the_c_compiler(tmp_path, build_env, reference_output):
    project = copy_sample(tmp_path / "sample")
    build = project / "build-cmake"
    run_checked(["cmake", "-S", ".", "-B", str(build), "-G", "Unix Makefiles",
                 "-DCMAKE_C_COMPILER=pencilcc", "-DCMAKE_BUILD_TYPE=Release",
                 "-DCMAKE_C_FLAGS=-fsave-optimization-record"], project, build_env)
    assert Path(cmake_cache_value(build, "CMAKE_C_COMPILER")).name == "pencilcc"
    assert cmake_compiler_id(build) != "", "CMake did not identify pencilcc as a C compiler"
    run_checked(["cmake", "--build", str(build), "-j2"], project, build_env)

    output = run_checked([str(build / "sample")], project, build_env)
    assert first_difference(output, reference_output) is None
    for source, function in KERNEL_FUNCTIONS.items():
        record = build / "CMakeFiles" / "kernels.dir" / source.replace(".c", ".c.opt.json")
        assert optimised_functions(record).get(function) == "optimized", record.name


def cmake_generators() -> list:
    generators = [pytest.param("Unix Makefiles", marks=needs_make)]
    generators.append(pytest.param("Ninja", marks=pytest.mark.skipif(
        shutil.which("ninja") is None, reason="ninja is not installed")))
    return generators


@needs_cmake
@pytest.mark.parametrize("generator", cmake_generators())
def test_cmake_package_routes_only_the_kernels_through_pencilcc(
        tmp_path, build_env, reference_output, generator):
    project = copy_sample(tmp_path / "sample")
    build = project / "build-package"
    cmake_dir = run_checked(["pencilcc", "--cmake-dir"], project, build_env).strip()
    assert (Path(cmake_dir) / "PENCILConfig.cmake").is_file()
    run_checked(["cmake", "-S", ".", "-B", str(build), "-G", generator, "-DUSE_PENCIL_PACKAGE=ON",
                 f"-DPENCIL_DIR={cmake_dir}", "-DCMAKE_BUILD_TYPE=Release"], project, build_env)
    assert not Path(cmake_cache_value(build, "CMAKE_C_COMPILER")).name.startswith("pencilcc")
    run_checked(["cmake", "--build", str(build), "-j2"], project, build_env)

    output = run_checked([str(build / "sample")], project, build_env)
    assert first_difference(output, reference_output) is None
    objects = {source: build / "pencil_objects" / f"{source}.o" for source in KERNEL_FUNCTIONS}
    for source, function in KERNEL_FUNCTIONS.items():
        record = build / "pencil_objects" / f"{source}.opt.json"
        assert optimised_functions(record).get(function) == "optimized", record.name

    # The dependency file pencilcc wrote is in use: a private header of the
    # stencil recompiles the stencil and nothing else.
    before = mtimes(list(objects.values()))
    os.utime(project / "lib/kernels/stencil_weights.h")
    run_checked(["cmake", "--build", str(build), "-j2"], project, build_env)
    after = mtimes(list(objects.values()))
    rebuilt = {source for source, path in objects.items() if after[path] != before[path]}
    assert rebuilt == {"lib/kernels/stencil.c"}


_PROBE_LISTS = """\
cmake_minimum_required(VERSION 3.16)
project(probe LANGUAGES C)
find_package(PENCIL ${PROBE_VERSION} QUIET)
if(PENCIL_FOUND)
  get_target_property(runtime_includes PENCIL::runtime INTERFACE_INCLUDE_DIRECTORIES)
  add_executable(probe probe.c)
  target_link_libraries(probe PRIVATE PENCIL::runtime)
endif()
file(WRITE "${CMAKE_BINARY_DIR}/probe.txt"
  "found=${PENCIL_FOUND}\\n"
  "version=${PENCIL_VERSION}\\n"
  "executable=${PENCILCC_EXECUTABLE}\\n"
  "include_dirs=${PENCIL_INCLUDE_DIRS}\\n"
  "runtime_includes=${runtime_includes}\\n")
"""

_PROBE_SOURCE = """\
/* SPDX-License-Identifier: MIT */
#include <pencil.h>

int main(void)
{
  int n = 3;
  __pencil_assume(n > 0);
  return n - 3;
}
"""


@needs_make
@needs_cmake
def test_cmake_package_variables_and_runtime_target(tmp_path, build_env):
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "CMakeLists.txt").write_text(_PROBE_LISTS)
    (probe / "probe.c").write_text(_PROBE_SOURCE)
    cmake_dir = run_checked(["pencilcc", "--cmake-dir"], probe, build_env).strip()
    version = re.search(r"\d+\.\d+(\.\d+)?",
                        run_checked(["pencilcc", "--version"], probe, build_env)).group(0)
    include_dir = run_checked(["pencilcc", "--print-include-dir"], probe, build_env).strip()
    on_path = shutil.which("pencilcc", path=build_env["PATH"])
    # A pencilcc named explicitly wins over the one on PATH.
    chosen = tmp_path / "chosen" / "pencilcc"
    chosen.parent.mkdir()
    chosen.write_text(f"#!/bin/sh\nexec '{on_path}' \"$@\"\n")
    chosen.chmod(0o755)

    # (configure options, the pencilcc the package must pick or None if it must
    # refuse, whether to build the probe program against PENCIL::runtime)
    cases = [([], on_path, True),
             ([f"-DPENCILCC_EXECUTABLE={chosen}"], str(chosen), False),
             ([f"-DPROBE_VERSION={version}"], on_path, False),
             (["-DPROBE_VERSION=999.0"], None, False)]
    for number, (options, executable, build_probe) in enumerate(cases):
        build = tmp_path / f"build{number}"
        run_checked(["cmake", "-S", str(probe), "-B", str(build), "-G", "Unix Makefiles",
                     f"-DPENCIL_DIR={cmake_dir}", *options], probe, build_env)
        values = dict(line.split("=", 1) for line in (build / "probe.txt").read_text().splitlines())
        if executable is None:
            assert values["found"] in ("0", "FALSE", ""), options
            continue
        assert values["found"] in ("1", "TRUE"), options
        assert values["version"] == version
        assert Path(values["executable"]).resolve() == Path(executable).resolve()
        include_dirs = [Path(p).resolve() for p in values["include_dirs"].split(";")]
        assert Path(include_dir).resolve() in include_dirs
        assert values["runtime_includes"] == values["include_dirs"]
        if build_probe:
            run_checked(["cmake", "--build", str(build)], probe, build_env)
            run_checked([str(build / "probe")], probe, build_env)


@needs_make
@needs_cmake
def test_find_package_without_a_hint_after_pip_install(tmp_path, build_env):
    """`pip install` puts forwarders into <prefix>/share/cmake/PENCIL/ (cmake/prefix/), where
    find_package(PENCIL) searches for a prefix whose bin/ is on PATH: no -DPENCIL_DIR needed
    (issue 29). An editable install does not install data files: skipped there."""
    forwarder = Path(sys.prefix) / "share" / "cmake" / "PENCIL" / "PENCILConfig.cmake"
    if not forwarder.is_file() or not (Path(sys.prefix) / "bin" / "pencilcc").exists():
        pytest.skip(f"pencilcc is not pip-installed into {sys.prefix} (an editable install has no "
                    "share/cmake/PENCIL)")
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "CMakeLists.txt").write_text(_PROBE_LISTS)
    (probe / "probe.c").write_text(_PROBE_SOURCE)
    env = {**build_env, "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{build_env['PATH']}"}
    env.pop("PENCIL_DIR", None)
    build = tmp_path / "build"
    run_checked(["cmake", "-S", str(probe), "-B", str(build), "-G", "Unix Makefiles"], probe, env)
    values = dict(line.split("=", 1) for line in (build / "probe.txt").read_text().splitlines())
    assert values["found"] in ("1", "TRUE") and re.fullmatch(r"\d+\.\d+(\.\d+)?", values["version"])
    assert Path(values["executable"]).resolve() == (Path(sys.prefix) / "bin" / "pencilcc").resolve()
    run_checked(["cmake", "--build", str(build)], probe, env)
    run_checked([str(build / "probe")], probe, env)
