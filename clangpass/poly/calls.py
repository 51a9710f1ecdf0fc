# SPDX-License-Identifier: MIT
"""The memory a call may touch: callee footprints and their instances at a call site.

Input: a `Module` and the name of a function a region calls. Output: a `Footprint`,
the elements of each of the function's array parameters one call may read, must
write and may write, as relations from the values of its integer parameters; or
`NotModelled` saying why the call's accesses are unknown. `instantiate` turns a
footprint into the accesses of one call statement, from the call's arguments.

Where a footprint comes from (thesis section 4.3.2; pet's treatment of calls):
- a function with a summary (`__attribute__((pencil_access(s)))`): the accesses of
  the summary `s`'s body, modelled like a region in which `__pencil_use(x)` reads
  and `__pencil_def(x)` writes `x` (an element, a row or a whole array), and
  `__pencil_maybe()` is an unknown condition, so what it guards may happen;
- a PENCIL function defined in the file (one not inlined: it returns a value): the
  accesses of its body;
- a PENCIL function only declared (every array parameter `pencil_array`, or the
  `pencil` attribute): it may read every element of its array arguments and may
  write those not `const` (PENCIL code reaches no other memory: no globals, no
  pointers);
- anything else (a C function: it may touch any memory, do I/O) has no footprint.

Elements are those of the callee's own array parameters; a call passes an array
(`A`) or a row of one (`A[i]`), so its accesses are the callee's with the row's
subscripts in front. A scalar argument that is not affine leaves its parameter
free. Writes the callee must make stay must-writes only when every argument the
footprint depends on is affine. The call itself runs unchanged in the generated
code: only the model needs its accesses.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Callable, Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.types import is_pencil_array
from clangpass.poly.affine import is_affine_integer_type

if TYPE_CHECKING:
    from clangpass.poly.extract import _Extractor


@dataclass(frozen=True)
class Footprint:
    """One call's accesses to the callee's array parameters."""

    function: str
    source: str                                  # where they come from (for the record)
    scalars: tuple[int, ...]                     # positions of the integer parameters: the relations' domain
    arrays: tuple[int, ...]                      # positions of the array parameters
    # array position -> { [p..] -> A[a..] } (p: the integer parameters in `scalars` order)
    reads: dict[int, isl.Map]
    must_writes: dict[int, isl.Map]
    may_writes: dict[int, isl.Map]


class UnknownAccesses(Exception):
    """The callee may touch memory the model cannot see; `reason` says why."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def describing_function(module: N.Module, fn: N.Function) -> tuple[Optional[N.Function], str]:
    """The function whose body describes `fn`'s accesses, and what it is (for reasons)."""
    summary = fn.attribute("pencil_access")
    if summary is not None and summary.args:
        described = _definition(module, summary.args[0])
        if described is None:
            raise UnknownAccesses(f"its summary '{summary.args[0]}' has no body in this file")
        return described, f"summary '{described.name}'"
    if fn.body is not None:
        if not fn.is_pencil:
            raise UnknownAccesses("it is not a PENCIL function and has no summary (pencil_access)")
        return fn, "body"
    defined = _definition(module, fn.name)
    if defined is not None:
        return describing_function(module, defined)
    return None, "declaration"


def footprint(module: N.Module, name: str, ctx: isl.Context,
              extract: Callable[[N.Function, bool], "_Extractor"]) -> Footprint:
    """The footprint of a call of `name` (see the module doc); raises UnknownAccesses.

    `extract(f, summary)` models `f`'s body as a region (summary: `__pencil_use/def` allowed)
    and returns the finished extractor, raising NotModelled when it cannot.
    """
    fn = module.function(name)
    if fn is None:
        raise UnknownAccesses("it is neither a PENCIL function of this file nor described by a summary "
                              "(pencil_access)")
    if fn.variadic:
        raise UnknownAccesses("it is variadic")
    scalars = tuple(k for k, p in enumerate(fn.params) if is_affine_integer_type(p.type))
    arrays = tuple(k for k, p in enumerate(fn.params) if isinstance(p.type, (T.ArrayType, T.PointerType)))
    others = [p.name for k, p in enumerate(fn.params)
              if k not in arrays and not isinstance(p.type, (T.IntType, T.FloatType))]
    if others:
        raise UnknownAccesses(f"its parameter '{others[0]}' is neither a number nor an array")
    described, source = describing_function(module, fn)
    if described is None:
        described = declared_summary(module, fn)
    if len(described.params) != len(fn.params):
        raise UnknownAccesses(f"its {source} does not take the same parameters")
    x = extract(described, source != "body")
    names = [p.name for p in described.params]
    written_globals = [a.name for a in x.region.args if a.scope == "global" and a.written]
    if written_globals:
        raise UnknownAccesses(f"it writes the global '{written_globals[0]}'")
    # The relations' domain: the integer parameters, in order (any the body does not use are free).
    space = isl.Space.create_from_names(ctx, set=[], params=[names[k] for k in scalars])
    out: dict[str, dict[int, isl.Map]] = {"reads": {}, "must": {}, "may": {}}
    for kind, maps in (("reads", x.accesses.reads), ("must", x.accesses.must_writes),
                       ("may", x.accesses.may_writes)):
        for k in arrays:
            touched = [m.range() for m in maps if m.get_tuple_name(isl.dim_type.out) == names[k]]
            if not touched:
                continue
            elements = touched[0]
            for t in touched[1:]:
                elements = elements.union(t)
            out[kind][k] = _params_to_domain(elements, space, x.params)
    return Footprint(fn.name, source, scalars, arrays, out["reads"], out["must"], out["may"])


def instantiate(x: "_Extractor", collector, call: N.Call, fp: Footprint) -> None:
    """Add the accesses of `call` (a statement instance of `collector`) from its footprint."""
    from clangpass.poly.extract import NotModelled
    from clangpass.poly.affine import NotAffine, describe, where

    scope = collector.scope
    exact = True
    binding: Optional[isl.Map] = None            # [P] -> { S[i..] -> [p..] }
    for k in fp.scalars:
        arg = call.args[k]
        try:
            value = isl.Map.from_pw_aff(scope.pw_aff(arg))
        except NotAffine:
            value = scope.any_value()
            exact = False
        binding = value if binding is None else binding.flat_range_product(value)
    for k, arg in enumerate(call.args):
        if k not in fp.arrays:
            collector.collect(arg, True)         # what the argument's expression reads
    for k in fp.arrays:
        arg = call.args[k]
        try:
            var, prefix = collector.location(_decayed(arg), allow_prefix=True)
        except NotModelled as exc:
            raise NotModelled("pencil-call-argument", f"argument {describe(arg)} of the call to '{fp.function}' at {where(call.loc)} "
                              f"is not an array or a row of one ({exc.reason})") from None
        if var is None:
            raise NotModelled("pencil-call-argument", f"argument {describe(arg)} of the call to '{fp.function}' at {where(call.loc)} "
                              "is not an array of the region")
        for kind, maps in (("read", fp.reads), ("must", fp.must_writes), ("may", fp.may_writes)):
            if k not in maps:
                continue
            callee = maps[k]                     # { [p..] -> A'[a..] }
            if binding is None:
                access = isl.Map.from_domain_and_range(isl.Set.universe(scope.space), callee.range())
            else:
                access = binding.apply_range(callee)
            rows = prefix or []
            front: Optional[isl.Map] = None      # { S[i..] -> [row subscripts] }
            for value in rows:
                part = isl.Map.from_pw_aff(value) if value is not None else scope.any_value()
                front = part if front is None else front.flat_range_product(part)
            if front is not None:
                access = front.flat_range_product(access)
            if access.dim(isl.dim_type.out) != var.rank:
                raise NotModelled("pencil-call-argument", f"argument {describe(arg)} of the call to '{fp.function}' at {where(call.loc)} "
                                  f"has {var.rank - len(rows)} dimensions where the callee's has "
                                  f"{callee.dim(isl.dim_type.out)}")
            access = access.set_tuple_name(isl.dim_type.in_, collector.statement) \
                .set_tuple_name(isl.dim_type.out, var.name).intersect_domain(collector.domain)
            if kind == "read":
                collector.accesses.reads.append(access)
                continue
            if var.read_only:
                raise NotModelled("pencil-parameter-write", f"the call to '{fp.function}' at {where(call.loc)} may write '{var.name}', "
                                  "which the region reads as a value")
            must = kind == "must" and exact and all(v is not None for v in rows)
            (collector.accesses.must_writes if must else collector.accesses.may_writes).append(access)
    if fp.source != "body":
        note = f"{describe(call)}: accesses from its {fp.source}"
        if note not in collector.accesses.approximated:
            collector.accesses.approximated.append(note)


# ----------------------------------------------------------------------------- helpers
def _definition(module: N.Module, name: str) -> Optional[N.Function]:
    fn = module.function(name)
    return fn if fn is not None and fn.body is not None else None


def declared_summary(module: N.Module, fn: N.Function) -> N.Function:
    """For a PENCIL function only declared here, a summary that says what PENCIL allows it:
    `{ USE(A); ... if (MAYBE) { DEF(A); ... } }` over its array parameters, `DEF` only of
    those whose elements are not `const`."""
    explicit = fn.attribute("pencil") is not None or (module.pencil_file and fn.in_main_file)
    arrays = [p for p in fn.params if isinstance(p.type, (T.ArrayType, T.PointerType))]
    if not (explicit or (arrays and all(is_pencil_array(p.type) for p in arrays))):
        raise UnknownAccesses("it has no body, no summary (pencil_access), and is not a PENCIL function")
    loc = fn.loc

    def mention(special: str, p: N.Param) -> N.Stmt:
        ref = N.VarRef(p.name, "param", type=p.type, loc=loc)
        return N.ExprStmt(N.Call(special, (ref,), builtin=True, type=T.VoidType(), loc=loc), loc=loc)

    uses = [mention("__pencil_use", p) for p in arrays]
    defs = tuple(mention("__pencil_def", p) for p in arrays if not _element(p.type).const)
    body: list[N.Stmt] = list(uses)
    if defs:
        maybe = N.Call("__pencil_maybe", (), builtin=True, type=T.INT, loc=loc)
        body.append(N.If(cond=maybe, then=N.Compound(body=defs, loc=loc), loc=loc))
    return replace(fn, body=N.Compound(body=tuple(body), loc=loc), attributes=())


def _element(t: T.CType) -> T.CType:
    while isinstance(t, (T.ArrayType, T.PointerType)):
        t = t.element if isinstance(t, T.ArrayType) else t.pointee
    return t


def _params_to_domain(elements: isl.Set, space: isl.Space, params: tuple[str, ...]) -> isl.Map:
    """[q..] -> { A[a..] } as { [p..] -> A[a..] }, p the parameters of `space` in order (the
    callee's integer parameters); parameters not among them (none are expected) are projected out."""
    keep = {space.get_dim_name(isl.dim_type.param, i) for i in range(space.dim(isl.dim_type.param))}
    for i in reversed(range(elements.dim(isl.dim_type.param))):
        if elements.get_dim_name(isl.dim_type.param, i) not in keep:
            elements = elements.project_out(isl.dim_type.param, i, 1)
    elements = elements.align_params(space)
    n = space.dim(isl.dim_type.param)
    relation = isl.Map.from_range(elements)
    return relation.move_dims(isl.dim_type.in_, 0, isl.dim_type.param, 0, n)


def _decayed(e: N.Expr) -> N.Expr:
    """The array expression an argument passes (through the implicit decay cast)."""
    while isinstance(e, N.Cast):
        e = e.operand
    return e
