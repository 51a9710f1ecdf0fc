# SPDX-License-Identifier: MIT
"""Bounding isl's work: every costly isl call runs under `isl_max_operations`.

Input: the region's isl context and `CompileOptions.isl_max_operations` (0: no
bound). Output: `BudgetExceeded` when isl gives up on the quota, with the step
named; callers decide the fallback (dependence analysis: memory-based flow or a
host-compiled region; scheduling: the original schedule). Also renders isl's
error messages for the notes of a region outcome.
"""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

import islpy as isl


class BudgetExceeded(Exception):
    """isl exceeded `isl_max_operations` in one step of the compilation."""


@contextmanager
def isl_budget(ctx: isl.Context, max_operations: int, step: str) -> Iterator[None]:
    """Run the body with at most `max_operations` isl operations (0: unbounded)."""
    ctx.set_max_operations(max_operations)
    ctx.reset_operations()
    try:
        yield
    except isl.Error as exc:
        if max_operations and "operations exceeded" in str(exc):
            raise BudgetExceeded(f"{step} exceeded {max_operations} isl operations") from None
        raise
    finally:
        ctx.set_max_operations(0)


def isl_error_reason(exc: isl.Error) -> str:
    """`unable to carry dependences` from islpy's `call to f failed: <message> in <file>:<line>`."""
    text = str(exc).split("failed: ", 1)[-1]
    return text.rsplit(" in /", 1)[0] if " in /" in text else text
