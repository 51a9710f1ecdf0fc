# SPDX-License-Identifier: MIT
"""Results of an analysis kept for the passes that compute it again from the same objects.

Input: the objects a result is computed from (isl sets and maps, frozen dataclasses of
them, plain values) and the function that computes it. Output: the result, computed once
while the same objects come back. islpy objects are values (every operation returns a new
object), and the compilation unit's analyses are frozen dataclasses, so two calls with the
same objects would compute the same result; `IdentityMemo` returns the first one instead.

The keys are compared by identity (`is`) for objects and by equality for plain values
(str, int, float, bool, None and tuples or frozensets of them), and each entry holds its key
objects, so that an identity is never reused by another object while the entry lives. A memo
keeps its last `size` entries: enough for the passes of one region (schedule's candidate
checks, then verify-schedule on the final schedule), without keeping a finished region's
objects alive in a process that compiles many (clangpass.api).

What it saves is isl work, so the isl operations counted by `clangpass.poly.budget` are fewer
on a reuse: a check that reuses a result can only stay further within its budget.
"""
from __future__ import annotations

from typing import Callable, Generic, Sequence, TypeVar

Result = TypeVar("Result")

_PLAIN = (str, int, float, bool, type(None))


def _same(a: object, b: object) -> bool:
    if a is b:
        return True
    if isinstance(a, _PLAIN) and type(a) is type(b):
        return a == b
    if isinstance(a, (tuple, frozenset)) and type(a) is type(b) and all(isinstance(x, _PLAIN) for x in a):
        return a == b
    return False


class IdentityMemo(Generic[Result]):
    """The last `size` results of a function, by the identity of the objects it reads."""

    def __init__(self, size: int = 4) -> None:
        self._size = size
        self._entries: list[tuple[tuple[object, ...], Result]] = []

    def get(self, key: Sequence[object], compute: Callable[[], Result]) -> Result:
        """The result stored for `key`, else `compute()` (stored unless it raises)."""
        key = tuple(key)
        for k, (stored, value) in enumerate(self._entries):
            if len(stored) == len(key) and all(_same(a, b) for a, b in zip(stored, key)):
                if k:
                    self._entries.insert(0, self._entries.pop(k))
                return value
        value = compute()
        self._entries.insert(0, (key, value))
        del self._entries[self._size:]
        return value

    def clear(self) -> None:
        self._entries.clear()
