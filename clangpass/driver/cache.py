# SPDX-License-Identifier: MIT
"""The compile cache: a compile that optimized a region is done once per input and flags.

Key: sha256 of pencilcc's identity (`pencilcc_identity`: version, library
versions, and the contents of every module and header it ships and of every
registered target's code, so that an edited development checkout never reuses
stale objects), the host compiler's identity (`cc --version`, path, size, mtime,
and what `-march=native` resolves to on this machine), the working directory,
the input's name, every flag that reaches the compile (the pass pipeline and the plugin
modules are fields of the `CompileOptions` in them), the code of every plugin pass
registered (`plugin_identity`), the environment variables
the host compiler reads (`GCC_*`, `COMPILER_PATH`, `LIBRARY_PATH`, locale...),
and the host preprocessor's output for the input (`cc FLAGS -E file`): any edit
to the file or to a header it includes changes the key. A command whose host
compile reads files the preprocessor output does not show (`-fprofile-use`,
`-fauto-profile`, `-specs=`, `-fplugin=`, `-B`...) or writes files beside the
object that a cache hit would not (`-save-temps`, `-fdump-*`, `--coverage`...)
is never cached (`cache_key` gives '').

Entry: `<key>.o` (the final object of that input: host part and outlined regions
linked with `-r`) and `<key>.json` (the region records, the runtime link flags,
the stderr of the compile, replayed on a hit so that warnings are not lost, the
same messages as values (`clangpass.diagnostics.Diagnostic`, for clangpass.compile),
and what the caller asked the analysis to extract from the parsed input, its
`exports`). clangpass.compile keeps its shared objects here too, as entries of
their own whose key derives from the input's (clangpass.api), so that the
command line and the Python API share one cache, one identity and one format.
The JSON carries an HMAC-SHA256, under a per-user secret key, of the key, the
JSON's other fields and the object: an entry another process wrote or altered
(even one that recomputed a plain checksum) is a miss, and so is any malformed
entry. Both files are renamed into place, object first, so concurrent `make -j`
compiles of the same file are safe.

Location: `$PENCILCC_CACHE_DIR`, else `$XDG_CACHE_HOME/pencilcc`, else
`~/.cache/pencilcc` (created 0700). `PENCILCC_NO_CACHE=1` disables it. A cache
directory owned by another user, or that another user can write, is not used
(with a warning). The secret key is 32 random bytes in a 0600 file outside the
cache directory: `$PENCILCC_CACHE_KEY_FILE`, else
`$XDG_CONFIG_HOME/pencilcc/cache-key`, else `~/.config/pencilcc/cache-key`.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat
import sys
import tempfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Optional, Sequence

_FORMAT = 3
_SECRET_BYTES = 32

# Flags with which the host compile depends on files `cc -E` does not show, or writes files
# beside its object that a cache hit would not produce (prefixes of the flag as given).
_UNCACHEABLE_FLAGS = (
    "-fprofile-use", "-fauto-profile", "-fbranch-probabilities", "-fprofile-sample-use",
    "-fprofile-instr-use", "-specs", "--specs", "-fplugin", "-B", "-fsanitize-blacklist",
    "-fsanitize-ignorelist",
    "-save-temps", "-fdump-", "-fstack-usage", "-fcallgraph-info", "-gsplit-dwarf", "-aux-info",
    "-ftest-coverage", "--coverage", "-fopt-info",
)
# Environment variables the host compiler (gcc, clang) reads while compiling.
_HOST_ENVIRONMENT = ("COMPILER_PATH", "LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "SOURCE_DATE_EPOCH",
                     "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ",
                     "DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES")
_HOST_ENVIRONMENT_PREFIXES = ("GCC_", "CCC_")


@dataclass(frozen=True)
class CacheEntry:
    object_bytes: bytes
    records: list[dict]          # RegionOutcome.as_record() of every region of the input
    link_flags: list[str]        # runtime_link_flags(...) of its optimized regions
    stderr: str                  # what the compile printed, replayed on a hit
    # The same messages as values (Diagnostic.as_json), in the order printed.
    diagnostics: list[dict] = field(default_factory=list)
    # What the caller's `exports` took from the parsed input (clangpass.driver.compile), JSON;
    # None when it asked for nothing.
    exports: Optional[dict] = None


class UntrustedCache(Exception):
    """The cache directory or the secret key cannot be trusted; the message says why."""


def cache_dir() -> Optional[Path]:
    """The cache directory, or None when caching is disabled."""
    if os.environ.get("PENCILCC_NO_CACHE", "") not in ("", "0"):
        return None
    return cache_root()


def cache_root() -> Path:
    """Where the cache directory is, whether or not caching is enabled (the tuner's choices,
    clangpass.tuning, live there too)."""
    explicit = os.environ.get("PENCILCC_CACHE_DIR", "")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "pencilcc"


def secret_key_path() -> Path:
    """Where the per-user secret key of the cache lives (never inside the cache directory)."""
    explicit = os.environ.get("PENCILCC_CACHE_KEY_FILE", "")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CONFIG_HOME", "")
    return (Path(xdg) if xdg else Path.home() / ".config") / "pencilcc" / "cache-key"


def _check_owned(what: str, path: Path, st: os.stat_result) -> None:
    if st.st_uid != os.geteuid():
        raise UntrustedCache(f"{what} '{path}' belongs to another user")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise UntrustedCache(f"other users can write {what} '{path}' (chmod go-w '{path}')")


def _read_secret(path: Path) -> bytes:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise UntrustedCache(f"the cache key '{path}' is not a regular file")
        _check_owned("the cache key", path, st)
        if st.st_mode & (stat.S_IRGRP | stat.S_IROTH):
            raise UntrustedCache(f"other users can read the cache key '{path}' (chmod 600 '{path}')")
        secret = os.read(fd, _SECRET_BYTES + 1)
    finally:
        os.close(fd)
    if len(secret) != _SECRET_BYTES:
        raise UntrustedCache(f"the cache key '{path}' is not {_SECRET_BYTES} bytes long")
    return secret


def load_secret(path: Path) -> bytes:
    """The secret key in `path`, created (0600, atomically) if there is none yet."""
    try:
        return _read_secret(path)
    except FileNotFoundError:
        pass
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")   # 0600
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(os.urandom(_SECRET_BYTES))
        try:
            os.link(tmp, path)       # never replaces a key another compile made meanwhile
        except FileExistsError:
            pass
    finally:
        os.unlink(tmp)
    return _read_secret(path)


def open_cache() -> tuple[Optional["CompileCache"], str]:
    """The compile cache to use, or None; with the reason to warn about when one was
    configured but cannot be trusted ('' otherwise)."""
    directory = cache_dir()
    if directory is None:
        return None, ""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.stat(directory)
    except OSError:
        return None, ""          # a read-only home: no cache, as with PENCILCC_NO_CACHE
    try:
        if not stat.S_ISDIR(st.st_mode):
            raise UntrustedCache(f"'{directory}' is not a directory")
        _check_owned("the cache directory", directory, st)
        secret = load_secret(secret_key_path())
    except UntrustedCache as exc:
        return None, str(exc)
    except OSError as exc:
        return None, f"cannot read or create the cache key '{secret_key_path()}': {exc.strerror or exc}"
    return CompileCache(directory, secret), ""


@lru_cache(maxsize=1)
def pencilcc_identity() -> str:
    """pencilcc's version, the versions of the libraries that generate code, and a sha256 of
    the contents of its own code and headers and of every registered target's code roots
    (`clangpass.targets.code_roots`: the back ends, the OpenCL runtime's C sources), so that
    an edited development checkout never reuses stale code; once per process. The driver's
    entries and clangpass.compile's share it."""
    import clangpass
    from clangpass.resources import include_dir
    from clangpass.targets import code_roots

    roots = [Path(clangpass.__file__).resolve().parent, include_dir(), *code_roots()]
    digest = hashlib.sha256()
    for root in roots:
        if not root.is_dir():
            continue
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".h", ".c", ".cl") and path.is_file():
                digest.update(f"{root.name}/{path.relative_to(root)}\0".encode())
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return f"{clangpass.__version__}\0{library_versions()}\0{digest.hexdigest()}"


def plugin_identity() -> str:
    """The registered passes of plugins (clangpass.passes.plugins): each one's name and class, and a
    fingerprint of its package's code as `pencilcc_identity` takes pencilcc's (size and mtime of
    every file), so that an edited or upgraded plugin never reuses objects its old code made.
    Not cached: the passes registered change within a process (in-process driver runs)."""
    from clangpass.passes.registry import PASSES, is_builtin

    parts = []
    for name, cls in sorted(PASSES.items()):
        if is_builtin(cls):
            continue
        digest = hashlib.sha256()
        top = sys.modules.get(cls.__module__.partition(".")[0])
        roots = [Path(p) for p in getattr(top, "__path__", ())] or \
            [Path(f) for f in (getattr(sys.modules.get(cls.__module__), "__file__", None),) if f]
        for root in roots:
            for path in sorted(root.rglob("*")) if root.is_dir() else [root]:
                if path.suffix in (".py", ".so", ".json") and path.is_file():
                    stat_ = path.stat()
                    digest.update(f"{path}\0{stat_.st_size}\0{stat_.st_mtime_ns}\n".encode())
        parts.append(f"{name}={cls.__module__}.{cls.__qualname__}:{digest.hexdigest()}")
    return "\0".join(parts)


def library_versions() -> str:
    """The versions of the libraries whose behaviour a compile depends on (libclang, islpy, llvmlite)."""
    from importlib import metadata      # only with the cache: importing it costs 20 ms

    versions = []
    for distribution in ("libclang", "islpy", "llvmlite"):
        try:
            versions.append(f"{distribution}={metadata.version(distribution)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{distribution}=?")
    return " ".join(versions)


def uncacheable_flag(flags: Sequence[str]) -> str:
    """The first flag that keeps a compile out of the cache, or ''."""
    return next((f for f in flags if f.startswith(_UNCACHEABLE_FLAGS)), "")


def host_environment() -> list[str]:
    """`NAME=value` of every environment variable the host compiler reads, sorted."""
    return sorted(f"{name}={value}" for name, value in os.environ.items()
                  if name in _HOST_ENVIRONMENT or name.startswith(_HOST_ENVIRONMENT_PREFIXES))


def cache_key(host_identity: str, cwd: str, source: str, flags: Sequence[str],
              preprocessed: bytes) -> str:
    """The entry's key, or '' when the compile must not be cached (`uncacheable_flag`)."""
    if uncacheable_flag(flags):
        return ""
    digest = hashlib.sha256()
    for part in (f"pencilcc-cache-{_FORMAT}", pencilcc_identity(), host_identity, cwd, source,
                 "\0".join(flags), "\0".join(host_environment())):
        digest.update(part.encode("utf-8", errors="surrogateescape"))
        digest.update(b"\0\1")
    digest.update(preprocessed)
    return digest.hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file and a rename: readers see the old file or the new one."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def read_regular(path: Path) -> bytes:
    """A file's bytes, if it is a regular file (not a link to /dev/zero or a FIFO)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    finally:
        os.close(fd)


def _is_entry_shape(meta: object) -> bool:
    return (isinstance(meta, dict) and meta.get("format") == _FORMAT
            and isinstance(meta.get("mac"), str)
            and isinstance(meta.get("records"), list) and all(isinstance(r, dict) for r in meta["records"])
            and isinstance(meta.get("link_flags"), list)
            and all(isinstance(f, str) for f in meta["link_flags"])
            and isinstance(meta.get("stderr"), str)
            and isinstance(meta.get("diagnostics"), list) and all(isinstance(d, dict) for d in meta["diagnostics"])
            and (meta.get("exports") is None or isinstance(meta["exports"], dict)))


class CompileCache:
    def __init__(self, directory: Path, secret: bytes) -> None:
        self.directory = directory
        self._secret = secret

    def _paths(self, key: str) -> tuple[Path, Path]:
        folder = self.directory / key[:2]
        return folder / f"{key}.o", folder / f"{key}.json"

    def path(self, key: str) -> Path:
        """Where the object of `key`'s entry lives (clangpass.compile loads its shared objects
        from there, once `load` has checked them)."""
        return self._paths(key)[0]

    def _mac(self, key: str, meta: dict, object_bytes: bytes) -> str:
        """What authenticates an entry: every field, the object, and the key it answers."""
        fields = json.dumps([key, {k: v for k, v in meta.items() if k != "mac"}], sort_keys=True).encode()
        mac = hmac.new(self._secret, digestmod=hashlib.sha256)
        mac.update(len(fields).to_bytes(8, "little") + fields)
        mac.update(object_bytes)
        return mac.hexdigest()

    def load(self, key: str) -> Optional[CacheEntry]:
        """The entry for `key`; None for a miss, which is also what any damaged, foreign or
        malformed entry is."""
        obj_path, meta_path = self._paths(key)
        try:
            meta = json.loads(read_regular(meta_path))
            if not _is_entry_shape(meta):
                return None
            data = read_regular(obj_path)
        except (OSError, ValueError, RecursionError):
            return None
        if not hmac.compare_digest(meta["mac"], self._mac(key, meta, data)):
            return None
        return CacheEntry(data, list(meta["records"]), list(meta["link_flags"]), meta["stderr"],
                          list(meta["diagnostics"]), meta.get("exports"))

    def store(self, key: str, entry: CacheEntry) -> None:
        """Best effort: a full disk or a read-only cache never fails the compile."""
        obj_path, meta_path = self._paths(key)
        meta = {"format": _FORMAT, "records": entry.records, "link_flags": entry.link_flags,
                "stderr": entry.stderr, "diagnostics": entry.diagnostics, "exports": entry.exports}
        meta["mac"] = self._mac(key, meta, entry.object_bytes)
        try:
            obj_path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            atomic_write(obj_path, entry.object_bytes)
            atomic_write(meta_path, json.dumps(meta, indent=1, sort_keys=True).encode())
        except OSError:
            pass
