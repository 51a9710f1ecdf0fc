# SPDX-License-Identifier: MIT
"""The hand-off from the polyhedral middle end to the back ends.

A `CodegenUnit` is everything a back end needs to emit one outlined region:
the region's interface (arguments, symbol: `clangpass.regions.OptRegion`), the
final isl AST, and for each statement name the IR body and the names of the
iterators whose values the AST passes to it.

AST conventions (produced by clangpass.poly.codegen, read by llvm_backend):
- a user node is the call expression `S(e0, ..., ek)` where S is a key of
  `statements` and e0..ek are the values of `StatementBody.iterators`, in order;
- a mark node named `parallel` sits directly above a for node whose iterations
  are independent (the back end runs the outermost such loop on threads);
- mark nodes named `tile` / `point` delimit tiled bands (informational);
  a `wavefront` mark sits above the sequential loop over wavefronts of tiles
  (clangpass.passes.wavefront; informational);
  unknown marks are transparent.
Region-local variables (`locals`) are allocated by the back end at the start of
the outlined function, once per thread inside a parallel loop (copied in at the
loop's entry, never copied back: the middle end never marks parallel a loop out
of which a local's value flows); their initialisers have already become statements.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.poly.alias_check import AliasCheck
from clangpass.regions import OptRegion

WAVEFRONT_MARK = "wavefront"


@dataclass(frozen=True)
class StatementBody:
    name: str
    body: N.Stmt                 # an ExprStmt (assignment, call...) with C semantics
    iterators: tuple[str, ...]   # surrounding loop iterators, outermost first


@dataclass(frozen=True)
class CodegenUnit:
    region: OptRegion
    ast: isl.AstNode
    statements: Mapping[str, StatementBody]
    locals: tuple[N.VarDecl, ...] = ()
    parallel_loops: int = 0          # number of `parallel` marks in `ast`
    wavefronts: int = 0              # number of `wavefront` marks in `ast`
    tiled_bands: int = 0
    tile_sizes: tuple[int, ...] = field(default=())
    alias_check: Optional[AliasCheck] = None   # the run-time check the region runs under (None: not made)
