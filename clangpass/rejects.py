# SPDX-License-Identifier: MIT
"""Why a region is not optimized: the registry of reject ids (Polly's `RejectReason` kinds).

Input: nothing (a static registry). Output: `REJECTS`, one `RejectKind` per id, read by
everything that makes a region fall back: `NotModelled` (clangpass.poly.extract), the
outlining problems of clangpass.regions, `report.fallback`, the driver's fallbacks. Each
fallback carries one of these ids beside its free-text reason: the `-Wpencil` warning shows
it (`[-Wpencil-non-affine-bound]`), `-Wno-<id>` / `-Werror=<id>` act on it alone, the
optimisation record's `reason_id` holds it, and the user guide's table of reject ids lists
every one (test_suite/unit/test_rejects.py keeps the three in step).

An id groups reasons that a user answers the same way; the reason text still names the
exact statement or expression. Where an id names the construct a lint rule forbids
(clangpass.lint.rules: `pencil-goto`, `pencil-return`, `pencil-pointer`, `pencil-recursion`),
it is that rule's id. `Reject` (an id and a reason) refuses an id that is not registered, so
a new fallback site cannot invent one.
"""
from __future__ import annotations

from dataclasses import dataclass

#: The group option of every reject id: `-Wpencil`, `-Wno-pencil`, `-Werror=pencil`.
GROUP = "pencil"


@dataclass(frozen=True)
class RejectKind:
    """A reject id: stable id, one-line meaning, a C example of what it rejects."""

    id: str
    title: str
    example: str


_REJECTS = (
    # Outlining: the region cannot become a function of its own (clangpass.regions, the driver).
    RejectKind("pencil-outline", "the region cannot be moved to a function of its own",
               "a call of a `static` function taking a struct; a `_Complex` variable from outside the region"),
    RejectKind("pencil-storage-class", "a variable with a storage class (`static`, `extern`) in the region",
               "`static int calls;`"),
    RejectKind("pencil-goto", "a `goto` or a label in the region", "`goto done;`"),
    RejectKind("pencil-return", "a `return` other than a PENCIL function's final one", "`if (n < 0) return;`"),
    # Control flow.
    RejectKind("pencil-unsupported-statement", "a statement the polyhedral model has no form for",
               "`switch (k) { ... }`, `do { ... } while (c);`, inline assembly"),
    RejectKind("pencil-dynamic-control", "a `while` loop, `break` or `continue` around a statement that "
               "cannot be run whole", "`while (A[0] > 1) { double t[4]; ... }`: a loop run whole declares no array"),
    RejectKind("pencil-non-affine-condition", "a data-dependent `if` around loops or other control flow",
               "`if (A[0] > 0)` around a `switch`"),
    RejectKind("pencil-non-affine-bound", "a loop bound that is not affine in the parameters and iterators",
               "`for (k = 0; k < len[i]; k++)` around an array declaration"),
    RejectKind("pencil-loop-bound", "a loop condition that does not bound its iterator",
               "`for (i = 0; ; i++)`, `for (i = 0; i != n; i += 2)`"),
    RejectKind("pencil-loop-step", "a loop step that is not a non-zero constant increment",
               "`for (i = 0; i < n; i += s)`"),
    RejectKind("pencil-loop-iterator", "a loop iterator that is not a signed integer used only by its loop",
               "`for (unsigned u = 0; u < n; u++)`; `i` written in the body of its loop"),
    RejectKind("pencil-shadowing", "a variable of the region declared again with the same name",
               "`for (int s = 0; s < n; s++)` in a region that declares `double s`"),
    # Data.
    RejectKind("pencil-local-array", "a local array with an initialiser or an extent that is not affine",
               "`double w[3] = {1, 2, 1};`, `double t[A[0]];`"),
    RejectKind("pencil-pointer", "a pointer declared or dereferenced in the region",
               "`double *row = A[i];`"),
    RejectKind("pencil-unsupported-type", "a variable whose type holds something other than numbers",
               "a local `_Complex double`; an array of pointers"),
    RejectKind("pencil-struct-access", "a struct member access the model cannot follow",
               "`p->x`, a field of a struct that is itself a struct"),
    RejectKind("pencil-unsupported-expression", "an expression or operator the polyhedral model has no form for",
               "`(long)&A[i]`"),
    RejectKind("pencil-array-access", "an access that does not select one element of a variable of the region",
               "`(i < 8 ? A : B)[i]`; a row `A[i]` of a 2-D array used as a number"),
    RejectKind("pencil-parameter-write", "a write to a value the model takes as constant in the region",
               "a call that may write a scalar the region reads as a value"),
    # Calls.
    RejectKind("pencil-side-effect-call", "a call of a function whose memory accesses are not known",
               "`printf(\"%d\", i)`, a call of a function defined in another file without a summary"),
    RejectKind("pencil-recursion", "a call of a function that calls itself back", "a PENCIL function that calls itself"),
    RejectKind("pencil-call-argument", "a call argument that is not an array of the region of the callee's shape",
               "`bump(i, &s)` with a scalar `s`; a 1-D array passed for a 2-D parameter"),
    RejectKind("pencil-builtin-use", "a PENCIL builtin used where or how the model does not allow it",
               "`__pencil_kill(n)` of a parameter, `__pencil_use` outside a summary function"),
    # Loop nests found by -fpencil-detect (clangpass.detect).
    RejectKind("pencil-unprofitable", "a loop nest -fpencil-detect found has fewer than two loops: nothing "
               "to tile or interchange that would pay for outlining it", "`for (i = 0; i < n; i++) s += x[i];` "
               "in a function without pragmas"),
    RejectKind("pencil-modulo-condition", "an `if` whose condition divides (`%`, `/`) in a loop nest "
               "-fpencil-detect found: isl's code for such guards can take minutes",
               "`if ((i + j) % 13 == 0)` in an unmarked loop nest"),
    # Checks pencilcc cannot build.
    RejectKind("pencil-alias-check", "no run-time check that the region's arrays do not overlap can be built",
               "arrays accessed through subscripts with no bound in the parameters"),
    # Limits and pencilcc itself.
    RejectKind("pencil-region-size", "more statements or deeper loops than pencilcc analyses",
               "more than -fpencil-max-statements= statements"),
    RejectKind("pencil-isl-budget", "an isl step exceeded its operation budget (`isl_max_operations`)",
               "a dependence analysis of a very large region"),
    RejectKind("pencil-time-limit", "the analysis exceeded the time limit (-fpencil-time-limit=)",
               "a region whose analysis takes more than the limit on this machine"),
    RejectKind("pencil-memory-limit", "the analysis ran out of memory (-fpencil-memory-limit=)",
               "a region whose model needs more than the limit"),
    RejectKind("pencil-unsound-ast", "isl's code for the region's own order does not run each instance once",
               "rare: isl's AST generator splits a loop wrongly"),
    RejectKind("pencil-pass-disabled", "a pass the region cannot do without is disabled (--disable-pass=)",
               "--disable-pass=codegen; --disable-pass=alias-check with arrays that may overlap"),
    RejectKind("pencil-internal-error", "pencilcc failed on the region (a bug: please report it)",
               "a crash in a pass, the back end or the analysis process"),
    # A whole file: nothing of it is analysed, the host compiler compiles it unchanged.
    RejectKind("pencil-file-unparsable", "clang cannot read the file as pencilcc gives it to libclang, or it holds "
               "bytes libclang cannot take", "`#include <immintrin.h>` (gcc's intrinsics headers); a NUL byte"),
    RejectKind("pencil-preprocessed", "a preprocessed file (`.i`) without the sources `pencilcc -E` bundles, or "
               "whose bundled sources cannot be used here", "what `gcc -E` wrote, compiled by a distcc server"),
)

REJECTS: dict[str, RejectKind] = {r.id: r for r in _REJECTS}


class UnknownRejectId(ValueError):
    """An id that is not in `REJECTS`: a fallback site that names no registered reason."""


def reject_id(id: str) -> str:
    """`id`, checked to be registered; raises UnknownRejectId."""
    if id not in REJECTS:
        raise UnknownRejectId(f"unknown reject id '{id}'; register it in clangpass.rejects")
    return id


@dataclass(frozen=True)
class Reject:
    """Why a region is not optimized: a registered id and the exact reason."""

    id: str
    reason: str

    def __post_init__(self) -> None:
        reject_id(self.id)

    def __str__(self) -> str:
        return self.reason


def option(id: str) -> str:
    """The -W option of a reject id's warning (`-Wpencil-goto`)."""
    return f"-W{reject_id(id)}"
