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

import mmap
import os
from typing import Mapping, Sequence

from clangpass.driver.cli import DriverConfig
from clangpass.driver.host import HostCompiler
from clangpass.targets import get_target

# Outlined functions are named __pencilcc_<function>_<kind><n>_<hash> (clangpass.regions).
_REGION_SYMBOL = b"__pencilcc_"
# Parallel loops call libgomp (llvm_backend.cpu.parallel).
_OPENMP_SYMBOL = b"GOMP_parallel"
# OpenCL regions launch kernels through the runtime (llvm_backend.opencl.host, runtime/).
_OPENCL_SYMBOL = b"pencilcc_cl_run"
_OBJECT_SUFFIXES = (".o", ".obj", ".lo", ".a")


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
    # A source the runtime adds (the OpenCL runtime's .c files) is compiled into the program
    # once, however many inputs asked for it (an object built earlier and a C input, say).
    extra = [f for k, f in enumerate(extra) if not (f.endswith(".c") and f in extra[:k])]
    return [*args, *extra, "-o", output]


def _contains(path: str, needles: Sequence[bytes]) -> list[bool]:
    try:
        with open(path, "rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return [False] * len(needles)
            with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
                return [data.find(n) >= 0 for n in needles]
    except (OSError, ValueError):
        return [False] * len(needles)      # the linker will say what is wrong with it


def prebuilt_runtime_flags(config: DriverConfig) -> list[str]:
    """Runtime flags for objects and archives pencilcc built in earlier commands.

    `pencilcc -c k.c && pencilcc k.o -o prog` (what make does) must link as
    `pencilcc k.c -o prog` does, but k.o's link flags were known only when it was
    compiled. Its outlined functions' names tell that it holds regions, and a call
    to libgomp that they run loops on threads: -lm for the former (math builtins),
    -fopenmp for the latter, as `llvm_backend.cpu.runtime_link_flags` would say; and a
    call to the OpenCL runtime that they launch kernels (`-fpencil-target=opencl`): the
    runtime, as `llvm_backend.opencl` adds it.
    """
    regions = openmp = opencl = False
    for source in config.inputs:
        if source.language == "linker" and source.path.endswith(_OBJECT_SUFFIXES):
            found = _contains(source.path, (_REGION_SYMBOL, _OPENMP_SYMBOL, _OPENCL_SYMBOL))
            regions |= found[0]
            openmp |= found[0] and found[1]
            opencl |= found[0] and found[2]
    return ((["-fopenmp"] if openmp else []) + (["-lm"] if regions else [])
            + (list(get_target("opencl").runtime_flags()) if opencl else []))


#: How `localize_symbols` asks the host compiler for its objcopy (`HostCompiler.ask_early`).
OBJCOPY_QUESTION = ("-print-prog-name=objcopy",)


def localize_symbols(host: HostCompiler, obj: str, symbols: Sequence[str]) -> str:
    """Make `symbols` local to `obj` (the `-r` link of a host part and its regions); returns
    objcopy's complaint, '' on success.

    An outlined function is called only from the file it was outlined from, and its name
    is a hash of that file's name and function: the same file compiled twice (different
    -D) into one program would otherwise define it twice. After the `-r` link the calls
    are resolved inside the object, so the name need not be seen outside it.
    """
    if not symbols:
        return ""
    named = host.answer(OBJCOPY_QUESTION)
    proc = host.run([*(f"--localize-symbol={s}" for s in symbols), obj], capture=True,
                    tool=[named or "objcopy"])
    return "" if proc.returncode == 0 else proc.stderr.decode(errors="replace")


def localize_in_assembly(assembly: str, symbols: Sequence[str]) -> str:
    """`localize_symbols` for -S: the regions' assembly without the `.globl` lines of
    `symbols` (the host part's calls resolve within the one assembly file)."""
    hidden = {(".globl", symbol) for symbol in symbols}
    return "".join(line for line in assembly.splitlines(keepends=True)
                   if tuple(line.split()) not in hidden)


def unused_linker_inputs(config: DriverConfig) -> list[str]:
    """Linker inputs of a -c/-S command (gcc warns that they are unused)."""
    if config.action not in ("compile", "assemble"):
        return []
    return [i.path for i in config.inputs if i.language == "linker"]
