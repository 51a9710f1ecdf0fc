# SPDX-License-Identifier: MIT
"""The driver with the real polyhedral path and CPU back end: what only they can show.

-S output that assembles and links, -S -emit-llvm, debug info naming the user's
file, one record per object or per program, -x pencil, dumps, and the linter
entry points.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass.toolchain import host_cc
from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
CC = host_cc()
GEMM = harness.POLYBENCH_DIR / "gemm.c"
SMALL = ["-DNI=9", "-DNJ=7", "-DNK=5"]

SCOP_FILE = """#include <stdio.h>
void scale(int n, double a[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 2.0 + 1.0;
#pragma endscop
}
"""
PENCIL_FILE = """double sum(int n, double a[static const restrict n]);
void fill(int n, double a[static const restrict n])
{
  for (int i = 0; i < n; i++)
    a[i] = i;
}
"""
MAIN_FILE = """#include <stdio.h>
void scale(int n, double a[n]);
void fill(int n, double a[n]);
int main(void)
{
  double a[10];
  fill(10, a);
  scale(10, a);
  printf("%g %g\\n", a[0], a[9]);
  return 0;
}
"""


def run(cmd: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PENCILCC_NO_CACHE": "1"}
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


@pytest.fixture()
def sources(tmp_path: Path) -> Path:
    (tmp_path / "scale.c").write_text(SCOP_FILE)
    (tmp_path / "fill.txt").write_text(PENCIL_FILE)
    (tmp_path / "main.c").write_text(MAIN_FILE)
    return tmp_path


def test_assembly_output_assembles_links_and_runs(tmp_path: Path) -> None:
    reference = harness.gcc_reference(GEMM, tmp_path, SMALL)
    got = run([*PENCILCC, "-O3", *SMALL, "-S", str(GEMM), "-o", "gemm.s"], tmp_path)
    assert got.returncode == 0, got.stderr
    text = (tmp_path / "gemm.s").read_text()
    assert "main:" in text and re.search(r"^__pencilcc_kernel_gemm_scop0_\w+:", text, re.MULTILINE)
    link = run([*CC, "gemm.s", "-o", "gemm", "-fopenmp", "-lm"], tmp_path)
    assert link.returncode == 0, link.stderr
    assert harness.compare_outputs(reference, harness.run(tmp_path / "gemm"), rtol=1e-9) == []


def test_emit_llvm_writes_the_regions_ir(tmp_path: Path) -> None:
    got = run([*PENCILCC, "-O2", "-S", "-emit-llvm", str(GEMM)], tmp_path)
    assert got.returncode == 0, got.stderr
    ir_text = (tmp_path / "gemm.ll").read_text()
    assert re.search(r"define .*@__pencilcc_kernel_gemm_scop0_\w+\(", ir_text)
    assert "@main" not in ir_text


def test_debug_info_names_the_users_file_and_is_deterministic(tmp_path: Path) -> None:
    for name in ("a.o", "b.o"):
        got = run([*PENCILCC, "-O2", "-g", "-c", str(GEMM), "-o", name], tmp_path)
        assert got.returncode == 0, got.stderr
    assert (tmp_path / "a.o").read_bytes() == (tmp_path / "b.o").read_bytes()
    info = subprocess.run(["readelf", "--debug-dump=info", "a.o"], cwd=tmp_path, capture_output=True,
                          text=True).stdout
    names = re.findall(r"DW_AT_name\s*:.*?(\S+\.c)\s*$", info, re.MULTILINE)
    assert names and all(n.endswith("gemm.c") for n in names)
    assert "pencilcc-" not in info


def test_records_per_object_and_per_program(sources: Path) -> None:
    got = run([*PENCILCC, "-O2", "-fsave-optimization-record", "-c", "scale.c", "-x", "pencil", "fill.txt"],
              sources)
    assert got.returncode == 0, got.stderr
    scale = json.loads((sources / "scale.opt.json").read_text())["regions"]
    fill = json.loads((sources / "fill.opt.json").read_text())["regions"]
    assert [(r["function"], r["kind"], r["status"]) for r in scale] == [("scale", "scop", "optimized")]
    assert [(r["function"], r["kind"], r["status"]) for r in fill] == [("fill", "function", "optimized")]
    got = run([*PENCILCC, "-O2", "-fsave-optimization-record", "main.c", "scale.c", "-x", "pencil",
               "fill.txt", "-o", "prog"], sources)
    assert got.returncode == 0, got.stderr
    record = json.loads((sources / "prog.opt.json").read_text())
    assert sorted(r["function"] for r in record["regions"]) == ["fill", "scale"]
    assert subprocess.run(["./prog"], cwd=sources, capture_output=True, text=True).stdout == "1 19\n"


def test_werror_pencil_with_a_real_fallback(tmp_path: Path) -> None:
    (tmp_path / "g.c").write_text("int f(int n, int *v)\n{\n  int k = -1;\n#pragma scop\n"
                                  "  for (int i = 0; i < n; i++)\n    if (v[i] < 0) goto out;\n"
                                  "#pragma endscop\nout:\n  return k;\n}\n")
    got = run([*PENCILCC, "-Werror=pencil", "-c", "g.c"], tmp_path)
    assert got.returncode == 1
    assert "g.c:4:1: error: region in 'f' not optimized" in got.stderr
    assert not (tmp_path / "g.o").exists()
    warned = run([*PENCILCC, "-c", "g.c"], tmp_path)
    assert warned.returncode == 0 and "g.c:4:1: warning: region in 'f' not optimized" in warned.stderr


def test_dumps(sources: Path) -> None:
    got = run([*PENCILCC, "-O3", "-fpencil-dump=scop,schedule", "-c", "scale.c"], sources)
    assert got.returncode == 0, got.stderr
    assert ";; pencilcc scop 'scale#0'" in got.stderr and ";; pencilcc schedule 'scale#0'" in got.stderr
    got = run([*PENCILCC, "-O3", "-fpencil-dump=ast", "-fpencil-dump-dir=dumps", "-c", "scale.c"], sources)
    assert got.returncode == 0 and got.stderr == ""
    files = sorted(p.name for p in (sources / "dumps").iterdir())
    assert files and files[0].startswith("001-") and "ast" in files[0]
    got = run([*PENCILCC, "-O3", "-fpencil-dump=ir,llvm", "-c", "scale.c"], sources)
    assert got.returncode == 0, got.stderr
    ir_at, llvm_at = got.stderr.find(";; pencilcc ir 'scale.c' after frontend"), got.stderr.find(
        ";; pencilcc llvm 'scale.c' after llvm-pipeline")
    assert 0 <= ir_at < llvm_at and "void scale(int n, double a[n])" in got.stderr
    assert "define void @__pencilcc_scale_scop0_" in got.stderr[llvm_at:]


def test_dump_ir(sources: Path) -> None:
    got = run([*PENCILCC, "--dump-ir", "scale.c"], sources)
    assert got.returncode == 0 and got.stdout.startswith(";; pencilcc ir")
    assert "void scale(int n, double a[n])" in got.stdout
    pencil = run([*PENCILCC, "-x", "pencil", "--dump-ir", "fill.txt"], sources)
    assert pencil.returncode == 0 and "fill" in pencil.stdout
    missing = run([*PENCILCC, "--dump-ir", "nothere.c"], sources)
    assert missing.returncode == 1 and "nothere.c: No such file or directory" in missing.stderr


def test_lint_entry_points(sources: Path) -> None:
    (sources / "bad.pencil.c").write_text("void f(int n, int *p)\n{\n  goto end;\nend:\n  p[0] = n;\n}\n")
    lint = run([*PENCILCC, "--lint", "bad.pencil.c"], sources)
    assert lint.returncode != 0 and "bad.pencil.c:3:" in lint.stdout + lint.stderr
    clean = run([*PENCILCC, "--lint", "scale.c"], sources)
    assert clean.returncode == 0
    explain = run([*PENCILCC, "--lint-explain", "pencil-goto"], sources)
    assert explain.returncode == 0 and "goto" in explain.stdout
    assert run([*PENCILCC, "--lint-explain", "no-such-rule"], sources).returncode != 0


def test_separate_compile_then_link_finds_the_runtime(tmp_path: Path) -> None:
    """What make does: -c first, link later; the link learns the runtime flags from the objects."""
    reference = harness.gcc_reference(GEMM, tmp_path, SMALL)
    got = run([*PENCILCC, "-O3", *SMALL, "-c", str(GEMM), "-o", "gemm.o"], tmp_path)
    assert got.returncode == 0, got.stderr
    symbols = subprocess.run(["nm", "gemm.o"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "GOMP_parallel" in symbols        # a parallel loop: the link needs libgomp
    assert run(["ar", "rcs", "libgemm.a", "gemm.o"], tmp_path).returncode == 0
    for inputs in (["gemm.o"], ["libgemm.a"]):
        link = run([*PENCILCC, *inputs, "-o", "prog"], tmp_path)
        assert link.returncode == 0, link.stderr
        assert harness.compare_outputs(reference, harness.run(tmp_path / "prog"), rtol=1e-9) == []
