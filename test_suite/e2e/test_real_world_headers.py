# SPDX-License-Identifier: MIT
"""Real-world C read as the host compiler reads it (issue 30): `#include <omp.h>`, files
pencilcc cannot read (their reason in the record), and PENCIL code defined in user headers.

Each test builds with pencilcc -O3 (an optimisation record beside the program), checks
what the record says, and runs the program against gcc -O0.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

OMP_PROGRAM = """#include <stdio.h>
#include <omp.h>
#define N 300

static void smooth(int n, double a[N], double b[N])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    b[i] = (a[i - 1] + 2.0 * a[i] + a[i + 1]) / 4.0;
#pragma endscop
}

int main(void)
{
  static double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = (i * 37) % 101;
  smooth(N, a, b);
  printf("== threads\\n%d\\n", omp_get_max_threads() >= 1);
  printf("== b\\n");
  for (int i = 1; i < N - 1; i++)
    printf("%.17g\\n", b[i]);
  return 0;
}
"""


def _record(path: Path) -> dict:
    return json.loads(path.read_text())


def _regions(record: dict) -> list[tuple[str, str, str, str]]:
    """(function, file name, kind, status) of each region of `record`."""
    return [(r["function"], os.path.basename(r["file"]), r["kind"], r["status"]) for r in record["regions"]]


def test_a_file_including_omp_h_is_optimized_with_fopenmp(tmp_path: Path) -> None:
    source = tmp_path / "omp_user.c"
    source.write_text(OMP_PROGRAM)
    exe = tmp_path / "omp_user"
    proc, regions = harness.build_recorded([source], exe, ["-O3", "-fopenmp", "-std=gnu99"])
    assert [(label, r["status"], r["reason"]) for label, r in regions.items()] == [("smooth", "optimized", "")]
    assert "not optimized" not in proc.stderr
    assert _record(exe.with_suffix(".record.json"))["file_fallbacks"] == []
    harness.assert_matches_gcc_O0(source, exe, tmp_path, ["-fopenmp", "-std=gnu99"])


NESTED_FUNCTION = """#include <stdio.h>
#define N 64
void scale(int n, double a[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * a[i] + 1.0;
#pragma endscop
}
int apply(int x)
{
  int twice(int y) { return 2 * y; }   /* a GNU C nested function: gcc's, not clang's */
  return twice(x);
}
int main(void)
{
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  scale(N, a);
  printf("== a\\n%.17g\\n%.17g\\n== apply\\n%d\\n", a[3], a[N - 1], apply(21));
  return 0;
}
"""


def test_a_file_clang_cannot_parse_has_its_reason_in_the_record(tmp_path: Path) -> None:
    source = tmp_path / "nested.c"
    source.write_text(NESTED_FUNCTION)
    exe = tmp_path / "nested"
    proc, regions = harness.build_recorded([source], exe, ["-O3", "-std=gnu99"])
    assert regions == {}
    [entry] = _record(exe.with_suffix(".record.json"))["file_fallbacks"]
    assert entry["file"] == str(source) and entry["status"] == "fallback"
    assert entry["reason"].startswith("clang cannot parse it: "), entry
    assert "nested.c:12:" in entry["reason"], entry
    assert "clang cannot parse it" in proc.stderr
    harness.assert_matches_gcc_O0(source, exe, tmp_path, ["-std=gnu99"], threads=(1,))


def test_a_file_with_a_nul_byte_has_its_reason_in_the_record(tmp_path: Path) -> None:
    source = tmp_path / "nul.c"
    source.write_bytes(b"int x = 1;\n/* \0 */\n#pragma scop\n#pragma endscop\n")
    record = tmp_path / "nul.json"
    harness.build(PENCILCC, [source], tmp_path / "nul.o",
                  ["-O3", "-c", "-w", f"-foptimization-record-file={record}"], libs=())
    doc = _record(record)
    assert doc["regions"] == []
    assert doc["file_fallbacks"] == [{"file": str(source), "status": "fallback",
                                      "reason": "it contains a NUL byte", "reason_id": "pencil-file-unparsable"}]


KERNELS_H = """#ifndef KERNELS_H
#define KERNELS_H
#include <pencil.h>
#define N 40

/* A PENCIL function by its pencil_array parameters. */
static void blur(int n, double in[pencil_array n][n], double out[pencil_array n][n])
{
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      out[i][j] = (in[i - 1][j] + in[i + 1][j] + in[i][j - 1] + in[i][j + 1]) * 0.25;
}

/* A PENCIL function by pencil.h's attribute. */
PENCIL static void shift(int n, double a[n])
{
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 0.5 + 1.0;
}

/* A PENCIL function by the attribute written out. */
static void __attribute__((pencil)) transpose(int n, double a[n][n], double t[n][n])
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      t[j][i] = a[i][j];
}

/* A scop in a function that returns a value. */
static double total(int n, double a[n][n])
{
  double sum = 0.0;
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      sum += a[i][j];
#pragma endscop
  return sum;
}
#endif
"""

HOG_C = """#include <stdio.h>
#include "kernels.h"
#include "kernels.h"

int main(void)
{
  static double a[N][N], b[N][N], t[N][N];
  double v[N];
  for (int i = 0; i < N; i++) {
    v[i] = i;
    for (int j = 0; j < N; j++)
      a[i][j] = (i * 7 + j * 3) % 11;
  }
  blur(N, a, b);
  shift(N, v);
  transpose(N, b, t);
  printf("== total\\n%.17g\\n== v\\n", total(N, t));
  for (int i = 0; i < N; i++)
    printf("%.17g\\n", v[i]);
  printf("== t\\n");
  for (int i = 0; i < N; i++)
    printf("%.17g\\n", t[i][N / 2]);
  return 0;
}
"""


def test_pencil_functions_and_scops_of_a_header_are_optimized_where_defined(tmp_path: Path) -> None:
    """The HOG layout: static kernels in a .h, a main file without a word of PENCIL."""
    (tmp_path / "kernels.h").write_text(KERNELS_H)
    source = tmp_path / "hog.c"
    source.write_text(HOG_C)
    exe = tmp_path / "hog"
    _, regions = harness.build_recorded([source], exe, ["-O3", "-std=c99", *INCLUDE])
    record = _record(exe.with_suffix(".record.json"))
    assert sorted(_regions(record)) == [("blur", "kernels.h", "function", "optimized"),
                                        ("shift", "kernels.h", "function", "optimized"),
                                        ("total", "kernels.h", "scop", "optimized"),
                                        ("transpose", "kernels.h", "function", "optimized")], record
    assert record["file_fallbacks"] == []
    assert (tmp_path / "kernels.h").read_text() == KERNELS_H      # the user's header is never written
    harness.assert_matches_gcc_O0(source, exe, tmp_path, ["-std=c99", *INCLUDE])


INNER_H = """#ifndef INNER_H
#define INNER_H
#include "helper.h"
static void stencil(int n, double a[restrict n], double b[restrict n])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    b[i] = (a[i - 1] + a[i] + a[i + 1]) * THIRD;
#pragma endscop
}
#endif
"""
HELPER_H = "#define THIRD (1.0 / 3.0)\n"
OUTER_H = """#pragma once
#include <stdio.h>
#include "inner.h"
"""
NESTED_MAIN = """#include "outer.h"
#include <outer.h>
int main(void)
{
  double a[50] = {0}, b[50] = {0};
  for (int i = 0; i < 50; i++)
    a[i] = (i * 13) % 7;
  stencil(50, a, b);
  printf("== b\\n");
  for (int i = 1; i < 49; i++)
    printf("%.17g\\n", b[i]);
  return 0;
}
"""


def test_a_region_in_a_header_included_through_another_from_an_include_folder(tmp_path: Path) -> None:
    """main.c -> outer.h (-I folder, #pragma once, included twice) -> inner.h (include guard,
    its quoted include found in its own folder) holding the scop."""
    headers = tmp_path / "inc"
    headers.mkdir()
    (headers / "outer.h").write_text(OUTER_H)
    (headers / "inner.h").write_text(INNER_H)
    (headers / "helper.h").write_text(HELPER_H)
    source = tmp_path / "main.c"
    source.write_text(NESTED_MAIN)
    exe = tmp_path / "main"
    flags = ["-std=c99", "-I", str(headers)]
    _, regions = harness.build_recorded([source], exe, ["-O3", *flags])
    assert _regions(_record(exe.with_suffix(".record.json"))) == [("stencil", "inner.h", "scop", "optimized")]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags)


SYSTEM_H = """static void fill(int n, double a[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = i + 0.5;
#pragma endscop
}
"""


def test_headers_of_system_folders_are_never_compiled_by_pencilcc(tmp_path: Path) -> None:
    system = tmp_path / "sys"
    system.mkdir()
    (system / "vendor.h").write_text(SYSTEM_H)
    source = tmp_path / "uses_vendor.c"
    source.write_text('#include <stdio.h>\n#include <vendor.h>\n'
                      'int main(void) { double a[4]; fill(4, a); printf("== a\\n%.17g\\n", a[3]); return 0; }\n')
    exe = tmp_path / "uses_vendor"
    flags = ["-std=c99", "-Wno-unknown-pragmas", "-isystem", str(system)]
    _, regions = harness.build_recorded([source], exe, ["-O3", *flags])
    assert regions == {}
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags, threads=(1,))


SHARED_H = """#ifndef SHARED_H
#define SHARED_H
__attribute__((const)) static double square(double x) { return x * x; }
static void squares(int n, double a[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = square(a[i]) + 1.0;
#pragma endscop
}
#endif
"""


@pytest.mark.parametrize("separately", [False, True], ids=["one-command", "objects"])
def test_two_files_including_one_header_link(tmp_path: Path, separately: bool) -> None:
    """Both objects define the header's region and the wrapper of its static callee: local."""
    (tmp_path / "shared.h").write_text(SHARED_H)
    first = tmp_path / "first.c"
    first.write_text('#include "shared.h"\n'
                     'double first(void) { double a[8]; for (int i = 0; i < 8; i++) a[i] = i;'
                     ' squares(8, a); return a[7]; }\n')
    second = tmp_path / "second.c"
    second.write_text('#include <stdio.h>\n#include "shared.h"\ndouble first(void);\n'
                      'int main(void) { double a[8]; for (int i = 0; i < 8; i++) a[i] = 2 * i;'
                      ' squares(8, a); printf("== r\\n%.17g\\n%.17g\\n", a[7], first()); return 0; }\n')
    exe = tmp_path / "both"
    if separately:
        for c in (first, second):
            harness.build([*PENCILCC, "-O3", "-c"], [c], c.with_suffix(".o"), ["-std=c99"], libs=())
        harness.build(PENCILCC, [first.with_suffix(".o"), second.with_suffix(".o")], exe, [])
    else:
        _, regions = harness.build_recorded([first, second], exe, ["-O3", "-std=c99"])
        assert [r["status"] for r in regions.values()] == ["optimized", "optimized"], regions
    reference = tmp_path / "both.gcc"
    harness.build(["gcc"], [first, second], reference, ["-std=c99", "-O0"])
    assert harness.compare_outputs(harness.run(reference), harness.run(exe), rtol=0) == []


OPTIMIZE_MACROS = """#include <stdio.h>
#ifdef __OPTIMIZE__
#define SCALE 2.0
#else
#define SCALE 3.0
#endif
#ifdef __FAST_MATH__
#define SHIFT 0.5
#else
#define SHIFT 0.25
#endif

static void scale(int n, double a[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = a[i] * SCALE + SHIFT;
#pragma endscop
}

int main(void)
{
  double a[8];
  for (int i = 0; i < 8; i++)
    a[i] = i;
  scale(8, a);
  printf("== a\\n");
  for (int i = 0; i < 8; i++)
    printf("%.17g\\n", a[i]);
  return 0;
}
"""


@pytest.mark.parametrize("flags", [["-O0"], ["-O2"], ["-O3", "-ffast-math"]])
def test_regions_see_the_macros_of_the_optimization_flags(tmp_path: Path, flags: list[str]) -> None:
    """-O sets __OPTIMIZE__ and -ffast-math __FAST_MATH__ for the host compiler; libclang must see
    them too, else a region computes with the other branch of an #ifdef than the rest of the file
    (before: SCALE 3.0 in the region of a -O2 build, 2.0 in gcc's)."""
    source = tmp_path / "opt.c"
    source.write_text(OPTIMIZE_MACROS)
    exe = tmp_path / "opt"
    _, regions = harness.build_recorded([source], exe, [*flags, "-std=gnu99"])
    assert [r["status"] for r in regions.values()] == ["optimized"]
    reference = tmp_path / "ref"
    subprocess.run(["gcc", *flags, "-std=gnu99", str(source), "-o", str(reference)], check=True)
    assert harness.run(exe) == harness.run(reference)


INTRINSICS_PROGRAM = """#include <immintrin.h>
#include <stdio.h>

static void twice(int n, double a[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = 2.0 * a[i] + 1.0;
#pragma endscop
}

int main(void)
{
  double a[16], lanes[4];
  for (int i = 0; i < 16; i++)
    a[i] = i;
  twice(16, a);
  _mm256_storeu_pd(lanes, _mm256_add_pd(_mm256_loadu_pd(a), _mm256_set1_pd(0.5)));
  printf("== a\\n");
  for (int i = 0; i < 16; i++)
    printf("%.17g\\n", a[i]);
  printf("== lanes\\n");
  for (int i = 0; i < 4; i++)
    printf("%.17g\\n", lanes[i]);
  return 0;
}
"""


def test_a_file_including_immintrin_h_is_optimized(tmp_path: Path) -> None:
    """gcc's immintrin.h calls gcc builtins with gcc's signatures, which clang refuses (before: the
    whole file fell back, 'definition of builtin function __rdtsc'); the front end reads it with
    clang's own builtin headers, as clang would."""
    from clangpass.toolchain import clang_resource_include
    if clang_resource_include() is None:
        pytest.skip("no clang builtin headers installed (Debian: libclang-common-16-dev)")
    source = tmp_path / "intrinsics.c"
    source.write_text(INTRINSICS_PROGRAM)
    exe = tmp_path / "intrinsics"
    _, regions = harness.build_recorded([source], exe, ["-O3", "-mavx2", "-mfma"])
    assert [r["status"] for r in regions.values()] == ["optimized"]
    reference = tmp_path / "ref"
    subprocess.run(["gcc", "-O0", "-mavx2", "-mfma", str(source), "-o", str(reference)], check=True)
    if subprocess.run(["grep", "-q", "avx2", "/proc/cpuinfo"]).returncode == 0:
        assert harness.run(exe) == harness.run(reference)


def test_without_clang_headers_the_fallback_says_what_to_install(tmp_path: Path) -> None:
    source = tmp_path / "intrinsics.c"
    source.write_text(INTRINSICS_PROGRAM)
    env = {**os.environ, "PENCILCC_CLANG_RESOURCE_DIR": str(tmp_path / "none"), "PENCILCC_NO_CACHE": "1"}
    proc = subprocess.run([*PENCILCC, "-O3", "-mavx2", "-mfma", *INCLUDE, "-c", str(source), "-o",
                           str(tmp_path / "i.o")], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "[-Wpencil-file-unparsable]" in proc.stderr
    assert "libclang-common" in proc.stderr and "PENCILCC_CLANG_RESOURCE_DIR" in proc.stderr
