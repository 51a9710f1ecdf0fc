# SPDX-License-Identifier: MIT
"""Test-suite wide settings.

Every test compiles into a compile cache of its own session (never the user's
~/.cache/pencilcc), so a stale cache entry can never make a test pass; tests of
the cache itself point PENCILCC_CACHE_DIR or PENCILCC_NO_CACHE where they need.
"""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def private_compile_cache(tmp_path_factory):
    previous = os.environ.get("PENCILCC_CACHE_DIR")
    os.environ["PENCILCC_CACHE_DIR"] = str(tmp_path_factory.mktemp("pencilcc-cache"))
    yield
    if previous is None:
        os.environ.pop("PENCILCC_CACHE_DIR", None)
    else:
        os.environ["PENCILCC_CACHE_DIR"] = previous
