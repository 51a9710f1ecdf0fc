# SPDX-License-Identifier: MIT
"""Tile sizes from the machine's caches and the band's accesses.

Input: a permutable band about to be tiled, the Scop's access relations and
arrays, and the data-cache sizes (`cache_sizes`: from the option, else from
sysfs). Output: one size per band member.

Model (Coleman & McKinley, "Tile size selection using cache organization and data
layout", PLDI 1995; Sarkar & Megiddo, "An analytical model for loop tiling and
its solution", ISPASS 2000, in its simplest form): the footprint of a tile is,
for each distinct access (array, members along which it moves), the product of
the tile sizes of the members it moves along (`clangpass.poly.strides`: an
access invariant along a member reuses one element across that member's
iterations), times the element size. The member that `point-loop-order` will put
innermost (`preferred_innermost`) gets a tile `LONG_FACTOR` times longer than the
others: long unit-stride rows amortise the vector loop's prologue and remainder
and the hardware prefetcher's start; the others get the largest size from
`SQUARE_SIZES` whose footprint fits in half of the L2 cache (the other half for
the outer tiles' reuse and the arrays the model does not see, such as the
conflict misses of power-of-two rows).

Bands with no coincident member (time-iterated stencils that `wavefront` turns
into wavefronts of tiles) keep `DEFAULT_SIZE` in every member when such a tile's
bounding box (`skewed_footprint`) fits the budget: their parallelism is the number
of tiles on a wavefront, which a larger tile would cut. When it does not (heat-3d's
32^4 tiles span some 94^3 elements of each array), `time_band_sizes` leaves the
band's innermost member whole (`WHOLE`: one tile across the row, so that the vector
loop runs full rows, which a skewed tile boundary would cut in two) and gives the
other members the sizes from `TIME_SIZES` whose box, with the row counted as
`LONGEST` elements, fits the budget and reuses the most: the most iterations per
byte of the box (not for bands whose statements access region-local storage, whose
tiled schedule `verify-schedule` cannot check within its budget). So do bands
whose preferred innermost loop is a reduction (syrk's `k`: not coincident, so
not vectorised without -ffast-math): there a long innermost tile measured slower
(syrk, M=1000 N=1200, one thread: 0.32 s with 32, 0.38 s with 64, 0.52 s with
(64, 64, 256) tiles), unless `register-tile` will turn the band into register tiles
(`register_tiled`: syrk's and syr2k's `C[i][j] += ... A[j][k] ...`): their point tiles
then run the micro-kernel over packed panels (pass `pack-panels`), whose copies are made
once per tile and whose register tiles reload and store their accumulators once per
reduction tile, so such a band gets the largest square size of `SQUARE_SIZES` whose
footprint fits the budget, with no long member (the vector loop of a register tile is
its fixed column block, not a tile member). syr2k LARGE, one thread, kernel CPU time,
minimum of 5 interleaved runs: 32^3 tiles 0.115 s, 64^3 0.088 s, 128^3 0.080 s
(docs/passes/tile.md).
"""
from __future__ import annotations

import functools
import itertools
import math
from pathlib import Path
from typing import Optional

import islpy as isl

from clangpass.poly.scop import Scop
from clangpass.poly.strides import Stride, displacement_table, member_costs, preferred_innermost, stride_table

DEFAULT_SIZE = 32
SQUARE_SIZES = (128, 64, 32, 16, 8)
LONG_FACTOR = 4
LONGEST = 256
# Sizes tried for the members of a time-iterated band other than its innermost one.
TIME_SIZES = (32, 16, 8, 4, 2)
# The tile size of a member left whole: larger than any row a time-iterated band walks, so
# one tile spans it (the tile loop runs once; the record shows this size).
WHOLE = 1 << 16
# L1, L2, L3 data caches when sysfs says nothing (a common x86 server core).
FALLBACK_CACHES = (32 * 1024, 1024 * 1024, 32 * 1024 * 1024)
_SYSFS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")


@functools.lru_cache(maxsize=1)
def host_cache_sizes() -> tuple[int, ...]:
    """Data (or unified) cache sizes of cpu0 in bytes, L1 first; FALLBACK_CACHES if unreadable."""
    by_level: dict[int, int] = {}
    try:
        for index in sorted(_SYSFS_CACHES.glob("index*")):
            if (index / "type").read_text().strip() not in ("Data", "Unified"):
                continue
            level = int((index / "level").read_text())
            by_level[level] = parse_size((index / "size").read_text().strip())
    except (OSError, ValueError):
        return FALLBACK_CACHES
    return tuple(by_level[k] for k in sorted(by_level)) or FALLBACK_CACHES


def parse_size(text: str) -> int:
    """`32K`, `1M`, `1024` (bytes) as a number of bytes; ValueError otherwise."""
    units = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
    text = text.strip().upper().removesuffix("B")
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def band_tile_sizes(band: isl.ScheduleNode, scop: Scop, caches: tuple[int, ...],
                    register_tiled: bool = False) -> list[int]:
    """One tile size per member of the permutable `band` (see the module docstring);
    `register_tiled`: pass `register-tile` will make register tiles of its point band."""
    n = band.band_n_member()
    if not any(band.band_member_get_coincident(m) for m in range(n)):
        return time_band_sizes(band, scop, caches)
    accesses = scop.reads.union(scop.writes)                  # [P] -> { S[i..] -> A[a..] }
    along = stride_table(band, accesses)                    # along[m][k]: access k along member m
    inner = preferred_innermost(member_costs(band, along))
    long_member: Optional[int] = inner
    if not band.band_member_get_coincident(inner):
        if not register_tiled:
            return [DEFAULT_SIZE] * n
        long_member = None
    moving = _moving_members(band, accesses, along, scop)     # (array, element bytes, members it moves along)
    budget = tile_budget(caches)
    for square in SQUARE_SIZES:
        sizes = [min(LONGEST, LONG_FACTOR * square) if m == long_member else square for m in range(n)]
        if footprint(sizes, moving) <= budget:
            return sizes
    return [SQUARE_SIZES[-1]] * n


def time_band_sizes(band: isl.ScheduleNode, scop: Scop, caches: tuple[int, ...]) -> list[int]:
    """Tile sizes of a band with no coincident member (see the module docstring): `DEFAULT_SIZE`
    in every member when that tile's box fits `tile_budget`, or when the box is unknown; else
    the innermost member `WHOLE` and the others from `TIME_SIZES`, the shape that fits with the
    most iterations per byte of its box (ties: the larger tile, then the larger inner members);
    `DEFAULT_SIZE` everywhere when no shape fits or the band's statements access region-local
    storage (`_touches_local_storage`); `tile` then leaves the band untiled."""
    n = band.band_n_member()
    square = [DEFAULT_SIZE] * n
    if _touches_local_storage(band, scop):
        return square
    table = _skew_table(band, scop)
    budget = tile_budget(caches)
    touched = None if table is None else _box_bytes(table, scop, square)
    if touched is None or touched <= budget:
        return square
    inner = preferred_innermost(member_costs(band, stride_table(band, scop.reads.union(scop.writes))))
    best: Optional[tuple[tuple, list[int]]] = None
    for shape in itertools.product(TIME_SIZES, repeat=n - 1):
        sizes = list(shape)
        sizes.insert(inner, LONGEST)
        touched = _box_bytes(table, scop, sizes)
        if touched > budget:
            continue
        volume = math.prod(sizes)
        key = (volume / touched, volume, tuple(reversed(sizes)))
        if best is None or key > best[0]:
            best = (key, sizes)
    if best is None:
        return square
    sizes = best[1]
    sizes[inner] = WHOLE
    return sizes


def _touches_local_storage(band: isl.ScheduleNode, scop: Scop) -> bool:
    """Whether the band's statements access region-local storage (three-address temporaries).
    `verify-schedule` checks a skewed tiling of such a band against the live ranges of that
    storage, which exceeds its isl budget (3AC heat-3d: 20 statements, 1.9 s, then the
    original schedule without threads); the source order with its parallel space loops,
    which `tile` leaves them when their square tile does not fit, verifies."""
    accesses = scop.reads.union(scop.writes).intersect_domain(band.get_domain())
    names = {accesses.get_map_list().get_at(k).get_tuple_name(isl.dim_type.out)
             for k in range(accesses.get_map_list().n_map())}
    for name in names:
        try:
            if scop.array(name).local:
                return True
        except KeyError:
            continue
    return False


def skewed_footprint(band: isl.ScheduleNode, scop: Scop, sizes: list[int]) -> Optional[int]:
    """Bytes one tile of `sizes` of `band` touches, as the bounding box of the elements of each
    array: along each array dimension, the elements a tile spans are one plus the sum over
    members of (size - 1) times the displacement one step of the member makes along that
    dimension (`clangpass.poly.strides.displacement_table`). Unlike `footprint`, a member
    along which an access stays (time, for a stencil) does not multiply the footprint, and a
    skewed member (time in `(t, 2t + i)`) widens it. A member of `WHOLE` size counts as
    `LONGEST` (the extent of the row it spans is not known). None when a displacement is not
    constant."""
    table = _skew_table(band, scop)
    return None if table is None else _box_bytes(table, scop, sizes)


def _skew_table(band: isl.ScheduleNode, scop: Scop) -> Optional[list[tuple[str, list[tuple[int, ...]]]]]:
    """`displacement_table` of the band's accesses; None when a displacement is not constant."""
    table = displacement_table(band, scop.reads.union(scop.writes))
    if any(move is None for _, moves in table for move in moves):
        return None
    return table


def _box_bytes(table: list[tuple[str, list[tuple[int, ...]]]], scop: Scop, sizes: list[int]) -> int:
    """Bytes of the per-array bounding boxes one tile of `sizes` spans (`skewed_footprint`)."""
    sizes = [min(size, LONGEST) if size >= WHOLE else size for size in sizes]
    spans: dict[str, list[int]] = {}
    for array, moves in table:
        rank = max((len(move) for move in moves), default=0)
        span = [1 + sum(abs(move[d]) * (size - 1) for move, size in zip(moves, sizes) if move)
                for d in range(rank)]
        widest = spans.setdefault(array, span)
        spans[array] = [max(a, b) for a, b in zip(widest, span)] if len(widest) == len(span) else widest
    return sum(math.prod(span) * _element_bytes(scop, array) for array, span in spans.items())


def tile_budget(caches: tuple[int, ...]) -> int:
    """Bytes a tile may touch: half of the L2 cache (the L1 cache when there is no L2)."""
    return (caches[1] if len(caches) > 1 else caches[0]) // 2


def footprint(sizes: list[int], moving: set[tuple[str, int, frozenset[int]]]) -> int:
    """Bytes one tile of `sizes` touches: per distinct access, the product of the sizes it moves along."""
    total = 0
    for _, element_bytes, members in moving:
        elements = 1
        for m in members:
            elements *= sizes[m]
        total += elements * element_bytes
    return total


def _moving_members(band: isl.ScheduleNode, accesses: isl.UnionMap, along: list[list[Stride]],
                    scop: Scop) -> set[tuple[str, int, frozenset[int]]]:
    """For each access of the band's statements: its array, element size and the members it moves along."""
    pieces: list[str] = []                                    # array of each basic map, in strides' order
    maps = accesses.intersect_domain(band.get_domain()).get_map_list()
    for k in range(maps.n_map()):
        access = maps.get_at(k)                               # [P] -> { S[i..] -> A[a..] }
        pieces += [access.get_tuple_name(isl.dim_type.out)] * access.get_basic_map_list().n_basic_map()
    moving: set[tuple[str, int, frozenset[int]]] = set()
    for k, array in enumerate(pieces):
        members = frozenset(m for m in range(band.band_n_member()) if along[m][k] is not Stride.INVARIANT)
        moving.add((array, _element_bytes(scop, array), members))
    return moving


def _element_bytes(scop: Scop, array: str) -> int:
    try:
        bits = getattr(scop.array(array).element, "bits", 64)
    except KeyError:
        bits = 64
    return max(1, bits // 8)
