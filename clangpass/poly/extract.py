# SPDX-License-Identifier: MIT
"""Model extraction: an `OptRegion`'s IR -> `Scop` (domains, accesses, schedule, context).

Input: an `OptRegion` (clangpass.regions) and its `Module`. Output: a `Scop`, or
`NotModelled` with the exact reason (the region then falls back to the host
compiler). Follows pet (Verdoolaege & Grosser, "Polyhedral Extraction Tool",
IMPACT 2012, sections 3-4) and the PENCIL definition (Baghdadi et al., PACT
2015, section 3): static control flow (`for` loops with affine bounds and a
constant step, `if` with affine conditions), affine subscripts, PENCIL builtins
and `__attribute__((const))` functions as pure expressions, `__pencil_assume` as
context and `__pencil_kill` as kill statements. Nothing is guessed: every
construct outside that language is reported.

Parameters are the region's signed integer scalars passed by value (arguments
and outer-scope variables only read in the region). A loop `for (init; cond;
step)` contributes `lb <= i` (`i <= lb` for a negative step), the stride
`(i - lb) mod step = 0` and the condition; the condition must be a bound, i.e.
once false for some `i` it stays false for the later ones, which is checked
with isl rather than by pattern matching, so `i < n && i < m`, `i < min(n, m)`
and ternaries are accepted and `i != 5` is not.

Locals declared inside the region are variables of the outlined function (the
back end allocates them, privately per thread inside a parallel loop). An
initialised declaration becomes an assignment statement; an uninitialised one
a kill statement (its previous value is dead), as in pet. Scalar locals are 0-d
arrays; all their anti and output dependences are kept (see
clangpass.poly.dependences), which is what makes sharing one storage location
between iterations correct under any schedule that respects them.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Callable, Optional

import islpy as isl

from clangpass.builtins import PENCIL_SPECIAL, SUMMARY_ONLY
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.poly.affine_locals import propagate_constant_locals
from clangpass.poly.calls import Footprint, UnknownAccesses, footprint, instantiate
from clangpass.poly.affine import (AffineScope, NotAffine, describe, integer_constant, is_affine_integer_type,
                                   where)
from clangpass.poly.live_ranges import live_out_arrays
from clangpass.poly.scop import ArrayInfo, LoopAnnotation, Scop, ScopStatement
from clangpass.ir.walk import children as walk_children
from clangpass.ir.walk import iter_exprs, iter_stmts, stmt_exprs, strip_casts, written_variables
from clangpass.regions import RESULT, OptRegion, function_region, returns_value
from clangpass.rejects import Reject, reject_id


# Statements outside static control flow, as reasons name them.
_UNSUPPORTED = {N.While: "'while' loop", N.DoWhile: "'do-while' loop", N.Return: "'return' statement",
                N.Break: "'break' statement", N.Continue: "'continue' statement", N.Goto: "'goto' statement",
                N.Label: "label", N.Switch: "'switch' statement"}

# Opaque statements by the clang kind the front end names them with (libclang's cursor kinds), in C's
# words: reasons never show those names where C has a word for the statement.
_CLANG_STATEMENTS = {
    "ASM_STMT": "inline assembly", "MS_ASM_STMT": "inline assembly",
    "INDIRECT_GOTO_STMT": "computed 'goto'", "CASE_STMT": "'case' label", "DEFAULT_STMT": "'default' label",
    "STMTEXPR": "GNU statement expression",
    "UNEXPOSED_STMT": "statement clang does not show to pencilcc (an attributed or captured statement)",
    "SEH_TRY_STMT": "'__try' statement", "SEH_EXCEPT_STMT": "'__except' statement",
    "SEH_FINALLY_STMT": "'__finally' statement", "SEH_LEAVE_STMT": "'__leave' statement",
}
# Opaque expressions likewise (the bindings spell a statement expression's kind `StmtExpr`).
_CLANG_EXPRESSIONS = {
    "StmtExpr": "GNU statement expression", "GENERIC_SELECTION_EXPR": "'_Generic' selection",
    "COMPOUND_LITERAL_EXPR": "compound literal", "ADDR_LABEL_EXPR": "label address",
    "UNEXPOSED_EXPR": "expression", "sizeof": "'sizeof' of a variable-length array",
}
# OpenMP directives clang names in one word; the others read with their words apart.
_OPENMP_WORDS = {"parallelforsimd": "parallel for simd", "parallelfor": "parallel for",
                 "task loop": "taskloop", "generic loop": "loop"}
# Why an OpenMP directive is not lowered, where the name alone does not say it (clangpass.frontend.openmp).
_OPENMP_WHY = {
    "for": "its iterations are shared among the threads of an enclosing parallel region, which pencilcc "
           "does not see; 'parallel for' is lowered",
    "simd": "its loop holds other OpenMP directives",
    "parallel for": "its loop holds other OpenMP directives",
    "parallel for simd": "its loop holds other OpenMP directives",
}
_OPENMP_WHY["for simd"] = _OPENMP_WHY["for"]


class NotModelled(Exception):
    """The region is outside the polyhedral model; `reason` says exactly why, `id` (a registered
    reject id, clangpass.rejects) what kind of reason it is."""

    def __init__(self, id: str, reason: str):
        super().__init__(reason)
        self.id = reject_id(id)
        self.reason = reason


@dataclass
class _ArrayVar:
    """What the extractor knows of one variable backed by memory."""

    name: str
    element: T.CType
    extents: tuple[Optional[isl.PwAff], ...]   # [P] -> { [(extent)] }
    local: bool = False
    read_only: bool = False
    problem: str = ""                          # why it cannot be accessed in the model, if it cannot
    fields: Optional[T.StructType] = None      # elements are this struct: the last dimension is its fields
    bounded: bool = False                      # `[static n]` first dimension (PENCIL arrays): accessed within n

    @property
    def rank(self) -> int:
        return len(self.extents)


@dataclass(frozen=True)
class _Frame:
    """The loop nest around a statement: iterators and the instances reaching it."""

    scope: AffineScope
    locals: tuple[str, ...] = ()


@dataclass
class _Accesses:
    reads: list[isl.Map] = field(default_factory=list)          # { S[i..] -> A[a..] }
    must_writes: list[isl.Map] = field(default_factory=list)
    may_writes: list[isl.Map] = field(default_factory=list)
    approximated: list[str] = field(default_factory=list)       # accesses with a non-affine subscript


def extract_scop(region: OptRegion, module: N.Module, ctx: isl.Context) -> Scop:
    """The model of `region`, built in the isl context `ctx`; raises NotModelled."""
    return extract_region(region, module, ctx)[0]


def extract_region(region: OptRegion, module: N.Module, ctx: isl.Context) -> tuple[Scop, tuple[str, ...]]:
    """The model of `region` and the accesses it models as touching any element (non-affine
    subscripts, for the record); raises NotModelled."""
    if region.problems:
        raise NotModelled(region.problems[0].id, "; ".join(p.reason for p in region.problems))
    if returns_value(region) and not any(isinstance(s, N.DeclStmt) and any(d.name == RESULT for d in s.decls)
                                         for s in region.body.body[:1]):
        raise NotModelled("pencil-return", f"PENCIL function '{region.function.name}' returns a value other than by a final "
                          "'return' statement")
    extractor = _Extractor(region, module, ctx)
    return extractor.run(), tuple(extractor.accesses.approximated)


class _Extractor:
    def __init__(self, region: OptRegion, module: N.Module, ctx: isl.Context, summary: bool = False,
                 footprints: Optional[dict[str, object]] = None, callers: tuple[str, ...] = ()):
        self.region = region
        self.module = module
        self.ctx = ctx
        self.summary = summary          # a summary function's body: __pencil_use/def are accesses
        # callee -> its Footprint or why its accesses are unknown (shared with the callees' extractors)
        self.footprints: dict[str, object] = {} if footprints is None else footprints
        self.callers = callers + (region.function.name,)
        self.params = tuple(a.name for a in region.args
                            if a.passing == "value" and is_affine_integer_type(a.type))
        self.param_space = isl.Space.create_from_names(ctx, set=[], params=list(self.params))  # [P] -> { [] }
        self.context = isl.Set.universe(self.param_space).params()                          # [P] -> { : }
        self.arrays: dict[str, _ArrayVar] = {}
        self.statements: list[ScopStatement] = []
        self.accesses = _Accesses()
        self.kills: list[isl.Map] = []                                                       # { K[i..] -> A[a..] }
        self.locals: dict[str, N.VarDecl] = {}
        self.annotations: list[LoopAnnotation] = []
        self.inner_names: dict[str, T.CType] = {}     # variables declared inside opaque statements
        self.n_compute = 0
        self.n_kill = 0
        self.iterator_names = frozenset(region.iterators) | _header_only_locals(region.body)
        for arg in region.args:
            self._declare_argument(arg.name, arg.type, arg.passing)

    # ------------------------------------------------------------------ driver
    def run(self) -> Scop:
        scope = AffineScope(self.param_space, (), self.params, isl.Set.universe(self.param_space), self.context)
        frame = _Frame(scope)
        body = list(propagate_constant_locals(self.region.body)[0].body)
        if self.region.kind == "function" and body and isinstance(body[-1], N.Return) and body[-1].value is None:
            body.pop()   # a final `return;` of a void PENCIL function
        # The function's scalars only this region uses are its locals, dead at its entry.
        prologue = []
        for d in self.region.privatized:
            self._declare_local(d, frame)
            prologue.append(self._kill_statement(frame, [(self.arrays[d.name], None)], d.loc))
        frame = _Frame(scope, tuple(d.name for d in self.region.privatized))
        schedule = self._sequence(prologue + [self.visit(s, frame) for s in body])
        if schedule is None:
            schedule = isl.Schedule.from_domain(isl.UnionSet.empty(self.param_space))
        statements = tuple(self.statements)
        empty = isl.UnionMap.empty(self.param_space)
        reads = functools.reduce(isl.UnionMap.union, map(isl.UnionMap.from_map, self.accesses.reads), empty)
        must = functools.reduce(isl.UnionMap.union, map(isl.UnionMap.from_map, self.accesses.must_writes), empty)
        may = functools.reduce(isl.UnionMap.union, map(isl.UnionMap.from_map, self.accesses.may_writes), empty)
        kills = functools.reduce(isl.UnionMap.union, map(isl.UnionMap.from_map, self.kills), empty)
        arrays = self._array_infos(reads, must.union(may), kills, schedule)
        compute = isl.UnionSet.empty(self.param_space)   # [P] -> { S[i..] }
        for s in statements:
            if s.kind == "compute":
                compute = compute.union(isl.UnionSet.from_set(s.domain))
        return Scop(region=self.region, params=self.params, context=self.context,
                    statements=statements, arrays=arrays, reads=reads, must_writes=must, may_writes=may,
                    kills=kills, original_schedule=schedule, schedule=schedule.intersect_domain(compute),
                    locals=tuple(self.locals.values()), annotations=tuple(self.annotations))

    def _array_infos(self, reads: isl.UnionMap, writes: isl.UnionMap, kills: isl.UnionMap,
                     schedule: isl.Schedule) -> tuple[ArrayInfo, ...]:
        def touched(umap: isl.UnionMap) -> set[str]:
            names: set[str] = set()
            umap.foreach_map(lambda m: names.add(m.get_tuple_name(isl.dim_type.out)))
            return names

        read, written, killed = touched(reads), touched(writes), touched(kills)
        # Written caller storage is live-out unless killed after its last write (`__pencil_kill`).
        live_out = live_out_arrays(writes, kills, schedule, self.context,
                                   frozenset(a.name for a in self.arrays.values() if not a.local))
        out = []
        for a in self.arrays.values():
            if a.problem or not (a.name in read or a.name in written or a.name in killed or a.local):
                continue
            out.append(ArrayInfo(a.name, a.element, a.extents, local=a.local, killed=a.name in killed,
                                 live_out=a.name in live_out,
                                 read_only=a.name not in written))
        return tuple(out)

    # ------------------------------------------------------------------ calls
    def footprint(self, call: N.Call) -> Footprint:
        """What a call of `call.callee` may touch (clangpass.poly.calls); NotModelled if unknown."""
        name = call.callee
        if name not in self.footprints:
            if name in self.callers:
                self.footprints[name] = Reject("pencil-recursion", "it is recursive")
            else:
                try:
                    self.footprints[name] = footprint(self.module, name, self.ctx, self._callee_model)
                except UnknownAccesses as exc:
                    self.footprints[name] = Reject("pencil-side-effect-call", exc.reason)
                except NotModelled as exc:
                    # A recursive callee is reported as such; any other callee the model cannot read
                    # has accesses it does not know.
                    self.footprints[name] = Reject("pencil-recursion" if exc.id == "pencil-recursion"
                                                   else "pencil-side-effect-call",
                                                   f"its accesses cannot be modelled: {exc.reason}")
        found = self.footprints[name]
        if isinstance(found, Reject):
            raise NotModelled(found.id, f"call to '{name}' at {where(call.loc)} may have side effects ({found})")
        return found

    def _callee_model(self, fn: N.Function, summary: bool) -> "_Extractor":
        x = _Extractor(function_region(self.module, fn), self.module, self.ctx, summary=summary,
                       footprints=self.footprints, callers=self.callers)
        x.run()
        return x

    # ------------------------------------------------------------------ variables
    def _declare_argument(self, name: str, ctype: T.CType, passing: str) -> None:
        if name in self.params:
            return
        if passing == "array":
            self.arrays[name] = self._array_var(name, ctype, local=False)
        elif isinstance(ctype, (T.IntType, T.FloatType)):
            self.arrays[name] = _ArrayVar(name, ctype.unqualified(), (), read_only=passing == "value")
        else:
            self.arrays[name] = _ArrayVar(name, ctype, (), problem=f"variable '{name}' of type "
                                          f"'{ctype.spelling()}' is not an array of numbers")

    def _array_var(self, name: str, ctype: T.CType, local: bool) -> _ArrayVar:
        extents: list[Optional[isl.PwAff]] = []
        bounded = isinstance(ctype, T.ArrayType) and ctype.static
        t = ctype
        if isinstance(t, T.PointerType):
            extents.append(None)
            t = t.pointee
        while isinstance(t, T.ArrayType):
            extents.append(self._extent(t))
            t = t.element
        if isinstance(t, T.StructType) and extents:
            leaves = struct_leaves(t)
            if leaves:
                # A struct of numbers is one more dimension, its fields in order (nested structs
                # flattened): `img[i].g` is `img[i][1]` (thesis section 4.5: fields as accesses).
                scope = AffineScope(self.param_space, (), self.params, isl.Set.universe(self.param_space),
                                    self.context)
                extents.append(scope.constant(len(leaves)).project_domain_on_params())
                return _ArrayVar(name, leaves[0].unqualified(), tuple(extents), local=local, fields=t,
                                 bounded=bounded)
        if isinstance(t, T.OpaqueType):   # `_Float16`, `_Complex double`, vectors: kept by clang's name
            return _ArrayVar(name, t, tuple(extents), local=local,
                             problem=f"'{name}' has {'elements of ' if extents else ''}type '{t.spelling()}', "
                                     "which pencilcc does not model")
        if not isinstance(t, (T.IntType, T.FloatType)):
            return _ArrayVar(name, t, tuple(extents), local=local,
                             problem=f"'{name}' has elements of type '{t.spelling()}', not numbers")
        return _ArrayVar(name, t.unqualified(), tuple(extents), local=local, bounded=bounded)

    def _extent(self, dim: T.ArrayType) -> Optional[isl.PwAff]:
        scope = AffineScope(self.param_space, (), self.params, isl.Set.universe(self.param_space), self.context)
        try:
            if dim.constant_extent is not None:
                extent = scope.constant(dim.constant_extent)   # [P] -> { [] -> [(c)] }
            elif dim.extent is not None:
                extent = scope.pw_aff(dim.extent)              # [P] -> { [] -> [(e)] }
            else:
                return None
        except NotAffine:
            return None
        extent = extent.project_domain_on_params()             # [P] -> { [(e)] }
        # A variable-length array's extent is positive whenever it is evaluated (C11 6.7.6.2p5);
        # like pet, assume only non-negative, so that calls with empty extents stay correct.
        self.context = self.context.intersect(extent.nonneg_set())
        return extent

    # ------------------------------------------------------------------ statements
    def visit(self, s: N.Stmt, frame: _Frame) -> Optional[isl.Schedule]:
        method: Optional[Callable[[N.Stmt, _Frame], Optional[isl.Schedule]]] = \
            getattr(self, f"visit_{type(s).__name__}", None)
        if method is None:
            raise NotModelled(_statement_reject(s), f"{statement_words(s)} at {where(s.loc)}")
        return method(s, frame)

    def visit_Compound(self, s: N.Compound, frame: _Frame) -> Optional[isl.Schedule]:
        out = []
        for child in s.body:
            out.append(self.visit(child, frame))
            if isinstance(child, N.DeclStmt):
                frame = _Frame(frame.scope, frame.locals + tuple(d.name for d in child.decls))
        return self._sequence(out)

    def visit_NullStmt(self, s: N.NullStmt, frame: _Frame) -> Optional[isl.Schedule]:
        return None

    def visit_Region(self, s: N.Region, frame: _Frame) -> Optional[isl.Schedule]:
        # A `#pragma pencil region` (or scop) inside a PENCIL function, whose body is a region already.
        return self.visit(s.body, frame)

    def visit_While(self, s: N.While, frame: _Frame) -> Optional[isl.Schedule]:
        blocker = _opaque_problem(s, self.summary, self.iterator_names)
        if blocker:
            raise NotModelled("pencil-dynamic-control", f"'while' loop at {where(s.loc)} around {blocker}")
        return self._opaque_statement(s, frame, f"'while' loop at {where(s.loc)}")

    def visit_DeclStmt(self, s: N.DeclStmt, frame: _Frame) -> Optional[isl.Schedule]:
        out = []
        for d in s.decls:
            if d.name in self.iterator_names and d.init is None:
                continue   # declared for the loops that use it as their iterator
            self._declare_local(d, frame)
            if d.init is None:
                var = self.arrays[d.name]
                out.append(self._kill_statement(frame, [(var, None)], d.loc))
                continue
            if isinstance(d.init, N.InitList) or self.arrays[d.name].rank:
                raise NotModelled("pencil-local-array", f"initialiser of array '{d.name}' at {where(d.loc)}")
            target = N.VarRef(d.name, "local", type=d.type, loc=d.loc)
            body = N.ExprStmt(N.Assign("=", target, d.init, type=d.type, loc=d.loc), loc=d.loc)
            out.append(self._compute_statement(body, frame))
        return self._sequence(out)

    def visit_ExprStmt(self, s: N.ExprStmt, frame: _Frame) -> Optional[isl.Schedule]:
        e = s.expr
        if isinstance(e, N.Call) and e.callee in PENCIL_SPECIAL and not (self.summary and e.callee in SUMMARY_ONLY):
            return self._special_call(e, frame)
        return self._compute_statement(s, frame)

    def visit_If(self, s: N.If, frame: _Frame) -> Optional[isl.Schedule]:
        try:
            cond = frame.scope.condition(s.cond)   # [P] -> { [i..] : cond }
        except NotAffine as exc:
            problem = _guard_problem(s, self.summary)
            if not problem:
                return self._guarded_statement(s, frame)
            blocker = _opaque_problem(s, self.summary, self.iterator_names)
            if blocker:
                raise NotModelled("pencil-non-affine-condition", f"non-affine condition {describe(s.cond)} ({exc.reason}), "
                                  f"around {blocker}") from None
            return self._opaque_statement(s, frame, f"'if' with the non-affine condition {describe(s.cond)}")
        cond = cond.coalesce()
        then = self.visit(s.then, _Frame(frame.scope.restricted(cond), frame.locals))
        otherwise = None
        if s.otherwise is not None:
            otherwise = self.visit(s.otherwise, _Frame(frame.scope.restricted(cond.complement()), frame.locals))
        return self._sequence([then, otherwise])

    def visit_For(self, s: N.For, frame: _Frame) -> Optional[isl.Schedule]:
        if _jumps_out_of(s.body) and _own_iterator(s, self.iterator_names):
            # `break`/`continue` of this loop: the number of iterations depends on the run.
            blocker = _opaque_problem(s, self.summary, self.iterator_names)
            if blocker:
                raise NotModelled("pencil-dynamic-control", f"loop at {where(s.loc)} with 'break' or 'continue' around {blocker}")
            return self._opaque_statement(s, frame, f"loop with 'break' or 'continue' at {where(s.loc)}")
        name, init = self._loop_init(s)
        outer = frame.scope
        if name in outer.iterators:
            raise NotModelled("pencil-loop-iterator", f"loop at {where(s.loc)} reuses the iterator '{name}' of an enclosing loop")
        if name in self.params or name in self.arrays or name in frame.locals:
            raise NotModelled("pencil-shadowing", f"loop iterator '{name}' at {where(s.loc)} shadows a variable of the region")
        for e in self._body_exprs(s.body, name):
            if any(v.name == name for v in written_variables(e)):
                raise NotModelled("pencil-loop-iterator", f"loop iterator '{name}' is written in the body of the loop at {where(s.loc)}")
        depth = len(outer.iterators)
        space = outer.space.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, depth, name)
        reach = outer.domain.add_dims(isl.dim_type.set, 1).set_dim_name(isl.dim_type.set, depth, name)
        inner = AffineScope(space, outer.iterators + (name,), self.params, reach, self.context)
        step = self._loop_step(s, name, inner)
        if s.cond is None:
            raise NotModelled("pencil-loop-bound", f"loop at {where(s.loc)} has no condition")
        if any(isinstance(v, N.VarRef) and v.name == name for v in iter_exprs(init)):
            raise NotModelled("pencil-loop-iterator", f"initial value of '{name}' at {where(s.loc)} reads '{name}'")
        try:
            lower = inner.pw_aff(init)                  # [P] -> { [i..] -> [(lb)] }
            cond = inner.condition(s.cond)              # [P] -> { [i..] : cond }
        except NotAffine as exc:
            blocker = _opaque_problem(s, self.summary, self.iterator_names)
            if blocker or not _own_iterator(s, self.iterator_names):
                raise NotModelled("pencil-non-affine-bound", f"non-affine loop bound at {where(s.loc)}: {exc.reason}"
                                  + (f", around {blocker}" if blocker else "")) from None
            return self._opaque_statement(s, frame, f"loop with a non-affine bound at {where(s.loc)}")
        iv = inner.variable(name)                       # [P] -> { [i..] -> [(i)] }
        started = iv.ge_set(lower) if step > 0 else iv.le_set(lower)
        if abs(step) != 1:
            started = started.intersect(iv.sub(lower).mod_val(isl.Val.int_from_si(self.ctx, abs(step)))
                                        .eq_set(inner.constant(0)))
        started = started.intersect(reach)              # [P] -> { [i..] : reached, lb <= i, on stride }
        domain = started.intersect(cond).coalesce()
        self._check_loop_exact(s, name, depth, started, domain, step)
        first = len(self.statements)
        child = self.visit(s.body, _Frame(AffineScope(space, inner.iterators, self.params, domain, self.context),
                                          frame.locals))
        if child is None:
            return None
        inside = tuple(stmt.name for stmt in self.statements[first:])
        for pragma in s.pragmas:
            if pragma.kind in ("independent", "ivdep"):
                reduced = tuple(v for r in pragma.reductions for v in r.variables)
                operators = tuple(r.op for r in pragma.reductions for _ in r.variables)
                self.annotations.append(LoopAnnotation(pragma.kind, pragma.loc, name, depth, inside, reduced,
                                                       operators))
        band = isl.UnionMap.empty(self.param_space)     # [P] -> { S[i..] -> [(+-i)] }
        for stmt in self.statements[first:]:
            ls = isl.LocalSpace.from_space(stmt.domain.get_space())
            value = isl.PwAff.var_on_domain(ls, isl.dim_type.set, depth)
            band = band.union(isl.UnionMap.from_map(isl.Map.from_pw_aff(value if step > 0 else value.neg())))
        return child.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(band))

    # ------------------------------------------------------------------ loops
    def _loop_init(self, s: N.For) -> tuple[str, N.Expr]:
        init = s.init
        if isinstance(init, N.DeclStmt) and len(init.decls) == 1 and init.decls[0].init is not None:
            d = init.decls[0]
            if not is_affine_integer_type(d.type):
                raise NotModelled("pencil-loop-iterator", f"loop iterator '{d.name}' at {where(s.loc)} is not a signed integer")
            return d.name, d.init
        if (isinstance(init, N.ExprStmt) and isinstance(init.expr, N.Assign) and init.expr.op == "="
                and isinstance(init.expr.target, N.VarRef)):
            name = init.expr.target.name
            if name not in self.iterator_names:
                raise NotModelled("pencil-loop-iterator", f"loop variable '{name}' at {where(s.loc)} is also used outside loop headers")
            if not is_affine_integer_type(init.expr.target.type):
                raise NotModelled("pencil-loop-iterator", f"loop iterator '{name}' at {where(s.loc)} is not a signed integer")
            if name in self.arrays or name in self.params:
                raise NotModelled("pencil-loop-iterator", f"loop variable '{name}' at {where(s.loc)} is not a loop iterator")
            return name, init.expr.value
        raise NotModelled("pencil-loop-iterator", f"loop at {where(s.loc)} does not initialise a single iterator")

    def _loop_step(self, s: N.For, name: str, scope: AffineScope) -> int:
        e = s.step
        amount: Optional[N.Expr] = None
        sign = 1
        if isinstance(e, N.Unary) and e.op in ("++", "post++", "--", "post--") and _is_var(e.operand, name):
            return 1 if "++" in e.op else -1
        if isinstance(e, N.Assign) and _is_var(e.target, name):
            if e.op in ("+=", "-="):
                amount, sign = e.value, (1 if e.op == "+=" else -1)
            elif e.op == "=" and isinstance(e.value, N.Binary) and e.value.op in ("+", "-"):
                if _is_var(e.value.lhs, name):
                    amount, sign = e.value.rhs, (1 if e.value.op == "+" else -1)
                elif e.value.op == "+" and _is_var(e.value.rhs, name):
                    amount = e.value.lhs
        value = None
        if amount is not None:
            try:
                value = integer_constant(scope.pw_aff(amount))
            except NotAffine:
                value = None
        if not value:
            text = describe(e) if e is not None else "(none)"
            raise NotModelled("pencil-loop-step", f"loop step {text} of '{name}' is not a non-zero constant increment")
        return sign * value

    def _check_loop_exact(self, s: N.For, name: str, depth: int, started: isl.Set, domain: isl.Set,
                          step: int) -> None:
        """The condition must bound the loop: after a first false test, no later iteration runs."""
        stopped = started.subtract(domain)                      # [P] -> { [i..] : iteration that exits }
        space = started.get_space()
        later = isl.Map.from_domain_and_range(isl.Set.universe(space), isl.Set.universe(space))
        for k in range(depth):
            later = later.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
        later = (later.order_lt if step > 0 else later.order_gt)(isl.dim_type.in_, depth, isl.dim_type.out, depth)
        # later: [P] -> { [o.., i'] -> [o.., i] : i comes after i' }
        if not domain.intersect(stopped.apply(later)).is_empty():
            raise NotModelled("pencil-loop-bound", f"condition of the loop at {where(s.loc)} is not a bound on '{name}'")
        if not domain.intersect_params(self.context).is_bounded():
            raise NotModelled("pencil-loop-bound", f"loop at {where(s.loc)} has no bound on '{name}'")

    @staticmethod
    def _body_exprs(s: N.Stmt, iterator: str) -> list[N.Expr]:
        """The expressions of a loop body, except the headers of nested loops over `iterator`.

        (A nested loop reusing the iterator is reported as such when it is visited.)
        """
        out: list[N.Expr] = []
        for sub in iter_stmts(s):
            if isinstance(sub, N.For) and isinstance(sub.init, N.ExprStmt):
                out.append(sub.init.expr)
            for e in stmt_exprs(sub):
                if isinstance(sub, N.For) and e is sub.step and any(v.name == iterator
                                                                     for v in written_variables(e)):
                    continue
                out.append(e)
        return out

    # ------------------------------------------------------------------ locals
    def _declare_local(self, d: N.VarDecl, frame: _Frame) -> None:
        if d.storage:
            raise NotModelled("pencil-storage-class", f"'{d.storage}' variable '{d.name}' at {where(d.loc)}")
        if d.name in self.params or d.name in frame.scope.iterators or d.name in self.iterator_names \
                or (d.name in self.arrays and not self.arrays[d.name].local):
            raise NotModelled("pencil-shadowing", f"local variable '{d.name}' at {where(d.loc)} shadows a variable of the region")
        var = self._array_var(d.name, d.type, local=True)
        if var.problem:
            raise NotModelled("pencil-unsupported-type", f"local variable {var.problem} at {where(d.loc)}")
        if isinstance(d.type, T.PointerType):
            # Its first dimension is unknown because it is a pointer, whatever the extents of what it
            # points to (`double (*A)[n] = malloc(...)` has the affine row extent n).
            raise NotModelled("pencil-pointer", f"pointer '{d.name}' declared in the region at {where(d.loc)}: what it points "
                              "to is not modelled (a region may declare arrays, not pointers)")
        if any(e is None for e in var.extents):
            raise NotModelled("pencil-local-array", f"local array '{d.name}' at {where(d.loc)} has a non-affine extent")
        previous = self.locals.get(d.name)
        if previous is not None and previous.type != d.type:
            raise NotModelled("pencil-shadowing", f"two region-local variables named '{d.name}' have different types")
        # Two same-typed locals of one name share storage: their dependences are all kept, so that is safe.
        self.locals[d.name] = N.VarDecl(d.name, d.type, None, d.loc)
        self.arrays[d.name] = var

    # ------------------------------------------------------------------ statement builders
    def _compute_statement(self, body: N.ExprStmt, frame: _Frame) -> isl.Schedule:
        name = f"S_{self.n_compute}"
        self.n_compute += 1
        domain = frame.scope.domain.set_tuple_name(name)   # [P] -> { S_n[i..] : ... }
        collector = _AccessCollector(self, frame.scope, name, domain)
        collector.collect(body.expr, must=True)
        self.accesses.reads.extend(collector.accesses.reads)
        self.accesses.must_writes.extend(collector.accesses.must_writes)
        self.accesses.may_writes.extend(collector.accesses.may_writes)
        self.accesses.approximated.extend(collector.accesses.approximated)
        self.statements.append(ScopStatement(name, "compute", body, frame.scope.iterators, domain, body.loc))
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _guarded_statement(self, s: N.If, frame: _Frame) -> isl.Schedule:
        """A data-dependent `if` as one statement (pet's treatment of dynamic conditions): it
        reads what its condition and branches read, and every write of a branch is a may-write."""
        name = f"S_{self.n_compute}"
        self.n_compute += 1
        domain = frame.scope.domain.set_tuple_name(name)   # [P] -> { S_n[i..] : ... }
        collector = _AccessCollector(self, frame.scope, name, domain)
        collector.collect(s.cond, must=True)
        for sub in iter_stmts(s):
            if sub is not s:
                for e in stmt_exprs(sub):
                    collector.collect(e, must=False)
        self.accesses.reads.extend(collector.accesses.reads)
        self.accesses.may_writes.extend(collector.accesses.may_writes)
        self.accesses.approximated.extend(collector.accesses.approximated)
        self.statements.append(ScopStatement(name, "compute", s, frame.scope.iterators, domain, s.loc))
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _opaque_statement(self, s: N.Stmt, frame: _Frame, what: str) -> isl.Schedule:
        """Statement `s`, control flow the model cannot follow (a loop with a non-affine bound,
        a `while`, a data-dependent `if` around loops), as one statement run whole, as written
        (pet's treatment of dynamic control): it reads whatever its expressions read and
        may-writes whatever they write; the variables it declares are its own, and so are
        their values, so any subscript computed from them is non-affine (any element)."""
        inner = _declared_names(s, self.iterator_names)
        # Iterators declared outside the region or at its top (PolyBench's `int i, j;`): the
        # statement declares its own, as nothing outside it reads their values.
        borrowed = [n for n in sorted(inner) if n in self.iterator_names and n not in _declared_names(s)]
        for name in sorted(inner):
            previous = self.inner_names.get(name)
            if name in self.params or name in frame.scope.iterators or name in self.arrays \
                    or (name in self.iterator_names and name not in borrowed) \
                    or (previous is not None and previous != inner[name]):
                raise NotModelled("pencil-shadowing", f"variable '{name}' declared in the {what} shadows a variable of the region")
            self.inner_names[name] = inner[name]
        if borrowed:
            declare = N.DeclStmt(decls=tuple(N.VarDecl(n, inner[n], None, s.loc) for n in borrowed), loc=s.loc)
            s = N.Compound(body=(declare, s), loc=s.loc)
        name = f"S_{self.n_compute}"
        self.n_compute += 1
        domain = frame.scope.domain.set_tuple_name(name)   # [P] -> { S_n[i..] : ... }
        collector = _AccessCollector(self, frame.scope, name, domain, inner=frozenset(inner))
        for sub in iter_stmts(s):
            for e in stmt_exprs(sub):
                collector.collect(e, must=False)
        self.accesses.reads.extend(collector.accesses.reads)
        self.accesses.may_writes.extend(collector.accesses.may_writes)
        self.accesses.approximated.extend(collector.accesses.approximated)
        note = f"{what}: one statement, its writes may-writes"
        if note not in self.accesses.approximated:
            self.accesses.approximated.append(note)
        self.statements.append(ScopStatement(name, "compute", s, frame.scope.iterators, domain, s.loc,
                                             opaque=what))
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _kill_statement(self, frame: _Frame, targets: list[tuple[_ArrayVar, Optional[list[isl.PwAff]]]],
                        loc: N.SourceLoc) -> isl.Schedule:
        name = f"K_{self.n_kill}"
        self.n_kill += 1
        domain = frame.scope.domain.set_tuple_name(name)   # [P] -> { K_n[i..] : ... }
        for var, index in targets:
            self.kills.append(_access_map(self, frame.scope, name, domain, var, index or []))
        self.statements.append(ScopStatement(name, "kill", None, frame.scope.iterators, domain, loc))
        return isl.Schedule.from_domain(isl.UnionSet.from_set(domain))

    def _special_call(self, e: N.Call, frame: _Frame) -> Optional[isl.Schedule]:
        if e.callee == "__pencil_assume" and len(e.args) == 1:
            self._assume(e.args[0], frame)
            return None
        if e.callee == "__pencil_kill" and e.args:
            targets = []
            for arg in e.args:
                collector = _AccessCollector(self, frame.scope, "", frame.scope.domain)
                var, index = collector.location(arg, allow_prefix=True)
                if var is None:
                    raise NotModelled("pencil-builtin-use", f"'__pencil_kill' of {describe(arg)}, which is not a variable of the region")
                targets.append((var, index))
            return self._kill_statement(frame, targets, e.loc)
        raise NotModelled("pencil-builtin-use", f"'{e.callee}' at {where(e.loc)} is not supported in an optimised region")

    def _assume(self, cond: N.Expr, frame: _Frame) -> None:
        """`__pencil_assume(c)`: the parameters for which c holds at every instance reaching it.

        An assumption only informs; one outside the affine language is dropped, which is exact.
        """
        try:
            holds = frame.scope.condition(cond)     # [P] -> { [i..] : c }
        except NotAffine:
            return
        violated = frame.scope.domain.subtract(holds).params()   # [P] -> { : some instance violates c }
        self.context = self.context.subtract(violated)

    # ------------------------------------------------------------------ schedules
    @staticmethod
    def _sequence(parts: list[Optional[isl.Schedule]]) -> Optional[isl.Schedule]:
        present = [p for p in parts if p is not None]
        if not present:
            return None
        return functools.reduce(lambda a, b: a.sequence(b), present)


class _AccessCollector:
    """The accesses of one statement's expression (reads, must- and may-writes)."""

    def __init__(self, extractor: _Extractor, scope: AffineScope, statement: str, domain: isl.Set,
                 inner: frozenset[str] = frozenset()):
        self.x = extractor
        self.scope = scope
        self.statement = statement
        self.domain = domain          # [P] -> { S[i..] : ... }
        self.inner = inner            # an opaque statement's own variables: no access, no affine value
        self.accesses = _Accesses()

    def collect(self, e: N.Expr, must: bool) -> None:
        method = getattr(self, f"collect_{type(e).__name__}", None)
        if method is None and isinstance(e, N.OpaqueExpr):
            raise NotModelled("pencil-unsupported-expression", f"{expression_words(e)} {describe(e)} is not supported in an optimised region")
        if method is None:
            raise NotModelled("pencil-unsupported-expression", f"expression {describe(e)} is not supported in an optimised region")
        method(e, must)

    # leaves
    def collect_IntLit(self, e: N.IntLit, must: bool) -> None:
        pass

    def collect_FloatLit(self, e: N.FloatLit, must: bool) -> None:
        pass

    def collect_VarRef(self, e: N.VarRef, must: bool) -> None:
        self._read(e)

    def collect_Subscript(self, e: N.Subscript, must: bool) -> None:
        self._read(e)

    def collect_Member(self, e: N.Member, must: bool) -> None:
        self._read(e)

    # operators
    def collect_Cast(self, e: N.Cast, must: bool) -> None:
        self.collect(e.operand, must)

    def collect_Unary(self, e: N.Unary, must: bool) -> None:
        if e.op in ("++", "--", "post++", "post--"):
            self._read(e.operand)
            self._write(e.operand, must)
        elif e.op in ("+", "-", "!", "~"):
            self.collect(e.operand, must)
        elif e.op == "*":
            self._read(e)
        elif e.op == "sizeof":
            return
        else:
            raise NotModelled("pencil-unsupported-expression", f"operator '{e.op}' in {describe(e)} is not supported in an optimised region")

    def collect_Binary(self, e: N.Binary, must: bool) -> None:
        self.collect(e.lhs, must)
        # The right operand of && and || may not be evaluated: its writes are may-writes.
        self.collect(e.rhs, must and e.op not in ("&&", "||"))

    def collect_Conditional(self, e: N.Conditional, must: bool) -> None:
        self.collect(e.cond, must)
        self.collect(e.then, False)
        self.collect(e.otherwise, False)

    def collect_Assign(self, e: N.Assign, must: bool) -> None:
        self.collect(e.value, must)
        if e.op != "=":
            self._read(e.target)
        self._write(e.target, must)

    def collect_Call(self, e: N.Call, must: bool) -> None:
        if self.x.summary and e.callee in SUMMARY_ONLY:
            self._summary_access(e, must)
            return
        pure = e.builtin and e.callee not in PENCIL_SPECIAL
        if not pure:
            fn = self.x.module.function(e.callee)
            pure = fn is not None and fn.attribute("const") is not None \
                and all(isinstance(a.type, (T.IntType, T.FloatType)) for a in e.args)
        if not pure:
            if e.callee in PENCIL_SPECIAL:
                raise NotModelled("pencil-builtin-use", f"'{e.callee}' at {where(e.loc)} is not supported in an optimised region")
            instantiate(self.x, self, e, self.x.footprint(e))
            return
        for a in e.args:
            self.collect(a, must)

    def _summary_access(self, e: N.Call, must: bool) -> None:
        """`__pencil_use(x)` reads and `__pencil_def(x)` writes x: an element, a row or a whole
        array (within its declared extents); `__pencil_maybe()` is an unknown value."""
        if e.callee == "__pencil_maybe":
            return
        for arg in e.args:
            var, index = self.location(strip_casts(arg), allow_prefix=True)
            if var is None:
                raise NotModelled("pencil-builtin-use", f"'{e.callee}' of {describe(arg)}, which is not an array of the function")
            index = list(index or []) + [None] * (var.rank - len(index or []))
            access = _access_map(self.x, self.scope, self.statement, self.domain, var, index)
            if e.callee == "__pencil_use":
                self.accesses.reads.append(access)
            else:
                (self.accesses.must_writes if must else self.accesses.may_writes).append(access)

    # memory
    def location(self, e: N.Expr, allow_prefix: bool = False) -> tuple[Optional[_ArrayVar], Optional[list[isl.PwAff]]]:
        """The variable and affine subscripts designated by lvalue `e` (None: iterator or parameter)."""
        indices: list[N.Expr] = []
        base = e
        leaf: Optional[int] = None            # `a[i].f.g`: the position of field g of f among a's numbers
        within: list[N.Expr] = []             # `a[i].v[k]`: subscripts of the array field v
        while isinstance(base, N.Cast):
            base = base.operand
        probe = base
        while isinstance(probe, (N.Subscript, N.Cast)):
            probe = probe.base if isinstance(probe, N.Subscript) else probe.operand
        if isinstance(probe, N.Member) and not probe.arrow:
            while base is not probe:          # the subscripts of an array field, innermost last
                if isinstance(base, N.Subscript):
                    within.append(base.index)
                base = base.base if isinstance(base, N.Subscript) else base.operand
            within.reverse()
        while isinstance(base, N.Member) and not base.arrow:
            owner = base.base.type.unqualified() if base.base.type is not None else None
            offset = field_offset(owner, base.field_name) if isinstance(owner, T.StructType) else None
            if offset is None or (within and leaf is not None):
                raise NotModelled("pencil-struct-access", f"struct member access {describe(e)} is not supported in an optimised region")
            leaf = offset + (leaf or 0)
            base = base.base
        if leaf is not None and not isinstance(e.type, (T.IntType, T.FloatType)):
            raise NotModelled("pencil-struct-access", f"struct member access {describe(e)} selects a struct, not a number")
        while True:
            if isinstance(base, N.Subscript):
                indices.append(base.index)
                base = base.base
            elif isinstance(base, N.Unary) and base.op == "*":
                # `*p` is `p[0]`
                indices.append(N.IntLit(0, type=T.INT, loc=base.loc))
                base = base.operand
            elif isinstance(base, N.Cast):
                base = base.operand
            else:
                break
        indices.reverse()
        if isinstance(base, N.Member):
            raise NotModelled("pencil-struct-access", f"struct member access {describe(e)} is not supported in an optimised region")
        if not isinstance(base, N.VarRef):
            raise NotModelled("pencil-array-access", f"memory access {describe(e)} is not through an array of the region")
        name = base.name
        if name in self.scope.iterators or name in self.x.params or name in self.inner:
            if indices:
                raise NotModelled("pencil-array-access", f"subscripted scalar {describe(e)}")
            return None, None
        var = self.x.arrays.get(name)
        if var is None:
            if name in self.x.iterator_names:
                raise NotModelled("pencil-loop-iterator", f"loop iterator '{name}' used outside its loop at {where(e.loc)}")
            raise NotModelled("pencil-array-access", f"variable '{name}' at {where(e.loc)} is not known to the region")
        if var.problem:
            raise NotModelled("pencil-unsupported-type", f"{var.problem} (accessed at {where(e.loc)})")
        if leaf is not None and var.fields is None:
            raise NotModelled("pencil-struct-access", f"struct member access {describe(e)} is not supported in an optimised region")
        array_dims = var.rank - (1 if var.fields is not None else 0)
        if len(indices) > array_dims or (len(indices) < array_dims and not allow_prefix):
            raise NotModelled("pencil-array-access", f"access {describe(e)} does not select one element of '{name}'")
        values: list[Optional[isl.PwAff]] = []
        for index in indices:
            try:
                values.append(self.scope.pw_aff(index))    # [P] -> { [i..] -> [(a)] }
            except NotAffine:
                # A computed or indirect subscript (`hist[img[i][j]]`, `src[r0][c0]`): the access
                # may touch any element along that dimension (pet's over-approximation); what
                # the subscript reads is read by the statement.
                self.collect(index, True)
                values.append(None)
        if any(v is None for v in values):
            note = f"{describe(e)}: any element along a non-affine subscript"
            if note not in self.accesses.approximated:
                self.accesses.approximated.append(note)
        if leaf is not None and not within:
            values.append(self.scope.constant(leaf))       # the field's position
        elif leaf is not None:
            values.append(self._field_element(e, leaf, within))
        # Without a field, a struct element's access leaves the last dimension free: every field.
        return var, values

    def _field_element(self, e: N.Expr, leaf: int, within: list[N.Expr]) -> Optional[isl.PwAff]:
        """The position among the struct's numbers of element `within` of the array field that
        starts at `leaf` (row-major, constant extents); None when a subscript is not affine."""
        field_type = _field_array_type(e, len(within))
        extents = []
        t: T.CType = field_type
        while isinstance(t, T.ArrayType):
            extents.append(t.constant_extent)
            t = t.element
        position = self.scope.constant(leaf)
        stride = 1
        for index, extent in reversed(list(zip(within, extents))):
            try:
                value = self.scope.pw_aff(index)
            except NotAffine:
                self.collect(index, True)
                note = f"{describe(e)}: any element of the struct along a non-affine field subscript"
                if note not in self.accesses.approximated:
                    self.accesses.approximated.append(note)
                return None
            position = position.add(value.scale_val(isl.Val.int_from_si(self.x.ctx, stride)))
            stride *= extent
        return position

    def _read(self, e: N.Expr) -> None:
        var, index = self.location(e)
        if var is not None:
            self.accesses.reads.append(_access_map(self.x, self.scope, self.statement, self.domain, var, index))

    def _write(self, e: N.Expr, must: bool) -> None:
        var, index = self.location(e)
        if var is None and self.inner and _root(e) in self.inner:
            return                     # an opaque statement's own variable
        if var is None:
            raise NotModelled("pencil-parameter-write", f"write to loop iterator or parameter {describe(e)}")
        if var.read_only:
            raise NotModelled("pencil-parameter-write", f"write to '{var.name}' at {where(e.loc)}, which the region reads as a value")
        access = _access_map(self.x, self.scope, self.statement, self.domain, var, index)
        # Through a non-affine subscript, the element written is unknown: a may-write.
        must = must and all(v is not None for v in index or [])
        (self.accesses.must_writes if must else self.accesses.may_writes).append(access)


def _access_map(x: _Extractor, scope: AffineScope, statement: str, domain: isl.Set, var: _ArrayVar,
                index: Optional[list[Optional[isl.PwAff]]]) -> isl.Map:
    """[P] -> { S[i..] -> A[a..] } for the given (possibly leading-only) subscripts; a None
    subscript (not affine) leaves its dimension free."""
    index = index or []
    array_space = isl.Space.create_from_names(x.ctx, set=[], params=list(x.params))
    array_space = array_space.add_dims(isl.dim_type.set, var.rank).set_tuple_name(isl.dim_type.set, var.name)

    def dimension(k: int, value: Optional[isl.PwAff]) -> isl.Map:
        if value is not None:
            return isl.Map.from_pw_aff(value)
        free = scope.any_value()
        extent = var.extents[k]
        if (k == 0 and not var.bounded) or extent is None:
            return free
        # A row of a declared array: C's subscript stays within its extent (the first
        # dimension of a parameter has no such bound, a pointer's array may be longer, but
        # for a PENCIL array, `[static n]`: PENCIL code accesses arrays within their sizes).
        row = free.range().get_space()
        to_params = isl.MultiAff.zero(row.map_from_domain_and_range(extent.get_domain_space().align_params(row)))
        bound = extent.align_params(row).pullback_multi_aff(to_params)
        o = isl.PwAff.var_on_domain(isl.LocalSpace.from_space(row), isl.dim_type.set, 0)
        inside = o.ge_set(o.zero_on_domain(isl.LocalSpace.from_space(row))).intersect(o.lt_set(bound))
        return free.intersect_range(inside)

    if index:
        access = dimension(0, index[0])
        for k, value in enumerate(index[1:], start=1):
            access = access.flat_range_product(dimension(k, value))
        access = access.add_dims(isl.dim_type.out, var.rank - len(index))
    else:
        access = isl.Map.from_domain_and_range(isl.Set.universe(scope.space), isl.Set.universe(array_space))
    access = access.set_tuple_name(isl.dim_type.in_, statement).set_tuple_name(isl.dim_type.out, var.name)
    return access.intersect_domain(domain)


def _field_array_type(e: N.Expr, depth: int) -> T.CType:
    """The type of the array field that `depth` subscripts of `e` select into."""
    base = e
    for _ in range(depth):
        while isinstance(base, N.Cast):
            base = base.operand
        base = base.base
    while isinstance(base, N.Cast):
        base = base.operand
    return base.type.unqualified() if base.type is not None else T.VoidType()


def _array_field_leaves(t: T.ArrayType) -> list[T.CType]:
    """The numbers of an array field of constant extents, flattened row-major ([] otherwise)."""
    count = 1
    while isinstance(t, T.ArrayType):
        if t.constant_extent is None or t.constant_extent <= 0:
            return []
        count *= t.constant_extent
        t = t.element
    t = t.unqualified()
    return [t] * count if isinstance(t, (T.IntType, T.FloatType)) else []


def struct_leaves(t: T.StructType) -> list[T.CType]:
    """The number-typed fields of a struct, nested structs and arrays of numbers of constant
    extents flattened, in order; [] if it holds anything else (a union, a pointer, a bit-field)
    or no definition is visible."""
    if t.is_union or not t.fields:
        return []
    out: list[T.CType] = []
    for f in t.fields:
        ft = f.type.unqualified()
        if f.bit_width is not None:
            return []
        if isinstance(ft, (T.IntType, T.FloatType)):
            out.append(ft)
        elif isinstance(ft, T.StructType):
            inner = struct_leaves(ft)
            if not inner:
                return []
            out.extend(inner)
        elif isinstance(ft, T.ArrayType) and _array_field_leaves(ft):
            out.extend(_array_field_leaves(ft))
        else:
            return []
    return out


def field_offset(t: T.StructType, name: str) -> Optional[int]:
    """The position of field `name`'s first number among `t`'s (struct_leaves order)."""
    offset = 0
    for f in t.fields:
        if f.name == name:
            return offset
        ft = f.type.unqualified()
        offset += (len(struct_leaves(ft)) if isinstance(ft, T.StructType)
                   else len(_array_field_leaves(ft)) if isinstance(ft, T.ArrayType) else 1)
    return None


def _guard_problem(s: N.If, summary: bool = False) -> str:
    """Why a data-dependent `if` cannot be one guarded statement ('' if it can): its branches may
    hold only expression statements, blocks and `if`s (no loop, declaration or jump; in a
    summary function, `__pencil_use` and `__pencil_def` are accesses like others)."""
    for sub in iter_stmts(s):
        if not isinstance(sub, (N.If, N.ExprStmt, N.Compound, N.NullStmt)):
            what = {N.For: "'for' loop", N.DeclStmt: "declaration"}.get(type(sub)) or statement_words(sub)
            return f"{what} at {where(sub.loc)}"
        if isinstance(sub, N.ExprStmt) and isinstance(sub.expr, N.Call) and sub.expr.callee in PENCIL_SPECIAL \
                and not (summary and sub.expr.callee in SUMMARY_ONLY):
            return f"'{sub.expr.callee}' at {where(sub.loc)}"
    return ""


def _own_iterator(s: N.For, iterators: frozenset[str]) -> bool:
    """Whether `s` declares its iterator in its header or assigns one of the region's
    `iterators` (variables only loop headers write)."""
    if isinstance(s.init, N.DeclStmt):
        return True
    init = s.init.expr if isinstance(s.init, N.ExprStmt) else None
    return (isinstance(init, N.Assign) and init.op == "=" and isinstance(init.target, N.VarRef)
            and init.target.name in iterators)


def _opaque_problem(s: N.Stmt, summary: bool = False, iterators: frozenset[str] = frozenset()) -> str:
    """Why `s` cannot be one opaque statement ('' if it can): it may hold expression
    statements, blocks, `if`s, `for` and `while` loops, declarations of scalars, `break`
    and `continue`; not `return`, `goto`, labels, `switch`, `do`, static or array
    declarations, PENCIL kills and assumptions."""
    for sub in iter_stmts(s):
        if isinstance(sub, (N.If, N.ExprStmt, N.Compound, N.NullStmt, N.For, N.While, N.Break, N.Continue)):
            if isinstance(sub, N.ExprStmt) and isinstance(sub.expr, N.Call) and sub.expr.callee in PENCIL_SPECIAL \
                    and not (summary and sub.expr.callee in SUMMARY_ONLY):
                return f"'{sub.expr.callee}' at {where(sub.loc)}"
            if isinstance(sub, N.For) and sub.init is not None and not _own_iterator(sub, iterators):
                return f"'for' loop at {where(sub.loc)} whose iterator is not declared in its header"
            continue
        if isinstance(sub, N.DeclStmt):
            bad = [d for d in sub.decls if d.storage or not isinstance(d.type, (T.IntType, T.FloatType))]
            if bad:
                return f"declaration of '{bad[0].name}' at {where(sub.loc)}"
            continue
        return f"{statement_words(sub)} at {where(sub.loc)}"
    return ""


def _statement_reject(s: N.Stmt) -> str:
    """The reject id of a statement outside the model (clangpass.rejects)."""
    kind = getattr(s, "kind", "")
    if isinstance(s, (N.Goto, N.Label)) or kind == "INDIRECT_GOTO_STMT":
        return "pencil-goto"
    if isinstance(s, N.Return):
        return "pencil-return"
    if isinstance(s, (N.While, N.Break, N.Continue)):
        return "pencil-dynamic-control"
    return "pencil-unsupported-statement"


def statement_words(s: N.Stmt) -> str:
    """What a statement outside the model is, in C's words (`'while' loop`, `inline assembly`,
    `OpenMP 'parallel' directive`); a kind of clang's that C has no word for is named as clang
    names it, after saying so."""
    if type(s) in _UNSUPPORTED:
        return _UNSUPPORTED[type(s)]
    kind = getattr(s, "kind", "") or type(s).__name__.lower()
    if kind in _CLANG_STATEMENTS:
        return _CLANG_STATEMENTS[kind]
    if kind.startswith("OMP_") and kind.endswith("_DIRECTIVE"):
        name = kind[len("OMP_"):-len("_DIRECTIVE")].lower().replace("_", " ")
        for joined, words in _OPENMP_WORDS.items():
            name = name.replace(joined, words)
        why = _OPENMP_WHY.get(name)
        return f"OpenMP '{name}' directive" + (f" ({why})" if why else "")
    if _is_clang_kind(kind):
        return f"statement of a kind pencilcc does not model ({_clang_kind(kind)})"
    return f"'{kind}' statement"


def expression_words(e: N.OpaqueExpr) -> str:
    """What an expression outside the model is, in C's words (`GNU statement expression`)."""
    if e.kind in _CLANG_EXPRESSIONS:
        return _CLANG_EXPRESSIONS[e.kind]
    if _is_clang_kind(e.kind):
        return f"expression of a kind pencilcc does not model ({_clang_kind(e.kind)})"
    return "expression"


def _is_clang_kind(kind: str) -> bool:
    """Whether `kind` is a libclang cursor kind's name (`ASM_STMT`), not words of the front end's."""
    return kind.isupper() and kind.replace("_", "").isalnum()


def _clang_kind(kind: str) -> str:
    """`clang: OBJC_AT_TRY_STMT`, or for a kind the Python bindings do not know `clang cursor kind 306`."""
    if kind.startswith("CURSOR_KIND_"):
        return f"clang cursor kind {kind[len('CURSOR_KIND_'):]}"
    return f"clang: {kind}"


def _jumps_out_of(body: N.Stmt) -> bool:
    """Whether `body` (a loop's) holds a `break` or `continue` of that loop (not of an inner one)."""
    if isinstance(body, (N.Break, N.Continue)):
        return True
    if isinstance(body, (N.For, N.While, N.DoWhile, N.Switch)):
        return False
    return any(_jumps_out_of(child) for child in walk_children(body) if isinstance(child, N.Stmt))


def _declared_names(s: N.Stmt, iterators: frozenset[str] = frozenset()) -> dict[str, T.CType]:
    """The variables declared under `s` (for-headers included), and the `iterators` its loops
    assign in their headers, with their types."""
    out: dict[str, T.CType] = {}
    for sub in iter_stmts(s):
        if isinstance(sub, N.For) and isinstance(sub.init, N.ExprStmt) and _own_iterator(sub, iterators):
            target = sub.init.expr.target
            out[target.name] = target.type
        if isinstance(sub, N.DeclStmt):
            for d in sub.decls:
                out[d.name] = d.type
        if isinstance(sub, N.For) and isinstance(sub.init, N.DeclStmt):
            for d in sub.init.decls:
                out[d.name] = d.type
    return out


def _root(e: N.Expr) -> str:
    while isinstance(e, (N.Cast, N.Subscript, N.Member)):
        e = e.operand if isinstance(e, N.Cast) else e.base
    return e.name if isinstance(e, N.VarRef) else ""


def _header_only_locals(body: N.Compound) -> frozenset[str]:
    """Integer variables declared (uninitialised) in the region and written only in `for` headers.

    Like the region iterators of a `#pragma scop`, they are loop iterators, not locals.
    """
    declared: set[str] = set()
    header: set[str] = set()
    elsewhere: set[str] = set()
    headers: set[int] = set()
    for s in iter_stmts(body):
        if isinstance(s, N.For):
            headers.update(id(e) for e in (s.step, s.init.expr if isinstance(s.init, N.ExprStmt) else None) if e)
        if isinstance(s, N.DeclStmt):
            declared.update(d.name for d in s.decls if d.init is None and is_affine_integer_type(d.type))
    for s in iter_stmts(body):
        for e in stmt_exprs(s):
            for var in written_variables(e):
                (header if id(e) in headers else elsewhere).add(var.name)
    return frozenset((declared & header) - elsewhere)


def _is_var(e: N.Expr, name: str) -> bool:
    e = strip_casts(e)
    return isinstance(e, N.VarRef) and e.name == name


