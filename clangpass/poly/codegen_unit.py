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
  a `thread-team` mark sits above the outermost sequential loop that holds
  parallel loops (clangpass.passes.thread_team): the back end starts its threads
  once around it, not once per parallel loop;
  a `vector` mark sits directly above an innermost for node whose iterations are
  independent (clangpass.passes.mark_vector): the back end asks for vector lanes;
  a `register-tile` mark sits above an unroll-and-jammed point band
  (clangpass.passes.register_tile): under it, the for node directly above a
  `vector` mark is the row loop of a register tile, to be unrolled completely, and
  no loop but the `vector` ones is to be vectorised; the copies of its packed panels
  (clangpass.poly.packing) run just before it, as ordinary statements whose calls,
  like those of the statements reading the buffers, pass the buffer indices as
  their last arguments (`StatementBody.iterators` names them);
  unknown marks are transparent.
Reductions (`reductions`, from `#pragma pencil independent reduction(op: v)`;
clangpass.passes.mark_parallel): a for node under a `parallel` mark whose body
calls a statement of `LoopReduction.statements` performs that reduction when it
runs on threads: each thread updates a private copy of `target` (the variable `v`,
or one element of it with constant subscripts), initialised to the identity of
`operator` ('+', '*', 'min', 'max', '&', '|', '^'; for '&&', '||' a mark no
update writes), in place of the shared one; after the loop
the partial results are combined in thread order (thread 0's first), and that
into the shared element: the result is deterministic for a fixed thread count.
Under such a loop `variable` is touched only by those statements, each an update
`target = target op e` (or `op=`) computed in the target's type. A loop that runs
sequentially (nested, or -fno-pencil-parallel) performs the updates in place.
`unordered_updates` names every statement that updates a reduction variable whose
carried dependences the middle end dropped (performed on threads or not): the
`parallel` and `vector` marks do not cover its accesses, so the back end keeps
them out of the access groups of parallel loops (LLVM orders them itself).
Region-local variables (`locals`) are allocated by the back end at the start of
the outlined function, once per thread inside a parallel loop (copied in at the
loop's entry, never copied back: the middle end never marks parallel a loop out
of which a local's value flows); their initialisers have already become statements.
The locals named in `shared_locals` are the exception: one copy that every thread
shares, as the caller's arrays (the middle end models them as caller storage, with
memory-based dependences: expand-scalars' one element per column).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.poly.alias_check import AliasCheck
from clangpass.poly.scop import LoopReduction
from clangpass.poly.validity import PARALLEL_MARK
from clangpass.regions import OptRegion

WAVEFRONT_MARK = "wavefront"
TEAM_MARK = "thread-team"
REGISTER_TILE_MARK = "register-tile"


@dataclass(frozen=True)
class StatementBody:
    name: str
    body: N.Stmt                 # an ExprStmt (assignment, call...), an opaque statement or a
                                 # group's Compound of them, with C semantics
    iterators: tuple[str, ...]   # surrounding loop iterators, outermost first


@dataclass(frozen=True)
class CodegenUnit:
    region: OptRegion
    ast: isl.AstNode
    statements: Mapping[str, StatementBody]
    locals: tuple[N.VarDecl, ...] = ()
    parallel_loops: int = 0          # number of `parallel` marks in `ast`
    wavefronts: int = 0              # number of `wavefront` marks in `ast`
    vector_loops: int = 0            # number of `vector` marks in `ast`
    register_tiles: int = 0          # number of `register-tile` marks in `ast`
    # The packed panels whose copies `ast` makes (clangpass.poly.packing.Pack): their buffers are
    # among `locals`, their copy statements (`P_<buffer>`) among `statements`.
    packs: tuple[Any, ...] = ()
    alias_check: Optional[AliasCheck] = None   # the run-time check the region runs under (None: not made)
    reductions: tuple[LoopReduction, ...] = ()  # reductions of `parallel` loops (see the module doc)
    unordered_updates: frozenset[str] = frozenset()   # statements updating reduced variables (module doc)
    # Caller arrays whose values are dead at the region's entry / exit (clangpass.poly.live_ranges:
    # entry_dead_arrays, exit_dead_arrays): a target that copies data need not copy them in / back.
    entry_dead: frozenset[str] = frozenset()
    exit_dead: frozenset[str] = frozenset()
    # For a target that copies arrays (live_ranges.device_footprints): the rows of an array the
    # region may touch where that can exceed its declared first extent (an isl AST expression
    # of the parameters), and the arrays no copy of whole rows serves.
    device_rows: Mapping[str, isl.AstExpr] = field(default_factory=dict)
    beyond_extents: frozenset[str] = frozenset()
    # For a target that runs parallel loops apart (live_ranges.iteration_locals): the local arrays
    # whose values never cross an iteration of a `parallel` loop, so that each iteration may have
    # an uninitialised copy of its own although other loops use the array too.
    iteration_locals: frozenset[str] = frozenset()
    # Region locals every thread shares (module doc), never given a private copy.
    shared_locals: frozenset[str] = frozenset()
    # Statements generated as one (clangpass.poly.codegen.statement_groups): the AST calls the
    # first of each group, whose body (a Compound) runs every member's body in order.
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # The parameter constraints the region holds under (`Scop.context`: its arrays' extents are
    # non-negative, its `__pencil_assume`s), `[P] -> { : ... }` over the region's integer arguments
    # (None: not known): a back end may bound sizes with it (llvm_backend.opencl.tiling).
    context: Optional[isl.Set] = None


def has_parallel_loop(node: isl.AstNode) -> bool:
    """Whether a `parallel` mark above a loop of more than one iteration is at or under `node`."""
    found = []

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == PARALLEL_MARK:
            child = n.mark_get_node()
            if child.get_type() == isl.ast_node_type.for_ and not child.for_is_degenerate():
                found.append(True)
        return not found

    node.foreach_descendant_top_down(visit)
    return bool(found)


def statement_names(node: isl.AstNode) -> set[str]:
    """The statements the user nodes at or under `node` call."""
    names: set[str] = set()

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.user:
            names.add(n.user_get_expr().op_get_arg(0).id_get_id().get_name())
        return True

    node.foreach_descendant_top_down(visit)
    return names


def parallel_regions(ast: isl.AstNode) -> int:
    """How many places of `ast` start threads: `thread-team` marks over parallel loops,
    and outermost parallel loops outside them."""
    count = [0]

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() != isl.ast_node_type.mark:
            return True
        name = n.mark_get_id().get_name()
        if name == TEAM_MARK and has_parallel_loop(n.mark_get_node()):
            count[0] += 1
            return False
        if name == PARALLEL_MARK and has_parallel_loop(n):
            count[0] += 1
            return False
        return True

    ast.foreach_descendant_top_down(visit)
    return count[0]


def thread_teams(ast: isl.AstNode) -> int:
    """How many `thread-team` marks of `ast` hold a parallel loop."""
    count = [0]

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.mark and n.mark_get_id().get_name() == TEAM_MARK:
            if has_parallel_loop(n.mark_get_node()):
                count[0] += 1
                return False
        return True

    ast.foreach_descendant_top_down(visit)
    return count[0]
