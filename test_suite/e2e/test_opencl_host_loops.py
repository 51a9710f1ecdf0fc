# SPDX-License-Identifier: MIT
"""Issue 27, items 2 and 3, as a new user meets them on the OpenCL target (PoCL).

Item 2, nothing parallel stays on the host silently:
- a region holding a three-point stencil and a matrix-vector product runs the stencil's
  sweeps as kernels too (source-order gives the component that gained nothing in isl's
  schedule its source order back), as it does alone in a region;
- an array privatized by privatize-arrays and used by two loop nests runs in both nests'
  kernels (CodegenUnit.iteration_locals), and no message names the internal copy;
- remarks say what runs on the device: the kernels, and reductions as work-group trees, and
  what was not reduced is said of the device (record and remarks); a max reduction over what
  a loop of the region wrote, into a region-local scalar demoted to the caller's element,
  is a work-group tree kernel;
- a loop that stays on the host is a -Rpass-missed remark with the record's reason.
Item 3, data stays on the device across region calls while the program declares its host
writes (pencil_keep_device_data / pencil_host_touch): 20 calls, one upload per array; host
writes between calls seen. Every program's output is compared with gcc -O0's.
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness
from test_suite.e2e.test_opencl_target import INCLUDE, _PLATFORMS, _run

pytestmark = pytest.mark.skipif(not _PLATFORMS, reason="no OpenCL platform (install PoCL: .ci/run)")

PENCILCC = [sys.executable, "-m", "clangpass"]
KERNELS = harness.KERNELS_DIR / "opencl"


def _build(source: Path, tmp_path: Path, *flags: str) -> tuple[Path, dict, str]:
    """`source` built for the OpenCL target: the executable, its record and pencilcc's stderr
    (remarks on)."""
    exe = tmp_path / source.stem
    record = tmp_path / f"{source.stem}.opt.json"
    proc = subprocess.run([*PENCILCC, "-O3", "-fpencil-target=opencl", f"-I{INCLUDE}", "-Rpass=pencil",
                           "-Rpass-missed=pencil", f"-foptimization-record-file={record}", *flags, str(source),
                           "-o", str(exe)], capture_output=True, text=True,
                          env={**harness.os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stderr
    return exe, json.loads(record.read_text()), proc.stderr


def _reference(source: Path, tmp_path: Path, *args: str) -> str:
    exe = tmp_path / f"{source.stem}.gcc"
    harness.build(["gcc"], [source], exe, ["-O0", f"-I{INCLUDE}"])
    return subprocess.run([str(exe), *args], capture_output=True, text=True, check=True).stdout


def test_a_stencil_beside_a_matrix_vector_product_runs_as_kernels(tmp_path: Path) -> None:
    source = KERNELS / "stencil_and_matvec.c"
    exe, record, remarks = _build(source, tmp_path)
    output, profile = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=1e-12) == []
    (region,) = record["regions"]
    # The product's rows, and the stencil's two sweeps (5 steps each): three kernels, none on the host.
    assert len(region["mapping"]["kernels"]) == 3 and region["mapping"]["host_loops"] == []
    assert sorted(profile["kernel"].values()) == [1, 5, 5]
    assert "independent parts in the source order" in region["source_order_reason"]
    assert "3 OpenCL kernels over parallel loops" in remarks


def test_a_privatized_array_of_two_nests_runs_in_both_kernels(tmp_path: Path) -> None:
    source = KERNELS / "private_in_two_nests.c"
    exe, record, remarks = _build(source, tmp_path)
    output, profile = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=0) == []
    (region,) = record["regions"]
    assert region["privatized_arrays"] == ["C"]
    assert len(region["mapping"]["kernels"]) == 2 and region["mapping"]["host_loops"] == []
    # The kernel's own name of the copy stays; the source's name is beside it.
    assert [k["private_arrays"] for k in region["mapping"]["kernels"]] == [["__pencil_private_C"]] * 2
    assert [k["source_private_arrays"] for k in region["mapping"]["kernels"]] == [["C"]] * 2
    assert len(profile["kernel"]) == 2
    assert "__pencil" not in remarks and "'C' (privatized)" in remarks


def test_reduction_remarks_describe_the_device(tmp_path: Path) -> None:
    from test_suite.e2e.test_opencl_target import REDUCTIONS
    source = tmp_path / "reductions.c"
    source.write_text(REDUCTIONS)
    exe, record, remarks = _build(source, tmp_path)
    output, _ = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=1e-12) == []
    assert "run on threads" not in remarks
    assert "reductions of 'bits', 's' run on the OpenCL device (a tree in each work-group's local memory" in remarks


def test_a_max_of_what_a_loop_wrote_is_reduced_on_the_device(tmp_path: Path) -> None:
    """max_of_written.c: a loop writes B, a max reduction over B into a region-local scalar
    follows. In 'peak' the scalar ends in m[0] and demote-scalars puts m[0] in its place: the
    reduction clause follows it, and a work-group tree kernel reduces it (the clause once named
    the vanished scalar, so the pragma dropped m[0]'s dependences and every work-item raced on
    it). In 'peak_scaled' the scalar stays the region's: the loop runs in order on the host and
    the missed remark says so of the device, not of threads."""
    source = KERNELS / "max_of_written.c"
    exe, record, remarks = _build(source, tmp_path)
    output, profile = _run(exe, tmp_path / "cache")
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=1e-12) == []
    peak, scaled = record["regions"]
    assert peak["demoted_scalars"] == ["mx -> m[0]"]
    assert [k["reductions"] for k in peak["mapping"]["kernels"]] == [[], [{"variable": "m", "operator": "max"}]]
    assert peak["mapping"]["kernels"][1]["local_memory"] == ["__pencilcc_tree0[64]"]
    (use,) = peak["pragmas"]
    assert use["reductions"] == [{"variable": "mx", "operator": "max", "threads": True}]
    assert "reduction of 'mx' run on the OpenCL device" in use["detail"]
    assert "reduction of 'mx' run on the OpenCL device (a tree in each work-group's local memory" in remarks
    (kept,) = scaled["pragmas"]
    assert kept["missed"] == ("reduction variable 'mx' kept in order: it is a variable of the region, not of "
                              "the caller (not reduced on the OpenCL device yet)")
    assert f"'#pragma pencil independent' not used: {kept['missed']}" in remarks
    assert "on threads" not in remarks
    assert len(profile["kernel"]) == 3


def test_the_demoted_reduction_runs_on_threads_on_the_cpu(tmp_path: Path) -> None:
    """The same program for the CPU target: the demoted scalar's reduction runs on threads, and
    the messages speak of threads there."""
    source = KERNELS / "max_of_written.c"
    exe = tmp_path / "cpu"
    record = tmp_path / "cpu.opt.json"
    proc = subprocess.run([*PENCILCC, "-O3", f"-I{INCLUDE}", "-Rpass=pencil", "-Rpass-missed=pencil",
                           f"-foptimization-record-file={record}", str(source), "-o", str(exe)],
                          capture_output=True, text=True, env={**harness.os.environ, "PENCILCC_NO_CACHE": "1"})
    assert proc.returncode == 0, proc.stderr
    output = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=1e-12) == []
    peak, scaled = json.loads(record.read_text())["regions"]
    assert peak["pragmas"][0]["reductions"] == [{"variable": "mx", "operator": "max", "threads": True}]
    assert "reduction of 'mx' run on threads" in proc.stderr
    assert "(not reduced on threads yet)" in scaled["pragmas"][0]["missed"]


def test_loops_left_on_the_host_are_remarks(tmp_path: Path) -> None:
    """summary_call.c: a parallel loop calling a C function (a pencil_access summary) and one
    whose rows are not bounded by the parameters stay on the host; each of the record's
    host_loops is a -Rpass-missed remark with its reason."""
    source = KERNELS / "summary_call.c"
    exe, record, remarks = _build(source, tmp_path)
    env = {**harness.os.environ, "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    output = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=300, check=True).stdout
    assert harness.compare_outputs(_reference(source, tmp_path), output, rtol=0) == []
    host_loops = [why for region in record["regions"] for why in region["mapping"]["host_loops"]]
    assert len(host_loops) == 2
    for why in host_loops:
        assert f"a parallel loop runs on the host, not as an OpenCL kernel: {why}" in remarks
    assert "0 OpenCL kernels over parallel loops" in remarks
    assert "__pencil" not in remarks


@pytest.mark.parametrize("touch", [False, True], ids=["untouched", "host-writes"])
def test_device_data_stays_across_region_calls(tmp_path: Path, touch: bool) -> None:
    """region_calls.c calls a region 20 times under pencil_keep_device_data(1): its three
    arrays are uploaded once each; with an argument the host writes A and B every fifth call
    and says so (pencil_host_touch): those are uploaded again, 4 times each, and the results
    are gcc's."""
    source = KERNELS / "region_calls.c"
    exe, _, _ = _build(source, tmp_path)
    args = ["x"] if touch else []
    env = {**harness.os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert harness.compare_outputs(_reference(source, tmp_path, *args), proc.stdout, rtol=1e-12) == []
    uploads = int(proc.stderr.split("host-to-device: ")[1].split(" transfers")[0])
    assert "20 launches" in proc.stderr
    assert uploads == (3 + 4 * 2 if touch else 3), proc.stderr


def test_without_the_declaration_every_call_uploads(tmp_path: Path) -> None:
    """The default is safe: the same program without pencil_keep_device_data uploads its
    arrays at every call (the host may have written them)."""
    source = tmp_path / "region_calls.c"
    source.write_text((KERNELS / "region_calls.c").read_text().replace("pencil_keep_device_data(1);", ""))
    exe, _, _ = _build(source, tmp_path)
    env = {**harness.os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run([str(exe), "x"], capture_output=True, text=True, env=env, timeout=300, check=True)
    assert harness.compare_outputs(_reference(source, tmp_path, "x"), proc.stdout, rtol=1e-12) == []
    assert "host-to-device: 60 transfers" in proc.stderr, proc.stderr
