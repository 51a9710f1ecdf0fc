# SPDX-License-Identifier: MIT
"""Mutations of C sources for the fuzz driver: deterministic per random generator.

Input: the bytes of one of the project's kernels and a `random.Random`. Output:
mutated bytes and the names of the mutations applied. Each mutation aims at one
way a compiler front end, the polyhedral path or the driver can break on input
a user may write or a tool may produce: damaged bytes, a file cut short, tokens
lost or repeated, constants past every integer type, nesting deeper than any
recursion limit, very long lines, text that is not UTF-8, NUL bytes; and one
that keeps the program valid and its meaning: a declarator or a loop header
rewritten through macros, as PolyBench's C99 mode and CLooG's output write them.
"""
from __future__ import annotations

import random
import re
from typing import Callable

# Identifiers, numbers, string/char literals, then one punctuator (longest first).
_TOKEN = re.compile(rb'[A-Za-z_]\w*|\d[\w.]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                    rb'<<=|>>=|->|\+\+|--|<<|>>|<=|>=|==|!=|&&|\|\||[-+*/%&|^!=<>]=|[^\s\w]')
_NUMBER = re.compile(rb"\b\d+(?:\.\d*)?(?:[eE][-+]?\d+)?[fFlLuU]*\b")

_HUGE_CONSTANTS = (b"99999999999999999999999999999999999999", b"0xffffffffffffffffffffffff",
                   b"18446744073709551616", b"1e99999", b"-9223372036854775808", b"2147483648",
                   b"0x7fffffffffffffffLL", b"1.797693134862315708e+309", b"00000000000000000000009")


def _tokens(text: bytes) -> list[re.Match[bytes]]:
    return list(_TOKEN.finditer(text))


def byte_flip(text: bytes, rng: random.Random) -> bytes:
    data = bytearray(text)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return bytes(data)


def truncate(text: bytes, rng: random.Random) -> bytes:
    return text[:rng.randrange(len(text) + 1)]


def _token_edit(text: bytes, rng: random.Random, edit: str) -> bytes:
    tokens = _tokens(text)
    if len(tokens) < 2:
        return text
    first = rng.randrange(len(tokens) - 1)
    a, b = tokens[first], tokens[rng.randrange(first + 1, min(len(tokens), first + 40))]
    if edit == "delete":
        return text[:a.start()] + text[a.end():]
    if edit == "duplicate":
        return text[:a.end()] + b" " + a.group() + text[a.end():]
    return text[:a.start()] + b.group() + text[a.end():b.start()] + a.group() + text[b.end():]


def delete_token(text: bytes, rng: random.Random) -> bytes:
    return _token_edit(text, rng, "delete")


def duplicate_token(text: bytes, rng: random.Random) -> bytes:
    return _token_edit(text, rng, "duplicate")


def swap_tokens(text: bytes, rng: random.Random) -> bytes:
    return _token_edit(text, rng, "swap")


def huge_constant(text: bytes, rng: random.Random) -> bytes:
    numbers = list(_NUMBER.finditer(text))
    if not numbers:
        return text
    m = rng.choice(numbers)
    return text[:m.start()] + rng.choice(_HUGE_CONSTANTS) + text[m.end():]


def _statement_end(text: bytes, rng: random.Random) -> int:
    """Just after a random `;` inside a function body (0 when there is none)."""
    ends = [m.end() for m in re.finditer(rb";", text)]
    return rng.choice(ends) if ends else 0


def deep_nesting(text: bytes, rng: random.Random) -> bytes:
    """Deep parentheses, blocks or loops after a statement (valid C where the statement was)."""
    at = _statement_end(text, rng)
    depth = rng.choice((12, 40, 200, 1000, 5000))
    kind = rng.choice(("parens", "blocks", "loops", "sum"))
    if kind == "parens":
        insert = b" { int fz_v = " + b"(" * depth + b"1" + b")" * depth + b"; (void)fz_v; }"
    elif kind == "blocks":
        insert = b"{" * depth + b"}" * depth
    elif kind == "loops":
        depth = min(depth, 40)
        heads = b"".join(b"for (int fz%d = 0; fz%d < 2; fz%d++) " % (k, k, k) for k in range(depth))
        insert = b" { int fz_s = 0; " + heads + b"fz_s += 1; (void)fz_s; }"
    else:
        insert = b" { int fz_v = 1" + b" + 1" * (depth * 10) + b"; (void)fz_v; }"
    return text[:at] + insert + text[at:]


def long_line(text: bytes, rng: random.Random) -> bytes:
    at = _statement_end(text, rng)
    length = rng.choice((5000, 70000, 300000))
    kind = rng.choice(("comment", "identifier", "spaces"))
    if kind == "comment":
        insert = b" /* " + b"x" * length + b" */"
    elif kind == "identifier":
        insert = b" { int " + b"v" * length + b" = 0; (void)" + b"v" * length + b"; }"
    else:
        insert = b" " * length
    return text[:at] + insert + text[at:]


def invalid_utf8(text: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(text) + 1)
    return text[:at] + rng.choice((b"\xff", b"\xc3\x28", b"\xe2\x82", b"\xf0\x9f\x98", b"\x80\x80")) + text[at:]


# An array declarator `double A[n][m + 1]` (two or three extents, none empty, none nested).
_DECLARATOR = re.compile(rb"\b(?:double|float|int|long|DATA_TYPE)\s+([A-Za-z_]\w*)((?:\[[^\[\]\n]+\]){2,3})")
_QUALIFIED = re.compile(rb"\b(?:static|const|restrict|volatile|pencil_array)\b")


def _one_line(part: bytes) -> bytes:
    return b" ".join(part.split())


def _headers(text: bytes) -> list[tuple[int, int, list[bytes]]]:
    """(start of `for`, end of its `)`, its three parts) of each `for (...)` header outside a
    preprocessor line whose parts hold no comma outside parentheses (a macro argument could not
    carry one) and no `//` comment (a macro definition would swallow the rest)."""
    out = []
    for m in re.finditer(rb"\bfor\s*\(", text):
        if text[text.rfind(b"\n", 0, m.start()) + 1:m.start()].lstrip().startswith(b"#"):
            continue
        depth, parts, part_start, k, comma = 1, [], m.end(), m.end(), False
        while k < len(text) and depth:
            c = text[k:k + 1]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                depth -= 1
            elif c == b";" and depth == 1:
                parts.append(text[part_start:k])
                part_start = k + 1
            elif c == b"," and depth == 1:
                comma = True
            k += 1
        if depth == 0 and len(parts) == 2 and not comma and b"//" not in text[m.end():k]:
            out.append((m.start(), k, [*parts, text[part_start:k - 1]]))
    return out


def through_macro(text: bytes, rng: random.Random) -> bytes:
    """A declarator or a loop header rewritten through macros (defined at the top of the file),
    the program unchanged: `double A[n][m]` as `double FZ_ARR2_k(A, n, m)` (`A[(n)][(m) + 0]`,
    through a nested macro), `for (i = 0; i < n; i++)` as `FZ_FOR_k(i = 0, i < n, i++)` (its
    step pasted with an empty argument by `##`) or with its condition an object-like macro."""
    declarators = [m for m in _DECLARATOR.finditer(text)
                   if b"," not in m.group(2) and b"[*]" not in m.group(2).replace(b" ", b"")]
    headers = _headers(text)
    if not declarators and not headers:
        return text
    tag = rng.randrange(1 << 16)
    if declarators and (not headers or rng.random() < 0.5):
        m = rng.choice(declarators)
        extents = [_one_line(e) for e in re.findall(rb"\[([^\[\]\n]+)\]", m.group(2))]
        name = b"FZ_ARR%d_%d" % (len(extents), tag)
        params = [b"d%d" % k for k in range(len(extents))]
        # `static`, qualifiers: only in the first extent, and never in parentheses
        first = b"[d0]" if _QUALIFIED.search(extents[0]) else b"[FZ_PAREN_%d(d0)]" % tag
        dims = first + b"".join(b"[(%s) + 0]" % p for p in params[1:])
        defines = (b"#define FZ_PAREN_%d(x) (x)\n" % tag
                   + b"#define %s(v, %s) v%s\n" % (name, b", ".join(params), dims))
        use = b"%s(%s, %s)" % (name, m.group(1), b", ".join(extents))
        return defines + text[:m.start(1)] + use + text[m.end(2):]
    start, end, (init, cond, step) = rng.choice(headers)
    init, cond, step = _one_line(init), _one_line(cond), _one_line(step)
    if rng.random() < 0.5:
        defines = (b"#define FZ_CAT_%d(a, b) a##b\n" % tag
                   + b"#define FZ_FOR_%d(init, cond, step) for (init; cond; FZ_CAT_%d(step, ))\n" % (tag, tag))
        use = b"FZ_FOR_%d(%s, %s, %s)" % (tag, init, cond, step)
    else:
        defines = b"#define FZ_COND_%d %s\n" % (tag, cond)
        use = b"for (%s; FZ_COND_%d; %s)" % (init, tag, step)
    return defines + text[:start] + use + text[end:]


def nul_bytes(text: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(text) + 1)
    return text[:at] + b"\0" * rng.randint(1, 4) + text[at:]


MUTATIONS: dict[str, Callable[[bytes, random.Random], bytes]] = {
    "byte-flip": byte_flip,
    "truncate": truncate,
    "delete-token": delete_token,
    "duplicate-token": duplicate_token,
    "swap-tokens": swap_tokens,
    "huge-constant": huge_constant,
    "deep-nesting": deep_nesting,
    "long-line": long_line,
    "invalid-utf8": invalid_utf8,
    "nul-bytes": nul_bytes,
    "through-macro": through_macro,
}


def mutate(text: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """One to three mutations of `text`, chosen by `rng`; the mutated bytes and their names."""
    names = [rng.choice(sorted(MUTATIONS)) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    for name in names:
        text = MUTATIONS[name](text, rng)
    return text, names
