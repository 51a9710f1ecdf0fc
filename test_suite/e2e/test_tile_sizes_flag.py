# SPDX-License-Identifier: MIT
"""-fpencil-tile-sizes= on both targets (clangpass.tile_spec): the record's tile fields show the
sizes used and where they came from, sizes that do not fit a band warn and keep the default,
and the programs still print what gcc -O0's do."""
from __future__ import annotations

import pytest

from test_suite.e2e import harness

GEMM = harness.POLYBENCH_DIR / "gemm.c"
JACOBI = harness.POLYBENCH_DIR / "jacobi-2d.c"
FLAGS = ["-O3", *harness.KERNEL_CFLAGS]


def _build(tmp_path, name, source, flags):
    return harness.build_recorded([source], tmp_path / name, [*FLAGS, *flags])


def test_cpu_sizes_by_region_and_band(tmp_path) -> None:
    reference = harness.gcc_reference(GEMM, tmp_path)
    proc, regions = _build(tmp_path, "default", GEMM, [])
    default = regions["kernel_gemm"]
    assert default["tile_sizes_from"] == "model" and default["tiled_bands"] == 1
    assert default["tile_bands"] == [{"band": 0, "sizes": default["tile_sizes"], "from": "model"}]

    proc, regions = _build(tmp_path, "given", GEMM, ["-fpencil-tile-sizes=8,8,8;kernel_gemm:0=16,4"])
    given = regions["kernel_gemm"]
    # The most specific rule, its inner size from the model.
    assert given["tile_sizes"] == [16, 4, default["tile_sizes"][2]]
    assert given["tile_sizes_from"] == "flag" and given["tile_bands"][0]["from"] == "flag"
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "given"), rtol=1e-9)


@pytest.mark.parametrize("sizes, why", [("8,8,8,8", "4 sizes for a band of 3 loops"), ("kernel_gemm=0,8", "a size of 0")])
def test_cpu_sizes_that_do_not_fit(tmp_path, sizes, why) -> None:
    proc, regions = _build(tmp_path, "bad", GEMM, [f"-fpencil-tile-sizes={sizes}"])
    region = regions["kernel_gemm"]
    assert region["tile_sizes_from"] == "model" and region["tiled_bands"] == 1
    assert f"warning: tile sizes '{sizes}' not used for band 0 of region 'kernel_gemm#0': {why}; " \
           "the default sizes are used [-Wpencil]" in proc.stderr
    assert region["tile_size_problems"] and why in region["tile_size_problems"][0]


def test_cpu_time_tiled_stencil_from_a_file(tmp_path) -> None:
    reference = harness.gcc_reference(JACOBI, tmp_path)
    rules = tmp_path / "sizes"
    rules.write_text("# jacobi-2d's time-tiled band\nkernel_jacobi_2d:0=4,8,8\n")
    proc, regions = _build(tmp_path, "jacobi", JACOBI, [f"-fpencil-tile-sizes=@{rules}"])
    region = regions["kernel_jacobi_2d"]
    assert region["tile_bands"] == [{"band": 0, "sizes": [4, 8, 8], "from": "flag"}]
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "jacobi"), rtol=1e-9)


def test_bad_syntax_is_one_error_line(tmp_path) -> None:
    with pytest.raises(harness.BuildError) as failed:
        _build(tmp_path, "x", GEMM, ["-fpencil-tile-sizes=kernel_gemm:a=4"])
    assert "pencilcc: error: '-fpencil-tile-sizes=': 'kernel_gemm:a=4' is not SIZES, REGION=SIZES or " \
           "REGION:BAND=SIZES" in str(failed.value)
    assert "Traceback" not in str(failed.value)


def _opencl_platforms() -> bool:
    try:
        import pyopencl
        return bool(pyopencl.get_platforms())
    except Exception:
        return False


@pytest.mark.skipif(not _opencl_platforms(), reason="no OpenCL platform (install PoCL: .ci/run)")
def test_opencl_work_group_sizes(tmp_path) -> None:
    reference = harness.gcc_reference(GEMM, tmp_path)
    flags = ["-fpencil-target=opencl", "-fpencil-tile-sizes=kernel_gemm:0=4,32"]
    proc, regions = _build(tmp_path, "ocl", GEMM, flags)
    mapping = regions["kernel_gemm"]["mapping"]
    kernel = mapping["kernels"][0]
    # Outer loop first in the rule; OpenCL's dimension 0 (the inner loop) first in the record.
    assert kernel["work_group"] == [32, 4] and kernel["work_group_from"] == "flag"
    assert "work-groups of 32x4 (flag)" in kernel["work_items"] and mapping["tile_sizes_from"] == "flag"
    assert b"reqd_work_group_size(32, 4, 1)" in (tmp_path / "ocl").read_bytes()
    # The tiled kernel's tiles follow the given work-group.
    assert kernel["tiling"]["work_group"] == [32, 4]
    out = harness.run(tmp_path / "ocl", env={"PENCILCC_PROFILE": "1", "PENCILCC_CACHE_DIR": str(tmp_path)})
    assert not harness.compare_outputs(reference, out, rtol=1e-9)

    proc, regions = _build(tmp_path, "ocl_default", GEMM, ["-fpencil-target=opencl"])
    kernel = regions["kernel_gemm"]["mapping"]["kernels"][0]
    # gemm's kernel is tiled (llvm_backend/opencl/tiling.py): without sizes, the tiling's 16x16,
    # and the model's 2x2 points per work-item (32x32 tiles).
    assert kernel["tiling"] is not None
    assert kernel["work_group"] == [16, 16] and kernel["work_group_from"] == "model"
    assert kernel["tiling"]["points_per_work_item"] == [2, 2] and kernel["tiling"]["tile"] == [32, 32]

    # Two sizes more: the points per work-item, outer loop first (3 of the outer loop, 1 of the inner).
    flags = ["-fpencil-target=opencl", "-fpencil-tile-sizes=kernel_gemm:0=4,32,3"]
    proc, regions = _build(tmp_path, "ocl_points", GEMM, flags)
    kernel = regions["kernel_gemm"]["mapping"]["kernels"][0]
    assert kernel["work_group"] == [32, 4] and kernel["work_group_from"] == "flag"
    assert kernel["tiling"]["points_per_work_item"] == [1, 3] and kernel["tiling"]["tile"] == [32, 12]
    assert "tiles of 32 x 12 iterations" in kernel["work_items"]
    out = harness.run(tmp_path / "ocl_points", env={"PENCILCC_CACHE_DIR": str(tmp_path)})
    assert not harness.compare_outputs(reference, out, rtol=1e-9)

    proc, regions = _build(tmp_path, "ocl_bad", GEMM, ["-fpencil-target=opencl", "-fpencil-tile-sizes=1,2,3,4,5"])
    assert "5 sizes for a band of 2 loops (at most 4)" in proc.stderr
    assert regions["kernel_gemm"]["mapping"]["kernels"][0]["work_group"] == [16, 16]


@pytest.mark.skipif(not _opencl_platforms(), reason="no OpenCL platform (install PoCL: .ci/run)")
def test_opencl_direct_variant_work_group(tmp_path) -> None:
    """`direct:` rules size the direct variant of a tiled kernel (what PoCL runs: the cpu
    mapping) and leave the tiled kernel's work-group alone; a work-group dividing neither loop
    (7 of gemm's 60 rows, 16 of its 70 columns) still gives gcc -O0's output, under both
    mappings."""
    reference = harness.gcc_reference(GEMM, tmp_path)
    flags = ["-fpencil-target=opencl", "-fpencil-tile-sizes=direct:kernel_gemm:0=7,16"]
    proc, regions = _build(tmp_path, "direct", GEMM, flags)
    mapping = regions["kernel_gemm"]["mapping"]
    kernel = mapping["kernels"][0]
    assert kernel["direct_work_group"] == [16, 7] and kernel["direct_work_group_from"] == "flag"
    assert mapping["direct_tile_sizes_from"] == "flag" and mapping["tile_sizes_from"] == "model"
    assert kernel["work_group"] == [16, 16] and kernel["work_group_from"] == "model"
    binary = (tmp_path / "direct").read_bytes()
    assert f"reqd_work_group_size(16, 7, 1))) void {kernel['name']}_direct(".encode() in binary
    for mapping_env in ("cpu", "gpu"):
        out = harness.run(tmp_path / "direct", env={"PENCILCC_CACHE_DIR": str(tmp_path),
                                                    "PENCILCC_OPENCL_MAPPING": mapping_env})
        assert not harness.compare_outputs(reference, out, rtol=1e-9), mapping_env

    # Without a direct rule: the runtime's choice (no reqd_work_group_size on the direct kernel).
    proc, regions = _build(tmp_path, "plain", GEMM, ["-fpencil-target=opencl"])
    kernel = regions["kernel_gemm"]["mapping"]["kernels"][0]
    assert kernel["direct_work_group"] is None and kernel["direct_work_group_from"] == "model"
    assert regions["kernel_gemm"]["mapping"]["direct_tile_sizes_from"] == "model"
    # Points per work-item do not fit a direct variant: a warning, and the runtime's choice.
    proc, regions = _build(tmp_path, "bad", GEMM, ["-fpencil-target=opencl",
                                                   "-fpencil-tile-sizes=direct:kernel_gemm=8,8,2,2"])
    assert "not used for the direct variant of band 0 of region 'kernel_gemm#0': 4 sizes for a band of 2 " \
           "loops" in proc.stderr
    assert regions["kernel_gemm"]["mapping"]["kernels"][0]["direct_work_group"] is None
