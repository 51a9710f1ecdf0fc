# SPDX-License-Identifier: MIT
"""Per-array checksums printed by a ``-DPENCILCC_BENCH`` kernel build, and their comparison.

Input: the standard output of a benchmark build.  Under ``PENCILCC_BENCH``
each kernel program prints, instead of every element, one section per output
array (the format of ``test_suite/e2e/harness.py``)::

    == C
    <element count>
    <sum of the elements>
    <sum of their absolute values>
    <sum of (k % 11 + 1) * x[k] over the flat index k>

with ``%.17g`` for ``double`` arrays and exact integers for ``int`` arrays.
Output: :class:`ArrayChecksum` values, and the list of differences between two
builds' checksums.  The same builds print the kernel call's seconds on stderr
(``pencilcc-bench-seconds: S``), which :func:`kernel_seconds` reads.  The weighted sum catches elements that moved; sums of
doubles are compared relative to the array's absolute sum (a plain relative
test would fail on a sum that cancels to nearly 0).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Union

from test_suite.e2e import harness

Number = Union[int, float]

#: Relative tolerance of :func:`compare` for ``double`` arrays: loose enough for
#: legal reassociation and FMA contraction on the benchmark sizes, tight enough
#: that a wrong element shows.
DEFAULT_RTOL = 1e-6
#: The line of stderr with the kernel call's seconds (``clock_gettime(CLOCK_MONOTONIC)`` around it).
TIMER_RE = re.compile(r"^pencilcc-bench-seconds: (\S+)$", re.MULTILINE)
#: The largest weight of the weighted sum (``k % 11 + 1``).
_MAX_WEIGHT = 11


@dataclass(frozen=True)
class ArrayChecksum:
    """The checksums of one output array."""

    name: str
    count: int
    total: Number
    absolute: Number
    weighted: Number


def parse(stdout: str) -> tuple[ArrayChecksum, ...]:
    """The checksums printed by a benchmark build; :class:`ValueError` if malformed."""
    checksums = []
    for name, values in harness.parse_values(stdout):
        if len(values) != 4 or not isinstance(values[0], int):
            raise ValueError(f"array {name}: expected count and three sums, got {values!r}")
        count, total, absolute, weighted = values
        checksums.append(ArrayChecksum(name, count, total, absolute, weighted))
    if not checksums:
        raise ValueError("no checksum printed (was the program built with -DPENCILCC_BENCH?)")
    return tuple(checksums)


def kernel_seconds(stderr: str) -> float:
    """The kernel call's seconds a benchmark build printed on stderr; :class:`ValueError` when it printed none."""
    match = TIMER_RE.search(stderr)
    if match is None:
        raise ValueError("no 'pencilcc-bench-seconds' line on stderr")
    return float(match.group(1))


def compare(reference: tuple[ArrayChecksum, ...], candidate: tuple[ArrayChecksum, ...],
            rtol: float = DEFAULT_RTOL) -> list[str]:
    """Differences between two builds' checksums, one message per array; empty if they agree."""
    ref_names = [c.name for c in reference]
    cand_names = [c.name for c in candidate]
    if ref_names != cand_names:
        return [f"arrays differ: {ref_names} vs {cand_names}"]
    problems = []
    for ref, cand in zip(reference, candidate):
        if ref.count != cand.count:
            problems.append(f"{ref.name}: {cand.count} elements, reference {ref.count}")
            continue
        # int arrays print exact integer sums; a double array whose sums all
        # happen to be integral is compared exactly too, which is still right
        # below 2**53.
        exact = all(isinstance(v, int) for c in (ref, cand) for v in (c.total, c.absolute, c.weighted))
        scale = max(_magnitude(ref.absolute), _magnitude(cand.absolute))
        differences = [
            f"{field} {getattr(cand, field)!r} (reference {getattr(ref, field)!r})"
            for field, weight in (("total", 1), ("absolute", 1), ("weighted", _MAX_WEIGHT))
            if not _close(getattr(ref, field), getattr(cand, field), 0.0 if exact else rtol * weight * scale)]
        if differences:
            problems.append(f"{ref.name}: {', '.join(differences)}")
    return problems


def _magnitude(value: Number) -> float:
    return abs(float(value)) if math.isfinite(value) else 0.0


def _close(expected: Number, got: Number, tolerance: float) -> bool:
    if math.isnan(expected) or math.isnan(got):
        return False
    if math.isinf(expected) or math.isinf(got):
        return expected == got
    return abs(expected - got) <= tolerance
