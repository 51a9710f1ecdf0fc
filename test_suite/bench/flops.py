# SPDX-License-Identifier: MIT
"""Floating-point work of the BLAS-like kernels, and the machine's double-precision peak.

Input: a kernel's size values (``{"NI": 1000, ...}``) and ``/proc/cpuinfo``.
Output: the kernel's flop count, and :class:`Peak` (flop/s of the cores a run
uses, with the inputs of its formula) so that the report can print GFLOP/s and
the percentage of peak that a build reaches.

How the flops are counted (from each kernel's loops in
``test_suite/kernels/polybench``): every ``+``, ``-`` and ``*`` of a
statement, each counted once per iteration of the innermost loop its operands
depend on, i.e. after hoisting loop-invariant products such as
``alpha * A[i][k]`` out of the ``j`` loop.  This is the least work any correct
compilation of the loops must do, so a percentage of peak is never inflated by
operations a compiler may legally remove.  A multiply-add counts as 2.

The peak is ``cores x FMA pipes x doubles per vector x 2 x GHz``: the vector
width from the ``/proc/cpuinfo`` flags (``avx512f``: 8 doubles, ``avx2`` or
``fma``: 4, otherwise SSE2's 2), two FMA pipes (every x86 core of the last
decade that has FMA), the clock from sysfs' maximum frequency or else
``/proc/cpuinfo``'s ``cpu MHz``.  AMD's family 25 (Zen 4, the first AMD cores
with ``avx512f``) executes a 512-bit FMA as two 256-bit halves on its 256-bit
pipes, so its width is 4 doubles, as for ``avx2`` (AMD, "Software Optimization
Guide for the AMD Zen4 Microarchitecture", 2023, section 2.11); Zen 5 (family
26) has 512-bit pipes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Optional

#: FMA pipes per core assumed by the peak formula.
FMA_PIPES = 2
#: ``(vendor_id, cpu family)`` of cores whose FMA pipes are 256 bits wide although they
#: announce ``avx512f``: AMD Zen 4.
HALF_WIDTH_AVX512 = frozenset({("AuthenticAMD", 25)})
_CPUINFO = Path("/proc/cpuinfo")
_MAX_FREQ = Path("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")


def _triangle(n: int) -> int:
    """Points of ``for i < n: for j <= i``."""
    return n * (n + 1) // 2


def _gemm(s: Mapping[str, int]) -> int:
    ni, nj, nk = s["NI"], s["NJ"], s["NK"]
    # C *= beta; alpha * A[i][k] per (i, k); a multiply-add per (i, k, j).
    return ni * nj + ni * nk + 2 * ni * nj * nk


def _2mm(s: Mapping[str, int]) -> int:
    ni, nj, nk, nl = s["NI"], s["NJ"], s["NK"], s["NL"]
    # tmp = alpha * A * B (alpha * A[i][k] per (i, k)); D *= beta; D += tmp * C.
    return ni * nk + 2 * ni * nj * nk + ni * nl + 2 * ni * nl * nj


def _3mm(s: Mapping[str, int]) -> int:
    ni, nj, nk, nl, nm = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    # E = A * B, F = C * D, G = E * F: one multiply-add per point of each product.
    return 2 * ni * nj * nk + 2 * nj * nl * nm + 2 * ni * nl * nj


def _syrk(s: Mapping[str, int]) -> int:
    n, m = s["N"], s["M"]
    # C *= beta on the lower triangle; alpha * A[i][k] per (i, k); a multiply-add per (i, k, j <= i).
    return _triangle(n) + n * m + 2 * _triangle(n) * m


def _syr2k(s: Mapping[str, int]) -> int:
    n, m = s["N"], s["M"]
    # alpha * B[i][k] and alpha * A[i][k] per (i, k); per (i, k, j <= i) two
    # products and two additions: C += A[j][k] * (alpha B[i][k]) + B[j][k] * (alpha A[i][k]).
    return _triangle(n) + 2 * n * m + 4 * _triangle(n) * m


def _symm(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # Per (i, j, k < i): C[k][j] += (alpha B[i][j]) * A[i][k] and acc += B[k][j] * A[i][k].
    # Per (i, j): alpha * B[i][j], then beta*C + (alpha B) * A[i][i] + alpha*acc (3 products, 2 sums).
    return 4 * n * (m * (m - 1) // 2) + 6 * m * n


def _trmm(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # A multiply-add per (i, j, i < k < m), then B[i][j] = alpha * B[i][j].
    return 2 * n * (m * (m - 1) // 2) + m * n


def _doitgen(s: Mapping[str, int]) -> int:
    nr, nq, np_ = s["NR"], s["NQ"], s["NP"]
    # sum[p] += A[r][q][s] * C4[s][p]: a multiply-add per (r, q, p, s).
    return 2 * nr * nq * np_ * np_


#: Flop counts of the BLAS-like PolyBench kernels, by PolyBench name.
FLOP_COUNTS: dict[str, Callable[[Mapping[str, int]], int]] = {
    "gemm": _gemm, "2mm": _2mm, "3mm": _3mm, "syrk": _syrk, "syr2k": _syr2k,
    "symm": _symm, "trmm": _trmm, "doitgen": _doitgen,
}


def kernel_flops(polybench_name: str, sizes: Mapping[str, int]) -> Optional[int]:
    """The flops of one kernel call at ``sizes``, or None for a kernel that is not BLAS-like."""
    count = FLOP_COUNTS.get(polybench_name)
    return None if count is None else count(sizes)


@dataclass(frozen=True)
class Peak:
    """The nominal double-precision peak of ``cores`` cores, and the inputs of its formula."""

    cores: int
    fma_pipes: int
    doubles_per_vector: int
    ghz: float
    #: Where the vector width and the clock were read.
    source: str

    @property
    def flops_per_second(self) -> float:
        # An FMA is two flops.
        return self.cores * self.fma_pipes * self.doubles_per_vector * 2 * self.ghz * 1e9

    def describe(self) -> str:
        return (f"peak {self.flops_per_second / 1e9:.1f} GFLOP/s = {self.cores} cores x "
                f"{self.fma_pipes} FMA pipes x {self.doubles_per_vector} doubles/vector x 2 x "
                f"{self.ghz:.2f} GHz ({self.source})")


def doubles_per_vector(flags: set[str]) -> int:
    """The widest double-precision FMA vector the CPU flags announce."""
    if "avx512f" in flags:
        return 8
    if "avx2" in flags or "fma" in flags:
        return 4
    return 2


def peak_from_cpuinfo(cpuinfo: str, cores: int, max_freq_khz: Optional[int] = None) -> Optional[Peak]:
    """The peak of ``cores`` cores from the text of ``/proc/cpuinfo`` (None if it lacks flags or a clock)."""
    flags: set[str] = set()
    mhz: Optional[float] = None
    vendor, family = "", -1
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        key = key.strip()
        if key == "flags" and not flags:
            flags = set(value.split())
        elif key == "vendor_id" and not vendor:
            vendor = value.strip()
        elif key == "cpu family" and family < 0 and value.strip().isdigit():
            family = int(value)
        elif key == "cpu MHz" and mhz is None:
            try:
                mhz = float(value)
            except ValueError:
                pass
    if not flags:
        return None
    width = doubles_per_vector(flags)
    width_source = "flag " + next((f for f in ("avx512f", "avx2", "fma") if f in flags), "sse2")
    if width == 8 and (vendor, family) in HALF_WIDTH_AVX512:
        width = 4
        width_source += f" on 256-bit FMA pipes ({vendor} family {family}: Zen 4)"
    if max_freq_khz:
        ghz, clock_source = max_freq_khz / 1e6, "sysfs cpuinfo_max_freq"
    elif mhz:
        ghz, clock_source = mhz / 1e3, "/proc/cpuinfo cpu MHz"
    else:
        return None
    return Peak(cores, FMA_PIPES, width, ghz, f"{width_source}, clock from {clock_source}")


def machine_peak(cores: int) -> Optional[Peak]:
    """The peak of ``cores`` cores of this machine (None where ``/proc/cpuinfo`` is unreadable)."""
    try:
        cpuinfo = _CPUINFO.read_text()
    except OSError:
        return None
    try:
        max_freq: Optional[int] = int(_MAX_FREQ.read_text().strip())
    except (OSError, ValueError):
        max_freq = None
    return peak_from_cpuinfo(cpuinfo, cores, max_freq)
