# SPDX-License-Identifier: MIT
"""The tuning cache: the tile and work-group sizes `pencilcc-tune` chose, per device and region.

Where: `<cache root>/tuned/` (clangpass.driver.cache.cache_root: `$PENCILCC_CACHE_DIR`, else
`$XDG_CACHE_HOME/pencilcc`, else `~/.cache/pencilcc`), one JSON file per target and device,
`<target>-<device digest>.json`:

    {"format": 1, "target": "cpu", "device": "<CPU model name or OpenCL device name>",
     "regions": {"<sha256 of the input file>:<region label>": {
         "file": "<path when tuned>", "label": "kernel_gemm#0",
         "bands": {"0": [32, 64, 128]}, "seconds": 0.41, "model_seconds": 0.52,
         "start_seconds": 0.52, "evaluations": 12, "repeat": 3, "min_gain": 5.0}}}

`bands` names only the bands whose sizes beat the default (no rule: the cache model, the
OpenCL runtime's work-group) by the tuner's margin; `{}` when the default was kept.
`model_seconds` (and `start_seconds`, the same: the search's first candidate) is the default
build's time, `seconds` the chosen sizes'.

A region is the input file's contents (so an edit of the file forgets its sizes), its
function and its index in the function (the label: `fn`, `fn#1`). A band is numbered as
-fpencil-tile-sizes= numbers it (clangpass.tile_spec). The device: on the CPU the model name
/proc/cpuinfo gives (else the platform's processor and machine); on the OpenCL target the
device the runtime would choose (PENCILCC_DEVICE, else the first GPU, else the first
device: runtime/pencilcc_runtime_device.c), asked through the OpenCL library with ctypes,
and only when the cache holds something for the input.

The compiler reads it (`tuned_rules`) for every input it compiles at -O2 and above, unless
-fno-pencil-tuned; the rules become `CompileOptions.tuned_tile_sizes`, which are part of the
compile cache's key. `pencilcc-tune` (clangpass.driver.tune) writes it (`store`).
"""
from __future__ import annotations

import ctypes
import ctypes.util
import functools
import hashlib
import json
import os
import platform
from pathlib import Path
from typing import Optional

from clangpass.tile_spec import TileSizeRule

FORMAT = 1


def tuning_dir() -> Path:
    from clangpass.driver.cache import cache_root

    return cache_root() / "tuned"


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def region_key(digest: str, label: str) -> str:
    return f"{digest}:{label}"


def _device_file(target: str, device: str) -> Path:
    return tuning_dir() / f"{target}-{hashlib.sha256(device.encode()).hexdigest()[:16]}.json"


@functools.lru_cache(maxsize=1)
def cpu_name() -> str:
    """This machine's CPU model name."""
    try:
        for line in Path("/proc/cpuinfo").read_text(errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() in ("model name", "Model", "cpu model") and value.strip():
                return value.strip()
    except OSError:
        pass
    return " ".join(p for p in (platform.processor(), platform.machine()) if p) or "unknown CPU"


@functools.lru_cache(maxsize=4)
def opencl_device_name(want: Optional[str] = None) -> Optional[str]:
    """The name of the OpenCL device the runtime would choose (`want`: PENCILCC_DEVICE's value,
    None: the environment's), or None where there is none."""
    if want is None:
        want = os.environ.get("PENCILCC_DEVICE", "")
    devices = _opencl_devices()
    if not devices:
        return None
    available = [d for d in devices if d[4]]
    want = want.strip()
    if not want:
        pick = next((d for d in available if d[3] & _CL_DEVICE_TYPE_GPU), available[0] if available else None)
    elif want.lower() in _TYPES:
        pick = next((d for d in available if d[3] & _TYPES[want.lower()]), None)
    elif ":" in want and all(part.isdigit() for part in want.split(":", 1)):
        p, d = (int(part) for part in want.split(":", 1))
        pick = next((x for x in devices if x[0] == p and x[1] == d), None)
    else:
        pick = next((x for x in devices if want.lower() in f"{x[5]} {x[2]}".lower()), None)
    return pick[2] if pick else None


_CL_DEVICE_TYPE_CPU, _CL_DEVICE_TYPE_GPU, _CL_DEVICE_TYPE_ACCELERATOR = 2, 4, 8
_TYPES = {"cpu": _CL_DEVICE_TYPE_CPU, "gpu": _CL_DEVICE_TYPE_GPU, "accelerator": _CL_DEVICE_TYPE_ACCELERATOR}
_CL_PLATFORM_NAME, _CL_DEVICE_TYPE, _CL_DEVICE_NAME, _CL_DEVICE_AVAILABLE = 0x0902, 0x1000, 0x102B, 0x1027
_CL_DEVICE_TYPE_ALL = 0xFFFFFFFF


def _opencl_devices() -> list[tuple[int, int, str, int, bool, str]]:
    """(platform index, device index, device name, type, available, platform name) of every
    device, in the runtime's order; [] without an OpenCL library or platform."""
    path = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
    try:
        cl = ctypes.CDLL(path)
    except OSError:
        return []
    u32, vp = ctypes.c_uint32, ctypes.c_void_p
    count = u32(0)
    if cl.clGetPlatformIDs(0, None, ctypes.byref(count)) != 0 or not count.value:
        return []
    platforms = (vp * count.value)()
    if cl.clGetPlatformIDs(count, platforms, None) != 0:
        return []

    def text(query, obj, param) -> str:
        size = ctypes.c_size_t(0)
        if query(vp(obj), u32(param), ctypes.c_size_t(0), None, ctypes.byref(size)) != 0:
            return ""
        buf = ctypes.create_string_buffer(size.value + 1)
        if query(vp(obj), u32(param), size, buf, None) != 0:
            return ""
        return buf.value.decode(errors="replace").strip()

    found = []
    for p, plat in enumerate(platforms):
        n = u32(0)
        if cl.clGetDeviceIDs(vp(plat), ctypes.c_uint64(_CL_DEVICE_TYPE_ALL), 0, None, ctypes.byref(n)) != 0 \
                or not n.value:
            continue
        devices = (vp * n.value)()
        if cl.clGetDeviceIDs(vp(plat), ctypes.c_uint64(_CL_DEVICE_TYPE_ALL), n, devices, None) != 0:
            continue
        platform_name = text(cl.clGetPlatformInfo, plat, _CL_PLATFORM_NAME)
        for d, dev in enumerate(devices):
            kind, avail = ctypes.c_uint64(0), u32(1)
            cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_TYPE), ctypes.c_size_t(8), ctypes.byref(kind), None)
            cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_AVAILABLE), ctypes.c_size_t(4), ctypes.byref(avail), None)
            found.append((p, d, text(cl.clGetDeviceInfo, dev, _CL_DEVICE_NAME), kind.value, bool(avail.value),
                          platform_name))
    return found


def device_name(target: str) -> Optional[str]:
    """The device regions of `target` run on here ('cpu' or 'opencl'), or None (no device)."""
    return cpu_name() if target == "cpu" else opencl_device_name()


def _read(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) and doc.get("format") == FORMAT else {}


def tuned_rules(source: bytes, target: str) -> tuple[TileSizeRule, ...]:
    """The rules the tuning cache holds for an input of contents `source` on this machine's
    `target` device (none when nothing was tuned for it)."""
    folder = tuning_dir()
    digest = file_digest(source)
    try:
        candidates = sorted(folder.glob(f"{target}-*.json"))
    except OSError:
        return ()
    docs = [doc for doc in map(_read, candidates)
            if any(key.startswith(digest + ":") for key in doc.get("regions", {}))]
    if not docs:
        return ()
    device = device_name(target)
    rules: list[TileSizeRule] = []
    for doc in docs:
        if doc.get("device") != device or doc.get("target") != target:
            continue
        for key, entry in sorted(doc["regions"].items()):
            if not key.startswith(digest + ":"):
                continue
            try:
                for band, sizes in sorted(entry["bands"].items(), key=lambda item: int(item[0])):
                    if sizes and all(isinstance(s, int) and s > 0 for s in sizes):
                        rules.append(TileSizeRule(str(entry["label"]), int(band), tuple(sizes)))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
    return tuple(rules)


def store(target: str, device: str, source: bytes, label: str, entry: dict) -> Path:
    """Record `entry` (its `bands`: band number -> sizes, and what the tuner measured) for region
    `label` of an input of contents `source` on `device`; returns the file written."""
    path = _device_file(target, device)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    doc = _read(path) or {"format": FORMAT, "target": target, "device": device, "regions": {}}
    doc["regions"][region_key(file_digest(source), label)] = {
        **entry, "label": label, "bands": {str(b): list(s) for b, s in entry["bands"].items()}}
    from clangpass.driver.cache import atomic_write
    atomic_write(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    return path
