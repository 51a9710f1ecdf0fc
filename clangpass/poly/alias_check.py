# SPDX-License-Identifier: MIT
"""Run-time alias checks: the condition under which a region's arrays cannot overlap.

Input: a `Scop` (its arguments, accesses, domains and context). Output: an
`AliasCheck`: the pairs of arrays that may overlap, and a C expression of the
region's arguments that is true only when no written array overlaps another
array the region accesses. The driver versions the region on it (optimized code
when true, the original text otherwise, clangpass.driver.rewrite); the CPU back
end then marks the outlined function's array parameters `noalias`.

Which pairs need a check (C99 6.7.3.1 and 6.2.4): two distinct named arrays
(local, global, or a written scalar passed by address) are distinct objects;
a `restrict`-qualified pointer or array parameter (PENCIL's `pencil_array`) may
be assumed not to overlap anything it is not based on; arrays only read may
overlap freely. Every other pair of a plain pointer or an array parameter (both
decay to a pointer the caller chooses) with another array, one of them written,
is checked.

The range of an array is computed in the polyhedral model, as Polly's run-time
alias checks do (Grosser et al., "Polly - polyhedral optimization in LLVM",
IMPACT 2011, and Polly's ScopInfo): the elements accessed over the region's
domain under its context, `[P] -> { A[a0, ...] }`, whose first subscript is
bounded by `dim_min`/`dim_max` as piecewise affine functions of the parameters.
Inner dimensions are widened to whole rows: the range is `A + min0` up to one
past `A + max0`, in units of `A`'s rows, which needs no extent of any dimension.
Each bound is printed as C by isl's AST expression printer; an array the
region may not access at all for some parameters is guarded by the condition
that it does. An unbounded range (a parameter the accesses do not bound, a
non-affine subscript) raises `NotModelled`: the region falls back.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional

import islpy as isl

from clangpass.ir import types as T
from clangpass.poly.extract import NotModelled
from clangpass.poly.scop import Scop
from clangpass.regions import OptRegion, RegionArg

# The C spelling of the address an array range bound is compared as (gcc and clang
# predefine it; the rewritten file then needs no <stdint.h>).
ADDRESS_TYPE = "__UINTPTR_TYPE__"

# isl prints min/max/floor division as calls; these names cannot clash with the user's.
_OPERATOR_NAMES = {
    isl.ast_expr_op_type.min: "__pencilcc_min",
    isl.ast_expr_op_type.max: "__pencilcc_max",
    isl.ast_expr_op_type.fdiv_q: "__pencilcc_floord",
}


@dataclass(frozen=True)
class AddressRange:
    """The bytes of one array a region may access, as C expressions of its arguments."""

    array: str
    start: str                 # first address, as ADDRESS_TYPE
    end: str                   # one past the last address, as ADDRESS_TYPE
    accessed: str = ""         # C condition under which the region accesses it ('' = always)


@dataclass(frozen=True)
class AliasCheck:
    """What the driver and the back end need to run a region only on non-overlapping arrays."""

    pairs: tuple[tuple[str, str], ...] = ()    # the checked pairs, sorted
    condition: str = ""                        # C expression, true when no pair overlaps; '' = no check
    macros: tuple[str, ...] = ()               # `#define` lines `condition` needs (isl's own)


def with_condition(check: Optional[AliasCheck], condition: str, macros: tuple[str, ...] = ()) -> Optional[AliasCheck]:
    """`check` with `condition` (C, on the region's arguments) joined to its condition, and the
    `#define` lines it uses: the storage conditions of the passes that allocate region memory."""
    if not condition:
        return check
    check = check if check is not None else AliasCheck()
    joined = " && ".join(c for c in (check.condition, condition) if c)
    return replace(check, condition=joined, macros=check.macros + tuple(m for m in macros if m not in check.macros))


# ----------------------------------------------------------------------------- which pairs
def _is_restrict(arg: RegionArg) -> bool:
    return arg.type.restrict and isinstance(arg.type, (T.ArrayType, T.PointerType))


def _is_caller_pointer(arg: RegionArg) -> bool:
    """A plain pointer or an array parameter: it may point anywhere, into another array too."""
    if arg.passing != "array" or _is_restrict(arg):
        return False
    return isinstance(arg.type, T.PointerType) or arg.scope == "param"


def candidate_pairs(region: OptRegion, written: frozenset[str],
                    accessed: Optional[frozenset[str]] = None) -> tuple[tuple[str, str], ...]:
    """The pairs of `region`'s arguments that may overlap with one of them in `written`.

    `accessed` limits the arguments to the arrays the model accesses (None: every
    array or by-address argument)."""
    memory = [a for a in region.args if a.passing in ("array", "pointer")
              and not isinstance(a.type, T.StructType) and (accessed is None or a.name in accessed)]
    pairs: list[tuple[str, str]] = []
    for i, first in enumerate(memory):
        for second in memory[i + 1:]:
            if _is_restrict(first) or _is_restrict(second):
                continue
            if not (_is_caller_pointer(first) or _is_caller_pointer(second)):
                continue
            if first.name in written or second.name in written:
                pairs.append(tuple(sorted((first.name, second.name))))
    return tuple(sorted(pairs))


def unchecked_overlap(region: OptRegion) -> str:
    """Why `region` cannot run without an alias check ('' if it can): it was not made."""
    pairs = candidate_pairs(region, frozenset(a.name for a in region.args if a.written))
    if not pairs:
        return ""
    named = ", ".join(f"'{a}' and '{b}'" for a, b in pairs)
    return f"arrays {named} may overlap and pass 'alias-check' (their run-time check) is disabled"


# ----------------------------------------------------------------------------- C printing
def _printer(ctx: isl.Context) -> isl.Printer:
    printer = isl.Printer.to_str(ctx).set_output_format(isl.format.C)
    for op, name in _OPERATOR_NAMES.items():
        printer = printer.ast_op_type_set_print_name(op, name)
    return printer


def c_expression(expr: isl.AstExpr) -> tuple[str, tuple[str, ...]]:
    """`expr` as C (isl's printer) and the `#define` lines of the operators it uses."""
    text = _printer(expr.get_ctx()).print_ast_expr(expr).get_str()
    macros = expr.print_macros(_printer(expr.get_ctx())).get_str()
    return text, tuple(line for line in macros.splitlines() if line.strip())


# ----------------------------------------------------------------------------- ranges
def _accessed_elements(scop: Scop, name: str) -> isl.Set:
    """[P] -> { A[a..] }: the elements of `name` the region accesses, under its context."""
    accesses = scop.reads.union(scop.writes).intersect_domain(scop.domain)   # [P] -> { S[i..] -> A[a..] }
    out: Optional[isl.Set] = None

    def collect(m: isl.Map) -> None:
        nonlocal out
        if m.get_tuple_name(isl.dim_type.out) == name:
            elements = m.range()
            out = elements if out is None else out.union(elements)

    accesses.foreach_map(collect)
    if out is None:
        return isl.Set.empty(isl.Space.create_from_names(scop.context.get_ctx(), set=[],
                                                         params=list(scop.params)))
    return out.intersect_params(scop.context).coalesce()


def _in_wide_arithmetic(s: isl.Set) -> isl.Set:
    """`s` with each parameter named `(long long)<name>`: the printed bounds (`3 * n - 3`)
    are then computed without overflowing the parameters' own `int`."""
    for k in range(s.dim(isl.dim_type.param)):
        s = s.set_dim_name(isl.dim_type.param, k, f"(long long){s.get_dim_name(isl.dim_type.param, k)}")
    return s


def address_range(scop: Scop, arg: RegionArg, macros: list[str]) -> Optional[AddressRange]:
    """The address range of `arg`'s accesses (None: never accessed); adds needed macros to `macros`."""
    elements = _in_wide_arithmetic(_accessed_elements(scop, arg.name))     # [P] -> { A[a..] }
    context = _in_wide_arithmetic(scop.context)                             # [P] -> { : }
    if elements.is_empty():
        return None
    base = f"&{arg.name}" if arg.passing == "pointer" else f"({arg.name})"
    if elements.dim(isl.dim_type.set) == 0:             # a scalar: its own bytes
        return AddressRange(arg.name, f"({ADDRESS_TYPE})({base})", f"({ADDRESS_TYPE})({base} + 1)")
    where_accessed = elements.params()                   # [P] -> { : A is accessed }
    try:
        low = elements.dim_min(0)                        # [P] -> { [(min a0)] }
        high = elements.dim_max(0)                       # [P] -> { [(max a0)] }
    except isl.Error:
        low = high = None
    if low is None or high is None or low.involves_nan() or high.involves_nan():
        raise NotModelled("pencil-alias-check", f"the elements of '{arg.name}' the region accesses are not bounded by its "
                          f"parameters, so no run-time check that the arrays do not overlap can be built")
    build = isl.AstBuild.from_context(where_accessed)
    low_c, low_macros = c_expression(build.expr_from_pw_aff(low))
    high_c, high_macros = c_expression(build.expr_from_pw_aff(high))
    macros.extend(m for m in low_macros + high_macros if m not in macros)
    accessed = ""
    if not where_accessed.is_equal(context):
        guard, guard_macros = c_expression(isl.AstBuild.from_context(context).expr_from_set(where_accessed))
        macros.extend(m for m in guard_macros if m not in macros)
        accessed = guard
    return AddressRange(arg.name, f"({ADDRESS_TYPE})({base} + ({low_c}))",
                        f"({ADDRESS_TYPE})({base} + ({high_c}) + 1)", accessed)


def _disjoint(first: AddressRange, second: AddressRange) -> str:
    """C: the two ranges do not overlap (or one of them is not accessed)."""
    guards = dict.fromkeys(r.accessed for r in (first, second) if r.accessed)
    terms = [f"!({g})" for g in guards]
    terms += [f"{first.end} <= {second.start}", f"{second.end} <= {first.start}"]
    return "(" + " || ".join(terms) + ")"


def plan_alias_check(scop: Scop) -> AliasCheck:
    """The run-time alias check `scop`'s region needs (raises NotModelled when unbounded)."""
    region = scop.region
    model = {a.name for a in scop.arrays if not a.local}
    written: set[str] = set()
    scop.writes.foreach_map(lambda m: written.add(m.get_tuple_name(isl.dim_type.out)))
    pairs = candidate_pairs(region, frozenset(written & model), frozenset(model))
    macros: list[str] = []
    ranges: dict[str, Optional[AddressRange]] = {}
    args = {a.name: a for a in region.args}
    for name in sorted({n for pair in pairs for n in pair}):
        ranges[name] = address_range(scop, args[name], macros)
    # A pair with an array the region never accesses cannot overlap.
    checked = tuple((a, b) for a, b in pairs if ranges[a] is not None and ranges[b] is not None)
    condition = " && ".join(_disjoint(ranges[a], ranges[b]) for a, b in checked)
    return AliasCheck(pairs=checked, condition=condition, macros=tuple(macros) if checked else ())


def format_alias_check(check: AliasCheck) -> str:
    """The canonical text of `check` (the `scop` dump after `alias-check`): one line per checked
    pair, then the condition the driver versions the region on; an empty block when no pair
    needs a check."""
    lines = ["AliasCheck {"]
    lines += [f"    Pair := {a}, {b}" for a, b in check.pairs]
    if check.condition:
        lines.append(f"    Condition := {check.condition}")
    return "\n".join(lines + ["}"])
