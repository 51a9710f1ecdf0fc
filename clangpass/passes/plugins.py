# SPDX-License-Identifier: MIT
"""Passes from outside pencilcc: the entry-point group `pencilcc.passes` and -fpencil-pass-plugin.

Input: a pass name that no registered pass has, looked up among the entry points of the
group `pencilcc.passes` of the installed distributions (an entry point's name is its pass's
name, its object a `Pass` subclass or an instance of one); or the name of a module that
registers passes when imported (`clangpass.passes.registry.register`). Output: the plugin's
`Pass` classes, checked against the pass contract and registered in `PASSES`, so that a
pipeline (-fpencil-passes=, --disable-pass, --dump-after) can name them; a `PluginError`,
whose message the driver prints as `pencilcc: error: ...`, for anything that is not a usable
pass (a module that fails to import, an object that is not a Pass, a name that clashes, a
record key that another record or the outcome already has).

Entry points are loaded by name, when a pipeline names a pass pencilcc does not have: an
installed plugin is available, never imposed, so installing one changes no build; a broken
one breaks only the compiles that name its pass; and compiles that name none pay nothing.
A plugin module's passes that declare `after` join the target's pipeline after that pass
(`with_plugin_passes`); an entry point's run only where -fpencil-passes= names them.
"""
from __future__ import annotations

import importlib
import re
from dataclasses import fields, is_dataclass
from typing import TYPE_CHECKING, Iterable, Optional, Sequence

from clangpass.passes.registry import PASSES, Pass, PassRecord, is_builtin, load_passes
from clangpass.report import OUTCOME_KEYS

if TYPE_CHECKING:
    from importlib import metadata

ENTRY_POINT_GROUP = "pencilcc.passes"

# The -fpencil-dump stages a pass's result can be shown in (clangpass.passes.manager.format_stage).
_DUMP_STAGES = ("", "scop", "deps", "schedule", "ast")
_PASS_NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")

# The passes each -fpencil-pass-plugin module registered (a module imports once per process).
_MODULE_PASSES: dict[str, tuple[type[Pass], ...]] = {}


class PluginError(Exception):
    """A plugin cannot be used; the message says which and why."""


def load_module(module: str) -> tuple[type[Pass], ...]:
    """The passes module `module` registers when imported (-fpencil-pass-plugin=MODULE), checked."""
    if module in _MODULE_PASSES:
        return _MODULE_PASSES[module]
    load_passes()
    before = dict(PASSES)
    origin = f"plugin module '{module}'"
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (module == exc.name or module.startswith(f"{exc.name}.")):
            raise PluginError(f"cannot find {origin} (-fpencil-pass-plugin={module}): is it installed "
                              "in the Python environment pencilcc runs in?") from None
        raise PluginError(f"{origin} failed to import: {type(exc).__name__}: {exc}") from None
    except Exception as exc:
        raise PluginError(f"{origin} failed to import: {type(exc).__name__}: {exc}") from None
    added = [cls for name, cls in PASSES.items() if before.get(name) is not cls]
    # Its own passes too when something imported it before (an entry point of the same package).
    added += [cls for cls in before.values() if not is_builtin(cls)
              and (cls.__module__ == module or cls.__module__.startswith(f"{module}."))]
    if not added:
        raise PluginError(f"{origin} registers no pass (decorate its Pass subclasses with "
                          "clangpass.passes.registry.register)")
    try:
        for cls in added:
            check_pass(cls, origin)
    except PluginError:
        for cls in added:
            if before.get(cls.name) is not cls:
                PASSES.pop(cls.name, None)
        raise
    _MODULE_PASSES[module] = passes = tuple(dict.fromkeys(added))
    return passes


def entry_points() -> dict[str, list[metadata.EntryPoint]]:
    """The entry points of `ENTRY_POINT_GROUP`, by name (two distributions may claim one)."""
    from importlib import metadata      # only when a plugin is looked for: it costs 20 ms to import

    out: dict[str, list[metadata.EntryPoint]] = {}
    for point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        out.setdefault(point.name, []).append(point)
    return out


def resolve(names: Iterable[str]) -> None:
    """Register the entry-point pass of every name in `names` that no registered pass has (a
    name no entry point has either stays unknown: the pipeline check reports it)."""
    load_passes()
    unknown = [n for n in dict.fromkeys(names) if n not in PASSES]
    if not unknown:
        return
    points = entry_points()
    for name in unknown:
        if name in points:
            load_entry_point(name, points[name])


def load_all_entry_points() -> list[str]:
    """Register the pass of every entry point of the group (--print-passes); the problems of
    those that cannot be used, one message each."""
    load_passes()
    problems = []
    for name, points in sorted(entry_points().items()):
        try:
            load_entry_point(name, points)
        except PluginError as exc:
            problems.append(str(exc))
    return problems


def load_entry_point(name: str, points: Sequence[metadata.EntryPoint]) -> type[Pass]:
    """The pass of the entry point `name` (all of `points` have that name), checked and registered."""
    if len(points) > 1:
        where = ", ".join(sorted(_distribution(p) for p in points))
        raise PluginError(f"more than one installed distribution has the pass '{name}' in the entry-point "
                          f"group '{ENTRY_POINT_GROUP}': {where}")
    point = points[0]
    origin = f"entry point '{name} = {point.value}' of '{_distribution(point)}' (group '{ENTRY_POINT_GROUP}')"
    try:
        obj = point.load()
    except Exception as exc:
        raise PluginError(f"cannot load the {origin}: {type(exc).__name__}: {exc}") from None
    cls = check_pass(obj, origin)
    if cls.name != name:
        raise PluginError(f"the {origin} loads the pass '{cls.name}': an entry point's name must be its "
                          "pass's name")
    PASSES[name] = cls
    return cls


def check_pass(obj: object, origin: str) -> type[Pass]:
    """The Pass class of `obj` (a Pass subclass, or an instance of one: the manager makes a new
    one per run) when it keeps the pass contract; else PluginError naming `origin`."""
    cls = type(obj) if isinstance(obj, Pass) else obj
    if not (isinstance(cls, type) and issubclass(cls, Pass)):
        raise PluginError(f"the {origin} gives {obj!r}, which is not a subclass of "
                          "clangpass.passes.registry.Pass nor an instance of one")
    what = f"the pass {getattr(cls, '__qualname__', cls)} of the {origin}"
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not _PASS_NAME.fullmatch(name):
        raise PluginError(f"{what} has no kebab-case `name` (got {name!r})")
    if PASSES.get(name, cls) is not cls:
        other = PASSES[name]
        owner = "one of pencilcc's passes" if is_builtin(other) else f"the pass of '{other.__module__}'"
        raise PluginError(f"{what} is named '{name}', as {owner}")
    if cls.run is Pass.run:
        raise PluginError(f"{what} does not implement `run(unit, ctx) -> unit`")
    for attribute in ("requires", "provides"):
        facts = getattr(cls, attribute)
        if not isinstance(facts, frozenset) or not all(isinstance(f, str) for f in facts):
            raise PluginError(f"{what}: `{attribute}` must be a frozenset of names, got {facts!r}")
    if cls.dump_stage not in _DUMP_STAGES:
        raise PluginError(f"{what}: `dump_stage` must be one of {', '.join(map(repr, _DUMP_STAGES))}, "
                          f"got {cls.dump_stage!r}")
    if not isinstance(cls.after, str):
        raise PluginError(f"{what}: `after` must be a pass name, got {cls.after!r}")
    _check_record(cls, what)
    return cls


def _check_record(cls: type[Pass], what: str) -> None:
    """`cls.record`, if any, is a frozen PassRecord whose keys no other record and not the
    outcome's own keys have: the optimisation record keeps every key it had."""
    record = cls.record
    if record is None:
        return
    if not (isinstance(record, type) and issubclass(record, PassRecord) and is_dataclass(record)
            and record.__dataclass_params__.frozen):
        raise PluginError(f"{what}: `record` must be a frozen dataclass deriving from "
                          "clangpass.passes.registry.PassRecord")
    try:
        keys = [f.name for f in fields(record())]
    except TypeError as exc:
        raise PluginError(f"{what}: its record needs a default for every field ({exc})") from None
    owners = {key: other.name for other in PASSES.values() if other is not cls and other.record is not None
              for key in (f.name for f in fields(other.record))}
    for key in keys:
        if key in OUTCOME_KEYS:
            raise PluginError(f"{what}: its record's key '{key}' is one of the optimisation record's own")
        if key in owners:
            raise PluginError(f"{what}: its record's key '{key}' is the record of pass '{owners[key]}' already")


def with_plugin_passes(names: Sequence[str], plugins: Sequence[type[Pass]]) -> list[str]:
    """The pipeline `names` with each of `plugins` that declares `after` put right after that
    pass (in the order given); one whose `after` is not in `names` does not run."""
    out = list(names)
    for cls in plugins:
        if not cls.after:
            continue
        if cls.after not in PASSES:
            raise PluginError(f"the pass '{cls.name}' of '{cls.__module__}' goes after '{cls.after}', "
                              "which is no pass")
        if cls.after in out and cls.name not in out:
            out.insert(_last_after(out, cls.after) + 1, cls.name)
    return out


def _last_after(names: list[str], anchor: str) -> int:
    """Where the plugin passes after `anchor` end: after `anchor` and those put there before."""
    at = names.index(anchor)
    while at + 1 < len(names) and names[at + 1] in PASSES and PASSES[names[at + 1]].after == anchor:
        at += 1
    return at


def _distribution(point: metadata.EntryPoint) -> str:
    dist: Optional[metadata.Distribution] = getattr(point, "dist", None)
    return f"{dist.name} {dist.version}" if dist is not None else point.value
