# SPDX-License-Identifier: MIT
"""Hand-built `CodegenUnit`s for the CPU back-end tests (no middle end needed).

`region_unit(path, function, domain, bands)` parses a C file with the front end,
takes the first region of `function`, names its expression statements S_0, S_1,
... in source order (their iterators are the enclosing for loops' variables), and
builds the isl AST of the schedule given as a list of band maps from the outermost
to the innermost dimension: `["{ S_0[i, j] -> [i] }", "{ S_0[i, j] -> [j] }"]`.
Bands listed in `parallel` (by position) get a `parallel` mark, as the middle end
puts it. `nest_unit` does the same for a perfect nest whose statements all share
the loops: the schedule is the loops in order, then the statements in text order.
"""
from __future__ import annotations

from typing import Iterable

import islpy as isl

from clangpass.frontend import parse_file
from clangpass.ir import nodes as N
from clangpass.poly.codegen_unit import CodegenUnit, StatementBody
from clangpass.regions import OptRegion, find_regions


def _loop_variable(loop: N.For) -> str:
    init = loop.init
    if isinstance(init, N.DeclStmt):
        return init.decls[0].name
    if isinstance(init, N.ExprStmt) and isinstance(init.expr, N.Assign) and isinstance(init.expr.target, N.VarRef):
        return init.expr.target.name
    raise ValueError("unsupported loop header")


def statements_of(region: OptRegion) -> tuple[dict[str, StatementBody], tuple[N.VarDecl, ...]]:
    bodies: dict[str, StatementBody] = {}
    local_decls: list[N.VarDecl] = []

    def walk(s: N.Stmt, iterators: tuple[str, ...]) -> None:
        if isinstance(s, N.Compound):
            for sub in s.body:
                walk(sub, iterators)
        elif isinstance(s, N.For):
            walk(s.body, iterators + (_loop_variable(s),))
        elif isinstance(s, N.DeclStmt):
            local_decls.extend(s.decls)
        elif isinstance(s, (N.ExprStmt, N.If)):
            name = f"S_{len(bodies)}"
            bodies[name] = StatementBody(name, s, iterators)
        else:
            raise ValueError(f"unsupported statement {type(s).__name__}")

    walk(region.body, ())
    return bodies, tuple(local_decls)


def build_ast(domain: str, bands: list[str], parallel: Iterable[int] = (), context: str = "",
              ctx: isl.Context | None = None) -> isl.AstNode:
    ctx = ctx or isl.DEFAULT_CONTEXT
    schedule = isl.Schedule.from_domain(isl.UnionSet(domain, context=ctx))
    node = schedule.get_root().child(0)
    parallel = set(parallel)
    for depth, band in enumerate(bands):
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(isl.UnionMap(band, context=ctx)))
        if depth in parallel:
            node = node.insert_mark(isl.Id("parallel", context=ctx)).child(0)
        node = node.child(0)
    build = isl.AstBuild.from_context(isl.Set(context or "{ : }", context=ctx))
    return build.node_from_schedule(node.get_schedule())


def region_unit(path: str, function: str, domain: str, bands: list[str], parallel: Iterable[int] = (),
                context: str = "", ctx: isl.Context | None = None) -> CodegenUnit:
    result = parse_file(path)
    assert result.ok, [d.message for d in result.diagnostics]
    region = next(r for r in find_regions(result.module) if r.function.name == function)
    assert not region.problems, region.problems
    statements, local_decls = statements_of(region)
    ast = build_ast(domain, bands, parallel, context, ctx)
    return CodegenUnit(region, ast, statements, local_decls, parallel_loops=len(set(parallel)))


def nest_unit(path: str, function: str, params: str, iterators: tuple[str, ...], bounds: str,
              parallel: Iterable[int] = (), context: str = "") -> CodegenUnit:
    result = parse_file(path)
    assert result.ok, [d.message for d in result.diagnostics]
    region = next(r for r in find_regions(result.module) if r.function.name == function)
    statements, _ = statements_of(region)
    names = list(statements)
    assert all(statements[n].iterators == iterators for n in names), [s.iterators for s in statements.values()]
    tuple_ = ", ".join(iterators)
    domain = f"{params} -> {{ " + "; ".join(f"{n}[{tuple_}] : {bounds}" for n in names) + " }"
    bands = [f"{params} -> {{ " + "; ".join(f"{n}[{tuple_}] -> [{it}]" for n in names) + " }"
             for it in iterators]
    if len(names) > 1:
        bands.append(f"{params} -> {{ " + "; ".join(f"{n}[{tuple_}] -> [{k}]" for k, n in enumerate(names)) + " }")
    return region_unit(path, function, domain, bands, parallel, context)
