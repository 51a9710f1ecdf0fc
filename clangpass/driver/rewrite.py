# SPDX-License-Identifier: MIT
"""Host-source rewriting: each optimized region's text becomes a call of its outlined function.

Input: the bytes of the user's file and the optimized regions (`OptRegion.extent`,
`args`, `iterators`, `symbol`). Output: the bytes the host compiler compiles
instead, where

- the first lines declare every outlined function at file scope
  (`extern void SYM(int, void *, const void *);`), under the file name
  `<pencilcc outlined regions>`: 'value' arguments keep their C type, 'pointer'
  arguments (the driver passes `&var`) and 'array' arguments are `void *`,
  `const`/`volatile` when what they point to is. Value types are builtin
  arithmetic types (the front end spells them canonically), so they need no
  header; declaring at file scope rather than in the block keeps
  `-Wnested-externs` quiet;
- then `#line 1 "<original path>"`, so that diagnostics, `__FILE__`, `assert`
  and debug line tables name the user's file;
- each region's text (the function body braces for a PENCIL function, from
  `#pragma scop` through `#pragma endscop` for a scop) is replaced by
  `{ (void)it; SYM(args); }` followed by as many newlines as the replaced text
  had, padded so that the code after it keeps its column too: every later line
  and column of the file is where it was. `(void)it;` uses the loop iterators the
  region no longer mentions, so the rewrite adds no unused-variable warning.

A PENCIL function that returns a value returns the outlined function's result.

A function of internal linkage (`static`, or `inline` without `extern`) that a region
calls gets a wrapper of external linkage at the end of the file, under the prototypes'
file name: `int __pencilcc_call_f_HASH(int a0, void *a1) { return f(a0, a1); }`
(`OptRegion.trampolines`, `regions.trampoline_symbol`); the outlined code calls it.
Array and pointer parameters are `void *`, which converts to the callee's parameter type.

Versioning on a run-time alias check (`guards`, clangpass.poly.alias_check): a
region whose arrays may overlap runs the outlined code only when its check holds,
and its original text otherwise, compiled by the host as the slow path:
- a scop becomes `if (CHECK) { call } else {` on the `#pragma scop` line, its
  statements as written, and `}` in place of `#pragma endscop`;
- a `#pragma pencil region` becomes `if (CHECK) { call } else` and its block;
- a function body becomes `{ if (CHECK) { call; return; }` and the rest of the body;
- a loop nest -fpencil-detect found (no directive line) becomes `if (CHECK) { call }
  else { ` its statements `; }`, all on their lines: only its first and last lines'
  columns move.
Unguarded, a detected loop nest is replaced as a scop is; clang's extent of a last
statement `for (...) x = 1;` leaves out its `;`, which then follows the call's block
as an empty statement.
The check's `#define`s (isl's min/max/floord, under `__pencilcc_` names) open the file.
Only the directive lines change: every other line and column stays where it was.

Loops whose region calls keep device data (`resident`: byte ranges of the main file from
clangpass.residency, on a target whose data lives on a device): the loop, from its keyword
to the `;` or `}` that ends it, becomes `{ pencilcc_cl_residency_push(); ` loop
` pencilcc_cl_residency_pop(); }`, on the loop's own first and last lines: every line keeps
its number, only the columns after the insertions on those two lines move. The prototypes'
line declares both runtime functions.

Regions of user headers (`outline_translation_unit`, issue 30): each header holding
one is copied with its regions outlined (`outline_header`), and so is every user
header that includes a copied one, up to the main file; the directives that named a
copied header name its copy by absolute path, and a copy's other quoted directives
name the file they found by absolute path. The main file's copy declares every
outlined function and defines every wrapper. docs/architecture.md says why copies
named by path rather than a folder searched first.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

from clangpass.ir import types as T
from clangpass.ir.nodes import Include
from clangpass.poly.alias_check import AliasCheck
from clangpass.regions import DETECTED, OptRegion, RegionArg, returns_value


PROTOTYPES_FILE = "<pencilcc outlined regions>"


class RewriteError(Exception):
    """The region's recorded extent does not fit the file (it changed since parsing?)."""


def _pointee_qualifiers(t: T.CType) -> str:
    """`const `/`volatile ` of what an array or pointer argument points to."""
    target = t.scalar_element() if isinstance(t, T.ArrayType) else getattr(t, "pointee", t)
    return "".join(f"{q} " for q in ("const", "volatile") if getattr(target, q))


def _parameter_type(arg: RegionArg) -> str:
    if arg.passing == "value":
        return arg.type.unqualified().spelling()
    if arg.passing == "pointer":
        return _pointee_qualifiers(T.PointerType(arg.type)) + "void *"
    # Not `const void *` for every array: gcc reads a const pointer argument as "the callee
    # reads this" and warns (-Wmaybe-uninitialized) when a region fills a fresh local array.
    return _pointee_qualifiers(arg.type) + "void *"


def _argument(arg: RegionArg) -> str:
    return f"&{arg.name}" if arg.passing == "pointer" else arg.name


def prototype(region: OptRegion) -> str:
    params = ", ".join(_parameter_type(a) for a in region.args) or "void"
    result = region.function.result.unqualified().spelling() if returns_value(region) else "void"
    return f"extern {result} {region.symbol}({params});"


def trampolines(regions: Sequence[OptRegion]) -> str:
    """The wrappers of external linkage of the internal functions `regions` call (one line each)."""
    out: dict[str, str] = {}
    for region in regions:
        for fn, symbol in zip(region.trampolines, region.trampoline_symbols):
            params = [("void *" if isinstance(p.type, (T.ArrayType, T.PointerType))
                       else p.type.unqualified().spelling()) + f" a{k}" for k, p in enumerate(fn.params)]
            signature = f"{fn.result.unqualified().spelling()} {symbol}({', '.join(params) or 'void'})"
            call = f"{fn.name}({', '.join(f'a{k}' for k in range(len(fn.params)))})"
            body = call + ";" if isinstance(fn.result, T.VoidType) else f"return {call};"
            out[symbol] = f"{signature}; {signature} {{ {body} }}"
    return "".join(line + "\n" for line in out.values())


def call_statement(region: OptRegion) -> str:
    """The compound statement that replaces the region's text (one line)."""
    uses = "".join(f"(void){it}; " for it in (*region.iterators, *(d.name for d in region.privatized)))
    call = f"{region.symbol}({', '.join(_argument(a) for a in region.args)});"
    if returns_value(region):
        call = "return " + call
    return "{ " + uses + call + " }"


def _replacement(original: bytes, rest_of_line: bytes, region: OptRegion) -> bytes:
    text = call_statement(region).encode()
    newlines = original.count(b"\n")
    if newlines == 0:
        return text
    # Pad only when code follows on the region's last line (no new trailing whitespace).
    last_line = len(original) - original.rfind(b"\n") - 1 if rest_of_line.strip() else 0
    return text + b"\n" * newlines + b" " * last_line


def _guarded_replacement(original: bytes, rest_of_line: bytes, region: OptRegion, condition: str,
                         call: str = "") -> bytes:
    """The region's text run only when `condition` fails, the outlined call when it holds
    (`call`: the compound statement run instead, by default the outlined function's call)."""
    call = call or call_statement(region)
    if region.kind == "function":
        if not original.startswith(b"{"):
            raise RewriteError(f"the body of '{region.label}' does not start with '{{'")
        if not returns_value(region):
            call = call[:-1] + "return; }"
        return f"{{ if ({condition}) {call}".encode() + original[1:]
    if region.kind == DETECTED:
        # No directive line to take: the statements as written in the else branch, whose `;`
        # ends a last statement clang's extent leaves its own `;` out of (that `;` then
        # follows the block as an empty statement).
        return f"if ({condition}) {call} else {{ ".encode() + original + b"; }"
    first, last = original.find(b"\n"), original.rfind(b"\n")
    if first < 0:
        raise RewriteError(f"region '{region.label}' does not start with a directive line")
    head = f"if ({condition}) {call} else".encode()
    if region.kind != "scop":
        return head + original[first:]
    # `#pragma endscop` becomes the closing brace, padded when code follows it on its line.
    padding = b" " * (len(original) - last - 2) if rest_of_line.strip() else b""
    return head + b" {" + original[first:last + 1] + b"}" + padding


def _c_string(path: str) -> str:
    """`path` as a C string literal for a `#line` directive, which gcc and clang unescape:
    quotes and backslashes escaped, every byte outside printable ASCII (a newline, a
    non-UTF-8 byte kept by surrogateescape) as an octal escape."""
    out = []
    for byte in os.fsencode(path):
        char = chr(byte)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= byte < 0x7f:
            out.append(char)
        else:
            out.append(f"\\{byte:03o}")
    return '"' + "".join(out) + '"'


def _include_directive(original: bytes, path: str) -> bytes:
    """`#include "path"` in place of the directive `original`, with as many newlines (a
    directive continued over lines keeps the lines after it where they were)."""
    if '"' in path or "\n" in path:
        raise RewriteError(f"the path {path!r} cannot be named in an #include directive")
    if not _INCLUDE_DIRECTIVE.match(original):
        raise RewriteError(f"'{original.decode(errors='replace')}' is not an #include directive pencilcc "
                           "can redirect")
    return f'#include "{path}"'.encode() + b"\n" * original.count(b"\n")


def _outlined_text(source: bytes, regions: Sequence[OptRegion], guards: Mapping[str, AliasCheck],
                   redirects: Sequence[Redirect], blocks: Optional[Mapping[str, str]] = None,
                   resident: Sequence[tuple[int, int]] = ()) -> bytes:
    """`source` with each region replaced by its call, each redirected directive by its
    `#include` of the new path, and each loop of `resident` bracketed; every line keeps its
    number. With `blocks` (symbol -> a compound statement, -fpencil-emit-c), each region is
    replaced by its block instead, and lines are not kept."""
    brackets: list[tuple[int, int, object]] = []
    for start, end in sorted(resident):
        if not (0 <= start < end <= len(source) and source[start:start + 1].isalpha()
                and source[end - 1:end] in (b";", b"}")):
            raise RewriteError(f"the loop at bytes {start}..{end} does not fit the file")
        brackets += [(start, start, _Bracket(RESIDENT_OPEN)), (end, end, _Bracket(RESIDENT_CLOSE))]
    # Insertions go before a replacement starting where they are (their order kept: the
    # bracket closing one loop before the one opening the next).
    edits: list[tuple[int, int, object]] = sorted(
        [(r.extent.start_offset, r.extent.end_offset, r) for r in regions]
        + [(d.start_offset, d.end_offset, d) for d in redirects] + brackets, key=lambda e: (e[0], e[1] > e[0]))
    for (_, before_end, before), (after_start, _, after) in zip(edits, edits[1:]):
        if after_start < before_end:
            raise RewriteError(f"{_edit_name(before)} and {_edit_name(after)} overlap")
    pieces: list[bytes] = []
    position = 0
    for start, end, edit in edits:
        if not 0 <= start <= end <= len(source):
            raise RewriteError(f"{_edit_name(edit)} lies outside the file ({start}..{end} of "
                               f"{len(source)} bytes)")
        if isinstance(edit, _Bracket):
            replacement = edit.text.encode()
        elif isinstance(edit, Redirect):
            replacement = _include_directive(source[start:end], edit.path) if edit.text is None else edit.text
        else:
            region = edit
            assert isinstance(region, OptRegion)
            line_end = source.find(b"\n", end)
            rest_of_line = source[end:line_end if line_end >= 0 else len(source)]
            check = guards.get(region.symbol)
            block = blocks.get(region.symbol, "") if blocks is not None else ""
            if check is not None and check.condition:
                replacement = _guarded_replacement(source[start:end], rest_of_line, region, check.condition,
                                                   block)
            elif blocks is not None:
                replacement = block.encode()
            else:
                replacement = _replacement(source[start:end], rest_of_line, region)
        pieces += [source[position:start], replacement]
        position = end
    pieces.append(source[position:])
    return b"".join(pieces)


def _edit_name(edit: object) -> str:
    if isinstance(edit, _Bracket):
        return "a loop keeping device data"
    return f"region '{edit.label}'" if isinstance(edit, OptRegion) else "an #include directive"


@dataclass(frozen=True)
class _Bracket:
    """Text inserted around a loop whose region calls keep device data."""

    text: str


# The brackets of a loop pencilcc proved writes no array on the host between its region calls
# (clangpass.residency); on the loop's first and last lines, whose later columns move.
RESIDENT_OPEN = "{ pencilcc_cl_residency_push(); "
RESIDENT_CLOSE = " pencilcc_cl_residency_pop(); }"
RESIDENT_PROTOTYPES = "extern void pencilcc_cl_residency_push(void); extern void pencilcc_cl_residency_pop(void);"


def outline_regions(source: bytes, regions: Sequence[OptRegion], display_path: str,
                    guards: Mapping[str, AliasCheck] | None = None, *,
                    included: Sequence[OptRegion] = (), redirects: Sequence[Redirect] = (),
                    resident: Sequence[tuple[int, int]] = ()) -> bytes:
    """The host's copy of `source` with every region of `regions` replaced by its call.

    A region whose symbol has a check in `guards` keeps its text as the path taken
    when the check fails. `included`: the regions outlined in the headers the file
    includes (`outline_header`), whose functions and wrappers the file declares and
    defines too; `redirects`: its `#include` directives that name their rewritten copies;
    `resident`: the loops (bytes [start, end) of `source`) to bracket with the runtime's
    residency push and pop."""
    guards = guards or {}
    ordered = sorted(regions, key=lambda r: r.extent.start_offset)
    every = [*ordered, *included]
    pieces = [_outlined_text(source, ordered, guards, redirects, resident=resident)]
    wrappers = trampolines(every)
    if wrappers:
        pieces.append(f"\n#line 1 {_c_string(PROTOTYPES_FILE)}\n{wrappers}".encode())
    # The prototypes get a file name of their own: a note about them names no temp path.
    header = (f"#line 1 {_c_string(PROTOTYPES_FILE)}\n"
              + " ".join([*(prototype(r) for r in every), *([RESIDENT_PROTOTYPES] if resident else [])])
              + f"\n#line 1 {_c_string(display_path)}\n")
    macros = dict.fromkeys(m for r in every if r.symbol in guards for m in guards[r.symbol].macros)
    return "".join(f"{m}\n" for m in macros).encode() + header.encode() + b"".join(pieces)


def emitted_c_text(source: bytes, blocks: Mapping[str, str], regions: Sequence[OptRegion],
                   guards: Mapping[str, AliasCheck], prelude: str, inlined: Sequence[Redirect] = ()) -> bytes:
    """-fpencil-emit-c: `source` with each region of `regions` (of this file, optimized) replaced
    by its compound statement in `blocks` (symbol -> C; a guarded region keeps its text as the
    path taken when its alias check fails) and each directive of `inlined` by its text; every
    other byte as written. `prelude` opens the file when a region was replaced."""
    ordered = sorted(regions, key=lambda r: r.extent.start_offset)
    text = _outlined_text(source, ordered, guards, inlined, blocks)
    return (prelude.encode() if ordered else b"") + text


def outline_header(source: bytes, regions: Sequence[OptRegion], display_path: str,
                   guards: Mapping[str, AliasCheck], redirects: Sequence[Redirect]) -> bytes:
    """The rewritten copy of a user header: its regions replaced by their calls, its
    directives redirected, under `#line 1 "display_path"` so that diagnostics, `__FILE__`
    and debug information name the user's header. The main file's copy declares the
    outlined functions (before any `#include`) and defines the wrappers."""
    return f"#line 1 {_c_string(display_path)}\n".encode() + _outlined_text(source, regions, guards, redirects)


@dataclass(frozen=True)
class Redirect:
    """An `#include` directive (bytes [start, end) of its file) to replace by `#include "path"`."""

    start_offset: int
    end_offset: int
    path: str
    text: Optional[bytes] = None     # what replaces the directive instead (a header's contents)


@dataclass(frozen=True)
class HeaderCopy:
    """A user header whose rewritten copy the host compiles instead: `text` at `path`."""

    original: str
    path: str
    text: bytes


def outline_translation_unit(main_path: str, main_text: bytes, regions: Sequence[OptRegion],
                             includes: Sequence[Include], guards: Mapping[str, AliasCheck],
                             folder: str, resident: Sequence[tuple[int, int]] = ()) -> tuple[bytes, list[HeaderCopy]]:
    """The host's copy of the main file and the copies of the user headers it must read
    instead of the originals (to be written under `folder`), for `regions` of the main
    file and of its headers (issue 30).

    A header holding regions is copied with them outlined, and so is, up to the main file,
    every user header that includes a copied one: every directive that named a copied
    header names its copy by absolute path, and a copy's other quoted directives name the
    header they found by absolute path (the copy lies elsewhere, where "x.h" finds nothing).
    Angle directives of copies are left as written (they never search the includer's folder,
    and a system header found through them must stay one). RewriteError when a copied
    header is included in a way that cannot be redirected: from a system header, by
    `-include`, by `#include_next` or `#import`."""
    by_file: dict[str, list[OptRegion]] = {}
    for region in regions:
        by_file.setdefault(region.extent.file, []).append(region)
    main_regions = by_file.pop(main_path, [])
    copied = set(by_file)
    changed = True
    while changed:      # every includer of a copied header is copied too, up to the main file
        changed = False
        for d in includes:
            if d.included in copied and d.file != main_path and d.file not in copied:
                if d.file_is_system:
                    raise RewriteError(f"header '{d.included}' is included by the system header "
                                       f"'{d.file}', which pencilcc does not rewrite")
                copied.add(d.file)
                changed = True
    reached = {d.included for d in includes if d.included in copied}
    for name in sorted(copied - reached):
        raise RewriteError(f"header '{name}' is not included by an #include directive of the "
                           "main file or of a user header (-include?)")
    paths = {name: os.path.join(folder, f"h{k}", os.path.basename(name))
             for k, name in enumerate(sorted(copied))}

    def redirects_of(name: str, absolute_quotes: bool, text: bytes) -> list[Redirect]:
        out = []
        for d in includes:
            if d.file != name:
                continue
            if d.included in paths:
                out.append(Redirect(d.start_offset, d.end_offset, paths[d.included]))
            elif absolute_quotes and not d.included_is_system and \
                    _QUOTED_INCLUDE.match(text[d.start_offset:d.end_offset]):
                out.append(Redirect(d.start_offset, d.end_offset, os.path.abspath(d.included)))
        return out

    copies = []
    for name in sorted(copied):
        try:
            with open(name, "rb") as f:
                text = f.read()
        except OSError as exc:
            raise RewriteError(f"cannot read header '{name}': {exc.strerror or exc}") from None
        copies.append(HeaderCopy(name, paths[name], outline_header(
            text, by_file.get(name, []), _display_name(name), guards, redirects_of(name, True, text))))
    header_regions = [r for name in sorted(by_file) for r in by_file[name]]
    main = outline_regions(main_text, main_regions, main_path, guards, included=header_regions,
                           redirects=redirects_of(main_path, False, main_text), resident=resident)
    return main, copies


def _display_name(path: str) -> str:
    """A header's name as gcc spells it (libclang writes `./x.h` for gcc's `x.h`)."""
    while path.startswith("./"):
        path = path[2:]
    return path


_INCLUDE_DIRECTIVE = re.compile(rb"#\s*include(\s*[\"<]|\s+[A-Za-z_])")
_QUOTED_INCLUDE = re.compile(rb'#\s*include\s*"')
