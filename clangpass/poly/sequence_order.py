# SPDX-License-Identifier: MIT
"""Sequences in source order: the children of a computed schedule's sequence nodes, put back in
the order of the source wherever the dependences leave the choice open.

Input: a schedule tree (isl's scheduler's), the region's dependences `[P] -> { S[i..] -> T[j..] }`
(flow, anti and output, none relaxed) and each statement's rank in the source. Output: the same
tree with the children of each sequence node reordered: a child must come before another when a
dependence runs from an instance in the first to an instance in the second with equal dates in
every band above the sequence; among the children free to go next, the one whose first statement
comes first in the source goes (Kahn's topological sort with the source rank as priority). The
order satisfies every dependence, the false ones of local storage included, so it is legal under
any criterion the scheduler worked with. When no order satisfies them all (the scheduler may
order a relaxed false dependence against the source), the sequence is kept as built. The
children of each set node (isl's scheduler's independent components: no dependence between
them at equal dates above, so any order is legal) are listed in source order too: the AST
generator runs a set's children in the order they are listed wherever their dates overlap.

Why: when isl's scheduler cannot put the statements of a band in one more band member, it
orders its strongly connected components topologically and breaks ties by its own numbering.
In three-address code that puts an initialisation between the temporaries of the statement it
initialises (3AC syrk: `t1 = ..; t2 = ..; C[i][j] *= beta; C[i][j] += t2;`), where the source
had it first: the AST then tests `k == 0` inside the innermost loop at every iteration instead
of running the initialisation before the loop, and the temporaries' statements are not
consecutive (clangpass.poly.codegen generates consecutive statements of one domain as one).
A set listed against the source has the same effect: 3AC gesummv's two reductions (the `tmp`
and `y` chains, independent components) ran in the inner loop `y` chain first, 8% slower than
the original, whose set isl happened to list in source order.
This is the ordering step of Algorithm 1's recovery (thesis section 3.5: statements of a
macro-statement in their original order) applied to the scheduler's own sequences.

Work: per sequence, one emptiness test per statement pair with a dependence at equal dates
(under the isl budget; over it, the schedule is kept).
"""
from __future__ import annotations

from typing import Mapping

import islpy as isl

from clangpass.poly.scop import statement_names
from clangpass.poly.validity import maps_of


def source_ordered_sequences(schedule: isl.Schedule, deps: isl.UnionMap, rank: Mapping[str, int]) -> isl.Schedule:
    """`schedule` with each sequence's children in source order where `deps` allow, and each
    set's children in source order (module doc)."""
    paths = _sequence_paths(schedule.get_root(), ())
    # Deepest first: reordering a sequence moves its subtrees whole, so the paths of the
    # sequences above it (which are shorter) stay valid.
    for path in sorted(paths, key=len, reverse=True):
        node = schedule.get_root()
        for k in path:
            node = node.child(k)
        is_set = node.get_type() == isl.schedule_node_type.set
        order = _source_order(node, rank) if is_set else _preferred_order(node, deps, rank)
        if order is not None and order != list(range(node.n_children())):
            filters = isl.UnionSetList.alloc(node.get_ctx(), len(order))
            for k in order:
                filters = filters.add(node.child(k).filter_get_filter())
            node = node.insert_set(filters) if is_set else node.insert_sequence(filters)
            schedule = node.get_schedule()
    return schedule


def _sequence_paths(node: isl.ScheduleNode, path: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The child-index paths from the root of every sequence and set node at or under `node`."""
    found = [path] if node.get_type() in (isl.schedule_node_type.sequence, isl.schedule_node_type.set) else []
    for k in range(node.n_children()):
        found += _sequence_paths(node.child(k), path + (k,))
    return found


def _first_ranks(node: isl.ScheduleNode, rank: Mapping[str, int]) -> list[int]:
    """Per child of the sequence or set `node`: the source rank of its first statement."""
    domain = node.get_domain()
    children = (statement_names(node.child(k).filter_get_filter().intersect(domain)) for k in range(node.n_children()))
    return [min((rank.get(name, len(rank)) for name in names), default=len(rank)) for names in children]


def _source_order(node: isl.ScheduleNode, rank: Mapping[str, int]) -> list[int]:
    """The children of the set `node` (indices) by the source rank of their first statements."""
    first = _first_ranks(node, rank)
    return sorted(range(len(first)), key=lambda k: (first[k], k))


def _preferred_order(sequence: isl.ScheduleNode, deps: isl.UnionMap, rank: Mapping[str, int]) -> list[int] | None:
    """The children of `sequence` in the order to keep (indices), or None when the dependences
    between them form a cycle."""
    n = sequence.n_children()
    domain = sequence.get_domain()                                    # [P] -> { S[i..] } here
    filters = [sequence.child(k).filter_get_filter().intersect(domain) for k in range(n)]
    names = [statement_names(f) for f in filters]
    holders: dict[str, list[int]] = {}
    for k, members in enumerate(names):
        for name in members:
            holders.setdefault(name, []).append(k)
    prefix = sequence.get_prefix_schedule_union_map()                 # [P] -> { S[i..] -> [outer] }
    same = prefix.apply_range(prefix.reverse())                       # equal dates above the sequence
    local = deps.intersect_domain(domain).intersect_range(domain).intersect(same)
    before: list[set[int]] = [set() for _ in range(n)]               # before[y]: children that precede y
    for dep in maps_of(local):
        sources = holders.get(dep.get_tuple_name(isl.dim_type.in_), [])
        sinks = holders.get(dep.get_tuple_name(isl.dim_type.out), [])
        for x in sources:
            for y in sinks:
                if x == y or x in before[y]:
                    continue
                if len(sources) == 1 and len(sinks) == 1 or not (
                        isl.UnionMap.from_map(dep).intersect_domain(filters[x]).intersect_range(filters[y]).is_empty()):
                    before[y].add(x)
    first = _first_ranks(sequence, rank)
    placed: list[int] = []
    waiting = set(range(n))
    while waiting:
        free = [k for k in waiting if not (before[k] & waiting)]
        if not free:
            return None
        chosen = min(free, key=lambda k: (first[k], k))
        placed.append(chosen)
        waiting.remove(chosen)
    return placed
