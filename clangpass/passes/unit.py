# SPDX-License-Identifier: MIT
"""The compilation unit the polyhedral passes transform: one region on its way to an AST.

Input: an `OptRegion` and its `Module` (stage REGION). The `extract` pass adds the
`Scop` (stage SCOP), scheduling passes replace it by rescheduled copies, and
`codegen` adds the `CodegenUnit` for the back ends (stage AST). `provided` names
the facts established so far (`scop`, `dependences`, `schedule`, `ast`), which
the pass manager checks against each pass's `requires`.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional

from clangpass.ir import nodes as N
from clangpass.poly.alias_check import AliasCheck
from clangpass.poly.clustering import Clustering
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.poly.live_ranges import RelaxedDependences
from clangpass.poly.scop import Scop
from clangpass.regions import OptRegion


class Stage(enum.Enum):
    REGION = "region"
    SCOP = "scop"
    AST = "ast"


@dataclass(frozen=True)
class PolyUnit:
    region: OptRegion
    module: N.Module
    stage: Stage = Stage.REGION
    scop: Optional[Scop] = None
    codegen: Optional[CodegenUnit] = None
    relaxed: Optional[RelaxedDependences] = None   # set by relax-false-deps when local storage has false deps
    alias_check: Optional[AliasCheck] = None       # set by alias-check
    clustering: Optional[Clustering] = None        # set by cluster-stmts: what `schedule` schedules
    provided: frozenset[str] = field(default=frozenset())
