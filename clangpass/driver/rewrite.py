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
- a function body becomes `{ if (CHECK) { call; return; }` and the rest of the body.
The check's `#define`s (isl's min/max/floord, under `__pencilcc_` names) open the file.
Only the directive lines change: every other line and column stays where it was.
"""
from __future__ import annotations

import os
from typing import Mapping, Sequence

from clangpass.ir import types as T
from clangpass.poly.alias_check import AliasCheck
from clangpass.regions import OptRegion, RegionArg, returns_value, trampoline_symbol


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
        for fn in region.trampolines:
            symbol = trampoline_symbol(fn)
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


def _guarded_replacement(original: bytes, rest_of_line: bytes, region: OptRegion, condition: str) -> bytes:
    """The region's text run only when `condition` fails, the outlined call when it holds."""
    call = call_statement(region)
    if region.kind == "function":
        if not original.startswith(b"{"):
            raise RewriteError(f"the body of '{region.label}' does not start with '{{'")
        if not returns_value(region):
            call = call[:-1] + "return; }"
        return f"{{ if ({condition}) {call}".encode() + original[1:]
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


def outline_regions(source: bytes, regions: Sequence[OptRegion], display_path: str,
                    guards: Mapping[str, AliasCheck] | None = None) -> bytes:
    """The host's copy of `source` with every region of `regions` replaced by its call.

    A region whose symbol has a check in `guards` keeps its text as the path taken
    when the check fails."""
    guards = guards or {}
    ordered = sorted(regions, key=lambda r: r.extent.start_offset)
    for before, after in zip(ordered, ordered[1:]):
        if after.extent.start_offset < before.extent.end_offset:
            raise RewriteError(f"regions '{before.label}' and '{after.label}' overlap")
    pieces: list[bytes] = []
    position = 0
    for region in ordered:
        start, end = region.extent.start_offset, region.extent.end_offset
        if not 0 <= start <= end <= len(source):
            raise RewriteError(f"region '{region.label}' lies outside the file ({start}..{end} of "
                               f"{len(source)} bytes)")
        line_end = source.find(b"\n", end)
        rest_of_line = source[end:line_end if line_end >= 0 else len(source)]
        check = guards.get(region.symbol)
        if check is not None and check.condition:
            replacement = _guarded_replacement(source[start:end], rest_of_line, region, check.condition)
        else:
            replacement = _replacement(source[start:end], rest_of_line, region)
        pieces += [source[position:start], replacement]
        position = end
    pieces.append(source[position:])
    wrappers = trampolines(ordered)
    if wrappers:
        pieces.append(f"\n#line 1 {_c_string(PROTOTYPES_FILE)}\n{wrappers}".encode())
    # The prototypes get a file name of their own: a note about them names no temp path.
    header = (f"#line 1 {_c_string(PROTOTYPES_FILE)}\n" + " ".join(prototype(r) for r in ordered)
              + f"\n#line 1 {_c_string(display_path)}\n")
    macros = dict.fromkeys(m for r in ordered if r.symbol in guards for m in guards[r.symbol].macros)
    return "".join(f"{m}\n" for m in macros).encode() + header.encode() + b"".join(pieces)
