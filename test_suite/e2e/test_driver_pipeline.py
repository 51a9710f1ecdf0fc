# SPDX-License-Identifier: MIT
"""The driver with optimized regions: outlining, objects, cache, records, dependency files.

The driver runs in-process with the reference outliner of `test_driver_stubs`
in place of the polyhedral path and the CPU back end, so these tests judge the
driver alone (test_polybench_pencilcc.py runs the real pipeline).
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clangpass.driver import compile as driver_compile
from clangpass.driver import main as driver_main
from clangpass.driver.rewrite import outline_regions
from clangpass.frontend import parse_file
from clangpass.regions import find_regions
from clangpass.toolchain import host_cc
from test_suite.e2e import test_driver_stubs as stubs

CC = host_cc()

HEADER = "#define N 12\nstatic inline double half(double v) { return v * 0.5; }\n"

KERNEL = r"""#include <stdio.h>
#include "k.h"

static void kernel(int n, double A[N][N], double x[N], double *sum)
{
  int i, j;
  double s = 0.0;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = half(A[i][j]) + x[j];
  for (i = 0; i < n; i++)
    s += A[i][i];
#pragma endscop
  *sum = s;
}

static double total(int n, double v[static const restrict n])
{
  double t = 0;
  for (int i = 0; i < n; i++) t += v[i];
  return t;
}

static int first_negative(int n, int v[N])
{
  int k = -1;
#pragma scop
  for (int i = 0; i < n; i++)
    if (v[i] < 0) { k = i; goto done; }
#pragma endscop
done:
  return k;
}

int main(void)
{
  static double A[N][N], x[N];
  int v[N];
  double sum;
  int unused_later;
  for (int i = 0; i < N; i++) {
    x[i] = i + 1;
    v[i] = 5 - i;
    for (int j = 0; j < N; j++)
      A[i][j] = i * N + j;
  }
  kernel(N, A, x, &sum);
  printf("%.17g %.17g %d\n", sum, total(N, x), first_negative(N, v));
  return 0;
}
"""

FLAGS = ["-std=c99", "-O1", "-Wall", "-Wextra", "-Wno-unknown-pragmas"]


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "k.h").write_text(HEADER)
    (tmp_path / "k.c").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PENCILCC_NO_CACHE", raising=False)
    monkeypatch.delenv("PENCILCC_DEBUG", raising=False)
    stubs.install(monkeypatch)
    return tmp_path


def pencilcc(capfd: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    status = driver_main.main(list(argv))
    return status, capfd.readouterr().err


def run_program(path: Path) -> str:
    return subprocess.run([str(path.resolve())], capture_output=True, text=True, check=True).stdout


def reference(project: Path) -> tuple[str, str]:
    """gcc's warnings and program output for the original file."""
    proc = subprocess.run([*CC, *FLAGS, "k.c", "-o", "ref"], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr, run_program(project / "ref")


# ----------------------------------------------------------------------------- outlining
def test_rewrite_keeps_every_line_and_column(project: Path) -> None:
    module = parse_file("k.c").module
    regions = [r for r in find_regions(module) if not r.problems]
    assert [r.kind for r in regions] == ["scop", "function"]
    original = (project / "k.c").read_bytes()
    text = outline_regions(original, regions, "k.c").decode()
    lines = text.splitlines()
    assert lines[0] == '#line 1 "<pencilcc outlined regions>"'
    assert lines[1].startswith("extern void __pencilcc_kernel_scop0_")
    assert "extern double __pencilcc_total_function0_" in lines[1]
    assert "(int, void *, void *, void *);" in lines[1]        # n, A, x, &s
    assert lines[2] == '#line 1 "k.c"'
    body = lines[3:]
    assert len(body) == len(original.decode().splitlines())
    for number, (old, new) in enumerate(zip(original.decode().splitlines(), body), start=1):
        if "#pragma" not in old and not (8 <= number <= 14) and not (19 <= number <= 23):
            assert old == new, number
    assert body[7].strip() == "{ (void)i; (void)j; " + regions[0].symbol + "(n, A, x, &s); }"
    assert body[18].strip().startswith("{ return " + regions[1].symbol + "(n, v); }")
    assert "#pragma scop" in body[27]            # the goto region falls back: untouched


NO_NEW_WARNINGS = r"""#include <stdio.h>
static double weighted(int n, const double w[n], double *out)
{
  double local[64];
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    local[i] = w[i] * 2.0;
  for (i = 0; i < n; i++)
    out[i] = local[i] + 1.0;
#pragma endscop
  return out[0];
}
int main(void)
{
  double w[8] = {1, 2, 3, 4, 5, 6, 7, 8}, out[8];
  printf("%g\n", weighted(8, w, out));
  return 0;
}
"""


def test_outlining_adds_no_warning(project: Path, capfd) -> None:
    """A fresh local array filled by a region, a const array read by it: nothing to say."""
    (project / "w.c").write_text(NO_NEW_WARNINGS)
    module = parse_file("w.c").module
    header = outline_regions(NO_NEW_WARNINGS.encode(), find_regions(module), "w.c").decode().splitlines()[1]
    assert "(int, const void *, void *, void *);" in header       # n, w, local, out
    status, err = pencilcc(capfd, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas",
                           "-Wnested-externs", "-Wmissing-prototypes", "w.c", "-o", "w")
    assert status == 0 and err == ""
    assert run_program(project / "w") == "3\n"


def test_same_warnings_and_output_as_cc(project: Path, capfd) -> None:
    ref_err, ref_out = reference(project)
    status, err = pencilcc(capfd, *FLAGS, "k.c", "-o", "prog")
    assert status == 0, err
    pencil_warnings = [line for line in err.splitlines() if "[-Wpencil-goto]" in line]
    assert len(pencil_warnings) == 1 and "'goto' statement inside the region" in pencil_warnings[0]
    host_part = "\n".join(line for line in err.splitlines()
                          if "[-Wpencil" not in line and not line.startswith(("#pragma", "^")))
    assert "unused_later" in ref_err
    # Same messages at the same lines and columns as cc on the original file.
    assert re.findall(r"k\.c:\d+:\d+: \w+: .*", host_part) == re.findall(r"k\.c:\d+:\d+: \w+: .*", ref_err)
    assert run_program(project / "prog") == ref_out


def test_object_holds_the_outlined_functions_and_is_deterministic(project: Path, capfd,
                                                                   monkeypatch) -> None:
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    assert pencilcc(capfd, *FLAGS, "-c", "k.c", "-o", "a.o")[0] == 0
    assert pencilcc(capfd, *FLAGS, "-c", "k.c", "-o", "b.o")[0] == 0
    assert (project / "a.o").read_bytes() == (project / "b.o").read_bytes()
    symbols = subprocess.run(["nm", "a.o"], capture_output=True, text=True, check=True).stdout
    # Local to the object: the same file built twice (other -D) links into one program.
    assert re.search(r" t __pencilcc_kernel_scop0_\w+", symbols)
    assert re.search(r" t __pencilcc_total_function0_\w+", symbols)
    assert sorted(p.name for p in project.iterdir()) == ["a.o", "b.o", "k.c", "k.h"]


def test_separate_compile_and_link(project: Path, capfd) -> None:
    _, ref_out = reference(project)
    (project / "lib.c").write_text("int lib_value(void) { return 7; }\n")
    assert pencilcc(capfd, *FLAGS, "-c", "k.c", "lib.c")[0] == 0
    assert (project / "k.o").is_file() and (project / "lib.o").is_file()
    status, err = pencilcc(capfd, "-v", "k.o", "lib.o", "-o", "prog")
    assert status == 0, err
    assert run_program(project / "prog") == ref_out


def test_link_adds_runtime_flags_last(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, "-v", *FLAGS, "k.c", "-lc", "-o", "prog")
    assert status == 0
    link = [line for line in err.splitlines() if line.startswith(f" {CC[0]} ") and "prog" in line][-1]
    assert link.rstrip().endswith(f"{' '.join(stubs.STUB_LINK_FLAGS)} -o {link.split()[-1]}")
    assert link.index(" -lc ") < link.index(" -lm ")


# ----------------------------------------------------------------------------- cache
def test_cache_hit_gives_the_same_object_and_warnings(project: Path, capfd, monkeypatch) -> None:
    status, first = pencilcc(capfd, "-v", *FLAGS, "-c", "k.c", "-o", "one.o")
    assert status == 0 and "cache miss for 'k.c'" in first
    status, second = pencilcc(capfd, "-v", *FLAGS, "-c", "k.c", "-o", "two.o")
    assert status == 0 and "cache hit for 'k.c'" in second
    assert (project / "one.o").read_bytes() == (project / "two.o").read_bytes()
    for message in ("unused_later", "'goto' statement inside the region"):
        assert message in first and message in second
    # Editing a header the file includes is a miss.
    (project / "k.h").write_text(HEADER.replace("12", "13"))
    assert "cache miss" in pencilcc(capfd, "-v", *FLAGS, "-c", "k.c", "-o", "three.o")[1]
    # Other flags: a miss.
    assert "cache miss" in pencilcc(capfd, "-v", *FLAGS, "-O2", "-c", "k.c", "-o", "four.o")[1]
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    status, bypass = pencilcc(capfd, "-v", *FLAGS, "-c", "k.c", "-o", "five.o")
    assert status == 0 and "cache" not in bypass
    assert (project / "five.o").read_bytes() == (project / "three.o").read_bytes()


def test_cache_hit_in_a_link_keeps_runtime_flags(project: Path, capfd) -> None:
    assert pencilcc(capfd, "-v", *FLAGS, "k.c", "-o", "p1")[0] == 0
    status, err = pencilcc(capfd, "-v", *FLAGS, "k.c", "-o", "p2")
    assert status == 0 and "cache hit" in err
    link = [line for line in err.splitlines() if line.startswith(f" {CC[0]} ")][-1]
    assert " -lm -o " in link
    assert run_program(project / "p2") == run_program(project / "p1")


def test_files_without_regions_skip_the_cache(project: Path, capfd) -> None:
    (project / "plain.c").write_text("int f(int x) { return x * 2; }\n")
    status, err = pencilcc(capfd, "-v", "-c", "plain.c")
    assert status == 0 and "cache" not in err and not (project / "cache").exists()


# ----------------------------------------------------------------------------- dependency files
@pytest.mark.parametrize("cached", [False, True])
def test_depfile_names_the_real_source_and_headers(project: Path, capfd, cached: bool) -> None:
    (project / "obj").mkdir()
    if cached:
        assert pencilcc(capfd, *FLAGS, "-c", "k.c", "-o", "warm.o")[0] == 0
    status, err = pencilcc(capfd, *FLAGS, "-MMD", "-MP", "-c", "k.c", "-o", "obj/k.o")
    assert status == 0, err
    deps = (project / "obj" / "k.d").read_text()
    assert deps.startswith("obj/k.o: k.c k.h")
    assert "\nk.h:\n" in deps                  # -MP
    assert "pencilcc-" not in deps and "/tmp" not in deps
    status, _ = pencilcc(capfd, *FLAGS, "-MD", "-MF", "custom.dep", "-MT", "target", "-c", "k.c")
    assert status == 0
    full = (project / "custom.dep").read_text()
    assert full.startswith("target: k.c") and "stdio.h" in full and "k.h" in full


# ----------------------------------------------------------------------------- records, diagnostics
def test_optimization_record_fields(project: Path, capfd) -> None:
    (project / "build").mkdir()
    status, _ = pencilcc(capfd, *FLAGS, "-fsave-optimization-record", "-c", "k.c", "-o", "build/k.o")
    assert status == 0
    record = json.loads((project / "build" / "k.opt.json").read_text())
    assert record["source"] == "k.c"
    regions = record["regions"]
    assert [(r["function"], r["kind"], r["status"]) for r in regions] == [
        ("kernel", "scop", "optimized"), ("total", "function", "optimized"),
        ("first_negative", "scop", "fallback")]
    assert set(regions[0]) == {"function", "file", "line", "kind", "symbol", "status", "reason",
                               "statements", "tiled_bands", "tile_sizes", "parallel_loops",
                               "wavefronts", "parallel_regions", "thread_teams", "alias_checks",
                               "fusion", "fusion_reason", "streaming_bands", "source_order", "source_order_reason",
                               "reordered_bands", "vector_loops", "register_tiled_bands", "jammed_loops", "jam_expanded_scalars",
                               "untiled_reason", "split_statements", "pragmas", "local_variables",
                               "privatized_arrays", "demoted_scalars", "kept_variables", "scheduling_seconds", "target", "mapping",
                               "approximated_accesses", "clustering", "scheduled_statements",
                               "dependences_before_clustering", "dependences_after_clustering",
                               "clustering_problems", "clustering_time", "scheduling_time", "nondeterministic",
                               "reason_id", "storage", "schedule_file", "schedule_loaded", "schedule_problems",
                               "label", "tile_sizes_from", "tile_bands", "tile_size_problems", "ordered_bands",
                               "packed_panels", "packed_arrays", "row_blocks", "exact_reductions", "expanded_scalars"}
    assert all(r["nondeterministic"] == "" for r in regions)
    assert [r["reason_id"] for r in regions] == ["", "", "pencil-goto"]
    # The target that emitted it (these tests stand the stub `reference` target in for `cpu`).
    assert (regions[0]["target"], regions[0]["mapping"]) == ("reference", {})
    assert (regions[2]["target"], regions[2]["mapping"]) == ("", {})      # a fallback: the host compiler's
    assert regions[0]["line"] == 8 and regions[0]["file"] == "k.c"
    assert regions[0]["symbol"].startswith("__pencilcc_kernel_scop0_")
    assert regions[2]["symbol"] == "" and "goto" in regions[2]["reason"]
    status, _ = pencilcc(capfd, *FLAGS, "-foptimization-record-file=elsewhere.json", "k.c", "-o", "prog")
    assert status == 0 and len(json.loads((project / "elsewhere.json").read_text())["regions"]) == 3
    status, _ = pencilcc(capfd, *FLAGS, "-fsave-optimization-record", "k.c", "-o", "prog")
    assert status == 0 and (project / "prog.opt.json").is_file()


def test_werror_pencil_fails_without_output(project: Path, capfd) -> None:
    (project / "k.o").write_text("previous")
    status, err = pencilcc(capfd, *FLAGS, "-Werror=pencil", "-c", "k.c")
    assert status == 1
    assert re.search(r"k\.c:28:1: error: region in 'first_negative' not optimized.*goto", err)
    assert (project / "k.o").read_text() == "previous"
    status, err = pencilcc(capfd, *FLAGS, "-Werror=pencil", "-Wno-error=pencil", "-c", "k.c")
    assert status == 0 and "warning: region in 'first_negative'" in err
    status, err = pencilcc(capfd, *FLAGS, "-Wno-pencil", "-c", "k.c")
    assert status == 0 and "[-Wpencil" not in err
    # -Werror covers -Wpencil, unless -Wno-error=pencil.
    status, err = pencilcc(capfd, "-std=c99", "-Werror", "-c", "k.c")
    assert status == 1 and "error: region in 'first_negative'" in err
    status, err = pencilcc(capfd, "-std=c99", "-Werror", "-Wno-error=pencil", "-c", "k.c")
    assert status == 0 and "warning: region in 'first_negative'" in err


def test_remarks(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, *FLAGS, "-Rpass=pencil", "-Rpass-missed=pencil", "-c", "k.c")
    assert status == 0
    assert "remark: region in 'kernel' optimized" in err
    assert "remark: region in 'first_negative' missed" in err


def test_timings_with_v(project: Path, capfd, monkeypatch) -> None:
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    status, err = pencilcc(capfd, "-v", *FLAGS, "-c", "k.c")
    assert status == 0
    assert "pass timings for region 'kernel#0'" in err and "reference-outliner" in err
    assert re.search(r"^ \S*cc\b.* -c \S+/k\.c -o ", err, re.MULTILINE)      # commands are printed


# ----------------------------------------------------------------------------- -S, --keep
def test_assembly_holds_both_parts(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, *FLAGS, "-S", "k.c")
    assert status == 0, err
    host, regions = (project / "k.s").read_text().split("# pencilcc: outlined regions\n")
    assert "main:" in host and re.search(r"^__pencilcc_kernel_scop0_\w+:", regions, re.MULTILINE)
    # The regions' symbols are local to the file (localize_in_assembly), as in an object.
    assert ".globl\t__pencilcc_" not in regions
    status, err = pencilcc(capfd, *FLAGS, "-S", "-emit-llvm", "k.c", "-o", "k.ll")
    assert status == 0 and (project / "k.ll").read_text() == "; regions\n"


def test_keep_prints_and_keeps_the_outlined_copy(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, *FLAGS, "--keep", "-c", "k.c")
    assert status == 0
    kept = Path(re.search(r"intermediate files kept in (\S+)", err).group(1))
    try:
        copies = list(kept.glob("src-*/k.c"))
        assert len(copies) == 1 and '#line 1 "k.c"' in copies[0].read_text()
    finally:
        import shutil

        shutil.rmtree(kept)


# ----------------------------------------------------------------------------- host compile ahead
_BACK_END_DONE = "stub back end: done"


def _copy_compiles(err: str) -> list[str]:
    """The -v lines of the host compiling the rewritten copy (src-*/k.c) into an object."""
    return [line for line in err.splitlines() if re.search(r"/src-[^/ ]+/k\.c -o ", line) and " -c " in line]


def test_the_host_compiles_the_rewritten_copy_while_the_back_end_runs(project: Path, capfd, monkeypatch) -> None:
    """The analysis child tells the driver every region's outcome before its back end runs, and
    the host's compile of the rewritten copy starts then (clangpass.driver.ahead): its command is
    echoed before the back end ends, it runs once, and the program is gcc's."""
    _, ref_out = reference(project)

    def slow(units, options, name):
        time.sleep(1.0)        # the back end's time, which the host's compile no longer waits for
        obj = stubs.reference_emit_object(units, options, name)
        os.write(2, f"{_BACK_END_DONE}\n".encode())
        return obj

    stubs.install(monkeypatch, emit=slow)
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    status, err = pencilcc(capfd, *FLAGS, "-v", "k.c", "-o", "prog")
    assert status == 0, err
    compiles = _copy_compiles(err)
    assert len(compiles) == 1, err
    assert err.index(compiles[0]) < err.index(_BACK_END_DONE)
    assert run_program(project / "prog") == ref_out


def test_a_host_compile_started_ahead_is_dropped_when_the_outcomes_change(project: Path, capfd,
                                                                          monkeypatch) -> None:
    """The back end fails after the outcomes were sent: the regions fall back, the copy compiled
    ahead no longer is the file to build, and the host compiles the original (no second copy)."""
    _, ref_out = reference(project)

    def broken(units, options, name):
        time.sleep(0.5)
        raise RuntimeError("no code for you")

    stubs.install(monkeypatch, emit=broken)
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    status, err = pencilcc(capfd, *FLAGS, "-v", "k.c", "-o", "prog")
    assert status == 0, err
    assert len(_copy_compiles(err)) == 1, err
    assert "internal error in the back end" in err
    assert run_program(project / "prog") == ref_out


# ----------------------------------------------------------------------------- failures of ours
def test_back_end_failure_falls_back_to_the_host(project: Path, capfd, monkeypatch) -> None:
    _, ref_out = reference(project)

    def broken(units, options, name):
        raise RuntimeError("no code for you")

    stubs.install(monkeypatch, emit=broken)
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    status, err = pencilcc(capfd, *FLAGS, "k.c", "-o", "prog")
    assert status == 0
    assert "internal error in the back end (RuntimeError: no code for you)" in err
    assert run_program(project / "prog") == ref_out
    monkeypatch.setenv("PENCILCC_DEBUG", "1")
    with pytest.raises(RuntimeError):
        driver_main.main([*FLAGS, "k.c", "-o", "prog"])


def test_pass_failure_falls_back_to_the_host(project: Path, capfd, monkeypatch) -> None:
    def broken(region, module, options, dumps, pipeline):
        raise ValueError("bad schedule")

    stubs.install(monkeypatch, optimise=broken)
    status, err = pencilcc(capfd, *FLAGS, "-c", "k.c")
    assert status == 0
    assert "internal error in the polyhedral path (ValueError: bad schedule)" in err


def test_host_rejecting_the_outlined_copy_falls_back(project: Path, capfd, monkeypatch) -> None:
    monkeypatch.setattr(driver_compile, "outline_regions",
                        lambda text, regions, path, guards=None, **_: b"this is not C\n")
    status, err = pencilcc(capfd, *FLAGS, "-c", "k.c")
    assert status == 0, err
    assert "rejected the outlined copy" in err
    assert (project / "k.o").is_file()


def test_user_errors_come_from_the_original_file(project: Path, capfd) -> None:
    (project / "k.c").write_text(KERNEL.replace("return 0;\n}", "return undeclared_name;\n}"))
    status, err = pencilcc(capfd, *FLAGS, "-c", "k.c")
    assert status == 1
    assert re.search(r"k\.c:\d+:\d+: error: .undeclared_name. undeclared", err)
    assert "pencilcc-" not in err and not (project / "k.o").exists()


def test_internal_error_is_reported_not_raised(project: Path, capfd, monkeypatch) -> None:
    def broken(self):
        raise KeyError("boom")

    monkeypatch.setattr(driver_main.Driver, "run", broken)
    status, err = pencilcc(capfd, "-c", "k.c")
    assert status == driver_main.EXIT_INTERNAL_ERROR
    assert err.startswith("pencilcc: internal error: KeyError: 'boom'") and "report" in err
    assert "Traceback" not in err


def test_no_temporary_directory_is_left_behind(project: Path, capfd, monkeypatch) -> None:
    monkeypatch.setenv("TMPDIR", str(project / "tmp"))
    (project / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    assert pencilcc(capfd, *FLAGS, "k.c", "-o", "prog")[0] == 0
    assert pencilcc(capfd, *FLAGS, "missing.c", "-o", "prog")[0] == 1
    assert list((project / "tmp").iterdir()) == []


def test_concurrent_compiles_of_one_output(project: Path) -> None:
    """`make -j` style: several real pencilcc processes write the same object at once."""
    cmd = [sys.executable, "-m", "clangpass", *FLAGS, "-c", "k.c", "-o", "same.o"]
    env = {**os.environ, "PENCILCC_CACHE_DIR": str(project / "cache")}
    procs = [subprocess.Popen(cmd, cwd=project, env=env, stderr=subprocess.PIPE) for _ in range(4)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    for p in procs:
        p.stderr.close()
    assert (project / "same.o").read_bytes()[:4] == b"\x7fELF"
    assert sorted(p.name for p in project.iterdir() if p.name != "cache") == ["k.c", "k.h", "same.o"]
