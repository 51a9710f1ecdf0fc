# SPDX-License-Identifier: MIT
"""Array contraction (clangpass.poly.contraction, pass `contract-arrays`).

The modulus choice on the conflict sets of Darte, Isoard & Yuki (RR-8840) as the paper
prints them (reverse-L, section 2 and 5.1; blur-interleaved, Fig. 5; diamond tiling,
Fig. 6), each compared with the paper's Lefebvre-Feautrier row of Table 1 (the successive
modulo on the canonical basis, which is what is implemented); then the conflict set and
the rewriting of a time-expanded stencil's model, and the arrays that must stay as they
are (values entering or leaving the region, a whole-image pipeline buffer).
"""
from __future__ import annotations

import islpy as isl

from clangpass.poly.extract import extract_scop
from clangpass.poly.contraction import (candidate_vectors, canonical_rows, choose_moduli, conflict_differences,
                                        contract_arrays, general_mappings, mapping_is_valid, scheduled_disorder, scheduled_order,
                                        successive_moduli)
from clangpass.poly.scop import accesses_through

from test_suite.unit.poly.snippets import region_of


def _pencil_scop(tmp_path, text):
    """The model of `text`'s only region, with pencil.h's builtins declared."""
    region, module = region_of(tmp_path, '#include "pencil.h"\n' + text)
    return extract_scop(region, module, isl.Context())

# Section 5.1's script `Kp` (Fig. 1): the differences of the live-out points of an N x N reverse L.
REVERSE_L = "[N] -> { [x, y] : N >= 2 and ((-1 <= -x < N and -1 <= y < N) or (-1 <= x < N and -1 <= -y < N)) }"
# Fig. 5: blur filter with an interleaved schedule.
BLUR = ("[N] -> { [x, y] : (1 <= x < N and 0 <= y <= 1) or (0 <= x < N and -2 <= y <= -1 and y > -N)"
        " or (-N < x <= 0 and y >= x and -1 <= y <= 2 and y < N) }")
# Fig. 6: diamond tiling, coordinates (i, t), tile size B.
DIAMOND = ("{ [i, t] : (i <= 0 and t <= 1 - i and t >= -1 + i and t <= 2*B + i and t >= -2*B - i)"
           " or (i >= 0 and t <= 1 + i and t >= -1 - i and t <= 2*B - i and t >= -2*B + i)"
           " or (i <= B and i >= -B and t <= 1 - i and t >= -1 - i and t <= B and t >= -B)"
           " or (i <= B and i >= -B and t >= -1 + i and t <= 1 + i and t <= B and t >= -B) }")


def test_reverse_l_needs_a_lattice_basis():
    # Table/section 2: Lefebvre-Feautrier gives (x mod N, y mod N), N^2: no constant modulus.
    differences = isl.Set(REVERSE_L)
    assert successive_moduli(differences, (0, 1)) == (None, None)
    assert choose_moduli(differences, (None, None)) == (None, None)
    # For N = 7 (Fig. 1): 7 x 7 = 49 locations, where the lattice mapping needs 2(2N - 1) = 26.
    seven = isl.Set(REVERSE_L.replace("[N] -> ", "").replace("N", "7"))
    assert successive_moduli(seven, (0, 1)) == (7, 7)
    assert choose_moduli(seven, (7, 7)) == (None, None)


def test_blur_interleaved_is_lefebvre_feautrier():
    # Table 1, blur-interleaved, LeFe: A[y mod 3, x mod N] (size 3N; the lattice's 2N + 1 is not reached).
    differences = isl.Set(BLUR)
    assert successive_moduli(differences, (1, 0)) == (None, 3)
    assert choose_moduli(differences, (None, None)) == (None, 3)


def test_diamond_tiling_order_of_the_dimensions():
    # Section 5.3: in the order (i, t) the canonical basis gives t mod 2, the lattice result's form;
    # in the order (t, i) a modulus of order B along t. On the set as Fig. 6 prints it, |i| reaches
    # 2B (i = -2B, t = 0 is in its first piece), so i's modulus is 2B + 1 where the paper has 2B - 1.
    b = 8
    differences = isl.Set(DIAMOND.replace("B", str(b)))
    assert successive_moduli(differences, (0, 1)) == (2 * b + 1, 2)
    assert successive_moduli(differences, (1, 0)) == (2 * b + 1, b + 1)
    # Every order tried: the smaller one wins.
    assert choose_moduli(differences, (None, None)) == (2 * b + 1, 2)


def test_moduli_never_exceed_constant_extents():
    differences = isl.Set("{ [x, y] : -3 <= x <= 3 and -1 <= y <= 1 }")
    assert choose_moduli(differences, (4, 100)) == (None, 2)
    assert choose_moduli(isl.Set("{ [x] : false }"), (10,)) == (1,)


JACOBI = """\
void k(int tsteps, int n, const double in[static const restrict n], double out[static const restrict n],
       double A[static const restrict tsteps + 1][n]) {
  __pencil_assume(tsteps >= 0);
  for (int i = 0; i < n; i++)
    A[0][i] = in[i];
  for (int t = 0; t < tsteps; t++)
    for (int i = 0; i < n; i++)
      A[t + 1][i] = (A[t][i > 0 ? i - 1 : 0] + A[t][i]) / 2.0;
  for (int i = 0; i < n; i++)
    out[i] = A[tsteps][i];
  __pencil_kill(A);
}
"""


def test_time_expanded_array_folds_to_two_rows(tmp_path):
    scop = _pencil_scop(tmp_path, JACOBI)
    differences = conflict_differences(scop, scop.array("A"))
    # Rows t and t + 1 overlap, rows t and t + 2 do not.
    ctx = scop.context.get_ctx()
    assert not differences.intersect(isl.Set("[tsteps, n] -> { [1, x] }", context=ctx)).is_empty()
    assert differences.intersect(isl.Set("[tsteps, n] -> { [2, x] }", context=ctx)).is_empty()
    contracted, contraction = contract_arrays(scop)
    assert [(a.name, a.moduli, a.bytes_before, a.bytes_after) for a in contraction.arrays] == [
        ("A", (2, None), "8 * (tsteps + 1) * n", "16 * n")]
    assert contracted.array("A").storage == (2, None)
    touched = accesses_through(contracted.reads.union(contracted.must_writes), frozenset({"A"})).range()
    box = isl.Set("[tsteps, n] -> { A[r, i] : 0 <= r <= 1 }", context=scop.context.get_ctx())
    assert touched.is_subset(isl.UnionSet.from_set(box))
    assert dict(contraction.kept) == {"out": "live-out: its values leave the region"}


def test_arrays_whose_values_enter_leave_or_all_conflict_stay(tmp_path):
    live_in = JACOBI.replace("    A[0][i] = in[i];", "    out[i] = in[i];")
    scop = _pencil_scop(tmp_path, live_in)
    _, contraction = contract_arrays(scop)
    assert not contraction.arrays
    assert dict(contraction.kept)["A"].startswith("its values enter the region")
    scop = _pencil_scop(tmp_path, JACOBI.replace("  __pencil_kill(A);\n", ""))
    _, contraction = contract_arrays(scop)
    assert dict(contraction.kept)["A"] == "live-out: its values leave the region"
    pipeline = """\
void k(int h, int w, const double in[static const restrict h][w], double out[static const restrict h][w],
       double t1[static const restrict h][w]) {
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      t1[y][x] = in[y][x] * 2.0;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++)
      out[y][x] = t1[h - 1 - y][x] + 1.0;
  __pencil_kill(t1);
}
"""
    _, contraction = contract_arrays(_pencil_scop(tmp_path, pipeline))
    assert dict(contraction.kept)["t1"] == "its conflict set spans every dimension: no dimension folds"


def _fused(marked: bool) -> isl.Schedule:
    """{ S[i]; T[i] : 0 <= i < 4 } fused in one loop over i (S before T in each iteration), the
    loop under a `parallel` mark when `marked`."""
    domain = isl.UnionSet("{ S[i] : 0 <= i < 4; T[i] : 0 <= i < 4 }")
    node = isl.Schedule.from_domain(domain).get_root().child(0)
    node = node.insert_partial_schedule(isl.MultiUnionPwAff("[{ S[i] -> [(i)]; T[i] -> [(i)] }]"))
    filters = isl.UnionSetList.alloc(domain.get_ctx(), 2).add(isl.UnionSet("{ S[i] }")).add(isl.UnionSet("{ T[i] }"))
    node = node.child(0).insert_sequence(filters).parent()
    if marked:
        node = node.insert_mark(isl.Id("parallel", context=domain.get_ctx()))
    return node.get_schedule()


def test_scheduled_order_leaves_parallel_iterations_unordered():
    in_order = scheduled_order(_fused(False))                        # { S[i] -> T[j] ... }
    on_threads = scheduled_order(_fused(True))
    same = isl.UnionMap("{ S[i] -> T[i] : 0 <= i < 4 }")
    later = isl.UnionMap("{ S[0] -> T[1]; S[0] -> S[1]; T[2] -> S[3] }")
    assert same.is_subset(in_order) and later.is_subset(in_order)
    # In a parallel loop only what one iteration runs in sequence is ordered.
    assert same.is_subset(on_threads)
    assert later.intersect(on_threads).is_empty()
    assert not isl.UnionMap("{ T[1] -> S[1] }").is_subset(in_order)


def test_scheduled_disorder_is_the_complement_of_the_order():
    for marked in (False, True):
        schedule = _fused(marked)
        domain = schedule.get_domain()
        pairs = isl.UnionMap.from_domain_and_range(domain, domain)
        disorder = scheduled_disorder(schedule)
        assert disorder.is_equal(pairs.subtract(scheduled_order(schedule)))
    # Equal dates (an instance with itself) and a later first one are not ordered; in the
    # parallel loop neither are two iterations.
    assert isl.UnionMap("{ S[1] -> S[1]; T[1] -> S[1]; S[2] -> T[1] }").is_subset(scheduled_disorder(_fused(False)))
    assert isl.UnionMap("{ S[0] -> T[1]; S[0] -> S[1] }").is_subset(scheduled_disorder(_fused(True)))
    assert isl.UnionMap("{ S[1] -> T[1] }").intersect(scheduled_disorder(_fused(True))).is_empty()


def _smallest(differences):
    """The smallest general mapping (rows in storage positions) and its size (None: unbounded)."""
    def size(rows):
        return None if any(b is None for _, b in rows) else __import__("math").prod(b for _, b in rows)
    found = [m for m in general_mappings(differences) if size(m) is not None]
    best = min(found, key=size)
    return best, size(best)


def test_candidate_vectors_are_primitive_and_signed():
    two = candidate_vectors(2, 2)
    assert two[:2] == [(1, 0), (0, 1)]
    assert (2, 2) not in two and (0, 2) not in two and (-1, 1) not in two
    assert set(two) == {(1, 0), (0, 1), (1, 1), (1, -1), (1, 2), (1, -2), (2, 1), (2, -1)}


def test_reverse_l_lattice_size_at_n_7():
    # Table 1 / section 5.1, N = 7: the lattice row's 2(2N - 1) = 26 locations, with the rows of the
    # paper's mapping (y mod 2, (x - y) mod (2N - 1)) in Heuristic 1's order: (x - y) first.
    seven = isl.Set(REVERSE_L.replace("[N] -> ", "").replace("N", "7"))
    rows, size = _smallest(seven)
    assert size == 26
    assert rows[0] == ((1, -1), 13) and rows[1][1] == 2
    assert mapping_is_valid(seven, rows)
    # Parametric N: the width along (1, -1) is 2N - 2, not a constant: nothing folds.
    assert all(any(b is None for _, b in m) for m in general_mappings(isl.Set(REVERSE_L)))


def test_blur_interleaved_lattice_size_at_n_7():
    # Table 1 / section 5.2: A[(y - 2x) mod (2N + 1)], 15 locations at N = 7 (LeFe's 3N = 21).
    seven = isl.Set(BLUR.replace("[N] -> ", "").replace("N", "7"))
    rows, size = _smallest(seven)
    assert size == 15
    assert rows[0] == ((2, -1), 15) and rows[1][1] == 1
    assert choose_moduli(seven, (None, None)) == (7, 3)          # canonical: 3 x 7 = 21


def test_diamond_general_basis_finds_no_better():
    b = 8
    differences = isl.Set(DIAMOND.replace("B", str(b)))
    _, size = _smallest(differences)
    assert size == (2 * b + 1) * 2


def test_validity_check_rejects_a_folding_mapping():
    seven = isl.Set(REVERSE_L.replace("[N] -> ", "").replace("N", "7"))
    assert mapping_is_valid(seven, canonical_rows((7, 7)))
    assert not mapping_is_valid(seven, canonical_rows((7, 6)))
    assert not mapping_is_valid(seven, (((1, -1), 12), ((1, 0), 2)))
    # Residues are isl's floor-based ones: x - y = -13 is 0 mod 13.
    assert not mapping_is_valid(isl.Set("{ [x, y] : x - y = -13 or x - y = 13 }"), (((1, -1), 13), ((1, 0), 2)))


CORNER = """#define N 7
void k(const double in[static const restrict N][N], double out[static const restrict N][N]) {
  double A[N][N];
  for (int j = 0; j < N; j++)
    A[0][j] = in[0][j];
  for (int i = 1; i < N; i++)
    A[i][0] = in[i][0];
  for (int j = 0; j < N; j++)
    out[j][0] = A[0][j];
  for (int i = 1; i < N; i++)
    out[0][i] = A[i][0];
  for (int t = 1; t < N; t++) {
    for (int j = t; j < N; j++)
      A[t][j] = in[t][j] + A[t - 1][j];
    for (int i = t + 1; i < N; i++)
      A[i][t] = in[i][t] - A[i][t - 1];
    for (int j = t; j < N; j++)
      out[j][t] = A[t][j];
    for (int i = t + 1; i < N; i++)
      out[t][i] = A[i][t];
  }
}
"""


def test_corner_sweep_needs_a_general_basis(tmp_path):
    # The live elements are a row and a column (two successive L's): no canonical order folds.
    scop = _pencil_scop(tmp_path, CORNER)
    differences = conflict_differences(scop, scop.array("A"))
    assert choose_moduli(differences, (7, 7)) == (None, None)
    # In the source order (contract-arrays) general bases are not tried: they would cost the
    # parallel loops the scheduler finds later.
    assert contract_arrays(scop)[1].arrays == ()
    # Against a schedule (contract-scheduled), here the source order's own, with no parallel loop.
    contracted, contraction = contract_arrays(scop, schedule=scop.schedule)
    (a,) = contraction.arrays
    assert (a.name, a.moduli, a.rows, a.mapping) == ("A", (13, 1), (((1, -1), 13), ((1, 0), 1)),
                                                       "A[(a0 - a1) mod 13][a0 mod 1]")
    assert (a.bytes_before, a.bytes_after) == (392, 104)
    touched = accesses_through(contracted.reads.union(contracted.must_writes), frozenset({"A"})).range()
    box = isl.Set("{ A[r, 0] : 0 <= r < 13 }", context=scop.context.get_ctx())
    assert touched.is_subset(isl.UnionSet.from_set(box))
    # i - j is negative below the diagonal: the C residue is made non-negative.
    from clangpass.ir import nodes as N
    from clangpass.ir.walk import descendants
    mods = [n for s in contracted.statements if s.body is not None for n in descendants(s.body)
            if isinstance(n, N.Binary) and n.op == "%"]
    assert any(isinstance(m.lhs, N.Binary) and m.lhs.op == "+" and isinstance(m.lhs.lhs, N.Binary)
               and m.lhs.lhs.op == "%" for m in mods)
