# SPDX-License-Identifier: MIT
"""gcc's path prefix maps (`-ffile-prefix-map=OLD=NEW`, `-fdebug-prefix-map=`, `-fmacro-prefix-map=`)
for the paths pencilcc writes into an object, so that it does not depend on where it was built.

Contract (gcc's, which clang shares):
- a map is `OLD=NEW`, split at the first `=`; NEW may be empty. A path that starts with OLD (a
  plain string prefix, as gcc compares it) is written as NEW followed by the rest of the path;
  of several maps that match, the one given last wins; only one map applies to a path.
- `-ffile-prefix-map` is both of the others. `-fdebug-prefix-map` maps the paths of debug
  information; `-fmacro-prefix-map` those `__FILE__` expands to (the host compiler expands it).

What pencilcc writes with the debug maps (`CompileOptions.debug_prefix_map`): the back end's
DWARF file names and compilation directory (llvm_backend.cpu.debug_info), the path an outlined
region's local symbol name is hashed from (clangpass.regions.symbol_path), and the maps it gives
the host compiler of the outlined copy, whose private folder stands for the source's
(`PrefixMap.then`). The optimisation record and messages keep the real paths.

`then` composes two maps into one list that the host compiler, which applies one map, applies
as the two in turn: the compile of a `.i`'s bundled sources (clangpass.driver.bundle) runs in a
private folder that stands for the client's, and the client's own maps apply after that.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

FILE, DEBUG, MACRO = "-ffile-prefix-map=", "-fdebug-prefix-map=", "-fmacro-prefix-map="
FLAGS = (FILE, DEBUG, MACRO)


class PrefixMapError(ValueError):
    """A prefix-map flag without `=` in its value; the message is gcc's."""


def parse_flag(arg: str) -> Optional[tuple[str, str, str]]:
    """(flag, OLD, NEW) of a prefix-map flag, None for any other argument."""
    flag = next((f for f in FLAGS if arg.startswith(f)), None)
    if flag is None:
        return None
    old, sep, new = arg[len(flag):].partition("=")
    if not sep:
        raise PrefixMapError(f"invalid argument '{arg[len(flag):]}' to '{flag[:-1]}'")
    return flag, old, new


@dataclass(frozen=True)
class PrefixMap:
    """(OLD, NEW) pairs in command-line order: the last that matches wins."""

    pairs: tuple[tuple[str, str], ...] = ()

    @staticmethod
    def of(args: Iterable[str], kind: str) -> "PrefixMap":
        """The map of kind DEBUG or MACRO that the flags among `args` give (FILE counts as both)."""
        out = []
        for arg in args:
            parsed = parse_flag(arg)
            if parsed is not None and parsed[0] in (FILE, kind):
                out.append(parsed[1:])
        return PrefixMap(tuple(out))

    def __bool__(self) -> bool:
        return bool(self.pairs)

    def match(self, path: str) -> Optional[tuple[int, str]]:
        """(index of the pair that applies to `path`, the mapped path), None when none does."""
        for index in range(len(self.pairs) - 1, -1, -1):
            old, new = self.pairs[index]
            if path.startswith(old):
                return index, new + path[len(old):]
        return None

    def remap(self, path: str) -> str:
        found = self.match(path)
        return found[1] if found else path

    def then(self, other: "PrefixMap") -> "PrefixMap":
        """One map that gives `other.remap(self.remap(p))` for every path p (under the
        last-match-wins rule): `other`'s own pairs first, for the paths none of ours matches,
        then for each of ours, in order, the pairs a path it matches can reach in `other`."""
        out = list(other.pairs)
        for old, new in self.pairs:
            base = other.match(new)
            # `other`'s pairs that only the longer paths under `new` reach, and that win there
            # over the one `new` itself reaches (a later index).
            longer = [(j, o2, n2) for j, (o2, n2) in enumerate(other.pairs)
                      if len(o2) > len(new) and o2.startswith(new)]
            first = base[0] if base else -1
            out += [(old + o2[len(new):], n2) for j, o2, n2 in longer if j < first]
            out.append((old, other.remap(new)))
            out += [(old + o2[len(new):], n2) for j, o2, n2 in longer if j > first]
        return PrefixMap(tuple(out))

    def flags(self, flag: str) -> list[str]:
        return [f"{flag}{old}={new}" for old, new in self.pairs]


def without_maps(args: Sequence[str]) -> list[str]:
    """`args` without their prefix-map flags."""
    return [a for a in args if not a.startswith(FLAGS)]
