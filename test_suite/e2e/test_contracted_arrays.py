# SPDX-License-Identifier: MIT
"""Arrays whose values die in the region run on contracted storage (contract-arrays and
contract-scheduled, issue 26).

test_suite/kernels/memory holds value-style programs whose scratch arrays the host
allocates and the region kills: a time-expanded 1-D Jacobi and 2-D five-point stencil
(contracted to two rows / planes in the source order) and a three-stage and a two-stage
image pipeline over whole-image buffers (in the source order every element of a buffer is
live while the whole of it is written; against the final schedule, which fuses the stages,
contract-scheduled leaves line buffers: three rows of t1, one of t2; the record's last
entry for an array is the one that counts). Each build prints what gcc -O0 prints, on 1 and 2 threads
and at two sizes, on the CPU target and on the OpenCL target (skipped without a platform);
the record says which arrays were contracted to what, and `-fpencil-memory=none` keeps
them whole.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
MEMORY = harness.KERNELS_DIR / "memory"
INCLUDE = [f"-I{harness.REPO_ROOT / 'include'}"]
# kernel -> {array: its record entry's bytes_after, or None when it is not contracted}
CONTRACTED = {
    "jacobi_1d_expanded": {"A": "16 * n"},
    "stencil_2d_expanded": {"A": "16 * n * m"},
    "image_pipeline": {"t1": "24 * w", "t2": "8 * w"},
    "image_pipeline2": {"t1": "24 * w"},
    # A region-local N x N array whose live elements are a row and a column: only a general
    # basis folds it, A[(a0 - a1) mod (2N - 1)][...] (i - j negative below the diagonal). General
    # bases are tried against the final schedule only (contract-scheduled), where its loops must
    # run in order for the reuse: built with -fno-pencil-parallel (FLAGS). The CPU's vector loops
    # are unordered too, hence a second row there: A[(a0 - a1) mod 13][a0 mod 2].
    "corner_sweep": {"A": 208},
}
FLAGS = {"corner_sweep": ("-fno-pencil-parallel",)}
# The OpenCL target's schedule has no vector loop: A[(a0 - a1) mod 13][a0 mod 1].
CONTRACTED_ON_OPENCL = {"corner_sweep": {"A": 104}}
SIZES = {
    "jacobi_1d_expanded": [(), ("-DTSTEPS=1", "-DN=2"), ("-DTSTEPS=12", "-DN=31")],
    "stencil_2d_expanded": [(), ("-DTSTEPS=1", "-DN=3", "-DM=3"), ("-DTSTEPS=5", "-DN=7", "-DM=20")],
    "image_pipeline": [(), ("-DH=1", "-DW=1"), ("-DH=9", "-DW=40"), ("-DH=70", "-DW=300")],
    "image_pipeline2": [(), ("-DH=2", "-DW=1"), ("-DH=67", "-DW=260")],
    "corner_sweep": [(), ("-DN=40",)],
}
# Kernels whose region the OpenCL target runs on the host (no kernel), storage contracted all the same.
HOST_ONLY_ON_OPENCL = {"corner_sweep"}
# Where a size changes the record's bytes: kernel -> {sizes: {array: bytes_after}}.
CONTRACTED_AT = {"corner_sweep": {("-DN=40",): {"A": 8 * 79 * 2}}}


def _storage(record: dict) -> dict:
    return {e["array"]: (e["bytes_after"] if e["technique"] else None) for e in record["storage"] if e["array"] in CONTRACTED[record["function"]]}


@pytest.mark.parametrize("kernel", sorted(CONTRACTED))
def test_contracted_kernels_match_gcc(kernel, tmp_path):
    source = MEMORY / f"{kernel}.c"
    for k, sizes in enumerate(SIZES[kernel]):
        exe = tmp_path / f"{kernel}{k}"
        _, regions = harness.build_recorded([source], exe, ["-O3", *FLAGS.get(kernel, ()), *harness.KERNEL_CFLAGS,
                                                            *INCLUDE, *sizes])
        assert regions[kernel]["status"] == "optimized", regions[kernel]["reason"]
        assert _storage(regions[kernel]) == CONTRACTED_AT.get(kernel, {}).get(tuple(sizes), CONTRACTED[kernel])
        harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=[*harness.KERNEL_CFLAGS, *INCLUDE, *sizes])


def test_memory_none_keeps_the_arrays(tmp_path):
    source = MEMORY / "jacobi_1d_expanded.c"
    exe = tmp_path / "none"
    _, regions = harness.build_recorded([source], exe, ["-O3", *harness.KERNEL_CFLAGS, *INCLUDE,
                                                        "-fpencil-memory=none"])
    assert regions["jacobi_1d_expanded"]["storage"] == []
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=[*harness.KERNEL_CFLAGS, *INCLUDE])


def _opencl_platform() -> bool:
    try:
        import pyopencl
        return bool(pyopencl.get_platforms())
    except Exception:   # no pyopencl, or its ICD loader finds no platform
        return False


@pytest.mark.skipif(not _opencl_platform(), reason="no OpenCL platform (install PoCL: .ci/run)")
@pytest.mark.parametrize("kernel", sorted(CONTRACTED))
def test_contracted_kernels_on_the_device(kernel, tmp_path):
    source = MEMORY / f"{kernel}.c"
    exe = tmp_path / kernel
    harness.build(PENCILCC, [source], exe, ["-O3", "-fpencil-target=opencl", *FLAGS.get(kernel, ()),
                                            *harness.KERNEL_CFLAGS, *INCLUDE,
                                            f"-foptimization-record-file={tmp_path / 'r.json'}"],
                  env={"PENCILCC_NO_CACHE": "1"})
    record = {r["function"]: r for r in json.loads((tmp_path / "r.json").read_text())["regions"]}[kernel]
    # corner_sweep's region-local A is used across loops: the OpenCL mapping runs its loops on
    # the host (record's host_loops), with the contracted storage all the same.
    assert record["target"] == "opencl" and (record["mapping"]["kernels"] or kernel in HOST_ONLY_ON_OPENCL)
    assert _storage(record) == CONTRACTED_ON_OPENCL.get(kernel, CONTRACTED[kernel])
    reference = tmp_path / "ref"
    harness.build(["gcc"], [source], reference, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O0"])
    env = {**os.environ, "PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path)}
    run = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "run on the CPU" not in run.stderr and "no OpenCL device" not in run.stderr, run.stderr
    assert harness.compare_outputs(harness.run(reference), run.stdout, rtol=0) == []
