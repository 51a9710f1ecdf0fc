# SPDX-License-Identifier: MIT
"""Register tiles (pass `register-tile`) compute what gcc -O0 computes.

The matrix-product kernels (trmm, whose register tiles read rows of the array they accumulate
in from a packed copy, and symm, whose reduction range depends on the row, included) are built
with the register tiles of the host
(-march=native) and of the SSE2 baseline, at sizes with partial register tiles
in every direction (and sizes 1, 2, 3: no full tile at all), and with tile sizes
that are no multiple of the register tile; every build (-ffp-contract=off) must print
exactly what gcc -O0 prints with 1, 2 and 3 threads. The record counts the register-tiled
bands, and --disable-pass=register-tile leaves none.
"""
from __future__ import annotations

import json
import re
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
GEMM = harness.POLYBENCH_DIR / "gemm.c"


def _build(tmp_path, source, flags):
    exe = tmp_path / "prog"
    record = tmp_path / "record.json"
    # -ffp-contract=off: the builds are compared with gcc -O0 bit for bit, which the FMAs of
    # gcc's default contraction (GNU dialect, -march=native) would round differently
    harness.build(PENCILCC, [source], exe, ["-O3", "-ffp-contract=off", *flags, f"-foptimization-record-file={record}"])
    regions = json.loads(record.read_text())["regions"]
    assert all(r["status"] == "optimized" for r in regions), regions
    return exe, sum(r["register_tiled_bands"] for r in regions), " ".join(r["reason"] for r in regions)


@pytest.mark.parametrize("sizes", [("-DNI=67", "-DNJ=131", "-DNK=29"), ("-DNI=1", "-DNJ=1", "-DNK=1"),
                                   ("-DNI=2", "-DNJ=3", "-DNK=2"), ("-DNI=3", "-DNJ=37", "-DNK=3")],
                         ids=["odd", "one", "two", "three"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_gemm_register_tiles_match_gcc(tmp_path, sizes, march):
    exe, tiled, _ = _build(tmp_path, GEMM, [*sizes, *march])
    assert tiled == 1
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=sizes, threads=(1, 2, 3))


@pytest.mark.parametrize("kernel, sizes, bands", [
    ("2mm", ("-DNI=37", "-DNJ=41", "-DNK=19", "-DNL=45"), 2),
    ("3mm", ("-DNI=21", "-DNJ=35", "-DNK=17", "-DNL=39", "-DNM=9"), 3),
    ("trmm", ("-DM=37", "-DN=45"), 1),      # reads B[k][j] of the array it accumulates in: packed
    ("symm", ("-DM=23", "-DN=41"), 1),      # triangular reduction: full reduction steps isolated
])
def test_blas_kernels_match_gcc(tmp_path, kernel, sizes, bands):
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    exe, tiled, _ = _build(tmp_path, source, sizes)
    assert tiled == bands
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=sizes, threads=(1, 2, 3))


@pytest.mark.parametrize("tile_size", [5, 6, 30])
def test_tiles_not_multiple_of_the_register_tile(tmp_path, tile_size):
    sizes = ("-DNI=45", "-DNJ=53", "-DNK=22")
    exe, tiled, reason = _build(tmp_path, GEMM, [*sizes, f"--tile-size={tile_size}"])
    # SSE2: 4 x 4 register tiles, some full in every point tile; where isolating them costs
    # isl's AST generator more than isl_max_operations, the tiles stay without them.
    assert tiled == 1 or "no register tiles" in reason
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=sizes, threads=(1, 2))


def test_disabled_pass_leaves_no_register_tile(tmp_path):
    exe, tiled, _ = _build(tmp_path, GEMM, ["--disable-pass=register-tile"])
    assert tiled == 0
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path)


@pytest.mark.parametrize("threads", [(), ("-fno-pencil-parallel",)], ids=["threads", "sequential"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_accumulators_stay_in_registers(tmp_path, march, threads):
    """The row loop of the register tile is unrolled and no loop but the vector one is
    vectorised: the R x C accumulators are vector phis of the reduction loop, never gathered
    and scattered. Left to LLVM, a sequential gemm with AVX-512 had its row loop vectorised
    across rows (65 masked scatters, no accumulator phi, 10x slower)."""
    ll = tmp_path / "gemm.ll"
    sizes = ("-DNI=67", "-DNJ=131", "-DNK=29")
    harness.build(PENCILCC, [GEMM], ll, ["-O3", "-S", "-emit-llvm", *sizes, *march, *threads])
    text = ll.read_text()
    assert "masked.scatter" not in text and "masked.gather" not in text
    accumulators = re.findall(r"= phi <(\d+) x double>", text)
    # 4 rows of at least one vector each, in the full register tiles of the region's function
    assert len(accumulators) >= 4, accumulators


C99 = harness.POLYBENCH_DIR.parent / "polybench_c99"
VLA_KERNELS = [   # variable-length array parameters: the rows get alias scopes (register_rows)
    (harness.POLYBENCH_DIR / "syrk.c", ("-DN=131", "-DM=67")),
    (harness.POLYBENCH_DIR / "syrk.c", ("-DN=37", "-DM=5")),
    (C99 / "syrk.c", ("-DN=45", "-DM=37")),
    (C99 / "syr2k.c", ("-DN=45", "-DM=37")),
    (C99 / "gemm.c", ("-DNI=67", "-DNJ=131", "-DNK=29")),
    (C99 / "2mm.c", ("-DNI=37", "-DNJ=41", "-DNK=19", "-DNL=45")),
]


@pytest.mark.parametrize("source, sizes", VLA_KERNELS, ids=lambda v: v.parent.name + "/" + v.stem
                         if hasattr(v, "stem") else "_".join(f.split("=")[1] for f in v))
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_vla_register_tiles_match_gcc(tmp_path, source, sizes, march):
    exe, tiled, _ = _build(tmp_path, source, ["-std=c99", *sizes, *march])
    assert tiled >= 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=("-std=c99", *sizes), threads=(1, 2))


def _hot_blocks(text: str) -> list[tuple[int, int]]:
    """(vector multiplies, vector stores) of each basic block with at least 8 vector multiplies
    of doubles (plain or fused: -ffp-contract=on, the default under -std=c99, gives
    `llvm.fmuladd`): the reduction steps of the register tiles."""
    out = []
    for block in re.split(r"\n(?=[\w.$]+:)", text):
        multiplies = len(re.findall(r"= fmul(?: \w+)* <\d+ x double>"
                                    r"|call(?: \w+)* <\d+ x double> @llvm\.(?:fmuladd|fma)\.v\d+f64", block))
        if multiplies >= 8:
            out.append((multiplies, len(re.findall(r"\bstore <\d+ x double>", block))))
    return out


@pytest.mark.parametrize("source", [harness.POLYBENCH_DIR / "syrk.c", C99 / "gemm.c", C99 / "syr2k.c"],
                         ids=lambda p: p.parent.name + "/" + p.stem)
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_vla_accumulators_stay_in_registers(tmp_path, source, march):
    """With `double C[n][n]` the rows of a register tile lie `n * 8` bytes apart, `n` unknown:
    without the rows' alias scopes LLVM loaded and stored the whole tile of `C` in every step
    of the reduction loop (syrk LARGE, 2 threads: 0.25 s against 0.13 s with constant extents).
    The full tiles' steps must now hold no store, and the scopes must be there."""
    ll = tmp_path / "kernel.ll"
    harness.build(PENCILCC, [source], ll, ["-O3", "-S", "-emit-llvm", "-std=c99", *march])
    text = ll.read_text()
    hot = _hot_blocks(text)
    # the full register tiles: the blocks with the most multiplies (edge pieces have fewer)
    assert hot and all(stores == 0 for multiplies, stores in hot if multiplies == max(hot)[0]), hot
    assert "!alias.scope" in text and "!noalias" in text


def _functions(text: str) -> dict[str, str]:
    """The LLVM functions of `text` by name, each with its body."""
    return {m.group(1): m.group(0) for m in re.finditer(r"^define [^@\n]*@([\w.$]+)\(.*?^}$", text, re.M | re.S)}


@pytest.mark.parametrize("kernel", ["covariance", "correlation"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_team_functions_keep_the_sequential_accumulators(tmp_path, kernel, march):
    """A register tile under a thread team is emitted into the team function
    (`<region>.omp_chunk.<k>`), where the tile loop's counter starts at a value computed from
    the thread's number. LLVM must still see that its iterators never fall below their start
    (llvm_backend/cpu/parallel.py, `_iteration_facts`), or it drops `inbounds` from the
    statements' addresses, the SLP vectoriser cannot pair the accumulators, and they stay
    scalar loads and stores to memory (covariance LARGE, one thread: 3x slower than the
    sequential build). The team functions must hold as many vector accumulators (vector phis
    of doubles) as the sequential build's region function."""
    source = harness.POLYBENCH_DIR / f"{kernel}.c"
    sizes = ("-DM=67", "-DN=45")
    threaded, sequential = tmp_path / "threads.ll", tmp_path / "sequential.ll"
    harness.build(PENCILCC, [source], threaded, ["-O3", "-S", "-emit-llvm", *sizes, *march])
    harness.build(PENCILCC, [source], sequential, ["-O3", "-S", "-emit-llvm", "-fno-pencil-parallel", *sizes, *march])
    vector_phi = r"= phi <\d+ x double>"
    teams = [body for name, body in _functions(threaded.read_text()).items() if ".omp_chunk." in name]
    assert teams, "no team function: the region did not run on threads"
    in_teams = sum(len(re.findall(vector_phi, body)) for body in teams)
    in_sequential = len(re.findall(vector_phi, sequential.read_text()))
    assert in_sequential >= 4
    assert in_teams >= in_sequential, (in_teams, in_sequential)


@pytest.mark.skipif(not harness.host_has_cpu_flag("avx512f"), reason="the host has no AVX-512")
def test_register_tiles_use_the_full_vector_width(tmp_path):
    """The register tile is sized for the host's 64-byte registers (4 x 32 doubles of
    accumulators: 16 of the 32 zmm); LLVM's tuning for many AVX-512 CPUs keeps to 256-bit
    vectors, in which that tile would need all 32 registers. A module with register tiles
    is compiled with the full width (llvm_backend/cpu/target.py); one without keeps LLVM's
    choice."""
    sizes = ("-DNI=67", "-DNJ=131", "-DNK=29")
    tiled, plain = tmp_path / "tiled.s", tmp_path / "plain.s"
    harness.build(PENCILCC, [GEMM], tiled, ["-O3", "-S", "-march=native", *sizes])
    harness.build(PENCILCC, [GEMM], plain, ["-O3", "-S", "-march=native", *sizes, "--disable-pass=register-tile"])
    # multiplies, or FMAs under the default contraction (no -std: gcc's -ffp-contract=fast)
    multiplies = re.findall(r"\bv(?:mulpd|f(?:n?madd|n?msub)\d{3}pd)\s+[^\n]*%(zmm|ymm)\d+", tiled.read_text())
    # the full register tile: 4 rows of 4 zmm multiplied per step of the reduction loop
    # (edges of the domain keep narrower code)
    assert multiplies.count("zmm") >= 16 and multiplies.count("zmm") > multiplies.count("ymm"), multiplies
    assert not re.search(r"\bv(?:mulpd|f(?:n?madd|n?msub)\d{3}pd)\s+[^\n]*%zmm\d+", plain.read_text())


TRMM_SOURCES = [harness.POLYBENCH_DIR / "trmm.c", harness.POLYBENCH_DIR.parent / "polybench_c99" / "trmm.c",
                harness.POLYBENCH_DIR.parent / "loop_orders" / "trmm.ikj.c",
                harness.POLYBENCH_DIR.parent / "three_address" / "polybench_3ac" / "trmm.c"]


@pytest.mark.parametrize("source", TRMM_SOURCES, ids=lambda p: f"{p.parent.name}/{p.stem}")
@pytest.mark.parametrize("sizes", [("-DM=37", "-DN=45"), ("-DM=133", "-DN=70"), ("-DM=6", "-DN=33"),
                                   ("-DM=3", "-DN=2")], ids=["odd", "diagonal-tiles", "one-row-tile", "tiny"])
@pytest.mark.parametrize("march", [(), ("-march=native",)], ids=["sse2", "native"])
def test_trmm_register_tiles_match_gcc(tmp_path, source, sizes, march):
    """trmm's `B[i][j] += A[k][i] * B[k][j]`, `k > i`: the register tiles read the rows `k`
    of `B` from the copy made before each point tile (rows the tile writes only after those
    reads), and the diagonal tiles' first reduction steps (rows of the register tile starting
    one after another) are partial. Sizes with partial register tiles in every direction,
    diagonal tiles cut by the edge, fewer rows than one register tile."""
    flags = ["-std=c99", *sizes] if "c99" in source.parent.name else list(sizes)
    exe, tiled, _ = _build(tmp_path, source, [*flags, *march])
    if source.parent.name == "polybench_3ac":
        # The three statements run as one call (codegen's statement groups), which cannot
        # carry the buffer's indices: no pack, hence no register tiles.
        assert tiled == 0
    elif sizes != ("-DM=3", "-DN=2"):
        assert tiled == 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=tuple(flags), threads=(1, 2, 3))


def test_trmm_tile_sizes_not_multiple_of_the_register_tile(tmp_path):
    source = harness.POLYBENCH_DIR / "trmm.c"
    sizes = ("-DM=45", "-DN=53")
    exe, _, _ = _build(tmp_path, source, [*sizes, "--tile-size=6", "-march=native"])
    harness.assert_matches_gcc_O0(source, exe, tmp_path, flags=sizes, threads=(1, 2))
