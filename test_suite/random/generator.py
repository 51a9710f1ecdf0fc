# SPDX-License-Identifier: MIT
"""Deterministic generator of random static-affine C99 programs for differential testing.

`generate(seed, config)` returns a complete C99 program: a `kernel` function whose
`#pragma scop` region is a random static-affine loop-nest program over VLA array
parameters, and a `main` that initialises every array deterministically, calls the
kernel with size parameters chosen here (so they are true symbolic parameters of
the region, not macros) and prints every array element and every output scalar.
The same program built by `gcc -O0` and by pencilcc must print the same values.

Guarantees, by construction and checked:

* **Static affine.**  Loop bounds, guards and subscripts are affine in the
  enclosing iterators and the size parameters (guards may also test `e % k == r`), or
  in affine integer locals (`int j1 = n - i1 - 1;` at the start of a loop body, never
  written again, which pencilcc substitutes).  Only the conditions of data guards
  (`if (A[i0] > 0.3) {...} else {...}`, modelled by pencilcc as one statement with
  may-writes) and the min of the pivot nest (`G[i][j] < s ? G[i][j] : s`) read values;
  for bounds checking and instance counts both branches of a data guard count as
  executed.  `#pragma pencil independent` is emitted only on loops that
  `provably_independent` vouches for.
* **In bounds.**  Every iterator carries a hull `[lo, P + hi]` (constant lower
  bound, upper bound relative to one size parameter `P`); triangular bounds add
  hulls for iterator differences and guards like `i0 + i1 < n` add hulls for sums.
  A subscript `form + offset` into a dimension of extent `P + c` is only generated
  when the hull proves it in bounds for every `P >= config.min_size`.
  `check_in_bounds` independently enumerates every statement instance (vectorised
  with numpy) and evaluates every subscript, for the program's own sizes or any other.
* **Free of undefined behaviour.**  No division by anything but non-zero constants,
  `sqrt` only of `fabs`, no float-to-int conversions, every array element is
  initialised and every temporary is assigned before the region; integer values are
  bounded by an interval analysis (with `% 1000` wrapping) so that no `int`
  expression can overflow, and double magnitudes stay below 1e30 by an analysis of
  how much each loop nest can amplify them (so no inf or NaN, and a relative
  tolerance of 1e-9 remains meaningful).  The test suite runs a sample of programs
  under `-fsanitize=address,undefined`.
"""
from __future__ import annotations

import math
import random
import re
from dataclasses import dataclass, field, replace
from typing import Callable, Iterator, Mapping, Sequence, Union

import numpy as np

__all__ = [
    "Aff", "ArrayDecl", "ArrayRef", "Assign", "Binary", "Call", "Compare", "Const",
    "DataCompare", "DataGuard", "GenConfig", "GeneratedProgram", "Guard", "IterValue", "Local",
    "Loop", "ModEq", "PENDING_FORMS", "Program", "SMALL", "ScalarDecl", "ScalarRef", "Select", "Spelling",
    "check_in_bounds", "draw_spelling", "generate", "instance_counts", "plain", "provably_independent",
    "render", "walk_nodes", "walk_statements", "with_pending_forms", "without_pending_forms",
]

#: Largest value an `int` expression may take (C `INT_MAX` on every supported target).
INT_LIMIT = 2**31 - 1
#: Bound kept on values stored in int arrays and temporaries between loop nests.
INT_CAP = 2**24
#: Integer right-hand sides that could grow are wrapped as `(e) % INT_WRAP`.
INT_WRAP = 1000
#: log10 of the largest magnitude a double value may reach.
DOUBLE_LOG10_LIMIT = 30.0
#: log10 of the amplification one compound-assignment loop nest may cause.
COMPOUND_LOG10_BUDGET = 20.0


# ----------------------------------------------------------------------------
# Configuration and result
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class GenConfig:
    """Knobs of the generator (sizes, shapes and how often each feature appears)."""

    min_size: int = 5                 # smallest value of a size parameter
    max_size: int = 40                # largest value of a size parameter
    max_params: int = 3               # size parameters n, m, p
    min_arrays: int = 2
    max_arrays: int = 5
    max_array_dims: int = 3
    max_array_elements: int = 8192    # size parameters shrink until every array fits
    max_depth: int = 3                # loop depth of a nest
    max_nests: int = 4                # top-level loop nests in the scop
    max_statements: int = 4           # statements per nest
    p_guard: float = 0.25             # affine `if` around a statement or loop
    p_scalar: float = 0.35            # scalar temporaries and scalar targets
    p_int_array: float = 0.3          # an array has element type int
    p_builtin: float = 0.12           # sqrt(fabs()), fmax, fmin in a term
    p_pointer_scalar: float = 0.15    # a `double *r0` output scalar
    p_triangular: float = 0.3         # a loop bound depends on an outer iterator
    p_decreasing: float = 0.15        # `for (i = ub; i >= lb; i--)`
    p_step2: float = 0.1              # step 2 (or -2)
    p_local_temp: float = 0.3         # a statement's value goes through a body-local temporary
    p_overlap: float = 0.3            # main passes one double array for two of the same shape (aliasing)
    p_stencil: float = 0.2            # a time-iterated 5-point stencil nest ends the region
    p_data_guard: float = 0.12        # data-dependent `if (A[i0] > 0.3) {...} else {...}` around statements
    p_affine_local: float = 0.2       # a loop body starts with `int j1 = n - 1 - i1;` used as subscript or bound
    p_independent: float = 0.5        # `#pragma pencil independent` on a loop whose iterations are independent
    p_temp_array: float = 0.15        # a caller array used as a per-row temporary (pass privatize-arrays)
    p_matmul: float = 0.15            # a matrix product nest C[i][j] += a * P[i][k] * Q[k][j] (pass register-tile)
    p_column_recurrence: float = 0.3   # a recurrence down the columns through scalars (pass expand-scalars)
    p_matvec: float = 0.08            # the region is row and column sums over one matrix, alone (pass row-blocks)
    p_reduction: float = 0.2          # an int sum `q0 += ...` under `#pragma pencil independent reduction(+: q0)`
    #: of those, the share that combine with `|`, `^` or `&` instead (`q0 |= ...`, `q0 = q0 ^ ...`, ...)
    p_bitwise_reduction: float = 0.4
    p_pivot: float = 0.15             # a Floyd-Warshall min-plus pivot nest on a square 2-D array (index-set splitting)
    #: a nussinov-like triangular DP over an int array of its own, every write an update with one
    #: exact operator (max or min by `?:`, `|=`, `^=`: clangpass.poly.exact_reductions)
    p_exact_reduction: float = 0.12
    #: symm's triangular chain into a scalar, `y0 += SB[i2][i1] * SA[i0][i2]` for i2 < i0, beside
    #: the rank-1 update of the rows above (pass reduction-jam's scalar tiles)
    p_triangular_chain: float = 0.1
    p_indirect: float = 0.15          # a nest gathering or scattering through `(i1 * i1 + c) % w` subscripts
    p_small_cache: float = 0.25       # pencilcc builds it for a 1K/2K cache (GeneratedProgram.flags)
    p_opencl: float = 0.2             # pencilcc builds it for the OpenCL target (GeneratedProgram.flags)
    p_dynamic: float = 0.15           # a nest over rows with a data-dependent bound, a `while`, an `if` around a loop
    p_cluster: float = 0.2            # pencilcc builds it with -fpencil-cluster=scc or bb (half each)
    # How the program is written, not what it computes (`Spelling`, a stream of its own):
    p_declarator_macros: float = 0.25  # array parameters through PolyBench-like macros: `double ARR2(A, n, m + 1)`
    p_typedef_rows: float = 0.1        # 2-D/3-D array parameters of a typedef'd row type: `A_row_t A[n]`
    p_bound_macros: float = 0.25       # size parameters in extents and loop bounds through macros: `PB_N`, `BOUND(n)`
    p_for_macros: float = 0.15         # loop headers through a macro: `FOR_UP(i0, 0, n)`, `FOR_DOWN(i0, n - 1, 0)`
    p_statement_macros: float = 0.2   # statements through macros: `SET(x, v)`, `UPDATE(x, +, v)`, `S3(i0, i1)`, `S3`
    p_unknown_type: float = 0.1        # a `_Float16` helper function elsewhere in the file, unused by the region
    p_loop_pragmas: float = 0.15       # `#pragma GCC unroll 4`, `GCC ivdep`, `omp simd` before loops of the region
    #: value-style code at the end of the region (a stream of its own, `value style {seed}`): copies with
    #: `__pencil_kill`, time-expanded arrays, plane folds with copy-back, pipelines over killed scratch
    #: (passes reuse-in-place and contract-arrays)
    p_value_style: float = 0.2
    #: the region without its `#pragma scop`/`#pragma endscop` lines, built with -fpencil-detect
    #: (a stream of its own, `detect {seed}`): pencilcc must find the loop nests itself. Off by
    #: default (tests read the scop of default programs); SMALL and the command line turn it on.
    p_detect: float = 0.0
    #: the candidate's -fpencil-emit-c output is built by gcc -fopenmp and checked as well (a
    #: stream of its own, `emit c {seed}`; the program and its flags do not depend on it)
    p_emit_c: float = 0.0

    def __post_init__(self) -> None:
        if not 4 <= self.min_size <= self.max_size:
            raise ValueError("need 4 <= min_size <= max_size")
        if not 1 <= self.max_params <= 3:
            raise ValueError("max_params must be in 1..3")
        if not 2 <= self.min_arrays <= self.max_arrays <= 5:
            raise ValueError("need 2 <= min_arrays <= max_arrays <= 5")
        if not 1 <= self.max_array_dims <= 3 or not 1 <= self.max_depth <= 3:
            raise ValueError("max_array_dims and max_depth must be in 1..3")
        if self.max_nests < 1 or self.max_statements < 1:
            raise ValueError("max_nests and max_statements must be positive")


@dataclass(frozen=True)
class GeneratedProgram:
    """One generated test program."""

    seed: int
    source: str
    description: str
    program: "Program" = field(repr=False, compare=False)
    #: Options the candidate pencilcc gets for this program: `--cache-sizes=1K,2K` makes the
    #: tile-size model pick its smallest tiles (more partial tiles) and leaves every
    #: time-iterated band untiled (`tile`: a wavefront out of cache), so that path runs too;
    #: `-fpencil-target=opencl` runs its parallel loops as OpenCL kernels (on the first device,
    #: the CPU path where there is none).
    flags: tuple[str, ...] = ()
    #: How the program's C is written (macros, typedefs, pragmas, an unused helper): never what it computes.
    spelling: "Spelling" = field(default=None, repr=False, compare=False)  # type: ignore[assignment]
    #: The candidate pencilcc also writes the program as C (-fpencil-emit-c), which gcc -fopenmp
    #: builds and runs: its output must be the reference's too (GenConfig.p_emit_c).
    emit_c: bool = False


# ----------------------------------------------------------------------------
# Program representation
# ----------------------------------------------------------------------------

Value = Union[int, np.ndarray]


@dataclass(frozen=True)
class Aff:
    """An affine expression: sum of coefficient * variable, plus a constant."""

    terms: tuple[tuple[str, int], ...] = ()
    const: int = 0

    @staticmethod
    def of(*terms: tuple[str, int], const: int = 0) -> "Aff":
        merged: dict[str, int] = {}
        for name, coeff in terms:
            merged[name] = merged.get(name, 0) + coeff
        return Aff(tuple((n, c) for n, c in merged.items() if c != 0), const)

    @staticmethod
    def var(name: str, const: int = 0) -> "Aff":
        return Aff(((name, 1),), const)

    def __add__(self, other: "Aff | int") -> "Aff":
        if isinstance(other, int):
            return Aff(self.terms, self.const + other)
        return Aff.of(*self.terms, *other.terms, const=self.const + other.const)

    def variables(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.terms)

    def evaluate(self, env: Mapping[str, Value], size: int | None = None) -> Value:
        total: Value = self.const if size is None else np.full(size, self.const, dtype=np.int64)
        for name, coeff in self.terms:
            total = total + coeff * env[name]
        return total

    def render(self, names: Mapping[str, str] | None = None) -> str:
        """C text; `names` spells some variables otherwise (a size parameter as a macro)."""
        ordered = [t for t in self.terms if t[1] > 0] + [t for t in self.terms if t[1] < 0]
        parts: list[str] = []
        for name, coeff in ordered:
            if names:
                name = names.get(name, name)
            text = name if abs(coeff) == 1 else f"{abs(coeff)} * {name}"
            if not parts:
                parts.append(text if coeff > 0 else f"-{text}")
            else:
                parts.append(("+ " if coeff > 0 else "- ") + text)
        if self.const or not parts:
            if not parts:
                parts.append(str(self.const))
            else:
                parts.append(f"+ {self.const}" if self.const > 0 else f"- {-self.const}")
        return " ".join(parts)


@dataclass(frozen=True)
class IndirectIndex(Aff):
    """A subscript that is no affine expression: `(base * base + const) % modulus`, in
    [0, modulus) for base >= 0 (pencilcc models the access as one to any element along its
    dimension). Never equal to an `Aff`, so no independence proof relies on it."""

    base: Aff = Aff()
    modulus: Aff = Aff(const=1)

    def variables(self) -> tuple[str, ...]:
        return self.base.variables() + self.modulus.variables()

    def evaluate(self, env: Mapping[str, Value], size: int | None = None) -> Value:
        b = self.base.evaluate(env, size)
        return (b * b + self.const) % self.modulus.evaluate(env, size)

    def render(self, names: Mapping[str, str] | None = None) -> str:
        b = self.base.render()
        return f"(({b}) * ({b}) + {self.const}) % ({self.modulus.render()})"


@dataclass(frozen=True)
class Const:
    value: float | int
    ctype: str


@dataclass(frozen=True)
class ArrayRef:
    array: str
    subscripts: tuple[Aff, ...]


@dataclass(frozen=True)
class ScalarRef:
    name: str
    pointer: bool = False


@dataclass(frozen=True)
class IterValue:
    """An affine combination of iterators used as a value (cast to double if asked)."""

    expr: Aff
    as_double: bool


@dataclass(frozen=True)
class Binary:
    op: str  # + - * / %, or < > (an int 0 or 1: only in the pivot nest's if-free min), & | ^ (reduction nest)
    left: "Expr"
    right: "Expr"


@dataclass(frozen=True)
class Call:
    function: str  # sqrt, fabs, fmax, fmin
    args: tuple["Expr", ...]


@dataclass(frozen=True)
class Select:
    """`test ? then : otherwise`, a comparison of values choosing one of two values (the min
    of the pivot nest). The statement writes its target whatever the test gives: an ordinary
    statement (must-write), not a data guard."""

    test: "DataCompare"
    then: "Expr"
    otherwise: "Expr"


Expr = Union[Const, ArrayRef, ScalarRef, IterValue, Binary, Call, Select]


@dataclass(frozen=True)
class Assign:
    target: ArrayRef | ScalarRef
    op: str  # = += -= *=, or &= |= ^= (reduction nest)
    value: Expr
    via_local: str = ""  # C type of a block-local temporary the value goes through ('' = none)
    # With `via_local`, an update `X op= t` written as the thesis's three-address code writes it:
    # `tr = X op t; X = tr;` (the store a copy of its own temporary; only where X has t's type).
    store_copy: bool = False


@dataclass(frozen=True)
class Compare:
    lhs: Aff
    op: str  # < <= > >= ==
    rhs: Aff


@dataclass(frozen=True)
class ModEq:
    expr: Aff
    modulus: int
    remainder: int


Condition = Union[Compare, ModEq]


@dataclass(frozen=True)
class DataCompare:
    """A comparison of values (array elements, scalars) that is not affine: `A[i0] > 0.3`."""

    lhs: Expr
    op: str  # < <= > >= == !=
    rhs: Expr


@dataclass(frozen=True)
class Slot:
    """Placeholder for a statement while a nest is being built."""

    index: int


@dataclass(frozen=True)
class Loop:
    """`for (iterator = start; iterator op bound; iterator += step)`."""

    iterator: str
    start: Aff
    op: str  # < <= for positive steps, >= > for negative ones
    bound: Aff
    step: int
    body: tuple["Node", ...]
    independent: bool = False  # `#pragma pencil independent` before it (only where it is true)
    reduction: str = ""        # with `independent`: `reduction(<op>: <it>)`, the int scalar its updates reduce
    reduction_op: str = "+"    # the clause's operator: + | ^ &


@dataclass(frozen=True)
class Guard:
    conditions: tuple[Condition, ...]
    body: tuple["Node", ...]


@dataclass(frozen=True)
class DataGuard:
    """`if (c1 && c2) { then } else { otherwise }` where some condition reads values.

    Its branches hold statements and (affine or data) guards only, so pencilcc models it
    as one statement with may-writes. The enumeration treats both branches as executed
    whenever the guard is reached (a conservative superset of the instances)."""

    conditions: tuple[Union[Condition, DataCompare], ...]
    connective: str  # && or ||
    then: tuple["Node", ...]
    otherwise: tuple["Node", ...] = ()


@dataclass(frozen=True)
class Local:
    """`int name = value;` at the start of a loop body, never written again: an affine
    integer local, used by the statements and loops after it (subscripts, loop bounds)."""

    name: str
    value: Aff


@dataclass(frozen=True)
class Raw:
    """C lines run as written, opaque to this module's analyses (pencilcc models them as
    one opaque statement: clangpass.poly.extract). Only at the end of a program, where no
    later statement reads what they write; they keep values within the magnitudes they found."""

    lines: tuple[str, ...]


@dataclass(frozen=True)
class Kill:
    """`__pencil_kill(X);`: the values of array X are dead from here on (a PENCIL builtin; the
    program defines it as a no-op macro for other compilers). Nothing reads X's elements after
    it before writing them, and `main` never prints an array killed last (role 'scratch')."""

    array: str


@dataclass(frozen=True)
class Assume:
    """`__pencil_assume(n >= 5 && m >= 5);` at the start of the region: what every size the
    program is run with satisfies (`GenConfig.min_size`), so that pencilcc need not allow
    for empty or negative extents (value-style forms: a read of `X[n][i]` has a write)."""

    conditions: tuple[Compare, ...]


@dataclass(frozen=True)
class Block:
    """`{ double W[n][m]; ... }`: a block of the region that declares region-local arrays
    (`ArrayDecl.role == 'local'`, listed in `Program.arrays`, never passed nor printed)."""

    arrays: tuple[str, ...]
    body: tuple["Node", ...]


Node = Union[Loop, Guard, DataGuard, Local, Assign, Slot, Raw, Kill, Assume, Block]


@dataclass(frozen=True)
class ArrayDecl:
    name: str
    ctype: str  # double | int
    extents: tuple[tuple[str, int], ...]  # (size parameter, constant offset) per dimension
    init: tuple[int, ...]  # coefficient per dimension, then constant, then modulus
    #: 'caller': a kernel parameter `main` initialises and prints; 'scratch': a parameter whose
    #: values are killed at the end of the region (`Kill`), so `main` does not print it;
    #: 'local': declared by a `Block` of the region (neither passed nor printed)
    role: str = "caller"

    def extent_affs(self) -> tuple[Aff, ...]:
        return tuple(Aff.var(p, c) for p, c in self.extents)


@dataclass(frozen=True)
class ScalarDecl:
    name: str
    ctype: str
    role: str  # input (by value), temp (kernel local), output (by pointer)
    value: float | int  # input value, temporary's initial value, output's initial value


@dataclass(frozen=True)
class Program:
    seed: int
    params: tuple[tuple[str, int], ...]
    arrays: tuple[ArrayDecl, ...]
    scalars: tuple[ScalarDecl, ...]
    body: tuple[Node, ...]
    depth: int
    # (array, array passed in its place): kernel arguments that overlap, as the caller of a
    # plain-pointer function may make them (pencilcc must then run the original code)
    overlaps: tuple[tuple[str, str], ...] = ()
    helpers: tuple[str, ...] = ()     # C functions defined before the kernel (called by Raw lines)

    def sizes(self) -> dict[str, int]:
        return dict(self.params)

    def array(self, name: str) -> ArrayDecl:
        return next(a for a in self.arrays if a.name == name)


# ----------------------------------------------------------------------------
# Walking and enumerating
# ----------------------------------------------------------------------------

def children(node: Node) -> tuple[Node, ...]:
    """The nodes directly inside `node` (both branches of a data guard)."""
    if isinstance(node, (Loop, Guard, Block)):
        return node.body
    if isinstance(node, DataGuard):
        return node.then + node.otherwise
    return ()


def walk_nodes(nodes: Sequence[Node]) -> Iterator[Node]:
    """Every node, in textual order."""
    for node in nodes:
        yield node
        yield from walk_nodes(children(node))


def walk_statements(nodes: Sequence[Node]) -> Iterator[Assign | Slot]:
    """Statements (or slots) in textual order."""
    return (n for n in walk_nodes(nodes) if isinstance(n, (Assign, Slot)))


def walk_loops(nodes: Sequence[Node]) -> Iterator[Loop]:
    return (n for n in walk_nodes(nodes) if isinstance(n, Loop))


def walk_guards(nodes: Sequence[Node]) -> Iterator[Guard]:
    return (n for n in walk_nodes(nodes) if isinstance(n, Guard))


def walk_data_guards(nodes: Sequence[Node]) -> Iterator[DataGuard]:
    return (n for n in walk_nodes(nodes) if isinstance(n, DataGuard))


def condition_exprs(guard: DataGuard) -> Iterator[Expr]:
    """The value expressions a data guard's condition reads."""
    for cond in guard.conditions:
        if isinstance(cond, DataCompare):
            yield cond.lhs
            yield cond.rhs


def expr_nodes(expr: Expr) -> Iterator[Expr]:
    yield expr
    if isinstance(expr, Binary):
        yield from expr_nodes(expr.left)
        yield from expr_nodes(expr.right)
    elif isinstance(expr, Call):
        for arg in expr.args:
            yield from expr_nodes(arg)
    elif isinstance(expr, Select):
        for part in (expr.test.lhs, expr.test.rhs, expr.then, expr.otherwise):
            yield from expr_nodes(part)


def statement_accesses(stmt: Assign | DataGuard) -> Iterator[ArrayRef]:
    """The array accesses of a statement, or of a data guard's condition."""
    if isinstance(stmt, DataGuard):
        for expr in condition_exprs(stmt):
            yield from (n for n in expr_nodes(expr) if isinstance(n, ArrayRef))
        return
    if isinstance(stmt.target, ArrayRef):
        yield stmt.target
    for node in expr_nodes(stmt.value):
        if isinstance(node, ArrayRef):
            yield node


def _condition_holds(cond: Condition, env: Mapping[str, Value], size: int) -> np.ndarray:
    if isinstance(cond, ModEq):
        return np.fmod(cond.expr.evaluate(env, size), cond.modulus) == cond.remainder
    lhs, rhs = cond.lhs.evaluate(env, size), cond.rhs.evaluate(env, size)
    return {"<": lhs < rhs, "<=": lhs <= rhs, ">": lhs > rhs, ">=": lhs >= rhs,
            "==": lhs == rhs}[cond.op]


def _enumerate(nodes: Sequence[Node], env: dict[str, Value], size: int,
               visit: Callable[[Assign | Slot | DataGuard, dict[str, Value], int], None]) -> None:
    """Call `visit(statement, env, count)` with every statement's instances, vectorised.

    `env` maps the size parameters to ints and the enclosing iterators (and affine locals)
    to int64 arrays of length `count` (one entry per instance, C semantics of the loops and
    affine guards). A data guard is visited itself (its condition is evaluated at each
    instance reaching it), then both its branches as if each always ran: a superset of
    the instances, so the subscripts inside are checked whatever the values are.
    """
    for node in nodes:
        if isinstance(node, (Kill, Assume)):
            continue
        if isinstance(node, Block):
            _enumerate(node.body, env, size, visit)
        elif isinstance(node, Local):
            env = {**env, node.name: node.value.evaluate(env, size)}
        elif isinstance(node, DataGuard):
            visit(node, env, size)
            _enumerate(node.then + node.otherwise, env, size, visit)
        elif isinstance(node, Loop):
            start = node.start.evaluate(env, size)
            bound = node.bound.evaluate(env, size)
            if node.step > 0:
                last = bound - 1 if node.op == "<" else bound
                span = last - start
            else:
                last = bound + 1 if node.op == ">" else bound
                span = start - last
            counts = np.where(span >= 0, span // abs(node.step) + 1, 0)
            total = int(counts.sum())
            rows = np.repeat(np.arange(size), counts)
            offsets = np.arange(total) - np.repeat(np.cumsum(counts) - counts, counts)
            inner = {k: (v[rows] if isinstance(v, np.ndarray) else v) for k, v in env.items()}
            inner[node.iterator] = start[rows] + node.step * offsets
            if total:
                _enumerate(node.body, inner, total, visit)
        elif isinstance(node, Guard):
            mask = np.ones(size, dtype=bool)
            for cond in node.conditions:
                mask &= _condition_holds(cond, env, size)
            inner = {k: (v[mask] if isinstance(v, np.ndarray) else v) for k, v in env.items()}
            kept = int(mask.sum())
            if kept:
                _enumerate(node.body, inner, kept, visit)
        else:
            visit(node, env, size)


def instance_counts(nodes: Sequence[Node], sizes: Mapping[str, int]) -> dict[int, int]:
    """How many times each statement runs, keyed by `id()` of the statement (or slot).

    Statements under a data guard count as running whenever the guard is reached (an
    upper bound)."""
    counts: dict[int, int] = {}

    def visit(stmt: Assign | Slot | DataGuard, env: dict[str, Value], size: int) -> None:
        if not isinstance(stmt, DataGuard):
            counts[id(stmt)] = counts.get(id(stmt), 0) + size

    _enumerate(nodes, dict(sizes), 1, visit)
    return counts


def check_in_bounds(program: Program, sizes: Mapping[str, int] | None = None) -> list[str]:
    """Every out-of-bounds subscript of `program` for the given (default: its own) sizes.

    Enumerates all statement instances and evaluates every subscript of every access,
    so the answer is exact for those sizes.  An empty list means in bounds.  Under a data
    guard every statement is checked as if it ran (whatever the values are), as are the
    accesses of the guard's condition.
    """
    values = dict(program.sizes() if sizes is None else sizes)
    arrays = {a.name: a for a in program.arrays}
    problems: list[str] = []

    def visit(stmt: Assign | Slot | DataGuard, env: dict[str, Value], size: int) -> None:
        if not isinstance(stmt, (Assign, DataGuard)):
            return
        for access in statement_accesses(stmt):
            decl = arrays[access.array]
            if len(access.subscripts) != len(decl.extents):
                problems.append(f"{render_expr(access)}: wrong number of subscripts")
                continue
            for dim, (sub, extent) in enumerate(zip(access.subscripts, decl.extent_affs())):
                try:
                    index = np.asarray(sub.evaluate(env, size))
                except KeyError as exc:
                    problems.append(f"{render_expr(access)}: unbound variable {exc}")
                    continue
                limit = int(extent.evaluate(values))
                low, high = int(index.min()), int(index.max())
                if low < 0 or high >= limit:
                    where = render_statement(stmt) if isinstance(stmt, Assign) \
                        else f"if ({render_data_conditions(stmt)})"
                    problems.append(
                        f"{render_expr(access)} in `{where}`: subscript {dim} "
                        f"takes values in [{low}, {high}], extent {limit} (sizes {values})")

    _enumerate(program.body, values, 1, visit)
    return problems


# ----------------------------------------------------------------------------
# Rendering C
# ----------------------------------------------------------------------------

_PRECEDENCE = {"+": 12, "-": 12, "*": 13, "/": 13, "%": 13, "<": 10, ">": 10, "<=": 10, ">=": 10,
               "&": 8, "^": 7, "|": 6}   # bitwise: only in the reduction nest's updates
_BITWISE = ("&", "^", "|")
#: Above every binary operator: the context that puts any operation in parentheses.
_TIGHTEST = 20
#: Precedence of `c ? a : b` (below every binary operator used here).
_SELECT_PRECEDENCE = 3


def _render_const(const: Const) -> str:
    if const.ctype == "int":
        return str(int(const.value))
    text = repr(float(const.value))
    return text if ("." in text or "e" in text) else text + ".0"


def render_expr(expr: Expr, context: int = 0) -> str:
    """C text of `expr`; `context` is the precedence of the enclosing operator."""
    if isinstance(expr, Const):
        return _render_const(expr)
    if isinstance(expr, ArrayRef):
        return expr.array + "".join(f"[{s.render()}]" for s in expr.subscripts)
    if isinstance(expr, ScalarRef):
        return f"(*{expr.name})" if expr.pointer and context else (
            f"*{expr.name}" if expr.pointer else expr.name)
    if isinstance(expr, IterValue):
        inner = expr.expr.render()
        simple = expr.expr.terms in ((), ((expr.expr.terms[0][0], 1),)) \
            and not (expr.expr.terms and expr.expr.const)
        if not expr.as_double:
            return inner if simple or not context else f"({inner})"
        return f"(double){inner}" if simple else f"(double)({inner})"
    if isinstance(expr, Call):
        return f"{expr.function}({', '.join(render_expr(a) for a in expr.args)})"
    if isinstance(expr, Select):
        prec = _SELECT_PRECEDENCE + 1
        text = (f"{render_expr(expr.test.lhs, prec)} {expr.test.op} {render_expr(expr.test.rhs, prec)}"
                f" ? {render_expr(expr.then, prec)} : {render_expr(expr.otherwise, prec)}")
        return f"({text})" if context > _SELECT_PRECEDENCE else text
    prec = _PRECEDENCE[expr.op]
    if expr.op in _BITWISE:   # operands in parentheses, as gcc's -Wparentheses asks
        text = f"{render_expr(expr.left, _TIGHTEST)} {expr.op} {render_expr(expr.right, _TIGHTEST)}"
        return f"({text})" if context > prec else text
    text = f"{render_expr(expr.left, prec)} {expr.op} {render_expr(expr.right, prec + 1)}"
    return f"({text})" if context > prec else text


def render_statement(stmt: Assign) -> str:
    target = render_expr(stmt.target)
    if stmt.via_local:
        # Three-address style: the value goes through a temporary declared in the loop body,
        # of the value's own C type (so the program computes exactly the same thing).
        name = "td" if stmt.via_local == "double" else "ti"   # one name per type
        if stmt.store_copy:
            result = f"{name}r"
            return (f"{{ {stmt.via_local} {name} = {render_expr(stmt.value)}; {stmt.via_local} {result} = "
                    f"{target} {stmt.op[:-1]} {name}; {target} = {result}; }}")
        return f"{{ {stmt.via_local} {name} = {render_expr(stmt.value)}; {target} {stmt.op} {name}; }}"
    return f"{target} {stmt.op} {render_expr(stmt.value)};"


def render_condition(cond: Condition) -> str:
    if isinstance(cond, ModEq):
        inner = cond.expr.render()
        if len(cond.expr.terms) + bool(cond.expr.const) > 1:
            inner = f"({inner})"
        return f"{inner} % {cond.modulus} == {cond.remainder}"
    return f"{cond.lhs.render()} {cond.op} {cond.rhs.render()}"


def render_data_conditions(guard: DataGuard) -> str:
    parts = []
    for cond in guard.conditions:
        if isinstance(cond, DataCompare):
            # `%` binds tighter than comparisons: no parentheses needed (nor wanted by -Wparentheses)
            parts.append(f"{render_expr(cond.lhs)} {cond.op} {render_expr(cond.rhs)}")
        else:
            parts.append(render_condition(cond))
    return f" {guard.connective} ".join(parts)


def _render_nodes(nodes: Sequence[Node], indent: int, out: list[str],
                  speller: "_Speller | None" = None, program_arrays: Mapping[str, ArrayDecl] = {}) -> None:
    pad = "  " * indent
    for node in nodes:
        if isinstance(node, Assign):
            out.append(pad + (render_statement(node) if speller is None else speller.statement(node)))
        elif isinstance(node, Slot):
            out.append(pad + f"/* slot {node.index} */;")
        elif isinstance(node, Local):
            out.append(pad + f"int {node.name} = {node.value.render()};")
        elif isinstance(node, Raw):
            out.extend(pad + line for line in node.lines)
        elif isinstance(node, Kill):
            out.append(pad + f"__pencil_kill({node.array});")
        elif isinstance(node, Assume):
            out.append(pad + f"__pencil_assume({' && '.join(render_condition(c) for c in node.conditions)});")
        elif isinstance(node, Block):
            out.append(pad + "{")
            for name in node.arrays:
                decl = program_arrays[name]
                out.append(pad + f"  {decl.ctype} {name}{_decl_dims(decl)};")
            _render_nodes(node.body, indent + 1, out, speller, program_arrays)
            out.append(pad + "}")
        elif isinstance(node, DataGuard):
            # always braced: no dangling `else`, and the shape of a guarded statement's branches
            out.append(pad + f"if ({render_data_conditions(node)}) {{")
            _render_nodes(node.then, indent + 1, out, speller, program_arrays)
            if node.otherwise:
                out.append(pad + "} else {")
                _render_nodes(node.otherwise, indent + 1, out, speller, program_arrays)
            out.append(pad + "}")
        else:
            if isinstance(node, Loop):
                it = node.iterator
                if node.step == 1:
                    incr = f"{it}++"
                elif node.step == -1:
                    incr = f"{it}--"
                elif node.step > 0:
                    incr = f"{it} += {node.step}"
                else:
                    incr = f"{it} -= {-node.step}"
                head = (f"for ({it} = {node.start.render()}; {it} {node.op} "
                        f"{node.bound.render()}; {incr})")
                if speller is not None:
                    head = speller.loop_head(node, head)
            else:
                head = "if (" + " && ".join(render_condition(c) for c in node.conditions) + ")"
            if isinstance(node, Loop) and node.independent:
                out.append("#pragma pencil independent"
                           + (f" reduction({node.reduction_op}: {node.reduction})" if node.reduction else ""))
            if isinstance(node, Loop) and speller is not None:
                out.extend(speller.loop_pragmas(node))
            only = node.body[0] if len(node.body) == 1 else None
            if only is not None and not isinstance(only, (DataGuard, Raw)) \
                    and not (isinstance(only, Loop) and (only.independent or
                                                         speller is not None and speller.loop_pragmas(only))):
                out.append(pad + head)
                _render_nodes(node.body, indent + 1, out, speller, program_arrays)
            else:
                out.append(pad + head + " {")
                _render_nodes(node.body, indent + 1, out, speller, program_arrays)
                out.append(pad + "}")


#: Before the kernel of a program that kills arrays or assumes sizes (`Kill`, `Assume`).
_PENCIL_BUILTINS = (
    "#ifdef __PENCILCC__",
    "#include <pencil.h>",
    "#else",
    "#define __pencil_kill(x) ((void)sizeof(&(x)))",
    "#define __pencil_assume(e) ((void)sizeof((e) ? 1 : 0))",
    "#endif",
    "",
)


def _extent_text(param: str, offset: int) -> str:
    return Aff.var(param, offset).render()


def _decl_dims(decl: ArrayDecl) -> str:
    return "".join(f"[{_extent_text(p, c)}]" for p, c in decl.extents)


def _scalars_used(program: Program) -> set[str]:
    used: set[str] = set()
    for stmt in walk_statements(program.body):
        if isinstance(stmt, Assign):
            for node in (stmt.target, *expr_nodes(stmt.value)):
                if isinstance(node, ScalarRef):
                    used.add(node.name)
    return used | _condition_scalars(program.body)


def _condition_scalars(nodes: Sequence[Node]) -> set[str]:
    """Scalars read by the conditions of data guards."""
    return {n.name for g in walk_data_guards(nodes) for e in condition_exprs(g)
            for n in expr_nodes(e) if isinstance(n, ScalarRef)}


def _format_value(ctype: str, value: float | int) -> str:
    return str(int(value)) if ctype == "int" else _render_const(Const(value, "double"))


def render(program: Program, description: str = "", spelling: "Spelling | None" = None) -> str:
    """The complete C99 translation unit of `program`, written as `spelling` says (plain
    C without it: no macro, typedef, loop pragma or extra helper)."""
    params = [name for name, _ in program.params]
    inputs = [s for s in program.scalars if s.role == "input"]
    outputs = [s for s in program.scalars if s.role == "output"]
    used = _scalars_used(program)
    temps = [s for s in program.scalars if s.role == "temp" and s.name in used]
    speller = None if spelling is None else _Speller(spelling, program)

    lines = ["#include <stdio.h>", "#include <stdlib.h>", "#include <math.h>", ""]
    lines.append(f"/* pencilcc random differential test, seed {program.seed}"
                 + (f": {description}" if description else "") + " */")
    signature = [f"int {p}" for p in params]
    signature += [f"{s.ctype} {s.name}" for s in inputs]
    signature += [f"{s.ctype} *{s.name}" for s in outputs]
    passed = [a for a in program.arrays if a.role != "local"]
    signature += [f"{a.ctype} {a.name}{_decl_dims(a)}" if speller is None else speller.array_parameter(a)
                  for a in passed]
    marked = spelling is None or not spelling.no_scop
    body = ["#pragma scop"] if marked else []
    _render_nodes(program.body, 1, body, speller, {a.name: a for a in program.arrays})
    if marked:
        body.append("#pragma endscop")
    if any(isinstance(n, (Kill, Assume)) for n in walk_nodes(program.body)):
        # pencil.h declares the builtins for pencilcc (which defines __PENCILCC__ and finds the
        # header itself); for any other compiler they are the no-ops pencil.h defines them as.
        lines[4:4] = _PENCIL_BUILTINS
    if speller is not None:
        lines += speller.preamble()
    lines += list(program.helpers)
    if speller is not None:
        lines += speller.before_kernel()
    lines.append(f"static void kernel({', '.join(signature)})")
    lines.append("{")
    iterators = [f"i{k}" for k in range(max(program.depth, 1))]
    lines.append(f"  int {', '.join(iterators)};")
    for s in temps:
        lines.append(f"  {s.ctype} {s.name};")
    lines.append("")
    for s in temps:
        lines.append(f"  {s.name} = {_format_value(s.ctype, s.value)};")
    lines += body
    lines.append("}")
    lines.append("")

    # main
    max_dims = max(len(a.extents) for a in passed)
    lines += ["int main(void)", "{"]
    for name, value in program.params:
        lines.append(f"  int {name} = {value};")
    for s in inputs + outputs:
        lines.append(f"  {s.ctype} {s.name} = {_format_value(s.ctype, s.value)};")
    lines.append(f"  int {', '.join(f'i{k}' for k in range(max_dims))};")
    for a in passed:
        extents = [_extent_text(p, c) for p, c in a.extents]
        factors = " * ".join(f"({e})" if " " in e else e for e in extents)
        if len(extents) == 1:
            lines.append(f"  {a.ctype} *{a.name} = malloc(sizeof({a.ctype}) * {factors});")
        else:
            tail = "".join(f"[{e}]" for e in extents[1:])
            lines.append(f"  {a.ctype} (*{a.name}){tail} = malloc(sizeof({a.ctype}) * {factors});")
    lines.append("")

    def loops_over(a: ArrayDecl, body: str) -> list[str]:
        out = []
        for d, (p, c) in enumerate(a.extents):
            out.append("  " * (d + 1) + f"for (i{d} = 0; i{d} < {_extent_text(p, c)}; i{d}++)")
        out.append("  " * (len(a.extents) + 1) + body)
        return out

    for a in passed:
        element = a.name + "".join(f"[i{d}]" for d in range(len(a.extents)))
        *coeffs, const, modulus = a.init
        formula = " + ".join(f"{c} * i{d}" for d, c in enumerate(coeffs)) + f" + {const}"
        if a.ctype == "double":
            value = f"(double)(({formula}) % {modulus}) / {modulus}.0 - 0.5"
        else:
            value = f"({formula}) % {modulus} - {modulus // 2}"
        lines += loops_over(a, f"{element} = {value};")
    args = params + [s.name for s in inputs] + [f"&{s.name}" for s in outputs]
    overlapping = dict(program.overlaps)
    args += [overlapping.get(a.name, a.name) for a in passed]
    lines.append(f"  kernel({', '.join(args)});")
    for a in passed:
        if a.role == "scratch":     # its values were killed: the region need not leave any
            continue
        element = a.name + "".join(f"[i{d}]" for d in range(len(a.extents)))
        fmt = "%d" if a.ctype == "int" else "%.17g"
        lines.append(f'  printf("== {a.name}\\n");')
        lines += loops_over(a, f'printf("{fmt}\\n", {element});')
    for s in outputs:
        fmt = "%d" if s.ctype == "int" else "%.17g"
        lines.append(f'  printf("== {s.name}\\n{fmt}\\n", {s.name});')
    for a in passed:
        lines.append(f"  free({a.name});")
    lines += ["  return 0;", "}", ""]
    if speller is not None:
        lines += speller.after_main()
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Spelling: the same program written as real code writes it
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Spelling:
    """How a program's C text is written, never what it computes: the forms real code uses
    around a region (PolyBench's C99 declarator macros, `_PB_N`-style bounds, CLooG's
    statement macros `S1(i, j)`, typedef'd rows, loop pragmas, a helper of a type libclang's
    Python bindings do not know). Drawn by `draw_spelling` from a stream of its own (`spelling
    {seed}`), so a seed's program (`GeneratedProgram.program`) is the same whatever its
    spelling; which occurrences get a form is drawn at rendering (`spelling occurrences {seed}`)."""

    seed: int = 0
    declarator_macros: bool = False   # `double ARR2(A, n, m + 1)` (some array parameters)
    typedef_rows: bool = False        # `typedef double A_row_t[A_COLS];` and `A_row_t A[n]` or `A_row_t *A`
    bounds: str = ""                  # '' | 'object' (`PB_N`) | 'paste' (`BOUND(n)`, `CAT(BOUND_, n)`)
    for_macros: bool = False          # `FOR_UP(i0, 0, n)`, `FOR_DOWN(i0, n - 1, 0)` (some loops)
    statement_macros: bool = False    # `SET(x, v);`, `UPDATE(x, +, v);`, `S3(i0, i1);`, `S4;` (some statements)
    unknown_type: str = ""            # '' | 'before' (the kernel) | 'after' (main): a `_Float16` helper
    loop_pragmas: bool = False        # `#pragma GCC unroll 4` / `GCC ivdep` / `omp simd` (some loops)
    no_scop: bool = False             # no `#pragma scop` lines: built with -fpencil-detect (GenConfig.p_detect)

    def features(self) -> list[str]:
        """The description's names of the forms used."""
        names = [("declarator macros", self.declarator_macros), ("typedef rows", self.typedef_rows),
                 ("bound macros", bool(self.bounds)), ("for macros", self.for_macros),
                 ("statement macros", self.statement_macros), ("_Float16 helper", bool(self.unknown_type)),
                 ("loop pragmas", self.loop_pragmas), ("no scop pragmas", self.no_scop)]
        return [name for name, used in names if used]


#: Spelling forms that pencilcc does not handle yet (its regions fall back), with the probability
#: they get where they are on. Programs of the default configuration are built by tests outside
#: this folder that require them optimized (test_alias_checks.py) or read by clangpass's
#: selfcheck (test_selfcheck.py), so a pending form's GenConfig default is 0; SMALL (the pytest
#: differential run, where a fallback still passes) and `python -m test_suite.random` turn it on,
#: and test_random_programs.PENDING_XFAIL says why it falls back. Once pencilcc handles it, it
#: becomes a GenConfig default. Empty since 4fe4617 (the `_Float16` helper and loop pragmas were
#: pending until then: the file, or the region, fell back).
PENDING_FORMS: dict[str, float] = {}


def with_pending_forms(config: GenConfig) -> GenConfig:
    return replace(config, **PENDING_FORMS)


def without_pending_forms(config: GenConfig) -> GenConfig:
    """For tests that need every region optimized."""
    return replace(config, **{name: 0.0 for name in PENDING_FORMS})


def plain(config: GenConfig) -> GenConfig:
    """`config` with every spelling form off: the same programs, in plain C (with their scop
    pragmas, so built without -fpencil-detect)."""
    return replace(config, p_declarator_macros=0.0, p_typedef_rows=0.0, p_bound_macros=0.0,
                   p_for_macros=0.0, p_statement_macros=0.0, p_unknown_type=0.0, p_loop_pragmas=0.0,
                   p_detect=0.0)


def draw_spelling(seed: int, config: GenConfig) -> Spelling:
    """The spelling of seed `seed`: each form with its probability of `config` (all drawn, in a
    fixed order, whatever the probabilities, so that one knob changes no other form's draw)."""
    rng = random.Random(f"spelling {seed}")
    rolls = [rng.random() for _ in range(7)]
    bounds = rng.choice(("object", "paste"))
    where = rng.choice(("before", "after"))
    # Its own stream: turning it on changes no other form's draw.
    no_scop = random.Random(f"detect {seed}").random() < config.p_detect
    return Spelling(seed=seed, no_scop=no_scop,
                    declarator_macros=rolls[0] < config.p_declarator_macros,
                    typedef_rows=rolls[1] < config.p_typedef_rows,
                    bounds=bounds if rolls[2] < config.p_bound_macros else "",
                    for_macros=rolls[3] < config.p_for_macros,
                    statement_macros=rolls[4] < config.p_statement_macros,
                    unknown_type=where if rolls[5] < config.p_unknown_type else "",
                    loop_pragmas=rolls[6] < config.p_loop_pragmas)


_DECLARATOR_MACROS = (
    "#define CAT(a, b) a##b",
    "#define PAREN(x) (x)",
    "#define ARR1(name, d1) name[PAREN(d1)]",
    "#define ARR2(name, d1, d2) name[d1 + 0][d2 + 0]",
    "#define ARR3(name, d1, d2, d3) name[(d1)][d2 + 0][PAREN(d3)]",
)
_FOR_MACROS = (
    "#define FOR_UP(i, lo, hi) for (i = lo; i < hi; i++)",
    "#define FOR_DOWN(i, hi, lo) for (i = hi; i >= lo; i--)",
)
_STATEMENT_MACROS = (
    "#define ASSIGN_(lhs, op, rhs) lhs op (rhs)",
    "#define SET(lhs, rhs) ASSIGN_(lhs, =, rhs)",
    "#define UPDATE(lhs, op, rhs) ASSIGN_(lhs, op##=, rhs)",
)
#: Unused by the program; non-static, so that -Wunused-function has nothing to say.
_HALF_HELPER = ("_Float16 half_blend(_Float16 x, _Float16 y);",
                "_Float16 half_blend(_Float16 x, _Float16 y)", "{",
                "  return (_Float16)0.5f * x + y;", "}", "")


class _Speller:
    """Writes one program as its `Spelling` says; per-occurrence choices from a stream of its own."""

    def __init__(self, spelling: Spelling, program: Program) -> None:
        self.spelling = spelling
        self.program = program
        self.rng = random.Random(f"spelling occurrences {spelling.seed}")
        self.typedefs: list[str] = []
        self.statement_defs: list[str] = []
        self.pragmas: dict[int, list[str]] = {}

    def _names(self) -> dict[str, str] | None:
        """How the size parameters are written (None: as themselves), drawn per occurrence."""
        if not self.spelling.bounds or self.rng.random() >= 0.7:
            return None
        if self.spelling.bounds == "object":
            return {p: f"PB_{p.upper()}" for p, _ in self.program.params}
        return {p: f"BOUND({p})" for p, _ in self.program.params}

    def preamble(self) -> list[str]:
        sp, out = self.spelling, []
        if sp.declarator_macros or sp.bounds == "paste":
            out += _DECLARATOR_MACROS
        if sp.bounds == "object":
            out += [f"#define PB_{p.upper()} {p}" for p, _ in self.program.params]
        elif sp.bounds == "paste":
            out += ["#define BOUND(x) CAT(BOUND_, x)"] + [f"#define BOUND_{p} {p}" for p, _ in self.program.params]
        if sp.for_macros:
            out += _FOR_MACROS
        if sp.statement_macros:
            out += _STATEMENT_MACROS
        out += self.typedefs
        return out + [""] if out else []

    def before_kernel(self) -> list[str]:
        out = list(_HALF_HELPER) if self.spelling.unknown_type == "before" else []
        return out + self.statement_defs + ([""] if self.statement_defs else [])

    def after_main(self) -> list[str]:
        return list(_HALF_HELPER) if self.spelling.unknown_type == "after" else []

    def array_parameter(self, a: ArrayDecl) -> str:
        names = self._names()
        extents = [Aff.var(p, c).render(names) for p, c in a.extents]
        if self.spelling.typedef_rows and len(a.extents) >= 2 and self.rng.random() < 0.6:
            sizes = self.program.sizes()
            inner = [sizes[p] + c for p, c in a.extents[1:]]
            consts = [f"{a.name}_COLS"] if len(inner) == 1 else [f"{a.name}_DIM{k + 1}" for k in range(len(inner))]
            kind = "row" if len(inner) == 1 else "plane"
            self.typedefs += [f"#define {c} {v}" for c, v in zip(consts, inner)]
            self.typedefs.append(f"typedef {a.ctype} {a.name}_{kind}_t{''.join(f'[{c}]' for c in consts)};")
            if self.rng.random() < 0.5:
                return f"{a.name}_{kind}_t *{a.name}"
            return f"{a.name}_{kind}_t {a.name}[{extents[0]}]"
        if self.spelling.declarator_macros and self.rng.random() < 0.75:
            return f"{a.ctype} ARR{len(extents)}({a.name}, {', '.join(extents)})"
        return f"{a.ctype} {a.name}{''.join(f'[{e}]' for e in extents)}"

    def loop_head(self, loop: Loop, head: str) -> str:
        names = self._names()
        start, bound = loop.start.render(names), loop.bound.render(names)
        it = loop.iterator
        if self.spelling.for_macros and self.rng.random() < 0.5:
            if loop.step == 1 and loop.op == "<":
                return f"FOR_UP({it}, {start}, {bound})"
            if loop.step == -1 and loop.op == ">=":
                return f"FOR_DOWN({it}, {start}, {bound})"
        return head if names is None else head.replace(
            f"{it} = {loop.start.render()}; {it} {loop.op} {loop.bound.render()};",
            f"{it} = {start}; {it} {loop.op} {bound};")

    def loop_pragmas(self, loop: Loop) -> list[str]:
        """The pragma lines before `loop` (drawn once per loop). `ivdep` and `omp simd` assert
        that iterations are independent: only where `provably_independent` vouches for it, no
        opaque code is inside, and no arguments overlap (aliasing would make them false)."""
        if id(loop) in self.pragmas:
            return self.pragmas[id(loop)]
        lines: list[str] = []
        if self.spelling.loop_pragmas and self.rng.random() < 0.35:
            options = ["#pragma GCC unroll 4"]
            if provably_independent(loop) and not self.program.overlaps \
                    and not any(isinstance(n, Raw) for n in walk_nodes(loop.body)):
                options += ["#pragma GCC ivdep", "#pragma omp simd"]
            lines.append(self.rng.choice(options))
        self.pragmas[id(loop)] = lines
        return lines

    def statement(self, stmt: Assign) -> str:
        text = render_statement(stmt)
        if not self.spelling.statement_macros or stmt.via_local:
            return text
        roll = self.rng.random()
        if roll < 0.3:
            value = render_expr(stmt.value)
            target = render_expr(stmt.target)
            if stmt.op == "=":
                return f"SET({target}, {value});"
            return f"UPDATE({target}, {stmt.op[:-1]}, {value});"
        if roll < 0.55:
            # CLooG's and Pluto's statement macros: `#define S3(c0, c1) A[c0][c1] = ...`, or
            # an object-like `#define S3 A[i0][i1] = ...` (it names the iterators in scope)
            name = f"S{len(self.statement_defs)}"
            body = text[:-1]
            if roll < 0.45:
                iterators = sorted(set(re.findall(r"\bi(\d)\b", body)))
                params = ", ".join(f"c{k}" for k in iterators)
                renamed = re.sub(r"\bi(\d)\b", r"c\1", body)
                self.statement_defs.append(f"#define {name}({params}) {renamed}")
                return f"{name}({', '.join(f'i{k}' for k in iterators)});"
            self.statement_defs.append(f"#define {name} {body}")
            return f"{name};"
        return text


# ----------------------------------------------------------------------------
# Magnitude analysis
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class Mag:
    """|value| <= lin * M + const, M being the running bound of the nest's carried values."""

    lin: float
    const: float

    def __add__(self, other: "Mag") -> "Mag":
        return Mag(self.lin + other.lin, self.const + other.const)

    def scaled(self, k: float) -> "Mag":
        return Mag(self.lin * abs(k), self.const * abs(k))


def _mag(expr: Expr, lookup: Callable[[Expr], Mag]) -> Mag | None:
    """Symbolic bound of `expr`; None when it multiplies two carried values."""
    if isinstance(expr, (ArrayRef, ScalarRef, IterValue)):
        return lookup(expr)
    if isinstance(expr, Const):
        return Mag(0.0, abs(float(expr.value)))
    if isinstance(expr, Call):
        args = [_mag(a, lookup) for a in expr.args]
        if any(a is None for a in args):
            return None
        if expr.function == "sqrt":
            (a,) = args
            return Mag(a.lin, a.const + 1.0) if a.lin else Mag(0.0, math.sqrt(a.const))
        if expr.function == "fabs":
            return args[0]
        return Mag(max(a.lin for a in args), max(a.const for a in args))
    if isinstance(expr, Select):
        parts = [_mag(e, lookup) for e in (expr.test.lhs, expr.test.rhs, expr.then, expr.otherwise)]
        if any(p is None for p in parts):
            return None
        return Mag(max(parts[2].lin, parts[3].lin), max(parts[2].const, parts[3].const))  # type: ignore[union-attr]
    left, right = _mag(expr.left, lookup), _mag(expr.right, lookup)
    if left is None or right is None:
        return None
    if expr.op in ("<", ">", "<=", ">="):
        return Mag(0.0, 1.0)
    if expr.op in "+-":
        return left + right
    if expr.op == "*":
        if left.lin and right.lin:
            return None
        return Mag(left.lin * right.const + right.lin * left.const, left.const * right.const)
    if expr.op == "/":
        return left.scaled(1.0 / float(expr.right.value))  # type: ignore[union-attr]
    # "%": |a % k| < k and |a % k| <= |a|
    bound = float(expr.right.value) - 1  # type: ignore[union-attr]
    return Mag(0.0, bound if left.lin else min(bound, left.const))


def _int_overflow_free(expr: Expr, lookup: Callable[[Expr], float],
                       ctype_of: Callable[[Expr], str]) -> bool:
    """True when no int-typed subexpression can exceed INT_LIMIT in magnitude."""
    def bound(e: Expr) -> float:
        if isinstance(e, (ArrayRef, ScalarRef, IterValue)):
            b = lookup(e)
        elif isinstance(e, Const):
            b = abs(float(e.value))
        elif isinstance(e, Call):
            args = [bound(a) for a in e.args]
            b = math.sqrt(args[0]) if e.function == "sqrt" else max(args)
        elif isinstance(e, Select):
            bound(e.test.lhs)
            bound(e.test.rhs)
            b = max(bound(e.then), bound(e.otherwise))
        else:
            left, right = bound(e.left), bound(e.right)
            if e.op in ("<", ">", "<=", ">="):
                b = 1.0
            elif e.op in "+-":
                b = left + right
            elif e.op == "*":
                b = left * right
            elif e.op == "/":
                b = left / abs(float(e.right.value))  # type: ignore[union-attr]
            else:
                b = min(left, abs(float(e.right.value)) - 1)  # type: ignore[union-attr]
        if ctype_of(e) == "int" and b > INT_LIMIT:
            raise OverflowError
        return b

    try:
        bound(expr)
    except OverflowError:
        return False
    return True


# ----------------------------------------------------------------------------
# The generator
# ----------------------------------------------------------------------------

@dataclass(frozen=True)
class _Form:
    """An affine form known to lie in [lo, param + hi] wherever it is in scope."""

    expr: Aff
    lo: int
    param: str
    hi: int
    weight: float


@dataclass(frozen=True)
class _Scope:
    iterators: tuple[str, ...] = ()
    forms: tuple[_Form, ...] = ()
    locals: tuple[str, ...] = ()  # affine integer locals declared by enclosing loop bodies

    def iterator_form(self, name: str) -> _Form:
        """The hull of an iterator (or of an affine local)."""
        return next(f for f in self.forms if f.expr == Aff.var(name))

    def extended(self, iterator: str | None, forms: Sequence[_Form],
                 local: str | None = None) -> "_Scope":
        its = self.iterators + ((iterator,) if iterator else ())
        return _Scope(its, self.forms + tuple(forms), self.locals + ((local,) if local else ()))


@dataclass
class _SlotInfo:
    index: int
    scope: _Scope
    forced_target: str | None = None
    forced_op: str | None = None
    must_read: str | None = None
    target: ArrayRef | ScalarRef | None = None
    op: str = "="
    value: Expr | None = None


class _Retry(Exception):
    """A nest attempt broke a magnitude or overflow budget; try again."""


#: Small programs for tests that build every program with pencilcc (pending spelling forms on).
SMALL = GenConfig(max_size=14, max_array_elements=1024, p_detect=0.1, p_emit_c=0.1, **PENDING_FORMS)

_DOUBLE_CONSTANTS = (0.5, 0.25, 0.75, 1.5, 2.0, 3.0, 0.125, 0.1, 1.25)
#: What data guards compare double values with (values start in [-0.5, 0.5)).
_THRESHOLDS = (0.3, -0.2, 0.15, 0.45, -0.35, 0.05, 0.1, -0.1)
_DIVISORS = (2.0, 3.0, 4.0, 5.0, 7.0)
_ARRAY_NAMES = ("A", "B", "C", "D", "E")
_PARAM_NAMES = ("n", "m", "p")


class _Builder:
    def __init__(self, seed: int, config: GenConfig) -> None:
        self.seed = seed
        self.config = config
        self.rng = random.Random(seed)
        self.sizes: dict[str, int] = {}
        self.arrays: list[ArrayDecl] = []
        self.scalars: list[ScalarDecl] = []
        self.bounds: dict[str, float] = {}  # magnitude bound of each array / scalar
        self.next_slot = 0
        self.features: set[str] = set()
        # Whether to add a data guard, an affine local or an independent pragma is drawn from a
        # stream of its own, so that a program that gets none mostly is the program this seed
        # gave before they existed (not when an affine local was drawn but then unused).
        self.extra = random.Random(f"constructs {seed}")
        self.extras_allowed = True
        self.plain_slots: set[int] = set()  # slots under a data guard: no block-local temporary
        self.value_arrays: set[str] = set()  # arrays the value-style forms write or kill: never overlapping
        self.value_made: set[str] = set()    # the arrays of their own the value-style forms declared

    # -- declarations --------------------------------------------------------

    def declare(self) -> None:
        cfg, rng = self.config, self.rng
        params = list(_PARAM_NAMES[: rng.randint(1, cfg.max_params)])
        count = rng.randint(cfg.min_arrays, cfg.max_arrays)
        for k in range(count):
            is_int = k > 0 and rng.random() < cfg.p_int_array
            dims = rng.randint(1, cfg.max_array_dims)
            extents = []
            for _ in range(dims):
                offset = rng.choices((0, 1, 2), weights=(0.8, 0.15, 0.05))[0]
                extents.append((rng.choice(params), offset))
            init = tuple(rng.randint(1, 13) for _ in range(dims)) + (
                rng.randint(0, 10), rng.choice((17, 19, 23, 29)))
            ctype = "int" if is_int else "double"
            self.arrays.append(ArrayDecl(_ARRAY_NAMES[k], ctype, tuple(extents), init))
            self.bounds[_ARRAY_NAMES[k]] = float(init[-1] // 2 + 1) if is_int else 1.0
        sizes = {p: rng.randint(cfg.min_size, cfg.max_size) for p in params}
        while True:
            over = [a for a in self.arrays
                    if math.prod(sizes[p] + c for p, c in a.extents) > cfg.max_array_elements]
            if not over:
                break
            largest = max((p for p, _ in over[0].extents), key=lambda p: (sizes[p], p))
            if sizes[largest] <= cfg.min_size:
                break
            sizes[largest] -= 1
        self.sizes = sizes

        for k in range(rng.randint(1, 2)):
            if k == 1 and rng.random() < 0.4:
                self.scalars.append(ScalarDecl(f"s{k}", "int", "input", rng.randint(1, 5)))
            else:
                value = rng.choice((0.5, 0.75, -0.25, 0.3, -0.6, 0.9))
                self.scalars.append(ScalarDecl(f"s{k}", "double", "input", value))
        for k in range(2):
            if rng.random() < cfg.p_scalar:
                if rng.random() < 0.75:
                    self.scalars.append(ScalarDecl(f"t{k}", "double", "temp",
                                                   rng.choice((0.0, 0.5, 1.0))))
                elif any(a.ctype == "int" for a in self.arrays):
                    self.scalars.append(ScalarDecl(f"k{k}", "int", "temp", rng.randint(0, 3)))
        if rng.random() < cfg.p_pointer_scalar:
            self.scalars.append(ScalarDecl("r0", "double", "output", 0.0))
        for s in self.scalars:
            self.bounds[s.name] = abs(float(s.value))

    def ctype_of(self, expr: Expr) -> str:
        if isinstance(expr, Const):
            return expr.ctype
        if isinstance(expr, ArrayRef):
            return next(a.ctype for a in self.arrays if a.name == expr.array)
        if isinstance(expr, ScalarRef):
            return next(s.ctype for s in self.scalars if s.name == expr.name)
        if isinstance(expr, IterValue):
            return "double" if expr.as_double else "int"
        if isinstance(expr, Call):
            return "double"
        if isinstance(expr, Select):
            expr = Binary("+", expr.then, expr.otherwise)   # the usual arithmetic conversions
        elif expr.op in ("<", ">", "<=", ">="):
            return "int"
        if "double" in (self.ctype_of(expr.left), self.ctype_of(expr.right)):
            return "double"
        return "int"

    def scalar(self, name: str) -> ScalarDecl:
        return next(s for s in self.scalars if s.name == name)

    # -- loops and guards ----------------------------------------------------

    def loop_header(self, level: int, scope: _Scope, preferred: str | None
                    ) -> tuple[str, Aff, str, Aff, int, list[_Form]]:
        """(iterator, start, op, bound, step, forms) of a new loop at `level`."""
        rng, cfg = self.rng, self.config
        it = f"i{level}"
        params = list(self.sizes)
        param = preferred if preferred and rng.random() < 0.75 else rng.choice(params)
        outer = rng.choice(scope.iterators) if scope.iterators else None
        kind = "rect"
        if outer is not None and rng.random() < cfg.p_triangular:
            kind = rng.choice(("lower", "lower", "upper", "upper", "window"))
        if scope.locals and self.extra.random() < 0.5:
            kind = "local"
        lo_c = rng.choices((0, 1, 2), weights=(0.7, 0.2, 0.1))[0]
        margin = rng.choices((0, 1, 2), weights=(0.6, 0.25, 0.15))[0]
        forms: list[_Form] = []
        if kind == "rect":
            low, high = Aff(const=lo_c), Aff.var(param, -1 - margin)
            form = _Form(Aff.var(it), lo_c, param, -1 - margin, 3.0)
        elif kind == "lower":  # it from outer + d up to param - 1 - margin
            of = scope.iterator_form(outer)
            d = rng.choice((0, 1))
            low, high = Aff.var(outer, d), Aff.var(param, -1 - margin)
            form = _Form(Aff.var(it), of.lo + d, param, -1 - margin, 3.0)
            forms.append(_Form(Aff.of((it, 1), (outer, -1)), d, param, -1 - margin - of.lo, 1.0))
            self.features.add("triangular")
        elif kind == "upper":  # it from lo_c up to outer - d
            of = scope.iterator_form(outer)
            d = rng.choice((0, 1))
            low, high = Aff(const=lo_c), Aff.var(outer, -d)
            form = _Form(Aff.var(it), lo_c, of.param, of.hi - d, 3.0)
            forms.append(_Form(Aff.of((outer, 1), (it, -1)), d, of.param, of.hi - lo_c, 1.0))
            self.features.add("triangular")
        elif kind == "local":  # it from lo_c up to an affine local j (`i2 <= j1`)
            name = rng.choice(scope.locals)
            lf = scope.iterator_form(name)
            low, high = Aff(const=lo_c), Aff.var(name)
            form = _Form(Aff.var(it), lo_c, lf.param, lf.hi, 3.0)
            forms.append(_Form(Aff.of((name, 1), (it, -1)), 0, lf.param, lf.hi - lo_c, 1.0))
        else:  # window: it from outer to outer + w
            of = scope.iterator_form(outer)
            w = rng.choice((1, 2))
            low, high = Aff.var(outer), Aff.var(outer, w)
            form = _Form(Aff.var(it), of.lo, of.param, of.hi + w, 3.0)
            self.features.add("window")
        forms.insert(0, form)
        # reversed iterator: param - 1 - it lies in [-1 - hi, param - 1 - lo]
        if form.hi <= -1:
            forms.append(_Form(Aff.of((form.param, 1), (it, -1), const=-1), -1 - form.hi,
                               form.param, -1 - form.lo, 0.5))
        step = 2 if rng.random() < cfg.p_step2 else 1
        if step == 2:
            self.features.add("step2")
        if rng.random() < cfg.p_decreasing:
            self.features.add("decreasing")
            op = ">=" if rng.random() < 0.7 else ">"
            return it, high, op, (low if op == ">=" else low + (-1)), -step, forms
        op = "<" if rng.random() < 0.7 else "<="
        return it, low, op, (high + 1 if op == "<" else high), step, forms

    def guard(self, scope: _Scope) -> tuple[tuple[Condition, ...], list[_Form]] | None:
        """Random affine guard conditions over `scope`, and the forms they bound."""
        rng = self.rng
        if not scope.iterators or rng.random() >= self.config.p_guard:
            return None
        self.features.add("guard")
        conds: list[Condition] = []
        forms: list[_Form] = []
        for _ in range(2 if rng.random() < 0.3 else 1):
            its = scope.iterators
            a = rng.choice(its)
            fa = scope.iterator_form(a)
            kind = rng.choice(("mod", "cmp", "diag", "diag"))
            partners = [b for b in its if b != a and scope.iterator_form(b).param == fa.param
                        and scope.iterator_form(b).lo >= 0]
            if kind == "diag" and partners and fa.lo >= 0:
                b = rng.choice(partners)
                fb = scope.iterator_form(b)
                k = rng.choice((0, 1, 2))
                sum_aff = Aff.of((a, 1), (b, 1))
                conds.append(Compare(sum_aff, "<", Aff.var(fa.param, -k)))
                forms.append(_Form(sum_aff, fa.lo + fb.lo, fa.param, -1 - k, 2.0))
                self.features.add("diagonal")
            elif kind == "mod" or len(its) == 1 and rng.random() < 0.5:
                expr = Aff.var(a)
                if len(its) > 1 and rng.random() < 0.3:
                    expr = Aff.of((a, 1), (rng.choice([b for b in its if b != a]), 1))
                modulus = rng.choice((2, 2, 3))
                conds.append(ModEq(expr, modulus, rng.randrange(modulus)))
            else:
                others = [b for b in its if b != a]
                choice = rng.random()
                if others and choice < 0.5:
                    conds.append(Compare(Aff.var(a), rng.choice((">=", ">", "<=", "<")),
                                         Aff.var(rng.choice(others), rng.choice((0, 1, -1)))))
                elif choice < 0.75:
                    conds.append(Compare(Aff.var(a), rng.choice((">", ">=")),
                                         Aff(const=rng.randint(1, 3))))
                else:
                    conds.append(Compare(Aff.var(a), rng.choice(("<", "<=")),
                                         Aff.var(fa.param, -rng.randint(1, 3))))
        return tuple(conds), forms

    def data_guard(self, scope: _Scope, left: int, slots: list[_SlotInfo],
                   data_depth: int) -> DataGuard:
        """`if (A[i0][i1] > 0.3) { ... } else { ... }` around 1-2 statements (and maybe an else
        with one): pencilcc models it as one statement whose writes are may-writes."""
        rng = self.rng
        first = self.next_slot
        take = 2 if left >= 2 and rng.random() < 0.3 else 1
        then = self.statements(scope, take, slots, data_depth + 1)
        otherwise = self.statements(scope, 1, slots, data_depth + 1) if rng.random() < 0.4 else []
        # a declaration in a branch would make the `if` fall back: no block-local temporaries
        self.plain_slots.update(range(first, self.next_slot))
        conds: list[Condition | DataCompare] = [self.data_compare(scope)]
        connective = "&&"
        roll = rng.random()
        if roll < 0.2:
            conds.append(self.data_compare(scope))
            connective = rng.choice(("&&", "&&", "||"))
        elif roll < 0.35:  # an affine test too: `i1 > 2 && A[i1] > 0.3`
            a = rng.choice(scope.iterators)
            affine: Condition = ModEq(Aff.var(a), 2, rng.randrange(2)) if rng.random() < 0.5 \
                else Compare(Aff.var(a), rng.choice((">", ">=")), Aff(const=rng.randint(1, 3)))
            conds.insert(rng.randrange(2), affine)
        return DataGuard(tuple(conds), connective, tuple(then), tuple(otherwise))

    def data_compare(self, scope: _Scope) -> DataCompare:
        """A comparison that reads values: an element or a double scalar against a constant,
        an int element's remainder, or two elements of the same type."""
        rng = self.rng
        doubles = [a for a in self.arrays if a.ctype == "double"]
        ints = [a for a in self.arrays if a.ctype == "int"]
        dscalars = [s for s in self.scalars if s.ctype == "double" and s.role != "output"]

        def element(arrays: Sequence[ArrayDecl]) -> ArrayRef:
            return self.access(scope, self.pick_from(scope, arrays))

        def order() -> str:
            return rng.choice(("<", "<=", ">", ">="))

        def threshold() -> Const:
            return Const(rng.choice(_THRESHOLDS), "double")

        def int_test() -> DataCompare:
            ref = element(ints)
            if rng.random() < 0.5:
                k = rng.choice((2, 3))
                return DataCompare(Binary("%", ref, Const(k, "int")), rng.choice(("==", "!=")),
                                   Const(rng.randrange(k), "int"))
            return DataCompare(ref, order(), Const(rng.randint(-3, 3), "int"))

        def pair() -> DataCompare:
            arrays = ints if ints and rng.random() < 0.3 else doubles
            first, second = element(arrays), element(arrays)
            if first == second:  # `A[i0] <= A[i0]` draws -Wtautological-compare
                return DataCompare(first, order(), threshold() if first.array not in
                                   {a.name for a in ints} else Const(rng.randint(-3, 3), "int"))
            return DataCompare(first, order(), second)

        choices: list[tuple[float, Callable[[], DataCompare]]] = [
            (4.0, lambda: DataCompare(element(doubles), order(), threshold())),
            (1.0, pair)]
        if ints:
            choices.append((2.5, int_test))
        if dscalars:
            choices.append((1.0, lambda: DataCompare(
                ScalarRef(rng.choice(dscalars).name), order(), threshold())))
            choices.append((1.0, lambda: DataCompare(
                element(doubles), order(), ScalarRef(rng.choice(dscalars).name))))
        return rng.choices([c[1] for c in choices], weights=[c[0] for c in choices])[0]()

    def affine_local(self, level: int, scope: _Scope) -> tuple[Local, _Form] | None:
        """Sometimes `int j<level> = <affine form in scope> [+ c];` for the start of a loop
        body, with the form's hull (so subscripts and inner loop bounds may use it)."""
        if not self.extras_allowed or self.extra.random() >= self.config.p_affine_local:
            return None
        rng = self.rng
        options: list[tuple[float, _Form]] = []
        for f in scope.forms:
            options.append((3.0 if len(f.expr.terms) > 1 else 1.0, f))
        for p in self.sizes:  # `int j0 = n - 2;`
            options.append((0.7, _Form(Aff.var(p), self.config.min_size, p, 0, 0.0)))
        form = rng.choices([o[1] for o in options], weights=[o[0] for o in options])[0]
        if len(form.expr.terms) > 1:
            shift = rng.choice((0, 0, 1, -1))
        elif form.expr.terms[0][0] in self.sizes:
            shift = rng.choice((-1, -2))
        else:
            shift = rng.choice((1, -1, 2))
        name = f"j{level}"
        local = Local(name, form.expr + shift)
        return local, _Form(Aff.var(name), form.lo + shift, form.param, form.hi + shift, 4.0)

    def new_slot(self, scope: _Scope, slots: list[_SlotInfo], **hints: str) -> Slot:
        info = _SlotInfo(self.next_slot, scope, **hints)
        self.next_slot += 1
        slots.append(info)
        return Slot(info.index)

    def statements(self, scope: _Scope, count: int, slots: list[_SlotInfo],
                   data_depth: int = 0) -> list[Node]:
        """`count` statement slots, some of them in guards (affine, or data-dependent)."""
        items: list[Node] = []
        left = count
        while left:
            p_data = self.config.p_data_guard * (0.3 if data_depth else 1.0)
            if scope.iterators and self.extras_allowed and data_depth < 2 \
                    and self.extra.random() < p_data:
                items.append(self.data_guard(scope, left, slots, data_depth))
                left -= min(left, len(list(walk_statements(items[-1:]))))
                continue
            guarded = self.guard(scope)
            if guarded is None:
                items.append(self.new_slot(scope, slots))
                left -= 1
            else:
                conds, forms = guarded
                inner = scope.extended(None, forms)
                take = 2 if left >= 2 and self.rng.random() < 0.3 else 1
                items.append(Guard(conds, tuple(self.new_slot(inner, slots) for _ in range(take))))
                left -= take
        return items

    def loop(self, level: int, depth: int, budget: int, scope: _Scope,
             plan: Sequence[str], slots: list[_SlotInfo]) -> Node:
        """A loop at `level` whose subtree holds `budget` statements and reaches `depth`."""
        rng = self.rng
        preferred = plan[level] if level < len(plan) else None
        it, start, op, bound, step, forms = self.loop_header(level, scope, preferred)
        inner = scope.extended(it, forms)
        declared = self.affine_local(level, inner)
        if declared is not None:
            inner = inner.extended(None, [declared[1]], declared[0].name)
        if level == depth - 1:
            body = self.statements(inner, budget, slots)
        else:
            children = 2 if budget >= 3 and rng.random() < 0.25 else 1
            local = rng.randint(0, budget - children) if rng.random() < 0.5 else 0
            shares = [1] * children
            for _ in range(budget - local - children):
                shares[rng.randrange(children)] += 1
            body = []
            for k, share in enumerate(shares):
                child_depth = depth if k == 0 else rng.randint(level + 2, depth)
                child_scope = inner
                guarded = self.guard(inner) if rng.random() < 0.5 else None
                if guarded is not None:
                    child_scope = inner.extended(None, guarded[1])
                child = self.loop(level + 1, child_depth, share, child_scope, plan, slots)
                body.append(Guard(guarded[0], (child,)) if guarded else child)
            if local:
                before = rng.randint(0, local)
                body = (self.statements(inner, before, slots) + body
                        + self.statements(inner, local - before, slots))
        if declared is not None:
            body.insert(0, declared[0])  # dropped again if nothing uses it (see `substitute`)
        return Loop(it, start, op, bound, step, tuple(body))

    def reduction_nest(self, depth: int, plan: Sequence[str], temp: ScalarDecl,
                       slots: list[_SlotInfo]) -> Node:
        """`for i { t = e; for j t += f; X[i..] = g(t); }`, inside an outer loop if depth 3."""
        level = 1 if depth == 3 else 0
        outer_scope = _Scope()
        outer_header = None
        if level:
            outer_header = self.loop_header(0, _Scope(), plan[0] if plan else None)
            outer_scope = outer_scope.extended(outer_header[0], outer_header[5])
        it, start, op, bound, step, forms = self.loop_header(level, outer_scope,
                                                             plan[level] if level < len(plan) else None)
        scope = outer_scope.extended(it, forms)
        init = self.new_slot(scope, slots, forced_target=temp.name, forced_op="=")
        jt, jstart, jop, jbound, jstep, jforms = self.loop_header(level + 1, scope,
                                                                  plan[level + 1] if level + 1 < len(plan) else None)
        acc = self.new_slot(scope.extended(jt, jforms), slots, forced_target=temp.name,
                            forced_op=self.rng.choice(("+=", "+=", "-=")))
        out = self.new_slot(scope, slots, must_read=temp.name)
        node: Node = Loop(it, start, op, bound, step,
                          (init, Loop(jt, jstart, jop, jbound, jstep, (acc,)), out))
        if outer_header is not None:
            oit, ostart, oop, obound, ostep, _ = outer_header
            node = Loop(oit, ostart, oop, obound, ostep, (node,))
        self.features.add("scalar reduction")
        return node

    # -- statements ----------------------------------------------------------

    def subscript(self, scope: _Scope, param: str, offset: int, target: bool) -> Aff:
        """A subscript for a dimension of extent `param + offset`, in bounds by its form."""
        rng = self.rng
        options: list[tuple[float, Aff]] = []
        for form in scope.forms:
            if form.param != param:
                continue
            low, high = max(-form.lo, -2), min(offset - 1 - form.hi, 2)
            if low > high:
                continue
            weight = form.weight * (3.0 if target and len(form.expr.terms) == 1 else 1.0)
            if low <= 0 <= high and (target or rng.random() < 0.6):
                shift = 0
            else:
                shift = rng.randint(low, high)
            options.append((weight, form.expr + shift))
        if not options or rng.random() < 0.05:
            return Aff(const=rng.randint(0, min(3, self.config.min_size + offset - 1)))
        return rng.choices([o[1] for o in options], weights=[o[0] for o in options])[0]

    def access(self, scope: _Scope, array: ArrayDecl, target: bool = False) -> ArrayRef:
        return ArrayRef(array.name, tuple(self.subscript(scope, p, c, target)
                                          for p, c in array.extents))

    def fit(self, scope: _Scope, array: ArrayDecl) -> int:
        """How many dimensions of `array` the forms in scope can index."""
        return sum(any(f.param == p for f in scope.forms) for p, _ in array.extents)

    def pick_array(self, scope: _Scope, ctype: str | None = None) -> ArrayDecl | None:
        candidates = [a for a in self.arrays if ctype is None or a.ctype == ctype]
        if not candidates:
            return None
        weights = [0.15 + 3.0 * (self.fit(scope, a) / len(a.extents)) ** 2 for a in candidates]
        return self.rng.choices(candidates, weights=weights)[0]

    def choose_target(self, slot: _SlotInfo) -> None:
        rng, cfg = self.rng, self.config
        if slot.forced_target:
            slot.target = ScalarRef(slot.forced_target)
            slot.op = slot.forced_op or "="
            return
        scalars = [s for s in self.scalars if s.role in ("temp", "output")]
        if scalars and rng.random() < cfg.p_scalar * 0.4:
            s = rng.choice(scalars)
            slot.target = ScalarRef(s.name, s.role == "output")
            self.features.add("scalar target")
            ctype = s.ctype
        else:
            array = self.pick_array(slot.scope)
            assert array is not None
            slot.target = self.access(slot.scope, array, target=True)
            ctype = array.ctype
        if ctype == "int":
            slot.op = rng.choices(("=", "+=", "-="), weights=(0.6, 0.3, 0.1))[0]
        elif slot.must_read:
            slot.op = rng.choice(("=", "=", "+="))
        else:
            slot.op = rng.choices(("=", "+=", "-=", "*="), weights=(0.5, 0.25, 0.1, 0.15))[0]

    def int_factor(self, slot: _SlotInfo, carried: set[str], allow_carried: bool) -> Expr:
        rng, scope = self.rng, slot.scope
        choices: list[tuple[float, Callable[[], Expr]]] = []
        ints = [a for a in self.arrays if a.ctype == "int"
                and (allow_carried or a.name not in carried)]
        if ints:
            choices.append((4.0, lambda: self.access(scope, rng.choice(ints))))
        iscalars = [s for s in self.scalars if s.ctype == "int" and s.role != "output"
                    and (allow_carried or s.name not in carried)]
        if iscalars:
            choices.append((1.0, lambda: ScalarRef(rng.choice(iscalars).name)))
        if scope.iterators:
            choices.append((1.5, lambda: IterValue(self.iter_aff(scope), False)))
        choices.append((1.0, lambda: Const(rng.randint(1, 7), "int")))
        return rng.choices([c[1] for c in choices], weights=[c[0] for c in choices])[0]()

    def iter_aff(self, scope: _Scope) -> Aff:
        rng = self.rng
        its = rng.sample(scope.iterators, k=min(len(scope.iterators), rng.choice((1, 1, 2))))
        return Aff.of(*((it, rng.choice((1, 1, 2, 3))) for it in its), const=rng.choice((0, 0, 1)))

    def double_factor(self, slot: _SlotInfo, carried: set[str], allow_carried: bool,
                      allow_int: bool = True) -> Expr:
        rng, scope = self.rng, slot.scope
        choices: list[tuple[float, Callable[[], Expr]]] = []
        arrays = [a for a in self.arrays if (allow_carried or a.name not in carried)
                  and (allow_int or a.ctype == "double")]
        if arrays:
            choices.append((6.0, lambda: self.access(scope, self.pick_from(scope, arrays))))
        scalars = [s for s in self.scalars if (allow_carried or s.name not in carried)
                   and (allow_int or s.ctype == "double")]
        if scalars:
            def scalar() -> Expr:
                s = rng.choice(scalars)
                return ScalarRef(s.name, s.role == "output")
            choices.append((1.5, scalar))
        if scope.iterators:
            choices.append((1.0, lambda: IterValue(self.iter_aff(scope), True)))
        choices.append((0.7, lambda: Const(rng.choice(_DOUBLE_CONSTANTS), "double")))
        return rng.choices([c[1] for c in choices], weights=[c[0] for c in choices])[0]()

    def pick_from(self, scope: _Scope, arrays: Sequence[ArrayDecl]) -> ArrayDecl:
        weights = [0.15 + 3.0 * (self.fit(scope, a) / len(a.extents)) ** 2 for a in arrays]
        return self.rng.choices(list(arrays), weights=weights)[0]

    def is_carried(self, expr: Expr, carried: set[str]) -> bool:
        return any(isinstance(n, (ArrayRef, ScalarRef)) and
                   (n.array if isinstance(n, ArrayRef) else n.name) in carried
                   for n in expr_nodes(expr))

    def int_expr(self, slot: _SlotInfo, carried: set[str], simple: bool) -> Expr:
        rng = self.rng
        terms: list[Expr] = []
        for _ in range(1 if simple else rng.randint(1, 3)):
            factor = self.int_factor(slot, carried, allow_carried=not simple)
            roll = rng.random()
            if roll < 0.3 and not simple:
                other = self.int_factor(slot, carried,
                                        allow_carried=not self.is_carried(factor, carried))
                factor = Binary("*", factor, other)
            elif roll < 0.45:
                factor = Binary("*", Const(rng.randint(2, 5), "int"), factor)
            terms.append(factor)
        return self.combine(terms)

    def combine(self, terms: list[Expr]) -> Expr:
        expr = terms[0]
        for term in terms[1:]:
            expr = Binary(self.rng.choice("++-"), expr, term)
        return expr

    def double_term(self, slot: _SlotInfo, carried: set[str], allow_carried: bool,
                    simple: bool) -> Expr:
        rng = self.rng
        factor = self.double_factor(slot, carried, allow_carried)
        if simple:
            return factor
        roll = rng.random()
        if roll < self.config.p_builtin:
            self.features.add("builtin")
            if rng.random() < 0.5:
                # fabs of an int would draw -Wabsolute-value: double arguments only
                arg = self.double_factor(slot, carried, allow_carried, allow_int=False)
                if self.ctype_of(arg) == "int":
                    arg = IterValue(self.iter_aff(slot.scope), True) if slot.scope.iterators \
                        else Const(rng.choice(_DOUBLE_CONSTANTS), "double")
                return Call("sqrt", (Call("fabs", (arg,)),))
            return Call(rng.choice(("fmax", "fmin")),
                        (self.double_factor(slot, carried, allow_carried),
                         self.double_factor(slot, carried, allow_carried)))
        if roll < 0.45:
            # a product; never of two carried values, never of two ints
            int_typed = self.ctype_of(factor) == "int"
            other = self.double_factor(slot, carried,
                                       allow_carried and not self.is_carried(factor, carried),
                                       allow_int=not int_typed)
            if int_typed and self.ctype_of(other) == "int":
                other = Const(rng.choice(_DOUBLE_CONSTANTS), "double")
            return Binary("*", factor, other)
        if roll < 0.6:
            return Binary("*", Const(rng.choice(_DOUBLE_CONSTANTS), "double"), factor)
        if roll < 0.7:
            return Binary("/", factor, Const(rng.choice(_DIVISORS), "double"))
        return factor

    def double_expr(self, slot: _SlotInfo, carried: set[str], allow_carried: bool,
                    simple: bool) -> Expr:
        terms = [self.double_term(slot, carried, allow_carried, simple)
                 for _ in range(1 if simple else self.rng.randint(1, 3))]
        return self.combine(terms)

    def with_required_read(self, slot: _SlotInfo, expr: Expr) -> Expr:
        if slot.must_read and not any(isinstance(n, ScalarRef) and n.name == slot.must_read
                                      for n in expr_nodes(expr)):
            read = ScalarRef(slot.must_read)
            expr = Binary("+", read, Binary("*", Const(0.5, "double"), expr)) \
                if self.rng.random() < 0.5 else Binary("*", read, Const(0.5, "double"))
        return expr

    # -- nests ---------------------------------------------------------------

    def nest(self, index: int) -> Node:
        rng, cfg = self.rng, self.config
        for attempt in range(10):
            slots: list[_SlotInfo] = []
            depth = rng.randint(1, cfg.max_depth)
            primary = rng.choice(self.arrays)
            plan = [p for p, _ in primary.extents]
            rng.shuffle(plan)
            plan += [rng.choice(list(self.sizes)) for _ in range(3 - len(plan))]
            temps = [s for s in self.scalars if s.role == "temp" and s.ctype == "double"]
            if depth >= 2 and temps and rng.random() < cfg.p_scalar:
                node = self.reduction_nest(depth, plan, rng.choice(temps), slots)
            else:
                budget = rng.randint(1, cfg.max_statements)
                node = self.loop(0, depth, max(budget, 1), _Scope(), plan, slots)
            try:
                return self.fill(node, slots, conservative=attempt >= 5)
            except _Retry:
                continue
        # fallback: a plain copy-and-scale nest, always within budgets
        slots = []
        self.extras_allowed = False
        node = self.loop(0, 1, 1, _Scope(), [], slots)
        self.extras_allowed = True
        slot = slots[0]
        doubles = [a for a in self.arrays if a.ctype == "double"]
        slot.target = self.access(slot.scope, doubles[0], target=True)
        slot.op, slot.value = "=", Const(0.5, "double")
        self.bounds[doubles[0].name] = max(self.bounds[doubles[0].name], 0.5)
        return self.substitute(node, slots)

    def fill(self, node: Node, slots: list[_SlotInfo], conservative: bool) -> Node:
        """Choose targets and right-hand sides for the slots of one nest."""
        rng = self.rng
        for slot in slots:
            self.choose_target(slot)
        n_of = self.slot_counts(node)
        def name_of(t: ArrayRef | ScalarRef) -> str:
            return t.array if isinstance(t, ArrayRef) else t.name
        written = {name_of(s.target) for s in slots}  # type: ignore[arg-type]
        int_slots = [s for s in slots if self.ctype_of(s.target) == "int"]  # type: ignore[arg-type]
        dbl_slots = [s for s in slots if s not in int_slots]
        int_carried = {n for n in written if self.kind(n) == "int"}
        dbl_carried = written - int_carried

        def iter_bound(aff: Aff, scope: _Scope) -> float:
            total = abs(aff.const)
            for name, coeff in aff.terms:
                f = scope.iterator_form(name)
                total += abs(coeff) * max(abs(f.lo), self.sizes[f.param] + f.hi + 2)
            return float(total)

        # integers first: double values never flow into ints
        m0 = max([self.bounds[n] for n in int_carried], default=0.0)
        growth = 0.0
        for slot in int_slots:
            slot.value = self.int_expr(slot, int_carried, simple=conservative)
            mag = _mag(slot.value, self.mag_lookup(slot.scope, int_carried, iter_bound))
            if mag is None:
                raise _Retry
            if mag.lin > 0 or mag.const > INT_WRAP - 1 or rng.random() < 0.3:
                slot.value = Binary("%", slot.value, Const(INT_WRAP, "int"))
                self.features.add("int wrap")
                mag = Mag(0.0, min(mag.const, INT_WRAP - 1) if not mag.lin else INT_WRAP - 1)
            if slot.op != "=":
                growth += n_of.get(slot.index, 0) * mag.const
            else:
                m0 = max(m0, mag.const)
        m_int = m0 + growth
        if m_int > INT_CAP:
            raise _Retry
        int_bounds = {n: m_int for n in int_carried}
        for slot in int_slots:
            if not _int_overflow_free(slot.value, self.numeric_lookup(slot.scope, int_bounds, iter_bound),
                                      self.ctype_of):
                raise _Retry

        # doubles: M grows at most by a factor `amp` per instance, plus `add`
        n_total = sum(n_of.get(s.index, 0) for s in dbl_slots)
        allowed = math.expm1(COMPOUND_LOG10_BUDGET * math.log(10) / max(n_total, 1))
        m0 = max([self.bounds[n] for n in dbl_carried], default=0.0)
        log_amp, add = 0.0, 0.0
        for slot in dbl_slots:
            lookup = self.mag_lookup(slot.scope, dbl_carried, iter_bound, int_bounds)
            allow_carried = slot.op != "*="
            for _ in range(4):
                if slot.op == "*=":
                    expr = self.scaling_factor(slot, dbl_carried, lookup)
                else:
                    expr = self.double_expr(slot, dbl_carried, allow_carried, simple=conservative)
                expr = self.with_required_read(slot, expr)
                mag = _mag(expr, lookup)
                if mag is not None and not (slot.op == "*=" and mag.lin):
                    break
            else:
                raise _Retry
            expr, mag = self.scale(expr, mag, slot.op, allowed)
            slot.value = expr
            n = n_of.get(slot.index, 0)
            if slot.op == "=":
                add = max(add, mag.const)
            elif slot.op in ("+=", "-="):
                log_amp += n * math.log10(1.0 + mag.lin)
                add = max(add, mag.const)
            # "*=": factor <= 1, never grows
        log_m = log_amp + math.log10(m0 + add * max(n_total, 1) + 1e-300) if dbl_slots else 0.0
        if log_m > DOUBLE_LOG10_LIMIT:
            raise _Retry
        m_dbl = 10.0 ** log_m if dbl_slots else m0
        for name in dbl_carried:
            self.bounds[name] = max(self.bounds[name], m_dbl)
        for name in int_carried:
            self.bounds[name] = max(self.bounds[name], m_int)
        return self.substitute(node, slots)

    def scaling_factor(self, slot: _SlotInfo, carried: set[str],
                       lookup: Callable[[Expr], Mag]) -> Expr:
        """Right-hand side of `*=`: one factor of magnitude at most 4, never carried."""
        rng = self.rng
        factor = self.double_factor(slot, carried, allow_carried=False)
        if rng.random() < 0.3:
            factor = Binary("*", Const(rng.choice(_DOUBLE_CONSTANTS), "double"), factor)
        mag = _mag(factor, lookup)
        if mag is None or mag.lin or mag.const > 4.0:
            inputs = [s for s in self.scalars if s.role == "input" and s.ctype == "double"]
            if inputs and rng.random() < 0.5:
                return ScalarRef(rng.choice(inputs).name)
            return Const(rng.choice((0.5, 0.75, 0.25, 1.5)), "double")
        return factor

    def scale(self, expr: Expr, mag: Mag, op: str, allowed: float) -> tuple[Expr, Mag]:
        """Scale a double right-hand side so the statement cannot amplify values."""
        rng = self.rng
        if op == "=":
            limit = 1.0
        elif op == "*=":
            limit = None
        else:
            limit = allowed
        if op == "*=":
            if mag.const <= 1.0:
                return expr, mag
            k = 2.0 ** math.ceil(math.log2(mag.const))
            return Binary("/", expr, Const(k, "double")), mag.scaled(1 / k)
        assert limit is not None
        if mag.lin <= limit:
            return expr, mag
        if limit >= 0.2:
            ratio = mag.lin / limit
            for divisor in (2.0, 3.0, 4.0, 5.0, 8.0, 16.0):
                if divisor >= ratio:
                    if divisor in (2.0, 4.0) and rng.random() < 0.5:
                        return Binary("*", Const(1.0 / divisor, "double"), expr), mag.scaled(1 / divisor)
                    return Binary("/", expr, Const(divisor, "double")), mag.scaled(1 / divisor)
        k = 10.0 ** -math.ceil(math.log10(mag.lin / limit))
        if k < 1e-9:
            raise _Retry
        return Binary("*", Const(float(f"{k:.0e}"), "double"), expr), mag.scaled(k)

    def kind(self, name: str) -> str:
        for a in self.arrays:
            if a.name == name:
                return a.ctype
        return self.scalar(name).ctype

    def mag_lookup(self, scope: _Scope, carried: set[str],
                   iter_bound: Callable[[Aff, _Scope], float],
                   fixed: Mapping[str, float] | None = None) -> Callable[[Expr], Mag]:
        def lookup(e: Expr) -> Mag:
            if isinstance(e, IterValue):
                return Mag(0.0, iter_bound(e.expr, scope))
            name = e.array if isinstance(e, ArrayRef) else e.name  # type: ignore[union-attr]
            if fixed and name in fixed:
                return Mag(0.0, fixed[name])
            return Mag(1.0, 0.0) if name in carried else Mag(0.0, self.bounds[name])
        return lookup

    def numeric_lookup(self, scope: _Scope, overrides: Mapping[str, float],
                       iter_bound: Callable[[Aff, _Scope], float]) -> Callable[[Expr], float]:
        def lookup(e: Expr) -> float:
            if isinstance(e, IterValue):
                return iter_bound(e.expr, scope)
            name = e.array if isinstance(e, ArrayRef) else e.name  # type: ignore[union-attr]
            return overrides.get(name, self.bounds[name])
        return lookup

    def slot_counts(self, node: Node) -> dict[int, int]:
        counts: dict[int, int] = {}

        def visit(stmt: Assign | Slot | DataGuard, env: dict[str, Value], size: int) -> None:
            if isinstance(stmt, Slot):  # under a data guard: counted as always running
                counts[stmt.index] = counts.get(stmt.index, 0) + size

        _enumerate([node], dict(self.sizes), 1, visit)
        return counts

    def substitute(self, node: Node, slots: list[_SlotInfo]) -> Node:
        by_index = {s.index: s for s in slots}

        def sub(n: Node) -> Node:
            if isinstance(n, Slot):
                info = by_index[n.index]
                assert info.target is not None and info.value is not None
                local = ""
                if n.index not in self.plain_slots and self.rng.random() < self.config.p_local_temp:
                    local = self.ctype_of(info.value)
                # Every other such update in the thesis's three-address form (no draw: the
                # programs of earlier seeds stay what they were).
                copy = (local != "" and info.op != "=" and n.index % 2 == 1
                        and self.ctype_of(info.target) == local)
                return Assign(info.target, info.op, info.value, local, copy)
            if isinstance(n, Loop):
                return replace(n, body=_used_locals(tuple(sub(b) for b in n.body)))
            if isinstance(n, Guard):
                return replace(n, body=tuple(sub(b) for b in n.body))
            if isinstance(n, DataGuard):
                return replace(n, then=tuple(sub(b) for b in n.then),
                               otherwise=tuple(sub(b) for b in n.otherwise))
            return n
        return sub(node)

    # -- whole program -------------------------------------------------------

    def program(self) -> tuple[Program, str]:
        self.declare()
        products = self.matvec()
        if products:
            program = Program(self.seed, tuple(self.sizes.items()), tuple(self.arrays), tuple(self.scalars),
                              tuple(products), 2, self.overlaps(), ())
            return program, self.describe(program)
        nests = [self.nest(k) for k in range(self.rng.randint(1, self.config.max_nests))]
        nests = [self.annotate(n) for n in nests]
        # The temporary-array nest (two deep), the matrix product and the stencil (three deep)
        # are one more nest each: only where the configuration allows them.
        temp = self.temp_array() if len(nests) < self.config.max_nests and self.config.max_depth >= 2 else []
        fits = len(nests) + len(temp) < self.config.max_nests and self.config.max_depth == 3
        product = self.matmul() if fits else []
        fits = len(nests) + len(temp) + len(product) < self.config.max_nests and self.config.max_depth == 3
        body = list(nests) + temp + product + (self.stencil() if fits else [])
        if len(body) < self.config.max_nests and self.config.max_depth == 3:
            body += self.pivot()
        if len(body) < self.config.max_nests and self.config.max_depth >= 2:
            body += self.column_recurrence()
        if len(body) < self.config.max_nests:
            body += self.int_sum()
        if len(body) < self.config.max_nests:
            body += self.indirect()
        if len(body) + 1 < self.config.max_nests and self.config.max_depth == 3:
            body += self.exact_reduction()      # room left for the dynamic nest, which comes last
        if len(body) + 1 < self.config.max_nests and self.config.max_depth == 3:
            body += self.triangular_chain()
        # Value-style code comes after every other nest but the dynamic one (which must be last),
        # whatever the number of nests: one more part of the region, not one of its nests.
        value = self.value_style() if self.config.max_depth >= 2 else []
        helpers: tuple[str, ...] = ()
        dynamic: list[Node] = []
        if len(body) < self.config.max_nests:
            dynamic, helpers = self.dynamic()
        if value:
            assume = Assume(tuple(Compare(Aff.var(p), ">=", Aff(const=self.config.min_size)) for p in self.sizes))
            body = [assume] + body + value
        body += dynamic
        # A temporary that is written but never read would draw -Wunused-but-set-variable;
        # store its final value in an array instead.
        stmts = [s for s in walk_statements(body) if isinstance(s, Assign)]
        read = {n.name for s in stmts for n in expr_nodes(s.value) if isinstance(n, ScalarRef)}
        read |= _condition_scalars(body)
        written = {s.target.name for s in stmts if isinstance(s.target, ScalarRef)}
        doubles = [a for a in self.arrays if a.ctype == "double"]
        for name in sorted(written - read):
            if self.scalar(name).role != "temp":
                continue
            target = ArrayRef(doubles[0].name, tuple(Aff() for _ in doubles[0].extents))
            body.append(Assign(target, "=", ScalarRef(name)))
        depth = max((int(l.iterator[1:]) + 1 for l in walk_loops(body)), default=1)
        program = Program(self.seed, tuple(self.sizes.items()), tuple(self.arrays),
                          tuple(self.scalars), tuple(body), depth, self.overlaps(), helpers)
        return program, self.describe(program)

    def annotate(self, node: Node) -> Node:
        """Sometimes `#pragma pencil independent` on loops that `provably_independent` vouches
        for (drawn from the stream of the new constructs: no other choice changes)."""
        if isinstance(node, Loop):
            body = tuple(self.annotate(b) for b in node.body)
            independent = provably_independent(node) and self.extra.random() < self.config.p_independent
            return replace(node, body=body, independent=independent)
        if isinstance(node, Guard):
            return replace(node, body=tuple(self.annotate(b) for b in node.body))
        return node

    def int_sum(self) -> list[Node]:
        """Sometimes, after every other nest, an int sum over a nest of loops under
        `#pragma pencil independent reduction(+: q0)` on one of them (the outer ones stay
        sequential around it), then its value stored in element 0 of an array:
        `for i0 < E0: [for i1 < E1: ...] q0 += c * X[i0][i1..] + i1;  Y[0..] = q0 % 1000;`.
        X is an int array whose extents the loops run over (or the sum is of iterator values
        alone); q0 is a kernel variable of its own. Integer sums are exact in any order, so
        the program prints the same on any thread count. The bounds keep |q0| below 2^30.
        Some of them (`p_bitwise_reduction`, drawn last, so that the sums are those of before)
        combine with `|`, `^` or `&` instead: `q0 |= t`, `q0 = q0 ^ t` or `q0 = t & q0` under
        `reduction(|: q0)` ... (q0 starting at -1, all bits set, for `&`); bitwise operations
        never leave the range of their operands' bits. A stream of its own, so that the seeds
        that get none keep their program."""
        rng = random.Random(f"reduction {self.seed}")
        if rng.random() >= self.config.p_reduction:
            return []
        ints = [a for a in self.arrays if a.ctype == "int"]
        source = rng.choice(ints) if ints and rng.random() < 0.8 else None
        if source is not None:
            extents = source.extents[:self.config.max_depth]
        else:
            extents = tuple((rng.choice(sorted(self.sizes)), 0) for _ in range(rng.randint(1, self.config.max_depth)))
        iterators = [f"i{d}" for d in range(len(extents))]
        instances = math.prod(self.sizes[p] + c for p, c in extents)
        coefficient = rng.choice((1, 2, 3, -1))
        term: Expr = IterValue(Aff.var(iterators[-1]), False)
        if source is not None and instances * (abs(coefficient) * self.bounds[source.name] + 50) < 2**30:
            subscripts = tuple(Aff.var(it) for it in iterators) + tuple(Aff() for _ in source.extents[len(extents):])
            element: Expr = ArrayRef(source.name, subscripts)
            if coefficient != 1:
                element = Binary("*", Const(coefficient, "int"), element)
            term = Binary("+", element, term)
        self.features.add("reduction pragma")
        self.scalars.append(ScalarDecl("q0", "int", "temp", rng.randint(-5, 5)))
        node: Node = Assign(ScalarRef("q0"), rng.choice(("+=", "+=", "-=")), term)
        annotated = rng.randrange(len(extents))
        stores = [a for a in self.arrays if a.ctype == "int"] or [a for a in self.arrays if a.ctype == "double"]
        target = rng.choice(stores)
        op = "+"
        if rng.random() < self.config.p_bitwise_reduction:
            op = rng.choice(("|", "^", "&"))
            self.features.add("bitwise reduction pragma")
            if op == "&":
                self.scalars[-1] = replace(self.scalars[-1], value=-1)
            q0 = ScalarRef("q0")
            node = rng.choice((Assign(q0, op + "=", term), Assign(q0, "=", Binary(op, q0, term)),
                               Assign(q0, "=", Binary(op, term, q0))))
        for d in reversed(range(len(extents))):
            param, offset = extents[d]
            node = Loop(iterators[d], Aff(), "<", Aff.var(param, offset), 1, (node,),
                        independent=d == annotated, reduction="q0" if d == annotated else "", reduction_op=op)
        self.bounds[target.name] = max(self.bounds[target.name], float(INT_WRAP))
        cell = ArrayRef(target.name, tuple(Aff() for _ in target.extents))
        return [node, Assign(cell, "=", Binary("%", ScalarRef("q0"), Const(INT_WRAP, "int")))]

    def matvec(self) -> list[Node]:
        """Sometimes the whole region is matrix-vector products over one read-only matrix M
        (R x C), as in PolyBench's atax, bicg and mvt, the regions pass row-blocks runs in
        blocks of rows: row sums `U[i0] += M[i0][i1] * W[i1]` and column sums
        `V[i1] += M[i0][i1] * U[i0]` (atax's two loops over a row), or `V[i1] += Z[i0] *
        M[i0][i1]` beside the row sum in one loop (bicg's, either order), or the column sums in
        a nest of their own over the transposed accesses `V[i0] += M[i1][i0] * Z[i1]` (mvt's);
        `U[i0] = 0.0` before each row's sum and a nest `V[i0] = 0.0` before them, or neither.
        Other nests would keep the region from being blocked, so the program is these alone
        (its other arrays are still passed and printed). |U| <= C and |V| <= R * C. A stream
        of its own, so that the seeds that get none keep their program."""
        rng = random.Random(f"matvec {self.seed}")
        if rng.random() >= self.config.p_matvec:
            return []
        if self.config.max_depth < 2 or self.config.max_nests < 3 or self.config.max_statements < 2:
            return []
        self.features.add("matrix-vector products")
        names = sorted(self.sizes)
        rows, cols = (rng.choice(names), 0), (rng.choice(names), 0)
        matrix = ArrayDecl("M", "double", (rows, cols), (3, 5, 1, 23))
        sums, column_sums = ArrayDecl("U", "double", (rows,), (1, 2, 7)), ArrayDecl("V", "double", (cols,), (2, 1, 5))
        along, across = ArrayDecl("W", "double", (cols,), (1, 3, 11)), ArrayDecl("Z", "double", (rows,), (2, 3, 13))
        self.arrays.extend((matrix, sums, column_sums, along, across))
        self.bounds.update({"M": 1.0, "W": 1.0, "Z": 1.0, "U": 1.0 + self.sizes[cols[0]],
                            "V": 1.0 + self.sizes[rows[0]] * (1.0 + self.sizes[cols[0]])})
        i, j = Aff.var("i0"), Aff.var("i1")
        height, width = Aff.var(*rows), Aff.var(*cols)
        row_sum = Assign(ArrayRef("U", (i,)), "+=", Binary("*", ArrayRef("M", (i, j)), ArrayRef("W", (j,))))
        zeroed = rng.random() < 0.5
        start: tuple[Node, ...] = (Assign(ArrayRef("U", (i,)), "=", Const(0.0, "double")),) if zeroed else ()
        shape = rng.choice(("atax", "bicg", "mvt"))
        nests: list[Node] = []
        if zeroed:
            nests.append(Loop("i0", Aff(), "<", width, 1, (Assign(ArrayRef("V", (i,)), "=", Const(0.0, "double")),)))
        if shape == "atax":
            column_sum = Assign(ArrayRef("V", (j,)), "+=", Binary("*", ArrayRef("M", (i, j)), ArrayRef("U", (i,))))
            nests.append(Loop("i0", Aff(), "<", height, 1, start + (
                Loop("i1", Aff(), "<", width, 1, (row_sum,)), Loop("i1", Aff(), "<", width, 1, (column_sum,)))))
        elif shape == "bicg":
            column_sum = Assign(ArrayRef("V", (j,)), "+=", Binary("*", ArrayRef("Z", (i,)), ArrayRef("M", (i, j))))
            pair = (column_sum, row_sum) if rng.random() < 0.5 else (row_sum, column_sum)
            nests.append(Loop("i0", Aff(), "<", height, 1, start + (Loop("i1", Aff(), "<", width, 1, pair),)))
        else:
            column_sum = Assign(ArrayRef("V", (i,)), "+=", Binary("*", ArrayRef("M", (j, i)), ArrayRef("Z", (j,))))
            nests.append(Loop("i0", Aff(), "<", height, 1, start + (Loop("i1", Aff(), "<", width, 1, (row_sum,)),)))
            nests.append(Loop("i0", Aff(), "<", width, 1, (Loop("i1", Aff(), "<", height, 1, (column_sum,)),)))
        return nests

    def matmul(self) -> list[Node]:
        """Sometimes a matrix product into a 2-D double array, the nest pass register-tile
        unrolls and jams: `for i0 < R: for i1 < C: { X[i0][i1] *= 0.5;
        for i2 < K: X[i0][i1] += 0.03125 * P[i0][i2] * Q[i2][i1]; }` (or the scaling in a
        nest of its own before, or none), i2 and i1 possibly swapped in the source.
        P and Q are arrays of their own (R x K and K x C, K a size parameter); the factor
        keeps |X| below 1 + 40 / 32. Sometimes in PRE's form (`pre` below). A stream of its
        own, so that the seeds that get none keep their program."""
        rng = random.Random(f"matmul {self.seed}")
        if rng.random() >= self.config.p_matmul:
            return []
        grids = [x for x in self.arrays if x.ctype == "double" and len(x.extents) == 2]
        if not grids:
            return []
        self.features.add("matrix product")
        target = rng.choice(grids)
        rows, cols = target.extents
        inner = (rng.choice(sorted(self.sizes)), 0)
        left = ArrayDecl("P", "double", (rows, inner), (2, 3, 1, 17))
        right = ArrayDecl("Q", "double", (inner, cols), (5, 1, 2, 19))
        self.arrays.extend((left, right))
        self.bounds.update({left.name: 1.0, right.name: 1.0})
        self.bounds[target.name] = self.bounds.get(target.name, 1.0) + 40 / 32
        i, j, k = Aff.var("i0"), Aff.var("i1"), Aff.var("i2")
        cell = ArrayRef(target.name, (i, j))
        product = Binary("*", Binary("*", Const(0.03125, "double"), ArrayRef(left.name, (i, k))),
                         ArrayRef(right.name, (k, j)))
        accumulate = Assign(cell, "+=", product)
        scale = Assign(cell, "*=", Const(0.5, "double"))
        extent = {"i0": Aff.var(*rows), "i1": Aff.var(*cols), "i2": Aff.var(*inner)}
        where = rng.choice(("inside", "before", "none"))
        # PRE's form (a stream of its own, so that the other products keep their program): the
        # invariant `0.03125 * P[i0][i2]` hoisted out of the i1 loop into `h0`, or the element
        # accumulated in `a0` across the i2 loop, then stored (pass demote-scalars).
        pre = random.Random(f"matmul pre {self.seed}").random() < 0.4
        if rng.random() < 0.3:        # i, k, j in the source: the point loop order is kept
            inner_body: tuple[Node, ...] = (accumulate,)
            hoisted: tuple[Node, ...] = ()
            if pre:
                self.features.add("PRE form")
                self.scalars.append(ScalarDecl("h0", "double", "temp", 0.0))
                self.bounds["h0"] = 1.0
                hoisted = (Assign(ScalarRef("h0"), "=", product.left),)
                inner_body = (Assign(cell, "+=", Binary("*", ScalarRef("h0"), product.right)),)
            reduction = Loop("i2", Aff(), "<", extent["i2"], 1,
                             hoisted + (Loop("i1", Aff(), "<", extent["i1"], 1, inner_body),))
            body = (reduction,)
            where = "before" if where == "inside" else where
        elif pre:
            self.features.add("PRE form")
            self.scalars.append(ScalarDecl("a0", "double", "temp", 0.0))
            self.bounds["a0"] = self.bounds[target.name]
            start = Binary("*", cell, Const(0.5, "double")) if where == "inside" else cell
            body = (Loop("i1", Aff(), "<", extent["i1"], 1,
                         (Assign(ScalarRef("a0"), "=", start),
                          Loop("i2", Aff(), "<", extent["i2"], 1, (Assign(ScalarRef("a0"), "+=", product),)),
                          Assign(cell, "=", ScalarRef("a0")))),)
        else:
            body = (Loop("i1", Aff(), "<", extent["i1"], 1,
                         ((scale,) if where == "inside" else ())
                         + (Loop("i2", Aff(), "<", extent["i2"], 1, (accumulate,)),)),)
        nests: list[Node] = []
        if where == "before":
            nests.append(Loop("i0", Aff(), "<", extent["i0"], 1,
                              (Loop("i1", Aff(), "<", extent["i1"], 1, (scale,)),)))
        nests.append(Loop("i0", Aff(), "<", extent["i0"], 1, body))
        return nests

    def temp_array(self) -> list[Node]:
        """Sometimes a 1-D caller array used as a temporary of each row of a 2-D one, the shape
        of PolyBench's doitgen that pass privatize-arrays gives a region-local copy:
        `for i0 < R: { for i1 < C: T[i1] = 0.5 * X[i0][i1] + 0.25;
                       [for i1 < C: T[i1] = 0.5 * T[i1] + 0.25 * X[i0][C - 1 - i1];]
                       for i1 < C: X[i0][i1] = T[i1 or C - 1 - i1]; }`.
        T is an array of its own, or half the time one the other nests use too. In one program
        of three the first loop starts at 1, so that T[0] flows from the caller or from the
        previous row and T must not be privatized. The final values of T (the last
        row's) are printed like every array. Magnitudes stay below 1. A stream of its own, so
        that the seeds that get none keep their program."""
        rng = random.Random(f"temp array {self.seed}")
        if rng.random() >= self.config.p_temp_array:
            return []
        grids = [x for x in self.arrays if x.ctype == "double" and len(x.extents) == 2]
        if not grids:
            return []
        self.features.add("temp array")
        rows = rng.choice(grids)
        (height, height_offset), (width, width_offset) = rows.extents
        # Half the time an array of its own, which the other nests do not touch.
        shared = [t for t in self.arrays if t.ctype == "double" and t.extents == rows.extents[1:]]
        if shared and rng.random() < 0.5:
            temp = rng.choice(shared)
        else:
            temp = ArrayDecl("T", "double", rows.extents[1:], (3, 1, 19))
            self.arrays.append(temp)
            self.bounds[temp.name] = 1.0
        i0, i1 = Aff.var("i0"), Aff.var("i1")
        mirrored = Aff.of(("i1", -1), const=0) + Aff.var(width, width_offset - 1)
        extent = Aff.var(width, width_offset)
        start = Aff(const=1) if rng.random() < 1 / 3 else Aff()
        half = Const(0.5, "double")
        fill = Assign(ArrayRef(temp.name, (i1,)), "=",
                      Binary("+", Binary("*", half, ArrayRef(rows.name, (i0, i1))), Const(0.25, "double")))
        body: list[Node] = [Loop("i1", start, "<", extent, 1, (fill,))]
        if rng.random() < 0.5:
            update = Assign(ArrayRef(temp.name, (i1,)), "=",
                            Binary("+", Binary("*", half, ArrayRef(temp.name, (i1,))),
                                   Binary("*", Const(0.25, "double"), ArrayRef(rows.name, (i0, mirrored)))))
            body.append(Loop("i1", Aff(), "<", extent, 1, (update,)))
        read = ArrayRef(temp.name, (rng.choice((i1, mirrored)),))
        body.append(Loop("i1", Aff(), "<", extent, 1, (Assign(ArrayRef(rows.name, (i0, i1)), "=", read),)))
        return [Loop("i0", Aff(), "<", Aff.var(height, height_offset), 1, tuple(body))]

    def column_recurrence(self) -> list[Node]:
        """Sometimes a second-order recurrence down each column of a double 2-D array X, its state
        in two scalars set at each column's top, the shape of deriche's column filters that pass
        expand-scalars gives one element per column:
        `for i0 < C: { z0 = 0.0; z1 = 0.0;
                       for i1 < R: { X[i1][i0] = 0.5 * z0 + 0.25 * z1 + 0.25 * Y[i1][i0];
                                     z1 = z0; z0 = X[i1][i0]; } }`.
        Y is X or another array of its shape. In one program of four the state is set once, before
        the column loop, so that it goes on from one column to the next and must stay a scalar.
        The weights add up to 1: magnitudes stay within Y's. A stream of its own, so that the
        seeds that get none keep their program."""
        rng = random.Random(f"column recurrence {self.seed}")
        if rng.random() >= self.config.p_column_recurrence:
            return []
        grids = [x for x in self.arrays if x.ctype == "double" and len(x.extents) == 2]
        if not grids:
            return []
        self.features.add("column recurrence")
        target = rng.choice(grids)
        source = rng.choice([x for x in grids if x.extents == target.extents])
        for name in ("z0", "z1"):
            self.scalars.append(ScalarDecl(name, "double", "temp", 0.0))
        bound = max(self.bounds.get(target.name, 1.0), self.bounds.get(source.name, 1.0))
        self.bounds[target.name] = bound
        self.bounds.update({"z0": bound, "z1": bound})
        i0, i1 = Aff.var("i0"), Aff.var("i1")
        height, width = target.extent_affs()
        cell = ArrayRef(target.name, (i1, i0))
        value = Binary("+", Binary("+", Binary("*", Const(0.5, "double"), ScalarRef("z0")),
                                   Binary("*", Const(0.25, "double"), ScalarRef("z1"))),
                       Binary("*", Const(0.25, "double"), ArrayRef(source.name, (i1, i0))))
        chain = (Assign(cell, "=", value), Assign(ScalarRef("z1"), "=", ScalarRef("z0")),
                 Assign(ScalarRef("z0"), "=", cell))
        start = (Assign(ScalarRef("z0"), "=", Const(0.0, "double")), Assign(ScalarRef("z1"), "=", Const(0.0, "double")))
        column = Loop("i1", Aff(), "<", height, 1, chain)
        if rng.random() < 0.25:
            return list(start) + [Loop("i0", Aff(), "<", width, 1, (column,))]
        return [Loop("i0", Aff(), "<", width, 1, start + (column,))]

    def indirect(self) -> list[Node]:
        """Sometimes a nest whose subscripts are no affine expressions (image warps, histograms,
        gathers), in the rows of a 2-D array G[h][w] (C bounds a row's subscript by its extent,
        so the model's any-element access stays within the row and the alias check can be
        built): the gather `G[i0][i1] = 0.5 * G[i0][i1] + 0.25 * G[i0][(i1 * i1 + c) % w]` (a read
        of any element of the row, in the model) or the scatter `G[i0][(i1 * i1 + c) % w] =
        0.5 * G[i0][...] + 0.25` (a may-write of any element). A stream of its own, so that the
        seeds that get none keep their program. Values average old ones: magnitudes cannot grow."""
        rng = random.Random(f"indirect {self.seed}")
        if rng.random() >= self.config.p_indirect or self.config.max_depth < 2:
            return []
        grids = [x for x in self.arrays if x.ctype == "double" and len(x.extents) == 2]
        if not grids:
            return []
        grid = rng.choice(grids)
        self.features.add("indirect subscripts")
        i0, i1 = Aff.var("i0"), Aff.var("i1")
        height, width = grid.extent_affs()
        index = IndirectIndex(const=rng.randint(0, 5), base=i1, modulus=width)
        half, quarter = Const(0.5, "double"), Const(0.25, "double")
        if rng.random() < 0.5:
            cell = ArrayRef(grid.name, (i0, i1))
            value = Binary("+", Binary("*", half, cell), Binary("*", quarter, ArrayRef(grid.name, (i0, index))))
        else:
            cell = ArrayRef(grid.name, (i0, index))
            value = Binary("+", Binary("*", half, cell), quarter)
        inner = Loop("i1", Aff(), "<", width, 1, (Assign(cell, "=", value),))
        return [Loop("i0", Aff(), "<", height, 1, (inner,))]

    def dynamic(self) -> tuple[list[Node], tuple[str, ...]]:
        """Sometimes a nest over the rows of a double 2-D array G whose body is control flow
        pencilcc runs as opaque statements (clangpass.poly.extract): a loop whose bound is
        computed from G (`w0 < (int)(fabs(G[i0][W - 1]) * 8.0) % W + 1`), a `while` over the row
        with a data-dependent condition counting in a block-local `int w1`, a data-dependent `if`
        around a loop with `break` and `continue`; and sometimes a call of a PENCIL function of
        the file that returns a value (the row's mean: clangpass.poly.calls). Each writes row i0
        only, so the rows may run on threads. New values average old ones (|0.5 a + 0.25 b| and
        |0.5 a + c| stay within max(|G|, 0.5)): magnitudes cannot grow. Last in the program: no
        statement reads G after it. A stream of its own, so that the seeds that get none keep
        their program. Returns the nest and the helper functions it calls."""
        rng = random.Random(f"dynamic {self.seed}")
        if rng.random() >= self.config.p_dynamic:
            return [], ()
        grids = [x for x in self.arrays if x.ctype == "double" and len(x.extents) == 2 and x.role == "caller"]
        if not grids:
            return [], ()
        grid = rng.choice(grids)
        g = grid.name
        height, width = grid.extent_affs()
        w = width.render()
        kinds = rng.sample(["bound", "while", "if", "call"], k=rng.randint(1, 3))
        lines: list[str] = []
        helpers: tuple[str, ...] = ()
        for kind in kinds:
            if kind == "bound":
                self.features.add("data-dependent loop bound")
                lines += [f"for (int w0 = 0; w0 < (int)(fabs({g}[i0][{w} - 1]) * 8.0) % ({w}) + 1; w0++)",
                          f"  {g}[i0][w0] = 0.5 * {g}[i0][w0] + 0.25;"]
            elif kind == "while":
                self.features.add("while loop")
                lines += ["{", "  int w1 = 0;",
                          f"  while (w1 < {w} && {g}[i0][w1] > -0.25) {{",
                          f"    {g}[i0][w1] = 0.5 * {g}[i0][w1] - 0.125;", "    w1++;", "  }", "}"]
            elif kind == "if":
                self.features.add("data-dependent if around a loop")
                lines += [f"if ({g}[i0][0] < 0.3) {{", f"  for (int w2 = 1; w2 < {w}; w2++) {{",
                          f"    if ({g}[i0][w2] > 0.4)", "      break;",
                          f"    if ({g}[i0][w2] < -0.4)", "      continue;",
                          f"    {g}[i0][w2] = 0.5 * {g}[i0][w2 - 1] + 0.25 * {g}[i0][w2];", "  }", "}"]
            else:
                self.features.add("call of a value-returning PENCIL function")
                helpers = ("double row_mean(int w, const double r[static const restrict w])", "{",
                           "  double s = 0.0;", "  for (int k = 0; k < w; k++)", "    s += r[k];",
                           "  return s / w;", "}", "")
                lines += [f"{g}[i0][0] = 0.5 * {g}[i0][0] + 0.25 * row_mean({w}, {g}[i0]);"]
        return [Loop("i0", Aff(), "<", height, 1, (Raw(tuple(lines)),))], helpers

    def stencil(self) -> list[Node]:
        """Sometimes a Gauss-Seidel-style sweep repeated over time, the shape that is skewed,
        tiled and run by wavefronts (clangpass.passes.wavefront). A stream of its own, so that
        the seeds that get none keep their program:
        `for t < P: for 1 <= i < X - 1: for 1 <= j < Y - 1: A[i][j] = 0.2 * (5 neighbours)`.
        The new value averages old ones, so magnitudes cannot grow."""
        rng = random.Random(f"stencil {self.seed}")
        if rng.random() >= self.config.p_stencil:
            return []
        grids = [a for a in self.arrays if a.ctype == "double" and len(a.extents) == 2]
        if not grids:
            return []
        self.features.add("time-iterated stencil")
        grid = rng.choice(grids)
        (rows, row_offset), (cols, col_offset) = grid.extents
        i, j = Aff.var("i1"), Aff.var("i2")
        points = [ArrayRef(grid.name, (i + di, j + dj)) for di, dj in ((-1, 0), (0, -1), (0, 0), (0, 1), (1, 0))]
        total: Expr = points[0]
        for point in points[1:]:
            total = Binary("+", total, point)
        sweep = Assign(ArrayRef(grid.name, (i, j)), "=", Binary("*", Const(0.2, "double"), total))
        inner = Loop("i2", Aff(const=1), "<", Aff.var(cols, col_offset - 1), 1, (sweep,))
        middle = Loop("i1", Aff(const=1), "<", Aff.var(rows, row_offset - 1), 1, (inner,))
        return [Loop("i0", Aff(const=0), "<", Aff.var(rng.choice(sorted(self.sizes))), 1, (middle,))]

    def pivot(self) -> list[Node]:
        """Sometimes Floyd-Warshall's min-plus relaxation on a square 2-D array G, pivot loop
        outermost, the shape index-set splitting cuts at i = k and j = k:
        `for k < X: for i < X: for j < X: G[i][j] = G[i][j] < G[i][k] + G[k][j] ? G[i][j] :
        G[i][k] + G[k][j];` (or the test reversed, `fmin` for doubles, an if-free
        `G[i][j] - (G[i][j] - s) * (G[i][j] > s)`, or `if (s < G[i][j]) G[i][j] = s;`; i and j
        sometimes swapped). G is a double or int array of the program whose two extents share
        their size parameter (`A[n][n + 1]`; X is the smaller extent, sometimes one or two less:
        a sub-square), or an array G of its own. A nest before it makes the X x X elements
        non-negative (`fabs`, or `G < 0 ? 0 - G : G`): with non-negative values the new value
        is never larger than the old one nor negative, so magnitudes cannot grow (with
        negative values they could grow geometrically with X) and the sum stays below twice
        the array's bound. A stream of its own, so that the seeds that get none keep their
        program."""
        rng = random.Random(f"pivot {self.seed}")
        if rng.random() >= self.config.p_pivot:
            return []
        limit = {"double": 10.0 ** DOUBLE_LOG10_LIMIT / 2, "int": INT_LIMIT / 2}
        squares = [a for a in self.arrays if len(a.extents) == 2 and a.extents[0][0] == a.extents[1][0]
                   and self.bounds[a.name] < limit[a.ctype]]
        if squares and rng.random() < 0.7:
            grid = rng.choice(squares)
        else:
            fitting = [p for p in sorted(self.sizes) if self.sizes[p] ** 2 <= self.config.max_array_elements]
            if not fitting:
                return []
            param = rng.choice(fitting)
            ctype = "int" if rng.random() < 0.35 else "double"
            init = (rng.randint(1, 13), rng.randint(1, 13), rng.randint(0, 10), rng.choice((17, 19, 23, 29)))
            grid = ArrayDecl("G", ctype, ((param, 0), (param, 0)), init)
            self.arrays.append(grid)
            self.bounds[grid.name] = float(init[-1] // 2 + 1) if ctype == "int" else 1.0
        self.features.add("pivot nest")
        param = grid.extents[0][0]
        offset = min(grid.extents[0][1], grid.extents[1][1]) - rng.choice((0, 0, 0, 1, 2))
        extent = Aff.var(param, offset)
        zero = Const(0.0 if grid.ctype == "double" else 0, grid.ctype)

        def cell(row: Aff, col: Aff) -> ArrayRef:
            return ArrayRef(grid.name, (row, col))

        # the elements of the sub-square made non-negative
        a, b = Aff.var("i0"), Aff.var("i1")
        old = cell(a, b)
        if grid.ctype == "double" and rng.random() < 0.5:
            absolute: Expr = Call("fabs", (old,))
        else:
            absolute = Select(DataCompare(old, "<", zero), Binary("-", zero, old), old)
        normalise = Loop("i0", Aff(), "<", extent, 1,
                         (Loop("i1", Aff(), "<", extent, 1, (Assign(old, "=", absolute),)),))
        # the relaxation: k = i0, i = i1, j = i2
        k, i, j = Aff.var("i0"), Aff.var("i1"), Aff.var("i2")
        here = cell(i, j)
        path = Binary("+", cell(i, k), cell(k, j))
        forms = ["ternary", "ternary reversed", "if-free", "data guard"] + ["fmin"] * (grid.ctype == "double")
        form = rng.choices(forms, weights=(4, 1, 1, 1, 2)[:len(forms)])[0]
        relax: Node
        if form == "ternary":
            relax = Assign(here, "=", Select(DataCompare(here, "<", path), here, path))
        elif form == "ternary reversed":
            relax = Assign(here, "=", Select(DataCompare(path, "<", here), path, here))
        elif form == "fmin":
            relax = Assign(here, "=", Call("fmin", (here, path)))
        elif form == "if-free":
            relax = Assign(here, "=", Binary("-", here, Binary("*", Binary("-", here, path),
                                                                   Binary(">", here, path))))
        else:
            relax = DataGuard((DataCompare(path, "<", here),), "&&", (Assign(here, "=", path),))
        inner, outer = ("i1", "i2") if rng.random() < 0.25 else ("i2", "i1")
        nest = Loop("i0", Aff(), "<", extent, 1,
                    (Loop(outer, Aff(), "<", extent, 1, (Loop(inner, Aff(), "<", extent, 1, (relax,)),)),))
        return [normalise, nest]

    def exact_reduction(self) -> list[Node]:
        """Sometimes a nussinov-like triangular DP on an int array H of its own (X x X), every
        write an update of one element with one exact operator, so that pencilcc finds it as an
        exact reduction (clangpass.poly.exact_reductions) and may reorder the updates:
        `for (i0 = X - 1; i0 >= 0; i0--) for (i1 = i0 + 1; i1 < X; i1++) { H[i0][i1] =
        op(H[i0][i1], H[i0][i1 - 1]); for (i2 = i0 + 1; i2 < i1; i2++) H[i0][i1] = op(H[i0][i1],
        H[i0][i2] + H[i2 + 1][i1]); }` with op a max or a min by `?:` (either test), or the row's
        updates `|=` or `^=` a term `& 1023` (not `+=`: a signed sum is no exact reduction, its
        overflow being undefined). Magnitudes stay bounded: a max or min of sums over splits of
        the row is linear in X, the `&` terms are small. A stream
        of its own, so that the seeds that get none keep their program."""
        rng = random.Random(f"exact reduction {self.seed}")
        if rng.random() >= self.config.p_exact_reduction:
            return []
        fitting = [p for p in sorted(self.sizes) if self.sizes[p] ** 2 <= self.config.max_array_elements]
        if not fitting:
            return []
        param = rng.choice(fitting)
        init = (rng.randint(1, 13), rng.randint(1, 13), rng.randint(0, 10), rng.choice((17, 19, 23, 29)))
        table = ArrayDecl("H", "int", ((param, 0), (param, 0)), init)
        self.arrays.append(table)
        self.features.add("exact reduction nest")
        form = rng.choice(("max", "max reversed", "min", "min reversed", "or", "xor"))
        i, j, k = Aff.var("i0"), Aff.var("i1"), Aff.var("i2")
        here = ArrayRef("H", (i, j))
        left = ArrayRef("H", (i, j + (-1)))
        split = Binary("+", ArrayRef("H", (i, k)), ArrayRef("H", (k + 1, j)))

        def update(value: Expr) -> Assign:
            if form == "or":
                return Assign(here, "|=", Binary("&", value, Const(1023, "int")))
            if form == "xor":
                return Assign(here, "^=", Binary("&", value, Const(1023, "int")))
            keep = {"max": ">=", "max reversed": ">", "min": "<=", "min reversed": "<"}[form]
            if form.endswith("reversed"):     # the test the other way round: `e < H ? H : e`
                flipped = {">": "<", "<": ">"}[keep]
                return Assign(here, "=", Select(DataCompare(value, flipped, here), here, value))
            return Assign(here, "=", Select(DataCompare(here, keep, value), here, value))

        extent = Aff.var(param)
        chain = Loop("i2", i + 1, "<", j, 1, (update(split),))
        row = Loop("i1", i + 1, "<", extent, 1, (update(left), chain))
        bound = float(init[-1] // 2 + 1)
        growth = 1024.0 if form in ("or", "xor") else bound * (self.sizes[param] + 1)
        self.bounds["H"] = bound + growth
        return [Loop("i0", Aff.var(param, -1), ">=", Aff(), -1, (row,))]

    def triangular_chain(self) -> list[Node]:
        """Sometimes PolyBench symm's nest on arrays of its own, SA (X x X, only its lower triangle
        read) and SB, SC (X x Y), through a double scalar y0:
        `for i0 < X: for i1 < Y: { y0 = 0.0; for (i2 = 0; i2 < i0; i2++) { [SC[i2][i1] += 0.5 *
        SB[i0][i1] * SA[i0][i2];] y0 += SB[i2][i1] * SA[i0][i2]; } SC[i0][i1] = 0.5 * SC[i0][i1] +
        0.25 * y0; }` (the update of the rows above in half the programs), which reduction-jam
        jams by rows and columns on y0 expanded along both (docs/passes/reduction-jam.md, scalar
        tiles). Magnitudes grow with X at most (X terms of products of values in [0, 1]). A
        stream of its own, so that the seeds that get none keep their program."""
        rng = random.Random(f"triangular chain {self.seed}")
        if rng.random() >= self.config.p_triangular_chain:
            return []
        pairs = [(x, y) for x in sorted(self.sizes) for y in sorted(self.sizes)
                 if self.sizes[x] * max(self.sizes[x], self.sizes[y]) <= self.config.max_array_elements]
        if not pairs:
            return []
        rows, cols = rng.choice(pairs)
        square = ArrayDecl("SA", "double", ((rows, 0), (rows, 0)), (rng.randint(1, 13), rng.randint(1, 13),
                                                                  rng.randint(0, 10), rng.choice((17, 19, 23, 29))))
        right = ArrayDecl("SB", "double", ((rows, 0), (cols, 0)), (rng.randint(1, 13), rng.randint(1, 13),
                                                                 rng.randint(0, 10), rng.choice((17, 19, 23, 29))))
        out = ArrayDecl("SC", "double", ((rows, 0), (cols, 0)), (rng.randint(1, 13), rng.randint(1, 13),
                                                               rng.randint(0, 10), rng.choice((17, 19, 23, 29))))
        self.arrays += [square, right, out]
        self.scalars.append(ScalarDecl("y0", "double", "temp", 0.0))
        self.features.add("triangular scalar chain")
        i, j, k = Aff.var("i0"), Aff.var("i1"), Aff.var("i2")
        x = float(self.sizes[rows])
        self.bounds.update({"SA": 1.0, "SB": 1.0, "y0": x, "SC": 1.0 + 0.5 * x + 0.25 * x})
        chain = [Assign(ScalarRef("y0"), "+=", Binary("*", ArrayRef("SB", (k, j)), ArrayRef("SA", (i, k))))]
        if rng.random() < 0.5:
            chain.insert(0, Assign(ArrayRef("SC", (k, j)), "+=", Binary(
                "*", Binary("*", Const(0.5, "double"), ArrayRef("SB", (i, j))), ArrayRef("SA", (i, k)))))
        end = Assign(ArrayRef("SC", (i, j)), "=", Binary("+", Binary("*", Const(0.5, "double"), ArrayRef("SC", (i, j))),
                                                        Binary("*", Const(0.25, "double"), ScalarRef("y0"))))
        column = (Assign(ScalarRef("y0"), "=", Const(0.0, "double")), Loop("i2", Aff(), "<", i, 1, tuple(chain)), end)
        return [Loop("i0", Aff(), "<", Aff.var(rows), 1, (Loop("i1", Aff(), "<", Aff.var(cols), 1, column),))]

    # -- value style (passes reuse-in-place and contract-arrays) ---------------

    def value_style(self) -> list[Node]:
        """Sometimes value-style code at the end of the region, one or two of: a copy with kill
        (`value_copy`), a time-expanded array (`value_time`), a plane fold with copy-back
        (`value_fold`), a pipeline over whole scratch arrays (`value_pipeline`). Each defines
        new arrays from old ones and kills what dies, some forms so that storage can be reused
        or contracted and some so that it must not be (a neighbour read, a scratch array that
        is printed, a row read again at the end). Every form leaves its result in an array
        `main` prints, and every killed array is written before it is read. A stream of its
        own, so that the seeds that get none keep their program."""
        rng = random.Random(f"value style {self.seed}")
        if rng.random() >= self.config.p_value_style:
            return []
        forms = rng.sample(("copy", "time", "fold", "pipeline"), k=rng.choice((1, 1, 2)))
        build = {"copy": self.value_copy, "time": self.value_time, "fold": self.value_fold,
                 "pipeline": self.value_pipeline}
        nodes: list[Node] = []
        for form in forms:
            nodes += build[form](rng)
        if any(isinstance(n, Block) for n in nodes):
            self.features.add("region-local array")
        if any(isinstance(n, Kill) for n in nodes):
            self.features.add("pencil kill")
        return nodes

    def value_array(self, name: str, extents: tuple[tuple[str, int], ...], rng: random.Random,
                    role: str = "caller") -> ArrayDecl:
        """A new double array of the value-style forms (values in [-0.5, 0.5), bound 1)."""
        init = tuple(rng.randint(1, 13) for _ in extents) + (rng.randint(0, 10), rng.choice((17, 19, 23, 29)))
        decl = ArrayDecl(name, "double", extents, init, role)
        self.arrays.append(decl)
        self.bounds[name] = 1.0
        self.value_arrays.add(name)
        self.value_made.add(name)
        return decl

    def unmake(self, decl: ArrayDecl) -> None:
        """Forget `decl` as a value-style array (removed if it was a new one)."""
        self.value_arrays.discard(decl.name)
        if decl.name in self.value_made:
            self.value_made.discard(decl.name)
            self.arrays.remove(decl)
            del self.bounds[decl.name]

    def value_shape(self, dims: int, rng: random.Random) -> tuple[tuple[str, int], ...]:
        return tuple((rng.choice(sorted(self.sizes)), rng.choices((0, 1), weights=(0.8, 0.2))[0])
                     for _ in range(dims))

    def value_input(self, name: str, dims: int, rng: random.Random, written: bool) -> ArrayDecl:
        """One of the program's double arrays of `dims` dimensions (half the time, when there is
        one), else a new array `name`; `written`: the form writes it (it never overlaps another)."""
        own = [a for a in self.arrays if a.ctype == "double" and a.role == "caller" and len(a.extents) == dims
               and a.name not in self.value_arrays]
        if own and rng.random() < 0.5:
            decl = rng.choice(own)
            if written:
                self.value_arrays.add(decl.name)
            return decl
        return self.value_array(name, self.value_shape(dims, rng), rng)

    def elements(self, extents: Sequence[tuple[str, int]]) -> int:
        return math.prod(self.sizes[p] + c for p, c in extents)

    def value_copy(self, rng: random.Random) -> list[Node]:
        """A new array V defined from A, then `__pencil_kill(A)`; with a copy back (most of the
        time) `A = V; __pencil_kill(V)` (V a caller's scratch or a region-local array, the
        shape of single-assignment code: pass reuse-in-place stores V in A), else V is the
        result and A, a scratch of its own, dies (not stored: V is live after the region).
        V is defined as `0.5 * A[x] + 0.25` (a map), as a copy of A with one column patched
        from its neighbour (which the nest only copies: reusable), or from a neighbour or the
        mirror element of A that the nest itself overwrites (reuse would order the nest:
        refused). Values average old ones: magnitudes cannot grow."""
        back = rng.random() < 0.7
        dims = rng.randint(1, 2)
        if back:
            source = self.value_input("U", dims, rng, written=True)
        else:
            source = self.value_array("U", self.value_shape(dims, rng), rng, role="scratch")
        local = back and rng.random() < 0.4
        role = "local" if local else ("scratch" if back else "caller")
        copy = self.value_array("V", source.extents, rng, role=role)
        how = rng.choice(("map", "patch", "neighbour", "mirror"))
        self.features.add("copy with kill" + (" and copy back" if back else ""))
        extents = source.extent_affs()
        half, quarter = Const(0.5, "double"), Const(0.25, "double")

        def a(*sub: Aff) -> ArrayRef:
            return ArrayRef(source.name, sub)

        def v(*sub: Aff) -> ArrayRef:
            return ArrayRef(copy.name, sub)

        nodes: list[Node] = []
        if how == "map":
            nodes.append(_nest_over(extents, lambda x: Assign(v(*x), "=", Binary("+", Binary("*", half, a(*x)), quarter))))
        elif how == "patch":
            self.features.add("patched copy")
            column = rng.choice((0, 1))
            nodes.append(_nest_over(extents, lambda x: Assign(v(*x), "=", a(*x))))
            nodes.append(_nest_over(extents[:-1], lambda x: Assign(
                v(*x, Aff(const=column)), "=",
                Binary("+", Binary("*", half, a(*x, Aff(const=column))), Binary("*", quarter, a(*x, Aff(const=column + 1)))))))
        elif how == "neighbour":
            self.features.add("neighbour read")
            nodes += _edges_and_interior(
                extents, lambda x: v(*x), lambda x: a(*x),
                lambda x, j: Binary("+", Binary("*", half, a(*x, j)),
                                    Binary("*", quarter, Binary("+", a(*x, j + (-1)), a(*x, j + 1)))))
        else:
            self.features.add("neighbour read")
            mirror = lambda x: a(*x[:-1], Aff.of((x[-1].terms[0][0], -1)) + extents[-1] + (-1))  # noqa: E731
            nodes.append(_nest_over(extents, lambda x: Assign(
                v(*x), "=", Binary("+", Binary("*", half, a(*x)), Binary("*", quarter, mirror(x))))))
        nodes.append(Kill(source.name))
        if back:
            nodes.append(_nest_over(extents, lambda x: Assign(a(*x), "=", v(*x))))
            if not local:
                nodes.append(Kill(copy.name))
        result = source if back else copy
        self.bounds[result.name] = max(self.bounds[source.name], 1.0)
        return [Block((copy.name,), tuple(nodes))] if local else nodes

    def value_time(self, rng: random.Random) -> list[Node]:
        """A time-expanded array: `X[0][x] = H[x]`, then for each step t `X[t + 1][x]` the mean of
        X[t]'s neighbours (1-D: three, boundaries copied, in separate statements or under
        affine guards; 2-D: the plane copied, then its interior overwritten by a 5-point mean),
        then `Y[x] = X[T][x]`. X is caller scratch killed after the region (contract-arrays
        folds its time dimension: `X[t mod 2]`) or region-local, or it must keep its storage:
        printed by main (not killed), or its first step read again at the end
        (`Y[x] = 0.5 * X[T][x] + 0.5 * X[0][x]`). Means never grow magnitudes."""
        dims = 2 if self.config.max_depth == 3 and rng.random() < 0.4 else 1
        steps = rng.choice(sorted(self.sizes))
        smallest = min(sorted(self.sizes), key=lambda p: self.sizes[p])
        if dims == 2 and self.elements(((smallest, 1), (smallest, 0), (smallest, 0))) > self.config.max_array_elements:
            dims = 1   # every array within max_array_elements, as declare() keeps the program's
        source = self.value_input("H", dims, rng, written=False)
        if self.elements(((steps, 1),) + source.extents) > self.config.max_array_elements:
            steps = smallest
            if self.elements(((steps, 1),) + source.extents) > self.config.max_array_elements:
                self.unmake(source)
                source = self.value_array("H", ((smallest, 0),) * dims, rng)
        how = rng.choices(("kill", "local", "live", "read after"), weights=(5, 2, 2, 2))[0]
        role = {"kill": "scratch", "local": "local", "live": "caller", "read after": "scratch"}[how]
        expanded = self.value_array("X", ((steps, 1),) + source.extents, rng, role=role)
        result = self.value_array("Y", source.extents, rng)
        self.features.add(f"time-expanded {dims}-D array")
        extents = source.extent_affs()
        t = Aff.var("i0")

        def x_at(step: Aff, *sub: Aff) -> ArrayRef:
            return ArrayRef(expanded.name, (step, *sub))

        nodes: list[Node] = [_nest_over(extents, lambda s: Assign(x_at(Aff(), *s), "=", ArrayRef(source.name, s)))]
        if dims == 1:
            width = extents[0]
            old = lambda j: x_at(t, j)  # noqa: E731
            mean = Binary("/", Binary("+", Binary("+", old(Aff.var("i1", -1)), old(Aff.var("i1"))),
                                      old(Aff.var("i1", 1))), Const(3.0, "double"))
            new = x_at(t + 1, Aff.var("i1"))
            if rng.random() < 0.5:
                body: tuple[Node, ...] = tuple(_edges_and_interior(
                    (width,), lambda s: x_at(t + 1, *s), lambda s: x_at(t, *s), lambda s, j: mean, first=1))
            else:
                j = Aff.var("i1")
                body = (Loop("i1", Aff(), "<", width, 1, (
                    Guard((Compare(j, ">=", Aff(const=1)), Compare(j, "<=", width + (-2))), (Assign(new, "=", mean),)),
                    Guard((Compare(j, "==", Aff()),), (Assign(new, "=", old(j)),)),
                    Guard((Compare(j, ">=", width + (-1)),), (Assign(new, "=", old(j)),)))),)
        else:
            i, j = Aff.var("i1"), Aff.var("i2")
            points = [x_at(t, i + di, j + dj) for di, dj in ((-1, 0), (0, -1), (0, 0), (0, 1), (1, 0))]
            total: Expr = points[0]
            for point in points[1:]:
                total = Binary("+", total, point)
            height, width = extents
            interior = Loop("i1", Aff(const=1), "<", height + (-1), 1, (
                Loop("i2", Aff(const=1), "<", width + (-1), 1,
                     (Assign(x_at(t + 1, i, j), "=", Binary("*", Const(0.2, "double"), total)),)),))
            body = (_nest_over(extents, lambda s: Assign(x_at(t + 1, *s), "=", x_at(t, *s)), first=1), interior)
        nodes.append(Loop("i0", Aff(), "<", Aff.var(steps), 1, body))
        last = Aff.var(steps)
        if how == "read after":
            self.features.add("expanded array read again")
            nodes.append(_nest_over(extents, lambda s: Assign(ArrayRef(result.name, s), "=", Binary(
                "+", Binary("*", Const(0.5, "double"), x_at(last, *s)), Binary("*", Const(0.5, "double"), x_at(Aff(), *s))))))
        else:
            nodes.append(_nest_over(extents, lambda s: Assign(ArrayRef(result.name, s), "=", x_at(last, *s))))
        if role == "scratch":
            nodes.append(Kill(expanded.name))
        self.bounds[expanded.name] = self.bounds[result.name] = max(self.bounds[source.name], 1.0)
        return [Block((expanded.name,), tuple(nodes))] if how == "local" else nodes

    def value_fold(self, rng: random.Random) -> list[Node]:
        """A fold of the planes of F into an accumulator R (1-D or 2-D) with copy-back, the
        shape of van Cuyck and Scholz's in-place folding: `for k < P: { Z[x] = R[x] + 0.5 *
        F[k][x]; R[x] = Z[x]; }` or with `fmax(R[x], F[k][x])`. Z is caller scratch killed
        after the fold or region-local (reuse-in-place folds it into R), or printed by main
        (it must keep its storage). R is one of the program's arrays or one of its own."""
        dims = 2 if self.config.max_depth == 3 and rng.random() < 0.4 else 1
        smallest = min(sorted(self.sizes), key=lambda p: self.sizes[p])
        if self.elements(((smallest, 0),) * (dims + 1)) > self.config.max_array_elements:
            dims = 1   # every array within max_array_elements, as declare() keeps the program's
        acc = self.value_input("R", dims, rng, written=True)
        planes = rng.choice(sorted(self.sizes))
        if self.elements(((planes, 0),) + acc.extents) > self.config.max_array_elements:
            planes = smallest
            if self.elements(((planes, 0),) + acc.extents) > self.config.max_array_elements:
                self.unmake(acc)
                acc = self.value_array("R", ((smallest, 0),) * dims, rng)
        folded = self.value_array("F", ((planes, 0),) + acc.extents, rng)
        how = rng.choices(("kill", "local", "live"), weights=(5, 3, 2))[0]
        role = {"kill": "scratch", "local": "local", "live": "caller"}[how]
        following = self.value_array("Z", acc.extents, rng, role=role)
        use_max = rng.random() < 0.5
        self.features.add("plane fold with " + ("fmax" if use_max else "+"))
        extents = acc.extent_affs()
        k = Aff.var("i0")

        def next_value(x: tuple[Aff, ...]) -> Expr:
            plane = ArrayRef(folded.name, (k, *x))
            if use_max:
                return Call("fmax", (ArrayRef(acc.name, x), plane))
            return Binary("+", ArrayRef(acc.name, x), Binary("*", Const(0.5, "double"), plane))

        step = (_nest_over(extents, lambda x: Assign(ArrayRef(following.name, x), "=", next_value(x)), first=1),
                _nest_over(extents, lambda x: Assign(ArrayRef(acc.name, x), "=", ArrayRef(following.name, x)), first=1))
        nodes: list[Node] = [Loop("i0", Aff(), "<", Aff.var(planes), 1, step)]
        if role == "scratch":
            nodes.append(Kill(following.name))
        if use_max:
            self.bounds[acc.name] = max(self.bounds[acc.name], 1.0)
        else:
            self.bounds[acc.name] += 0.5 * self.sizes[planes]
        self.bounds[following.name] = self.bounds[acc.name]
        return [Block((following.name,), tuple(nodes))] if how == "local" else nodes

    def value_pipeline(self, rng: random.Random) -> list[Node]:
        """A pipeline of two or three stages over whole arrays, as image code writes one:
        `J[x] = 0.5 * L[x] + 0.25`, then `K` a 3-point mean of J along a dimension (boundaries
        copied), then `O[x] = 0.5 * K[x] - 0.25 * J[x]` (three stages), or O the mean of J (two).
        The scratch arrays J and K are caller arrays killed after the pipeline, or region-local,
        or (sometimes) printed by main. Means never grow magnitudes."""
        dims = rng.randint(1, 2)
        source = self.value_input("L", dims, rng, written=False)
        stages = rng.choice((2, 3))
        how = rng.choices(("kill", "local", "live"), weights=(6, 3, 1))[0]
        role = {"kill": "scratch", "local": "local", "live": "caller"}[how]
        scratch = [self.value_array(name, source.extents, rng, role=role) for name in ("J", "K")[:stages - 1]]
        out = self.value_array("O", source.extents, rng)
        self.features.add(f"{stages}-stage pipeline")
        extents = source.extent_affs()
        axis = rng.randrange(dims)
        first = scratch[0]
        nodes: list[Node] = [_nest_over(extents, lambda x: Assign(ArrayRef(first.name, x), "=", Binary(
            "+", Binary("*", Const(0.5, "double"), ArrayRef(source.name, x)), Const(0.25, "double"))))]
        smoothed = scratch[1] if stages == 3 else out
        nodes += _smooth(extents, axis, first.name, smoothed.name)
        if stages == 3:
            nodes.append(_nest_over(extents, lambda x: Assign(ArrayRef(out.name, x), "=", Binary(
                "-", Binary("*", Const(0.5, "double"), ArrayRef(smoothed.name, x)),
                Binary("*", Const(0.25, "double"), ArrayRef(first.name, x))))))
        if role == "scratch":
            nodes += [Kill(s.name) for s in scratch]
        for decl in scratch + [out]:
            self.bounds[decl.name] = max(self.bounds[source.name], 1.0)
        return [Block(tuple(s.name for s in scratch), tuple(nodes))] if how == "local" else nodes

    def overlaps(self) -> tuple[tuple[str, str], ...]:
        """Sometimes one double array is passed for another of the same shape. A stream of its
        own: the choice changes no program body, so every seed keeps its kernel."""
        rng = random.Random(f"overlap {self.seed}")
        if rng.random() >= self.config.p_overlap:
            return ()
        pairs = [(a.name, b.name) for a in self.arrays for b in self.arrays
                 if a.name < b.name and a.ctype == b.ctype == "double" and a.extents == b.extents
                 and not {a.name, b.name} & self.value_arrays and a.role == b.role == "caller"]
        if not pairs:
            return ()
        self.features.add("overlapping arguments")
        first, second = rng.choice(pairs)
        return ((second, first),)

    def describe(self, program: Program) -> str:
        n_int = sum(a.ctype == "int" for a in program.arrays)
        nests = sum(isinstance(n, Loop) for n in program.body)
        stmts = sum(1 for _ in walk_statements(program.body))
        sizes = ", ".join(f"{k}={v}" for k, v in program.params)
        parts = [f"{nests} nest{'s' * (nests != 1)}", f"depth {program.depth}",
                 f"{stmts} statements", f"{len(program.arrays)} arrays ({n_int} int)", sizes]
        features = set(self.features)
        guards = list(walk_data_guards(program.body))
        if guards:
            features.add("data guard")
        if any(g.otherwise for g in guards):
            features.add("data guard else")
        if any(isinstance(n, Local) for n in walk_nodes(program.body)):
            features.add("affine local")
        if any(n.independent for n in walk_loops(program.body)):
            features.add("independent")
        parts += sorted(features)
        return "; ".join(parts)


def _nest_over(extents: Sequence[Aff], make: Callable[[tuple[Aff, ...]], Node], first: int = 0) -> Node:
    """`for i{first} < E0: for i{first + 1} < E1: ... make((i{first}, ...))` (a statement alone
    when `extents` is empty)."""
    its = tuple(Aff.var(f"i{first + d}") for d in range(len(extents)))
    node = make(its)
    for d in reversed(range(len(extents))):
        node = Loop(f"i{first + d}", Aff(), "<", extents[d], 1, (node,))
    return node


def _edges_and_interior(extents: Sequence[Aff], target: Callable[[tuple[Aff, ...]], ArrayRef],
                        edge: Callable[[tuple[Aff, ...]], Expr],
                        interior: Callable[[tuple[Aff, ...], Aff], Expr], first: int = 0) -> list[Node]:
    """Every element of the last dimension written, row by row: `target[.., 0] = edge(.., 0)`,
    `target[.., j] = interior(.., j)` for 1 <= j < W - 1, `target[.., W - 1] = edge(.., W - 1)`
    (W = extents[-1]; the outer dimensions looped over from i{first})."""
    width = extents[-1]
    j = Aff.var(f"i{first + len(extents) - 1}")

    def row(x: tuple[Aff, ...]) -> tuple[Node, ...]:
        low, high = Aff(), width + (-1)
        return (Assign(target((*x, low)), "=", edge((*x, low))),
                Loop(j.terms[0][0], Aff(const=1), "<", width + (-1), 1, (Assign(target((*x, j)), "=", interior(x, j)),)),
                Assign(target((*x, high)), "=", edge((*x, high))))

    outer = extents[:-1]
    if not outer:
        return list(row(()))
    its = tuple(Aff.var(f"i{first + d}") for d in range(len(outer)))
    node: Node = Loop(f"i{first + len(outer) - 1}", Aff(), "<", outer[-1], 1, row(its))
    for d in reversed(range(len(outer) - 1)):
        node = Loop(f"i{first + d}", Aff(), "<", outer[d], 1, (node,))
    return [node]


def _smooth(extents: Sequence[Aff], axis: int, source: str, target: str) -> list[Node]:
    """`target` = the 3-point mean `0.25 * (s[x - e] + 2.0 * s[x] + s[x + e])` of `source` along
    dimension `axis` (e its unit vector), the first and last elements along it copied."""
    def shifted(x: tuple[Aff, ...], by: int) -> ArrayRef:
        return ArrayRef(source, tuple(s + by if d == axis else s for d, s in enumerate(x)))

    def mean(x: tuple[Aff, ...]) -> Expr:
        return Binary("*", Const(0.25, "double"), Binary(
            "+", Binary("+", shifted(x, -1), Binary("*", Const(2.0, "double"), shifted(x, 0))), shifted(x, 1)))

    if axis == len(extents) - 1:
        return _edges_and_interior(extents, lambda x: ArrayRef(target, x), lambda x: shifted(x, 0),
                                   lambda x, j: mean((*x, j)))
    # along the first of two dimensions: the first and last rows copied, the rows between averaged
    height, width = extents
    i, j = Aff.var("i0"), Aff.var("i1")
    edges = Loop("i1", Aff(), "<", width, 1, tuple(
        Assign(ArrayRef(target, (row, j)), "=", ArrayRef(source, (row, j))) for row in (Aff(), height + (-1))))
    inner = Loop("i0", Aff(const=1), "<", height + (-1), 1, (
        Loop("i1", Aff(), "<", width, 1, (Assign(ArrayRef(target, (i, j)), "=", mean((i, j))),)),))
    return [edges, inner]


def _affs(node: Node) -> Iterator[Aff]:
    """Every affine expression in `node` and below (subscripts, bounds, conditions, values)."""
    def of_expr(expr: Expr) -> Iterator[Aff]:
        for e in expr_nodes(expr):
            if isinstance(e, ArrayRef):
                yield from e.subscripts
            elif isinstance(e, IterValue):
                yield e.expr

    def of_condition(cond: Condition | DataCompare) -> Iterator[Aff]:
        if isinstance(cond, DataCompare):
            yield from of_expr(cond.lhs)
            yield from of_expr(cond.rhs)
        elif isinstance(cond, ModEq):
            yield cond.expr
        else:
            yield cond.lhs
            yield cond.rhs

    for n in walk_nodes([node]):
        if isinstance(n, Assign):
            yield from of_expr(n.target)
            yield from of_expr(n.value)
        elif isinstance(n, Loop):
            yield n.start
            yield n.bound
        elif isinstance(n, (Guard, DataGuard)):
            for cond in n.conditions:
                yield from of_condition(cond)
        elif isinstance(n, Local):
            yield n.value


def provably_independent(loop: Loop) -> bool:
    """Whether the iterations of `loop` touch disjoint data: no scalar is written inside it,
    and every access to an array written inside it has the loop's own iterator as one same
    subscript (`A[i1][...]`, `B[...][i1]`), so distinct iterations touch distinct elements.
    Sufficient for `#pragma pencil independent` (iterators of inner loops are not data)."""
    it = Aff.var(loop.iterator)
    statements = [s for s in walk_statements(loop.body) if isinstance(s, Assign)]
    if any(isinstance(s.target, ScalarRef) for s in statements):
        return False
    accesses = [a for n in walk_nodes(loop.body) if isinstance(n, (Assign, DataGuard))
                for a in statement_accesses(n)]
    for name in {s.target.array for s in statements}:  # type: ignore[union-attr]
        refs = [a for a in accesses if a.array == name]
        if not any(all(r.subscripts[d] == it for r in refs) for d in range(len(refs[0].subscripts))):
            return False
    return True


def _used_locals(body: tuple[Node, ...]) -> tuple[Node, ...]:
    """`body` without the affine locals that nothing after them reads."""
    kept = []
    for k, node in enumerate(body):
        if isinstance(node, Local) and not any(node.name in aff.variables()
                                               for later in body[k + 1:] for aff in _affs(later)):
            continue
        kept.append(node)
    return tuple(kept)


def generate(seed: int, config: GenConfig = GenConfig()) -> GeneratedProgram:
    """The random program of `seed` under `config` (deterministic)."""
    program, description = _Builder(seed, config).program()
    problems = check_in_bounds(program)
    if problems:  # a generator bug: never hand out an out-of-bounds program
        raise AssertionError(f"seed {seed}: generated program is out of bounds: {problems[0]}")
    # A stream of its own: the flags never change the program a seed gives.
    flags = ("--cache-sizes=1K,2K",) if random.Random(f"flags {seed}").random() < config.p_small_cache else ()
    if random.Random(f"target {seed}").random() < config.p_opencl:
        flags += ("-fpencil-target=opencl",)
    cluster = random.Random(f"cluster {seed}").random()
    if cluster < config.p_cluster:
        flags += ("-fpencil-cluster=" + ("scc" if cluster < config.p_cluster / 2 else "bb"),)
    spelling = draw_spelling(seed, config)
    if spelling.no_scop:
        flags += ("-fpencil-detect",)
    if spelling.features():
        description += f"; written with {', '.join(spelling.features())}"
    if flags:
        description += f"; pencilcc {' '.join(flags)}"
    emit_c = random.Random(f"emit c {seed}").random() < config.p_emit_c
    if emit_c:
        description += "; its C from -fpencil-emit-c checked too"
    return GeneratedProgram(seed, render(program, description, spelling), description, program, flags, spelling,
                            emit_c)
