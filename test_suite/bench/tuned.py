# SPDX-License-Identifier: MIT
"""The ``pencilcc-opencl-tuned`` column: ``pencilcc-tune`` before the build.

Input: the column's :class:`~test_suite.bench.compilers.Compiler` (its tuner command and
budget), the bench's build command of one kernel (the same compiler, flags, sizes and
libraries as ``pencilcc-opencl``'s), the environment of its timed runs.  Output: a
:class:`Tuning`: what the tuner chose per region, how many evaluations it used, its wall
time, and (after the build) where the build's sizes came from.

- The build's own cache folder, ``<executable>.tuning``, emptied first, is the
  ``PENCILCC_CACHE_DIR`` of the tuner and of the build after it: the tuning cache
  (``tuned/``) the tuner writes and the build reads, and the tuner's compile cache and
  OpenCL disk caches (``opencl/``, PoCL's ``pocl/``).  Nothing of the user's cache is read
  or written, and every bench run tunes afresh.
- The tuner builds to a scratch executable beside the real one
  (``<executable>.tune``) and runs it with the timed runs' threads (``OMP_NUM_THREADS``,
  ``PENCILCC_NUM_THREADS``, ``POCL_MAX_PTHREAD_COUNT``); its time per candidate is the
  whole program's (``pencilcc-tune`` knows nothing of the bench's timer).
- The build then runs as any other (its compile time is the build's alone; the tuning's
  wall time is kept apart, ``seconds``); its record's ``tile_sizes_from`` says ``tuned``
  where a region got tuned sizes, ``model`` where the tuner kept the default.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from test_suite.bench import opencl
from test_suite.bench.compilers import Compiler

#: Characters of a failing tuner's output kept in the error message.
_ERROR_TAIL = 600


@dataclass(frozen=True)
class RegionChoice:
    """What the tuner chose for one region (from its tuning cache)."""

    label: str
    #: Band number -> sizes (outer loop first) that beat the default; empty: the default kept.
    bands: tuple[tuple[int, tuple[int, ...]], ...]
    evaluations: int
    #: The chosen sizes' time and the default build's, as the tuner measured them (whole runs).
    seconds: Optional[float] = None
    default_seconds: Optional[float] = None
    #: Under the OpenCL ``cpu`` mapping (PoCL): the work-groups chosen for tiled kernels' direct
    #: variants, band number -> sizes (outer loop first), as ``bands``.
    direct: tuple[tuple[int, tuple[int, ...]], ...] = ()

    def text(self) -> str:
        sizes = " ".join([*(f"{band}={'x'.join(map(str, s))}" for band, s in self.bands),
                          *(f"direct:{band}={'x'.join(map(str, s))}" for band, s in self.direct)]) or "default"
        return f"{self.label}: {sizes}"


@dataclass(frozen=True)
class Tuning:
    """``pencilcc-tune``'s work for one kernel of the tuned column."""

    regions: tuple[RegionChoice, ...] = ()
    #: Wall seconds of the tuner (builds and runs of every candidate); not the kernel's time.
    seconds: Optional[float] = None
    #: The tuned build's record: each optimized region's ``tile_sizes_from``, in order.
    tile_sizes_from: tuple[str, ...] = ()
    #: Empty on success; what failed otherwise.
    error: str = ""

    @property
    def evaluations(self) -> int:
        """Evaluations of all regions together."""
        return sum(r.evaluations for r in self.regions)

    def sizes_text(self) -> str:
        """The choices, one region after the other (``-`` when no region was tuned)."""
        return "; ".join(r.text() for r in self.regions) or "-"


def cache_folder(executable: Path) -> Path:
    """The tuned build's cache folder (``PENCILCC_CACHE_DIR`` of its tuning and its build)."""
    return executable.with_name(executable.name + ".tuning")


def scratch_executable(executable: Path) -> Path:
    """Where the tuner builds its candidates."""
    return executable.with_name(executable.name + ".tune")


def build_env(executable: Path) -> dict[str, str]:
    """Environment entries of the tuned build: the cache folder the tuner wrote."""
    return {"PENCILCC_CACHE_DIR": str(cache_folder(executable))}


def tune(compiler: Compiler, build_command: list[str], executable: Path, run_env: dict[str, str],
         threads: int, timeout: float) -> Tuning:
    """Run ``pencilcc-tune`` on ``build_command`` (a pencilcc command line whose output is
    :func:`scratch_executable`), with the environment ``run_env`` of the timed runs."""
    folder = cache_folder(executable)
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    env = {**run_env, **opencl.run_env(folder, threads, profile=False)}
    # The tuner's compile cache and the OpenCL runtime's disk cache live in `folder`.
    env.pop("PENCILCC_NO_CACHE", None)
    command = [*compiler.tune_command, "--budget", str(compiler.tune_budget), "--timeout", f"{timeout:g}",
               "--", *build_command]
    start = time.perf_counter()
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=timeout * (4 * compiler.tune_budget + 2))
    except subprocess.TimeoutExpired:
        return Tuning(seconds=time.perf_counter() - start, error="pencilcc-tune timed out")
    except OSError as exc:
        return Tuning(error=f"pencilcc-tune failed: {exc}")
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout)[-_ERROR_TAIL:].strip()
        return Tuning(seconds=seconds, error=f"pencilcc-tune failed (exit {proc.returncode}): {tail}")
    return Tuning(regions=read_choices(folder), seconds=seconds)


def read_choices(folder: Path) -> tuple[RegionChoice, ...]:
    """The regions of the OpenCL tuning cache in ``folder`` (``tuned/opencl-*.json``), by label."""
    regions = []
    for path in sorted((folder / "tuned").glob("opencl-*.json")):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        for entry in doc.get("regions", {}).values():
            bands, direct = (tuple(sorted((int(b), tuple(s)) for b, s in entry.get(field, {}).items()))
                             for field in ("bands", "direct_bands"))
            regions.append(RegionChoice(str(entry.get("label", "?")), bands, int(entry.get("evaluations", 0)),
                                        entry.get("seconds"), entry.get("model_seconds"), direct))
    return tuple(sorted(regions, key=lambda r: r.label))


def record_sources(record: Path) -> tuple[str, ...]:
    """Each optimized region's ``tile_sizes_from`` in a build's optimisation record (the
    OpenCL target's is under ``mapping``, with ``direct_tile_sizes_from`` beside it for tiled
    kernels' direct variants: where one of the two is not ``model``, that one; ``mixed`` when
    they are two such)."""
    try:
        regions = json.loads(record.read_text()).get("regions", [])
    except (OSError, ValueError):
        return ()
    found = []
    for r in regions:
        if r.get("status") != "optimized":
            continue
        mapping = r.get("mapping") or {}
        source = mapping.get("tile_sizes_from") or r.get("tile_sizes_from") or ""
        given = sorted({s for s in (source, mapping.get("direct_tile_sizes_from", "")) if s and s != "model"})
        found.append("mixed" if len(given) > 1 else given[0] if given else source or "-")
    return tuple(found)
