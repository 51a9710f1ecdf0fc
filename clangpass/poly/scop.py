# SPDX-License-Identifier: MIT
"""The polyhedral model of one optimisable region (a SCoP) and its canonical dump.

Input: built by `clangpass.poly.extract` from an `OptRegion`. Output: read by the
passes in `clangpass.passes` (which return modified copies) and by
`clangpass.poly.codegen`. Everything polyhedral stays an isl object.

Model conventions (as in pet, Verdoolaege & Grosser, IMPACT 2012):
- statements `S_0, S_1...` in textual order, one per expression statement or
  initialised declaration; kill statements `K_0, K_1...` (no code) mark where a
  value dies: an explicit `__pencil_kill(x)` or the declaration of an
  uninitialised region-local variable. Kills only cut value-based dependences;
  they are not scheduled and produce no code;
- scalars are 0-d arrays (`{ S_1[i] -> alpha[] }`); integer scalars only read
  in the region are parameters instead;
- accesses are must or may: writes under a data-dependent ternary or the right
  operand of && / || are may-writes;
- `original_schedule` is the schedule tree of the source order over every
  statement (kills included, as dependence analysis needs them); `schedule` is the
  current schedule over the executed statements only, rewritten by the passes.

A Scop holds the model and the schedule, nothing computed from them nor said
about them: analyses (dependences, live ranges...) are typed fields of the
compilation unit (clangpass.passes.unit.PolyUnit), which a pass that changes the
model (`with_model`) drops there, and what the passes did is in their records and
notes on that unit.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.printer import format_stmt
from clangpass.poly.affine import where
from clangpass.regions import OptRegion


@dataclass(frozen=True)
class ScopStatement:
    name: str                      # S_<n> or K_<n>
    kind: str                      # 'compute' | 'kill'
    body: Optional[N.Stmt]         # the C statement: an ExprStmt, a data-dependent `if`, an opaque
                                   # loop or `if` (see `opaque`), None for kills
    iterators: tuple[str, ...]     # enclosing loop iterators, outermost first
    domain: isl.Set                # [P] -> { S_n[i..] : ... }
    loc: N.SourceLoc = field(compare=False, default=N.NOLOC)
    # Why the statement is control flow run whole (clangpass.poly.extract, opaque statements): '' if not.
    opaque: str = ""


@dataclass(frozen=True)
class LoopAnnotation:
    """A `#pragma pencil independent` or `ivdep` on a loop of the region, as the model sees it."""

    kind: str                      # 'independent' | 'ivdep'
    loc: N.SourceLoc = field(compare=False)
    iterator: str = ""
    depth: int = 0                 # the loop's position among the statements' iterators
    statements: tuple[str, ...] = ()   # the statements (compute and kill) inside the loop
    reductions: tuple[str, ...] = ()   # variables named by `reduction(op: v)` clauses
    operators: tuple[str, ...] = ()    # the clause's operator of each of `reductions`, in order
    threads: bool = True           # whether loops may run on threads (false: -fno-pencil-parallel)
    # The clause's variables as the source names them, where a pass renamed one of `reductions`
    # (demote-scalars: a region-local scalar to the array it ends in); () while they are `reductions`.
    written: tuple[str, ...] = ()

    def spelled(self, variable: str) -> str:
        """The name the source gives `variable`, one of `reductions`, for messages."""
        return dict(zip(self.reductions, self.written)).get(variable, variable)


@dataclass(frozen=True)
class LoopReduction:
    """A reduction a parallel-marked loop performs (clangpass.passes.mark_parallel; the
    CodegenUnit contract in clangpass.poly.codegen_unit says what the back end does with it)."""

    variable: str                  # the reduced variable's C name
    operator: str                  # '+' (also for '-' clauses), '*', 'min', 'max', '&', '|', '^', '&&', '||'
    target: N.Expr                 # the element every update writes: `s` or `s[0]` (constant subscripts)
    statements: tuple[str, ...]    # the update statements of the loop, the only accesses to `variable` in it
    loc: N.SourceLoc = field(compare=False, default=N.NOLOC)   # the pragma


@dataclass(frozen=True)
class ArrayInfo:
    """One array (or 0-d scalar) of the model."""

    name: str
    element: T.CType
    extents: tuple[Optional[isl.PwAff], ...]  # per dimension, [P] -> { [(extent)] }; None: unknown
    local: bool = False            # declared inside the region (never live-in or live-out)
    killed: bool = False           # some kill statement kills (part of) it
    live_out: bool = False         # written in the region, not all killed after: visible after it
    read_only: bool = False
    # The modular allocation `contract-arrays` chose (clangpass.poly.contraction): per dimension
    # the modulus b_k of `T[a mod b]` (None: the dimension keeps its extent); () when not contracted.
    storage: tuple[Optional[int], ...] = ()

    @property
    def rank(self) -> int:
        return len(self.extents)


@dataclass(frozen=True)
class Scop:
    region: OptRegion
    params: tuple[str, ...]
    context: isl.Set                       # [P] -> { : parameter constraints }
    statements: tuple[ScopStatement, ...]
    arrays: tuple[ArrayInfo, ...]
    reads: isl.UnionMap                    # [P] -> { S[i..] -> A[a..] } (may reads)
    must_writes: isl.UnionMap              # [P] -> { S[i..] -> A[a..] }
    may_writes: isl.UnionMap               # [P] -> { S[i..] -> A[a..] } (conditional writes only)
    kills: isl.UnionMap                    # [P] -> { K[i..] -> A[a..] }
    original_schedule: isl.Schedule        # over every statement, kills included
    schedule: isl.Schedule                 # current schedule over compute statements
    locals: tuple[N.VarDecl, ...] = ()     # region-local variables (initialisers removed)
    annotations: tuple[LoopAnnotation, ...] = ()   # independent/ivdep loops (clangpass.poly.annotations)
    reductions: tuple[LoopReduction, ...] = ()   # reductions of parallel-marked loops (mark-parallel)
    # Arrays copied into region-local buffers before register-tiled bands (pass pack-panels):
    # clangpass.poly.packing.Pack values, applied at AST generation only (clangpass.poly.codegen).
    packs: tuple[Any, ...] = ()

    # --------------------------------------------------------------- derived
    @property
    def local_scalars(self) -> frozenset[str]:
        """The region-local scalars (0-d local storage: three-address and PRE temporaries)."""
        return frozenset(a.name for a in self.arrays if a.local and not a.extents)

    @property
    def compute_statements(self) -> tuple[ScopStatement, ...]:
        return tuple(s for s in self.statements if s.kind == "compute")

    @property
    def domain(self) -> isl.UnionSet:
        """[P] -> { S[i..] } of the executed statements (kills excluded)."""
        out = isl.UnionSet.empty(self.context.get_space())
        for s in self.compute_statements:
            out = out.union(isl.UnionSet.from_set(s.domain))
        return out

    @property
    def writes(self) -> isl.UnionMap:
        """[P] -> { S[i..] -> A[a..] }: must and may writes."""
        return self.must_writes.union(self.may_writes)

    def statement(self, name: str) -> ScopStatement:
        for s in self.statements:
            if s.name == name:
                return s
        raise KeyError(name)

    def array(self, name: str) -> ArrayInfo:
        for a in self.arrays:
            if a.name == name:
                return a
        raise KeyError(name)

    def original_compute_schedule(self) -> isl.Schedule:
        """The source order restricted to the executed statements."""
        return self.original_schedule.intersect_domain(self.domain)

    # --------------------------------------------------------------- copies
    def with_schedule(self, schedule: isl.Schedule, **changes: Any) -> "Scop":
        """A copy with a new schedule; the model, hence every analysis of it, is kept."""
        return replace(self, schedule=schedule, **changes)

    def with_model(self, **changes: Any) -> "Scop":
        """A copy with a changed model (domains, accesses, context): the analyses of the unit that
        holds it no longer apply (`PolyUnit.with_model` drops them)."""
        return replace(self, **changes)

    @property
    def model(self) -> tuple[object, ...]:
        """What analyses are computed from: a copy that keeps these objects keeps the model."""
        return (self.context, self.statements, self.arrays, self.reads, self.must_writes, self.may_writes,
                self.kills, self.original_schedule, self.annotations)


def statement_names(instances: isl.UnionSet) -> frozenset[str]:
    """The names of the statements with instances in `instances`."""
    sets = instances.get_set_list()
    return frozenset(sets.get_at(k).get_tuple_name() for k in range(sets.n_set()))


def instances_of(instances: isl.UnionSet, names: frozenset[str] | set[str], universe: bool = False) -> isl.UnionSet:
    """The instances in `instances` of the statements `names` (with `universe`, all the points of
    their spaces: a filter that keeps whole statements)."""
    out = isl.UnionSet.empty(instances.get_space())
    sets = instances.get_set_list()
    for k in range(sets.n_set()):
        piece = sets.get_at(k)
        if piece.get_tuple_name() in names:
            out = out.union(isl.UnionSet.from_set(isl.Set.universe(piece.get_space()) if universe else piece))
    return out


def accesses_through(accesses: isl.UnionMap, names: frozenset[str], inside: bool = True) -> isl.UnionMap:
    """The accesses to the arrays named in `names` (inside=True) or to the others."""
    out = isl.UnionMap.empty(accesses.get_space())
    pieces: list[isl.Map] = []
    accesses.foreach_map(pieces.append)
    for m in pieces:
        if (m.get_tuple_name(isl.dim_type.out) in names) == inside:
            out = out.union(isl.UnionMap.from_map(m))
    return out


# ------------------------------------------------------------------------ dumps
def sorted_pieces(umap: isl.UnionMap | isl.UnionSet) -> list[str]:
    """The maps (sets) of a union, each printed alone, sorted: a deterministic text."""
    pieces: list[str] = []
    if isinstance(umap, isl.UnionMap):
        umap.foreach_map(lambda m: pieces.append(str(m.coalesce())))
    else:
        umap.foreach_set(lambda s: pieces.append(str(s.coalesce())))
    return sorted(pieces)


def format_schedule(schedule: isl.Schedule) -> str:
    """isl's block-style YAML form of a schedule tree."""
    printer = isl.Printer.to_str(schedule.get_ctx()).set_yaml_style(isl.yaml_style.BLOCK)
    return printer.print_schedule(schedule).get_str().rstrip()


def _statement_maps(umap: isl.UnionMap, name: str) -> list[str]:
    out: list[str] = []
    umap.foreach_map(lambda m: out.append(str(m.coalesce())) if m.get_tuple_name(isl.dim_type.in_) == name else None)
    return sorted(out)


def _extent_text(extent: Optional[isl.PwAff]) -> str:
    if extent is None:
        return "*"
    # As a C expression of the parameters: `n`, `n + 1`, `min(n, m)`.
    build = isl.AstBuild.from_context(isl.Set.universe(extent.get_domain_space()))
    return build.expr_from_pw_aff(extent).to_C_str()


def format_scop(scop: Scop, notes: tuple[str, ...] = ()) -> str:
    """Polly-style dump: context, arrays, statements with domains, schedules and accesses, and the
    passes' `notes` so far."""
    lines = [f"Region: {scop.region.label} ({scop.region.kind}, {where(scop.region.loc)})",
             "Context:", f"    {scop.context}",
             "Parameters: " + (", ".join(scop.params) if scop.params else "(none)"),
             "Arrays {"]
    for a in sorted(scop.arrays, key=lambda a: a.name):
        dims = "".join(f"[{_extent_text(e)}]" for e in a.extents)
        flags = ", ".join(f for f, on in (("local", a.local), ("killed", a.killed), ("live-out", a.live_out),
                                          ("read-only", a.read_only)) if on)
        if a.storage:
            flags += ", contracted " + "".join(f"[mod {b}]" if b is not None else "[]" for b in a.storage)
        lines.append(f"    {a.element.spelling()} {a.name}{dims};" + (f"  // {flags}" if flags else ""))
    lines.append("}")
    if scop.locals:
        lines.append("Locals: " + ", ".join(sorted(d.name for d in scop.locals)))
    flat = scop.original_schedule.get_map()   # [P] -> { S[i..] -> [t..] }
    lines.append("Statements {")
    for s in scop.statements:
        lines.append(f"    {s.name}" + ("  (kill)" if s.kind == "kill" else ""))
        lines.append("        Domain :=")
        lines.append(f"            {s.domain};")
        lines.append("        Schedule :=")
        for m in _statement_maps(flat, s.name):
            lines.append(f"            {m};")
        for heading, umap in (("ReadAccess", scop.reads), ("MustWriteAccess", scop.must_writes),
                              ("MayWriteAccess", scop.may_writes),
                              ("KillAccess", scop.kills)):
            for m in _statement_maps(umap, s.name):
                lines.append(f"        {heading} :=")
                lines.append(f"            {m};")
        if s.body is not None:
            lines.append("        Body: " + " ".join(line.strip() for line in format_stmt(s.body)))
    lines.append("}")
    lines.append("Schedule tree:")
    lines.extend("    " + line for line in format_schedule(scop.schedule).splitlines())
    if notes:
        lines.append("Notes:")
        lines.extend(f"    {n}" for n in notes)
    return "\n".join(lines)
