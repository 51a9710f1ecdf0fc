# SPDX-License-Identifier: MIT
"""What a pass is: a registered class with a kebab-case `name`, `requires`/`provides` and `run`.

Input/output: `PolyUnit` -> `PolyUnit` (a new value; passes never mutate nor print).
`PassContext` carries the options and the region's isl context. `requires` and
`provides` name fields of the unit (clangpass.passes.unit: `scop`, `dependences`,
`live-ranges`, ...); a pass that changes the model sets `changes_model`, which drops
the analyses of the model (`MODEL_ANALYSES`). The pass manager
(clangpass.passes.manager) looks passes up by name in `PASSES` and checks a pipeline
against these declarations before it runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import islpy as isl

from clangpass.options import CompileOptions
from clangpass.passes.unit import PolyUnit


@dataclass(frozen=True)
class PassContext:
    options: CompileOptions
    isl_ctx: isl.Context        # one per region: isl options set by a pass never leak to another region


class Pass:
    """Base of every pass; subclasses set the class attributes and implement `run`."""

    name: ClassVar[str]
    requires: ClassVar[frozenset[str]] = frozenset()
    provides: ClassVar[frozenset[str]] = frozenset()
    changes_model: ClassVar[bool] = False   # may return `unit.with_model(...)` (drops MODEL_ANALYSES)
    dump_stage: ClassVar[str] = "scop"   # the -fpencil-dump stage that shows this pass's result ('': none)

    def run(self, unit: PolyUnit, ctx: PassContext) -> PolyUnit:
        raise NotImplementedError


PASSES: dict[str, type[Pass]] = {}


def register(cls: type[Pass]) -> type[Pass]:
    if cls.name in PASSES:
        raise ValueError(f"pass '{cls.name}' registered twice")
    PASSES[cls.name] = cls
    return cls
