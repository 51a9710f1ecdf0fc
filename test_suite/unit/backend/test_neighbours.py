# SPDX-License-Identifier: MIT
"""Vector loops that read an array at neighbouring elements (llvm_backend.cpu.neighbours).

The stencils' vector loops (jacobi-1d, jacobi-2d, fdtd-2d) read `A[i - 1]`, `A[i]` and
`A[i + 1]` along the vector iterator and are lowered with `llvm.loop.interleave.count` 1;
the products' and streams' vector loops (gemm's, mvt's, floyd-warshall's) read no two
neighbours along it and keep LLVM's own interleaving. A neighbour along another
dimension (`B[i + 1][j]` in the `j` loop) does not count.
"""
from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.poly.validity import VECTOR_MARK
from clangpass.regions import find_regions
from llvm_backend.cpu import build_module
from llvm_backend.cpu.neighbours import reads_neighbours

POLYBENCH = Path(__file__).resolve().parents[2] / "kernels" / "polybench"
HINT = '!"llvm.loop.interleave.count", i32 1'


def _unit(path: Path) -> CodegenUnit:
    result = parse_file(str(path))
    region = next(r for r in find_regions(result.module))
    outcome = optimise_region(region, result.module, CompileOptions(opt_level=3), DumpSink(stages=frozenset()))
    assert outcome.status == "optimized", outcome.reason
    return outcome.unit


def _vector_loops(node: isl.AstNode) -> list[isl.AstNode]:
    kind = node.get_type()
    if kind == isl.ast_node_type.mark:
        child = node.mark_get_node()
        if node.mark_get_id().get_name() == VECTOR_MARK and child.get_type() == isl.ast_node_type.for_:
            return [child] + _vector_loops(child.for_get_body())
        return _vector_loops(child)
    if kind == isl.ast_node_type.for_:
        return _vector_loops(node.for_get_body())
    if kind == isl.ast_node_type.if_:
        return _vector_loops(node.if_get_then_node()) + (
            _vector_loops(node.if_get_else_node()) if node.if_has_else_node() else [])
    if kind == isl.ast_node_type.block:
        nodes = node.block_get_children()
        return [loop for k in range(nodes.n_ast_node()) for loop in _vector_loops(nodes.get_at(k))]
    return []


@pytest.mark.parametrize("kernel", ["jacobi-1d", "jacobi-2d", "fdtd-2d"])
def test_stencil_vector_loops_read_neighbours_and_run_one_vector_body(kernel: str) -> None:
    unit = _unit(POLYBENCH / f"{kernel}.c")
    loops = _vector_loops(unit.ast)
    assert loops, kernel
    assert any(reads_neighbours(unit, loop) for loop in loops)
    assert HINT in str(build_module([unit], CompileOptions(opt_level=3), kernel))


@pytest.mark.parametrize("kernel", ["gemm", "mvt", "floyd-warshall"])
def test_other_vector_loops_keep_llvms_interleaving(kernel: str) -> None:
    unit = _unit(POLYBENCH / f"{kernel}.c")
    assert not any(reads_neighbours(unit, loop) for loop in _vector_loops(unit.ast))
    assert "llvm.loop.interleave.count" not in str(build_module([unit], CompileOptions(opt_level=3), kernel))


def test_a_neighbour_along_another_dimension_does_not_count(tmp_path: Path) -> None:
    source = tmp_path / "rows.c"
    source.write_text(
        "void k(int n, double A[n][n], double B[n][n])\n{\n#pragma scop\n"
        "  for (int i = 0; i < n - 1; i++)\n    for (int j = 0; j < n; j++)\n"
        "      A[i][j] = B[i + 1][j] + B[i][j];\n#pragma endscop\n}\n")
    unit = _unit(source)
    loops = _vector_loops(unit.ast)
    assert loops
    assert not any(reads_neighbours(unit, loop) for loop in loops)
    shifted = tmp_path / "shifted.c"
    shifted.write_text(source.read_text().replace("B[i + 1][j]", "B[i][j + 1]").replace("j < n;", "j < n - 1;"))
    unit = _unit(shifted)
    assert any(reads_neighbours(unit, loop) for loop in _vector_loops(unit.ast))
