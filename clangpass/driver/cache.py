# SPDX-License-Identifier: MIT
"""The compile cache: a compile that optimized a region is done once per input and flags.

Key: sha256 of pencilcc's identity (version, and the size and mtime of every
module and header it ships, so that an edited development checkout never reuses
stale objects), the host compiler's identity (`cc --version`, path, size, mtime),
the working directory, the input's name, every flag that reaches the compile,
and the host preprocessor's output for the input (`cc FLAGS -E file`): any edit
to the file or to a header it includes changes the key.

Entry: `<key>.o` (the final object of that input: host part and outlined regions
linked with `-r`) and `<key>.json` (the region records, the runtime link flags
and the stderr of the compile, replayed on a hit so that warnings are not lost).
The object is written first and the JSON names its sha256, so a reader never
takes a half-written or mismatched pair; both are renamed into place, so
concurrent `make -j` compiles of the same file are safe.

Location: `$PENCILCC_CACHE_DIR`, else `$XDG_CACHE_HOME/pencilcc`, else
`~/.cache/pencilcc`. `PENCILCC_NO_CACHE=1` disables it.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import Optional, Sequence

_FORMAT = 1


@dataclass(frozen=True)
class CacheEntry:
    object_bytes: bytes
    records: list[dict]          # RegionOutcome.as_record() of every region of the input
    link_flags: list[str]        # runtime_link_flags(...) of its optimized regions
    stderr: str                  # what the compile printed, replayed on a hit


def cache_dir() -> Optional[Path]:
    """The cache directory, or None when caching is disabled."""
    if os.environ.get("PENCILCC_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("PENCILCC_CACHE_DIR", "")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pencilcc"


@lru_cache(maxsize=1)
def pencilcc_identity() -> str:
    """Version plus a fingerprint of pencilcc's own code and headers."""
    import clangpass
    from clangpass.resources import include_dir

    roots = [Path(clangpass.__file__).resolve().parent, include_dir()]
    try:
        import llvm_backend

        roots.append(Path(llvm_backend.__file__).resolve().parent)
    except ImportError:
        pass
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".h", ".c") and path.is_file():
                stat = path.stat()
                digest.update(f"{path.relative_to(root)}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
    versions = []
    for distribution in ("libclang", "islpy", "llvmlite"):
        try:
            versions.append(f"{distribution}={metadata.version(distribution)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{distribution}=?")
    return f"{clangpass.__version__}\0{' '.join(versions)}\0{digest.hexdigest()}"


def cache_key(host_identity: str, cwd: str, source: str, flags: Sequence[str],
              preprocessed: bytes) -> str:
    digest = hashlib.sha256()
    for part in (f"pencilcc-cache-{_FORMAT}", pencilcc_identity(), host_identity, cwd, source,
                 "\0".join(flags)):
        digest.update(part.encode("utf-8", errors="surrogateescape"))
        digest.update(b"\0\1")
    digest.update(preprocessed)
    return digest.hexdigest()


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class CompileCache:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = self.directory / key[:2]
        return folder / f"{key}.o", folder / f"{key}.json"

    def load(self, key: str) -> Optional[CacheEntry]:
        obj_path, meta_path = self._paths(key)
        try:
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            data = obj_path.read_bytes()
        except (OSError, ValueError):
            return None
        if meta.get("format") != _FORMAT or meta.get("object_sha256") != hashlib.sha256(data).hexdigest():
            return None
        return CacheEntry(data, list(meta["records"]), list(meta["link_flags"]), meta["stderr"])

    def store(self, key: str, entry: CacheEntry) -> None:
        """Best effort: a full disk or a read-only cache never fails the compile."""
        obj_path, meta_path = self._paths(key)
        meta = {"format": _FORMAT, "object_sha256": hashlib.sha256(entry.object_bytes).hexdigest(),
                "records": entry.records, "link_flags": entry.link_flags, "stderr": entry.stderr}
        try:
            obj_path.parent.mkdir(parents=True, exist_ok=True)
            _atomic_write(obj_path, entry.object_bytes)
            _atomic_write(meta_path, json.dumps(meta, indent=1, sort_keys=True).encode())
        except OSError:
            pass
