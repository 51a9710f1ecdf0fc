# SPDX-License-Identifier: MIT
"""Pass `reverse-loops`: run every loop that carries no dependence backwards.

Input: a Scop with a schedule tree (after the `schedule` pass) and its dependences.
Output: the same schedule with each band member negated (`i` -> `-i`: the loop runs from
its last iteration to its first) when every dependence between statements of the band
that the band's ancestors do not already order has distance 0 along that member. Such a
member orders no dependence, so any order of its iterations keeps every dependence
where it was; the band's permutable and coincident flags stay true for the same reason.
The record (`ReverseLoopsRecord`) counts the loops reversed.

It is a sample of a pass living outside pencilcc: found through the entry point
`reverse-loops` of the group `pencilcc.passes` (pyproject.toml), or imported with
`-fpencil-pass-plugin=pencilcc_sample_pass`, which registers it (`register`) and puts it
after `schedule` in the target's pipeline (`after`). Useless for speed; useful to see
that a legal reordering leaves a program's output alone.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import islpy as isl

from clangpass.passes.registry import Pass, PassContext, PassRecord, register
from clangpass.passes.unit import PolyUnit


@dataclass(frozen=True)
class ReverseLoopsRecord(PassRecord):
    """The loops (band members) `reverse-loops` runs backwards."""

    reversed_loops: int = 0


@register
class ReverseLoops(Pass):
    """Run the loops that carry no dependence backwards (a sample plugin pass)."""

    name = "reverse-loops"
    requires = frozenset({"schedule", "dependences"})
    record = ReverseLoopsRecord
    dump_stage = "schedule"
    after = "schedule"

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        scop = unit.scop
        dependences = unit.dependences.all      # [P] -> { S[i..] -> T[j..] }
        count = [0]

        def visit(node: isl.ScheduleNode) -> isl.ScheduleNode:
            if node.get_type() == isl.schedule_node_type.band:
                node = _reverse_free_members(node, dependences, count)
            for k in range(node.n_children()):
                node = visit(node.child(k)).parent()
            return node

        schedule = visit(scop.schedule.get_root()).get_schedule()
        if not count[0]:
            return unit
        return replace(unit, scop=scop.with_schedule(schedule)).with_record(ReverseLoopsRecord(count[0]))


def _reverse_free_members(band: isl.ScheduleNode, dependences: isl.UnionMap, count: list[int]) -> isl.ScheduleNode:
    """`band` with its members along which no dependence it must order has a non-zero distance negated."""
    domain = band.get_domain()                                    # { S[i..] } under the band
    deps = dependences.intersect_domain(domain).intersect_range(domain)
    prefix = band.get_prefix_schedule_union_map()                 # { S[i..] -> [outer] }
    unordered = deps.intersect(prefix.apply_range(prefix.reverse()))   # not ordered by the ancestors
    partial = band.band_get_partial_schedule()                    # [P] -> { S[i..] -> [m0, ..., mk] }
    flipped = partial
    free = []
    for k in range(band.band_n_member()):
        member = partial.get_union_pw_aff(k)                      # { S[i..] -> [mk] }
        as_map = isl.UnionMap.from_union_pw_aff(member)
        if unordered.is_subset(as_map.apply_range(as_map.reverse())):
            flipped = flipped.set_union_pw_aff(k, member.neg())
            free.append(k)
    if not free:
        return band
    permutable = band.band_get_permutable()
    coincident = [band.band_member_get_coincident(k) for k in range(band.band_n_member())]
    band = band.delete().insert_partial_schedule(flipped).band_set_permutable(permutable)
    for k, flag in enumerate(coincident):
        band = band.band_member_set_coincident(k, flag)
    count[0] += len(free)
    return band
