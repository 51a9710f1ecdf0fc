# SPDX-License-Identifier: MIT
"""The link step: the host compiler's driver links, with the user's line in the user's order.

`link_arguments` rebuilds the user's command line for the host: every flag and
input where the user put it (`-l` after the objects that need it, `.o`/`.a`
in order), C inputs replaced by the objects pencilcc built for them, inputs the
host compiles itself (`.cpp`, `.s`, `-x LANG` files) left to it, and the
runtime's flags (`runtime_link_flags`) last, only when an optimized region
needs them. Dependency flags and -o are the driver's business and are left out.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from clangpass.driver.cli import DriverConfig


def link_arguments(config: DriverConfig, objects: Mapping[int, str],
                   runtime_flags: Sequence[Sequence[str]],
                   output: str) -> list[str]:
    """Host-compiler arguments that link `config`'s inputs into `output`.

    `objects` maps the index of a C input to the object built for it; a C input
    without one is given to the host as source (with `-x c` for `-x pencil`).
    """
    args: list[str] = []
    for item in config.link_args:
        if isinstance(item, str):
            args.append(item)
            continue
        source = config.inputs[item]
        if item in objects:
            args.append(objects[item])
        elif source.x_language:
            language = "c" if source.language == "pencil" else source.x_language
            args += ["-x", language, source.path, "-x", "none"]
        else:
            args.append(source.path)
    extra: list[str] = []
    seen: list[tuple[str, ...]] = []
    for flags in runtime_flags:      # one list per input; equal lists once (pairs like -L DIR stay whole)
        if tuple(flags) not in seen:
            seen.append(tuple(flags))
            extra += flags
    return [*args, *extra, "-o", output]


def unused_linker_inputs(config: DriverConfig) -> list[str]:
    """Linker inputs of a -c/-S command (gcc warns that they are unused)."""
    if config.action not in ("compile", "assemble"):
        return []
    return [i.path for i in config.inputs if i.language == "linker"]
