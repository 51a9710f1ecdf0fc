# SPDX-License-Identifier: MIT
"""Packed panels (pass `pack-panels`, clangpass.poly.packing) compute what gcc -O0 computes.

The register-tiled kernels copy the panels their micro-kernels stream (gemm's `B` and its
`alpha * A`) into region-local buffers before each point band. Built at sizes with partial
tiles in every direction, sizes smaller than one register tile, tile sizes that are no
multiple of it, both register-tile sizes (SSE2 and the host's), every build must print
exactly what gcc -O0 prints with 1, 2 and 3 threads (each thread copies into its own
buffer). The record counts the copies; --disable-pass=pack-panels leaves none.
"""
from __future__ import annotations

import re
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
GEMM = harness.POLYBENCH_DIR / "gemm.c"


def _build(tmp_path, source, flags):
    exe = tmp_path / "prog"
    # -ffp-contract=off: compared with gcc -O0 bit for bit, which the FMAs of gcc's default
    # contraction (GNU dialect, -march=native) would round differently
    _, labelled = harness.build_recorded([source], exe, ["-O3", "-ffp-contract=off", *flags], compiler=PENCILCC)
    regions = list(labelled.values())
    assert all(r["status"] == "optimized" for r in regions), regions
    return exe, [a for r in regions for a in r["packed_arrays"]], sum(r["packed_panels"] for r in regions)


@pytest.mark.parametrize("sizes", [("-DNI=67", "-DNJ=131", "-DNK=29"), ("-DNI=3", "-DNJ=37", "-DNK=3"),
                                   ("-DNI=130", "-DNJ=260", "-DNK=131")], ids=["odd", "three", "edges"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_gemm_packed_panels_match_gcc(tmp_path, sizes, march):
    exe, arrays, count = _build(tmp_path, GEMM, [*sizes, *march])
    assert sorted(arrays) == ["A", "B"] and count == 2
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=sizes, threads=(1, 2, 3))


@pytest.mark.parametrize("kernel, sizes, packed", [
    ("2mm", ("-DNI=37", "-DNJ=41", "-DNK=19", "-DNL=45"), ["A", "B", "C"]),
    # G = E * F: F, written by the second product, is read-only in the third's band
    ("3mm", ("-DNI=21", "-DNJ=35", "-DNK=17", "-DNL=39", "-DNM=9"), ["B", "D", "F"]),
    ("trmm", ("-DM=37", "-DN=45"), ["A", "B"]),  # B[k][j]: rows the band writes after reading them; A[k][i]
])
def test_blas_kernels_packed_panels_match_gcc(tmp_path, kernel, sizes, packed):
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    exe, arrays, _ = _build(tmp_path, source, ["-march=native", *sizes])
    assert sorted(arrays) == packed
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=sizes, threads=(1, 2))


LOOP_ORDERS = harness.POLYBENCH_DIR.parent / "loop_orders"
C99 = harness.POLYBENCH_DIR.parent / "polybench_c99"


@pytest.mark.parametrize("sizes", [("-DNI=67", "-DNJ=131", "-DNK=29"), ("-DNI=5", "-DNJ=37", "-DNK=3")],
                         ids=["odd", "small"])
def test_vla_gemm_packed_panels_match_gcc(tmp_path, sizes):
    """gemm with `double C[ni][nj]` parameters: packed panels under register tiles whose rows
    carry alias scopes (llvm_backend/cpu/register_rows.py)."""
    source = C99 / "gemm.c"
    exe, arrays, _ = _build(tmp_path, source, ["-std=c99", "-march=native", *sizes])
    assert sorted(arrays) == ["A", "B"]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=("-std=c99", *sizes), threads=(1, 2))


@pytest.mark.parametrize("source", [harness.POLYBENCH_DIR / "syrk.c", harness.POLYBENCH_DIR / "syr2k.c",
                                    LOOP_ORDERS / "syrk.ji.c", LOOP_ORDERS / "syrk.kij.c",
                                    LOOP_ORDERS / "syr2k.ji.c"], ids=lambda p: p.stem)
@pytest.mark.parametrize("sizes", [("-DM=37", "-DN=45"), ("-DM=3", "-DN=70"), ("-DM=70", "-DN=5")],
                         ids=["odd", "short", "narrow"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_triangular_packed_panels_match_gcc(tmp_path, source, sizes, march):
    """syrk and syr2k read each array twice: one buffer per read, the B panels (A[j][k],
    B[j][k]) transposed. The triangle j <= i leaves partial register tiles on the diagonal.
    With SSE2's 4 x 4 register tiles the AST with the copies exceeds isl's budget on the
    triangle (more diagonal pieces per tile): the tiles run without packs, as codegen says."""
    exe, arrays, _ = _build(tmp_path, source, [*sizes, *march])
    if march:
        assert sorted(arrays) == (["A", "A"] if source.stem.startswith("syrk") else ["A", "B"])
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=sizes, threads=(1, 2))


def test_tiles_not_multiple_of_the_register_tile(tmp_path):
    sizes = ("-DNI=45", "-DNJ=53", "-DNK=22")
    exe, _, _ = _build(tmp_path, GEMM, [*sizes, "--tile-size=6"])
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=sizes, threads=(1, 2))


def test_disabled_pass_packs_nothing(tmp_path):
    sizes = ("-DNI=67", "-DNJ=131", "-DNK=29")
    exe, arrays, count = _build(tmp_path, GEMM, [*sizes, "--disable-pass=pack-panels"])
    assert arrays == [] and count == 0
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=sizes)


def test_copies_run_before_the_register_tiles(tmp_path):
    """The AST holds one copy loop nest per pack, before the `register-tile` mark, and the
    micro-kernel's calls pass the buffer indices (the point loops' offsets)."""
    proc = harness.build(PENCILCC, [GEMM], tmp_path / "prog",
                         ["-O3", "-march=native", "-DNI=300", "-DNJ=300", "-DNK=300", "-fpencil-dump=ast"])
    dump = proc.stderr
    assert dump.index("P___pencil_pack0_A(") < dump.index("// register-tile")
    assert dump.index("P___pencil_pack1_B(") < dump.index("// register-tile")
    assert "c3 + c7);" in dump          # S_1(..., c5, c3 + c7): the packed B's row offset


def test_threads_do_not_copy_the_buffers_in(tmp_path):
    """A thread's buffers start uninitialised: the copies write every element a reader reads
    at the same tile dates, inside the parallel loop, so copying the caller's buffers in (400 KB
    per thread at gemm LARGE, 20 % of the kernel at 200 x 220 x 240) would copy nothing used."""
    ll = tmp_path / "gemm.ll"
    harness.build(PENCILCC, [GEMM], ll, ["-O3", "-march=native", "-S", "-emit-llvm",
                                         "-DNI=300", "-DNJ=300", "-DNK=300"])
    text = ll.read_text()
    assert re.search(r"define [^\n]*omp_chunk", text)                    # the threaded copy exists
    assert re.search(r"%pencil\.__pencil_pack\w* = alloca", text)       # with buffers of its own
    whole = re.findall(r"call void @llvm\.memcpy[^\n]*ptr [^\n,]*%pencil\.__pencil_pack\w*, ", text)
    assert whole == [], whole
