# SPDX-License-Identifier: MIT
"""Which user headers may define PENCIL code (issue 30), decided from their text alone.

A `static` PENCIL function or `#pragma scop` region may live in a header the main
file includes (the PENCIL benchmarks' HOG keeps its kernels so). A header whose text
never spells `scop` or `pencil` defines none: the driver's pre-check
(clangpass.driver.sources) follows includes through such words to decide whether
to parse a file at all, and the front end (clangpass.frontend) reads the function
definitions only of the headers that have them. Both read a header's text through
`header_text`, cached by path, size and modification time. Nothing here loads
libclang.
"""
from __future__ import annotations

import os
import re
from functools import lru_cache

MAY_DEFINE_PENCIL = re.compile(rb"scop|pencil")


def header_text(path: str) -> bytes:
    """The bytes of the file `path` (b'' when it cannot be read)."""
    try:
        status = os.stat(path)
    except OSError:
        return b""
    return _read(path, status.st_size, status.st_mtime_ns)


def may_define_pencil(path: str) -> bool:
    """Whether the header `path` spells `scop` or `pencil` anywhere."""
    return MAY_DEFINE_PENCIL.search(header_text(path)) is not None


@lru_cache(maxsize=256)
def _read(path: str, size: int, mtime_ns: int) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""
