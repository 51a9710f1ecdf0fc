# SPDX-License-Identifier: MIT
"""C inputs before pencilcc looks inside them: reading, the PENCIL pre-check, plain host compiles.

Nothing here loads libclang, islpy or LLVM: a command whose C files cannot hold
PENCIL code (most files of a project built with `make CC=pencilcc`) is served by
this module and the host compiler alone, at the cost of reading each file once.
"""
from __future__ import annotations

import os
import re
from typing import Sequence

from clangpass.driver.cli import DriverConfig, InputFile
from clangpass.driver.host import HostCompiler
from clangpass.pencil_headers import MAY_DEFINE_PENCIL, header_text

# A file without these words cannot hold a region: no `#pragma scop`, no `#pragma pencil`,
# no `__attribute__((pencil))`/PENCIL/pencil_array, no `static const restrict` parameter.
_MAY_HOLD_PENCIL = re.compile(rb"scop|pencil|restrict")
# Under -fpencil-detect a file with a `for` loop may hold a region too (clangpass.detect).
_MAY_HOLD_LOOP = re.compile(rb"\bfor\b")
# What makes a -Wpencil warning worth printing when pencilcc cannot look inside a file.
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
_MENTIONS_PENCIL = re.compile(rb"#\s*pragma\s+(scop|pencil)|__attribute__\s*\(\(\s*pencil|\bPENCIL\b")


class DriverError(Exception):
    """A problem with the user's input, printed as one `pencilcc: error: ...` line."""


class HostCompileFailed(Exception):
    """The host compiler failed on the user's code; it has printed why."""


def read_source(path: str) -> bytes:
    """The bytes of a C input; a missing or unreadable file is a DriverError."""
    try:
        with open(path, "rb") as f:
            text = f.read()
    except IsADirectoryError:
        raise DriverError(f"{path}: is a directory, not a C source file") from None
    except OSError as exc:
        raise DriverError(f"{path}: {exc.strerror or exc}") from None
    return text


def unreadable_by_libclang(text: bytes) -> str:
    """Why pencilcc does not analyse `text` ('' when it does): libclang hands token and
    cursor spellings over as C strings, which end at a NUL byte, so what the front end
    reads of such a file may not be what gcc compiles (gcc ignores the NUL, with a
    warning). Such a file is the host compiler's alone."""
    return "it contains a NUL byte" if b"\0" in text else ""


def mentions_pencil(text: bytes) -> bool:
    """Whether `text` looks like it was written for pencilcc (pragmas, attribute, PENCIL)."""
    return _MENTIONS_PENCIL.search(text) is not None


def may_hold_pencil(source: InputFile, text: bytes, host_args: Sequence[str] = (), detect: bool = False) -> bool:
    """Whether `source` can contain a region (else it is never parsed): in its own text, or in
    a user header it includes (`host_args` give the -I/-iquote folders); with `detect`
    (-fpencil-detect), any file whose text has a `for` (loop nests in its own functions)."""
    return (source.language == "pencil" or source.path.endswith(".pencil.c")
            or _MAY_HOLD_PENCIL.search(text) is not None
            or detect and _MAY_HOLD_LOOP.search(text) is not None
            or _header_may_hold_pencil(source.path, text, _user_include_dirs(host_args)))


def _user_include_dirs(host_args: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The -iquote folders and the -I folders of a host command line, in order."""
    quote: list[str] = []
    angle: list[str] = []
    args = list(host_args)
    for i, a in enumerate(args):
        if a in ("-iquote", "-I") and i + 1 < len(args):
            (quote if a == "-iquote" else angle).append(args[i + 1])
        elif a.startswith("-iquote") and len(a) > len("-iquote"):
            quote.append(a[len("-iquote"):])
        elif a.startswith("-I") and len(a) > len("-I"):
            angle.append(a[len("-I"):])
    return tuple(quote), tuple(angle)


def _header_may_hold_pencil(path: str, text: bytes, dirs: tuple[tuple[str, ...], tuple[str, ...]]) -> bool:
    """Whether a user header that `text` (the file `path`) includes, directly or through other
    user headers, holds one of the words: its static functions may be PENCIL code (issue 30).
    Headers are found as gcc finds them in the file's folder, -iquote and -I folders; system
    headers (-isystem, the system's folders) are never pencilcc's and are not read."""
    quote, angle = dirs
    seen: set[str] = set()
    pending = [(path, text)]
    while pending:
        includer, body = pending.pop()
        here = os.path.dirname(includer) or "."
        for delimiter, name in _INCLUDE.findall(body):
            folders = ((here, *quote) if delimiter == b'"' else ()) + angle
            header = next((p for p in (os.path.join(d, os.fsdecode(name)) for d in folders)
                           if os.path.isfile(p)), None)
            if header is None or os.path.realpath(header) in seen:
                continue
            seen.add(os.path.realpath(header))
            content = header_text(header)
            if MAY_DEFINE_PENCIL.search(content) is not None:
                return True
            pending.append((header, content))
    return False


def language_flags(source: InputFile) -> list[str]:
    """`-x LANG` for the host compiler when the user gave one (pencil is C to it)."""
    if not source.x_language:
        return []
    return ["-x", "c" if source.language == "pencil" else source.x_language]


def host_compile(host: HostCompiler, config: DriverConfig, source: InputFile, mode: str,
                 output: str) -> int:
    """The host compiles the original `source` (mode '-c' or '-S') into `output`, as cc would."""
    args = [*config.host_args, *language_flags(source), mode, source.path, "-o", output]
    return host.run(args).returncode
