# SPDX-License-Identifier: MIT
"""Bounding the analysis' work by deterministic measures, never by the clock.

Input: a region (its source, for `size_problem`), its isl context and the bounds of
`CompileOptions` (`isl_max_operations`, `max_statements`, `max_loop_depth`; 0: no bound).
Output: `BudgetExceeded` when one is exceeded, with the step named; callers decide the
fallback (a region over a size bound: the host compiler; dependence analysis: memory-based
flow or the host compiler; scheduling: the original schedule). Also renders isl's error
messages for the notes of a region outcome.

Whether a region is optimized, and the code it becomes, must depend only on the input and
the flags (reproducible builds, ccache, distcc): every bound here counts something of the
input or of isl's work on it. isl counts simplex pivots, not their cost, and a step's count
restarts with the next step, so work made of few but ever larger pivots, or of many steps
(Python-side loops over statements, statement pairs, arrays), escapes the count. What
bounds it instead: the size of the region (`size_problem`: statements, loop depth, checked
before the model is built), clustering of large regions (`CLUSTER_ABOVE_STATEMENTS`) and no
proximity constraints on deep nests (`PROXIMITY_MAX_DEPTH`). The driver's CPU-time limit
(clangpass.driver.isolate, -fpencil-time-limit=) is only a safety net for what still escapes;
a region it stops is marked `nondeterministic` in the optimisation record
(docs/architecture.md, "Deterministic results").
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import children


PROXIMITY_MAX_DEPTH = 6
"""The deepest statement for which isl's scheduler gets proximity constraints. Bounding the
dependence distances of a d-deep statement costs isl far more than d doubles per level, within
few pivots: one statement `A[i0] += ...` in a d-deep nest schedules in 0.05 s (d=6), 0.5 s (8),
6 s (9), 25 s (10) under 2,000,000 operations; without proximity 16 levels take 0.5 s."""


CLUSTER_ABOVE_STATEMENTS = 200
"""Regions of more statements are clustered by basic blocks even under -fpencil-cluster=none
(clangpass.passes.cluster_stmts): isl's scheduler slows faster than the operation count says
on them (simplex pivots grow with the problem). Unclustered, unbounded: 1.9 s for a 200-statement
chain of stencil stages, 35 s for 500; over 60 s for a 200-statement time-iterated stencil
(docs/passes/clustering.md). The largest test kernel, 3AC deriche, has 115."""

CLUSTER_ABOVE_RELAXED_STATEMENTS = 31
"""The same for a region whose false dependences `relax-false-deps` relaxed: isl's scheduler with
conditional validity constraints is slower still, and its operation count does not bound it (3AC
adi, 80 statements: 127 s for maximal fusion alone under a budget of 500,000 operations, where
`bb` schedules the region in 0.6 s and its code runs as fast as the original's, 0.31 s). Among the
kernels, 3AC heat-3d (32 statements) and 3AC floyd-warshall (45 after index-set-split) exceeded
maximal fusion's share of the budget, 2 to 3 s, and were then scheduled under `bb` all the same
(floyd-warshall's analysis, 12 s in all on a slow machine, then passed the time limit); 3AC
correlation (31) and nussinov (25) schedule unclustered within it."""


MAX_STATEMENTS = 1500
"""`CompileOptions.max_statements`: regions of more statements (assignments, calls, initialised
declarations of the source) fall back to the host compiler before their model is built. The
analysis grows faster than the square of the statements, in steps each within the isl budget:
CPU seconds of a whole -O3 compile of generated regions (test_suite.random.large) on the
development machine: stencil chains of 1,000 statements 13, 1,500 statements 25, 2,000
statements 42, 4,000 statements 175 (extraction alone 20); swim-like regions of 1,000, 1,500,
2,000 statements 13, 27, 49. The largest test kernel, 3AC deriche, has 115."""

MAX_LOOP_DEPTH = 16
"""`CompileOptions.max_loop_depth`: regions with a deeper loop nest fall back to the host compiler
before their model is built. Tiling, point-loop order, register tiles, reduction jam and schedule
verification work on bands as deep as the nest, within few isl operations each: the passes take
2.4 CPU s on two statements in a 12-deep nest, 6.6 s at 16, 10.9 s at 18, 15.2 s at 20 on the
development machine (gcc alone takes 13 s and 2 GB on the 20-deep one); isl's scheduler gets no
proximity constraints beyond `PROXIMITY_MAX_DEPTH`."""


class BudgetExceeded(Exception):
    """isl exceeded `isl_max_operations` in one step of the compilation."""


@contextmanager
def isl_budget(ctx: isl.Context, max_operations: int, step: str) -> Iterator[None]:
    """Run the body with at most `max_operations` isl operations (0: unbounded). Nested in
    another budget, the outer one's bound holds again after the body (its count restarts)."""
    outer = ctx.get_max_operations()
    ctx.set_max_operations(max_operations)
    ctx.reset_operations()
    try:
        yield
    except isl.Error as exc:
        if max_operations and is_quota_error(exc):
            raise BudgetExceeded(f"{step} exceeded {max_operations} isl operations") from None
        raise
    finally:
        ctx.set_max_operations(outer)
        ctx.reset_operations()


def size_problem(body: N.Stmt, max_statements: int, max_loop_depth: int) -> str:
    """Why a region of source `body` is too large to analyse ('' if it is not): more statements
    than `max_statements` or loops nested deeper than `max_loop_depth` (0: no bound)."""
    statements, depth = source_size(body)
    if max_statements and statements > max_statements:
        return (f"{statements} statements, more than the {max_statements} pencilcc analyses in one "
                "region (-fpencil-max-statements=)")
    if max_loop_depth and depth > max_loop_depth:
        return (f"loops nested {depth} deep, deeper than the {max_loop_depth} pencilcc analyses "
                "(-fpencil-max-loop-depth=)")
    return ""


def source_size(s: N.Stmt) -> tuple[int, int]:
    """(statements, loop depth) of the source `s`: its assignments, calls and other expression
    statements and its initialised declarations (a loop's own initialisation not included),
    and the most loops nested in it."""
    if isinstance(s, N.ExprStmt):
        return 1, 0
    if isinstance(s, N.DeclStmt):
        return sum(d.init is not None for d in s.decls), 0
    inner = [source_size(c) for c in children(s)
             if isinstance(c, N.Stmt) and not (isinstance(s, N.For) and c is s.init)]
    statements = sum(n for n, _ in inner)
    depth = max((d for _, d in inner), default=0)
    return statements, depth + isinstance(s, (N.For, N.While, N.DoWhile))


def is_quota_error(exc: isl.Error) -> bool:
    """Whether isl gave up on the context's `max_operations` (rather than failed)."""
    return "operations exceeded" in str(exc)


def nest_depth(domain: isl.UnionSet) -> int:
    """The most loop dimensions of a statement of `domain` ([P] -> { S[i..] })."""
    depths = [0]
    domain.foreach_set(lambda statement: depths.append(statement.dim(isl.dim_type.set)))
    return max(depths)


def proximity_affordable(domain: isl.UnionSet) -> bool:
    """Whether the scheduler may get proximity constraints on `domain` (see PROXIMITY_MAX_DEPTH)."""
    return nest_depth(domain) <= PROXIMITY_MAX_DEPTH


def isl_error_reason(exc: isl.Error) -> str:
    """`unable to carry dependences` from islpy's `call to f failed: <message> in <file>:<line>`."""
    text = str(exc).split("failed: ", 1)[-1]
    return text.rsplit(" in /", 1)[0] if " in /" in text else text
