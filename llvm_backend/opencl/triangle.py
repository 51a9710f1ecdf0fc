# SPDX-License-Identifier: MIT
"""Two coincident loops whose inner bounds name the outer iterator (a triangle, a trapezoid):
the grid over their bounding box, for the tiling (tiling.py) of syrk and syr2k.

Input: the kernel's outer for node and the for node directly under its `coincident` mark, whose
init or condition names the outer iterator (syrk's `for (c1 = 0; c1 <= c0; c1 += 1)`).
Output:
- `triangular_inner_loop`: that inner loop, or None (`kernels.inner_coincident_loop` takes the
  rectangles);
- `bounding_box`: the first and last iteration of the inner loop over all of the outer one's
  (isl: the set of both iterators, projected on the inner one, its `dim_min` and `dim_max`),
  as isl AST expressions of the region's parameters and the host's iterators: the host launches
  dimension 0 of the grid over that range (llvm_backend.opencl.host);
- `domain`: the inner loop's own bounds as isl constraints of both grid iterators, which the
  tiling adds to the iterations that exist (its copy guards never read outside them);
- `tile_meets_domain`: OpenCL C for "the work-group's tile holds an iteration": a group whose
  tile lies wholly outside the domain returns at once (a condition of the group alone, so every
  work-item of the group leaves before any barrier, or none does).
Inside the kernel a work-item of the box is active only where the inner loop's bounds hold
(`kernels.KernelBuilder`); the others still copy and reach every barrier of their group.

Legality: as for a rectangle, both loops are coincident members of one band (no dependence
between two iterations that differ in either), so every point may be a work-item; the box only
adds points that compute nothing.
"""
from __future__ import annotations

from typing import Optional, Sequence

import islpy as isl

from clangpass.poly.affine import NotAffine
from clangpass.poly.ast_c import identifiers, iterator_name
from clangpass.poly.validity import COINCIDENT_MARK
from llvm_backend.opencl.tiling import BOUNDS, ORIGIN, _kernel_expr, isl_text


def _unit_step(node: isl.AstNode) -> bool:
    inc = node.for_get_inc()
    return inc.get_type() == isl.ast_expr_type.int and inc.int_get_val().to_python() == 1


def coincident_child(loop: isl.AstNode) -> Optional[isl.AstNode]:
    """The non-degenerate for node directly under `loop`'s body mark `coincident` (mark-parallel's
    second member), if there is one."""
    body = loop.for_get_body()
    if body.get_type() != isl.ast_node_type.mark or body.mark_get_id().get_name() != COINCIDENT_MARK:
        return None
    inner = body.mark_get_node()
    if inner.get_type() != isl.ast_node_type.for_ or inner.for_is_degenerate():
        return None
    return inner


def triangular_inner_loop(loop: isl.AstNode) -> Optional[isl.AstNode]:
    """The for node directly under `loop`'s body mark `coincident` when its init or condition
    names `loop`'s iterator (both loops of step 1)."""
    inner = coincident_child(loop)
    if inner is None:
        return None
    if not (_unit_step(loop) and _unit_step(inner)):
        return None
    outer = iterator_name(loop)
    if outer in identifiers(inner.for_get_inc()):
        return None
    if outer not in identifiers(inner.for_get_init()) | identifiers(inner.for_get_cond()):
        return None
    try:
        domain(inner)
    except NotAffine:       # a bound isl's set syntax cannot say (a select)
        return None
    return inner


def domain(inner: isl.AstNode) -> list[str]:
    """The inner loop's bounds as isl constraints (of both grid iterators and parameters);
    raises NotAffine for a bound that isl's syntax cannot say."""
    it = iterator_name(inner)
    return [f"{it} >= {isl_text(inner.for_get_init())}", isl_text(inner.for_get_cond())]


def _params_text(params: Sequence[str]) -> str:
    return f"[{', '.join(dict.fromkeys(params))}]"


def bounding_box(outer: isl.AstNode, inner: isl.AstNode, params: Sequence[str]
                 ) -> Optional[tuple[isl.AstExpr, isl.AstExpr]]:
    """(first, last) iteration of `inner` over every iteration of `outer`, as isl AST
    expressions of `params` (the region's integer arguments and the host's iterators); None
    when isl cannot bound them (an unbounded or non-affine loop)."""
    o, i = iterator_name(outer), iterator_name(inner)
    try:
        constraints = [f"{o} >= {isl_text(outer.for_get_init())}", isl_text(outer.for_get_cond()), *domain(inner)]
        body = " and ".join(f"({c})" for c in constraints)
        points = isl.Set(f"{_params_text(params)} -> {{ [{o}, {i}] : {body} }}")
        column = points.project_out(isl.dim_type.set, 0, 1)
        low, high = column.dim_min(0), column.dim_max(0)
        if low.involves_nan() or high.involves_nan():
            return None
        build = isl.AstBuild.from_context(isl.Set(f"{_params_text(params)} -> {{ : }}"))
        return build.expr_from_pw_aff(low.coalesce()), build.expr_from_pw_aff(high.coalesce())
    except (NotAffine, isl.Error):
        return None


def tile_meets_domain(outer: isl.AstNode, inner: isl.AstNode, params: Sequence[str],
                      host_iterators: Sequence[str], group: tuple[int, int]) -> Optional[str]:
    """OpenCL C, over the tile's origin `t___pcl_o1`, `t___pcl_o0` and the launch's
    `t___pcl_s1/n1/s0/n0` (tiling.ORIGIN, BOUNDS): some iteration of the tile (`group[1]` outer
    by `group[0]` inner iterations) is in the grid and in the inner loop's bounds."""
    o, i = iterator_name(outer), iterator_name(inner)
    names = [*params, *host_iterators, *ORIGIN, *BOUNDS]
    constraints = [f"__pcl_o1 <= {o} < __pcl_o1 + {group[1]}", f"__pcl_o0 <= {i} < __pcl_o0 + {group[0]}",
                   f"__pcl_s1 <= {o} < __pcl_s1 + __pcl_n1", f"__pcl_s0 <= {i} < __pcl_s0 + __pcl_n0"]
    try:
        constraints += domain(inner)
        body = " and ".join(f"({c})" for c in constraints)
        meets = isl.Set(f"{_params_text(names)} -> {{ [{o}, {i}] : {body} }}").params().coalesce()
        build = isl.AstBuild.from_context(meets.universe(meets.get_space()))
        return _kernel_expr(build.expr_from_set(meets), set(ORIGIN) | set(BOUNDS) | set(host_iterators))
    except (NotAffine, isl.Error):
        return None
