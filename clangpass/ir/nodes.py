# SPDX-License-Identifier: MIT
"""Nodes of the pencilcc IR: functions, statements and expressions.

Input: produced only by clangpass.frontend (from libclang cursors).
Output: read by the linter, the polyhedral model builder (statement bodies,
subscripts, loop structure) and the back ends (statement bodies).

Every node carries its source location; every expression carries its C type as
clang computed it. Implicit conversions that change a value (integer promotion,
int -> double, ...) are explicit `Cast(implicit=True)` nodes so that back ends
reproduce C semantics without re-deriving the usual arithmetic conversions.
Nodes are frozen dataclasses: transformations build new nodes.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from clangpass.ir.types import CType


@dataclass(frozen=True)
class SourceLoc:
    file: str
    line: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class SourceRange:
    """Half-open byte range [start, end) in `file`, with the line/col of both ends."""

    file: str
    start_offset: int
    end_offset: int
    start: SourceLoc
    end: SourceLoc


NOLOC = SourceLoc("<unknown>", 0, 0)


# --------------------------------------------------------------------------------------
# Expressions
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Expr:
    type: CType = field(kw_only=True)
    loc: SourceLoc = field(kw_only=True, compare=False, default=NOLOC)


@dataclass(frozen=True)
class IntLit(Expr):
    value: int


@dataclass(frozen=True)
class FloatLit(Expr):
    value: float
    text: str = ""


@dataclass(frozen=True)
class StringLit(Expr):
    value: str


@dataclass(frozen=True)
class VarRef(Expr):
    """A use of a variable. `scope` is 'param', 'local', 'global' or 'enum' (a constant).

    `decl_loc` is where the variable is declared (for diagnostics' notes).
    """

    name: str
    scope: str = "local"
    decl_loc: SourceLoc = field(default=NOLOC, compare=False, repr=False)


@dataclass(frozen=True)
class Subscript(Expr):
    """`base[index]`; a multi-dimensional access is a chain of these."""

    base: Expr
    index: Expr


@dataclass(frozen=True)
class Member(Expr):
    """`base.field` (arrow=False) or `base->field` (arrow=True)."""

    base: Expr
    field_name: str
    arrow: bool = False


@dataclass(frozen=True)
class Unary(Expr):
    """Operators: + - ! ~ * (deref) & (address-of) ++pre --pre post++ post--, sizeof."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary(Expr):
    """Arithmetic, comparison, logical (&& ||), bitwise, shift and comma operators."""

    op: str
    lhs: Expr
    rhs: Expr


@dataclass(frozen=True)
class Assign(Expr):
    """`target op value` with op in = += -= *= /= %= <<= >>= &= ^= |=.

    For a compound assignment `compute_type` is the type the operation is done in
    (clang's computation type), e.g. double for `int_var += 0.5`.
    """

    op: str
    target: Expr
    value: Expr
    compute_type: Optional[CType] = None


@dataclass(frozen=True)
class Conditional(Expr):
    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True)
class Call(Expr):
    """A direct call by name; `builtin` is set when the callee is a PENCIL builtin."""

    callee: str
    args: tuple[Expr, ...]
    builtin: bool = False


@dataclass(frozen=True)
class Cast(Expr):
    """A conversion to `type`; `implicit` marks the ones clang inserted."""

    operand: Expr
    implicit: bool = False


@dataclass(frozen=True)
class InitList(Expr):
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class OpaqueExpr(Expr):
    """An expression form pencilcc does not model; `kind` is clang's cursor kind."""

    kind: str
    text: str = ""


# --------------------------------------------------------------------------------------
# Pragmas attached to statements
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reduction:
    """`reduction(op: v, a[c]..[c], ...)`: `variables` are the names (an element's array),
    `subscripts` each item's subscripts as written (`()` for a variable; `()` throughout
    when empty)."""

    op: str                      # one of + - * min max (& | ^ && ||: OpenMP's, an extension)
    variables: tuple[str, ...]
    loc: SourceLoc = field(default=NOLOC, compare=False)
    subscripts: tuple[tuple[str, ...], ...] = ()

    def subscripts_of(self, k: int) -> tuple[str, ...]:
        """The subscripts of the k-th item, `()` for a variable."""
        return self.subscripts[k] if k < len(self.subscripts) else ()

    def item(self, k: int) -> str:
        """The k-th item as written: `s`, `a[i][0]`."""
        return self.variables[k] + "".join(f"[{x}]" for x in self.subscripts_of(k))


@dataclass(frozen=True)
class Pragma:
    """`#pragma pencil independent [reduction(op: v, ...)]*`, `ivdep`, `region`, `scop`...

    `kind` is 'independent', 'ivdep', 'region', 'scop', 'endscop', or 'other' (text kept);
    `errors` lists syntax problems found while parsing it (reported by the linter).
    """

    kind: str
    text: str
    loc: SourceLoc
    reductions: tuple[Reduction, ...] = ()
    errors: tuple[tuple[SourceLoc, str], ...] = ()


# --------------------------------------------------------------------------------------
# Statements
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Stmt:
    loc: SourceLoc = field(kw_only=True, compare=False, default=NOLOC)
    extent: Optional[SourceRange] = field(kw_only=True, compare=False, default=None)
    pragmas: tuple[Pragma, ...] = field(kw_only=True, default=())

    def pragma(self, kind: str) -> Optional[Pragma]:
        for p in self.pragmas:
            if p.kind == kind:
                return p
        return None


@dataclass(frozen=True)
class VarDecl:
    """A variable: local, parameter or global. `storage` is '', 'static' or 'extern'."""

    name: str
    type: CType
    init: Optional[Expr] = None
    loc: SourceLoc = field(default=NOLOC, compare=False)
    storage: str = ""


@dataclass(frozen=True)
class Compound(Stmt):
    body: tuple[Stmt, ...] = ()


@dataclass(frozen=True)
class DeclStmt(Stmt):
    decls: tuple[VarDecl, ...] = ()


@dataclass(frozen=True)
class ExprStmt(Stmt):
    expr: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True)
class If(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    then: Stmt = None  # type: ignore[assignment]
    otherwise: Optional[Stmt] = None


@dataclass(frozen=True)
class For(Stmt):
    """`for (init; cond; step) body`; `init` is a DeclStmt, an ExprStmt or None."""

    init: Optional[Stmt] = None
    cond: Optional[Expr] = None
    step: Optional[Expr] = None
    body: Stmt = None  # type: ignore[assignment]


@dataclass(frozen=True)
class While(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    body: Stmt = None  # type: ignore[assignment]


@dataclass(frozen=True)
class DoWhile(Stmt):
    body: Stmt = None  # type: ignore[assignment]
    cond: Expr = None  # type: ignore[assignment]


@dataclass(frozen=True)
class Return(Stmt):
    value: Optional[Expr] = None


@dataclass(frozen=True)
class Break(Stmt):
    pass


@dataclass(frozen=True)
class Continue(Stmt):
    pass


@dataclass(frozen=True)
class Goto(Stmt):
    label: str = ""


@dataclass(frozen=True)
class Label(Stmt):
    name: str = ""
    body: Optional[Stmt] = None


@dataclass(frozen=True)
class Switch(Stmt):
    cond: Expr = None  # type: ignore[assignment]
    body: Stmt = None  # type: ignore[assignment]


@dataclass(frozen=True)
class NullStmt(Stmt):
    pass


@dataclass(frozen=True)
class OpaqueStmt(Stmt):
    """A statement form pencilcc does not model (asm, case labels, ...)."""

    kind: str = ""
    text: str = ""


@dataclass(frozen=True)
class Region(Stmt):
    """An optimisable region inside a function body.

    kind 'scop': statements between `#pragma scop` and `#pragma endscop` (pet's
    conventions); kind 'pencil': the compound statement after `#pragma pencil region`.
    `extent` covers the pragma lines too, so the driver can replace the text.
    """

    kind: str = "scop"
    body: Compound = None  # type: ignore[assignment]


# --------------------------------------------------------------------------------------
# Top level
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    name: str
    type: CType
    loc: SourceLoc = field(default=NOLOC, compare=False)


@dataclass(frozen=True)
class Attribute:
    """`__attribute__((name(args)))` on a function: pencil, const, pencil_access(f), ..."""

    name: str
    args: tuple[str, ...] = ()
    loc: SourceLoc = field(default=NOLOC, compare=False)


@dataclass(frozen=True)
class Function:
    """A function declaration or definition (body is None for a prototype).

    `is_pencil` says whether pencilcc treats this function as PENCIL, and
    `pencil_reason` why (file suffix, -x pencil, attribute, pencil_array params).
    `in_main_file`: the function is the translation unit's own code, which pencilcc
    compiles: defined in the main file, or a PENCIL function or region-holding
    function defined in a user header (`loc.file` names the header).
    """

    name: str
    result: CType
    params: tuple[Param, ...]
    body: Optional[Compound]
    loc: SourceLoc = field(compare=False)
    extent: Optional[SourceRange] = field(default=None, compare=False)
    attributes: tuple[Attribute, ...] = ()
    storage: str = ""
    inline: bool = False
    variadic: bool = False
    is_pencil: bool = False
    pencil_reason: str = ""
    in_main_file: bool = True

    def attribute(self, name: str) -> Optional[Attribute]:
        for a in self.attributes:
            if a.name == name:
                return a
        return None


@dataclass(frozen=True)
class RecordDecl:
    """A struct or union declared in the main file (nested ones too); `name` is '' if anonymous.

    `loc` is the `struct`/`union` keyword; `definition` is False for `union u;`.
    """

    name: str
    is_union: bool
    loc: SourceLoc = field(default=NOLOC, compare=False)
    definition: bool = True


@dataclass(frozen=True)
class Include:
    """An `#include` directive, bytes [start, end) of `file` (from `#` to the end of the file
    name), that names the file `included`; directives between system headers are left out.
    The driver redirects those that name a header whose regions it rewrites."""

    file: str
    start_offset: int
    end_offset: int
    included: str
    file_is_system: bool = False
    included_is_system: bool = False


@dataclass(frozen=True)
class Module:
    """One translation unit as pencilcc sees it: the main file's functions, globals and records.

    `functions` holds every definition in the main file and every declaration
    visible in it (prototypes from headers included), first definition wins;
    the definitions of user headers that are PENCIL or hold a region are the
    translation unit's own code too (`Function.in_main_file`, their `loc` the header's).
    `structs` holds the struct and union declarations written in the main file;
    `includes` the `#include` directives outside system headers.
    """

    file: str
    functions: tuple[Function, ...] = ()
    globals: tuple[VarDecl, ...] = ()
    structs: tuple[RecordDecl, ...] = ()
    pencil_file: bool = False
    includes: tuple[Include, ...] = ()

    def summary_functions(self) -> frozenset[str]:
        """Names of the functions some `pencil_access(f)` attribute names (PENCIL summaries)."""
        return frozenset(a.args[0] for f in self.functions for a in f.attributes
                         if a.name == "pencil_access" and a.args)

    def function(self, name: str) -> Optional[Function]:
        for f in self.functions:
            if f.name == name:
                return f
        return None

