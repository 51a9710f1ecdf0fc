# SPDX-License-Identifier: MIT
"""Pass `wavefront`: run the tiles of a tiled, fully sequential permutable band by wavefronts.

Input: Scop after `tile`, whose tile bands (below a `tile` mark) are permutable.
Output: each tile band with at least two members, no coincident member and a
dependence carried by its outermost member (the shape of a skewed time-iterated
stencil) rewritten by the map (T0, T1, T2..) -> (T0 + T1, T1, T2..) of the tile
indices (unimodular; on the tile origins, multiples of the tile sizes s0 and s1,
it reads s1*T0 + s0*T1), the first member split off as a band of its own under a
`wavefront` mark. That band enumerates wavefronts of tiles and stays sequential; the second is coincident: two tiles of one wavefront
differ in T1 by a non-zero amount, and since every dependence has non-negative
distances (d0, d1, ..) along a permutable band, d0 + d1 = 0 forces d1 = 0.
`mark-parallel` then marks the T1 tile loop inside the sequential wavefront loop
(pipelined / wavefront parallelism of tiled iteration spaces: Bondhugula et al.,
Pluto, PLDI 2008, section 5.2; Lamport, "The parallel execution of DO loops",
CACM 1974, for the hyperplane). The rewritten band is still permutable (its
distances (d0 + d1, d1, ..) stay non-negative); only T1 is flagged coincident
(a one-degree wavefront: T2.. still carry dependences between tiles of one
wavefront). Bands whose tiles hold fewer than MIN_TILE_INSTANCES statement instances are
left alone (a barrier per wavefront costs more than such tiles' work): a tile's work is its
points (the product of the tile sizes) times the work under one point, bounded from the domain
(the trip counts of the loops below the band, such as nussinov's k loop; unbounded when a
trip count grows with the parameters).
The transformed schedule is checked with
clangpass.poly.validity, and its AST generated once under half the isl budget,
before it is kept (otherwise the tiled band stays as it was, with a note).
Knob: --disable-pass=wavefront; it does nothing when `parallel` is off.
"""
from __future__ import annotations

import math
from dataclasses import replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, register
from clangpass.passes.tile import TILE_MARK
from clangpass.passes.unit import PolyUnit
from clangpass.poly.budget import BudgetExceeded, isl_budget, isl_error_reason
from clangpass.poly.annotations import reduction_updates
from clangpass.poly.codegen import generate_ast
from clangpass.poly.codegen_unit import WAVEFRONT_MARK
from clangpass.poly.dependences import relaxed_order
from clangpass.poly.validity import carries_dependence, dependence_violations


MIN_TILE_INSTANCES = 32768
"""The fewest statement instances (`_tile_work`: the points of a full tile, product of the tile
sizes, times the instances under one point) a tile must hold for its band to run by
wavefronts: every wavefront ends in a barrier, which costs a scheduler time slice whenever the
other thread is descheduled. On the loaded 2-vCPU machine, jacobi-1d (T=500, N=100,000) with
2 threads took 31 s against 0.57 s on one with 32 x 32 tiles (1,024 points, 3,000 wavefronts),
and 1.2 s against 0.08 s with 128 x 128 tiles (16,384 points, 800 wavefronts); 32 x 32 x 32
tiles (jacobi-2d, heat-3d: 32,768 points, and a row of tiles per parallel iteration) pay.
nussinov's 32 x 32 tiles hold 1,024 points but a k loop of up to n - 2 iterations under each:
its work per tile grows with n while its number of wavefronts grows only as n / 32."""


@register
class Wavefront(Pass):
    """Skew the outer tile loop of sequential tiled bands into a wavefront loop; T1 becomes coincident."""

    name = "wavefront"
    rewrites_schedule = True
    requires = frozenset({"schedule", "dependences"})
    dump_stage = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        if not ctx.options.parallel:
            return unit
        scop = unit.scop
        # [P] -> { S[i..] -> T[j..] }: the dependences the schedule must respect (after
        # relax-false-deps, the enforced ones; verify-schedule checks the relaxed criterion,
        # live ranges included, on the final schedule).
        full = unit.relaxed.enforced if unit.relaxed is not None else unit.dependences.all
        # The updates of exact reductions need no order (the bands were scheduled so), but the
        # wavefront's parallel tile loop may not carry two updates of one element.
        deps = relaxed_order(full, unit.dependences)
        changed = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            """Rewrite under `node`; returns the node now at `node`'s position."""
            if _is_tile_mark(node) and _wants_wavefront(node.child(0), deps):
                if _tile_work(node.child(0)) < MIN_TILE_INSTANCES:
                    return node
                skewed = _skew(node.child(0))
                if carries_dependence(skewed.child(0).child(0), full, 0):
                    return node                    # T1 would carry two updates of one element
                changed[0] += 1
                return skewed.parent()
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        try:
            with isl_budget(ctx.isl_ctx, ctx.options.isl_max_operations, "wavefront"):
                schedule = visit(scop.schedule.get_root()).get_schedule()
                problems = dependence_violations(schedule, deps) if changed[0] else []
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no wavefront")
        if not changed[0]:
            return unit
        if problems:
            # Cannot happen for a permutable band; if it does, a bug costs speed, not results.
            return unit.with_note(f"wavefront skipped, it would break {problems[0]}")
        skewed = scop.with_schedule(schedule)
        # The skew adds the tile origins' floor terms of two members into one loop bound, which
        # can make isl's AST generator explode where the tiled band alone did not (random
        # program seed 7027: over the whole budget after 25 s of CPU, and the region lost every
        # transformation). A trial under half the budget keeps the tiled band instead (seed
        # 7027: 9 s of CPU); the stencils fit (heat-3d, the largest, in 0.5 s; jacobi-2d and
        # fdtd-2d under a quarter of the budget).
        trial_budget = ctx.options.isl_max_operations // 2
        try:
            with isl_budget(ctx.isl_ctx, trial_budget, "AST generation of the wavefront"):
                generate_ast(skewed, reduction_updates(unit.dependences.reductions))
        except BudgetExceeded as exc:
            return unit.with_note(f"{exc}: no wavefront")
        except isl.Error as exc:
            return unit.with_note(f"AST generation of the wavefront failed ({isl_error_reason(exc)}): no wavefront")
        return replace(unit, scop=skewed)


def _is_tile_mark(node: isl.ScheduleNode) -> bool:
    return node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == TILE_MARK


def _wants_wavefront(band: isl.ScheduleNode, deps: isl.UnionMap) -> bool:
    """A permutable band of >= 2 members, none coincident, whose outermost member carries a dependence."""
    if (band.get_type() != isl.schedule_node_type.band or band.band_n_member() < 2
            or not band.band_get_permutable()):
        return False
    if any(band.band_member_get_coincident(k) for k in range(band.band_n_member())):
        return False   # mark-parallel already finds a parallel loop here
    return _outer_member_carries(band, deps)


def _outer_member_carries(band: isl.ScheduleNode, deps: isl.UnionMap) -> bool:
    """Whether some dependence between instances of `band` with equal outer dates crosses its first member."""
    instances = band.get_domain()                              # [P] -> { S[i..] } reaching the band
    prefix = band.get_prefix_schedule_union_map()              # [P] -> { S[i..] -> [outer dates] }
    same_outer = prefix.apply_range(prefix.reverse())          # [P] -> { S[i..] -> T[j..] : equal outer dates }
    local = deps.intersect_domain(instances).intersect_range(instances).intersect(same_outer)
    if local.is_empty():
        return False
    first = isl.UnionMap.from_union_pw_aff(
        band.band_get_partial_schedule().get_union_pw_aff(0))   # [P] -> { S[i..] -> [T0] }
    crossing = local.apply_domain(first).apply_range(first)    # [P] -> { [T0] -> [T0'] }
    return not crossing.intersect(isl.UnionMap.from_map(
        isl.Map.lex_lt(_range_space(crossing)))).is_empty()


def _range_space(umap: isl.UnionMap) -> isl.Space:
    spaces: list[isl.Space] = []
    umap.foreach_map(lambda m: spaces.append(m.get_space().range()))
    return spaces[0]


def _skew(band: isl.ScheduleNode) -> isl.ScheduleNode:
    """Replace `band` by (T0 + T1, T1, ..) under a `wavefront` mark; returns the mark node."""
    partial = band.band_get_partial_schedule()                 # [P] -> [{ S[i..] -> [(T0)] }, ...]
    n = band.band_n_member()
    # The members are tile origins, multiples of the tile sizes s0 and s1: s1*T0 + s0*T1 is
    # s0*s1 times the sum of the tile indices, the hyperplane of one wavefront whatever the sizes.
    s0, s1 = _stride(band, partial, 0), _stride(band, partial, 1)
    common = math.gcd(s0, s1)
    ctx = band.get_ctx()
    front = (partial.get_union_pw_aff(0).scale_val(isl.Val.int_from_si(ctx, s1 // common))
             .add(partial.get_union_pw_aff(1).scale_val(isl.Val.int_from_si(ctx, s0 // common))))
    skewed = partial.set_union_pw_aff(0, front)
    ast_types = [band.band_member_get_ast_loop_type(k) for k in range(n)]
    node = band.delete().insert_partial_schedule(skewed)
    node = node.band_set_permutable(1)
    # Coincident: T1 (see the module docstring). T2.. are not: tiles of one wavefront with the
    # same T1 still depend on each other along T2.
    node = node.band_member_set_coincident(1, 1)
    for k, kind in enumerate(ast_types):
        node = node.band_member_set_ast_loop_type(k, kind)
    # The wavefront loop as a band of its own, as mark-parallel would split it anyway: the trial
    # AST generation in `run` must see the tree that codegen will (the split tree is the costly
    # one: random program seed 7027).
    node = node.band_split(1)
    return node.insert_mark(isl.Id(WAVEFRONT_MARK, context=node.get_ctx()))


def _tile_work(band: isl.ScheduleNode) -> float:
    """The statement instances of one full tile of `band`: its points (the product of its
    members' tile sizes) times `_work_per_point`; math.inf when that grows with the parameters."""
    partial = band.band_get_partial_schedule()                 # [P] -> [{ S[i..] -> [(T0)] }, ...]
    points = math.prod(_stride(band, partial, k) for k in range(band.band_n_member()))
    return points * _work_per_point(band)


def _work_per_point(band: isl.ScheduleNode) -> float:
    """The most instances of one statement that share one point of tile band `band`: the product,
    over the statement's dimensions, of one plus the largest distance between two instances
    with the same dates down to the point band (an upper bound of the trip counts of the loops
    below the point loops; 1 for a stencil whose band spans its domain). math.inf when a trip
    count is not bounded by a constant (grows with the parameters: nussinov's k loop)."""
    below = band.child(0)                                      # the point mark, or the point band
    if below.get_type() == isl.schedule_node_type.mark:
        below = below.child(0)
    if below.get_type() != isl.schedule_node_type.band:
        return 1
    dates = below.child(0).get_prefix_schedule_union_map()     # [P] -> { S[i..] -> [tile, point dates] }
    dates = dates.intersect_domain(below.get_domain())
    most: list[float] = [1]

    def statement(date: isl.Map) -> None:                     # [P] -> { S[i..] -> [dates] }
        spread = date.apply_range(date.reverse()).deltas()     # [P] -> { [i' - i..] : same dates }
        count: float = 1
        for d in range(spread.dim(isl.dim_type.set)):
            largest = spread.dim_max_val(d)                    # over every parameter value
            if largest.is_infty():
                count = math.inf
                break
            count *= int(largest.to_python()) + 1
        most[0] = max(most[0], count)

    dates.foreach_map(statement)
    return most[0]


def _stride(band: isl.ScheduleNode, partial: isl.MultiUnionPwAff, member: int) -> int:
    """The step between the values member `member` takes on the band's instances (its tile size)."""
    date = isl.UnionMap.from_union_pw_aff(partial.get_union_pw_aff(member))   # [P] -> { S[i..] -> [T] }
    values = date.intersect_domain(band.get_domain()).range()               # [P] -> { [T] }
    sets: list[isl.Set] = []
    values.foreach_set(sets.append)
    stride = sets[0].get_stride(0) if len(sets) == 1 else None
    if stride is None or not stride.is_int() or stride.is_zero():
        return 1
    return max(1, abs(int(stride.to_python())))
