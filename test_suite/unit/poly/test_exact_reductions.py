# SPDX-License-Identifier: MIT
"""Exact reductions (clangpass.poly.exact_reductions): which updates are found, and the order
the dependences keep for them (`Dependences.ordering` against `Dependences.all`)."""
from __future__ import annotations

import islpy as isl

from clangpass.poly.dependences import compute_dependences
from clangpass.poly.exact_reductions import exact_reductions

from test_suite.unit.poly.snippets import optimise, optimised_and_checked, scop_of

# nussinov's shape: max by `?:` (PolyBench's max_score), e reading other elements of the array.
DP = """\
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)
void f(int n, int t[static const restrict n][n], int w[static const restrict n]) {
  for (int i = n - 1; i >= 0; i--)
    for (int j = i + 1; j < n; j++) {
      t[i][j] = max_score(t[i][j], t[i][j - 1]);
      for (int k = i + 1; k < j; k++)
        t[i][j] = max_score(t[i][j], t[i][k] + t[k + 1][j] + w[k]);
    }
}
"""

# Spellings of min, unsigned +, ^ on integers; a signed sum (overflow undefined) and floating-point
# updates must never count.
SPELLINGS = """\
#include <math.h>
#define MIN(a, b) ((a) < (b) ? (a) : (b))
void g(int n, int a[static const restrict n][n], int lo[static const restrict n], unsigned s[static const restrict n],
       int x[static const restrict n], double hi[static const restrict n], double d[static const restrict n],
       int q[static const restrict n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      lo[j] = MIN(lo[j], a[i][j]);
      s[j] += (unsigned)a[i][j];
      s[j] = s[j] - (unsigned)i;
      q[j] += a[i][j];
      x[i] ^= a[i][j];
      hi[j] = fmax(hi[j], a[i][j] * 0.5);
      d[j] = d[j] + a[i][j] * 0.5;
    }
}
"""

# Not reductions: two operators on one array; e reads the reduced element itself; a plain write.
NOT_EXACT = """\
void h(int n, int a[static const restrict n], int b[static const restrict n], int c[static const restrict n],
       int m[static const restrict n][n]) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      a[j] += m[i][j];
      a[j] = a[j] > m[i][j] ? a[j] : m[i][j];
      b[j] = b[j] > b[j] + m[i][j] ? b[j] : b[j] + m[i][j];
      c[j] = m[i][j];
    }
}
"""


def _found(tmp_path, source):
    return {r.array: r.operator for r in exact_reductions(scop_of(tmp_path, source))}


def test_found_spellings(tmp_path):
    assert _found(tmp_path, DP) == {"t": "max"}
    # lo: MIN by `?:`; s: += and `s = s - i` both '+' (unsigned); x: ^=. q (a signed sum), hi (fmax)
    # and d (a double sum) never.
    assert _found(tmp_path, SPELLINGS) == {"lo": "min", "s": "+", "x": "^"}


def test_not_exact(tmp_path):
    assert _found(tmp_path, NOT_EXACT) == {}


def _pair(deps: isl.UnionMap, text: str) -> bool:
    ctx = deps.get_ctx()
    ten = isl.Set.read_from_str(ctx, "[n] -> { : n = 10 }")
    pair = isl.UnionMap.read_from_str(ctx, text).intersect_params(ten)
    return not pair.intersect(deps.intersect_params(ten)).is_empty()


def test_ordering_drops_only_update_pairs(tmp_path):
    scop = scop_of(tmp_path, DP)
    names = {s.name: s for s in scop.statements}
    first, inner = sorted(names)                     # the j-1 update, the k loop's update
    deps = compute_dependences(scop)
    # Two k updates of t[2][7]: ordered in `all` (a loop carrying them is not parallel), not in `ordering`.
    updates = f"[n] -> {{ {inner}[2, 7, 3] -> {inner}[2, 7, 4] }}"
    assert _pair(deps.all, updates)
    assert not _pair(deps.ordering, updates)
    # The j-1 update of t[2][7] and a later k update of it: free as well.
    assert not _pair(deps.ordering, f"[n] -> {{ {first}[2, 7] -> {inner}[2, 7, 5] }}")
    # t[2][4] is read (as t[i][k]) by the update of t[2][7] at k = 4: every update of t[2][4],
    # not only the last in the source, stays before that read.
    for k in (3,):
        assert _pair(deps.ordering, f"[n] -> {{ {inner}[2, 4, {k}] -> {inner}[2, 7, 4] }}")
    assert _pair(deps.ordering, f"[n] -> {{ {first}[2, 4] -> {inner}[2, 7, 4] }}")
    # Without the option nothing is relaxed.
    plain = compute_dependences(scop, exact=False)
    assert plain.reordering is None and _pair(plain.ordering, updates)


def test_relaxed_schedule_runs_like_the_source(tmp_path):
    """The interpreter runs the optimised region (parallel loops backwards) against the source."""
    outcome = optimised_and_checked(tmp_path, DP, sizes=(1, 2, 6))
    assert outcome.as_record()["exact_reductions"] == ["t:max"]
    optimised_and_checked(tmp_path, SPELLINGS, sizes=(1, 3))


def test_the_triangle_is_jammed_only_with_exact_reductions(tmp_path):
    """nussinov's shape: the (i, j) band is left untiled and eight rows of the k chain run
    together; with the updates in source order the row starts forbid it (and the band is tiled)."""
    jammed = optimise(tmp_path, DP, opt_level=3)
    assert jammed.status == "optimized", jammed.reason
    assert jammed.facts["jammed_loops"] == 1 and jammed.facts["streaming_bands"] == 1
    plain = optimise(tmp_path, DP, opt_level=3, exact_reductions=False)
    assert plain.facts["jammed_loops"] == 0 and plain.facts["tiled_bands"] == 1
