# SPDX-License-Identifier: MIT
"""Issue 27, item 3, without annotations: a loop of the caller whose host code provably writes
no array between calls of OpenCL regions keeps the data on the device across those calls
(clangpass.residency, clangpass.driver.rewrite, the runtime's residency push/pop).

kernels/opencl/resident_loops.c runs one loop per mode: 20 calls and nothing else (one upload
per array), a host write between calls and a pointer argument that moves (an upload per array
and call, as before), nested loops calling two regions (one upload per array), and a provable
loop inside the user's pencil_keep_device_data(1), which it must not switch off; loops calling
a region that may run its original code (a run-time alias check) or a function with host code
beside its region upload as before. Every output
is gcc -O0's, `__LINE__` included (the rewrite moves no line). What pencilcc decides (record,
remarks, rewritten copy) is checked without a device; the upload counts on PoCL.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass import residency
from clangpass.compiler import compile_module
from clangpass.driver.rewrite import RESIDENT_CLOSE, RESIDENT_OPEN, outline_regions
from clangpass.frontend import FrontendOptions, parse_file
from clangpass.options import CompileOptions
from clangpass.targets import Output, get_target
from test_suite.e2e import harness
from test_suite.e2e.test_opencl_target import INCLUDE, _PLATFORMS

PENCILCC = [sys.executable, "-m", "clangpass"]
SOURCE = harness.KERNELS_DIR / "opencl" / "resident_loops.c"
needs_opencl = pytest.mark.skipif(not _PLATFORMS, reason="no OpenCL platform (install PoCL: .ci/run)")


def _marked(word: str) -> list[int]:
    """The lines of SOURCE whose calls carry the comment `/* word */` (once per call)."""
    return [n for n, line in enumerate(SOURCE.read_text().splitlines(), start=1)
            for _ in range(line.count(f"/* {word} */"))]


def _build(tmp_path: Path, target: str = "opencl", *flags: str) -> tuple[Path, dict, str]:
    exe = tmp_path / f"resident_{target}"
    record = tmp_path / f"resident_{target}.opt.json"
    proc = subprocess.run([*PENCILCC, "-O3", f"-fpencil-target={target}", f"-I{INCLUDE}", "-Rpass=pencil",
                           "-Rpass-missed=pencil", f"-foptimization-record-file={record}", *flags, str(SOURCE),
                           "-o", str(exe)], capture_output=True, text=True,
                          env={**harness.os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stderr
    return exe, json.loads(record.read_text()), proc.stderr


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The OpenCL build of SOURCE, once for the module."""
    return _build(tmp_path_factory.mktemp("resident"))[0]


def _reference(tmp_path: Path, mode: str) -> str:
    exe = tmp_path / "resident.gcc"
    if not exe.exists():
        harness.build(["gcc"], [SOURCE], exe, ["-O0", f"-I{INCLUDE}"])
    return subprocess.run([str(exe), mode], capture_output=True, text=True, check=True).stdout


def test_record_and_remarks_name_the_calls_that_keep_data(tmp_path: Path) -> None:
    """The record's mapping.resident_calls lists the call sites in provable loops (per function),
    -Rpass=pencil says so at each such loop and -Rpass-missed=pencil gives the reason at the
    others; the CPU target has no such field."""
    _, record, remarks = _build(tmp_path, "opencl", "-c")
    calls = sorted(c["line"] for r in record["regions"] for c in r["mapping"]["resident_calls"])
    assert calls == sorted(_marked("resident"))
    by_function = {r["function"]: r["mapping"]["resident_calls"] for r in record["regions"]}
    assert {c["line"] for c in by_function["scale"]} == {41}
    assert all(c["file"].endswith("resident_loops.c") and c["column"] > 0 for c in by_function["update"])
    stays = [line for line in remarks.splitlines() if "data stays on the device" in line]
    assert len(stays) == 3 and all("[-Rpass=pencil]" in line for line in stays)
    assert any(":40:3: remark: data stays on the device across the calls of 'update', 'scale' in this loop"
               in line for line in stays)
    missed = [line for line in remarks.splitlines() if "upload their arrays at every call" in line]
    assert len(missed) == 5 and all("[-Rpass-missed=pencil]" in line for line in missed)
    assert sorted(int(line.split(":")[1]) for line in missed) == [24, 32, 47, 67, 68]     # the loops' lines
    assert any(":24:3:" in line and "it writes 'A' on the host (line 26)" in line for line in missed)
    assert any(":32:3:" in line and "it writes 'r' on the host (line 34)" in line for line in missed)
    assert any("'guarded' runs its original code on the host when its arrays overlap" in line for line in missed)
    assert any("'outside' runs host code outside its regions (line 60)" in line for line in missed)
    _, cpu_record, cpu_remarks = _build(tmp_path, "cpu", "-c")
    assert all("resident_calls" not in r["mapping"] for r in cpu_record["regions"])
    assert "data stays on the device" not in cpu_remarks


def test_the_rewritten_copy_brackets_the_loops_on_their_own_lines() -> None:
    """The host's copy: the runtime's push before each provable loop's keyword and its pop after
    the loop's `;` or `}`, on those lines; no line moves; both functions declared."""
    result = parse_file(str(SOURCE), FrontendOptions((f"-I{INCLUDE}",)))
    assert result.ok and result.tu is not None
    compiled = compile_module(result.module, CompileOptions(opt_level=3, target="opencl"),
                              get_target("opencl"), Output.OBJECT)
    found = residency.find(result.tu, str(SOURCE), compiled.outcomes)
    assert len(found.loops) == 3 and len(found.missed) == 5
    original = SOURCE.read_bytes()
    regions = [o.region for o in compiled.outcomes if o.status == "optimized"]
    text = outline_regions(original, regions, str(SOURCE),
                           resident=[(lp.start_offset, lp.end_offset) for lp in found.loops]).decode()
    lines = text.splitlines()
    assert "extern void pencilcc_cl_residency_push(void);" in lines[1]
    body, old = lines[3:], original.decode().splitlines()
    assert len(body) == len(old)
    opened = [n for n, line in enumerate(body, start=1) if RESIDENT_OPEN in line]
    closed = [n for n, line in enumerate(body, start=1) if RESIDENT_CLOSE in line]
    assert opened == [19, 40, 46] and closed == [20, 41, 46]
    assert body[18].strip() == RESIDENT_OPEN + "for (int t = 0; t < 20; t++)"
    assert body[19].strip() == "update(N, A, B, C);" + RESIDENT_CLOSE + " /* resident */"
    replaced = {n for r in regions for n in range(r.extent.start.line, r.extent.end.line + 1)}
    for n, (before, after) in enumerate(zip(old, body), start=1):
        if n not in (*opened, *closed, *replaced):
            assert before == after, n


@needs_opencl
@pytest.mark.parametrize("mode, uploads", [("plain", 3), ("host-write", 60), ("pointer", 60), ("nested", 3),
                                           ("keep", 3 + 9), ("callee", 40)])
def test_uploads_across_region_calls(built: Path, tmp_path: Path, mode: str, uploads: int) -> None:
    """PENCILCC_PROFILE's host-to-device count: one upload per array for the provable loops,
    one per array and call where the host writes or a pointer moves; inside the user's
    pencil_keep_device_data(1), the provable loop's pop leaves the mode on (the next loop
    uploads only the touched A, 9 times). Outputs are gcc -O0's."""
    exe = built
    env = {**harness.os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe), mode], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert harness.compare_outputs(_reference(tmp_path, mode), proc.stdout, rtol=1e-12) == []
    assert "run on the CPU" not in proc.stderr, proc.stderr
    count = int(proc.stderr.split("host-to-device: ")[1].split(" transfers")[0])
    assert count == uploads, proc.stderr


DIRECTIVES = r"""#define N 1000
#define OMP _Pragma("omp parallel for")
static void add(int n, double A[static const restrict n], double B[static const restrict n])
{
  for (int i = 0; i < n; i++) B[i] = B[i] + A[i];
}
void run(double *A, double *B)
{
  _Pragma("GCC ivdep") for (int t = 0; t < 10; t++) add(N, A, B);
  OMP
  for (int t = 0; t < 10; t++) add(N, A, B);
#pragma GCC unroll 2
  for (int t = 0; t < 10; t++) add(N, A, B);
  for (int t = 0; t < 10; t++) { add(N, A, B); } for (int t = 0; t < 3; t++) add(N, A, B);
}
"""


def test_a_loop_right_after_a_directive_is_left_as_written(tmp_path: Path) -> None:
    """A directive (`#pragma`, `_Pragma`, or a macro that may be one) must be followed by the loop
    itself: such loops keep the default, with a missed remark, and the host compiles the copy
    (no -Wpencil-outline fallback); two loops on one line are both bracketed."""
    source = tmp_path / "directives.c"
    source.write_text(DIRECTIVES)
    proc = subprocess.run([*PENCILCC, "-O3", "-fpencil-target=opencl", "-fopenmp", "-Wall", "-Rpass=pencil",
                           "-Rpass-missed=pencil", "-c", str(source), "-o", str(tmp_path / "d.o")],
                          capture_output=True, text=True, env={**harness.os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0 and "-Wpencil-outline" not in proc.stderr, proc.stderr
    assert "directives.c:9:24: remark: the calls of 'add' in this loop upload their arrays at every call: a " \
           "preprocessor directive comes right before it" in proc.stderr
    assert "directives.c:13:3: remark: the calls of 'add' in this loop upload their arrays at every call: a " \
           "preprocessor directive comes right before it" in proc.stderr
    stays = [line.split(": remark")[0].split("directives.c:")[1] for line in proc.stderr.splitlines()
             if "data stays on the device" in line]
    assert stays == ["14:3", "14:50"], proc.stderr
