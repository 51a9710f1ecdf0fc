# SPDX-License-Identifier: MIT
"""The host C compiler pencilcc delegates to, and facts about it.

The host compiler is `$PENCILCC_CC`, else `$CC` when that is not pencilcc itself,
else `cc`. libclang's wheel ships no resource headers (stddef.h, stdarg.h, immintrin.h...).
The front end reads a file as clang would, with clang's own builtin headers, where an
installed clang (or Debian's libclang-common-N-dev) provides them: gcc's intrinsic headers
(immintrin.h and the rest) use gcc builtins with gcc's signatures, which clang cannot parse.
Without them it borrows the host compiler's builtin include directory, found once per
compiler with `-print-file-name=include`.
"""
from __future__ import annotations

import glob
import os
import re
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


# `builtin_include_dir`'s commands started ahead (`start_builtin_include_dir`), by compiler, and
# the compilers it has answered for.
_started: dict[tuple[str, ...], subprocess.Popen] = {}
_known: set[tuple[str, ...]] = set()


def start_builtin_include_dir(cc: tuple[str, ...]) -> None:
    """Start the command `builtin_include_dir(cc)` waits for, so that it runs while the driver
    imports the compile path (5 ms of wall time less); it takes the answer."""
    if cc in _started or cc in _known:
        return
    if shutil.which(cc[0]) is None:
        return
    try:
        _started[cc] = subprocess.Popen([*cc, "-print-file-name=include"], stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
    except OSError:
        pass


@lru_cache(maxsize=8)
def builtin_include_dir(cc: tuple[str, ...]) -> str | None:
    """The host compiler's own header directory (stddef.h, stdarg.h, ...), or None."""
    _known.add(cc)
    started = _started.pop(cc, None)
    if shutil.which(cc[0]) is None:
        if started is not None:
            started.kill()
            started.communicate()
        return None
    try:
        if started is not None:
            try:
                out = started.communicate(timeout=30)[0].strip()
            except subprocess.TimeoutExpired:
                started.kill()
                started.communicate()
                raise
        else:
            out = subprocess.run([*cc, "-print-file-name=include"], capture_output=True,
                                 text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out and os.path.isdir(out) else None


def _libclang_major() -> int:
    """The major version of the libclang the front end loads (the `libclang` wheel's)."""
    try:
        from importlib.metadata import version
        return int(version("libclang").split(".")[0])
    except Exception:  # noqa: BLE001 - a libclang from elsewhere: assume the wheel's series
        return 18


_RESOURCE_GLOBS = ("/usr/lib/llvm-*/lib/clang/*/include", "/usr/lib/clang/*/include",
                   "/usr/local/lib/clang/*/include", "/usr/lib64/clang/*/include")


@lru_cache(maxsize=1)
def clang_resource_include() -> str | None:
    """clang's builtin header directory for the front end, or None.

    `$PENCILCC_CLANG_RESOURCE_DIR` (a clang resource directory, or its include/) wins;
    otherwise the newest installed one whose major version is not above libclang's: headers
    of an older clang only call builtins the newer libclang also knows, and those of a newer
    clang may call builtins it does not."""
    forced = os.environ.get("PENCILCC_CLANG_RESOURCE_DIR", "").strip()
    if forced:
        for candidate in (os.path.join(forced, "include"), forced):
            if os.path.isfile(os.path.join(candidate, "stddef.h")):
                return candidate
        return None
    limit = _libclang_major()
    best: tuple[int, str] | None = None
    for pattern in _RESOURCE_GLOBS:
        for path in sorted(glob.glob(pattern)):
            match = re.search(r"/clang/(\d+)[^/]*/include$", path)
            if not match or not os.path.isfile(os.path.join(path, "immintrin.h")):
                continue
            major = int(match.group(1))
            if major <= limit and (best is None or major > best[0]):
                best = (major, path)
    return best[1] if best else None
