# SPDX-License-Identifier: MIT
"""Test-suite wide settings.

Every test compiles into a compile cache of its own session (never the user's
~/.cache/pencilcc, nor the cache key in ~/.config/pencilcc), so a stale cache
entry can never make a test pass; tests of the cache itself point
PENCILCC_CACHE_DIR, PENCILCC_CACHE_KEY_FILE or PENCILCC_NO_CACHE where they need.
"""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_compile_cache(tmp_path_factory):
    previous = {name: os.environ.get(name) for name in ("PENCILCC_CACHE_DIR", "PENCILCC_CACHE_KEY_FILE")}
    os.environ["PENCILCC_CACHE_DIR"] = str(tmp_path_factory.mktemp("pencilcc-cache"))
    os.environ["PENCILCC_CACHE_KEY_FILE"] = str(tmp_path_factory.mktemp("pencilcc-config") / "cache-key")
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
