# SPDX-License-Identifier: MIT
"""What a pass is: a registered class with a kebab-case `name`, `requires`/`provides` and `run`.

Input/output: `PolyUnit` -> `PolyUnit` (a new value; passes never mutate nor print).
`PassContext` carries the options, the region's isl context and the target's traits
(clangpass.targets.TargetTraits: passes read these, never the target's name). `requires` and
`provides` name fields of the unit (clangpass.passes.unit: `scop`, `dependences`,
`live-ranges`, ...); a pass that changes the model sets `changes_model`, which drops
the analyses of the model (`MODEL_ANALYSES`). The pass manager
(clangpass.passes.manager) looks passes up by name in `PASSES` and checks a pipeline
against these declarations before it runs.

What a pass did for the optimisation record is its own frozen `PassRecord` (declared
beside it, named by its `record` attribute), which it puts on the unit
(`PolyUnit.with_record`). The record of a region is the flattening of these: every
field of every pass's record type is a key (`record_fields`), with its default when
the pass did not run or the region fell back.
"""
from __future__ import annotations

import functools
import importlib
import pkgutil
from dataclasses import dataclass, fields
from typing import ClassVar, Optional

import islpy as isl

from clangpass.options import CompileOptions
from clangpass.passes.unit import PolyUnit
from clangpass.targets import TargetTraits


@dataclass(frozen=True)
class PassRecord:
    """Base of the records passes keep of what they did: each field is a key of the region's
    optimisation record, its default the value when the pass did not run. Plain values only (a
    record crosses the driver's process boundary)."""

    def fields(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class PassContext:
    options: CompileOptions
    isl_ctx: isl.Context        # one per region: isl options set by a pass never leak to another region
    traits: TargetTraits = TargetTraits()   # of the target the pipeline is the target's pipeline of

    @property
    def exact_reductions(self) -> bool:
        """Whether the dependences look for exact reductions (the option, on a target that uses them)."""
        return self.options.exact_reductions and self.traits.exact_reductions


class Pass:
    """Base of every pass; subclasses set the class attributes and implement `run`."""

    name: ClassVar[str]
    requires: ClassVar[frozenset[str]] = frozenset()
    provides: ClassVar[frozenset[str]] = frozenset()
    changes_model: ClassVar[bool] = False   # may return `unit.with_model(...)` (drops MODEL_ANALYSES)
    record: ClassVar[Optional[type[PassRecord]]] = None   # what it puts on the unit for the record
    # The pass only rewrites the schedule tree (and its record and notes): a schedule read from a
    # file (-fpencil-load-schedule, pass `load-schedule`) takes the place of its result, and the
    # pass manager skips it for a region that has one.
    rewrites_schedule: ClassVar[bool] = False
    dump_stage: ClassVar[str] = "scop"   # the -fpencil-dump stage that shows this pass's result ('': none)
    # A plugin's pass only (clangpass.passes.plugins): the pass after which -fpencil-pass-plugin
    # puts it in the target's pipeline ('': it runs only where -fpencil-passes= names it).
    after: ClassVar[str] = ""

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        raise NotImplementedError


PASSES: dict[str, type[Pass]] = {}


def register(cls: type[Pass]) -> type[Pass]:
    """Add `cls` to `PASSES` (a plugin's module may be imported again: the same class twice is
    one registration)."""
    if PASSES.get(cls.name, cls) is not cls:
        raise ValueError(f"pass '{cls.name}' registered twice")
    PASSES[cls.name] = cls
    return cls


def is_builtin(cls: type[Pass]) -> bool:
    """Whether `cls` is one of pencilcc's own passes (a module of this package), not a plugin's."""
    return cls.__module__.startswith(f"{__package__}.")


def load_passes() -> dict[str, type[Pass]]:
    """`PASSES`, with every module of this package imported (importing a pass's module registers
    it: a new pass is its module, nothing to add here)."""
    _import_pass_modules()
    return PASSES


@functools.cache
def _import_pass_modules() -> None:
    package = importlib.import_module(__package__)
    for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
        importlib.import_module(f"{__package__}.{module}")


# Keys several passes' records may share: each is a tuple, and the record's value is their
# concatenation in pipeline order (`storage`: one entry per array from each memory pass, issue 26).
SHARED_KEYS = frozenset({"storage"})


def record_fields(records: tuple[PassRecord, ...]) -> dict[str, object]:
    """`records` flattened into the keys of the optimisation record: the fields of every pass's
    record type, each from the record of `records` that has it, else its default. Two record
    types may not share a key, but for the tuples of `SHARED_KEYS`, which are concatenated."""
    out: dict[str, object] = {}
    owner: dict[str, str] = {}
    for cls in load_passes().values():
        if cls.record is not None:
            for key, default in cls.record().fields().items():
                if key in owner and key not in SHARED_KEYS:
                    raise ValueError(f"the records of '{owner[key]}' and '{cls.name}' both have '{key}'")
                owner[key] = cls.name
                out[key] = default
    shared: dict[str, tuple] = {}
    for record in records:
        for key, value in record.fields().items():
            if key in SHARED_KEYS:
                shared[key] = shared.get(key, ()) + tuple(value)
            else:
                out[key] = value
    out.update(shared)
    return out
