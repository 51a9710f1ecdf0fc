# SPDX-License-Identifier: MIT
"""clangpass.poly.schedule_loops: the loops of a schedule tree as the -fpencil-report page lists them."""
from __future__ import annotations

import islpy as isl

from clangpass.poly.schedule_loops import schedule_loops, source_loops

DOMAIN = 'domain: "[n] -> { S_0[i, j] : 0 <= i, j < n; S_1[i, k, j] : 0 <= i, k, j < n }"'

# gemm as written: S_0's j loop, then S_1's k and j loops, inside one i loop.
SOURCE = DOMAIN + """
child:
  schedule: "[n] -> [{ S_0[i, j] -> [(i)]; S_1[i, k, j] -> [(i)] }]"
  child:
    sequence:
    - filter: "[n] -> { S_0[i, j] }"
      child:
        schedule: "[n] -> [{ S_0[i, j] -> [(j)] }]"
    - filter: "[n] -> { S_1[i, k, j] }"
      child:
        schedule: "[n] -> [{ S_1[i, k, j] -> [(k)] }, { S_1[i, k, j] -> [(j)] }]"
"""

# Tiled i loop on threads, k loop (S_0 has no k: a constant date), j loops fused and vectorised.
FINAL = DOMAIN + """
child:
  mark: "tile"
  child:
    mark: "parallel"
    child:
      schedule: "[n] -> [{ S_0[i, j] -> [(i - (i) mod 32)]; S_1[i, k, j] -> [(i - (i) mod 32)] }]"
      coincident: [ 1 ]
      child:
        mark: "point"
        child:
          schedule: "[n] -> [{ S_0[i, j] -> [((i) mod 32)]; S_1[i, k, j] -> [((i) mod 32)] }, { S_0[i, j] -> [(0)]; S_1[i, k, j] -> [(k)] }]"
          coincident: [ 1, 0 ]
          child:
            mark: "vector"
            child:
              schedule: "[n] -> [{ S_0[i, j] -> [(j)]; S_1[i, k, j] -> [(j)] }]"
              coincident: [ 1 ]
              child:
                sequence:
                - filter: "[n] -> { S_0[i, j] }"
                - filter: "[n] -> { S_1[i, k, j] }"
"""

# The sum into C[i][j] along k, and S_0's write of C[i][j] before S_1 reads it.
DEPS = "[n] -> { S_1[i, k, j] -> S_1[i, k', j] : k' > k and 0 <= i, k, j, k' < n; " \
       "S_0[i, j] -> S_1[i, k, j] : 0 <= i, j, k < n }"


def test_loops_roles_marks_dependences_and_fusion() -> None:
    ctx = isl.Context()
    loops = schedule_loops(isl.Schedule.read_from_str(ctx, FINAL), isl.UnionMap.read_from_str(ctx, DEPS),
                           isl.Schedule.read_from_str(ctx, SOURCE))
    assert [(f.depth, f.iterators, f.statements, f.roles, f.marks) for f in loops] == [
        (0, ("i",), ("S_0", "S_1"), ("tile",), ("parallel",)),
        (1, ("i",), ("S_0", "S_1"), ("point",), ()),
        (2, ("k",), ("S_1",), ("point",), ()),
        (3, ("j",), ("S_0", "S_1"), ("point",), ("vector",)),
    ]
    assert [f.carries_dependence for f in loops] == [None, False, True, False]   # a parallel loop is not asked
    assert [f.fused for f in loops] == [False, False, False, True]   # S_0 and S_1 had j loops of their own
    assert [f.innermost for f in loops] == [False, False, False, True]
    assert [f.coincident for f in loops] == [True, True, False, True]


def test_without_dependences_or_source_nothing_is_claimed() -> None:
    ctx = isl.Context()
    loops = schedule_loops(isl.Schedule.read_from_str(ctx, FINAL), None)
    assert [f.carries_dependence for f in loops] == [None] * 4
    assert not any(f.fused for f in loops)


def test_source_loops_name_each_statements_loop() -> None:
    loops = source_loops(isl.Schedule.read_from_str(isl.Context(), SOURCE))
    assert loops[("S_0", "i")] == loops[("S_1", "i")]
    assert loops[("S_0", "j")] != loops[("S_1", "j")]
    assert ("S_0", "k") not in loops
