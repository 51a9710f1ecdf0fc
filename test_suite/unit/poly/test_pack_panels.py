# SPDX-License-Identifier: MIT
"""Pass `pack-panels` on tiny inputs: which arrays it packs, the footprints, the AST it leads to."""
from __future__ import annotations

import islpy as isl

from clangpass.dumps import DumpSink
from clangpass.ir.printer import format_expr
from clangpass.options import CompileOptions
from clangpass.passes.manager import run_pipeline
from clangpass.passes.pack_panels import PackRecord
from clangpass.passes.registry import PassContext
from clangpass.passes.unit import PolyUnit
from clangpass.poly.codegen import format_ast, generate_ast
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK
from clangpass.poly.packing import copy_is_current, footprint, pack_reads
from clangpass.targets import get_target
from test_suite.unit.poly.snippets import region_of
from test_suite.unit.poly.test_register_tile import SELF_READING, SELF_READING_UPDATED, SGEMM
from test_suite.unit.poly.test_schedule import GEMM

# No scalar factor: the A panel has no expression to move out of the micro-kernel.
PLAIN_PRODUCT = GEMM.replace("alpha * A[i][k]", "A[i][k]")


def _unit_after(tmp_path, source: str, last: str = "pack-panels", **options):
    region, module = region_of(tmp_path, source)
    ctx = PassContext(CompileOptions(opt_level=3, **options), isl.Context())
    names = list(get_target("cpu").pipeline(3))
    names = names[:names.index(last) + 1]
    return run_pipeline(PolyUnit(region, module), names, ctx, DumpSink(), {})


def test_gemm_packs_the_scaled_a_and_the_b_panel(tmp_path):
    unit = _unit_after(tmp_path, GEMM, tile_size=32)
    packs = {p.array: p for p in unit.scop.packs}
    assert sorted(packs) == ["A", "B"]
    assert packs["B"].value is None and packs["B"].sizes == (32, 32) and packs["B"].statements == ("S_1",)
    assert format_expr(packs["A"].value) == "(alpha * A[i][k])"
    assert packs["A"].sizes == (32, 32)
    assert unit.record(PackRecord).packed_panels == 2


def test_plain_product_packs_only_b(tmp_path):
    unit = _unit_after(tmp_path, PLAIN_PRODUCT, tile_size=32)
    assert [p.array for p in unit.scop.packs] == ["B"]


def test_float_panels(tmp_path):
    unit = _unit_after(tmp_path, SGEMM, tile_size=32)
    assert [p.array for p in unit.scop.packs] == ["B"]
    # Rows of 128 bytes (2 cache lines) padded to 3 lines.
    assert unit.scop.packs[0].extents == (32, 48) and unit.scop.packs[0].bytes == 32 * 48 * 4


def test_no_register_tile_no_pack(tmp_path):
    unit = _unit_after(tmp_path, SELF_READING_UPDATED, tile_size=32)
    assert unit.scop.packs == ()


def test_rows_the_band_writes_after_reading_them_are_packed(tmp_path):
    """trmm's B[k][j] (k > i): B is written by the band, but every row a point tile reads is
    written in it only after those reads, so the copy holds what each read gets; the
    accumulator B[i][j] is not packed. On the diagonal tiles the rows read start one after
    the tile's first row (dim_min is max(kt, it + 1)): the corner is the tile's first row."""
    unit = _unit_after(tmp_path, SELF_READING, tile_size=32)
    # A[k][i], its rows adjacent, is copied too (the reduction walks down its columns).
    assert sorted((p.array, p.sizes) for p in unit.scop.packs) == [("A", (32, 32)), ("B", (32, 32))]
    text = format_ast(generate_ast(unit.scop, frozenset()))
    assert "P___pencil_pack1_B" in text
    mark = _register_tile_mark(unit.scop.schedule)
    pack = next(p for p in unit.scop.packs if p.array == "B")
    box = footprint(mark, pack_reads(unit.scop.reads, pack, mark.get_domain()))
    assert box.lo.get_pw_aff(0).is_equal(isl.PwAff.read_from_str(
        mark.get_ctx(), "[n] -> { [c0, c1, c2] -> [(c2)] }").intersect_domain(box.lo.domain()))
    # Were the band to write the rows it reads (B[k][j] at row i, read at the same step by
    # the rows below i), a copy would miss those writes.
    writes = isl.UnionMap.read_from_str(mark.get_ctx(), "[n] -> { S_0[i, k, j] -> B[k, j] : 0 <= i < k < n and 0 <= j < n }")
    assert copy_is_current(mark, pack_reads(unit.scop.reads, pack, mark.get_domain()), unit.scop.writes)
    assert not copy_is_current(mark, pack_reads(unit.scop.reads, pack, mark.get_domain()), writes)


def _register_tile_mark(schedule: isl.Schedule) -> isl.ScheduleNode:
    found: list[isl.ScheduleNode] = []

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == REGISTER_TILE_MARK:
            found.append(node.copy())
        return True

    schedule.get_root().foreach_descendant_top_down(visit)
    assert len(found) == 1
    return found[0]


def test_disabled_pass(tmp_path):
    unit = _unit_after(tmp_path, GEMM, tile_size=32, disabled_passes=frozenset({"pack-panels"}))
    assert unit.scop.packs == ()


def test_ast_copies_before_the_micro_kernel(tmp_path):
    """The copies run before the register-tile mark; the calls carry the buffer indices:
    offsets from the tile corner, no division."""
    unit = _unit_after(tmp_path, GEMM, tile_size=32)
    codegen = generate_ast(unit.scop, frozenset())
    text = format_ast(codegen)
    assert text.index("P___pencil_pack") < text.index("// register-tile")
    assert {p.array for p in codegen.packs} == {"A", "B"}
    assert {d.name for d in codegen.locals} >= {p.buffer for p in codegen.packs}
    reader = codegen.statements["S_1"]
    assert reader.iterators[-4:] == (*codegen.packs[0].indices(), *codegen.packs[1].indices())
    assert "/" not in text.split("// register-tile", 1)[1].split("S_1(", 1)[1].split(")", 1)[0]


def test_syrk_packs_each_read_of_a_the_b_panel_transposed(tmp_path):
    """syrk reads A twice: `alpha * A[i][k]` is the A panel (array order) and `A[j][k]`, down
    which the register tile's columns j walk, the B panel copied as buffer[k][j]."""
    from clangpass.poly.packing import COPY_STRIP, whole_subscripts
    from test_suite.unit.poly.test_register_tile import SYRK
    unit = _unit_after(tmp_path, SYRK, tile_size=32)
    a_panel, b_panel = sorted(unit.scop.packs, key=lambda p: p.order is not None)
    assert (a_panel.array, b_panel.array) == ("A", "A")
    assert format_expr(a_panel.value) == "(alpha * A[i][k])" and a_panel.order is None
    assert b_panel.value is None and b_panel.order == (1, 0) and b_panel.sizes == (32, 32)
    assert "o0 = j and o1 = k" in b_panel.access
    codegen = generate_ast(unit.scop, frozenset())
    body = format_expr(codegen.statements["S_1"].body.expr)
    # Each read became its own buffer; no read of A is left in the micro-kernel's statement.
    assert a_panel.buffer in body and b_panel.buffer in body
    assert not whole_subscripts(codegen.statements["S_1"].body, "A", 2)
    # The copy loops run in the buffer's order, in strips of COPY_STRIP rows of A (one strip
    # here: isl drops its loop): k (c4), then j (c5): they read A[c5][c4] down a column and
    # write buffer[c4 - c2][c5 - c1] along a row (no scatter of the stores).
    assert COPY_STRIP == 32
    text = format_ast(codegen)
    assert f"{b_panel.copy}(c0, c1, c2, c5, c4, -c2 + c4, -c1 + c5);" in text
    copy_loops = text.split(f"{b_panel.copy}(", 1)[0].rsplit(f"{a_panel.copy}(", 1)[1]
    assert copy_loops.index("for (int c4 = c2;") < copy_loops.index("for (int c5 = c1;")
    # The A panel (array order) keeps its loops: rows i, then k along them.
    assert f"{a_panel.copy}(c0, c1, c2, c3, c4, -c0 + c3, -c2 + c4);" in text


def test_syr2k_transposed_panels_hold_the_scaled_elements(tmp_path):
    """syr2k's `A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k]`: the B panels A[j][k]
    and B[j][k] are copied transposed with their `* alpha`; B[i][k] and A[i][k] (no expression
    of read-only scalars around them) stay in the arrays."""
    from test_suite.unit.poly.test_register_tile import SYR2K
    unit = _unit_after(tmp_path, SYR2K, tile_size=32)
    assert sorted((p.array, format_expr(p.value), p.order) for p in unit.scop.packs) == [
        ("A", "(A[j][k] * alpha)", (1, 0)), ("B", "(B[j][k] * alpha)", (1, 0))]
