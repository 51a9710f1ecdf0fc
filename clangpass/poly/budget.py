# SPDX-License-Identifier: MIT
"""Bounding isl's work: every costly isl call runs under `isl_max_operations`.

Input: the region's isl context and `CompileOptions.isl_max_operations` (0: no
bound). Output: `BudgetExceeded` when isl gives up on the quota, with the step
named; callers decide the fallback (dependence analysis: memory-based flow or a
host-compiled region; scheduling: the original schedule). Also renders isl's
error messages for the notes of a region outcome.

isl counts simplex pivots, not their cost: work made of few but ever larger
pivots escapes the count. The known case is the scheduler's proximity
constraints on deep nests (`proximity_affordable`); the driver's time limit
(clangpass.driver.isolate) bounds whatever else escapes.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import islpy as isl


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
        if max_operations and "operations exceeded" in str(exc):
            raise BudgetExceeded(f"{step} exceeded {max_operations} isl operations") from None
        raise
    finally:
        ctx.set_max_operations(outer)
        ctx.reset_operations()


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
