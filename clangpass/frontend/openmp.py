# SPDX-License-Identifier: MIT
"""The loops of OpenMP loop directives, which libclang does not show.

Input: an OpenMP directive cursor of a file parsed with `-fopenmp`, and a parse of
the same file without it. Output: the `for` loop the directive applies to, as a
cursor of the second parse, or None where pencilcc leaves the directive whole.

Under `-fopenmp` clang wraps a directive's loop in a `CapturedStmt`, and libclang
shows only the variables it captures (an `UNEXPOSED_STMT` whose children are
`DECL_REF_EXPR`s), never the loop. The file parsed again without `-fopenmp` (and with
`_OPENMP` defined to the value the first parse had, so that the preprocessor reads
the same text) has the loop as a plain `FOR_STMT` at the same offset: the captured
statement's extent starts where the loop does.

Only directives whose loop, run once in source order, means what the directive means
are lowered this way (`LOOP_DIRECTIVES`): `simd` (the lanes of one thread),
`parallel for` and `parallel for simd` (a team of their own, whose iterations together
are the loop's). Worksharing directives without `parallel` (`for`, `for simd`,
`distribute`, `loop`) share their iterations among the threads of an enclosing parallel
region, which may be in a caller: run whole by each thread, their loop would repeat
every iteration; they, and every other directive, stay opaque. So does a loop
directive whose loop holds another OpenMP directive than `simd`, `atomic`,
`critical` or `ordered` (found in the pragma lines: the second parse shows no
directives), since a nested `parallel` region would run its body once per thread.
"""
from __future__ import annotations

from typing import Optional

import clang.cindex as ci

from clangpass.frontend.clang_api import cursor_kind
from clangpass.frontend.pragmas import PlacedPragma

CK = ci.CursorKind

#: Directives whose associated loop pencilcc lowers (see the module docstring).
LOOP_DIRECTIVES = frozenset({CK.OMP_SIMD_DIRECTIVE, CK.OMP_PARALLEL_FOR_DIRECTIVE,
                             CK.OMP_PARALLELFORSIMD_DIRECTIVE})

# Directives that may stand inside a lowered loop: sequentially each means its statement run once.
_NESTED_ALLOWED = frozenset({"simd", "atomic", "critical", "ordered"})


def without_openmp(args: list[str], openmp_version: str) -> list[str]:
    """Parser arguments of the second parse: `-fopenmp` left out, `_OPENMP` kept as it was."""
    out = [a for a in args if a != "-fopenmp"]
    return out + [f"-D_OPENMP={openmp_version}"] if openmp_version else out


def loops_by_offset(tu: ci.TranslationUnit, main_file: str) -> dict[int, ci.Cursor]:
    """Every `for` loop of the main file's function bodies, by the offset of its first token."""
    loops: dict[int, ci.Cursor] = {}

    def walk(c: ci.Cursor) -> None:
        for child in c.get_children():
            if cursor_kind(child) == CK.FOR_STMT:
                loops.setdefault(child.extent.start.offset, child)
            walk(child)

    for top in tu.cursor.get_children():
        where = top.location.file
        if cursor_kind(top) == CK.FUNCTION_DECL and where is not None and where.name == main_file:
            walk(top)
    return loops


def captured_statement(directive: ci.Cursor) -> Optional[ci.Cursor]:
    """The statement a directive applies to (its last child that is a statement; the others are
    its clauses' expressions), or None for a stand-alone directive (`barrier`)."""
    statements = [c for c in directive.get_children()
                  if (kind := cursor_kind(c)) is not None and kind.is_statement()]
    return statements[-1] if statements else None


def holds_other_directives(loop: ci.Cursor, pragmas: list[PlacedPragma]) -> bool:
    """Whether an `omp` pragma line inside `loop` names a directive outside `_NESTED_ALLOWED`."""
    start, end = loop.extent.start.offset, loop.extent.end.offset
    for p in pragmas:
        words = p.pragma.text.split()
        if start <= p.offset < end and words[1:2] == ["omp"]:
            directive = words[2].split("(")[0] if len(words) > 2 else ""
            if directive not in _NESTED_ALLOWED:
                return True
    return False
