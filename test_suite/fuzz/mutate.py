# SPDX-License-Identifier: MIT
"""Mutations of C sources for the fuzz driver: deterministic per random generator.

Input: the bytes of one of the project's kernels and a `random.Random`. Output:
mutated bytes and the names of the mutations applied. Each mutation aims at one
way a compiler front end, the polyhedral path or the driver can break on input
a user may write or a tool may produce: damaged bytes, a file cut short, tokens
lost or repeated, constants past every integer type, nesting deeper than any
recursion limit, very long lines, text that is not UTF-8, NUL bytes.
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
}


def mutate(text: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    """One to three mutations of `text`, chosen by `rng`; the mutated bytes and their names."""
    names = [rng.choice(sorted(MUTATIONS)) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
    for name in names:
        text = MUTATIONS[name](text, rng)
    return text, names
