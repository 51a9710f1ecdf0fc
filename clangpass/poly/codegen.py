# SPDX-License-Identifier: MIT
"""AST generation: final schedule tree -> isl AST + statement bodies (`CodegenUnit`).

Input: a `Scop` whose `schedule` the passes produced. Output: the `CodegenUnit`
the back ends lower (contract in clangpass.poly.codegen_unit). Uses isl's AST
generator (Grosser, Verdoolaege & Cohen, "Polyhedral AST generation is more than
scanning polyhedra", TOPLAS 2015): `AstBuild.from_context(context)` and
`node_from_schedule`; schedule-tree marks (`parallel`, `tile`, `point`) become
AST mark nodes. Kill statements are not in the schedule, so produce no code.

Every band member is generated with the `atomic` loop type: with isl's default
(which separates full and partial tiles) the AST of some tiled schedules skips
statement instances (reproducer: test_codegen.py::test_tiled_ast_runs_every_instance,
found by the random differential tests). Atomic loops keep one loop per
dimension with guards inside, which is correct there and costs little on CPUs.
The exception is the innermost point loop of a tile band run by wavefronts
(clangpass.passes.wavefront): skewed stencils fuse statements at different offsets,
and atomic guards on each of them inside that loop kept it scalar; `separate`
splits it into guard-free pieces (heat-3d: a third fewer cycles, docs/passes/wavefront.md).
Only that one member is separated (the reproducer above and the stencil tests pass).
"""
from __future__ import annotations

import re

import islpy as isl

from clangpass.poly.annotations import performed_reductions, reduction_updates
from clangpass.poly.codegen_unit import WAVEFRONT_MARK, CodegenUnit, StatementBody
from clangpass.poly.scop import Scop
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK

# isl names loop iterators c0, c1...; a parameter of that form would be shadowed.
_ISL_ITERATOR = re.compile(r"c\d+$")
_ITERATOR_PREFIX = "__pencil_c"
# The mark `tile` puts above a point band (clangpass.passes.tile.POINT_MARK; the AST contract
# in clangpass.poly.codegen_unit names it, and poly does not import passes).
_POINT_MARK = "point"


def generate_ast(scop: Scop, atomic: bool = True) -> CodegenUnit:
    """The isl AST of `scop.schedule` and the bodies its user nodes call.

    `atomic=False` leaves the loop types to isl (the second try of pass `codegen` when
    the atomic AST does not run the schedule's domain, clangpass.poly.ast_soundness).
    """
    schedule = scop.schedule
    ast = _build(scop, schedule, atomic)
    if _misplaced_parallel_marks(ast):
        # isl removed a degenerate loop under a mark: drop the marks rather than break the contract.
        schedule = _without_marks(schedule, PARALLEL_MARK)
        ast = _build(scop, schedule, atomic)
    statements = {s.name: StatementBody(s.name, s.body, s.iterators) for s in scop.compute_statements}
    return CodegenUnit(region=scop.region, ast=ast, statements=statements, locals=scop.locals,
                       parallel_loops=_count_marks(ast, PARALLEL_MARK), wavefronts=_count_marks(ast, WAVEFRONT_MARK),
                       tiled_bands=scop.tiled_bands,
                       tile_sizes=scop.tile_sizes, reordered_bands=scop.reordered_bands,
                       vector_loops=_count_marks(ast, VECTOR_MARK),
                       reductions=performed_reductions(scop, schedule), unordered_updates=reduction_updates(scop))


def format_ast(unit: CodegenUnit) -> str:
    """isl's C rendering of the AST (marks appear as `// name` comments)."""
    return unit.ast.to_C_str().rstrip()


def _atomic_loops(schedule: isl.Schedule) -> isl.Schedule:
    """`schedule` with every band member's AST loop type set to atomic (see the module docstring)."""

    def atomic(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            separate = _innermost_wavefront_point_loop(node)
            for k in range(node.band_n_member()):
                if node.band_member_get_ast_loop_type(k) != isl.ast_loop_type.default:
                    continue     # chosen by a pass (register-tile's peeled reduction loop)
                kind = isl.ast_loop_type.separate if separate and k == node.band_n_member() - 1 \
                    else isl.ast_loop_type.atomic
                node = node.band_member_set_ast_loop_type(k, kind)
        return node

    return schedule.map_schedule_node_bottom_up(atomic)


def _innermost_wavefront_point_loop(band: isl.ScheduleNode) -> bool:
    """Whether `band` ends with the innermost point loop of a tile band run by wavefronts."""
    inner_bands = [0]

    def count(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            inner_bands[0] += 1
        return True

    band.child(0).foreach_descendant_top_down(count)
    if inner_bands[0]:
        return False
    marks: set[str] = set()
    node = band
    while node.has_parent():
        node = node.parent()
        if node.get_type() == isl.schedule_node_type.mark:
            marks.add(node.mark_get_id().get_name())
    return {_POINT_MARK, WAVEFRONT_MARK} <= marks


def _build(scop: Scop, schedule: isl.Schedule, atomic: bool = True) -> isl.AstNode:
    if atomic:
        schedule = _atomic_loops(schedule)
    build = isl.AstBuild.from_context(scop.context)           # [P] -> { : context }
    if any(_ISL_ITERATOR.match(p) for p in scop.params):
        depth = max((len(s.iterators) for s in scop.statements), default=0)
        names = isl.IdList.alloc(scop.context.get_ctx(), 0)
        for k in range(4 * depth + 8):   # tiling doubles the depth; split bands add none
            names = names.add(isl.Id(f"{_ITERATOR_PREFIX}{k}", context=scop.context.get_ctx()))
        build = build.set_iterators(names)
    return build.node_from_schedule(schedule)


def _ast_nodes(ast: isl.AstNode) -> list[isl.AstNode]:
    """Every AST node under `ast`, pre-order."""
    out: list[isl.AstNode] = []

    def visit(node: isl.AstNode) -> bool:
        out.append(node.copy())   # the callback's node is only borrowed
        return True

    ast.foreach_descendant_top_down(visit)
    return out


def _count_marks(ast: isl.AstNode, name: str) -> int:
    return sum(1 for n in _ast_nodes(ast)
               if n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == name)


def _misplaced_parallel_marks(ast: isl.AstNode) -> bool:
    return any(n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == PARALLEL_MARK
               and n.mark_get_node().get_type() != isl.ast_node_type.for_ for n in _ast_nodes(ast))


def _without_marks(schedule: isl.Schedule, name: str) -> isl.Schedule:
    def drop(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == name:
            return node.delete()
        return node

    return schedule.map_schedule_node_bottom_up(drop)
