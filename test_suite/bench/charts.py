# SPDX-License-Identifier: MIT
"""The run's charts (``--charts DIR``): a roofline and the speed-ups, as PNG files.

Input: the results, the compilers and the measured roofs of a run.  Output:
``DIR/roofline.png`` and ``DIR/speedup.png``.  matplotlib is an optional
dependency (``pip install -e '.[bench]'``): without it :func:`write_charts`
raises :class:`ChartsUnavailable` and the bench prints a note instead.

- ``roofline.png``: log-log, arithmetic intensity (flop per compulsory byte)
  against GFLOP/s; the roofs measured at the start of the run, one line per
  thread count (``min(peak, intensity x triad bandwidth)``); one point per
  kernel with flop and byte counts per compiler (numpy's BLAS included), the
  kernel's name beside pencilcc's point.
- ``speedup.png``: per kernel, pencilcc's speed-up over every peer of the run
  (gcc, clang, Polly) and over numpy's BLAS where timed, on a log scale with
  a line at 1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

from test_suite.bench import blas, report, roofline
from test_suite.bench.compilers import Compiler
from test_suite.bench.machine import Roofs
from test_suite.bench.measure import KernelResult

ROOFLINE_FILE = "roofline.png"
SPEEDUP_FILE = "speedup.png"
_MARKERS = "osD^v<>phX*"


class ChartsUnavailable(RuntimeError):
    """matplotlib cannot be imported."""


def _pyplot():  # type: ignore[no-untyped-def]
    try:
        import matplotlib
    except ImportError as exc:
        raise ChartsUnavailable("matplotlib is not installed (pip install -e '.[bench]')") from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def _plain_ticks(axis) -> None:  # type: ignore[no-untyped-def]
    """Tick labels of a log axis as plain numbers (0.5, 2, 30), not powers of ten."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axis.set_minor_formatter(FuncFormatter(lambda value, _: f"{value:g}" if str(f"{value:g}")[0] in "25" else ""))


def roofline_points(results: Sequence[KernelResult], compilers: Sequence[Compiler]
                    ) -> dict[str, list[tuple[str, float, float]]]:
    """Per compiler (and numpy): ``(kernel, flop per byte, GFLOP/s)`` of every kernel with both counts."""
    points: dict[str, list[tuple[str, float, float]]] = {}
    for result in results:
        ai = roofline.intensity(result.flops, result.bytes)
        if ai is None:
            continue
        assert result.flops is not None
        for compiler in compilers:
            rate = report.gflops(result, compiler.name) if compiler.available else None
            if rate is not None:
                points.setdefault(compiler.name, []).append((result.kernel, ai, rate))
        if result.numpy is not None and result.numpy.median:
            points.setdefault(blas.NAME, []).append((result.kernel, ai, result.flops / result.numpy.median / 1e9))
    return points


def speedup_series(results: Sequence[KernelResult], compilers: Sequence[Compiler]
                   ) -> dict[str, list[Optional[float]]]:
    """Per ratio ``peer/pencilcc``: its value per kernel (None where missing), numpy's included."""
    pairs = [(a, b) for a, b in report.ratio_pairs(compilers)
             if b == "pencilcc" and report.cpu_pair(compilers, (a, b))]
    series = {f"{a}/{b}": [report.ratio(r, a, b) for r in results] for a, b in pairs}
    if any(r.numpy is not None for r in results) and any(c.name == "pencilcc" and c.available for c in compilers):
        series[f"{blas.NAME}/pencilcc"] = [report.numpy_ratio(r, "pencilcc") for r in results]
    return series


def write_charts(results: Sequence[KernelResult], compilers: Sequence[Compiler], roofs: Optional[Roofs],
                 directory: Path, title: str = "") -> list[Path]:
    """Write the charts that the run's data allows into ``directory``; the paths written."""
    plt = _pyplot()
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    points = roofline_points(results, compilers)
    if roofs is not None and points:
        written.append(_roofline_chart(plt, points, roofs, directory / ROOFLINE_FILE, title))
    series = speedup_series(results, compilers)
    if any(v is not None for values in series.values() for v in values):
        written.append(_speedup_chart(plt, [r.kernel for r in results], series, directory / SPEEDUP_FILE, title))
    return written


def _roofline_chart(plt, points: dict[str, list[tuple[str, float, float]]], roofs: Roofs,  # type: ignore[no-untyped-def]
                    path: Path, title: str) -> Path:
    figure, axes = plt.subplots(figsize=(10, 7))
    intensities = [ai for series in points.values() for _, ai, _ in series]
    low = min([*intensities, *(r.balance for r in roofs.roofs)]) / 4
    high = max([*intensities, *(r.balance for r in roofs.roofs)]) * 4
    steps = 200
    xs = [low * (high / low) ** (i / steps) for i in range(steps + 1)]
    for roof in roofs.roofs:
        ys = [roofline.attainable_flops(x, roof) / 1e9 for x in xs]
        axes.plot(xs, ys, linewidth=2 if roof is roofs.roofs[-1] else 1,
                  label=(f"roof, {roof.threads} thread{'s' if roof.threads != 1 else ''}: "
                         f"{roof.flops_per_second / 1e9:.0f} GFLOP/s, {roof.bytes_per_second / 1e9:.1f} GB/s"))
    for index, (name, series) in enumerate(points.items()):
        axes.scatter([ai for _, ai, _ in series], [rate for _, _, rate in series],
                     marker=_MARKERS[index % len(_MARKERS)], label=name, zorder=3)
        if name == "pencilcc":
            for kernel, ai, rate in series:
                axes.annotate(kernel, (ai, rate), textcoords="offset points", xytext=(4, 4), fontsize=7)
    axes.set_xscale("log")
    axes.set_yscale("log")
    _plain_ticks(axes.xaxis)
    _plain_ticks(axes.yaxis)
    axes.set_xlabel("arithmetic intensity (flop per byte of compulsory traffic)")
    axes.set_ylabel("GFLOP/s")
    axes.set_title("Roofline" + (f": {title}" if title else ""))
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8, loc="lower right")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _speedup_chart(plt, kernels: list[str], series: dict[str, list[Optional[float]]],  # type: ignore[no-untyped-def]
                   path: Path, title: str) -> Path:
    bars = len(kernels) * max(1, len(series))
    figure, axes = plt.subplots(figsize=(min(20, max(8, 2 + 0.12 * bars)), 6))   # 30 kernels x 4: 16 x 6 in
    width = 0.8 / max(1, len(series))
    for index, (name, values) in enumerate(series.items()):
        xs = [k + (index - (len(series) - 1) / 2) * width for k in range(len(kernels))]
        present = [(x, v) for x, v in zip(xs, values) if v is not None]
        axes.bar([x for x, _ in present], [v for _, v in present], width=width, label=name)
    axes.axhline(1.0, color="black", linewidth=1)
    axes.set_yscale("log")
    _plain_ticks(axes.yaxis)
    axes.set_xticks(range(len(kernels)))
    axes.set_xticklabels(kernels, rotation=60, ha="right", fontsize=8)
    axes.set_ylabel("speed-up of pencilcc (peer seconds / pencilcc seconds)")
    axes.set_title("pencilcc's speed-up" + (f": {title}" if title else ""))
    axes.grid(True, axis="y", which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path
