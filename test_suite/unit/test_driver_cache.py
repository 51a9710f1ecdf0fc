# SPDX-License-Identifier: MIT
"""clangpass.driver.cache: entries are authenticated with the per-user key, anything
malformed or foreign is a miss, untrusted directories and keys are refused, and the
key covers what the host compiler reads besides the preprocessed source."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from clangpass.driver import cache as C

KEY = "ab" + "0" * 62
ENTRY = C.CacheEntry(b"\x7fELF object bytes", [{"function": "f", "status": "optimized"}],
                     ["-fopenmp", "-lm"], "k.c:3:1: warning: something\n",
                     [{"id": "pencil", "severity": "warning", "file": "k.c", "line": 3, "column": 1,
                       "message": "something", "option": "-Wpencil"}],
                     {"functions": [{"name": "f"}], "includes": []})


@pytest.fixture()
def store(tmp_path: Path) -> C.CompileCache:
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o700)
    cache = C.CompileCache(directory, b"s" * 32)
    cache.store(KEY, ENTRY)
    return cache


def paths(cache: C.CompileCache, key: str = KEY) -> tuple[Path, Path]:
    return cache.directory / key[:2] / f"{key}.o", cache.directory / key[:2] / f"{key}.json"


def test_stored_entry_loads_back(store: C.CompileCache) -> None:
    assert store.load(KEY) == ENTRY
    assert store.load("cd" + "0" * 62) is None
    assert store.path(KEY) == paths(store)[0]


def test_entry_diagnostics_are_values() -> None:
    from clangpass.diagnostics import Diagnostic

    [warning] = [Diagnostic.from_json(d) for d in ENTRY.diagnostics]
    assert (warning.id, warning.severity, warning.option, str(warning.loc)) == \
        ("pencil", "warning", "-Wpencil", "k.c:3:1")
    assert Diagnostic.from_json(warning.as_json()) == warning
    with pytest.raises((ValueError, TypeError, KeyError)):
        Diagnostic.from_json({**ENTRY.diagnostics[0], "severity": "panic"})


@pytest.mark.parametrize("meta", [
    b"{ not json", b"[1, 2]", b"null", b'"text"', b"{}", b"\xff\xfe{}",
    b"[" * 100000 + b"]" * 100000,
], ids=["bad-json", "list", "null", "string", "empty", "not-utf8", "deep"])
def test_malformed_json_is_a_miss(store: C.CompileCache, meta: bytes) -> None:
    paths(store)[1].write_bytes(meta)
    assert store.load(KEY) is None


@pytest.mark.parametrize("field, value", [
    ("format", 1), ("records", "none"), ("records", [1]), ("link_flags", [1]),
    ("link_flags", "-lm"), ("stderr", None), ("mac", 5), ("diagnostics", "warning"),
    ("diagnostics", ["warning"]), ("exports", []),
])
def test_entry_of_the_wrong_shape_is_a_miss(store: C.CompileCache, field: str, value) -> None:
    meta_path = paths(store)[1]
    meta = json.loads(meta_path.read_text())
    meta[field] = value
    meta_path.write_text(json.dumps(meta))
    assert store.load(KEY) is None


def test_missing_or_odd_object_is_a_miss(store: C.CompileCache) -> None:
    obj_path = paths(store)[0]
    obj_path.unlink()
    assert store.load(KEY) is None
    obj_path.mkdir()
    assert store.load(KEY) is None
    obj_path.rmdir()
    obj_path.symlink_to("/dev/zero")
    assert store.load(KEY) is None


def test_swapped_object_with_recomputed_checksum_is_a_miss(store: C.CompileCache) -> None:
    obj_path, meta_path = paths(store)
    evil = b"\x7fELF another object"
    obj_path.write_bytes(evil)
    meta = json.loads(meta_path.read_text())
    meta["mac"] = hashlib.sha256(evil).hexdigest()
    meta_path.write_text(json.dumps(meta))
    assert store.load(KEY) is None


@pytest.mark.parametrize("field, value", [("link_flags", ["-Wl,--wrap=main"]), ("stderr", ""),
                                          ("records", []), ("diagnostics", []), ("exports", None),
                                          ("exports", {"functions": [{"name": "system"}]}),
                                          ("extra", "field")])
def test_altered_fields_are_a_miss(store: C.CompileCache, field: str, value) -> None:
    meta_path = paths(store)[1]
    meta = json.loads(meta_path.read_text())
    meta[field] = value
    meta_path.write_text(json.dumps(meta))
    assert store.load(KEY) is None


def test_entry_written_with_another_key_is_a_miss(store: C.CompileCache) -> None:
    other = C.CompileCache(store.directory, b"t" * 32)
    assert other.load(KEY) is None
    other.store(KEY, ENTRY)
    assert store.load(KEY) is None and other.load(KEY) == ENTRY


def test_entry_moved_to_another_key_is_a_miss(store: C.CompileCache) -> None:
    moved = "ab" + "1" * 62
    for old, new in zip(paths(store), paths(store, moved)):
        new.write_bytes(old.read_bytes())
    assert store.load(moved) is None


# ----------------------------------------------------------------------------- open_cache
@pytest.fixture()
def cache_env(tmp_path: Path, monkeypatch) -> Path:
    monkeypatch.delenv("PENCILCC_NO_CACHE", raising=False)
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PENCILCC_CACHE_KEY_FILE", str(tmp_path / "config" / "pencilcc" / "cache-key"))
    return tmp_path


def test_open_cache_creates_private_directory_and_key(cache_env: Path) -> None:
    cache, problem = C.open_cache()
    assert cache is not None and problem == ""
    assert (cache_env / "cache").stat().st_mode & 0o777 == 0o700
    key = cache_env / "config" / "pencilcc" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600 and len(key.read_bytes()) == 32
    again, _ = C.open_cache()
    assert again is not None and again._secret == cache._secret == key.read_bytes()


def test_key_location_defaults_to_the_config_directory(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.delenv("PENCILCC_CACHE_KEY_FILE", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert C.secret_key_path() == tmp_path / "xdg" / "pencilcc" / "cache-key"


@pytest.mark.parametrize("mode", [0o777, 0o770, 0o722])
def test_directory_others_can_write_is_refused(cache_env: Path, mode: int) -> None:
    (cache_env / "cache").mkdir()
    (cache_env / "cache").chmod(mode)
    cache, problem = C.open_cache()
    assert cache is None and "other users can write the cache directory" in problem


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a directory to another user needs root")
def test_directory_of_another_user_is_refused(cache_env: Path) -> None:
    (cache_env / "cache").mkdir(mode=0o700)
    os.chown(cache_env / "cache", 65534, 65534)
    cache, problem = C.open_cache()
    assert cache is None and "belongs to another user" in problem


def test_readable_or_short_key_is_refused(cache_env: Path) -> None:
    key = cache_env / "config" / "pencilcc" / "cache-key"
    key.parent.mkdir(parents=True)
    key.write_bytes(b"k" * 32)
    key.chmod(0o644)
    cache, problem = C.open_cache()
    assert cache is None and "other users can read the cache key" in problem
    key.chmod(0o600)
    key.write_bytes(b"short")
    cache, problem = C.open_cache()
    assert cache is None and "is not 32 bytes long" in problem
    key.unlink()
    key.symlink_to(cache_env / "elsewhere")
    cache, problem = C.open_cache()
    assert cache is None and problem


def test_disabled_cache_is_silent(monkeypatch) -> None:
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    assert C.open_cache() == (None, "")


# ----------------------------------------------------------------------------- cache_key
def key_of(flags=("-O2",)) -> str:
    return C.cache_key("cc 12", "/work", "k.c", list(flags), b"int x;")


@pytest.mark.parametrize("flag", ["-fprofile-use", "-fprofile-use=dir", "-fauto-profile",
                                  "-specs=x.specs", "--specs=x", "-fplugin=p.so", "-B/opt/gcc",
                                  "-save-temps", "-fdump-tree-all", "--coverage"])
def test_flags_with_unseen_inputs_or_outputs_are_not_cached(flag: str) -> None:
    assert key_of(["-O2", flag]) == ""
    assert C.uncacheable_flag(["-O2", flag]) == flag


def test_key_covers_host_environment(monkeypatch) -> None:
    for name in ("GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH", "GCC_COMPARE_DEBUG"):
        monkeypatch.delenv(name, raising=False)
    base = key_of()
    assert base and key_of() == base
    for name in ("GCC_EXEC_PREFIX", "COMPILER_PATH", "LIBRARY_PATH"):
        monkeypatch.setenv(name, "/opt/other")
        assert key_of() != base, name
        monkeypatch.delenv(name)
    monkeypatch.setenv("SOME_UNRELATED_VARIABLE", "1")
    assert key_of() == base
