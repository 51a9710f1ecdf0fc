# SPDX-License-Identifier: MIT
"""The roofline model of a kernel run: which roof bounds it, and how close a build comes.

Input: a kernel's flop and byte counts (:mod:`test_suite.bench.flops`), a
measured :class:`~test_suite.bench.machine.Roof` and a median time.  Output:
the :class:`Bound` that applies and the attained rate and fraction of it.
Pure functions: nothing here measures.

The model (Williams, Waterman and Patterson, "Roofline", CACM 2009): a kernel
of arithmetic intensity ``I = flops / bytes`` cannot run faster than
``min(P, I * B)`` flop/s, with ``P`` the measured multiply-add peak and ``B``
the measured triad bandwidth of the threads it runs on.  Where ``I * B < P``
the kernel is *bandwidth-bound*: its attained rate is given in GB/s
(``bytes / seconds``) and its fraction is of ``B``; otherwise it is
*compute-bound*: GFLOP/s and the fraction of ``P``.  Both fractions are the
same number, ``(flops / seconds) / min(P, I * B)``.  A kernel with a byte
count but no flop count is taken as bandwidth-bound; one without a byte count
has no roofline.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from test_suite.bench.machine import Roof

COMPUTE = "compute"
BANDWIDTH = "bandwidth"


@dataclass(frozen=True)
class Bound:
    """The roof that limits a kernel on one set of threads."""

    #: :data:`COMPUTE` or :data:`BANDWIDTH`.
    kind: str
    #: The limit in the kind's unit: flop/s (compute) or bytes/s (bandwidth).
    limit: float

    @property
    def unit(self) -> str:
        return "GFLOP/s" if self.kind == COMPUTE else "GB/s"


@dataclass(frozen=True)
class Attained:
    """What one build reached: its rate in its bound's unit (per second) and the fraction of the bound."""

    bound: Bound
    rate: float

    @property
    def fraction(self) -> float:
        return self.rate / self.bound.limit


def intensity(flops: Optional[int], bytes_: Optional[int]) -> Optional[float]:
    """Flops per byte of compulsory traffic (None without both counts, or with no traffic)."""
    if flops is None or not bytes_:
        return None
    return flops / bytes_


def bound(flops: Optional[int], bytes_: Optional[int], roof: Roof) -> Optional[Bound]:
    """The roof that applies to a kernel with these counts on ``roof``'s threads (None without bytes)."""
    if not bytes_:
        return None
    if flops is None:
        return Bound(BANDWIDTH, roof.bytes_per_second)
    if flops / bytes_ * roof.bytes_per_second < roof.flops_per_second:
        return Bound(BANDWIDTH, roof.bytes_per_second)
    return Bound(COMPUTE, roof.flops_per_second)


def attained(flops: Optional[int], bytes_: Optional[int], seconds: Optional[float],
             roof: Optional[Roof]) -> Optional[Attained]:
    """The rate and fraction of the bound a run of ``seconds`` reaches (None where any input is missing)."""
    if roof is None or seconds is None or seconds <= 0:
        return None
    limit = bound(flops, bytes_, roof)
    if limit is None:
        return None
    if limit.kind == COMPUTE:
        assert flops is not None
        return Attained(limit, flops / seconds)
    assert bytes_ is not None
    return Attained(limit, bytes_ / seconds)


def attainable_flops(flop_per_byte: float, roof: Roof) -> float:
    """The roofline itself: the most flop/s a kernel of this intensity can reach on ``roof``."""
    return min(roof.flops_per_second, flop_per_byte * roof.bytes_per_second)
