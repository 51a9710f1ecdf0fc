# SPDX-License-Identifier: MIT
"""-fpencil-emit-c=FILE: the optimized program as C99 with OpenMP, built without pencilcc.

Every kernel program of test_suite/kernels (the PolyBench-style suite, its C99-macro copies, its PENCIL
variants, the image, memory, three-address, value-style and privatization kernels, and
the thesis examples with the drivers of test_thesis_examples_run.py) is compiled by
`pencilcc -O3 -c -fpencil-emit-c=out.c` (the object must still be written), and `out.c`
is built by `gcc -fopenmp -O2` alone and run on two threads: its output must be gcc -O0's
of the original (harness.compare_outputs, rtol 1e-9; exactly, for the kernels that do not
print sections). Every region the record calls optimized must have been replaced in the
file. The builds start together in the background (one per CPU) and each test waits for
its own. Also: a region that fell back stays as written, so does the rest of the file,
byte for byte; an unwritable path is a clean error; several inputs need a folder.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.e2e import test_thesis_examples_run as thesis

PENCILCC = [sys.executable, "-m", "clangpass"]
FOLDERS = ("polybench", "polybench_c99", "pencil", "image", "memory", "three_address", "value_style",
           "privatization", "opencl")
# The emitted file does not keep line numbers (a region becomes its code): a program that prints
# `__LINE__` prints other numbers from it.
PROGRAMS = [p for folder in FOLDERS for p in sorted((harness.KERNELS_DIR / folder).glob("*.c"))
            if "__LINE__" not in p.read_text()]
THESIS = sorted(thesis.DRIVERS)
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]
ENV = {"PENCILCC_NO_CACHE": "1"}


def _program_id(source: Path) -> str:
    return f"{source.parent.name}/{source.stem}"


def _emitted_regions(text: str) -> int:
    return text.count("/* pencilcc: region '")


class Builds:
    """For each program: pencilcc's compile with -fpencil-emit-c, then gcc's build of the C file."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
        self.futures: dict[str, Future] = {_program_id(p): self.pool.submit(self._kernel, p) for p in PROGRAMS}
        self.futures.update({f"thesis/{name}": self.pool.submit(self._thesis, name) for name in THESIS})

    def _build(self, name: str, source: Path, extra: list[Path]) -> tuple[Path, str, dict]:
        """pencilcc -O3 -c -fpencil-emit-c on `source`, gcc -fopenmp -O2 on the C file (and
        `extra`); (the executable, the C file's text, the record)."""
        folder = self.workdir / name.replace("/", "-")
        folder.mkdir()
        emitted, obj, record = folder / "out.c", folder / "k.o", folder / "record.json"
        harness.build(PENCILCC, [source], obj, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-c",
                                                 f"-fpencil-emit-c={emitted}",
                                                 f"-foptimization-record-file={record}"], libs=(), env=ENV)
        assert obj.stat().st_size > 0, "the compile's own output"
        exe = folder / "omp"
        harness.build(["gcc"], [emitted, *extra], exe, [*harness.KERNEL_CFLAGS, "-fopenmp", "-O2"])
        return exe, emitted.read_text(), json.loads(record.read_text())

    def _kernel(self, source: Path):
        exe, text, record = self._build(_program_id(source), source, [])
        reference = exe.with_name("gcc-O0")
        harness.build(["gcc"], [source], reference, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
        return exe, text, record, harness.run(reference)

    def _thesis(self, name: str):
        folder = self.workdir / f"thesis-src-{name}"
        folder.mkdir()
        main = folder / f"{name}.c"
        main.write_text((thesis.THESIS / f"{name}.c").read_text() + thesis.PRINT_HELPERS + thesis.DRIVERS[name])
        extra = []
        if name in thesis.EXTERNAL:
            ext = folder / f"{name}_ext.c"
            ext.write_text(thesis.EXTERNAL[name])
            extra.append(ext)
        exe, text, record = self._build(f"thesis/{name}", main, extra)
        reference = folder / "gcc-O0"
        harness.build(["gcc"], [main, *extra], reference, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
        return exe, text, record, harness.run(reference)

    def result(self, name: str):
        return self.futures[name].result()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory):
    started = Builds(tmp_path_factory.mktemp("emit_c"))
    yield started
    started.pool.shutdown(wait=True, cancel_futures=True)


def _check(text: str, record: dict, expected: str, exe: Path) -> None:
    optimized = [r for r in record["regions"] if r["status"] == "optimized"]
    assert optimized, "no region optimized: the comparison would show nothing"
    assert _emitted_regions(text) == len(optimized)
    assert "cannot be written as C" not in text
    assert not re.search(r'^\s*#\s*include\s*[<"]pencil\.h[>"]', text, re.MULTILINE)   # inlined
    out = harness.run(exe, env={"OMP_NUM_THREADS": "2"})
    try:
        harness.parse_values(expected)
    except ValueError:      # a kernel that prints its own lines (test_suite/kernels/image)
        assert out == expected
        return
    assert harness.compare_outputs(expected, out, rtol=1e-9) == []


@pytest.mark.parametrize("source", [pytest.param(p, id=_program_id(p)) for p in PROGRAMS])
def test_emitted_c_builds_with_gcc_and_matches_gcc_O0(builds, source: Path) -> None:
    exe, text, record, expected = builds.result(_program_id(source))
    _check(text, record, expected, exe)


@pytest.mark.parametrize("name", THESIS)
def test_emitted_c_of_thesis_examples_matches_gcc_O0(builds, name: str) -> None:
    exe, text, record, expected = builds.result(f"thesis/{name}")
    _check(text, record, expected, exe)


def test_kernels_use_openmp_threads_and_simd(builds) -> None:
    """The pragmas are there (gemm: a parallel tile loop and vector point loops)."""
    _, text, _, _ = builds.result("polybench/gemm")
    assert "#pragma omp parallel for" in text and "#pragma omp simd" in text


# ------------------------------------------------------------------ one file, by hand
FALLBACK = r"""#include <stdio.h>
#define N 50
static int idx(int i) { return (i * 7) % N; }   /* not PENCIL: its region falls back */

static void kernel(int n, double A[N], double B[N], double C[N])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0 * B[i] + 1.0;
#pragma endscop
  /* between the regions */
#pragma scop
  for (i = 0; i < n; i++)
    C[idx(i)] = A[i] * 3.0;
#pragma endscop
}

int main(void)
{
  double A[N], B[N], C[N];
  int i;
  for (i = 0; i < N; i++) { A[i] = 0; B[i] = i; C[i] = -1; }
  kernel(N, A, B, C);
  printf("== A\n");
  for (i = 0; i < N; i++) printf("%.17g\n", A[i]);
  printf("== C\n");
  for (i = 0; i < N; i++) printf("%.17g\n", C[i]);
  return 0;
}
"""


def _pencilcc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*PENCILCC, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **ENV}, timeout=300)


def test_fallback_region_and_the_rest_stay_as_written(tmp_path: Path) -> None:
    source = tmp_path / "fb.c"
    source.write_text(FALLBACK)
    proc = _pencilcc("-O3", "-std=c99", "fb.c", "-o", "fb", "-fpencil-emit-c=fb.omp.c", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "not optimized" in proc.stderr            # the second region fell back
    text = (tmp_path / "fb.omp.c").read_text()
    first = FALLBACK.index("#pragma scop")
    end = FALLBACK.index("#pragma endscop") + len("#pragma endscop")
    # Before the first region, and from its end on (the fallback region included), byte for byte.
    assert FALLBACK[:first] in text and FALLBACK[end:] in text
    assert FALLBACK.count("#pragma scop") - 1 == text.count("#pragma scop")
    assert _emitted_regions(text) == 1
    harness.build(["gcc"], [tmp_path / "fb.omp.c"], tmp_path / "omp", ["-std=c99", "-fopenmp", "-O2"])
    expected = harness.run(tmp_path / "fb")
    assert harness.compare_outputs(expected, harness.run(tmp_path / "omp"), rtol=0) == []


def test_unwritable_path_is_a_clean_error(tmp_path: Path) -> None:
    source = tmp_path / "fb.c"
    source.write_text(FALLBACK)
    (tmp_path / "plain").write_text("a file, not a folder\n")
    for target in ("plain/out.c", "missing/out.c"):
        proc = _pencilcc("-O3", "-c", "fb.c", f"-fpencil-emit-c={target}", cwd=tmp_path)
        assert proc.returncode == 1
        assert "Traceback" not in proc.stderr
        assert f"pencilcc: error: cannot write the C of 'fb.c' to '{target}' (-fpencil-emit-c)" in proc.stderr
    proc = _pencilcc("-O3", "-c", "fb.c", "-fpencil-emit-c=fb.c", cwd=tmp_path)
    assert proc.returncode == 1 and "would overwrite the input 'fb.c'" in proc.stderr
    assert source.read_text() == FALLBACK
    proc = _pencilcc("-O3", "-c", "fb.c", "-fpencil-emit-c=", cwd=tmp_path)
    assert proc.returncode == 1 and "'-fpencil-emit-c=' expects a file name" in proc.stderr


def test_several_inputs_need_a_folder(tmp_path: Path) -> None:
    (tmp_path / "fb.c").write_text(FALLBACK.replace("int main(void)", "int run(void)"))
    plain = "/* no PENCIL here */\nint run(void);\nint main(void) { return run(); }\n"
    (tmp_path / "main.c").write_text(plain)
    proc = _pencilcc("-O3", "-c", "fb.c", "main.c", "-fpencil-emit-c=out.c", cwd=tmp_path)
    assert proc.returncode == 1
    assert "cannot specify '-fpencil-emit-c=out.c' with multiple files; name a folder" in proc.stderr
    assert not (tmp_path / "out.c").exists()
    proc = _pencilcc("-O3", "fb.c", "main.c", "-o", "prog", "-fpencil-emit-c=out/", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out" / "main.c").read_text() == plain       # nothing to replace: as written
    assert _emitted_regions((tmp_path / "out" / "fb.c").read_text()) == 1
    harness.build(["gcc"], [tmp_path / "out" / "fb.c", tmp_path / "out" / "main.c"], tmp_path / "omp",
                  ["-std=c99", "-fopenmp", "-O2"])
    assert harness.run(tmp_path / "omp") == harness.run(tmp_path / "prog")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "fb.c").write_text(FALLBACK)
    proc = _pencilcc("-O3", "-c", "fb.c", "sub/fb.c", "-fpencil-emit-c=out/", cwd=tmp_path)
    assert proc.returncode == 1 and "would write 'fb.c' twice" in proc.stderr


def test_opencl_target_and_no_parallel(tmp_path: Path) -> None:
    """-fpencil-target=opencl writes the same kind of OpenMP C (from its own schedule);
    -fno-pencil-parallel writes no thread pragma. Both give gcc -O0's results."""
    source = harness.POLYBENCH_DIR / "jacobi-2d.c"
    expected = harness.gcc_reference(source, tmp_path)
    for name, flags in (("opencl", ["-fpencil-target=opencl"]), ("serial", ["-fno-pencil-parallel"])):
        emitted = tmp_path / f"{name}.c"
        harness.build(PENCILCC, [source], tmp_path / f"{name}.o",
                      [*harness.KERNEL_CFLAGS, "-O3", "-c", *flags, f"-fpencil-emit-c={emitted}"], libs=(), env=ENV)
        text = emitted.read_text()
        assert _emitted_regions(text) == 1
        assert ("#pragma omp parallel" in text) == (name == "opencl")
        harness.build(["gcc"], [emitted], tmp_path / name, [*harness.KERNEL_CFLAGS, "-fopenmp", "-O2"])
        assert harness.compare_outputs(expected, harness.run(tmp_path / name, env={"OMP_NUM_THREADS": "2"}),
                                       rtol=1e-9) == []
