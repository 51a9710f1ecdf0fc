# SPDX-License-Identifier: MIT
"""Pass `index-set-split`: which hyperplanes it finds, the pieces, their source order, and the
schedule the region then gets; the pieces' code is checked against gcc -O0 in
test_suite/e2e/test_threads.py (floyd-warshall) and by the random programs' pivot nests."""
from __future__ import annotations

import re

import islpy as isl

from clangpass.poly.codegen import format_ast
from clangpass.poly.dependences import compute_dependences
from test_suite.unit.poly.snippets import optimise, scop_of

# Floyd-Warshall's min-plus relaxation: row k and column k pivot every other row and column.
PIVOT = """\
void f(int n, double G[static const restrict n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        G[i][j] = G[i][j] < G[i][k] + G[k][j] ? G[i][j] : G[i][k] + G[k][j];
}
"""

# The same with the row loop running downwards: the pieces' loops must run in its order.
DOWNWARDS = PIVOT.replace("for (int i = 0; i < n; i++)", "for (int i = n - 1; i >= 0; i--)")

# Rows pivot on no row of the same k here (row k is read, never written, in the k loop):
# nothing to split.
NO_PIVOT = """\
void f(int n, double G[static const restrict n][n], double H[static const restrict n][n]) {
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        G[i][j] = G[i][j] + H[i][k] * H[k][j];
}
"""


def test_pivot_hyperplanes_come_from_the_dependences(tmp_path):
    from clangpass.passes.index_set_split import pivots
    scop = scop_of(tmp_path, PIVOT)
    [statement] = scop.compute_statements
    assert sorted(pivots([statement], compute_dependences(scop).all)) == [(0, 1), (0, 2)]   # i = k, j = k
    plain = scop_of(tmp_path, NO_PIVOT)
    assert pivots([plain.compute_statements[0]], compute_dependences(plain).all) == []


def test_pieces_run_rows_in_parallel_and_columns_as_vector_loops(tmp_path):
    outcome = optimise(tmp_path, PIVOT, opt_level=3)
    assert outcome.status == "optimized" and outcome.reason == "", outcome.reason
    assert outcome.facts["split_statements"] == 1 and outcome.statements == 9
    assert outcome.facts["source_order"] and "split statements" in outcome.facts["source_order_reason"]
    text = format_ast(outcome.unit)
    lines = [line.strip() for line in text.splitlines()]
    # One team around k; the rows before k and after k are parallel loops; row k between them.
    assert lines[0] == "// thread-team" and outcome.facts["parallel_loops"] == 2 and outcome.thread_teams == 1
    parallel = [k for k, line in enumerate(lines) if line == "// parallel"]
    assert re.match(r"for \(int c1 = 0; c1 < c0; c1 \+= 1\)", lines[parallel[0] + 1]), text
    assert re.match(r"for \(int c1 = c0 \+ 1; c1 < n; c1 \+= 1\)", lines[parallel[1] + 1]), text
    # Inside a row, the columns before and after k are vector loops.
    assert sum(1 for k, line in enumerate(lines) if line == "// vector" and lines[k + 1].startswith("for")) == 6
    # Without threads the split source order is kept too: its rows run their columns as vector
    # loops, where isl's skewed schedule of the pieces walks columns.
    serial = optimise(tmp_path, PIVOT, opt_level=3, parallel=False)
    assert serial.facts["source_order"] and serial.facts["split_statements"] == 1 and serial.facts["parallel_loops"] == 0
    assert format_ast(serial.unit).replace("// parallel\n", "").replace("// thread-team\n", "") \
        .count("// vector") == text.count("// vector")
    off = optimise(tmp_path, PIVOT, opt_level=3, disabled_passes=frozenset({"index-set-split"}))
    assert off.facts["split_statements"] == 0 and off.statements == 1 and off.facts["parallel_loops"] == 0


def test_the_split_source_order_is_the_source_order(tmp_path):
    # The loops cut at the planes run every instance when the unsplit loops ran it, for an
    # upward and a downward row loop: the pieces' execution order, pulled back to the
    # statement, is the original one, and the row loop is cut in three.
    from clangpass.passes.index_set_split import pivots, split_statements
    for source in (PIVOT, DOWNWARDS):
        scop = scop_of(tmp_path, source)
        [statement] = scop.compute_statements
        split, count = split_statements(scop, {statement.name: pivots([statement], compute_dependences(scop).all)})
        assert count == 1 and len(split.compute_statements) == 9
        before = scop.original_compute_schedule().get_map()          # { S[k, i, j] -> [dates] }
        after = split.original_compute_schedule().get_map()          # { S_n[k, i, j] -> [dates] }
        to_statement = isl.UnionMap.empty(after.get_space())
        for piece in split.compute_statements:
            to_statement = to_statement.union(isl.UnionMap.from_map(isl.Map.identity(
                isl.Space.map_from_set(piece.domain.get_space())).intersect_domain(piece.domain)
                .set_tuple_name(isl.dim_type.out, statement.name)))
        domain = isl.UnionSet.from_set(statement.domain)
        order_before = before.lex_lt_union_map(before).intersect_domain(domain).intersect_range(domain)
        order_after = to_statement.reverse().apply_range(after.lex_lt_union_map(after)).apply_range(to_statement)
        assert order_after.intersect_domain(domain).intersect_range(domain).is_equal(order_before), source
        text = str(split.original_schedule)
        assert text.count("sequence") >= 2, text


def test_statements_without_pivots_are_not_split(tmp_path):
    outcome = optimise(tmp_path, NO_PIVOT, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["split_statements"] == 0 and outcome.statements == 1


# The three-address form: the pivot dependences run between the unit's statements (the store
# of `t2` to row k, the reads of row k into `t1`), none of which depends on itself on a plane.
PIVOT_3AC = """\
void f(int n, double G[static const restrict n][n]) {
  double t1, t2;
  for (int k = 0; k < n; k++)
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        t1 = G[i][k] + G[k][j];
        t2 = G[i][j] < t1 ? G[i][j] : t1;
        G[i][j] = t2;
      }
}
"""


def test_a_three_address_unit_is_split_alike_and_runs_rows_in_parallel(tmp_path):
    from clangpass.passes.index_set_split import _units, pivots
    from test_suite.unit.poly.snippets import optimised_and_checked
    scop = scop_of(tmp_path, PIVOT_3AC)
    (unit,) = _units(scop)
    assert [pivots([s], compute_dependences(scop).all) for s in unit] == [[], [], []]
    assert sorted(pivots(unit, compute_dependences(scop).all)) == [(0, 1), (0, 2)]
    outcome = optimised_and_checked(tmp_path, PIVOT_3AC, sizes=(1, 4, 7))
    assert outcome.status == "optimized" and outcome.facts["split_statements"] == 3 and outcome.statements == 27
    assert outcome.facts["parallel_loops"] >= 2, format_ast(outcome.unit)
    off = optimise(tmp_path, PIVOT_3AC, opt_level=3, disabled_passes=frozenset({"index-set-split"}))
    assert off.facts["split_statements"] == 0 and off.facts["parallel_loops"] == 0


def test_the_pass_finds_the_planes_of_the_whole_region_pair_by_pair(tmp_path):
    # The pass gathers the dependences of each candidate unit from the flow, anti and output
    # relations in one walk (never `Dependences.all` of the region): the planes are those that
    # `Dependences.all` gives, for each statement and each unit, and a unit's planes come only
    # from its own pairs (the plain nest beside the pivot nest adds none to it and has none).
    from clangpass.passes.index_set_split import _pairs_within, _pivots_of, _units, pivots
    plain_nest = ("}\n  for (int k = 0; k < n; k++)\n    for (int i = 0; i < n; i++)\n"
                  "      for (int j = 0; j < n; j++)\n        H[i][j] = H[i][j] + G[i][k] * G[k][j];\n}\n")
    both = PIVOT_3AC.replace("}\n}\n", plain_nest) \
        .replace("double G[static const restrict n][n])", "double G[static const restrict n][n], "
                 "double H[static const restrict n][n])")
    for source in (PIVOT, DOWNWARDS, PIVOT_3AC, both):
        scop = scop_of(tmp_path, source)
        dependences = compute_dependences(scop)
        units = _units(scop)
        pairs = _pairs_within(dependences, units)
        unit_of = {s.name: k for k, unit in enumerate(units) for s in unit}
        assert all(unit_of[a] == unit_of[b] for a, b in pairs)
        whole = dependences.all
        for unit in units:
            assert _pivots_of(unit, pairs) == pivots(unit, whole) == _planes_from_the_whole(unit, whole), source
            for s in unit:
                assert _pivots_of([s], pairs) == _planes_from_the_whole([s], whole), source
    assert [sorted(_pivots_of(u, _pairs_within(dependences, units))) for u in units] == [[(0, 1), (0, 2)], []]


def _planes_from_the_whole(members, deps):
    """The planes as the pass found them before it went pair by pair: each ordered pair of
    `members` extracted from the region's coalesced dependences `deps`, its basic maps' ends
    read for `x_a = x_b` equalities the owner's domain does not imply."""
    from itertools import product
    from clangpass.passes.index_set_split import MAX_HYPERPLANES, _equal_iterators, _plane
    found = []
    for source, sink in product(members, members):
        pieces = []
        deps.extract_map(isl.Map.from_domain_and_range(source.domain, sink.domain).get_space()) \
            .foreach_basic_map(pieces.append)
        for piece in pieces:
            for ends, owner in ((piece.domain(), source), (piece.range(), sink)):
                for a, b in _equal_iterators(ends):
                    if (a, b) not in found and not owner.domain.is_subset(_plane(owner.domain.get_space(), a, b)):
                        found.append((a, b))
    return found[:MAX_HYPERPLANES]
