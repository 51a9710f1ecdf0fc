# SPDX-License-Identifier: MIT
"""-fpencil-detect: loop nests of ordinary C functions optimized without pragmas (issue 29, item 4).

- The PolyBench-style kernels with their `#pragma scop`/`#pragma endscop` lines removed (written
  into tmp by the test) are optimized under `-O3 -fpencil-detect` with the same statements,
  tiled bands, tile sizes and parallel loops as the marked kernels (the optimisation records
  compared: every kernel, record only), and a representative subset gives gcc -O0's output,
  with 1 and 2 threads.
- Ordinary C files whose loops are not static-affine compile to the very object gcc gives
  with the same flags (byte for byte): no loop nest is taken, so pencilcc hands the original
  file and the user's flags to the host compiler, which is gcc here. No warning is printed,
  even under -Werror; -Rpass-missed=pencil says why each nest was not taken.
- Pointer parameters that may overlap: the detected nest runs under a run-time alias check,
  and called with overlapping arguments the program still prints gcc -O0's output.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
PRAGMA = re.compile(r"^[ \t]*#[ \t]*pragma[ \t]+(scop|endscop)[ \t]*\n", re.MULTILINE)
SAMPLE = harness.REPO_ROOT / "test_suite" / "e2e" / "sample_project"
# What must be the same with and without the pragmas.
SAME = ("statements", "tiled_bands", "tile_sizes", "parallel_loops", "wavefronts", "vector_loops", "fusion")
# Kernels run against gcc -O0: products, a reduction-like kernel, solvers, dynamic programming,
# stencils (several nests in a time loop).
RUN = ("gemm", "atax", "covariance", "lu", "trisolv", "floyd-warshall", "jacobi-2d", "fdtd-2d")


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    monkeypatch.delenv("PENCILCC_DEBUG", raising=False)


def unmarked(kernel: str, folder: Path) -> Path:
    """The kernel's source without its scop pragma lines, in `folder`."""
    text = (harness.POLYBENCH_DIR / f"{kernel}.c").read_text()
    plain = PRAGMA.sub("", text)
    assert plain.count("\n") == text.count("\n") - 2 and "#pragma scop" not in plain
    path = folder / f"{kernel}.c"
    path.write_text(plain)
    return path


def compile_recorded(source: Path, out: Path, *flags: str) -> tuple[list[dict], str]:
    """`pencilcc -O3 -c` with a record: its regions and stderr (the build must succeed)."""
    record = out.with_suffix(".json")
    proc = subprocess.run([*PENCILCC, "-O3", *harness.KERNEL_CFLAGS, *flags, "-c", str(source), "-o", str(out),
                           f"-foptimization-record-file={record}"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return json.loads(record.read_text())["regions"], proc.stderr


def kernel_region(marked: list[dict], detected: list[dict]) -> tuple[dict, dict]:
    """The marked scop and the loop nest detected in its place (same function, same first line)."""
    [scop] = [r for r in marked if r["kind"] == "scop"]
    taken = [r for r in detected if r["function"] == scop["function"] and r["status"] == "optimized"]
    assert len(taken) == 1, [(r["line"], r["status"], r["reason"]) for r in detected
                             if r["function"] == scop["function"]]
    # The scop starts at its pragma line; without that line, its first statement is there.
    assert taken[0]["kind"] == "detected" and taken[0]["line"] == scop["line"], (scop["line"], taken[0]["line"])
    return scop, taken[0]


@pytest.mark.parametrize("kernel", harness.POLYBENCH_KERNELS)
def test_detected_nest_is_scheduled_as_the_marked_scop(kernel: str, tmp_path: Path) -> None:
    marked, _ = compile_recorded(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path / "marked.o")
    detected, err = compile_recorded(unmarked(kernel, tmp_path), tmp_path / "detected.o", "-fpencil-detect")
    scop, nest = kernel_region(marked, detected)
    assert {k: nest[k] for k in SAME} == {k: scop[k] for k in SAME}
    assert nest["alias_checks"] == scop["alias_checks"]
    # Nests not taken (main's printing loops) are no warning.
    assert "warning" not in err, err


@pytest.mark.parametrize("kernel", RUN)
def test_detected_kernel_gives_gcc_O0_output(kernel: str, tmp_path: Path) -> None:
    source = unmarked(kernel, tmp_path)
    exe = tmp_path / kernel
    record = tmp_path / "record.json"
    proc = harness.build(PENCILCC, [source], exe, ["-O3", *harness.KERNEL_CFLAGS, "-fpencil-detect",
                                                   "-Rpass=pencil", "-Rpass-missed=pencil",
                                                   f"-foptimization-record-file={record}"])
    assert "warning" not in proc.stderr, proc.stderr
    regions = json.loads(record.read_text())["regions"]
    kernel_function = f"kernel_{kernel.replace('-', '_')}"
    assert any(r["function"] == kernel_function and r["status"] == "optimized" for r in regions), regions
    # The remarks say what was taken and what was not (main prints in its loops).
    assert re.search(rf"remark: loop nest in '{kernel_function}' optimized: ", proc.stderr), proc.stderr
    assert re.search(r"remark: loop nest in 'main' not optimized: call to 'printf'.*\[-Rpass-missed=pencil\]",
                     proc.stderr), proc.stderr
    reference = harness.gcc_reference(harness.POLYBENCH_DIR / f"{kernel}.c", tmp_path)
    for threads in ("1", "2"):
        output = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, output, rtol=1e-9) == [], threads


# ----------------------------------------------------------------------------- ordinary C
def plain_file(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# Ordinary C with loops, none of them a static-affine nest of two loops or more: a loop over a
# struct's fields, a linked list, a loop calling I/O, a single loop, pointer walking.
ORDINARY = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node { int value; struct node *next; };
struct table { int rows, cols; double *cells; };

static struct node *push(struct node *head, int value)
{
  struct node *n = malloc(sizeof *n);
  if (!n)
    abort();
  n->value = value;
  n->next = head;
  return n;
}

static long total(const struct node *n)
{
  long sum = 0;
  for (; n; n = n->next)
    sum += n->value;
  return sum;
}

static void fill(struct table *t)
{
  for (int i = 0; i < t->rows; i++)
    for (int j = 0; j < t->cols; j++)
      t->cells[i * t->cols + j] = i - 0.5 * j;
}

static double trace(const double *a, int n)
{
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i * n + i];
  return s;
}

int main(int argc, char **argv)
{
  struct node *list = NULL;
  struct table t = {5, 7, NULL};
  char word[32];
  for (int i = 0; i < 10 + argc; i++)
    list = push(list, i * i);
  t.cells = calloc(35, sizeof *t.cells);
  fill(&t);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 2; j++)
      printf("%d %d %g\n", i, j, t.cells[i * 7 + j]);
  }
  strcpy(word, argv[0]);
  for (char *p = word; *p; p++)
    if (*p == '/')
      *p = '_';
  printf("%ld %g %zu\n", total(list), trace(t.cells, 5), strlen(word) > 0 ? (size_t)1 : (size_t)0);
  while (list) {
    struct node *next = list->next;
    free(list);
    list = next;
  }
  free(t.cells);
  return 0;
}
"""


@pytest.mark.parametrize("source", ["ordinary", "grid", "main"])
def test_ordinary_c_compiles_to_gccs_own_object(source: str, tmp_path: Path) -> None:
    """No nest taken: pencilcc hands the original file and flags to the host compiler (gcc),
    so the object is gcc's, byte for byte, and nothing is printed, even under -Werror."""
    path = {"ordinary": plain_file(tmp_path, "ordinary.c", ORDINARY),
            "grid": SAMPLE / "lib" / "kernels" / "grid.c", "main": SAMPLE / "src" / "main.c"}[source]
    flags = ["-O2", "-std=c99", "-Wall", "-Werror", "-I", str(SAMPLE / "include"), "-c", str(path)]
    record = tmp_path / "r.json"
    ours = subprocess.run([*PENCILCC, "-fpencil-detect", *flags, "-o", str(tmp_path / "ours.o"),
                           f"-foptimization-record-file={record}"], capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0 and ours.stderr == "", ours.stderr
    gcc = subprocess.run(["gcc", *flags, "-o", str(tmp_path / "gcc.o")], capture_output=True, text=True)
    assert gcc.returncode == 0, gcc.stderr
    assert (tmp_path / "ours.o").read_bytes() == (tmp_path / "gcc.o").read_bytes()
    regions = json.loads(record.read_text())["regions"]
    # Its loops were looked at (the file was parsed) and none was taken.
    assert regions and all(r["kind"] == "detected" and r["status"] == "fallback" and r["reason_id"]
                           for r in regions), regions


def test_missed_remarks_say_why(tmp_path: Path) -> None:
    path = plain_file(tmp_path, "ordinary.c", ORDINARY)
    proc = subprocess.run([*PENCILCC, "-O2", "-fpencil-detect", "-Rpass-missed=pencil", "-c", str(path),
                           "-o", str(tmp_path / "o.o")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    missed = re.findall(r"^.*:(\d+):\d+: remark: loop nest in '(\w+)' not optimized: .*\[-Rpass-missed=pencil\]$",
                        proc.stderr, re.MULTILINE)
    functions = {f for _, f in missed}
    assert {"fill", "trace", "main"} <= functions, proc.stderr
    assert re.search(r"loop nest in 'trace' not optimized: one loop, fewer than the 2", proc.stderr), proc.stderr
    assert re.search(r"loop nest in 'main' not optimized: call to 'printf'", proc.stderr), proc.stderr
    assert "warning" not in proc.stderr


def test_without_the_flag_nothing_is_detected(tmp_path: Path) -> None:
    source = unmarked("gemm", tmp_path)
    regions, err = compile_recorded(source, tmp_path / "g.o")
    assert regions == [] and err == ""


# ----------------------------------------------------------------------------- aliasing
OVERLAP = r"""
#include <stdio.h>

#define M 40

/* Pointers to rows: a and b may be the same memory. */
void blur(int n, double (*a)[M], const double (*b)[M])
{
  int i, j;
  for (i = 1; i < n; i++)
    for (j = 1; j < M; j++)
      a[i][j] = 0.5 * b[i - 1][j] + 0.25 * b[i][j - 1] + 1.0;
}

static void show(const char *name, double (*v)[M], int n)
{
  printf("== %s\n", name);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < M; j++)
      printf("%.17g\n", v[i][j]);
}

int main(void)
{
  static double x[M][M], y[M][M], z[M][M];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      x[i][j] = ((i * M + j) % 13) * 0.25;
      z[i][j] = ((i * M + j) % 7) - 3.0;
    }
  blur(M, x, x);          /* in place: each row reads the row just written */
  blur(M - 10, x + 1, x); /* shifted by a row */
  blur(M, y, z);          /* distinct arrays */
  show("x", x, M);
  show("y", y, M);
  return 0;
}
"""


def test_overlapping_pointers_run_the_original_code(tmp_path: Path) -> None:
    source = plain_file(tmp_path, "overlap.c", OVERLAP)
    exe = tmp_path / "overlap"
    proc, regions = harness.build_recorded([source], exe, ["-O3", "-std=c99", "-fpencil-detect", "-Rpass=pencil",
                                                           "-fpencil-thread-min-work=0",
                                                           "-fpencil-thread-start-work=0"])
    nest = regions["blur"]
    assert (nest["kind"], nest["status"]) == ("detected", "optimized"), nest
    assert nest["alias_checks"] == [["a", "b"]] and nest["parallel_loops"] >= 1, nest
    assert re.search(r"remark: loop nest in 'blur': the optimized code runs only when arrays 'a' and 'b' do not "
                     r"overlap", proc.stderr), proc.stderr
    harness.assert_matches_gcc_O0(source, exe, tmp_path, ["-std=c99"], rtol=1e-12)


def test_guarded_rewrite_of_a_detected_nest_compiles(tmp_path: Path) -> None:
    """The host's copy: the check, the call, the original statements in the else branch (with
    the `;` clang's extent leaves out of the last statement), every line where it was."""
    source = plain_file(tmp_path, "overlap.c", OVERLAP)
    keep = subprocess.run([*PENCILCC, "-O2", "-std=c99", "-fpencil-detect", "--keep", "-c", str(source),
                           "-o", str(tmp_path / "o.o")], capture_output=True, text=True, timeout=300)
    assert keep.returncode == 0, keep.stderr
    kept = Path(re.search(r"kept in '?([^'\s]+)'?", keep.stderr)[1])
    [copy] = [p for p in kept.rglob("overlap.c")]
    text = copy.read_text()
    body = text[text.index("#line 1 \"" + str(source)):]
    lines = body.splitlines()[1:]
    original = OVERLAP.splitlines()
    assert len(lines) == len(original)
    nest = next(k for k, line in enumerate(original) if line.strip().startswith("for (i = 1"))
    assert re.match(r"\s*if \(.*\) \{ .*__pencilcc_blur_detected0_\w+\(.*\); \} else \{ for \(i = 1",
                    lines[nest]), lines[nest]
    assert lines[nest + 2].rstrip().endswith("+ 1.0; };"), lines[nest + 2]
    # The lines around it are as written (up to main, whose first nest is taken too).
    main = original.index("int main(void)")
    assert lines[:nest] + lines[nest + 3:main] == original[:nest] + original[nest + 3:main]
    shutil.rmtree(kept, ignore_errors=True)
