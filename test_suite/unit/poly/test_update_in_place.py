# SPDX-License-Identifier: MIT
"""Update in place and in-place folds (clangpass.poly.update_in_place, pass `reuse-in-place`).

A single-assignment LU step, a fold into an array accumulator and a per-step copy of a
region-local array are stored in place: the dropped array leaves the model, the copies
go, and the optimised AST -- run by the reference interpreter with every parallel loop
backwards -- computes what the source computes in every array the caller may read. A
pair whose reuse would clobber a live value, order a parallel nest (PRA's criterion),
or whose dropped array is live after the region or read before it is written, is kept
with its reason; `-fpencil-memory=none` and `contract` leave the model alone.
"""
from __future__ import annotations

import pytest

from clangpass.poly.update_in_place import IN_PLACE_FOLD, UPDATE_IN_PLACE, reuse_in_place

from test_suite.unit.poly.snippets import optimised_and_checked, scop_of

# Gaussian elimination, one new matrix per step: the trailing sub-matrix updated, the rest
# copied; the reads A[i][k], A[k][j], A[k][k] fall in the copied part.
LU_STEP = """\
#include <pencil.h>
void k(int n, double A[n][n], double B[n][n]) {
#pragma scop
  for (int k = 0; k < n; k++) {
    for (int i = 0; i <= k; i++)
      for (int j = 0; j < n; j++)
        B[i][j] = A[i][j];
    for (int i = k + 1; i < n; i++) {
      for (int j = 0; j <= k; j++)
        B[i][j] = A[i][j];
      for (int j = k + 1; j < n; j++)
        B[i][j] = A[i][j] - A[i][k] / A[k][k] * A[k][j];
    }
    __pencil_kill(A);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        A[i][j] = B[i][j];
    __pencil_kill(B);
  }
#pragma endscop
}
"""

FOLD = """\
#include <pencil.h>
void k(int p, int n, double X[p][n], double acc[n], double next[n]) {
#pragma scop
  for (int k = 0; k < p; k++) {
    for (int j = 0; j < n; j++)
      next[j] = acc[j] > X[k][j] ? acc[j] : X[k][j];
    for (int j = 0; j < n; j++)
      acc[j] = next[j];
  }
  __pencil_kill(next);
#pragma endscop
}
"""

LOCAL = """\
void k(int p, double X[p][8], double y[8]) {
#pragma scop
  {
    double t[8];
    for (int k = 0; k < p; k++) {
      for (int j = 0; j < 8; j++)
        t[j] = y[j];
      t[k % 8] = t[k % 8] + X[k][k % 8];
      for (int j = 0; j < 8; j++)
        y[j] = t[j] * 0.5 + X[k][j];
    }
  }
#pragma endscop
}
"""

# B[j] reads A[j + 1], which instance j + 1 would overwrite in A: the nest would be ordered.
FORWARD = """\
#include <pencil.h>
void k(int n, double A[n], double B[n]) {
#pragma scop
  for (int j = 0; j < n; j++)
    if (j == n - 1)
      B[j] = A[j];
    else
      B[j] = (A[j] + A[j + 1]) * 0.5;
  __pencil_kill(A);
  for (int j = 0; j < n; j++)
    A[j] = B[j];
  __pencil_kill(B);
#pragma endscop
}
"""

# B[j] reads A[j - 1] after A[j - 1] would hold B[j - 1]: a live value clobbered.
BACKWARD = FORWARD.replace("j == n - 1", "j == 0").replace("A[j + 1]", "A[j - 1]")

# next is read after the region: its memory must hold its values.
LIVE = FOLD.replace("  __pencil_kill(next);\n", "")

# The values of next enter the region (next[j] is read before it is written).
ENTERS = """\
#include <pencil.h>
void k(int p, int n, double acc[n], double next[n]) {
#pragma scop
  for (int k = 0; k < p; k++) {
    for (int j = 0; j < n; j++)
      acc[j] = next[j] + acc[j];
    for (int j = 0; j < n; j++)
      next[j] = acc[j];
  }
  __pencil_kill(next);
#pragma endscop
}
"""


def _checked(tmp_path, source, keep, sizes=(1, 4, 7), **options):
    """The region of `source` optimised at -O3; its AST (parallel loops backwards) computes what
    the source computes in the arrays of `keep`."""
    return optimised_and_checked(tmp_path, source, sizes, compared=tuple(keep), **options)


def test_lu_step_is_updated_in_place(tmp_path):
    scop = scop_of(tmp_path, LU_STEP)
    result, reuse = reuse_in_place(scop)
    assert [(r.array, r.into, r.technique) for r in reuse.done] == [("B", "A", UPDATE_IN_PLACE)]
    assert [a.name for a in result.arrays] == ["A"]
    # Only the update is left: the copies and the copy back are identities.
    assert [s.name for s in result.compute_statements] == ["S_2"]
    outcome = _checked(tmp_path, LU_STEP, ["A"])
    assert outcome.facts["storage"][0]["bytes_after"] == 0
    assert outcome.facts["parallel_loops"] >= 1


def test_fold_accumulates_in_place(tmp_path):
    result, reuse = reuse_in_place(scop_of(tmp_path, FOLD))
    assert [(r.array, r.into, r.technique) for r in reuse.done] == [("next", "acc", IN_PLACE_FOLD)]
    assert len(result.compute_statements) == 1
    assert result.kills.is_empty()
    outcome = _checked(tmp_path, FOLD, ["acc"])
    assert outcome.facts["parallel_loops"] >= 1


FOLD_AFTER_A_NEST = """\
#include <pencil.h>
void k(int p, int n, double X[p][n], double acc[n], double next[n]) {
#pragma scop
  for (int j = 0; j < n; j++)
    acc[j] = 0.5 * acc[j] + 0.25;
  for (int k = 0; k < p; k++) {
    for (int j = 0; j < n; j++)
      next[j] = acc[j] + X[k][j];
    for (int j = 0; j < n; j++)
      acc[j] = next[j];
  }
  __pencil_kill(next);
#pragma endscop
}
"""


def test_fold_after_another_nest_writing_the_accumulator_is_still_a_fold(tmp_path):
    """Two children of the region's sequence write `acc`; the fold's own child is a run of one,
    whose nests are its loop's (found by the random programs: it was refused as a nest that
    writes an element of 'next' more than once)."""
    result, reuse = reuse_in_place(scop_of(tmp_path, FOLD_AFTER_A_NEST))
    assert [(r.array, r.into, r.technique) for r in reuse.done] == [("next", "acc", IN_PLACE_FOLD)], reuse.kept
    _checked(tmp_path, FOLD_AFTER_A_NEST, ["acc"])


def test_region_local_copy_is_reused(tmp_path):
    scop = scop_of(tmp_path, LOCAL)
    result, reuse = reuse_in_place(scop)
    assert [(r.array, r.into) for r in reuse.done] == [("t", "y")]
    assert "t" not in {d.name for d in result.locals}
    _checked(tmp_path, LOCAL, ["y"], sizes=(1, 9, 20))


@pytest.mark.parametrize("source, why", [
    (FORWARD, "another instance of the same nest overwrites"),
    (BACKWARD, "is written where a value of 'A' is still read"),
    (LIVE, "'next' is live after the region"),
    (ENTERS, "values of 'next' enter the region"),
], ids=["forward", "backward", "live", "enters"])
def test_kept_pairs_say_why(tmp_path, source, why):
    scop = scop_of(tmp_path, source)
    result, reuse = reuse_in_place(scop)
    assert not reuse.done and result is scop
    assert len(reuse.kept) == 1 and why in reuse.kept[0][2], reuse.kept


@pytest.mark.parametrize("memory", ["none", "contract"])
def test_memory_option_switches_the_pass_off(tmp_path, memory):
    outcome = _checked(tmp_path, FOLD, ["acc"], memory=memory)
    # Nothing of reuse-in-place's in the shared storage key (contract-arrays, on with
    # -fpencil-memory=contract, lists the arrays it looked at, with an empty "into").
    assert not [entry for entry in outcome.facts["storage"]
                if entry["into"] or entry["technique"] in (UPDATE_IN_PLACE, IN_PLACE_FOLD)]
    assert memory == "contract" or outcome.facts["storage"] == ()
    assert outcome.statements == 2
