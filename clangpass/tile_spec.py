# SPDX-License-Identifier: MIT
"""Tile sizes given per region and band: `-fpencil-tile-sizes=` and the tuning cache.

Syntax of one rule (PPCG's `--sizes` idea, in gcc's flag style):

    SIZES                 every band of every region, e.g. `32,64`
    REGION=SIZES          every band of the regions REGION names
    REGION:BAND=SIZES     band BAND (0, 1, ...) of those regions

A rule may start with `direct:` (`direct:REGION:BAND=SIZES`, `direct:SIZES`, ...): it names
the work-group of a tiled OpenCL kernel's direct variant (the kernel a device whose local
memory is global memory runs, llvm_backend.opencl.work_groups), not the tiled kernel's; the
bands without a direct variant, and the CPU target's, ignore it.

REGION is a function name (every region of the function) or a region label as the record
and the remarks spell it (`fn` for a PENCIL function's body, `fn#1` for its second
`#pragma scop` block). SIZES are positive integers, outermost loop of the band first; a band
with more loops than sizes takes the default for its inner loops. Several rules: repeat the
flag, separate them with `;`, or write `@FILE`, a file of rules one a line (a `#` that begins
a line or follows a blank starts a comment). Where several rules name a band, the most
specific one wins (label over function name over every region; a band number over every
band), and among equally specific ones the last.

Bands: on the CPU target, the permutable bands of two loops or more that pass `tile`
considers, in the schedule tree's depth-first order; on the OpenCL target, the region's
kernels over parallel loops in the order of the code (reduction kernels excepted: their
work-group is fixed), whose sizes are the work-group's (outer loop first), and for a
two-dimensional kernel two more, its points per work-item (llvm_backend.opencl.work_groups).

Sizes that do not fit a band (more numbers than loops, a zero) are not used: the band keeps
its default and a `-Wpencil-tile-sizes` warning says why (`fit`).

Where sizes come from (the record's `tile_sizes_from`): `model` (the default: the cache model
of clangpass.poly.tile_sizes, or the OpenCL runtime's work-group choice), `flag`
(`-fpencil-tile-sizes=`, `--tile-size=`) or `tuned` (the choice `pencilcc-tune` cached for this
file, function, region and device: clangpass.tuning).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional, Sequence

MODEL, FLAG, TUNED = "model", "flag", "tuned"
#: The variant of a rule that names a tiled kernel's direct variant (`direct:` before the rule).
DIRECT = "direct"


class TileSpecError(ValueError):
    """A rule that does not parse; the message says why (without the flag's name)."""


@dataclass(frozen=True)
class TileSizeRule:
    """One rule: `sizes` for band `band` (-1: every band) of the regions `region` names ('':
    every region); `variant` DIRECT: for the band's direct variant only ('': the band itself)."""

    region: str
    band: int
    sizes: tuple[int, ...]
    variant: str = ""

    def matches(self, label: str, function: str, band: int, variant: str = "") -> bool:
        return (self.region in ("", label, function)) and self.band in (-1, band) and self.variant == variant

    def specificity(self, label: str) -> tuple[int, int]:
        return (2 if self.region == label and "#" in label else 1 if self.region else 0, self.band >= 0)

    def text(self) -> str:
        sizes = ",".join(map(str, self.sizes))
        where = self.region + (f":{self.band}" if self.band >= 0 else "")
        prefix = f"{self.variant}:" if self.variant else ""
        return f"{prefix}{where}={sizes}" if where else prefix + sizes


_RULE = re.compile(r"(?:(?P<region>[A-Za-z_]\w*(?:#\d+)?)(?::(?P<band>\d+))?=)?(?P<sizes>[^=]*)")


def parse_rule(text: str) -> TileSizeRule:
    """One rule (see the module docstring); TileSpecError when it does not parse."""
    text = text.strip()
    head, colon, rest = text.partition(":")
    try:
        return _parse_plain(text, "")
    except TileSpecError:
        # `direct:` before a rule (`direct:0=8,8` parses above: band 0 of a function `direct`).
        if not colon or head.strip() != DIRECT:
            raise
    return _parse_plain(rest.strip(), DIRECT)


def _parse_plain(text: str, variant: str) -> TileSizeRule:
    """A rule without its `direct:`, of `variant`."""
    m = _RULE.fullmatch(text)
    if m is None or not m["sizes"]:
        raise TileSpecError(f"'{text}' is not SIZES, REGION=SIZES or REGION:BAND=SIZES")
    sizes = []
    for part in m["sizes"].split(","):
        part = part.strip()
        if not part.isdigit():
            raise TileSpecError(f"'{part}' in '{text}' is not a size (a non-negative integer)")
        sizes.append(int(part))
    return TileSizeRule(m["region"] or "", int(m["band"]) if m["band"] is not None else -1, tuple(sizes),
                        variant)


def parse_rules(text: str, origin: str = "") -> tuple[TileSizeRule, ...]:
    """Rules separated by `;` or newlines, `#` comments and blank lines skipped; `origin`
    (`FILE:LINE: `) prefixes the message of a TileSpecError."""
    rules = []
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*$", "", line)        # a comment; `fn#1` is a label
        for piece in line.split(";"):
            if piece.strip():
                try:
                    rules.append(parse_rule(piece))
                except TileSpecError as exc:
                    raise TileSpecError(f"{origin}{number}: {exc}" if origin else str(exc)) from None
    return tuple(rules)


def lookup(rules: Sequence[TileSizeRule], label: str, function: str, band: int,
           variant: str = "") -> Optional[TileSizeRule]:
    """The rule for band `band` (its `variant`: '' or DIRECT) of the region `label` of
    `function`, or None."""
    best: Optional[TileSizeRule] = None
    for rule in rules:
        if rule.matches(label, function, band, variant) and (
                best is None or rule.specificity(label) >= best.specificity(label)):
            best = rule
    return best


def fit(sizes: Sequence[int], members: int, most: Optional[int] = None) -> Optional[str]:
    """Why `sizes` do not fit a band of `members` loops that takes at most `most` sizes (None:
    `members`; more: sizes beyond the loops', as the OpenCL target's points per work-item), or None."""
    most = members if most is None else most
    if len(sizes) > most:
        return f"{len(sizes)} sizes for a band of {members} loop{'s' if members != 1 else ''}" + \
            (f" (at most {most})" if most != members else "")
    if any(s <= 0 for s in sizes):
        return "a size of 0"
    return None


@dataclass(frozen=True)
class BandChoice:
    """The sizes of one band and where they came from; `problem`: why given sizes were not used."""

    sizes: tuple[int, ...]
    source: str
    problem: str = ""


def choose(flag_rules: Sequence[TileSizeRule], tuned_rules: Sequence[TileSizeRule], label: str, function: str,
           band: int, members: int, default: Sequence[int], variant: str = "") -> BandChoice:
    """The sizes of band `band` (`members` loops; `variant`: DIRECT for its direct variant's)
    of region `label` in `function`: the flag's rule,
    else the tuned one, else `default` (one size per member, or more: a band that takes sizes
    beyond its loops', `fit`); a rule's missing inner sizes come from `default`. A rule that does
    not `fit` gives `default` and says why."""
    for rules, source in ((flag_rules, FLAG), (tuned_rules, TUNED)):
        rule = lookup(rules, label, function, band, variant)
        if rule is None:
            continue
        problem = fit(rule.sizes, members, max(members, len(default)))
        if problem is not None:
            return BandChoice(tuple(default), MODEL,
                              f"tile sizes '{rule.text()}' not used for "
                              f"{'the direct variant of ' if variant else ''}band {band} of region '{label}': "
                              f"{problem}; the default sizes are used")
        return BandChoice(tuple(rule.sizes) + tuple(default[len(rule.sizes):]), source)
    return BandChoice(tuple(default), MODEL)


def summary(sources: Sequence[str]) -> str:
    """The record's `tile_sizes_from`: the one source of every band's sizes, 'mixed', or '' (no band)."""
    distinct = sorted(set(sources))
    return distinct[0] if len(distinct) == 1 else "mixed" if distinct else ""
