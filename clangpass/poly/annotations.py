# SPDX-License-Identifier: MIT
"""What the PENCIL loop annotations let the optimiser assume.

Input: a `Scop` whose `annotations` the extractor filled from `#pragma pencil
independent [reduction(op: v)]` and `#pragma pencil ivdep` on its loops. Output:
the dependence pairs each annotation declares absent, as union maps over statement
instances `[P] -> { S[i..] -> T[j..] }`, and a plain account of what each
annotation did (`PragmaUse`, reported by `-Rpass=pencil` / `-Rpass-missed=pencil`
and in the optimisation record).

Meaning (PENCIL definition, Baghdadi et al., PACT 2015, section 3, and thesis
appendix A): `independent` says that the iterations of its loop carry no
dependence, so any two instances of statements inside it that agree on the
enclosing loops and differ on this loop's iterator need no order; a wrong
annotation is the programmer's error, as in the definition. `ivdep` says less:
the carried dependences do not prevent executing consecutive iterations as
vector lanes, so they are ignored only when choosing vector loops
(clangpass.passes.mark_vector), never for scheduling or threads.

Not every carried dependence is dropped: those through storage the back end
shares between iterations stay, since dropping them would make the generated code
race rather than merely reorder: region-local variables (relax-false-deps and
the live-range checks own them), scalars of the caller (no per-thread copy is
made), and the variables of `reduction(...)` clauses that cannot be reduced on
threads. A pair of instances that conflicts on such storage keeps its dependence
even if it also touches an array.

Reductions (`independent reduction(op: v)`, thesis appendix A: the loop's
iterations are independent but for updates of v with the associative and
commutative op): the dependences through v carried by the loop are dropped when
the CPU back end can give each thread a private partial result
(`thread_reductions`): v is storage of the caller, a scalar or one element with
constant subscripts (`s`, `s[0]`) of arithmetic type; every statement of the loop
that touches v is an update of that one element with the clause's operator
(`v += e`, `v -= e`, `v = v + e`, `v++` and `v--` for `+` and `-`; `v *= e`, `v = v * e` for
`*`; `v = min(v, e)` / `fmin` / `fminf` and the other PENCIL min builtins for
`min`, likewise `max`; `v &= e`, `v = v & e`, `v = e & v` for `&`, likewise `|` and `^`,
on integer v; `v = v && e`, `v = e && v` for `&&`, likewise `||`, the 0/1 result
converted to v's type, the only conversion allowed), computed in v's own type, e
not reading v; and loops may run on threads at all (not -fno-pencil-parallel).
`& | ^ && ||` are OpenMP's operators, which pencilcc accepts beyond the thesis'
list `+ - * min max` (clangpass.frontend.pragmas). Otherwise the dependences stay
and the remark says why. Which parallel loop performs the reduction is decided
after scheduling (clangpass.passes.mark_parallel, `Scop.reductions`).

Other compilers' loop pragmas (`#pragma omp parallel for`, `#pragma GCC unroll 4`,
`#pragma GCC ivdep`, `#pragma clang loop ...`) in an optimized region are not used:
the region's schedule, threads and vector loops come from its dependences alone.
Each is reported not used, saying what replaces it (`foreign_pragma_uses`); in a
region that falls back the host compiler reads them, so nothing is said there.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.walk import iter_exprs, iter_stmts, strip_implicit_casts
from clangpass.poly.scop import LoopAnnotation, LoopReduction, Scop, accesses_through
from clangpass.poly.validity import PARALLEL_MARK

# The operator that combines partial results of each clause operator (OpenMP's: '-' sums).
COMBINERS = {"+": "+", "-": "+", "*": "*", "min": "min", "max": "max",
             "&": "&", "|": "|", "^": "^", "&&": "&&", "||": "||"}
_COMPOUND = {"+": ("+=", "-="), "*": ("*=",), "&": ("&=",), "|": ("|=",), "^": ("^=",)}
_BINARY = {"+": ("+", "-"), "*": ("*",), "&": ("&",), "|": ("|",), "^": ("^",), "&&": ("&&",), "||": ("||",)}
_CALLEES = {"min": frozenset({"min", "bmin", "smin", "lmin", "umin", "ubmin", "usmin", "ulmin", "fmin", "fminf"}),
            "max": frozenset({"max", "bmax", "smax", "lmax", "umax", "ubmax", "usmax", "ulmax", "fmax", "fmaxf"})}
# Combiners defined on integer variables only (bitwise); `&&` and `||` take any arithmetic type.
_INTEGER_ONLY = frozenset({"&", "|", "^"})
_LOGICAL = frozenset({"&&", "||"})


@dataclass(frozen=True)
class PragmaUse:
    """What one loop pragma did; plain values (it crosses processes in the region outcome)."""

    kind: str          # 'independent' | 'ivdep' | 'other' (another compiler's loop pragma)
    file: str
    line: int
    column: int
    used: bool         # whether the optimiser relied on it
    detail: str        # what it changed ('' if nothing)
    missed: str = ""   # what of it could not be used, and why ('' if nothing)
    # (variable, clause operator, whether a loop run on threads reduces it) per reduction clause variable
    reductions: tuple[tuple[str, str, bool], ...] = ()
    text: str = ""     # the pragma as written (`pragma omp simd`), for kind 'other'
    # (name as written, name in the model) of each clause variable a pass renamed (a demoted
    # scalar: clangpass.poly.demotion); `reductions` and the messages use the written names.
    renamed: tuple[tuple[str, str], ...] = ()

    @property
    def spelling(self) -> str:
        """The pragma as messages quote it: `#pragma pencil ivdep`, `#pragma omp simd`."""
        return f"#{self.text}" if self.text else f"#pragma pencil {self.kind}"

    def as_record(self) -> dict:
        record = {"pragma": self.kind, "line": self.line, "column": self.column, "used": self.used,
                  "detail": self.detail, "missed": self.missed}
        if self.text:   # only other compilers' pragmas have the field
            record["text"] = self.text
        if self.reductions:   # only pragmas with reduction clauses have the field
            record["reductions"] = [{"variable": v, "operator": op, "threads": threads}
                                    for v, op, threads in self.reductions]
        return record


def carried_pairs(scop: Scop, annotation: LoopAnnotation) -> isl.UnionMap:
    """[P] -> { S[i..] -> T[j..] }: instance pairs inside the annotated loop, in the same iteration
    of the loops around it and in different iterations of it."""
    out = isl.UnionMap.empty(scop.context.get_space())
    inside = [scop.statement(name) for name in annotation.statements]
    d = annotation.depth
    for s in inside:
        for t in inside:
            pairs = isl.Map.from_domain_and_range(s.domain, t.domain)
            for k in range(d):
                pairs = pairs.equate(isl.dim_type.in_, k, isl.dim_type.out, k)
            apart = (pairs.order_lt(isl.dim_type.in_, d, isl.dim_type.out, d)
                     .union(pairs.order_gt(isl.dim_type.in_, d, isl.dim_type.out, d)))
            out = out.union(isl.UnionMap.from_map(apart))
    return out


# Words of the messages below that speak of the CPU target's threads, and what they say on a
# target that runs parallel loops as OpenCL kernels (clangpass.report rewrites them there).
NO_PARALLEL_LOOPS = "no loop runs on threads (-fno-pencil-parallel)"
REGION_VARIABLE = "it is a variable of the region, not of the caller (not reduced on threads yet)"
NOT_REDUCED = "not reduced on threads"
NOT_PERFORMED = "not run on threads: no parallel loop performs it"
ON_THE_DEVICE = {
    NO_PARALLEL_LOOPS: "no loop runs as an OpenCL kernel (-fno-pencil-parallel)",
    REGION_VARIABLE: "it is a variable of the region, not of the caller (not reduced on the OpenCL device yet)",
    NOT_PERFORMED: "not run on the OpenCL device: no kernel performs it",
    NOT_REDUCED: "not reduced on the OpenCL device",
}


# The reductions of one annotation that threads may perform, and why each other variable of
# its clauses cannot be reduced on threads (`thread_reductions`).
ThreadReductions = tuple[tuple[LoopReduction, ...], dict[str, str]]


def annotation_reductions(scop: Scop) -> tuple[ThreadReductions, ...]:
    """The `thread_reductions` of each annotation of `scop`, in order (`Dependences.reductions`
    holds them once the dependences are computed)."""
    return tuple(thread_reductions(scop, a) for a in scop.annotations)


def kept_storage(scop: Scop, annotation: LoopAnnotation, reductions: ThreadReductions) -> frozenset[str]:
    """The variables whose dependences the annotation does not remove (see the module doc), given
    its `thread_reductions`."""
    reduced = {r.variable for r in reductions[0]}
    return frozenset(a.name for a in scop.arrays
                     if (a.local or a.rank == 0 or a.name in annotation.reductions) and a.name not in reduced)


def thread_reductions(scop: Scop, annotation: LoopAnnotation) -> ThreadReductions:
    """The reductions of `annotation` that threads may perform, each with all the update
    statements of the loop, and why each other reduction variable cannot be (see the module doc).
    Computed with the dependences (`Dependences.reductions`), which later passes read."""
    usable: list[LoopReduction] = []
    why: dict[str, str] = {}
    arrays = {a.name: a for a in scop.arrays}
    operators = dict(zip(annotation.reductions, annotation.operators))
    for v in dict.fromkeys(annotation.reductions):
        op = operators.get(v, "")
        info = arrays.get(v)
        if not annotation.threads:
            why[v] = NO_PARALLEL_LOOPS
        elif [w for w in annotation.reductions if w == v][1:]:
            why[v] = "it is named by more than one reduction clause"
        elif op not in COMBINERS:
            why[v] = f"the operator '{op}' has no parallel reduction"
        elif info is None:
            why[v] = "the region does not access it"
        elif info.local:
            why[v] = REGION_VARIABLE
        elif not isinstance(info.element, (T.IntType, T.FloatType)):
            why[v] = f"its type '{info.element.spelling()}' is not arithmetic"
        elif COMBINERS[op] in _INTEGER_ONLY and not isinstance(info.element, T.IntType):
            why[v] = f"the operator '{op}' needs an integer variable, not '{info.element.spelling()}'"
        else:
            found = _updates(scop, annotation, v, COMBINERS[op], info.rank)
            if isinstance(found, str):
                why[v] = found
            else:
                target, statements = found
                usable.append(LoopReduction(v, COMBINERS[op], target, statements, annotation.loc))
    return tuple(usable), why


def _updates(scop: Scop, annotation: LoopAnnotation, v: str, combiner: str,
             rank: int) -> tuple[N.Expr, tuple[str, ...]] | str:
    """The one element all statements of the loop that touch `v` update with `combiner`, and
    those statements; or why there is none."""
    touching = _touching(scop, annotation, v)
    if not touching:
        return "the loop does not access it"
    targets: list[N.Expr] = []
    for name in touching:
        stmt = scop.statement(name)
        if stmt.kind != "compute" or stmt.body is None:
            return "it is killed in the loop"
        found = _update_targets(stmt.body, v, combiner)
        if found is None:
            return (f"the statement at line {stmt.loc.line} uses it other than as a '{combiner}' update "
                    "computed in its type")
        targets.extend(found)
    if any(t != targets[0] for t in targets) or not _is_element(targets[0], v, rank):
        return "the loop does not update one element of it with constant subscripts"
    return targets[0], touching


def _touching(scop: Scop, annotation: LoopAnnotation, v: str) -> tuple[str, ...]:
    """The statements inside the annotated loop that access `v`."""
    inside = set(annotation.statements)
    names: set[str] = set()

    def note(m: isl.Map) -> None:
        if m.get_tuple_name(isl.dim_type.in_) in inside:
            names.add(m.get_tuple_name(isl.dim_type.in_))
    accesses_through(scop.reads.union(scop.writes).union(scop.kills), frozenset({v})).foreach_map(note)
    return tuple(sorted(names))


def _mentions(e: N.Expr, v: str) -> bool:
    return any(isinstance(x, N.VarRef) and x.name == v for x in iter_exprs(e))


def _update_targets(body: N.Stmt, v: str, combiner: str) -> list[N.Expr] | None:
    """The lvalues through which the updates in `body` write `v`; None if `body` touches `v`
    other than by updates with `combiner` computed in the target's type."""
    if isinstance(body, N.Compound):
        out: list[N.Expr] = []
        for sub in body.body:
            found = _update_targets(sub, v, combiner)
            if found is None:
                return None
            out.extend(found)
        return out
    if isinstance(body, N.If):
        if _mentions(body.cond, v):
            return None
        out = []
        for branch in (body.then, body.otherwise):
            found = _update_targets(branch, v, combiner) if branch is not None else []
            if found is None:
                return None
            out.extend(found)
        return out
    if isinstance(body, N.NullStmt):
        return []
    if not isinstance(body, N.ExprStmt):
        return None
    e = body.expr
    if not _mentions(e, v):
        return []
    if isinstance(e, N.Unary) and e.op in ("++", "--", "post++", "post--"):
        return [e.operand] if combiner == "+" else None
    if not isinstance(e, N.Assign) or e.target.type != e.type:
        return None
    target = e.target
    if e.op in _COMPOUND.get(combiner, ()):
        same_type = e.compute_type is None or e.compute_type == target.type
        return [target] if same_type and not _mentions(e.value, v) else None
    if e.op != "=":
        return None
    value = strip_implicit_casts(e.value)
    # `v && e` is an int 0 or 1, which every arithmetic type holds: the one conversion allowed.
    logical = combiner in _LOGICAL and isinstance(value, N.Binary) and value.op == combiner
    if value.type != target.type and not logical:
        return None
    for mine, other in update_operands(value, combiner):
        if mine == target and not _mentions(other, v):
            return [target]
    return None


# `a < b ? a : b` and its variants: which comparison operators make the `then` operand the
# smaller (min) or the larger (max) of the two compared ones.
_THEN_SMALLER = frozenset({"<", "<="})
_THEN_LARGER = frozenset({">", ">="})


def update_operands(value: N.Expr, combiner: str, conditionals: bool = False) -> list[tuple[N.Expr, N.Expr]]:
    """The ways to read `value` (implicit casts stripped) as `a combiner b`: (a, b) pairs, both
    orders where the operator commutes; empty if none. `a - b` reads as `a + b'` (b' = -b) for
    '+', with `a` first only. With `conditionals`, `a >= b ? a : b` and the other spellings of a
    max or min by `?:` (the ones PolyBench's `max_score` and `MIN` macros expand to) read as
    max or min of `a` and `b`; they are exact on integers only (on floating point the result of
    a NaN or of +0 against -0 depends on the operands' order), which the caller checks."""
    if isinstance(value, N.Binary) and value.op in _BINARY.get(combiner, ()):
        return [(value.lhs, value.rhs)] + ([(value.rhs, value.lhs)] if value.op != "-" else [])
    if isinstance(value, N.Call) and value.callee in _CALLEES.get(combiner, ()) and len(value.args) == 2:
        return [(value.args[0], value.args[1]), (value.args[1], value.args[0])]
    if conditionals and combiner in ("min", "max") and isinstance(value, N.Conditional):
        cond = strip_implicit_casts(value.cond)
        if not isinstance(cond, N.Binary) or cond.op not in _THEN_SMALLER | _THEN_LARGER:
            return []
        a, b = strip_implicit_casts(cond.lhs), strip_implicit_casts(cond.rhs)
        then, otherwise = strip_implicit_casts(value.then), strip_implicit_casts(value.otherwise)
        if (then, otherwise) == (a, b):
            larger_first = cond.op in _THEN_LARGER          # `a > b ? a : b`
        elif (then, otherwise) == (b, a):
            larger_first = cond.op in _THEN_SMALLER         # `a < b ? b : a`
        else:
            return []
        if larger_first != (combiner == "max"):
            return []
        return [(a, b), (b, a)]
    return []


def _is_element(target: N.Expr, v: str, rank: int) -> bool:
    """Whether `target` is `v` (rank 0) or `v[c0]..[ck]` with integer constants, one per dimension."""
    subscripts = 0
    while isinstance(target, N.Subscript):
        if not isinstance(strip_implicit_casts(target.index), N.IntLit):
            return False
        subscripts += 1
        target = strip_implicit_casts(target.base)
    return isinstance(target, N.VarRef) and target.name == v and subscripts == rank


def _conflicts(scop: Scop, names: frozenset[str]) -> isl.UnionMap:
    """[P] -> { S[i..] -> T[j..] : both access one element of a variable in `names`, one writes }."""
    reads = accesses_through(scop.reads, names)
    writes = accesses_through(scop.writes, names)
    touch = writes.apply_range(writes.reverse())
    touch = touch.union(writes.apply_range(reads.reverse())).union(reads.apply_range(writes.reverse()))
    return touch


def removable(scop: Scop, annotation: LoopAnnotation, reductions: ThreadReductions) -> isl.UnionMap:
    """The dependence pairs `annotation` declares absent, given its `thread_reductions`."""
    return carried_pairs(scop, annotation).subtract(_conflicts(scop, kept_storage(scop, annotation, reductions)))


def _union(scop: Scop, kinds: tuple[str, ...], reductions: tuple[ThreadReductions, ...]) -> isl.UnionMap:
    out = isl.UnionMap.empty(scop.context.get_space())
    for a, mine in zip(scop.annotations, reductions):
        if a.kind in kinds:
            out = out.union(removable(scop, a, mine))
    return out.coalesce()


def declared_independent(scop: Scop, reductions: tuple[ThreadReductions, ...]) -> isl.UnionMap:
    """Pairs no dependence joins, by `independent` loops (removed from every dependence), given the
    `thread_reductions` of each annotation."""
    return _union(scop, ("independent",), reductions)


def vector_independent(scop: Scop, reductions: tuple[ThreadReductions, ...]) -> isl.UnionMap:
    """Pairs that do not keep a loop from being a vector loop (`ivdep` and `independent` loops)."""
    return _union(scop, ("independent", "ivdep"), reductions)


def threads_phrase(variables: list[str]) -> str:
    """What a PragmaUse's detail says of the reductions run on threads (a target that runs them
    elsewhere, the OpenCL one, rewrites this part of the remark: clangpass.report)."""
    return (f"reduction{'s' if len(variables) > 1 else ''} of {', '.join(repr(v) for v in variables)} run on "
            "threads (private partial results combined in thread order)")


def pragma_uses(scop: Scop, declared: Optional[isl.UnionMap],
                reductions: tuple[ThreadReductions, ...]) -> tuple[PragmaUse, ...]:
    """What each annotation of an optimized region did, given `declared`: the dependences the
    annotations removed or let vector loops ignore (`Dependences.declared`; None: none known),
    the `thread_reductions` of each annotation, and `scop.reductions`: the reductions parallel
    loops perform."""
    uses = []
    for a, mine in zip(scop.annotations, reductions):
        gone = (declared.intersect(removable(scop, a, mine)) if declared is not None
                else isl.UnionMap.empty(scop.context.get_space()))
        kept = sorted(kept_storage(scop, a, mine) & _touched_in_loop(scop, a))
        usable, why = mine
        spelled = a.spelled
        on_threads = sorted({r.variable for r in performed_reductions(scop) if r.loc == a.loc})
        details = []
        if gone.is_empty():
            pass
        elif a.kind == "independent":
            details.append("dependences carried by the loop ignored")
        else:
            details.append("the loop's carried dependences ignored when choosing vector loops")
        if on_threads:
            details.append(threads_phrase(sorted(spelled(v) for v in on_threads)))
        missed = []
        for v in (v for v in kept if v in a.reductions):
            missed.append(f"reduction variable {spelled(v)!r} kept in order: {why.get(v, NOT_REDUCED)}")
        idle = [spelled(r.variable) for r in usable if r.variable not in on_threads]
        if idle:
            missed.append(f"reduction{'s' if len(idle) > 1 else ''} of {', '.join(repr(v) for v in idle)} "
                          f"{NOT_PERFORMED}")
        shared = [v for v in kept if v not in a.reductions]
        if shared:
            missed.append(f"dependences through {', '.join(repr(v) for v in shared)} kept: the pragma does "
                          "not privatise scalars or region-local variables")
        if gone.is_empty() and not missed:
            missed.append("the loop carries no dependence through arrays to ignore")
        operators = dict(zip(a.reductions, a.operators))
        reductions = tuple((spelled(v), operators.get(v, ""), v in on_threads) for v in dict.fromkeys(a.reductions))
        renamed = tuple((spelled(v), v) for v in dict.fromkeys(a.reductions) if spelled(v) != v)
        uses.append(PragmaUse(a.kind, a.loc.file, a.loc.line, a.loc.col, not gone.is_empty(), "; ".join(details),
                              "; ".join(missed), reductions, renamed=renamed))
    for stmt in scop.statements:
        if stmt.opaque and stmt.body is not None:
            uses.extend(unused_pragmas(stmt.body, f"the loop is part of a {stmt.opaque}, which runs whole as "
                                                  "one statement"))
    uses.extend(foreign_pragma_uses(scop.region.body))
    return tuple(uses)


# What replaces another compiler's loop pragma in an optimized region, by its first word.
_FOREIGN = {
    "omp": "pencilcc's own parallelization and vectorization replace the OpenMP directive: the loop runs "
           "on threads and in vector lanes as its dependences allow (the directive's clauses are not used)",
    "unroll": "pencilcc chooses unrolling itself; the hint is not passed on to LLVM",
    "ivdep": "pencilcc's vector loops follow its dependence analysis; '#pragma pencil ivdep' makes the "
             "same promise to pencilcc",
    "clang loop": "pencilcc chooses unrolling and vector loops itself; the hint is not passed on to LLVM",
}
_FOREIGN["nounroll"] = _FOREIGN["unroll"]


def foreign_pragma_uses(body: N.Stmt) -> tuple[PragmaUse, ...]:
    """The other compilers' pragmas on the loops of an optimized region, each not used, with what
    replaces it."""
    uses = []
    for s in iter_stmts(body):
        if not isinstance(s, N.For):
            continue
        for p in s.pragmas:
            if p.kind != "other":
                continue
            words = [w.split("(")[0] for w in p.text.split()[1:3]]   # `pragma GCC unroll 4`: GCC, unroll
            key = " ".join(words[1:2] if words[:1] == ["GCC"] else words[:2] if words[:1] == ["clang"]
                           else words[:1])
            missed = _FOREIGN.get(key, "pencilcc does not use this pragma")
            uses.append(PragmaUse("other", p.loc.file, p.loc.line, p.loc.col, False, "", missed, text=p.text))
    return tuple(uses)


def reduction_results(scop: Scop, reductions: tuple[ThreadReductions, ...], earlier: isl.UnionMap) -> isl.UnionMap:
    """[P] -> { U[i..] -> R[j..] }: every update of a reduction variable whose dependences were
    dropped, to every later read of it by another statement (`earlier`: [P] -> { S -> T : S runs
    before T in the source }).

    Value-based flow reaches a read after the loop from the last update in the source order
    only; once the updates may run in any order, every one of them must precede the read."""
    out = isl.UnionMap.empty(scop.context.get_space())
    for usable, _ in reductions:
        for r in usable:
            names = frozenset({r.variable})
            updates = isl.UnionSet.empty(scop.context.get_space())
            readers = isl.UnionSet.empty(scop.context.get_space())
            for stmt in scop.compute_statements:
                instances = isl.UnionSet.from_set(stmt.domain)
                if stmt.name in r.statements:
                    updates = updates.union(instances)
                else:
                    readers = readers.union(instances)
            writes = accesses_through(scop.writes, names).intersect_domain(updates)   # { U -> v }
            reads = accesses_through(scop.reads, names).intersect_domain(readers)     # { R -> v }
            out = out.union(writes.apply_range(reads.reverse()).intersect(earlier))
    return out


def reduction_updates(reductions: tuple[ThreadReductions, ...]) -> frozenset[str]:
    """The statements updating a variable whose carried dependences an annotation dropped, given
    the `thread_reductions` of each annotation."""
    return frozenset(n for usable, _ in reductions for r in usable for n in r.statements)


def performed_reductions(scop: Scop, schedule: Optional[isl.Schedule] = None) -> tuple[LoopReduction, ...]:
    """The reductions of `scop.reductions` whose updates lie under a `parallel` mark of `schedule`
    (default: `scop.schedule`; a later pass may have given the marks up)."""
    if not scop.reductions:
        return ()
    under: set[str] = set()

    def visit(node: isl.ScheduleNode) -> bool:
        if node.get_type() == isl.schedule_node_type.mark and node.mark_get_id().get_name() == PARALLEL_MARK:
            node.get_domain().foreach_set(lambda piece: under.add(piece.get_tuple_name()))
            return False
        return True

    (schedule or scop.schedule).get_root().foreach_descendant_top_down(visit)
    return tuple(r for r in scop.reductions if set(r.statements) <= under)


def _touched_in_loop(scop: Scop, annotation: LoopAnnotation) -> frozenset[str]:
    """Variables written inside the annotated loop (only those can carry a dependence)."""
    names: set[str] = set()
    inside = set(annotation.statements)

    def note(m: isl.Map) -> None:
        if m.get_tuple_name(isl.dim_type.in_) in inside:
            names.add(m.get_tuple_name(isl.dim_type.out))
    scop.writes.foreach_map(note)
    return frozenset(names)


def unused_pragmas(body: N.Stmt, reason: str) -> tuple[PragmaUse, ...]:
    """The loop pragmas of a region the optimiser did not transform, each with `reason`."""
    uses = []
    for s in iter_stmts(body):
        for p in s.pragmas:
            if p.kind in ("independent", "ivdep"):
                reductions = tuple((v, r.op, False) for r in p.reductions for v in r.variables)
                uses.append(PragmaUse(p.kind, p.loc.file, p.loc.line, p.loc.col, False, "", reason, reductions))
    return tuple(uses)
