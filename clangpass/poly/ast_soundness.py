# SPDX-License-Identifier: MIT
"""Does an isl AST scan what its schedule says? Loops bounded by their own iterator.

Input: an isl AST (`isl.AstNode`). Output: the loops whose bounds use their own
iterator (empty: none found).

A `for` loop of a polyhedral AST runs its iterator from a lower bound to an upper
bound that depend only on outer iterators and parameters (Grosser, Verdoolaege &
Cohen, "Polyhedral AST generation is more than scanning polyhedra", TOPLAS
2015). isl's AST generator breaks that rule on some strided domains: when
the values a loop scans share a parity that isl does not recognise as a stride
(the union of several statements' domains, each `(n + i) mod 2 = 1`, scanned
with the `atomic` loop type), the parity constraint becomes a loop condition,
e.g. `c1 < min(-3, -n + 2 * floord(n + c1 + 1, 2))`, which stops the loop at
the first value of the wrong parity instead of skipping it: every later
instance is silently dropped (random program seed 900227).

The check is syntactic and catches that failure without rejecting isl's
ordinary bounds: the initial value and the increment must not use the iterator,
and each conjunct of the condition must either not use it or compare an affine
function of it (`c1 <= ub`, `n >= c1 + 4`) with a bound free of it, so that the
condition is monotone in the iterator and holds on a prefix of its values.

A second check is semantic (`scan_mismatches`): it reads the AST back into isl
sets -- a `for` loop runs its iterator over `init <= c`, its condition and
`c = init (mod inc)`; an `if` restricts its branches; a user node maps the points
that reach it to the statement instance its arguments name -- and compares
what the AST executes with the domain the schedule covers. isl's generator has
also been seen to lose a loop's stride on such unions (random program seed 107,
SMALL configuration: a step-2 nest fused with a guarded one ran a statement
for odd `i0` as well); every such AST, whatever the shape of its mistake, runs
instances outside the domain, misses some, or runs one twice. With loops
monotone in their iterator (the syntactic check), the sets are exactly what the
C code runs.
"""
from __future__ import annotations

import islpy as isl

from clangpass.poly.scop import instances_of

_COMPARISONS = frozenset({isl.ast_expr_op_type.le, isl.ast_expr_op_type.lt,
                          isl.ast_expr_op_type.ge, isl.ast_expr_op_type.gt})
_CONJUNCTIONS = frozenset({isl.ast_expr_op_type.and_, isl.ast_expr_op_type.and_then})
_LINEAR = frozenset({isl.ast_expr_op_type.add, isl.ast_expr_op_type.sub, isl.ast_expr_op_type.minus})


def self_bounded_loops(ast: isl.AstNode) -> list[str]:
    """The loops of `ast` whose bounds or increment are not monotone in their own iterator, as C."""
    problems: list[str] = []

    def check(node: isl.AstNode) -> bool:
        if node.get_type() != isl.ast_node_type.for_:
            return True
        iterator = node.for_get_iterator().get_id().get_name()
        init = node.for_get_init()
        sound = not _mentions(init, iterator)
        cond = "(degenerate)"
        if not node.for_is_degenerate():
            cond = node.for_get_cond().to_C_str()
            sound = (sound and not _mentions(node.for_get_inc(), iterator)
                     and all(_is_bound(c, iterator) for c in _conjuncts(node.for_get_cond())))
        if not sound:
            problems.append(f"loop over {iterator} bounded by itself: {iterator} = {init.to_C_str()}; {cond}")
        return True

    ast.foreach_descendant_top_down(check)
    return problems


def _conjuncts(expr: isl.AstExpr) -> list[isl.AstExpr]:
    if expr.get_type() == isl.ast_expr_type.op and expr.get_op_type() in _CONJUNCTIONS:
        return [c for k in range(expr.get_op_n_arg()) for c in _conjuncts(expr.get_op_arg(k))]
    return [expr]


def _is_bound(conjunct: isl.AstExpr, iterator: str) -> bool:
    """Whether `conjunct` is free of the iterator or compares an affine function of it with a bound free of it.

    Such a condition is monotone in the iterator, so it holds on a prefix of the scanned values.
    """
    if not _mentions(conjunct, iterator):
        return True
    if conjunct.get_type() != isl.ast_expr_type.op or conjunct.get_op_type() not in _COMPARISONS:
        return False
    sides = [conjunct.get_op_arg(k) for k in range(conjunct.get_op_n_arg())]
    using = [side for side in sides if _mentions(side, iterator)]
    return len(sides) == 2 and len(using) == 1 and _is_affine_in(using[0], iterator)


def _is_affine_in(expr: isl.AstExpr, iterator: str) -> bool:
    """Whether `iterator` occurs in `expr` only under sums, differences, negations and constant factors."""
    if not _mentions(expr, iterator) or expr.get_type() == isl.ast_expr_type.id:
        return True
    if expr.get_type() != isl.ast_expr_type.op:
        return False
    op = expr.get_op_type()
    args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
    if op in _LINEAR:
        return all(_is_affine_in(a, iterator) for a in args)
    if op == isl.ast_expr_op_type.mul:
        return (any(a.get_type() == isl.ast_expr_type.int for a in args)
                and all(_is_affine_in(a, iterator) for a in args))
    return False


def _mentions(expr: isl.AstExpr, name: str) -> bool:
    kind = expr.get_type()
    if kind == isl.ast_expr_type.id:
        return expr.get_id().get_name() == name
    if kind == isl.ast_expr_type.op:
        return any(_mentions(expr.get_op_arg(k), name) for k in range(expr.get_op_n_arg()))
    return False


# --------------------------------------------------------------------------- semantic check
def strided_statements(domain: isl.UnionSet) -> frozenset[str]:
    """The statements of `domain` whose instances have existential (stride or modulo) constraints.

    Both known failures of isl's AST generator ran such statements wrongly; reading a
    tiled or skewed AST back costs far more than generating it (jacobi-2d: over 2,000,000
    isl operations), so pass `codegen` reads back only what leads to these statements.
    """
    found: set[str] = set()

    def statement(s: isl.Set) -> None:
        pieces: list[isl.BasicSet] = []
        s.remove_redundancies().foreach_basic_set(pieces.append)
        if any(b.dim(isl.dim_type.div) > 0 for b in pieces):
            found.add(s.get_tuple_name())

    domain.foreach_set(statement)
    return frozenset(found)


class Unreadable(Exception):
    """An AST expression this reader does not translate (the AST is then not vouched for)."""


def scan_mismatches(ast: isl.AstNode, domain: isl.UnionSet, context: isl.Set,
                    statements: frozenset[str] | None = None) -> list[str]:
    """How the instances `ast` executes differ from `domain` under `context` (empty: none),
    for the `statements` named (None: all); subtrees that call none of them are not read.

    Raises `Unreadable` for an expression outside isl's AST expression language as
    this module reads it.
    """
    if statements is not None:
        domain = domain.intersect(instances_of(domain, statements, universe=True))
    params = [context.get_dim_name(isl.dim_type.param, k) for k in range(context.dim(isl.dim_type.param))]
    depth = _depth(ast)
    names = [f"d{k}" for k in range(depth)]
    space = isl.Space.create_from_names(context.get_ctx(), set=names, params=params)
    universe = isl.Set.universe(space).intersect_params(context)
    reader = _Reader(space, params)
    executed: dict[str, list[isl.Set]] = {}
    arity = {piece.get_tuple_name(): piece.dim(isl.dim_type.set)
             for piece in (domain.get_set_list().get_at(k) for k in range(domain.get_set_list().n_set()))}
    problems: list[str] = []

    def scan(node: isl.AstNode, points: isl.Set, iterators: dict[str, int]) -> None:
        if statements is not None and not (_callees(node) & statements):
            return
        kind = node.get_type()
        if kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for k in range(children.n_ast_node()):
                scan(children.get_at(k), points, iterators)
        elif kind == isl.ast_node_type.mark:
            scan(node.mark_get_node(), points, iterators)
        elif kind == isl.ast_node_type.if_:
            cond = reader.condition(node.if_get_cond(), iterators)
            scan(node.if_get_then_node(), points.intersect(cond), iterators)
            if node.if_has_else_node():
                scan(node.if_get_else_node(), points.subtract(cond), iterators)
        elif kind == isl.ast_node_type.for_:
            position = len(iterators)
            inner = {**iterators, node.for_get_iterator().get_id().get_name(): position}
            var = reader.variable(position)
            init = reader.value(node.for_get_init(), iterators)
            if node.for_is_degenerate():
                points = points.intersect(var.eq_set(init))
            else:
                inc = node.for_get_inc()
                if inc.get_type() != isl.ast_expr_type.int:
                    raise Unreadable(f"loop increment {inc.to_C_str()}")
                points = (points.intersect(var.ge_set(init))
                          .intersect(reader.condition(node.for_get_cond(), inner)))
                if not inc.get_val().is_one():
                    points = points.intersect((var - init).mod_val(inc.get_val()).zero_set())
                points = points.coalesce()
            scan(node.for_get_body(), points, inner)
        elif kind == isl.ast_node_type.user:
            call = node.user_get_expr()
            if call.get_type() != isl.ast_expr_type.op or call.get_op_type() != isl.ast_expr_op_type.call:
                raise Unreadable(f"user node {call.to_C_str()}")
            name = call.get_op_arg(0).get_id().get_name()
            if statements is not None and name not in statements:
                return
            args = [reader.value(call.get_op_arg(k), iterators) for k in range(1, call.get_op_n_arg())]
            # A packed statement's call ends with its buffer indices (clangpass.poly.packing).
            args = args[:arity.get(name, len(args))]
            used = len(iterators)
            reached = points.project_out(isl.dim_type.set, used, depth - used)
            target = isl.Space.create_from_names(space.get_ctx(), in_=names[:used],
                                                 out=[f"o{k}" for k in range(len(args))], params=params)
            target = target.set_tuple_name(isl.dim_type.out, name)
            pieces = isl.PwAffList.alloc(space.get_ctx(), len(args))
            for a in args:
                pieces = pieces.add(a.drop_dims(isl.dim_type.in_, used, depth - used)
                                    if depth > used else a)
            instances = isl.Map.from_multi_pw_aff(isl.MultiPwAff.from_pw_aff_list(target, pieces))
            instances = instances.intersect_domain(reached)
            if not instances.is_injective():
                problems.append(f"{name} runs some instances twice at one call")
            executed.setdefault(name, []).append(instances.range())
        else:
            raise Unreadable(f"AST node of type {kind}")

    scan(ast, universe, {})
    want = domain.intersect_params(context)
    wanted: dict[str, isl.Set] = {}
    want.foreach_set(lambda s: wanted.__setitem__(s.get_tuple_name(), s))
    for name in sorted(set(wanted) | set(executed)):
        runs = executed.get(name, [])
        for a in range(len(runs)):
            for b in range(a + 1, len(runs)):
                if not runs[a].intersect(runs[b]).is_empty():
                    problems.append(f"{name} runs some instances at two calls")
        goal = wanted.get(name)
        done = runs[0] if runs else None
        for r in runs[1:]:
            done = done.union(r)
        if goal is None:
            problems.append(f"{name} is not in the schedule's domain but is called")
        elif done is None:
            if not goal.is_empty():
                problems.append(f"{name} is never called")
        else:
            if not done.is_subset(goal):
                problems.append(f"{name} runs instances outside its domain: {done.subtract(goal)}")
            cost = _costly(done)
            if cost:
                raise Unreadable(f"the instances of {name} need {cost}")
            if not goal.is_subset(done):
                problems.append(f"{name} misses instances of its domain: {goal.subtract(done)}")
    return problems


MAX_READ_BACK_DIVISIONS = (4, 8)
"""A union of a statement's calls with more integer divisions than the first number, one of
them by more than the second, is not compared with the statement's domain: isl decides
`domain <= union` by subtracting the union, which grows exponentially with the divisions and
their size (a skewed tile of a strided random program, five divisions by 256 and 768: over a
minute, unseen by the operation budget). Lost strides divide by their step (seed 107: 2, the
900227 shape: 7 divisions by 2); tile sizes are what makes divisions large. Beyond the bound
the AST is not vouched for."""


def _divisions(s: isl.Set) -> tuple[int, int]:
    """(how many integer divisions the pieces of `s` have in all, the largest divisor)."""
    pieces: list[isl.BasicSet] = []
    s.foreach_basic_set(pieces.append)
    count, largest = 0, 1
    for b in pieces:
        for k in range(b.dim(isl.dim_type.div)):
            count += 1
            try:
                largest = max(largest, b.get_div(k).get_denominator_val().to_python())
            except isl.Error:       # an existential with no known expression: count it as large
                largest = max(largest, MAX_READ_BACK_DIVISIONS[1] + 1)
    return count, largest


def _costly(s: isl.Set) -> str:
    """Why comparing with `s` is beyond MAX_READ_BACK_DIVISIONS ('' when it is not)."""
    count, largest = _divisions(s)
    if count > MAX_READ_BACK_DIVISIONS[0] and largest > MAX_READ_BACK_DIVISIONS[1]:
        return f"{count} integer divisions by up to {largest}"
    return ""


def _callees(node: isl.AstNode) -> set[str]:
    """The statements the user nodes under `node` call."""
    names: set[str] = set()

    def visit(n: isl.AstNode) -> bool:
        if n.get_type() == isl.ast_node_type.user:
            call = n.user_get_expr()
            if call.get_type() == isl.ast_expr_type.op and call.get_op_n_arg() > 0:
                names.add(call.get_op_arg(0).get_id().get_name())
        return True

    node.foreach_descendant_top_down(visit)
    return names


def _depth(ast: isl.AstNode) -> int:
    """The deepest nesting of `for` loops in `ast`."""
    deepest = [0]

    def walk(node: isl.AstNode, level: int) -> None:
        kind = node.get_type()
        if kind == isl.ast_node_type.for_:
            deepest[0] = max(deepest[0], level + 1)
            walk(node.for_get_body(), level + 1)
        elif kind == isl.ast_node_type.block:
            children = node.block_get_children()
            for k in range(children.n_ast_node()):
                walk(children.get_at(k), level)
        elif kind == isl.ast_node_type.mark:
            walk(node.mark_get_node(), level)
        elif kind == isl.ast_node_type.if_:
            walk(node.if_get_then_node(), level)
            if node.if_has_else_node():
                walk(node.if_get_else_node(), level)

    walk(ast, 0)
    return deepest[0]


class _Reader:
    """isl AST expressions -> piecewise affine functions and sets over the loop iterators."""

    def __init__(self, space: isl.Space, params: list[str]) -> None:
        self.domain = isl.LocalSpace.from_space(space)
        self.params = {p: k for k, p in enumerate(params)}

    def variable(self, position: int) -> isl.PwAff:
        return isl.PwAff.var_on_domain(self.domain, isl.dim_type.set, position)

    def constant(self, value: isl.Val) -> isl.PwAff:
        return isl.PwAff.from_aff(isl.Aff.val_on_domain(self.domain, value))

    def value(self, expr: isl.AstExpr, iterators: dict[str, int]) -> isl.PwAff:
        kind = expr.get_type()
        if kind == isl.ast_expr_type.int:
            return self.constant(expr.get_val())
        if kind == isl.ast_expr_type.id:
            name = expr.get_id().get_name()
            if name in iterators:
                return self.variable(iterators[name])
            if name in self.params:
                return isl.PwAff.var_on_domain(self.domain, isl.dim_type.param, self.params[name])
            raise Unreadable(f"unknown name {name}")
        if kind != isl.ast_expr_type.op:
            raise Unreadable(f"expression {expr.to_C_str()}")
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        if op in (isl.ast_expr_op_type.select, isl.ast_expr_op_type.cond):
            cond = self.condition(args[0], iterators)
            then, other = self.value(args[1], iterators), self.value(args[2], iterators)
            return then.intersect_domain(cond).union_add(other.subtract_domain(cond))
        values = [self.value(a, iterators) for a in args]
        if op == isl.ast_expr_op_type.minus:
            return values[0].neg()
        if op in (isl.ast_expr_op_type.add, isl.ast_expr_op_type.sub, isl.ast_expr_op_type.mul,
                  isl.ast_expr_op_type.min, isl.ast_expr_op_type.max):
            out = values[0]
            for v in values[1:]:
                out = {isl.ast_expr_op_type.add: out.add, isl.ast_expr_op_type.sub: out.sub,
                       isl.ast_expr_op_type.mul: out.mul, isl.ast_expr_op_type.min: out.min,
                       isl.ast_expr_op_type.max: out.max}[op](v)
            return out
        if op in (isl.ast_expr_op_type.div, isl.ast_expr_op_type.fdiv_q):
            return values[0].div(values[1]).floor()
        if op == isl.ast_expr_op_type.pdiv_q:
            return values[0].tdiv_q(values[1])
        if op in (isl.ast_expr_op_type.pdiv_r, isl.ast_expr_op_type.zdiv_r):
            return values[0].tdiv_r(values[1])
        raise Unreadable(f"expression {expr.to_C_str()}")

    def condition(self, expr: isl.AstExpr, iterators: dict[str, int]) -> isl.Set:
        if expr.get_type() != isl.ast_expr_type.op:
            raise Unreadable(f"condition {expr.to_C_str()}")
        op = expr.get_op_type()
        args = [expr.get_op_arg(k) for k in range(expr.get_op_n_arg())]
        if op in _CONJUNCTIONS:
            out = self.condition(args[0], iterators)
            for a in args[1:]:
                out = out.intersect(self.condition(a, iterators))
            return out
        if op in (isl.ast_expr_op_type.or_, isl.ast_expr_op_type.or_else):
            out = self.condition(args[0], iterators)
            for a in args[1:]:
                out = out.union(self.condition(a, iterators))
            return out
        compare = {isl.ast_expr_op_type.eq: "eq_set", isl.ast_expr_op_type.le: "le_set",
                   isl.ast_expr_op_type.lt: "lt_set", isl.ast_expr_op_type.ge: "ge_set",
                   isl.ast_expr_op_type.gt: "gt_set"}.get(op)
        if compare is None:
            raise Unreadable(f"condition {expr.to_C_str()}")
        left, right = (self.value(a, iterators) for a in args)
        return getattr(left, compare)(right)
