# SPDX-License-Identifier: MIT
"""The isl AST of a `CodegenUnit` as LLVM control flow.

Input: `CodegenUnit.ast` (isl_ast_node: for, if, block, mark, user) and the unit's
statement bodies. Output: loops and statement instances in the current function.

- `for` nodes: the iterator is an i64 induction variable (`control.for_range`); isl's
  condition may hold min/max, floor divisions and conjunctions and is re-evaluated in
  the loop header (LICM hoists its invariant parts); degenerate loops (one
  iteration) just bind the iterator. Every loop gets a loop id with
  `llvm.loop.mustprogress`; a loop under a `parallel` mark also lists an access
  group that the loads and stores of region-argument arrays in its body join
  (`llvm.loop.parallel_accesses`), so the vectoriser needs no dependence checks.
- `mark` nodes: `parallel` directly above a for node runs that loop on threads
  (`parallel.run_on_threads`) when it is the outermost one and -fpencil-parallel is
  on; nested ones run sequentially. `thread-team` runs its subtree as one thread
  team (`parallel.run_on_threads`): inside it, a parallel loop is shared out by
  `parallel.Team.share` and code without parallel loops runs on thread 0. `vector` directly above a for node: an innermost
  loop with independent iterations, lowered with the access group of a parallel loop
  and `llvm.loop.vectorize.enable`; one that reads an array at neighbouring elements
  along its iterator (a stencil: `neighbours.reads_neighbours`) also gets
  `llvm.loop.interleave.count` 1, one vector body per iteration. Where isl
  separated the marked member into pieces under ifs (heat-3d), the pieces get no
  hint and LLVM's cost model decides: forcing them measured slower (heat-3d LARGE,
  one thread, 2.16-2.18 s unforced against 2.62-2.69 s forced). `register-tile`: in its subtree the loop directly
  above a `vector` mark (the rows of the register tile) gets `llvm.loop.unroll.full`,
  and every loop but the `vector` ones `llvm.loop.vectorize.enable` false: the row
  loop must become straight-line code whose accumulators LICM keeps in registers
  across the reduction loop. Left to its cost model, LLVM unrolls the short vector
  loop first and then vectorises the row loop across rows, with gathers and
  scatters of the accumulators in every reduction step (gemm, -fno-pencil-parallel:
  1.1 s instead of 0.1 s). Where `register_rows` proves that the rows of such a loop touch
  disjoint elements of the arrays they write (a VLA `C[n][n]`, whose rows LLVM cannot tell
  apart), the back end unrolls the row loop itself and gives each row's accesses to those
  arrays an alias scope, the other rows' scopes as `!noalias` (`unrolled_rows`), so that LICM
  still keeps the accumulators in registers. Other marks (tile, point, ...) are transparent.
- `user` nodes `S(e0, ..., ek)`: each e_i is evaluated in i64 and bound to
  `StatementBody.iterators[i]`, then the IR body is lowered (`lower_expr`); the
  accesses of a reduction's update (`CodegenUnit.unordered_updates`) join no
  access group.
- isl expressions (isl_ast_expr_op_type): integer ones in i64 with nsw, boolean ones
  in i1; fdiv_q is the floor quotient, div/pdiv_q/pdiv_r/zdiv_r are exact or
  non-negative cases where sdiv/srem are right.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Optional

import islpy as isl
import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.poly.ast_c import iterator_name
from clangpass.poly.codegen_unit import REGISTER_TILE_MARK, TEAM_MARK, CodegenUnit, has_parallel_loop
from clangpass.poly.validity import VECTOR_MARK
from llvm_backend.cpu.context import FunctionState, Variable
from llvm_backend.cpu.control import AccessGroup, for_range, loop_id
from llvm_backend.cpu.lower_expr import ExprLowering
from llvm_backend.cpu.lower_types import I1, I64, BackendError
from llvm_backend.cpu.neighbours import reads_neighbours
from llvm_backend.cpu.accumulators import accumulator_chains
from llvm_backend.cpu.register_rows import Enclosing, disjoint_row_arrays

if TYPE_CHECKING:
    from llvm_backend.cpu.parallel import Team

OP = isl.ast_expr_op_type
_COMPARE = {OP.eq: "==", OP.le: "<=", OP.lt: "<", OP.ge: ">=", OP.gt: ">"}


class AstLowering:
    """Walks one isl AST into the function of `state`."""

    def __init__(self, state: FunctionState, unit: CodegenUnit,
                 run_on_threads: Optional[Callable[["AstLowering", isl.AstNode], None]] = None) -> None:
        self.state = state
        self.unit = unit
        self.run_on_threads = run_on_threads   # None inside a thread function: nested loops run sequentially
        self.team: Optional["Team"] = None     # inside a thread team (parallel.Team): who runs what
        self.in_register_tile = False          # under a `register-tile` mark
        self._row_arrays: Optional[dict[str, frozenset[str]]] = None   # see `row_arrays`
        self._accumulators: Optional[dict[str, dict[str, frozenset]]] = None   # see `accumulators`
        self.exprs = ExprLowering(state)
        self._dispatch: dict[object, Callable[[isl.AstNode], None]] = {
            isl.ast_node_type.for_: self.lower_For,
            isl.ast_node_type.if_: self.lower_If,
            isl.ast_node_type.block: self.lower_Block,
            isl.ast_node_type.mark: self.lower_Mark,
            isl.ast_node_type.user: self.lower_User,
        }

    @property
    def builder(self) -> ir.IRBuilder:
        return self.state.builder

    def lower_region(self, ast: isl.AstNode) -> None:
        """The whole AST of the unit (a target's lowering may wrap it: llvm_backend.opencl.host)."""
        self.lower(ast)

    def lower(self, node: isl.AstNode) -> None:
        team = self.team
        if team is not None and not has_parallel_loop(node):
            # Inside a thread team, code with no parallel loop runs on thread 0 alone.
            self.team = None
            try:
                team.on_master(self, node)
            finally:
                self.team = team
            return
        self._dispatch[node.get_type()](node)

    # ------------------------------------------------------------------ nodes
    def lower_Block(self, node: isl.AstNode) -> None:
        children = node.block_get_children()
        for i in range(children.n_ast_node()):
            self.lower(children.get_at(i))

    def lower_If(self, node: isl.AstNode) -> None:
        cond = self.boolean(node.if_get_cond())
        if not node.if_has_else_node():
            with self.builder.if_then(cond):
                self.lower(node.if_get_then_node())
            return
        with self.builder.if_else(cond) as (then, otherwise):
            with then:
                self.lower(node.if_get_then_node())
            with otherwise:
                self.lower(node.if_get_else_node())

    def lower_Mark(self, node: isl.AstNode) -> None:
        child = node.mark_get_node()
        fuse = self.exprs.fuse_accumulators
        if node.mark_get_id().get_name() == REGISTER_TILE_MARK and not self.in_register_tile:
            self.in_register_tile = self.exprs.fuse_accumulators = True
            try:
                self.lower(child)
            finally:
                self.in_register_tile, self.exprs.fuse_accumulators = False, fuse
            return
        if node.mark_get_id().get_name() == VECTOR_MARK and child.get_type() == isl.ast_node_type.for_:
            self.exprs.fuse_accumulators = True     # independent lanes: throughput-bound
            try:
                self.lower_For(child, parallel=True, vectorize=True)
            finally:
                self.exprs.fuse_accumulators = fuse
            return
        if node.mark_get_id().get_name() == TEAM_MARK and self.run_on_threads is not None \
                and self.state.ctx.options.parallel and has_parallel_loop(child):
            self.run_on_threads(self, child)
            return
        if node.mark_get_id().get_name() != "parallel" or child.get_type() != isl.ast_node_type.for_:
            self.lower(child)
            return
        if self.team is not None and not child.for_is_degenerate():
            team, self.team = self.team, None   # nested parallel marks run sequentially in the threads
            try:
                team.share(self, child)
            finally:
                self.team = team
            return
        if self.run_on_threads is not None and self.state.ctx.options.parallel and not child.for_is_degenerate():
            self.run_on_threads(self, node)
            return
        self.lower_For(child, parallel=True)

    def lower_For(self, node: isl.AstNode, parallel: bool = False, vectorize: bool = False) -> None:
        name = iterator_name(node)
        start = self.integer(node.for_get_init())
        if node.for_is_degenerate():
            self.with_id(name, start, lambda: self.lower(node.for_get_body()))
            return
        step = self.integer(node.for_get_inc())
        group = AccessGroup(self.state.ctx.module) if parallel else None

        def condition(iv: ir.Value) -> ir.Value:
            return self.with_id(name, iv, lambda: self.boolean(node.for_get_cond()))

        hints = {}
        if self.in_register_tile and _is_vector_loop(node.for_get_body()) and _has_constant_bounds(node):
            rows = _constant_values(node)
            arrays = self.row_arrays(node) if rows else frozenset()
            if arrays:
                self.unrolled_rows(node, name, rows, arrays)
                return
        if self.in_register_tile:
            hints = {"vectorize": vectorize,
                     "unroll_full": _is_vector_loop(node.for_get_body()) and _has_constant_bounds(node)}
        elif vectorize:
            hints = {"vectorize": True}
            if reads_neighbours(self.unit, node):
                hints["interleave"] = 1
        saved = self.state.accumulator_scopes
        if not self.in_register_tile:
            self.state.accumulator_scopes = {**saved, **self.accumulator_scopes(node)}
        try:
            with for_range(self.builder, start, condition, step, f"pencil.{name}",
                           loop_id(self.state.ctx.module, group, **hints)) as iv:
                if group is not None:
                    self.state.push_parallel(group)
                self.with_id(name, iv, lambda: self.lower(node.for_get_body()))
                if group is not None:
                    self.state.pop_parallel()
        finally:
            self.state.accumulator_scopes = saved

    def accumulator_scopes(self, node: isl.AstNode) -> dict:
        """For an innermost loop whose accumulators `accumulators.accumulator_chains` proves apart
        from its other accesses: an alias scope for the accumulators and one for the rest of each
        such array, declared here (`llvm.experimental.noalias.scope.decl`, at each execution of the
        loop, for which alone the proof holds), as `FunctionState.accumulator_scopes` holds them."""
        proven = self.accumulators(node)
        if not proven:
            return {}
        module = self.state.ctx.module
        tag = f"pencil.acc.{self.state.function.name}.{len(module.metadata)}"
        domain = module.add_metadata([ir.MetaDataString(module, tag)])
        decl = module.globals.get("llvm.experimental.noalias.scope.decl")
        if decl is None:
            decl = ir.Function(module, ir.FunctionType(ir.VoidType(), [ir.MetaDataType()]),
                               "llvm.experimental.noalias.scope.decl")
        out = {}
        for array, chains in sorted(proven.items()):
            mine = module.add_metadata([ir.MetaDataString(module, f"{tag}.{array}.acc"), domain])
            other = module.add_metadata([ir.MetaDataString(module, f"{tag}.{array}.other"), domain])
            mine_list, other_list = module.add_metadata([mine]), module.add_metadata([other])
            self.builder.call(decl, [mine_list])
            self.builder.call(decl, [other_list])
            out[array] = (chains, (mine_list, other_list), (other_list, mine_list))
        return out

    def accumulators(self, node: isl.AstNode) -> dict[str, frozenset]:
        """`accumulators.accumulator_chains` of the innermost loop `node`, for every such loop of the
        unit's AST that prints as `node` does (the arrays proven in each place)."""
        if self._accumulators is None:
            def proven(n: isl.AstNode, path: list[Enclosing], tiled: bool) -> Optional[dict[str, frozenset]]:
                if tiled or n.for_is_degenerate() or _has_loop(n.for_get_body()):
                    return None
                return accumulator_chains(self.unit, n, path)

            self._accumulators = _per_loop_text(
                self.unit.ast, proven, lambda a, b: {k: c for k, c in b.items() if a.get(k) == c})
        return self._accumulators.get(node.to_C_str(), {})

    def unrolled_rows(self, node: isl.AstNode, name: str, rows: list[int], arrays: frozenset[str]) -> None:
        """A register tile's row loop as one copy of its body per row, whose accesses to
        `arrays` (proven disjoint between rows: register_rows) carry an alias scope per row
        and the other rows' scopes as `!noalias`, so LLVM keeps each row's accumulators in
        registers across the reduction loop although the rows' distance is not a constant."""
        module = self.state.ctx.module
        tag = f"pencil.rows.{self.state.function.name}.{len(module.metadata)}"
        domain = module.add_metadata([ir.MetaDataString(module, tag)])
        scopes = {array: [module.add_metadata([ir.MetaDataString(module, f"{tag}.{array}.{r}"), domain])
                          for r in rows] for array in sorted(arrays)}
        saved = self.state.row_scopes
        try:
            for k, row in enumerate(rows):
                self.state.row_scopes = {**saved, **{
                    array: (module.add_metadata([own[k]]),
                            module.add_metadata([scope for j, scope in enumerate(own) if j != k]))
                    for array, own in scopes.items()}}
                self.with_id(name, ir.Constant(I64, row), lambda: self.lower(node.for_get_body()))
        finally:
            self.state.row_scopes = saved

    def row_arrays(self, node: isl.AstNode) -> frozenset[str]:
        """The arrays `register_rows.disjoint_row_arrays` proves for the row loop `node`, for
        every row loop of the unit's AST that prints as `node` does (the same text may stand
        in two places, e.g. the serial and the threaded copy of a region)."""
        if self._row_arrays is None:
            def proven(n: isl.AstNode, path: list[Enclosing], tiled: bool) -> Optional[frozenset[str]]:
                if not (tiled and _is_vector_loop(n.for_get_body()) and _has_constant_bounds(n)):
                    return None
                rows = _constant_values(n)
                return disjoint_row_arrays(self.unit, n, rows, path) if rows else frozenset()

            self._row_arrays = _per_loop_text(self.unit.ast, proven, lambda a, b: a & b)
        return self._row_arrays.get(node.to_C_str(), frozenset())

    def lower_User(self, node: isl.AstNode) -> None:
        call = node.user_get_expr()
        if call.get_type() != isl.ast_expr_type.op or call.op_get_type() != OP.call:
            raise BackendError("isl user node is not a statement call")
        stmt_name = call.op_get_arg(0).id_get_id().get_name()
        stmt = self.unit.statements.get(stmt_name)
        if stmt is None:
            raise BackendError(f"the AST calls statement '{stmt_name}', which the unit does not define")
        n_args = call.op_get_n_arg() - 1
        if n_args != len(stmt.iterators):
            raise BackendError(f"statement '{stmt_name}' takes {len(stmt.iterators)} iterators, "
                               f"the AST passes {n_args}")
        values = [self.integer(call.op_get_arg(i + 1)) for i in range(n_args)]
        scope = self.state.scope
        shadowed = {name: scope.get(name) for name in stmt.iterators}
        for name, value in zip(stmt.iterators, values):
            scope[name] = Variable(name, T.LONG, "iterator", value)
        # The parallel and vector marks do not cover a reduction's updates (codegen_unit).
        groups = self.state.access_group_list
        if stmt_name in self.unit.unordered_updates:
            self.state.access_group_list = None
        try:
            self.exprs.statement(stmt.body)
        finally:
            self.state.access_group_list = groups
            for name, previous in shadowed.items():
                if previous is None:
                    scope.pop(name, None)
                else:
                    scope[name] = previous

    def with_id(self, name: str, value: ir.Value, emit: Callable[[], object]):
        previous = self.state.isl_ids.get(name)
        self.state.isl_ids[name] = value
        try:
            return emit()
        finally:
            if previous is None:
                self.state.isl_ids.pop(name, None)
            else:
                self.state.isl_ids[name] = previous

    # ------------------------------------------------------------------ expressions
    def integer(self, e: isl.AstExpr) -> ir.Value:
        value = self.expr(e)
        return self.builder.zext(value, I64) if value.type == I1 else value

    def boolean(self, e: isl.AstExpr) -> ir.Value:
        value = self.expr(e)
        return value if value.type == I1 else self.builder.icmp_signed("!=", value, ir.Constant(I64, 0))

    def expr(self, e: isl.AstExpr) -> ir.Value:
        kind = e.get_type()
        if kind == isl.ast_expr_type.int:
            value = e.int_get_val().to_python()
            if not -(1 << 63) <= value < (1 << 63):
                raise BackendError(f"isl AST constant {value} does not fit in 64 bits")
            return ir.Constant(I64, value)
        if kind == isl.ast_expr_type.id:
            return self.identifier(e.id_get_id().get_name())
        return self.operation(e)

    def identifier(self, name: str) -> ir.Value:
        value = self.state.isl_ids.get(name)
        if value is not None:
            return value
        return self.parameter(name)

    def parameter(self, name: str) -> ir.Value:
        """An AST parameter: a region argument's value as i64, computed once at entry."""
        cached = self.state.parameters.get(name)
        if cached is not None:
            return cached
        var = self.state.scope.get(name)
        if var is None or var.kind not in ("value", "memory") or not isinstance(var.ctype, T.IntType):
            raise BackendError(f"isl AST parameter '{name}' is not an integer region argument")
        with self.state.at_entry():
            value = self.exprs.lower_VarRef(N.VarRef(name, "param", type=var.ctype))
            if value.type != I64:
                value = self.exprs.resize(value, var.ctype, I64)
        self.state.parameters[name] = value
        return value

    def operation(self, e: isl.AstExpr) -> ir.Value:
        op = e.op_get_type()
        args = [e.op_get_arg(i) for i in range(e.op_get_n_arg())]
        b = self.builder
        if op in _COMPARE:
            return b.icmp_signed(_COMPARE[op], self.integer(args[0]), self.integer(args[1]))
        if op in (OP.and_, OP.and_then):
            return b.and_(self.boolean(args[0]), self.boolean(args[1]))
        if op in (OP.or_, OP.or_else):
            return b.or_(self.boolean(args[0]), self.boolean(args[1]))
        if op in (OP.cond, OP.select):
            cond = self.boolean(args[0])
            then, otherwise = self.expr(args[1]), self.expr(args[2])
            if then.type != otherwise.type:
                then, otherwise = self.integer(args[1]), self.integer(args[2])
            return b.select(cond, then, otherwise)
        values = [self.integer(a) for a in args]
        if op == OP.minus:
            return b.sub(ir.Constant(I64, 0), values[0], flags=("nsw",))
        if op in (OP.min, OP.max):
            result = values[0]
            for v in values[1:]:
                smaller = b.icmp_signed("<", v, result) if op == OP.min else b.icmp_signed(">", v, result)
                result = b.select(smaller, v, result)
            return result
        lhs, rhs = values
        if op == OP.add:
            return b.add(lhs, rhs, flags=("nsw",))
        if op == OP.sub:
            return b.sub(lhs, rhs, flags=("nsw",))
        if op == OP.mul:
            return b.mul(lhs, rhs, flags=("nsw",))
        if op in (OP.div, OP.pdiv_q):
            return b.sdiv(lhs, rhs)
        if op in (OP.pdiv_r, OP.zdiv_r):
            return b.srem(lhs, rhs)
        if op == OP.fdiv_q:
            return floor_division(b, lhs, rhs)
        raise BackendError(f"isl AST operation '{op}' is not supported by the CPU back end")


def floor_division(b: ir.IRBuilder, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    """floor(lhs / rhs) from the truncating sdiv: one less when the remainder is
    non-zero and its sign differs from the divisor's."""
    quotient = b.sdiv(lhs, rhs)
    remainder = b.srem(lhs, rhs)
    zero = ir.Constant(I64, 0)
    inexact = b.icmp_signed("!=", remainder, zero)
    signs_differ = b.icmp_signed("!=", b.icmp_signed("<", remainder, zero), b.icmp_signed("<", rhs, zero))
    return b.sub(quotient, b.zext(b.and_(inexact, signs_differ), I64), name="pencil.floord")


def _is_vector_loop(node: isl.AstNode) -> bool:
    """Whether `node` is a `vector` mark directly above a for node."""
    return (node.get_type() == isl.ast_node_type.mark and node.mark_get_id().get_name() == VECTOR_MARK
            and node.mark_get_node().get_type() == isl.ast_node_type.for_)


def _constant_values(node: isl.AstNode) -> list[int]:
    """The iterator's values of a for node with `_has_constant_bounds` (at most 16; [] if more)."""
    start = node.for_get_init().int_get_val().to_python()
    step = node.for_get_inc().int_get_val().to_python()
    cond = node.for_get_cond()
    bound = cond.op_get_arg(1).int_get_val().to_python() + (1 if cond.op_get_type() == OP.le else 0)
    if step <= 0:
        return []
    values = list(range(start, bound, step))
    return values if len(values) <= 16 else []


def _has_constant_bounds(node: isl.AstNode) -> bool:
    """Whether the for `node` reads `for (c = <int>; c <= <int> (or <); c += <int>)`: LLVM
    can unroll it completely (asked to unroll a loop of unknown trip count, it warns)."""
    cond = node.for_get_cond()
    return (node.for_get_init().get_type() == isl.ast_expr_type.int
            and node.for_get_inc().get_type() == isl.ast_expr_type.int
            and cond.get_type() == isl.ast_expr_type.op and cond.op_get_type() in (OP.le, OP.lt)
            and cond.op_get_arg(0).get_type() == isl.ast_expr_type.id
            and cond.op_get_arg(1).get_type() == isl.ast_expr_type.int)


def _per_loop_text(ast: isl.AstNode, proven: Callable[[isl.AstNode, list[Enclosing], bool], Any],
                   meet: Callable[[Any, Any], Any]) -> dict[str, Any]:
    """For every `for` node of `ast`, `proven(node, enclosing, tiled)` (None: nothing to record),
    keyed by the loop's C text; the results of loops that print alike are combined by `meet`
    (what holds in every place). `tiled`: the loop lies under a register-tile mark."""
    found: dict[str, Any] = {}

    def visit(n: isl.AstNode, path: list[Enclosing], tiled: bool) -> None:
        kind = n.get_type()
        if kind == isl.ast_node_type.mark:
            visit(n.mark_get_node(), path, tiled or n.mark_get_id().get_name() == REGISTER_TILE_MARK)
        elif kind == isl.ast_node_type.block:
            children = n.block_get_children()
            for k in range(children.n_ast_node()):
                visit(children.get_at(k), path, tiled)
        elif kind == isl.ast_node_type.if_:
            visit(n.if_get_then_node(), path + [Enclosing(n, True)], tiled)
            if n.if_has_else_node():
                visit(n.if_get_else_node(), path + [Enclosing(n, False)], tiled)
        elif kind == isl.ast_node_type.for_:
            result = proven(n, path, tiled)
            if result is not None:
                text = n.to_C_str()
                found[text] = meet(found[text], result) if text in found else result
            visit(n.for_get_body(), path + [Enclosing(n)], tiled)

    visit(ast, [], False)
    return found


def _has_loop(node: isl.AstNode) -> bool:
    """Whether a for node (not a degenerate one) lies in `node`."""
    kind = node.get_type()
    if kind == isl.ast_node_type.for_:
        return not node.for_is_degenerate() or _has_loop(node.for_get_body())
    if kind == isl.ast_node_type.mark:
        return _has_loop(node.mark_get_node())
    if kind == isl.ast_node_type.if_:
        return _has_loop(node.if_get_then_node()) or (node.if_has_else_node() and _has_loop(node.if_get_else_node()))
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return any(_has_loop(children.get_at(k)) for k in range(children.n_ast_node()))
    return False
