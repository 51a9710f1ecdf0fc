# SPDX-License-Identifier: MIT
"""Floating-point work and compulsory memory traffic of the kernels, and the machine's nominal peak.

Input: a kernel's size values (``{"NI": 1000, ...}``) and ``/proc/cpuinfo``.
Output: the kernel's flop count and byte count, and :class:`Peak` (flop/s of
the cores a run uses, with the inputs of its formula) so that the report can
print GFLOP/s or GB/s and the fraction of the bound a build reaches
(:mod:`test_suite.bench.roofline`).

How the flops are counted (from each kernel's loops in
``test_suite/kernels/polybench``): every ``+``, ``-`` and ``*`` of a
statement, each counted once per iteration of the innermost loop its operands
depend on, i.e. after hoisting loop-invariant products such as
``alpha * A[i][k]`` out of the ``j`` loop.  This is the least work any correct
compilation of the loops must do, so a percentage of peak is never inflated by
operations a compiler may legally remove (a common subexpression such as
heat-3d's ``2.0 * A[i][j][k]``, written three times, counts once; products are
not reassociated, so ``beta * A[j][i] * y[j]`` stays two products per point).
A multiply-add counts as 2; a division counts as 1.

How the bytes are counted: the compulsory traffic of one kernel call, 8 bytes
per double element, each element of an array counted once if the kernel reads
its initial value and once if it writes its final value (so an array updated
in place, such as gemm's ``C``, counts twice; a scratch array that is written
before it is read, such as 2mm's ``tmp``, once).  Only the elements the loops
touch count: the lower triangle of syrk's ``C``, the strict lower triangle of
trmm's ``A``.  A few boundary elements that stencils read but never write
(jacobi-2d's border of ``B``) are left out: O(N) of O(N^2).  This is the
least traffic between the cores and memory any compilation must cause when
the data does not stay in cache between calls; write-allocate reads of the
written lines are not counted (the STREAM convention, which the measured
triad bandwidth follows too).

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


def _atax(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # tmp[i] += A[i][j] * x[j] and y[j] += A[i][j] * tmp[i]: two multiply-adds per (i, j).
    return 4 * m * n


def _bicg(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # s[j] += r[i] * A[i][j] and q[i] += A[i][j] * p[j]: two multiply-adds per (i, j).
    return 4 * m * n


def _mvt(s: Mapping[str, int]) -> int:
    n = s["N"]
    # One multiply-add per (i, j) in each of the two products.
    return 4 * n * n


def _gesummv(s: Mapping[str, int]) -> int:
    n = s["N"]
    # Two multiply-adds per (i, j); per i alpha * tmp + beta * y (two products, a sum).
    return 4 * n * n + 3 * n


def _gemver(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A += u1 v1 + u2 v2: two products, two sums per (i, j); x += beta * A[j][i] * y[j] and
    # w += alpha * A[i][j] * x[j]: two products and a sum per (i, j) each (the constant is
    # multiplied by the matrix element first); x += z per i.
    return 4 * n * n + 3 * n * n + n + 3 * n * n


def _trisolv(s: Mapping[str, int]) -> int:
    n = s["N"]
    # x[i] -= L[i][j] * x[j] per j < i, then a division per i.
    return n * (n - 1) + n


def _jacobi_1d(s: Mapping[str, int]) -> int:
    tsteps, n = s["TSTEPS"], s["N"]
    # Two sums and a product per interior point, two sweeps per step.
    return tsteps * 2 * 3 * (n - 2)


def _jacobi_2d(s: Mapping[str, int]) -> int:
    tsteps, n = s["TSTEPS"], s["N"]
    # Four sums and a product per interior point, two sweeps per step.
    return tsteps * 2 * 5 * (n - 2) ** 2


def _heat_3d(s: Mapping[str, int]) -> int:
    tsteps, n = s["TSTEPS"], s["N"]
    # 2.0 * A[i][j][k] once; per axis a difference, a sum and the product by 0.125 (3 x 3);
    # three sums of the terms and the centre: 13 per interior point, two sweeps per step.
    return tsteps * 2 * 13 * (n - 2) ** 3


def _seidel_2d(s: Mapping[str, int]) -> int:
    tsteps, n = s["TSTEPS"], s["N"]
    # Eight sums and a division per interior point.
    return tsteps * 9 * (n - 2) ** 2


def _fdtd_2d(s: Mapping[str, int]) -> int:
    tmax, nx, ny = s["TMAX"], s["NX"], s["NY"]
    # ey and ex: a difference, a product and a difference per point; hz: three sums or
    # differences, a product and a difference.
    return tmax * (3 * (nx - 1) * ny + 3 * nx * (ny - 1) + 5 * (nx - 1) * (ny - 1))


#: Flop counts of the kernels, by PolyBench name: the BLAS-like kernels, the matrix-vector
#: kernels and the stencils.  The others (factorisations, dynamic programming, ...) have none yet.
FLOP_COUNTS: dict[str, Callable[[Mapping[str, int]], int]] = {
    "gemm": _gemm, "2mm": _2mm, "3mm": _3mm, "syrk": _syrk, "syr2k": _syr2k,
    "symm": _symm, "trmm": _trmm, "doitgen": _doitgen,
    "atax": _atax, "bicg": _bicg, "mvt": _mvt, "gesummv": _gesummv, "gemver": _gemver,
    "trisolv": _trisolv, "jacobi-1d": _jacobi_1d, "jacobi-2d": _jacobi_2d, "heat-3d": _heat_3d,
    "seidel-2d": _seidel_2d, "fdtd-2d": _fdtd_2d,
}
#: The BLAS-like kernels (matrix-matrix products and contractions), whose GFLOP/s the
#: nominal-peak table shows.
BLAS_LIKE: frozenset[str] = frozenset({"gemm", "2mm", "3mm", "syrk", "syr2k", "symm", "trmm", "doitgen"})
#: Bytes per array element (every kernel here computes in double).
ELEMENT_BYTES = 8


def _gemm_bytes(s: Mapping[str, int]) -> int:
    ni, nj, nk = s["NI"], s["NJ"], s["NK"]
    # A and B read; C read and written.
    return ni * nk + nk * nj + 2 * ni * nj


def _2mm_bytes(s: Mapping[str, int]) -> int:
    ni, nj, nk, nl = s["NI"], s["NJ"], s["NK"], s["NL"]
    # tmp written; A, B, C read; D read and written.
    return ni * nj + ni * nk + nk * nj + nj * nl + 2 * ni * nl


def _3mm_bytes(s: Mapping[str, int]) -> int:
    ni, nj, nk, nl, nm = s["NI"], s["NJ"], s["NK"], s["NL"], s["NM"]
    # A, B, C, D read; E, F, G written.
    return ni * nk + nk * nj + nj * nm + nm * nl + ni * nj + nj * nl + ni * nl


def _syrk_bytes(s: Mapping[str, int]) -> int:
    n, m = s["N"], s["M"]
    # The lower triangle of C read and written; A read.
    return 2 * _triangle(n) + n * m


def _syr2k_bytes(s: Mapping[str, int]) -> int:
    n, m = s["N"], s["M"]
    # The lower triangle of C read and written; A and B read.
    return 2 * _triangle(n) + 2 * n * m


def _symm_bytes(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # The lower triangle of A (diagonal included) and B read; C read and written.
    return _triangle(m) + m * n + 2 * m * n


def _trmm_bytes(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # The strict lower triangle of A read; B read and written.
    return m * (m - 1) // 2 + 2 * m * n


def _doitgen_bytes(s: Mapping[str, int]) -> int:
    nr, nq, np_ = s["NR"], s["NQ"], s["NP"]
    # A read and written; C4 read; sum written.
    return 2 * nr * nq * np_ + np_ * np_ + np_


def _atax_bytes(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # A and x read; y and tmp written.
    return m * n + n + n + m


def _bicg_bytes(s: Mapping[str, int]) -> int:
    m, n = s["M"], s["N"]
    # A (n x m), r and p read; s and q written.
    return n * m + n + m + m + n


def _mvt_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A, y1 and y2 read; x1 and x2 read and written.
    return n * n + 2 * n + 4 * n


def _gesummv_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A, B and x read; tmp and y written.
    return 2 * n * n + n + 2 * n


def _gemver_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A read and written; u1, v1, u2, v2, y, z read; x and w read and written.
    return 2 * n * n + 6 * n + 4 * n


def _trisolv_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # The lower triangle of L (diagonal included) and b read; x written.
    return _triangle(n) + 2 * n


def _jacobi_1d_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A read and written; B written (its two ends, read, are left out).
    return 3 * n


def _jacobi_2d_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A read and written; B written (its border, read, is left out).
    return 3 * n * n


def _heat_3d_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A read and written; B written (its faces, read, are left out).
    return 3 * n ** 3


def _seidel_2d_bytes(s: Mapping[str, int]) -> int:
    n = s["N"]
    # A read and written in place.
    return 2 * n * n


def _fdtd_2d_bytes(s: Mapping[str, int]) -> int:
    tmax, nx, ny = s["TMAX"], s["NX"], s["NY"]
    # ex, ey and hz read and written; fict read.
    return 6 * nx * ny + tmax


#: Compulsory traffic in elements, by PolyBench name (times :data:`ELEMENT_BYTES` for bytes).
ELEMENT_COUNTS: dict[str, Callable[[Mapping[str, int]], int]] = {
    "gemm": _gemm_bytes, "2mm": _2mm_bytes, "3mm": _3mm_bytes, "syrk": _syrk_bytes,
    "syr2k": _syr2k_bytes, "symm": _symm_bytes, "trmm": _trmm_bytes, "doitgen": _doitgen_bytes,
    "atax": _atax_bytes, "bicg": _bicg_bytes, "mvt": _mvt_bytes, "gesummv": _gesummv_bytes,
    "gemver": _gemver_bytes, "trisolv": _trisolv_bytes, "jacobi-1d": _jacobi_1d_bytes,
    "jacobi-2d": _jacobi_2d_bytes, "heat-3d": _heat_3d_bytes, "seidel-2d": _seidel_2d_bytes,
    "fdtd-2d": _fdtd_2d_bytes,
}


def kernel_flops(polybench_name: str, sizes: Mapping[str, int]) -> Optional[int]:
    """The flops of one kernel call at ``sizes``, or None for a kernel without a flop count."""
    count = FLOP_COUNTS.get(polybench_name)
    return None if count is None else count(sizes)


def kernel_bytes(polybench_name: str, sizes: Mapping[str, int]) -> Optional[int]:
    """The compulsory bytes of one kernel call at ``sizes``, or None for a kernel without a count."""
    count = ELEMENT_COUNTS.get(polybench_name)
    return None if count is None else ELEMENT_BYTES * count(sizes)


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
