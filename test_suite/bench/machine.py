# SPDX-License-Identifier: MIT
"""A description of the machine a benchmark ran on: CPU, cores, memory, load.

Timings mean little without it: the results in ``docs/benchmarks.md`` quote
it, and ``--json`` records it.  Load averages are read at the start and at the
end of the run, since another job on a 2-core machine changes every ratio.
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Machine:
    """What the results depend on: CPU model, core count, memory, operating system."""

    cpu: str
    cores: int
    memory_gib: float
    system: str

    def describe(self) -> str:
        return f"{self.cpu}, {self.cores} cores, {self.memory_gib:.0f} GiB, {self.system}"


def describe_machine() -> Machine:
    """This machine, from ``/proc`` where available."""
    return Machine(_cpu_model(), os.cpu_count() or 1, _memory_gib(), f"{platform.system()} {platform.release()}")


def load_average() -> tuple[float, float, float]:
    """The 1-, 5- and 15-minute load averages (zeros where the system has none)."""
    try:
        return os.getloadavg()
    except OSError:
        return (0.0, 0.0, 0.0)


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / (1024 * 1024)
    except OSError:
        pass
    return 0.0
