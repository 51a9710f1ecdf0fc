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


class HostCommandError(ValueError):
    """$PENCILCC_CC or $CC cannot be the host compiler (bad quoting, or it runs pencilcc)."""


def runs_pencilcc(command: list[str]) -> bool:
    """Whether a word of `command` (not an option) names pencilcc: `pencilcc`, `env pencilcc`,
    `ccache /usr/bin/pencilcc` would make pencilcc start itself again and again."""
    return any(not word.startswith("-") and os.path.basename(word).startswith("pencilcc")
               for word in command)


def host_cc() -> list[str]:
    """The host compiler command as an argument list; raises HostCommandError."""
    for var in ("PENCILCC_CC", "CC"):
        value = os.environ.get(var, "").strip()
        if not value:
            continue
        try:
            command = shlex.split(value)
        except ValueError as exc:
            raise HostCommandError(f"${var} is not a valid command ({exc}): {value}") from None
        if not runs_pencilcc(command):
            return command
        # $CC names pencilcc when pencilcc is what `make` runs: the host is found elsewhere.
        # $PENCILCC_CC exists to name the host, so naming pencilcc there is a mistake.
        if var == "PENCILCC_CC":
            raise HostCommandError(f"$PENCILCC_CC runs pencilcc itself ({value}); set it to a C "
                                   "compiler such as gcc or clang")
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
