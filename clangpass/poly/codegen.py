# SPDX-License-Identifier: MIT
"""AST generation: final schedule tree -> isl AST + statement bodies (`CodegenUnit`).

Input: a `Scop` whose `schedule` the passes produced. Output: the `CodegenUnit`
the back ends lower (contract in clangpass.poly.codegen_unit). Uses isl's AST
generator (Grosser, Verdoolaege & Cohen, "Polyhedral AST generation is more than
scanning polyhedra", TOPLAS 2015): `AstBuild.from_context(context)` and
`node_from_schedule`; schedule-tree marks (`parallel`, `tile`, `point`) become
AST mark nodes. Kill statements are not in the schedule, so produce no code.

Every band member is generated with the `atomic` loop type: with isl's default
(which separates full and partial tiles) the AST of some tiled schedules skips
statement instances (reproducer: test_codegen.py::test_tiled_ast_runs_every_instance,
found by the random differential tests). Atomic loops keep one loop per
dimension with guards inside, which is correct there and costs little on CPUs.
The exception is the innermost point loop of a tile band run by wavefronts
(clangpass.passes.wavefront): skewed stencils fuse statements at different offsets,
and atomic guards on each of them inside that loop kept it scalar; `separate`
splits it into guard-free pieces (heat-3d: a third fewer cycles, docs/passes/wavefront.md).
Only that one member is separated (the reproducer above and the stencil tests pass).

Statements run together are generated together (`statement_groups`): consecutive children
of a sequence that are leaves, whose statements have the same iteration domain, the same
loops and the same dates in every band above, are one call of the first of them, whose body
runs all their bodies in order (`t1 = alpha * A[i][k]; t2 = t1 * B[k][j]; C[i][j] += t2;`).
isl's AST generator separates and isolates per statement, and three-address code multiplies
the statements of a nest: 3AC gemm's register tiles cost isl more than 2,000,000 operations
as four statements and fit the budget as two. This is the thesis's clustering (ch. 3,
Algorithm 1) applied to AST generation; the AST runs the same instances in the same order.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.poly.annotations import performed_reductions
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK, WAVEFRONT_MARK, CodegenUnit, StatementBody
from clangpass.poly.packing import Footprint, Pack, PackIndices, graft_copies, pack_bodies
from clangpass.poly.scop import Scop, instances_of, statement_names
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK, maps_of

# isl names loop iterators c0, c1...; a parameter of that form would be shadowed.
_ISL_ITERATOR = re.compile(r"c\d+$")
_ITERATOR_PREFIX = "__pencil_c"
# The mark `tile` puts above a point band (clangpass.passes.tile.POINT_MARK; the AST contract
# in clangpass.poly.codegen_unit names it, and poly does not import passes).
_POINT_MARK = "point"


def generate_ast(scop: Scop, unordered_updates: frozenset[str], atomic: bool = True) -> CodegenUnit:
    """The isl AST of `scop.schedule` and the bodies its user nodes call. `unordered_updates`:
    the update statements of reductions whose carried dependences an annotation dropped
    (clangpass.poly.annotations.reduction_updates), which run in any order.

    `atomic=False` leaves the loop types to isl (the second try of pass `codegen` when
    the atomic AST does not run the schedule's domain, clangpass.poly.ast_soundness).
    """
    schedule = scop.schedule
    groups = statement_groups(scop, schedule, unordered_updates)
    generated = schedule
    followers = frozenset(name for members in groups.values() for name in members[1:])
    if followers:
        generated = schedule.intersect_domain(scop.domain.subtract(instances_of(scop.domain, followers)))
    # Packed panels (clangpass.poly.packing): not for statements generated as a group, whose
    # one call cannot carry the buffer indices of one member.
    grouped = frozenset(name for members in groups.values() if len(members) > 1 for name in members)
    packs = tuple(p for p in scop.packs if not set(p.statements) & grouped)

    def generated_ast(tree: isl.Schedule) -> tuple[isl.AstNode, dict[str, Footprint]]:
        if packs:
            return _build_packed(scop, tree, atomic, packs)
        return _build(scop, tree, atomic), {}

    try:
        ast, found = generated_ast(generated)
    except isl.Error:
        if not packs:
            raise
        # The tiles without the copies, which could not be made on this schedule or cost isl's
        # AST generator more than its budget (the copy loops multiply the pieces of small
        # tiles): the second try has the budget afresh (clangpass.poly.budget).
        packs = ()
        scop.context.get_ctx().reset_operations()
        ast, found = generated_ast(generated)
    if _misplaced_parallel_marks(ast):
        # isl split a marked band's loop around statements it runs at one band value after the
        # others: run those after the band, which is the same order, and the mark is above a loop.
        misplaced = _misplaced_mark_numbers(scop, generated, atomic)
        if misplaced is not None:
            move = functools.partial(_once_after_band, scop)
            schedule = _numbered_marks(schedule, PARALLEL_MARK, _keep_name, move, misplaced)
            generated = _numbered_marks(generated, PARALLEL_MARK, _keep_name, move, misplaced)
            ast, found = generated_ast(generated)
    if _misplaced_parallel_marks(ast):
        # isl removed a degenerate loop under a mark: drop those marks rather than break the contract.
        misplaced = _misplaced_mark_numbers(scop, generated, atomic)
        schedule = without_marks(schedule, PARALLEL_MARK, misplaced)
        generated = without_marks(generated, PARALLEL_MARK, misplaced)
        ast, found = generated_ast(generated)
    statements = {s.name: StatementBody(s.name, s.body, s.iterators) for s in scop.compute_statements}
    for leader, members in groups.items():
        statements[leader] = StatementBody(leader, N.Compound(tuple(scop.statement(m).body for m in members),
                                                              loc=scop.statement(leader).loc),
                                           scop.statement(leader).iterators)
    locals_ = scop.locals
    if packs:
        statements = pack_bodies(statements, packs, found,
                                 {b: f.elements.dim(isl.dim_type.in_) for b, f in found.items()})
        locals_ = locals_ + tuple(p.declaration() for p in packs if p.buffer in found)
    return CodegenUnit(region=scop.region, ast=ast, statements=statements, groups=groups, locals=locals_,
                       parallel_loops=_count_marks(ast, PARALLEL_MARK), wavefronts=_count_marks(ast, WAVEFRONT_MARK),
                       vector_loops=_count_marks(ast, VECTOR_MARK),
                       register_tiles=_count_marks(ast, REGISTER_TILE_MARK),
                       packs=tuple(p for p in packs if p.buffer in found),
                       reductions=performed_reductions(scop, schedule), unordered_updates=unordered_updates,
                       context=scop.context, shared_locals=shared_locals(scop))


def shared_locals(scop: Scop) -> frozenset[str]:
    """The region-local declarations the model treats as caller storage (`ArrayInfo.local` false:
    expand-scalars' arrays), which every thread of a team shares."""
    arrays = {a.name: a for a in scop.arrays}
    return frozenset(d.name for d in scop.locals if d.name in arrays and not arrays[d.name].local)


def format_ast(unit: CodegenUnit) -> str:
    """isl's C rendering of the AST (marks appear as `// name` comments), after a line for each
    statement group (`// S_1 runs S_1; S_2; S_3`)."""
    lines = [f"// {leader} runs {'; '.join(members)}" for leader, members in unit.groups.items()]
    return "\n".join([*lines, unit.ast.to_C_str().rstrip()])


def statement_groups(scop: Scop, schedule: isl.Schedule, unordered_updates: frozenset[str]) -> dict[str, tuple[str, ...]]:
    """{first: (first, second, ..)}: runs of consecutive leaf children of a sequence of
    `schedule` whose statements run as one (module docstring): same loops (iterator names),
    the same domain and the same dates in every band above, their names swapped. Statements
    of reductions are left alone (the back ends treat their updates by statement name)."""
    apart = unordered_updates | {n for r in scop.reductions for n in r.statements}
    everything = schedule.get_domain()                              # [P] -> { S[i..] }
    groups: dict[str, tuple[str, ...]] = {}

    def alone(node: isl.ScheduleNode) -> str | None:
        """The statement a filter child of a sequence runs, if it is a leaf of one statement
        with all its instances (a statement the tree splits over several leaves stays apart:
        its other leaves must still run it)."""
        if node.get_type() != isl.schedule_node_type.filter or node.n_children() != 1 \
                or node.child(0).get_type() != isl.schedule_node_type.leaf:
            return None
        reaching = node.child(0).get_domain()
        names = statement_names(reaching)
        if len(names) != 1 or next(iter(names)) in apart:
            return None
        name = next(iter(names))
        return name if reaching.is_equal(instances_of(everything, {name})) else None

    def dated(node: isl.ScheduleNode, as_name: str) -> tuple[isl.UnionSet, isl.UnionMap]:
        leaf = node.child(0)
        domain = leaf.get_domain()
        dates = leaf.get_prefix_schedule_union_map().intersect_domain(domain)
        return (isl.UnionSet.from_set(isl.Set.from_union_set(domain).set_tuple_name(as_name)),
                isl.UnionMap.from_map(isl.Map.from_union_map(dates).set_tuple_name(isl.dim_type.in_, as_name)))

    def renamed_domain(node: isl.ScheduleNode, as_name: str) -> isl.UnionSet:
        return isl.UnionSet.from_set(isl.Set.from_union_set(node.child(0).get_domain()).set_tuple_name(as_name))

    def same_dates(node: isl.ScheduleNode, name: str, first: str, first_node: isl.ScheduleNode) -> bool:
        """Whether statement `name` (under filter `node`) has the dates of `first` (under
        `first_node`, a sibling of `node`) on their common domain: the same expression in every
        band above their sequence, printed alike (the expressions of two statements written
        alike, even through tiles and skews: isl's prefix schedule of a leaf under a skewed tile
        band cost 12 ms, 0.3 s for 3AC nussinov's 25 statements), or else isl's prefix schedules equal."""
        if _same_band_expressions(node.parent(), name, first):
            return True
        return dated(node, first)[1].is_equal(dated(first_node, first)[1])

    # A recursive walk, not isl's foreach: an isl error (the budget) must reach the caller.
    def visit(node: isl.ScheduleNode) -> None:
        for k in range(node.n_children()):
            visit(node.child(k))
        if node.get_type() != isl.schedule_node_type.sequence:
            return
        run: list[str] = []
        first: tuple[isl.ScheduleNode, isl.UnionSet] | None = None
        for k in range(node.n_children() + 1):
            child = node.child(k) if k < node.n_children() else None
            name = alone(child) if child is not None else None
            if name is not None and run and first is not None \
                    and scop.statement(name).iterators == scop.statement(run[0]).iterators:
                if renamed_domain(child, run[0]).is_equal(first[1]) and same_dates(child, name, run[0], first[0]):
                    run.append(name)
                    continue
            if len(run) > 1:
                groups[run[0]] = tuple(run)
            run, first = ([name], (child, renamed_domain(child, name))) if name is not None else ([], None)

    visit(schedule.get_root())
    return groups


def _same_band_expressions(node: isl.ScheduleNode, name: str, other: str) -> bool:
    """Whether every band above `node` gives statements `name` and `other` the same expression,
    as isl prints it (`other`'s renamed `name`), and nothing above changes the statements'
    instances otherwise (an expansion, an extension: False)."""
    while node.has_parent():
        node = node.parent()
        kind = node.get_type()
        if kind == isl.schedule_node_type.band:
            partial = node.band_get_partial_schedule()               # [P] -> [{ S[i..] -> [(v)] }, ...]
            for k in range(partial.dim(isl.dim_type.set)):
                found: list[isl.PwAff] = []
                partial.get_union_pw_aff(k).foreach_pw_aff(found.append)
                pieces = {pa.get_tuple_id(isl.dim_type.in_).get_name(): pa for pa in found}
                mine, theirs = pieces.get(name), pieces.get(other)
                if mine is None or theirs is None or not theirs.set_tuple_id(
                        isl.dim_type.in_, mine.get_tuple_id(isl.dim_type.in_)).plain_is_equal(mine):
                    return False
        elif kind not in (isl.schedule_node_type.filter, isl.schedule_node_type.mark, isl.schedule_node_type.sequence,
                          isl.schedule_node_type.set, isl.schedule_node_type.domain, isl.schedule_node_type.context):
            return False
    return True


def _atomic_loops(schedule: isl.Schedule) -> isl.Schedule:
    """`schedule` with every band member's AST loop type set to atomic (see the module docstring)."""

    def atomic(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.band:
            separate = _innermost_wavefront_point_loop(node)
            for k in range(node.band_n_member()):
                if node.band_member_get_ast_loop_type(k) != isl.ast_loop_type.default:
                    continue     # chosen by a pass (register-tile's peeled reduction loop)
                kind = isl.ast_loop_type.separate if separate and k == node.band_n_member() - 1 \
                    else isl.ast_loop_type.atomic
                node = node.band_member_set_ast_loop_type(k, kind)
        return node

    return schedule.map_schedule_node_bottom_up(atomic)


def _innermost_wavefront_point_loop(band: isl.ScheduleNode) -> bool:
    """Whether `band` ends with the innermost point loop of a tile band run by wavefronts."""
    inner_bands = [0]

    def count(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.band:
            inner_bands[0] += 1
        return True

    band.child(0).foreach_descendant_top_down(count)
    if inner_bands[0]:
        return False
    marks: set[str] = set()
    node = band
    while node.has_parent():
        node = node.parent()
        if node.get_type() == isl.schedule_node_type.mark:
            marks.add(node.mark_get_id().get_name())
    return {_POINT_MARK, WAVEFRONT_MARK} <= marks


def _build_packed(scop: Scop, schedule: isl.Schedule, atomic: bool,
                  packs: tuple[Pack, ...]) -> tuple[isl.AstNode, dict[str, Footprint]]:
    """The AST of `schedule` with the copies of `packs` grafted before their register-tile
    marks and the buffer indices in the calls (clangpass.poly.packing), and each pack's
    footprint. Raises isl.Error when a copy cannot be made."""
    grafted, found = graft_copies(schedule, scop.reads, packs)
    indices = PackIndices(scop.reads, packs, found)
    ast = _build(scop, grafted, atomic, indices)
    if indices.errors:
        raise isl.Error(f"packed panels: {indices.errors[0]}")
    return ast, found


def _build(scop: Scop, schedule: isl.Schedule, atomic: bool = True,
           at_each_domain: Optional[Callable[[isl.AstNode, isl.AstBuild], isl.AstNode]] = None) -> isl.AstNode:
    if atomic:
        schedule = _atomic_loops(schedule)
    build = isl.AstBuild.from_context(scop.context)           # [P] -> { : context }
    handle = None
    if at_each_domain is not None:
        build, handle = build.set_at_each_domain(at_each_domain)
    if any(_ISL_ITERATOR.match(p) for p in scop.params):
        depth = max((len(s.iterators) for s in scop.statements), default=0)
        names = isl.IdList.alloc(scop.context.get_ctx(), 0)
        for k in range(4 * depth + 8):   # tiling doubles the depth; split bands add none
            names = names.add(isl.Id(f"{_ITERATOR_PREFIX}{k}", context=scop.context.get_ctx()))
        build = build.set_iterators(names)
    ast = build.node_from_schedule(schedule)
    del handle      # the callback lives until the AST is built
    return ast


def _ast_nodes(ast: isl.AstNode) -> list[isl.AstNode]:
    """Every AST node under `ast`, pre-order."""
    out: list[isl.AstNode] = []

    def visit(node: isl.AstNode) -> bool:
        out.append(node.copy())   # the callback's node is only borrowed
        return True

    ast.foreach_descendant_top_down(visit)
    return out


def _count_marks(ast: isl.AstNode, name: str) -> int:
    return sum(1 for n in _ast_nodes(ast)
               if n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == name)


def _misplaced_parallel_marks(ast: isl.AstNode) -> bool:
    return any(n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == PARALLEL_MARK
               and n.mark_get_node().get_type() != isl.ast_node_type.for_ for n in _ast_nodes(ast))


def _numbered_marks(schedule: isl.Schedule, name: str, rename: Callable[[int], Optional[str]],
                    change: Optional[Callable[[isl.ScheduleNode], isl.ScheduleNode]] = None,
                    changed: frozenset[int] = frozenset()) -> isl.Schedule:
    """`schedule` with its `name` marks, numbered 0, 1... in a bottom-up walk, renamed to
    `rename(number)`, or deleted where that is None; those numbered in `changed` are first
    replaced by `change(mark)` (a node at the mark's place)."""
    count = [0]

    def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == name:
            number = count[0]
            count[0] += 1
            if change is not None and number in changed:
                return change(node)
            new = rename(number)
            if new is None:
                return node.delete()
            if new != name:
                return node.delete().insert_mark(isl.Id(new, context=node.get_ctx()))
        return node

    return schedule.map_schedule_node_bottom_up(visit)


def _keep_name(number: int) -> str:
    return PARALLEL_MARK


def _once_after_band(scop: Scop, mark: isl.ScheduleNode) -> isl.ScheduleNode:
    """The `parallel` `mark` above a band whose child is a sequence, with the trailing children of
    that sequence which the band runs at one value, no earlier than any other child's value,
    moved after the band (a sequence of the others under the mark, then those without it): the
    order of execution is the same. Not when they read region-local storage the others write
    (each thread of the loop has its own copy, never copied back: codegen_unit). As it is when
    that does not apply."""
    band = mark.child(0)
    if band.get_type() != isl.schedule_node_type.band or band.child(0).get_type() != isl.schedule_node_type.sequence:
        return mark
    sequence = band.child(0)
    partial = band.band_get_partial_schedule_union_map().intersect_domain(band.get_domain())  # { S[i..] -> [v..] }
    filters = [sequence.child(k).filter_get_filter() for k in range(sequence.n_children())]
    once = None
    for k in range(len(filters) - 1, 0, -1):
        trailing = _union_sets(filters[k:])
        values = partial.intersect_domain(trailing).range()            # [P] -> { [v..] }
        if values.is_empty() or not values.lex_lt_union_set(values).is_empty():
            break                                                       # not one value
        once = k
    if once is None:
        return mark
    others, moved = _union_sets(filters[:once]), _union_sets(filters[once:])
    if not partial.intersect_domain(others).range().lex_gt_union_set(partial.intersect_domain(moved).range()).is_empty():
        return mark                                                     # another child runs later
    local = frozenset(a.name for a in scop.arrays if a.local)
    written = {m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.writes.intersect_domain(others))}
    read = {m.get_tuple_name(isl.dim_type.out) for m in maps_of(scop.reads.intersect_domain(moved))}
    if written & read & local:
        return mark
    parts = isl.UnionSetList.alloc(mark.get_ctx(), 2).add(others).add(moved)
    split = mark.insert_sequence(parts)                                 # [others, once] above the mark's copies
    return split.child(1).child(0).delete().parent().parent()           # no mark above the `once` copy


def _union_sets(sets: list[isl.UnionSet]) -> isl.UnionSet:
    result = sets[0]
    for s in sets[1:]:
        result = result.union(s)
    return result


def _misplaced_mark_numbers(scop: Scop, schedule: isl.Schedule, atomic: bool) -> Optional[frozenset[int]]:
    """The numbers (as `_numbered_marks` counts) of the `parallel` marks of `schedule` that the AST
    puts above something else than a loop: isl dropped the loop of a single iteration under them,
    or split it around a statement the band runs once (PRE adi: `v[n-1][i] = 1.0` at band value
    `n`, after the loop over the others); None (all of them) when that is not found out. A
    coincident band's loop over part of its iterations is as parallel as the whole: the marks
    above the other bands stay."""
    numbered = _numbered_marks(schedule, PARALLEL_MARK, lambda k: f"{PARALLEL_MARK}.{k}")
    found: set[int] = set()
    for n in _ast_nodes(_build(scop, numbered, atomic)):
        if n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name().startswith(PARALLEL_MARK + "."):
            if n.mark_get_node().get_type() != isl.ast_node_type.for_:
                found.add(int(n.mark_get_id().get_name().rsplit(".", 1)[1]))
    return frozenset(found) if found else None


def without_marks(schedule: isl.Schedule, name: str, numbers: Optional[frozenset[int]] = None) -> isl.Schedule:
    """`schedule` without its `name` marks (only those numbered `numbers` as `_numbered_marks` counts)."""
    return _numbered_marks(schedule, name, lambda k: None if numbers is None or k in numbers else name)
