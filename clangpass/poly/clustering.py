# SPDX-License-Identifier: MIT
"""Offline statement clustering: the validity of a decision and Algorithm 1 (thesis ch. 3).

Input: a `Scop`, its dependences `[P] -> { S[i..] -> T[j..] }` and a clustering
decision (sets of statement names). Output: `decision_problems` (why a decision is
invalid, thesis section 3.6.1) and `Clustering` (section 3.4, Algorithm 1): the
macro-statement domains `[P] -> { M[i..] }`, the renaming `{ S[i..] -> M[i..] }`
through which the dependences are mapped onto macro-statements, and the recovery of
each statement's schedule from its macro-statement's (section 3.5, step 4): the macro
schedule pulled back to the statements, with a sequence node under each leaf that
orders the statements of one macro-statement instance as the source does.

Which statements a heuristic clusters is not decided here
(clangpass.passes.cluster_stmts). The loop structure a decision is judged against
comes from the original schedule tree: `source_structure` gives each statement its
enclosing loops and its basic block (the statements between two loops of one loop
body, thesis section 3.6.3).

Validity (section 3.6.1): members of a cluster share their enclosing loops and have
identical iteration domains (the macro-statement executes all of them at each of its
instances), and no dependence path leaves a cluster's instance and comes back to the
same instance through another statement. Such a path runs within one iteration of
the cluster's loops (the source order runs an iteration of a loop contiguously), so
the check is on the graph of dependences that do not cross an iteration of those
loops, among the statements of the loop body, with every other cluster contracted
to one node (conservative): a cluster on a cycle of that graph is invalid.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from functools import reduce
from typing import Iterable, Iterator, Optional

import islpy as isl

from clangpass.ir.callgraph import recursive_components
from clangpass.poly.budget import BudgetExceeded, isl_budget
from clangpass.poly.live_ranges import RelaxedDependences
from clangpass.poly.scop import Scop, instances_of, statement_names
from clangpass.poly.validity import maps_of, union_of

MACRO_PREFIX = "M_"


@dataclass(frozen=True)
class SourceStructure:
    """Where each executed statement sits in the source: its loops and its basic block."""

    order: tuple[str, ...]                  # statements in source order
    loops: dict[str, tuple[int, ...]]       # statement -> its enclosing loops (band ids), outermost first
    blocks: tuple[tuple[str, ...], ...]     # basic blocks, each in source order


def source_structure(scop: Scop) -> SourceStructure:
    """The loops and basic blocks of `scop`'s executed statements, from its original schedule tree.
    A basic block is a maximal run of statements that are consecutive children of one sequence
    (no loop between them; kills, which run no code, do not interrupt it) and have the same
    iteration domain (a guard starts a new block, as in thesis Fig. 3.5)."""
    executed = {s.name: s for s in scop.compute_statements}
    order: list[str] = []
    loops: dict[str, tuple[int, ...]] = {}
    blocks: list[list[str]] = []
    bands = [0]

    def leaf_statements(node: isl.ScheduleNode) -> list[str]:
        """The statements under `node` (no band below it), in the order of its leaves."""
        names: list[str] = []

        def visit(n: isl.ScheduleNode) -> bool:
            if n.get_type() == isl.schedule_node_type.leaf:
                here = [m for m in statement_names(n.get_domain()) if m in executed and m not in names]
                names.extend(sorted(here, key=lambda m: (len(m), m)))
            return True

        node.foreach_descendant_top_down(visit)
        return names

    def has_band(node: isl.ScheduleNode) -> bool:
        found = [False]

        def visit(n: isl.ScheduleNode) -> bool:
            if n.get_type() == isl.schedule_node_type.band:
                found[0] = True
            return not found[0]

        node.foreach_descendant_top_down(visit)
        return found[0]

    def add_to_block(names: list[str], enclosing: tuple[int, ...], open_block: Optional[list[str]]) -> list[str]:
        for name in names:
            order.append(name)
            loops[name] = enclosing
            if open_block and not _same_domain(executed[open_block[0]].domain, executed[name].domain):
                open_block = None
            if open_block is None:
                open_block = []
                blocks.append(open_block)
            open_block.append(name)
        return open_block

    def walk(node: isl.ScheduleNode, enclosing: tuple[int, ...]) -> None:
        kind = node.get_type()
        if kind == isl.schedule_node_type.band:
            ids = tuple(bands[0] + k for k in range(node.band_n_member()))
            bands[0] += node.band_n_member()
            walk(node.child(0), enclosing + ids)
        elif kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
            open_block: Optional[list[str]] = None
            for k in range(node.n_children()):
                child = node.child(k)
                if has_band(child):
                    open_block = None
                    walk(child, enclosing)
                else:
                    open_block = add_to_block(leaf_statements(child), enclosing, open_block)
        elif kind == isl.schedule_node_type.leaf:
            add_to_block(leaf_statements(node), enclosing, None)
        else:
            for k in range(node.n_children()):
                walk(node.child(k), enclosing)

    walk(scop.original_schedule.get_root(), ())
    return SourceStructure(tuple(order), loops, tuple(tuple(b) for b in blocks if b))


def _same_domain(a: isl.Set, b: isl.Set) -> bool:
    """Whether two statements' domains ([P] -> { S[i..] }, [P] -> { T[i..] }) are the same set of points."""
    if a.dim(isl.dim_type.set) != b.dim(isl.dim_type.set):
        return False
    return a.set_tuple_name("_").is_equal(b.set_tuple_name("_"))


# ------------------------------------------------------------------ dependence graph
def dependence_pairs(deps: isl.UnionMap) -> dict[tuple[str, str], isl.Map]:
    """The dependences ([P] -> { S[i..] -> T[j..] }) as one map per (source, sink) statement pair."""
    return {(m.get_tuple_name(isl.dim_type.in_), m.get_tuple_name(isl.dim_type.out)): m for m in maps_of(deps)}


def pairs_within(pairs: dict[tuple[str, str], isl.Map],
                 statements: list[str]) -> list[tuple[tuple[str, str], isl.Map]]:
    """The items of `pairs` between two of `statements`."""
    inside = set(statements)
    if len(inside) * len(inside) < len(pairs):
        return [((a, b), pairs[(a, b)]) for a in statements for b in statements if (a, b) in pairs]
    return [((a, b), dep) for (a, b), dep in pairs.items() if a in inside and b in inside]


def same_iteration(dep: isl.Map, depth: int) -> bool:
    """Whether `dep` ([P] -> { S[i..] -> T[j..] }) relates instances of one iteration of the
    `depth` outermost loops the two statements share (their first `depth` dimensions equal)."""
    for k in range(depth):
        dep = dep.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
    return not dep.is_empty()


def shared_loops(structure: SourceStructure, a: str, b: str) -> int:
    """How many enclosing loops statements `a` and `b` share."""
    la, lb = structure.loops[a], structure.loops[b]
    n = 0
    while n < min(len(la), len(lb)) and la[n] == lb[n]:
        n += 1
    return n


def strongly_connected(nodes: Iterable[str], successors: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of a graph: each in `nodes` order, listed by their first
    node (Tarjan's algorithm of the linter's call graph)."""
    nodes = list(nodes)
    rank = {n: k for k, n in enumerate(nodes)}
    graph = {n: frozenset(m for m in successors.get(n, ()) if m in rank) for n in nodes}
    cyclic = recursive_components(graph)                      # only components with a cycle
    components = {cyclic.get(n, frozenset({n})) for n in nodes}
    return sorted((sorted(c, key=rank.__getitem__) for c in components), key=lambda c: rank[c[0]])


# ------------------------------------------------------------------ validity (section 3.6.1)
def decision_problems(scop: Scop, deps: isl.UnionMap, decision: Iterable[Iterable[str]],
                      structure: Optional[SourceStructure] = None) -> list[str]:
    """Why the clustering `decision` of `scop` is invalid (empty: valid). `deps` are all the
    dependences ([P] -> { S[i..] -> T[j..] })."""
    structure = structure or source_structure(scop)
    clusters = [list(dict.fromkeys(c)) for c in decision]
    problems: list[str] = []
    owner: dict[str, int] = {}
    for k, cluster in enumerate(clusters):
        for name in cluster:
            if name not in structure.loops:
                problems.append(f"'{name}' is not an executed statement of the region")
            elif name in owner:
                problems.append(f"'{name}' is in two clusters")
            else:
                owner[name] = k
    if problems:
        return problems
    domains = {s.name: s.domain for s in scop.compute_statements}
    for cluster in clusters:
        first = cluster[0]
        for name in cluster[1:]:
            if structure.loops[name] != structure.loops[first]:
                problems.append(f"'{first}' and '{name}' are not in the same loops")
            elif not _same_domain(domains[first], domains[name]):
                problems.append(f"'{first}' and '{name}' have different iteration domains")
    if problems:
        return problems
    pairs = dependence_pairs(deps)
    for cluster in clusters:
        if len(cluster) < 2:
            continue
        cycle = _cycle_through_others(cluster, clusters, owner, structure, pairs)
        if cycle:
            problems.append(f"cluster {{{', '.join(cluster)}}}: a dependence path leaves it and comes back to "
                            f"the same instance through {', '.join(cycle)}")
    return problems


def _cycle_through_others(cluster: list[str], clusters: list[list[str]], owner: dict[str, int],
                          structure: SourceStructure, pairs: dict[tuple[str, str], isl.Map]) -> list[str]:
    """The other nodes of the cycle through `cluster` in the graph of the dependences within one
    iteration of its loops, among the statements of its loop body (other clusters contracted)."""
    depth = len(structure.loops[cluster[0]])
    body = [n for n in structure.order if shared_loops(structure, n, cluster[0]) >= depth]

    def node(name: str) -> str:
        k = owner.get(name)
        return f"cluster{k}" if k is not None and len(clusters[k]) > 1 else name

    successors: dict[str, set[str]] = {}
    for (source, sink), dep in pairs_within(pairs, body):
        if node(source) != node(sink) and same_iteration(dep, depth):
            successors.setdefault(node(source), set()).add(node(sink))
    nodes = list(dict.fromkeys(node(n) for n in body))
    mine = node(cluster[0])
    for component in strongly_connected(nodes, successors):
        if mine in component and len(component) > 1:
            return sorted(n if not n.startswith("cluster") else "{" + ", ".join(clusters[int(n[7:])]) + "}"
                          for n in component if n != mine)
    return []


# ------------------------------------------------------------------ Algorithm 1 (section 3.4)
@dataclass(frozen=True)
class Clustering:
    """Macro-statements: a valid decision applied to a Scop (thesis Algorithm 1)."""

    clusters: tuple[tuple[str, ...], ...]   # statements of each macro-statement (2 or more), source order
    names: tuple[str, ...]                  # each macro-statement's name (M_0, M_1...)
    to_macro: isl.UnionMap                  # [P] -> { S[i..] -> M[i..] }; other statements to themselves
    domain: isl.UnionSet                    # [P] -> { M[i..] }: the macro-statement domains (and the others')
    order: tuple[str, ...]                  # every executed statement, in source order
    heuristic: str = ""                     # 'scc', 'bb' or 'user'
    problems: tuple[str, ...] = ()          # why the user's decision was not applied (then no clusters)
    dependences_before: int = 0             # statement-pair dependence relations the scheduler would see
    dependences_after: int = 0              # ... between macro-statements (the scheduler sees these)

    @property
    def scheduled_statements(self) -> int:
        """What the scheduler sees: macro-statements and unclustered statements."""
        return len(self.order) - sum(len(c) - 1 for c in self.clusters)

    def macro(self, deps: isl.UnionMap, max_operations: int = 0) -> isl.UnionMap:
        """`deps` ([P] -> { S[i..] -> T[j..] }) between macro-statements ([P] -> { M[i..] -> N[j..] }),
        less the pairs within one macro-statement instance, which the order inside it keeps.
        `to_macro` only renames (Algorithm 1, step 3), so each statement pair's map is renamed
        rather than composed with it (composition costs isl work in the number of pairs). A
        macro-statement pair's map made of several statement pairs' is coalesced within
        `max_operations` (over it: left as is). `deps` run forward in the source order, as
        dependences and live ranges do (`_renamed`)."""
        by_pair: dict[tuple[str, str], list[isl.Map]] = {}
        for key, dep, within in self._renamed(deps):
            if within:
                dep = dep.subtract(isl.Map.identity(dep.get_space()))   # { M[i..] -> M[i..] } dropped
            by_pair.setdefault(key, []).append(dep)
        return union_of([maps[0] if len(maps) == 1 else _coalesced(reduce(isl.Map.union, maps), max_operations)
                         for maps in by_pair.values()], deps.get_space())

    def macro_relation_count(self, deps: isl.UnionMap) -> int:
        """`relation_count(self.macro(deps))`, without building the maps: the macro-statement pairs
        that some dependence of `deps` relates (outside one macro-statement instance)."""
        keys: set[tuple[str, str]] = set()
        maybe: list[tuple[tuple[str, str], isl.Map]] = []
        for key, dep, within in self._renamed(deps):
            if within:
                maybe.append((key, dep))
            else:
                keys.add(key)
        for key, dep in maybe:
            if key not in keys and not dep.is_subset(isl.Map.identity(dep.get_space())):
                keys.add(key)
        return len(keys)

    def _renamed(self, deps: isl.UnionMap) -> Iterator[tuple[tuple[str, str], isl.Map, bool]]:
        """Each statement pair's map of `deps` ([P] -> { S[i..] -> T[j..] }) renamed onto the
        macro-statements ([P] -> { M[i..] -> N[j..] }: `to_macro` only renames, Algorithm 1, step 3),
        with its (source, sink) macro names and whether it may relate two statements of one
        macro-statement instance. Only a pair from a member to a later member of the same
        macro-statement can: the members share their loops and domain, and `deps` run forward in
        the source order (dependences, live ranges), so an instance of a statement never reaches
        itself or an earlier member at the same iteration."""
        macro_of = {name: macro for cluster, macro in zip(self.clusters, self.names) for name in cluster}
        rank = {name: k for k, name in enumerate(self.order)}
        for dep in maps_of(deps):                                  # [P] -> { S[i..] -> T[j..] }
            first, second = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
            source, sink = macro_of.get(first, first), macro_of.get(second, second)
            if (source, sink) != (first, second):
                dep = dep.set_tuple_name(isl.dim_type.in_, source).set_tuple_name(isl.dim_type.out, sink)
            yield (source, sink), dep, source == sink and rank.get(first, -1) < rank.get(second, -1)

    def macro_relaxed(self, relaxed: RelaxedDependences, scop: Scop, max_operations: int = 0) -> RelaxedDependences:
        """`relaxed` (relax-false-deps' split of `scop`'s dependences) between macro-statements:
        each part through `macro`, less the false dependences of the local storage whose every
        live range lies within one macro-statement instance (`instance_private`). Such a value is
        written and read inside one instance, which any schedule runs as a whole in the source
        order: no other write can interrupt its live ranges, so its false dependences constrain
        nothing (isl would only test them, each a conditional validity constraint). The scheduler
        sees fewer constraints; `verify-schedule` still checks the statements' schedule against
        every dependence."""
        private = self.instance_private(relaxed, scop)
        false = _without_pairs_through(relaxed.relaxed, private, scop) if private else relaxed.relaxed
        return replace(relaxed, enforced=self.macro(relaxed.enforced, max_operations),
                       live_ranges=self.macro(relaxed.live_ranges, max_operations),
                       relaxed=self.macro(false, max_operations))

    def instance_private(self, relaxed: RelaxedDependences, scop: Scop) -> frozenset[str]:
        """The local arrays of `relaxed` whose live ranges ([P] -> { W[..] -> R[..] }) all run from
        a statement of a macro-statement to one of the same macro-statement, in the same instance."""
        local = frozenset(relaxed.arrays)
        reads, writes = _arrays_by_statement(scop.reads, local), _arrays_by_statement(scop.writes, local)
        macro_of = {name: macro for cluster, macro in zip(self.clusters, self.names) for name in cluster}
        rank = {name: k for k, name in enumerate(self.order)}
        shared: set[str] = set()
        for live in maps_of(relaxed.live_ranges):                  # [P] -> { W[i..] -> R[j..] }
            source, sink = live.get_tuple_name(isl.dim_type.in_), live.get_tuple_name(isl.dim_type.out)
            through = writes.get(source, frozenset()) & reads.get(sink, frozenset())
            if through <= shared:
                continue
            macro = macro_of.get(source)
            # A live range from a member to itself or an earlier member leaves the instance (`_renamed`).
            if macro is None or macro != macro_of.get(sink) or rank[source] >= rank[sink]:
                shared |= through
                continue
            live = live.set_tuple_name(isl.dim_type.in_, macro).set_tuple_name(isl.dim_type.out, macro)
            if not live.is_subset(isl.Map.identity(live.get_space())):
                shared |= through
        return local - shared

    def statement_schedule(self, macro_schedule: isl.Schedule, statements: isl.UnionSet) -> isl.Schedule:
        """The schedule of the original `statements` ([P] -> { S[i..] }) from that of the
        macro-statements (thesis section 3.5, step 4): the macro-statement's, then a sequence in
        source order (the static dimension) among the statements reaching a leaf together."""
        to_macro = isl.UnionPwMultiAff.from_union_map(self.to_macro)   # [P] -> { S[i..] -> M[i..] }
        schedule = macro_schedule.pullback_union_pw_multi_aff(to_macro).intersect_domain(statements)
        rank = {name: k for k, name in enumerate(self.order)}

        def order_leaves(node: isl.ScheduleNode) -> isl.ScheduleNode:
            if node.get_type() == isl.schedule_node_type.leaf:
                instances = node.get_domain()                 # [P] -> { S[i..] } reaching the leaf
                names = sorted(statement_names(instances), key=lambda n: rank.get(n, len(rank)))
                if len(names) < 2:
                    return node
                filters = isl.UnionSetList.alloc(node.get_ctx(), len(names))
                for name in names:
                    filters = filters.add(instances_of(instances, {name}, universe=True))
                return node.insert_sequence(filters)
            for k in range(node.n_children()):
                node = order_leaves(node.child(k)).parent()
            return node

        return order_leaves(schedule.get_root()).get_schedule()


def _arrays_by_statement(accesses: isl.UnionMap, arrays: frozenset[str]) -> dict[str, frozenset[str]]:
    """Statement -> the arrays of `arrays` it accesses in `accesses` ([P] -> { S[i..] -> A[a..] })."""
    found: dict[str, set[str]] = {}
    for access in maps_of(accesses):
        if access.get_tuple_name(isl.dim_type.out) in arrays:
            found.setdefault(access.get_tuple_name(isl.dim_type.in_), set()).add(access.get_tuple_name(isl.dim_type.out))
    return {name: frozenset(a) for name, a in found.items()}


def _without_pairs_through(false: isl.UnionMap, private: frozenset[str], scop: Scop) -> isl.UnionMap:
    """`false` ([P] -> { S[i..] -> T[j..] }, false dependences of local storage) less the statement
    pairs that share only arrays of `private` (a pair through another array too keeps its map)."""
    local = frozenset(a.name for a in scop.arrays if a.local)
    reads, writes = _arrays_by_statement(scop.reads, local), _arrays_by_statement(scop.writes, local)
    kept = []
    for dep in maps_of(false):
        source, sink = dep.get_tuple_name(isl.dim_type.in_), dep.get_tuple_name(isl.dim_type.out)
        through = ((reads.get(source, frozenset()) | writes.get(source, frozenset())) & writes.get(sink, frozenset())) \
            | (writes.get(source, frozenset()) & reads.get(sink, frozenset()))
        if through - private:
            kept.append(dep)
    return union_of(kept, false.get_space())


def _coalesced(m: isl.Map, max_operations: int) -> isl.Map:
    """`m` coalesced, or `m` when that exceeds `max_operations` isl operations."""
    try:
        with isl_budget(m.get_ctx(), max_operations, "coalescing"):
            return m.coalesce()
    except BudgetExceeded:
        return m


def apply_decision(scop: Scop, decision: Iterable[Iterable[str]], heuristic: str,
                   structure: Optional[SourceStructure] = None) -> Clustering:
    """Algorithm 1, steps 1 and 2: the renaming onto macro-statements and their domains. Clusters of
    one statement are left as they are; the decision must be valid (`decision_problems`)."""
    structure = structure or source_structure(scop)
    rank = {name: k for k, name in enumerate(structure.order)}
    clusters = sorted((tuple(sorted(set(c), key=rank.__getitem__)) for c in decision if len(set(c)) > 1),
                      key=lambda c: rank[c[0]])
    macro_of = {name: f"{MACRO_PREFIX}{k}" for k, cluster in enumerate(clusters) for name in cluster}
    to_macro = isl.UnionMap.empty(scop.context.get_space())
    for s in scop.compute_statements:
        identity = isl.Map.identity(isl.Space.map_from_set(s.domain.get_space()))   # universe: clean pullbacks
        if s.name in macro_of:
            identity = identity.set_tuple_name(isl.dim_type.out, macro_of[s.name])   # { S[i..] -> M[i..] }
        to_macro = to_macro.union(isl.UnionMap.from_map(identity))
    domain = scop.domain.apply(to_macro)                          # [P] -> { M[i..] }
    names = tuple(f"{MACRO_PREFIX}{k}" for k in range(len(clusters)))
    return Clustering(tuple(clusters), names, to_macro, domain, structure.order, heuristic)


def relation_count(deps: isl.UnionMap) -> int:
    """The number of statement-pair relations in `deps` (the thesis counts dependences so)."""
    return deps.n_map()


def format_clustering(clustering: Clustering) -> str:
    """The `deps` dump's clustering part: each macro-statement's statements, the problems of a
    rejected decision, the counts."""
    lines = [f"Clustering ({clustering.heuristic}): {len(clustering.order)} statements -> "
             f"{clustering.scheduled_statements} scheduled, {clustering.dependences_before} -> "
             f"{clustering.dependences_after} dependence relations"]
    lines.extend(f"    {name} := {{ {', '.join(cluster)} }};" for name, cluster in zip(clustering.names, clustering.clusters))
    lines.extend(f"    invalid: {p}" for p in clustering.problems)
    return "\n".join(lines)
