# SPDX-License-Identifier: MIT
"""Schedules out and in (-fpencil-save-schedule=DIR, -fpencil-load-schedule=DIR; issue 29).

A saved schedule loaded back gives the same object, byte for byte, at -O3 on the CPU
target; a hand-edited legal schedule (gemm's loops interchanged) compiles and prints what
gcc -O0 prints; an illegal one (jacobi-1d's time loop reversed, a `vector` mark over a
loop that carries a dependence) is refused with the dependence it breaks; a region with
no file is scheduled as usual (a remark says so); a file isl cannot read is an error of
the command line; an edited file is a miss of the compile cache.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
FLAGS = [*harness.KERNEL_CFLAGS, "-O3"]


def _compile(source: Path, out: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([*PENCILCC, *FLAGS, *flags, "-c", str(source), "-o", str(out)],
                          capture_output=True, text=True)


def _saved(tmp_path: Path, kernel: str, *flags: str) -> tuple[Path, Path]:
    """`kernel` compiled with -fpencil-save-schedule: its object and its one schedule file."""
    folder = tmp_path / "saved"
    obj = tmp_path / f"{kernel}.saved.o"
    proc = _compile(harness.POLYBENCH_DIR / f"{kernel}.c", obj, f"-fpencil-save-schedule={folder}", *flags)
    assert proc.returncode == 0, proc.stderr
    (schedule,) = folder.glob(f"{kernel}.*.schedule.yaml")
    return obj, schedule


@pytest.mark.parametrize("kernel", ["gemm", "2mm", "jacobi-1d", "seidel-2d", "cholesky"])
def test_a_saved_schedule_loaded_back_gives_the_same_object(tmp_path, kernel):
    saved, schedule = _saved(tmp_path, kernel)
    assert schedule.name == f"{kernel}.kernel_{kernel.replace('-', '_')}.0.schedule.yaml"
    loaded = tmp_path / f"{kernel}.loaded.o"
    proc = _compile(harness.POLYBENCH_DIR / f"{kernel}.c", loaded, f"-fpencil-load-schedule={schedule.parent}",
                    "-Rpass=pencil")
    assert proc.returncode == 0, proc.stderr
    assert f"scheduled as '{schedule}' says" in proc.stderr
    assert loaded.read_bytes() == saved.read_bytes()


GEMM_INTERCHANGED = """\
# gemm's i, k, j nest as i, j, k: the two inner loops of the band interchanged, the vector mark dropped
{domain}
child:
  mark: "parallel"
  child:
    schedule: "[ni, nj, nk] -> [{{ S_1[i, k, j] -> [(i)]; S_0[i, j] -> [(i)] }}]"
    permutable: 1
    coincident: [ 1 ]
    child:
      schedule: "[ni, nj, nk] -> [{{ S_1[i, k, j] -> [(j)]; S_0[i, j] -> [(j)] }}]"
      permutable: 1
      coincident: [ 1 ]
      child:
        schedule: "[ni, nj, nk] -> [{{ S_1[i, k, j] -> [(k)]; S_0[i, j] -> [(0)] }}]"
        permutable: 1
        child:
          sequence:
          - filter: "[ni, nj, nk] -> {{ S_0[i, j] }}"
          - filter: "[ni, nj, nk] -> {{ S_1[i, k, j] }}"
"""


def test_an_edited_legal_schedule_compiles_and_runs_as_gcc(tmp_path):
    _, schedule = _saved(tmp_path, "gemm", "--tile-size=0")
    text = schedule.read_text()
    assert '[(k)]; S_0[i, j] -> [(0)]' in text and 'mark: "vector"' in text
    domain = next(line for line in text.splitlines() if line.startswith("domain:"))
    edited = tmp_path / "edited"
    edited.mkdir()
    (edited / schedule.name).write_text(GEMM_INTERCHANGED.format(domain=domain))
    source = harness.POLYBENCH_DIR / "gemm.c"
    exe = tmp_path / "gemm"
    harness.build(PENCILCC, [source], exe, [*FLAGS, f"-fpencil-load-schedule={edited}",
                                            "-fpencil-dump=ast"])
    harness.assert_matches_gcc_O0(source, exe, tmp_path, harness.KERNEL_CFLAGS)
    proc = _compile(source, tmp_path / "g.o", f"-fpencil-load-schedule={edited}", "-fpencil-dump=ast")
    ast = proc.stderr[proc.stderr.index(";; pencilcc ast"):]
    # The loops run as the file says: j around k.
    assert ast.index("for (int c1 = 0; c1 < nj") < ast.index("for (int c2 = 0; c2 < nk")


def test_an_illegal_schedule_is_refused_with_the_dependence_it_breaks(tmp_path):
    _, schedule = _saved(tmp_path, "jacobi-1d")
    text = schedule.read_text()
    reversed_time = text.replace("S_1[t, i] -> [(t)]; S_0[t, i] -> [(t)]", "S_1[t, i] -> [(-t)]; S_0[t, i] -> [(-t)]")
    assert reversed_time != text
    schedule.write_text(reversed_time)
    proc = _compile(harness.POLYBENCH_DIR / "jacobi-1d.c", tmp_path / "j.o", f"-fpencil-load-schedule={schedule.parent}")
    assert proc.returncode == 1
    assert (f"error: loaded schedule for region 'kernel_jacobi_1d#0' ({schedule}) violates the flow dependence "
            "[tsteps, n] -> { S_1[t, i] -> S_0[t' = 1 + t, i']") in proc.stderr
    assert "(array 'A': S_1 at jacobi-1d.c:65 then S_0 at jacobi-1d.c:63) [pencil-schedule]" in proc.stderr
    assert "Traceback" not in proc.stderr and not (tmp_path / "j.o").exists()


def test_a_vector_mark_over_a_loop_that_carries_a_dependence_is_refused(tmp_path):
    _, schedule = _saved(tmp_path, "gemm", "--tile-size=0")
    text = schedule.read_text()
    k, j = "[(k)]; S_0[i, j] -> [(0)]", "[(j)]; S_0[i, j] -> [(j)]"
    schedule.write_text(text.replace(k, "@").replace(j, k).replace("@", j))   # the k loop under the mark
    proc = _compile(harness.POLYBENCH_DIR / "gemm.c", tmp_path / "g.o", f"-fpencil-load-schedule={schedule.parent}")
    assert proc.returncode == 1
    assert "error: loaded schedule for region 'kernel_gemm#0' refused" in proc.stderr
    assert "S_1[i, k, j] -> [(k)]" in proc.stderr and "carries a dependence" in proc.stderr


def test_a_schedule_of_other_statements_is_refused(tmp_path):
    _, schedule = _saved(tmp_path, "jacobi-1d")
    schedule.write_text(schedule.read_text().replace("S_1", "S_9"))
    proc = _compile(harness.POLYBENCH_DIR / "jacobi-1d.c", tmp_path / "j.o", f"-fpencil-load-schedule={schedule.parent}")
    assert proc.returncode == 1
    assert "its domain does not hold the region's statements (missing S_1; unknown S_9)" in proc.stderr


def test_a_region_without_a_file_is_scheduled_as_usual(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    plain = tmp_path / "plain.o"
    assert _compile(harness.POLYBENCH_DIR / "atax.c", plain).returncode == 0
    proc = _compile(harness.POLYBENCH_DIR / "atax.c", tmp_path / "a.o", f"-fpencil-load-schedule={empty}",
                    "-Rpass-missed=pencil")
    assert proc.returncode == 0, proc.stderr
    assert (f"remark: region 'kernel_atax#0' scheduled as usual: no schedule file "
            f"'{empty / 'atax.kernel_atax.0.schedule.yaml'}' (-fpencil-load-schedule)") in proc.stderr
    assert (tmp_path / "a.o").read_bytes() == plain.read_bytes()


@pytest.mark.parametrize("text, why", [
    ("domain: [[[\n", "is not an isl schedule tree (syntax error)"),
    ('domain: "{ S_0[i] : 0 <= i < 10 "\n', "is not an isl schedule tree"),
])
def test_a_malformed_file_is_an_error(tmp_path, text, why):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "atax.kernel_atax.0.schedule.yaml").write_text(text)
    proc = _compile(harness.POLYBENCH_DIR / "atax.c", tmp_path / "a.o", f"-fpencil-load-schedule={folder}")
    assert proc.returncode != 0
    assert f"'-fpencil-load-schedule=': '{folder / 'atax.kernel_atax.0.schedule.yaml'}' {why}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_missing_folder_is_an_error(tmp_path):
    proc = _compile(harness.POLYBENCH_DIR / "atax.c", tmp_path / "a.o", f"-fpencil-load-schedule={tmp_path / 'nope'}")
    assert proc.returncode != 0 and "cannot read the folder" in proc.stderr


def test_an_edited_file_is_a_miss_of_the_compile_cache(tmp_path):
    _, schedule = _saved(tmp_path, "gemm", "--tile-size=0")
    source = harness.POLYBENCH_DIR / "gemm.c"
    load = f"-fpencil-load-schedule={schedule.parent}"
    assert "cache miss" in _compile(source, tmp_path / "1.o", load, "-v").stderr
    assert "cache hit" in _compile(source, tmp_path / "2.o", load, "-v").stderr
    domain = next(line for line in schedule.read_text().splitlines() if line.startswith("domain:"))
    schedule.write_text(GEMM_INTERCHANGED.format(domain=domain))
    proc = _compile(source, tmp_path / "3.o", load, "-v")
    assert "cache miss" in proc.stderr, proc.stderr
    assert (tmp_path / "3.o").read_bytes() != (tmp_path / "1.o").read_bytes()
    # Saving writes files a cache hit would not: such a compile does not use the cache.
    proc = _compile(source, tmp_path / "4.o", f"-fpencil-save-schedule={tmp_path / 'again'}", "-v")
    assert "cache" not in proc.stderr and (tmp_path / "again" / schedule.name).is_file()
