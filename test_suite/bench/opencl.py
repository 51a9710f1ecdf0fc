# SPDX-License-Identifier: MIT
"""What the ``pencilcc-opencl`` column needs: a platform check, the run environment, the runtime's profile.

A program built with ``pencilcc -fpencil-target=opencl`` runs its outermost
parallel loops as OpenCL kernels through the C runtime in ``runtime/``
(``runtime/README.md``), on the first GPU, else the first device of any type.
Three of that runtime's behaviours shape the measurement:

- it caches program binaries on disk under ``$PENCILCC_CACHE_DIR/opencl``:
  the bench gives each build a folder of its own, empty before the first run,
  so that the first run builds the OpenCL program (the *cold* run) and the
  later ones load it from the cache.  PoCL keeps a kernel cache of its own
  (``POCL_CACHE_DIR``, by default under ``~/.cache/pocl``), which would make
  the cold run warm after any earlier run: it is pointed into the same folder,
  and so is NVIDIA's driver's cache of the kernels it compiled from its program
  binaries (PTX), ``CUDA_CACHE_PATH`` (by default ``~/.nv/ComputeCache``);
- with ``PENCILCC_PROFILE=1`` it prints, at exit, lines such as
  ``pencilcc profile: kernel K: 1 launches, 10.588 ms`` (per kernel, then the
  transfers each way, the programs built or loaded, the buffers): one extra
  run of each build is profiled and :func:`parse_profile` reads them;
- when it cannot use a device, a program or a kernel, it says so once on
  stderr (a line starting with ``pencilcc: ``) and the regions concerned run
  their CPU code, with the right results: :func:`runtime_problems` finds those
  lines, since such a run would time the CPU path under the OpenCL column.

On PoCL, an OpenCL implementation on the CPU itself, the column measures the
runtime's and PoCL's overheads (context creation, copies, launches, PoCL's
work-group loops), not the speed of a GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

#: The name of the OpenCL configuration in ``--compilers``.
NAME = "pencilcc-opencl"
#: The OpenCL configuration whose work-group sizes ``pencilcc-tune`` chose first (:mod:`test_suite.bench.tuned`).
TUNED_NAME = "pencilcc-opencl-tuned"
#: The flag that selects the OpenCL target.
TARGET_FLAG = "-fpencil-target=opencl"

_PROFILE_PREFIX = "pencilcc profile: "
_DEVICE_RE = re.compile(r"^device (.*)$")
_KERNEL_RE = re.compile(r"^kernel (\S+): (\d+) launches, (\S+) ms$")
_TRANSFER_RE = re.compile(r"^(host-to-device|device-to-host): (\d+) transfers, (\d+) bytes, (\S+) ms$")
_PROGRAMS_RE = re.compile(r"^programs: (\d+) built, (\d+) loaded from disk cache$")
_BUFFERS_RE = re.compile(r"^buffers: (\d+) allocated, (\d+) reused$")
#: A runtime message: every line the runtime prints to stderr, except its
#: profile, reports a device, program, launch or read-back problem.
_RUNTIME_MESSAGE = "pencilcc: "


@dataclass(frozen=True)
class KernelProfile:
    """One OpenCL kernel in a profiled run: how often it was launched and its device time."""

    name: str
    launches: int
    milliseconds: float


@dataclass(frozen=True)
class Transfers:
    """The copies one way between host and device in a profiled run."""

    count: int
    bytes: int
    milliseconds: float


@dataclass(frozen=True)
class Profile:
    """The runtime's ``PENCILCC_PROFILE=1`` report of one run."""

    #: ``"<platform name> / <device name>"``.
    device: str
    kernels: tuple[KernelProfile, ...]
    host_to_device: Transfers
    device_to_host: Transfers
    programs_built: int
    programs_loaded: int
    buffers_allocated: int
    buffers_reused: int

    @property
    def launches(self) -> int:
        """Launches of all kernels together."""
        return sum(k.launches for k in self.kernels)


def parse_profile(stderr: str) -> Profile:
    """The profile a run printed on stderr; :class:`ValueError` when a line of it is missing or malformed."""
    device = ""
    kernels: list[KernelProfile] = []
    transfers: dict[str, Transfers] = {}
    programs: tuple[int, int] | None = None
    buffers: tuple[int, int] | None = None
    for line in stderr.splitlines():
        if not line.startswith(_PROFILE_PREFIX):
            continue
        text = line[len(_PROFILE_PREFIX):]
        if match := _DEVICE_RE.match(text):
            device = match.group(1)
        elif match := _KERNEL_RE.match(text):
            kernels.append(KernelProfile(match.group(1), int(match.group(2)), float(match.group(3))))
        elif match := _TRANSFER_RE.match(text):
            transfers[match.group(1)] = Transfers(int(match.group(2)), int(match.group(3)),
                                                  float(match.group(4)))
        elif match := _PROGRAMS_RE.match(text):
            programs = (int(match.group(1)), int(match.group(2)))
        elif match := _BUFFERS_RE.match(text):
            buffers = (int(match.group(1)), int(match.group(2)))
        else:
            raise ValueError(f"unknown profile line {line!r}")
    missing = [what for what, value in (("device", device), ("host-to-device", transfers.get("host-to-device")),
                                        ("device-to-host", transfers.get("device-to-host")),
                                        ("programs", programs), ("buffers", buffers)) if not value]
    if missing:
        raise ValueError(f"no '{_PROFILE_PREFIX}' line for {', '.join(missing)} "
                         "(was the program built with -fpencil-target=opencl, and did it launch a kernel?)")
    assert programs is not None and buffers is not None
    return Profile(device, tuple(kernels), transfers["host-to-device"], transfers["device-to-host"],
                   programs[0], programs[1], buffers[0], buffers[1])


def runtime_problems(stderr: str) -> list[str]:
    """The runtime's messages in a run's stderr (no device, a failed build or launch); empty when none."""
    return [line for line in stderr.splitlines() if line.startswith(_RUNTIME_MESSAGE)]


def run_env(cache_dir: Path, threads: int, profile: bool) -> dict[str, str]:
    """Environment entries of a run: its disk caches in ``cache_dir``, PoCL's threads, the profile on or off."""
    return {
        "PENCILCC_CACHE_DIR": str(cache_dir),
        "POCL_CACHE_DIR": str(cache_dir / "pocl"),
        "CUDA_CACHE_PATH": str(cache_dir / "nv"),
        # PoCL 3's CPU device runs work-groups on this many threads (default:
        # every core); the other columns run on --threads.
        "POCL_MAX_PTHREAD_COUNT": str(threads),
        "PENCILCC_PROFILE": "1" if profile else "0",
    }


def platform_problem() -> str:
    """Why no OpenCL platform can be used, or "" when pyopencl lists one (or is not installed to ask).

    Without pyopencl nothing is decided here: a run on a machine without a
    platform then fails with the runtime's own message (see :func:`runtime_problems`).
    """
    try:
        import pyopencl  # noqa: PLC0415 (optional: only this column needs it)
    except ImportError:
        return ""
    try:
        platforms = pyopencl.get_platforms()
    except Exception as exc:  # pyopencl raises its own LogicError/RuntimeError when the loader finds none
        return f"no OpenCL platform (pyopencl.get_platforms(): {exc})"
    if not platforms:
        return "no OpenCL platform (pyopencl.get_platforms() lists none)"
    return ""
