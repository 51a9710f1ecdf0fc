# SPDX-License-Identifier: MIT
"""The fixed cost of a compile (issue 28: compile median at most 1 s on the PolyBench kernels).

A CPU compile loads only what it uses: the OpenCL back end, the HTML report, the lint
checks, the tuner and the Python API (numpy) stay unloaded, in the driver and in its
analysis child (`python -X importtime` lists the modules both import). The `pencilcc`
command ends with `os._exit` once `main` has returned (clangpass.driver.main.entry): its
status and everything it printed still come out whole. The analysis child's collector
ignores the driver's heap (`gc.freeze` around the fork) and the driver's does not
(clangpass.driver.isolate). The host's PIC probe started early gives `default_pic` its
answer (clangpass.driver.host), and so do the questions asked early (the host's objcopy, its
header folder for the front end).
"""
from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

from clangpass.driver.help import help_text
from clangpass.driver.host import HostCompiler
from clangpass.driver.isolate import run_isolated

PENCILCC = [sys.executable, "-m", "clangpass"]

KERNEL = r"""#include <stdio.h>
#define N 64
static void kernel(int n, double A[N][N], double B[N][N])
{
#pragma scop
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < n - 1; j++)
      B[i][j] = 0.25 * (A[i - 1][j] + A[i + 1][j] + A[i][j - 1] + A[i][j + 1]);
#pragma endscop
}
int main(void)
{
  static double A[N][N], B[N][N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      A[i][j] = (i * j) % 7;
  kernel(N, A, B);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += B[i][j] * (i + 1);
  printf("%.2f\n", s);
  return 0;
}
"""

# Modules a CPU compile has no use for; an eager import of any of them costs every compile.
NOT_FOR_CPU = ("llvm_backend.opencl", "clangpass.report_html", "clangpass.lint", "clangpass.api",
               "clangpass.driver.tune", "numpy", "matplotlib")


def _environment() -> dict[str, str]:
    return {**os.environ, "PENCILCC_NO_CACHE": "1"}


def test_a_cpu_compile_does_not_load_what_it_does_not_use(tmp_path: Path) -> None:
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    record = tmp_path / "k.opt.json"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "clangpass", "-O3", "-c", str(source),
                           "-o", str(tmp_path / "k.o"), f"-foptimization-record-file={record}"],
                          capture_output=True, text=True, env=_environment(), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
                if line.startswith("import time:") and line.count("|") == 2}
    # The listing covers the analysis child and the back end: the region was optimized there.
    assert {"clangpass.driver.compile", "clangpass.poly.codegen", "llvm_backend.cpu.lower_region"} <= imported
    assert '"optimized"' in record.read_text()
    loaded = sorted(m for m in imported if m.startswith(NOT_FOR_CPU))
    assert not loaded, f"a CPU compile imported {loaded}"


def test_the_command_exits_with_mains_status_and_all_its_output(tmp_path: Path) -> None:
    # Everything printed reaches the pipe before os._exit (a 30 KB help text, then 0) ...
    proc = subprocess.run([*PENCILCC, "--help"], capture_output=True, text=True, env=_environment())
    assert proc.returncode == 0 and proc.stdout == help_text()
    # ... the status of a failed command is main's ...
    proc = subprocess.run([*PENCILCC, "-c", str(tmp_path / "missing.c")], capture_output=True, text=True,
                          env=_environment())
    assert proc.returncode == 1 and "missing.c" in proc.stderr
    # ... and a compile's outputs are complete: the program runs and prints.
    source = tmp_path / "k.c"
    source.write_text(KERNEL)
    program = tmp_path / "k"
    proc = subprocess.run([*PENCILCC, "-O3", str(source), "-o", str(program)], capture_output=True, text=True,
                          env=_environment())
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(program)], capture_output=True, text=True).stdout.strip()


def test_the_analysis_child_ignores_the_drivers_heap_and_the_driver_does_not() -> None:
    assert gc.get_freeze_count() == 0
    frozen_in_child = run_isolated(lambda watch: gc.get_freeze_count(), 0, "test", 0)
    assert frozen_in_child > 0
    assert gc.get_freeze_count() == 0


def test_a_pic_probe_started_early_gives_default_pic_its_answer() -> None:
    for flags in ((), ("-fPIC",), ("-fno-pic", "-fno-pie")):
        early = HostCompiler()
        early.start_pic_probe(flags)
        early.start_pic_probe(flags)          # one probe per set of flags
        assert len(early._pic_probes) == 1
        assert early.default_pic(flags) == HostCompiler().default_pic(flags)
        assert not early._pic_probes
        early.start_pic_probe(flags)          # answered already: nothing more to start
        assert not early._pic_probes
    assert HostCompiler().default_pic(("-fPIC",))
    assert not HostCompiler().default_pic(("-fno-pic", "-fno-pie"))
    unasked = HostCompiler()
    unasked.start_pic_probe(())
    unasked.end_pic_probes()                  # a compile that never needed the answer
    assert not unasked._pic_probes and unasked.default_pic(()) == HostCompiler().default_pic(())


def test_questions_asked_early_get_the_answers_asked_late() -> None:
    from clangpass import toolchain
    from clangpass.driver.link import OBJCOPY_QUESTION

    early = HostCompiler()
    early.ask_early(OBJCOPY_QUESTION)
    early.ask_early(OBJCOPY_QUESTION)         # one process per question
    assert len(early._questions) == 1
    late = HostCompiler().run(list(OBJCOPY_QUESTION), capture=True).stdout.decode().strip()
    assert early.answer(OBJCOPY_QUESTION) == late and late
    assert not early._questions
    early.ask_early(OBJCOPY_QUESTION)         # answered already: nothing more to start
    assert not early._questions
    unasked = HostCompiler()
    unasked.ask_early(OBJCOPY_QUESTION)
    unasked.end_pic_probes()                  # a compile that never localized a symbol
    assert not unasked._questions
    # The front end's question: started, then answered by the started process.
    cc = tuple(toolchain.host_cc())
    expected = subprocess.run([*cc, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
    toolchain.builtin_include_dir.cache_clear()
    toolchain._known.discard(cc)
    toolchain.start_builtin_include_dir(cc)
    assert cc in toolchain._started
    assert toolchain.builtin_include_dir(cc) == expected and cc not in toolchain._started
    toolchain.start_builtin_include_dir(cc)   # answered already: nothing more to start
    assert cc not in toolchain._started


def test_a_file_without_pencil_code_leaves_no_probe_running(tmp_path: Path) -> None:
    # -S -emit-llvm takes the compile path with regions even for plain C, which never asks
    # whether the host makes PIC: the probe started for it is reaped, and the (region-less)
    # module is written.
    source = tmp_path / "plain.c"
    source.write_text("int twice(int x) { return 2 * x; }\n")
    proc = subprocess.run([*PENCILCC, "-O2", "-S", "-emit-llvm", str(source), "-o", str(tmp_path / "plain.ll")],
                          capture_output=True, text=True, env=_environment())
    assert proc.returncode == 0, proc.stderr
    assert "target triple" in (tmp_path / "plain.ll").read_text()
