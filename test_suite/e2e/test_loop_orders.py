# SPDX-License-Identifier: MIT
"""Loop-order variants get their original's schedule and print what gcc -O0 prints (issue 28, item 4).

The variants (test_suite/kernels/loop_orders, written by test_suite/kernels/loop_orders.py:
a `k`-outer and a dot-product gemm, syrk and syr2k column by column, mvt's two products
in one sweep, adi's sweeps with the recurrence outside, ...) compute what their originals
compute in another loop order. Each is built by `pencilcc -O3` with the scop and
schedule dumps and an optimisation record, and so is its original; the variant must
print what gcc -O0 prints, and its final schedule must be its original's up to the
names of statements and loops (test_suite/e2e/schedule_shape.py: the same bands, members,
parallel flags, marks and statement order), with the same tiled bands, parallel loops
and vector loops in the record. Where pencilcc still gives a variant another schedule,
the case is a strict xfail whose reason says why, from the dumps.

Builds run in the background, one per CPU, from the module's first test on.
"""
from __future__ import annotations

import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from test_suite.e2e import harness, schedule_shape
from test_suite.kernels import loop_orders

PENCILCC = [sys.executable, "-m", "clangpass"]
FLAGS = (*harness.KERNEL_CFLAGS, "-O3", "-fpencil-dump=scop,schedule")
RECORD_FIELDS = ("status", "tiled_bands", "parallel_loops", "vector_loops", "register_tiled_bands", "wavefronts")

#: Variants whose schedule still differs from their original's, and why (from the dumps).
_SSE2_TRIANGLE = ("same tree, same register tiles and packs; without -march (SSE2's 4 x 4 register "
                  "tiles in 128^3 point tiles) isl's AST of the original's spelling of the triangle "
                  "(j <= i) cuts the register tiles along the diagonal into more pieces than the "
                  "variant's (i >= j): 7 vector loops against 4 (with 32^3 tiles the original's AST "
                  "with the copies exceeded isl's budget and ran without packs)")
EXPECTED_DIFFERENT: dict[str, str] = {"syrk.ji": _SSE2_TRIANGLE, "syr2k.ji": _SSE2_TRIANGLE}
# (mvt.fused, both products in one sweep over A, was here: isl splits the two products
# apart as in the original, and `source-order` kept the fused source's sweep. Since
# `row-blocks`, both spellings get the same nest over blocks of rows of A.)

NAMES = [o.name for o in loop_orders.ORDERS]


class Builds:
    """pencilcc builds (linked, with dumps and a record) of every variant and every original."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
        sources = {o.name: o.path for o in loop_orders.ORDERS}
        sources.update({o.kernel: o.original for o in loop_orders.ORDERS})
        self.futures: dict[str, Future] = {name: self.pool.submit(self._build, name, path)
                                           for name, path in sources.items()}

    def _build(self, name: str, source: Path) -> tuple[Path, dict, dict]:
        out = self.workdir / name
        proc, regions = harness.build_recorded([source], out, FLAGS, PENCILCC)
        return out, regions, schedule_shape.shapes(proc.stderr)

    def result(self, name: str) -> tuple[Path, dict, dict]:
        return self.futures[name].result()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory):
    started = Builds(tmp_path_factory.mktemp("loop_orders"))
    yield started
    started.pool.shutdown(wait=True, cancel_futures=True)


def test_variants_are_current_and_print_what_their_originals_print():
    """`loop_orders.py --check`: the files are what the generator writes, and gcc -O0 builds of
    each variant and of its original print the same."""
    assert loop_orders.main(["--check"]) == 0


def test_variants_are_benchmark_kernels():
    from test_suite.bench import datasets
    chosen = {k.label: k for k in datasets.select_kernels(loop_orders.GROUP)}
    assert sorted(chosen) == sorted(f"{loop_orders.GROUP}/{n}" for n in NAMES)
    gemm = chosen[f"{loop_orders.GROUP}/gemm.kij"]
    assert gemm.polybench_name == "gemm" and gemm.size_macros("large") == tuple(datasets.SIZES["large"]["gemm"].split())


@pytest.mark.parametrize("name", NAMES)
def test_variant_matches_gcc(builds, tmp_path, name):
    exe, regions, _ = builds.result(name)
    assert all(r["status"] == "optimized" for r in regions.values()), [r["reason"] for r in regions.values()]
    reference = harness.gcc_reference(loop_orders.BY_NAME[name].path, tmp_path)
    for threads in ("1", "2"):
        got = harness.run(exe, env={"PENCILCC_NUM_THREADS": threads})
        assert harness.compare_outputs(reference, got, rtol=1e-9) == [], f"{threads} threads"


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(reason=EXPECTED_DIFFERENT[n], strict=True))
                                  if n in EXPECTED_DIFFERENT else n for n in NAMES])
def test_variant_gets_its_originals_schedule(builds, name):
    kernel = loop_orders.BY_NAME[name].kernel
    _, original_regions, original_shapes = builds.result(kernel)
    _, regions, shapes = builds.result(name)
    assert list(shapes) == list(original_shapes)
    for label, shape in shapes.items():
        original = original_shapes[label]
        assert shape.summary(original.loop_names) == original.summary(original.loop_names)
        assert shape.tree == original.tree
    for label, region in regions.items():
        assert {f: region[f] for f in RECORD_FIELDS} == {f: original_regions[label][f] for f in RECORD_FIELDS}


def test_shape_tells_loop_orders_apart(builds):
    """The comparison can fail: gemm's and syrk's schedules have the same marks and band sizes
    but not the same loops."""
    (gemm,) = builds.result("gemm")[2].values()
    (syrk,) = builds.result("syrk")[2].values()
    assert gemm.tree != syrk.tree


def test_member_order_follows_the_accesses_not_the_source():
    """clangpass.poly.member_order on isl's band for gemm written `j-k-i`: (j, i, k), both
    parallel members first, becomes (i, j, k): i jumps in C and A, j runs along rows of C and B."""
    import islpy as isl
    from clangpass.poly.member_order import order_parallel_members
    ctx = isl.Context()
    domain = isl.UnionSet.read_from_str(ctx, "[n] -> { S[j, k, i] : 0 <= i, j, k < n }")
    band = isl.MultiUnionPwAff.read_from_str(ctx, "[n] -> [{ S[j, k, i] -> [(j)] }, { S[j, k, i] -> [(i)] }, "
                                                  "{ S[j, k, i] -> [(k)] }]")
    node = isl.Schedule.from_domain(domain).get_root().child(0).insert_partial_schedule(band)
    node = node.band_set_permutable(1).band_member_set_coincident(0, 1).band_member_set_coincident(1, 1)
    accesses = isl.UnionMap.read_from_str(ctx, "[n] -> { S[j, k, i] -> C[i, j]; S[j, k, i] -> A[i, k]; "
                                               "S[j, k, i] -> B[k, j] }")
    ordered, changed = order_parallel_members(node.get_schedule(), accesses)
    top = ordered.get_root().child(0)
    assert changed == 1
    members = [top.band_get_partial_schedule().get_union_pw_aff(m).to_str() for m in range(3)]
    assert ["(i)" in members[0], "(j)" in members[1], "(k)" in members[2]] == [True, True, True]
    assert [top.band_member_get_coincident(m) for m in range(3)] == [True, True, False]
    again, unchanged = order_parallel_members(ordered, accesses)
    assert unchanged == 0
