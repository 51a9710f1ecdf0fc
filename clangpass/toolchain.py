# SPDX-License-Identifier: MIT
"""The host C compiler pencilcc delegates to, and facts about it.

The host compiler is `$PENCILCC_CC`, else `$CC` when that is not pencilcc itself,
else `cc`. libclang's wheel ships no resource headers (stddef.h, stdarg.h...), so the
front end borrows the host compiler's builtin include directory, found once per
compiler with `-print-file-name=include`.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from functools import lru_cache


def _is_pencilcc(command: str) -> bool:
    name = os.path.basename(shlex.split(command)[0]) if command.strip() else ""
    return name.startswith("pencilcc")


def host_cc() -> list[str]:
    """The host compiler command as an argument list."""
    for var in ("PENCILCC_CC", "CC"):
        value = os.environ.get(var, "").strip()
        if value and not _is_pencilcc(value):
            return shlex.split(value)
    return ["cc"]


@lru_cache(maxsize=8)
def builtin_include_dir(cc: tuple[str, ...]) -> str | None:
    """The host compiler's own header directory (stddef.h, stdarg.h, ...), or None."""
    if shutil.which(cc[0]) is None:
        return None
    try:
        out = subprocess.run([*cc, "-print-file-name=include"], capture_output=True,
                             text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out and os.path.isdir(out) else None
