# SPDX-License-Identifier: MIT
"""clangpass.poly.validity: the pair-by-pair order check (`all_ordered`) agrees with ordering
every pair of statements at once (`earlier_pairs` of a small region), and
`dependence_violations` names the same broken dependences either way."""
from __future__ import annotations

import islpy as isl
import pytest

from clangpass.poly.validity import (all_ordered, breaks_dependences, dates_by_statement, dependence_violations,
                                     earlier_pairs, ordered_pair, pair_ordered)

CTX = isl.Context()
DEPS = ("[n] -> { S[i] -> T[j] : 0 <= i < n and j = i; T[j] -> S[i] : 0 <= j < n - 1 and i = j + 1; "
        "T[j] -> T[k] : 0 <= j < n - 1 and k = j + 1 }")


def _schedule(text: str) -> isl.Schedule:
    domain = isl.UnionSet.read_from_str(CTX, "[n] -> { S[i] : 0 <= i < n; T[j] : 0 <= j < n }")
    return isl.Schedule.from_domain(domain).insert_partial_schedule(
        isl.MultiUnionPwAff.read_from_str(CTX, text))


@pytest.mark.parametrize("dates, ordered", [
    ("[n] -> [{ S[i] -> [(2i)]; T[j] -> [(2j + 1)] }]", True),       # S[i], T[i], S[i+1], ...
    ("[n] -> [{ S[i] -> [(2i + 1)]; T[j] -> [(2j)] }]", False),      # T[i] before S[i]: broken
    ("[n] -> [{ S[i] -> [(i)]; T[j] -> [(j)] }]", False),            # equal dates: not ordered
])
def test_pair_by_pair_agrees_with_all_pairs(dates: str, ordered: bool) -> None:
    deps = isl.UnionMap.read_from_str(CTX, DEPS)
    schedule_map = _schedule(dates).get_map()
    assert all_ordered(deps, schedule_map) is ordered
    assert deps.is_equal(earlier_pairs(deps, schedule_map)) is ordered
    assert bool(dependence_violations(_schedule(dates), deps)) is not ordered
    assert breaks_dependences(_schedule(dates), deps) is not ordered


def test_broken_dependences_are_named() -> None:
    deps = isl.UnionMap.read_from_str(CTX, DEPS)
    schedule = _schedule("[n] -> [{ S[i] -> [(2i + 1)]; T[j] -> [(2j)] }]")
    broken = deps.subtract(earlier_pairs(deps, schedule.get_map()))
    expected: list[str] = []
    broken.foreach_map(lambda m: expected.append(str(m)))
    assert dependence_violations(schedule, deps) == sorted(expected)


def test_a_statement_the_schedule_does_not_run_is_not_ordered() -> None:
    deps = isl.UnionMap.read_from_str(CTX, "[n] -> { S[i] -> U[i] : 0 <= i < n }")
    schedule_map = _schedule("[n] -> [{ S[i] -> [(2i)]; T[j] -> [(2j + 1)] }]").get_map()
    assert not all_ordered(deps, schedule_map)
    schedule = _schedule("[n] -> [{ S[i] -> [(2i)]; T[j] -> [(2j + 1)] }]")
    assert breaks_dependences(schedule, deps) and dependence_violations(schedule, deps)
    # An empty relation of such a statement breaks nothing, as dependence_violations says.
    empty = isl.UnionMap.read_from_str(CTX, "[n] -> { S[i] -> U[i] : 0 <= i < n and i < 0 }")
    assert not breaks_dependences(schedule, empty) and not dependence_violations(schedule, empty)


@pytest.mark.parametrize("dates", [
    "[n] -> [{ S[i] -> [(2i)]; T[j] -> [(2j + 1)] }]",
    "[n] -> [{ S[i] -> [(2i + 1)]; T[j] -> [(2j)] }]",
    "[n] -> [{ S[i] -> [(i)]; T[j] -> [(j)] }]",
])
def test_earlier_pairs_is_the_intersection_with_every_pair_ordered(dates: str) -> None:
    # Ordering only the related statement pairs gives the very union map ordering all of them
    # gives (its maps, their text and their order), so that nothing downstream can tell.
    deps = isl.UnionMap.read_from_str(CTX, DEPS)
    deps = deps.union(isl.UnionMap.read_from_str(CTX, "[n, m] -> { S[i] -> S[i + 1] : 0 <= i < m }"))
    schedule_map = _schedule(dates).get_map()
    every = deps.intersect(schedule_map.lex_lt_union_map(schedule_map))
    found = earlier_pairs(deps, schedule_map)
    texts: list[list[str]] = [[], []]
    every.foreach_map(lambda m: texts[0].append(str(m)))
    found.foreach_map(lambda m: texts[1].append(str(m)))
    assert texts[0] == texts[1] and str(every) == str(found)


@pytest.mark.parametrize("dates", [
    "[n] -> { S[i] -> [0, i, 0]; T[j] -> [0, j, 1] }",                 # ordered
    "[n] -> { S[i] -> [0, i, 1]; T[j] -> [0, j, 0] }",                 # T[i] first: S -> T broken
    "[n] -> { S[i] -> [i, 0, 0]; T[j] -> [j, 0, 0] }",                 # equal dates
    "[n] -> { S[i] -> [floor(i/4), i, 0]; T[j] -> [floor(j/4), j, 1] }",   # tiled
    "[n] -> { S[i] -> [0, i, 0] : i < n - 1; T[j] -> [0, j, 1] }",     # S[n - 1] has no date
    "[n] -> { S[i] -> [0, i, 0]; T[j] -> [0, j, 1] : j > 0 }",         # T[0] has no date
])
def test_pair_ordered_is_the_subset_test(dates: str) -> None:
    """`pair_ordered` (no pair at or after, every instance dated) says what `ordered_pair`'s subset
    test says, pair by pair, instances without a date included."""
    deps = isl.UnionMap.read_from_str(CTX, DEPS)
    by_statement = dates_by_statement(isl.UnionMap.read_from_str(CTX, dates))
    pairs: list[isl.Map] = []
    deps.foreach_map(pairs.append)
    for pair in pairs:
        assert pair_ordered(pair, by_statement) is pair.is_subset(ordered_pair(pair, by_statement))
