# SPDX-License-Identifier: MIT
"""The tuning cache: the tile and work-group sizes `pencilcc-tune` chose, per device and region.

Where: `<cache root>/tuned/` (clangpass.driver.cache.cache_root: `$PENCILCC_CACHE_DIR`, else
`$XDG_CACHE_HOME/pencilcc`, else `~/.cache/pencilcc`), one JSON file per target and device,
`<target>-<device digest>.json` (on the OpenCL target, for the `cpu` mapping,
`opencl-<device digest>-cpu.json`):

    {"format": 1, "target": "cpu", "device": "<CPU model name or OpenCL device name>",
     "regions": {"<sha256 of the input file>:<region label>": {
         "file": "<path when tuned>", "label": "kernel_gemm#0",
         "bands": {"0": [32, 64, 128]}, "seconds": 0.41, "model_seconds": 0.52,
         "start_seconds": 0.52, "evaluations": 12, "repeat": 3, "min_gain": 5.0}}}

`bands` names only the bands whose sizes beat the default (no rule: the cache model, the
OpenCL runtime's work-group) by the tuner's margin; `{}` when the default was kept. On the
OpenCL target the document also has `"mapping"`: `gpu` or `cpu`, the mapping the device runs
(`opencl_mapping`: PENCILCC_OPENCL_MAPPING, else `cpu` where the device's local memory is
global memory, as the runtime's pencilcc_cl_mapping decides), and an entry of the `cpu`
mapping may have `direct_bands` beside `bands`: the work-groups of tiled kernels' direct
variants (the kernels that mapping launches; `direct:` rules, clangpass.tile_spec), while
`bands` there sizes the kernels that are not tiled. A document without `mapping` (written
before there were two) is the `gpu` mapping's, so choices for one mapping never size the
other's kernels.
`model_seconds` (and `start_seconds`, the same: the search's first candidate) is the default
build's time, `seconds` the chosen sizes'.

A region is the input file's contents (so an edit of the file forgets its sizes), its
function and its index in the function (the label: `fn`, `fn#1`). A band is numbered as
-fpencil-tile-sizes= numbers it (clangpass.tile_spec). The device: on the CPU the model name
/proc/cpuinfo gives (else the platform's processor and machine); on the OpenCL target the
device the runtime would choose (PENCILCC_DEVICE, else the first GPU, else the first
device: runtime/pencilcc_runtime_device.c), asked through the OpenCL library with ctypes,
and only when the cache holds something for the input; the mapping, the same way.

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
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from clangpass.tile_spec import DIRECT, TileSizeRule

FORMAT = 1


def tuning_dir() -> Path:
    from clangpass.driver.cache import cache_root

    return cache_root() / "tuned"


def file_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def region_key(digest: str, label: str) -> str:
    return f"{digest}:{label}"


def _device_file(target: str, device: str, mapping: str = "") -> Path:
    """The file of `target`'s choices on `device` for `mapping` (the OpenCL target's `cpu`
    mapping has a file of its own; the `gpu` mapping keeps the name from before mappings)."""
    suffix = "-cpu" if mapping == CPU_MAPPING else ""
    return tuning_dir() / f"{target}-{hashlib.sha256(device.encode()).hexdigest()[:16]}{suffix}.json"


#: The OpenCL runtime's mappings (PENCILCC_OPENCL_MAPPING): tiled kernels, or their direct variants.
GPU_MAPPING, CPU_MAPPING = "gpu", "cpu"


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


@dataclass(frozen=True)
class OpenclDevice:
    """What the tuner and the build need of an OpenCL device."""

    name: str
    #: CL_DEVICE_LOCAL_MEM_TYPE is CL_GLOBAL (CPU devices such as PoCL): the runtime's `cpu` mapping.
    global_local_memory: bool = False
    #: CL_DEVICE_MAX_WORK_GROUP_SIZE and CL_DEVICE_MAX_WORK_ITEM_SIZES (0: unknown).
    max_work_group: int = 0
    max_work_items: tuple[int, ...] = ()


@functools.lru_cache(maxsize=4)
def opencl_device(want: Optional[str] = None) -> Optional[OpenclDevice]:
    """The OpenCL device the runtime would choose (`want`: PENCILCC_DEVICE's value, None: the
    environment's), or None where there is none."""
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
    return pick[6] if pick else None


def opencl_device_name(want: Optional[str] = None) -> Optional[str]:
    """The name of the OpenCL device the runtime would choose (see `opencl_device`), or None."""
    device = opencl_device(want)
    return device.name if device is not None else None


def opencl_mapping(device: Optional[OpenclDevice] = None) -> str:
    """The mapping the runtime runs on `device` (default: the one it would choose), as its
    pencilcc_cl_mapping decides: PENCILCC_OPENCL_MAPPING=gpu or cpu, else (auto, unset or
    another value) `cpu` where the device's local memory is global memory, `gpu` otherwise."""
    want = os.environ.get("PENCILCC_OPENCL_MAPPING", "").strip().lower()
    if want in (GPU_MAPPING, CPU_MAPPING):
        return want
    device = device if device is not None else opencl_device()
    return CPU_MAPPING if device is not None and device.global_local_memory else GPU_MAPPING


_CL_DEVICE_TYPE_CPU, _CL_DEVICE_TYPE_GPU, _CL_DEVICE_TYPE_ACCELERATOR = 2, 4, 8
_TYPES = {"cpu": _CL_DEVICE_TYPE_CPU, "gpu": _CL_DEVICE_TYPE_GPU, "accelerator": _CL_DEVICE_TYPE_ACCELERATOR}
_CL_PLATFORM_NAME, _CL_DEVICE_TYPE, _CL_DEVICE_NAME, _CL_DEVICE_AVAILABLE = 0x0902, 0x1000, 0x102B, 0x1027
_CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, _CL_DEVICE_MAX_WORK_GROUP_SIZE, _CL_DEVICE_MAX_WORK_ITEM_SIZES = \
    0x1003, 0x1004, 0x1005
_CL_DEVICE_LOCAL_MEM_TYPE, _CL_GLOBAL = 0x1022, 2
_CL_DEVICE_TYPE_ALL = 0xFFFFFFFF


def _opencl_devices() -> list[tuple[int, int, str, int, bool, str, OpenclDevice]]:
    """(platform index, device index, device name, type, available, platform name, device) of
    every device, in the runtime's order; [] without an OpenCL library or platform."""
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
            memory, largest, dims = u32(0), ctypes.c_size_t(0), u32(0)
            cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_LOCAL_MEM_TYPE), ctypes.c_size_t(4), ctypes.byref(memory), None)
            cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_MAX_WORK_GROUP_SIZE), ctypes.c_size_t(ctypes.sizeof(largest)),
                               ctypes.byref(largest), None)
            items: tuple[int, ...] = ()
            if cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS), ctypes.c_size_t(4),
                                  ctypes.byref(dims), None) == 0 and 1 <= dims.value <= 16:
                sizes = (ctypes.c_size_t * dims.value)()
                if cl.clGetDeviceInfo(vp(dev), u32(_CL_DEVICE_MAX_WORK_ITEM_SIZES),
                                      ctypes.c_size_t(ctypes.sizeof(sizes)), sizes, None) == 0:
                    items = tuple(int(x) for x in sizes)
            name = text(cl.clGetDeviceInfo, dev, _CL_DEVICE_NAME)
            found.append((p, d, name, kind.value, bool(avail.value), platform_name,
                          OpenclDevice(name, memory.value == _CL_GLOBAL, int(largest.value), items)))
    return found


def device_name(target: str) -> Optional[str]:
    """The device regions of `target` run on here ('cpu' or 'opencl'), or None (no device)."""
    return cpu_name() if target == "cpu" else opencl_device_name()


def mapping_of(target: str) -> str:
    """The mapping choices of `target` are kept for here: '' on the CPU target, else
    `opencl_mapping`'s."""
    return "" if target == "cpu" else opencl_mapping()


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
    mapping = mapping_of(target)
    rules: list[TileSizeRule] = []
    for doc in docs:
        if doc.get("device") != device or doc.get("target") != target:
            continue
        if target != "cpu" and doc.get("mapping", GPU_MAPPING) != mapping:
            continue
        for key, entry in sorted(doc["regions"].items()):
            if not key.startswith(digest + ":"):
                continue
            try:
                for field, variant in (("bands", ""), ("direct_bands", DIRECT)):
                    for band, sizes in sorted(entry.get(field, {}).items(), key=lambda item: int(item[0])):
                        if sizes and all(isinstance(s, int) and s > 0 for s in sizes):
                            rules.append(TileSizeRule(str(entry["label"]), int(band), tuple(sizes), variant))
            except (KeyError, TypeError, ValueError, AttributeError):
                continue
    return tuple(rules)


def store(target: str, device: str, source: bytes, label: str, entry: dict, mapping: str = "") -> Path:
    """Record `entry` (its `bands`, and on the OpenCL target's `cpu` mapping `direct_bands`: band
    number -> sizes; and what the tuner measured) for region `label` of an input of contents
    `source` on `device` under `mapping` (the OpenCL target's; '' there: `gpu`); returns the
    file written."""
    if target != "cpu":
        mapping = mapping or GPU_MAPPING
    path = _device_file(target, device, mapping)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    doc = _read(path) or {"format": FORMAT, "target": target, "device": device, "regions": {}}
    if target != "cpu":
        doc["mapping"] = mapping
    sized = {field: {str(b): list(s) for b, s in entry[field].items()}
             for field in ("bands", "direct_bands") if field in entry}
    doc["regions"][region_key(file_digest(source), label)] = {**entry, "label": label, **sized}
    from clangpass.driver.cache import atomic_write
    atomic_write(path, (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode())
    return path
