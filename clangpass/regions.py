# SPDX-License-Identifier: MIT
"""Optimisable regions and their outlining interface.

Input: a front-end `Module`. Output: one `OptRegion` per region pencilcc may
compile itself: the body of a PENCIL function, a `#pragma scop` block or a
`#pragma pencil region` block; under -fpencil-detect also the candidate loop
nests of ordinary functions (`loop_nest_region`, kind 'detected', chosen by
clangpass.detect). Each region knows the variables it takes from its
surroundings (`RegionArg`), how each is passed to the outlined function, and the
symbol of that function. The driver replaces the region's text by a call, the
polyhedral model reads the arguments as parameters/arrays, and the back end
builds the function signature from the same list: one definition, three readers.

Passing convention (the C ABI of the outlined function, all by position):
- 'value'   : a scalar only read in the region (parameters of the model);
- 'pointer' : a scalar written in the region, or a struct: passed as its address;
- 'array'   : an array or pointer: passed as the pointer it decays to.
Loop iterators declared outside a `#pragma scop` region (PolyBench style) are
'iterator's: not passed; as with pet, their value after the region is unspecified.
A detected loop nest has no such licence (nobody marked it): an iterator whose
value the code after the nest may read is a problem of the region
(`pencil-loop-iterator`), and the nest is not taken.

A detected region's `extent` runs from its first statement's first byte to the
last byte clang gives its last statement, which leaves out a final `;` (`for
(...) x = 1;`): the driver's replacement is a block, after which that `;` is an
empty statement (clangpass.driver.rewrite).

A PENCIL function that returns a value (`double dot(...) { ...; return s; }`): its
region body declares the local `RESULT` (`__pencil_result`) first and ends with
`__pencil_result = s;` in place of the final `return s;`, so the model sees the
result as one more scalar written by the region; the outlined function returns
that local's value in the function's result type, and the driver's call is
`return SYM(args);` (clangpass.driver.rewrite). A `return` anywhere else stays a
`return` statement, which the model does not accept.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Iterator, Optional

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.inline import inline_calls
from clangpass.prefix_map import PrefixMap
from clangpass.ir.walk import children, descendants, transform, iter_exprs, iter_stmts, stmt_exprs, type_extent_exprs, written_variables
from clangpass.rejects import Reject


@dataclass(frozen=True)
class RegionArg:
    name: str
    type: T.CType          # the variable's declared type (arrays keep their extents)
    passing: str           # 'value' | 'pointer' | 'array'
    scope: str             # 'param' | 'local' | 'global'
    written: bool = False


@dataclass(frozen=True)
class OptRegion:
    """A region to compile with the polyhedral path; `body` is what the outlined function runs."""

    function: N.Function
    kind: str                              # 'function' | 'scop' | 'pencil' | 'detected'
    index: int                             # position among the function's regions
    body: N.Compound
    extent: Optional[N.SourceRange]        # text the driver replaces (the body braces for 'function')
    loc: N.SourceLoc
    args: tuple[RegionArg, ...] = ()
    iterators: tuple[str, ...] = ()        # outer-declared variables used only as loop iterators
    # Scalars the enclosing function declares but only the region uses (three-address temporaries):
    # local to the region, so their false dependences can be relaxed (thesis ch. 2.3).
    privatized: tuple[N.VarDecl, ...] = ()
    kept_scalars: tuple[tuple[str, str], ...] = ()   # (name, why it stays the caller's) of written scalars
    symbol: str = ""
    problems: tuple[Reject, ...] = field(default=(), compare=False)  # reasons it cannot be outlined
    # Functions of internal linkage the region calls: the outlined code, in another object,
    # calls each through a wrapper of external linkage the driver adds (`trampoline_symbol`).
    trampolines: tuple[N.Function, ...] = field(default=(), compare=False)
    trampoline_symbols: tuple[str, ...] = field(default=(), compare=False)   # theirs, in that order

    @property
    def label(self) -> str:
        return f"{self.function.name}" + (f"#{self.index}" if self.kind != "function" else "")


RESULT = "__pencil_result"
DETECTED = "detected"      # the kind of a loop nest found by -fpencil-detect (clangpass.detect)


def returns_value(region: OptRegion) -> bool:
    """Whether the region is the body of a PENCIL function with a non-void result."""
    return region.kind == "function" and not isinstance(region.function.result, T.VoidType)


def _result_body(fn: N.Function, body: N.Compound) -> N.Compound:
    """`body` with its final `return e;` as an assignment of `e` to the declared local RESULT
    (unchanged when it does not end with `return e;`)."""
    if not body.body or not isinstance(body.body[-1], N.Return) or body.body[-1].value is None:
        return body
    final = body.body[-1]
    target = N.VarRef(RESULT, "local", type=fn.result, loc=final.loc)
    value = final.value if final.value.type == fn.result else N.Cast(final.value, type=fn.result, loc=final.loc)
    declare = N.DeclStmt(decls=(N.VarDecl(RESULT, fn.result, None, final.loc),), loc=body.loc)
    assign = N.ExprStmt(N.Assign("=", target, value, type=fn.result, loc=final.loc), loc=final.loc)
    return replace(body, body=(declare,) + body.body[:-1] + (assign,))


# ----------------------------------------------------------------------------- discovery
def find_regions(module: N.Module, paths: PrefixMap = PrefixMap()) -> list[OptRegion]:
    """All optimisable regions of the main file, in source order; `paths`: the debug prefix
    maps their symbols' paths go through (`symbol_path`)."""
    out: list[OptRegion] = []
    summaries = module.summary_functions()
    for fn in module.functions:
        if not fn.in_main_file or fn.body is None or fn.name in summaries:
            continue    # a summary function describes another one's accesses: it is never run
        if fn.is_pencil:
            out.append(function_region(module, fn, paths))
            continue
        index = 0
        for s, in_loop in _regions_of(fn.body):
            body = inline_calls(module, s.body)[0]
            region = _analyse(module, OptRegion(fn, s.kind, index, body, s.extent, s.loc), paths)
            out.append(_privatize(fn, s, in_loop, region))
            index += 1
    return out


def function_region(module: N.Module, fn: N.Function, paths: PrefixMap = PrefixMap()) -> OptRegion:
    """The region of a function's whole body (a PENCIL function, or a function whose body
    describes another's accesses: clangpass.poly.calls)."""
    assert fn.body is not None
    body = fn.body if isinstance(fn.result, T.VoidType) else _result_body(fn, fn.body)
    body = inline_calls(module, body)[0]
    return _analyse(module, OptRegion(fn, "function", 0, body, fn.body.extent, fn.body.loc), paths)


def loop_nest_region(module: N.Module, fn: N.Function, parent: N.Compound, start: int, end: int,
                     in_loop: bool, paths: PrefixMap = PrefixMap()) -> Optional[OptRegion]:
    """The candidate region of the statements `parent.body[start:end]` of the ordinary function
    `fn` (kind DETECTED, index 0: `numbered` gives it its place), or None when their text cannot
    be replaced as one piece (a statement without an extent in the function's file, statements
    whose extents overlap: one macro expanding to several). `in_loop`: a loop of `fn` encloses
    `parent`. Its arguments, privatized scalars and problems are computed as for a marked
    region, on `fn` with the statements as one region; an outer-declared loop iterator that the
    code after them may read is one more problem."""
    run = parent.body[start:end]
    extents = [s.extent for s in run]
    if not run or any(e is None or e.file != fn.loc.file for e in extents) or any(
            b.start_offset < a.end_offset for a, b in zip(extents, extents[1:])):
        return None
    first, last = extents[0], extents[-1]
    extent = N.SourceRange(first.file, first.start_offset, last.end_offset, first.start, last.end)
    node = N.Region(DETECTED, N.Compound(run, loc=run[0].loc, extent=extent), loc=run[0].loc, extent=extent)
    marked_parent = replace(parent, body=parent.body[:start] + (node,) + parent.body[end:])
    marked = replace(fn, body=transform(fn.body, lambda n: marked_parent if n is parent else n))
    body = inline_calls(module, node.body)[0]
    region = _analyse(module, OptRegion(fn, DETECTED, 0, body, extent, node.loc), paths)
    region = _privatize(marked, node, in_loop, region)
    live = [name for name in region.iterators if _read_after(marked.body, node, name)]
    if live:
        region = replace(region, problems=region.problems + (Reject(
            "pencil-loop-iterator", f"the value of loop iterator '{live[0]}' may be read after the loop nest"),))
    return region


def numbered(region: OptRegion, index: int, paths: PrefixMap = PrefixMap()) -> OptRegion:
    """`region` as its function's region number `index` (its symbol follows; `paths` as for
    `find_regions`)."""
    return replace(region, index=index, symbol=_symbol(region.function, region.kind, index, paths))


def _regions_of(s: N.Stmt, in_loop: bool = False) -> Iterator[tuple[N.Region, bool]]:
    """The region statements under `s`, each with whether a loop of the function encloses it."""
    if isinstance(s, N.Region):
        yield s, in_loop
        return
    loop = in_loop or isinstance(s, (N.For, N.While, N.DoWhile))
    for child in children(s):
        if isinstance(child, N.Stmt):
            yield from _regions_of(child, loop)


def _privatize(fn: N.Function, node: N.Region, in_loop: bool, region: OptRegion) -> OptRegion:
    """`region` with the function's scalars whose values do not cross its boundary made region locals.

    A scalar local variable or by-value parameter of the enclosing function that the region
    writes is the region's own (thesis ch. 2.3) when its value neither enters nor leaves the
    region: the region never reads the value it had at the region's entry (every read in the
    region follows a write on every path; for a variable nothing else in the function
    mentions, declared without initialiser, in a region run once per call, that value is
    indeterminate anyway), and no code after the region reads the region's value before
    overwriting it (a liveness analysis of the rest of the function, in which
    `__pencil_kill(v)` and the function's end kill; a `__pencil_kill(v)` ending the region
    kills it too). A region inside a loop of the function sees its own earlier values, so
    there the variable must also be unmentioned elsewhere. Variables declared twice, `static`,
    whose address is taken, in functions with `goto` or labels, stay the caller's. Only
    scalars written inside a loop of the region are taken (a value set once before the loops,
    like deriche's coefficients, has no loop-carried false dependence to relax, and its live
    ranges over the whole region made schedule verification exceed the isl budget).
    Everything else stays the caller's (passed by pointer, never relaxed), and says why.
    """
    decls: dict[str, list[N.VarDecl]] = {}
    mentioned: set[str] = set()
    jumps = False
    for s in _statements_outside(fn.body, node):
        jumps = jumps or isinstance(s, (N.Goto, N.Label))
        if isinstance(s, N.DeclStmt):
            for d in s.decls:
                decls.setdefault(d.name, []).append(d)
        for e in stmt_exprs(s):
            mentioned.update(v.name for v in iter_exprs(e) if isinstance(v, N.VarRef))
    params = {p.name: p for p in fn.params}
    address_taken = {e.operand.name for e in descendants(fn.body)
                     if isinstance(e, N.Unary) and e.op == "&" and isinstance(e.operand, N.VarRef)}
    in_loops = _written_in_loops(region.body)
    privatized: list[N.VarDecl] = []
    kept: list[tuple[str, str]] = []
    for arg in region.args:
        if (arg.scope not in ("local", "param") or not arg.written
                or not isinstance(arg.type, (T.IntType, T.FloatType))):
            continue
        found = decls.get(arg.name, [])
        if arg.scope == "param":      # a parameter passed by value: the function's own copy
            found = [N.VarDecl(arg.name, arg.type, None, params[arg.name].loc)] + found
        entry_read = _reads_entry_value(region.body.body, arg.name)
        why = ("declared more than once in the function" if len(found) != 1
               else f"'{found[0].storage}'" if found[0].storage
               else "its address is taken" if arg.name in address_taken
               else "the function has a goto or a label" if jumps
               else "written outside loops only: no loop-carried false dependence to relax"
               if arg.name not in in_loops
               else "the region is inside a loop of the function"
               if in_loop and (entry_read or arg.name in mentioned)
               else "used outside the region" if arg.name in mentioned and not _killed_at_end(
                   region.body.body, arg.name) and _read_after(fn.body, node, arg.name)
               else "initialised at its declaration" if found[0].init is not None and entry_read
               else "a parameter whose value the region reads" if arg.scope == "param" and entry_read
               else "its value from before the region is read in it" if arg.name in mentioned and entry_read
               else "")
        if why:
            kept.append((arg.name, why))
        else:
            privatized.append(N.VarDecl(arg.name, arg.type, None, found[0].loc))
    if not privatized:
        return replace(region, kept_scalars=tuple(kept))
    names = {d.name for d in privatized}
    return replace(region, args=tuple(a for a in region.args if a.name not in names),
                   privatized=tuple(privatized), kept_scalars=tuple(kept))


# ----------------------------------------------------------------------------- scalar liveness
# Which value of a scalar a statement may read, on the IR of the enclosing function. Each
# function answers for one variable `name` and is conservative: anything it does not model
# (loops around a use, `switch`, a redeclaration) counts as a read.
READ, KILL = "read", "kill"


def _mentions(node: object, name: str) -> bool:
    return node is not None and any(isinstance(e, N.VarRef) and e.name == name for e in descendants(node))


def _kills(e: N.Expr, name: str) -> bool:
    """`name = value` with a value that does not read it, or `__pencil_kill(name)`."""
    if isinstance(e, N.Assign) and e.op == "=" and isinstance(e.target, N.VarRef) and e.target.name == name:
        return not _mentions(e.value, name)
    return (isinstance(e, N.Call) and e.callee == "__pencil_kill" and len(e.args) == 1
            and isinstance(e.args[0], N.VarRef) and e.args[0].name == name)


def _first_access(s: N.Stmt, name: str) -> Optional[str]:
    """READ if executing `s` may read the value `name` has before it, KILL if it overwrites that
    value on every path first (or returns), None if neither."""
    if isinstance(s, N.ExprStmt):
        return KILL if _kills(s.expr, name) else READ if _mentions(s.expr, name) else None
    if isinstance(s, N.Return):
        return READ if _mentions(s, name) else KILL
    if isinstance(s, N.Compound):
        return _sequence_access(s.body, name)
    if isinstance(s, N.If):
        if _mentions(s.cond, name):
            return READ
        branches = [_first_access(s.then, name),
                    None if s.otherwise is None else _first_access(s.otherwise, name)]
        return READ if READ in branches else KILL if branches == [KILL, KILL] else None
    if isinstance(s, N.NullStmt):
        return None
    if isinstance(s, N.For):
        # Its initialisation runs first (`for (i = 0; ...)` kills `i`), then its condition; the
        # body may not run, so what it overwrites first is no kill, what it reads first is a read.
        access = None if s.init is None else _first_access(s.init, name)
        if access is not None:
            return access
        if _mentions(s.cond, name) or _mentions(s.step, name):
            return READ
        return READ if _first_access(s.body, name) == READ else None
    return READ if _mentions(s, name) or isinstance(s, N.DeclStmt) and any(
        d.name == name for d in s.decls) else None


def _sequence_access(stmts: tuple[N.Stmt, ...], name: str) -> Optional[str]:
    for s in stmts:
        access = _first_access(s, name)
        if access is not None:
            return access
    return None


def _read_after(body: N.Compound, region: N.Region, name: str) -> bool:
    """Whether the code that runs after `region` (not inside a loop of the function) may read
    the value `name` has when the region ends; the function's end kills it."""
    for parent, child in reversed(_path_to(body, region)):
        if isinstance(parent, N.Compound):
            position = next(k for k, c in enumerate(parent.body) if c is child)
            access = _sequence_access(parent.body[position + 1:], name)
            if access is not None:
                return access == READ
        elif not isinstance(parent, (N.If, N.Region)):
            return True
    return False


def _path_to(s: N.Stmt, target: N.Stmt) -> list[tuple[N.Stmt, N.Stmt]]:
    """The (parent, child) statement pairs from `s` down to `target` ([] if `target` is not under `s`)."""
    for child in children(s):
        if child is target:
            return [(s, child)]
        if isinstance(child, N.Stmt):
            below = _path_to(child, target)
            if below:
                return [(s, child)] + below
    return []


def _killed_at_end(stmts: tuple[N.Stmt, ...], name: str) -> bool:
    """Whether the last of `stmts` to mention `name` is `__pencil_kill(name)`."""
    last = next((s for s in reversed(stmts) if _mentions(s, name)), None)
    return isinstance(last, N.ExprStmt) and isinstance(last.expr, N.Call) and _kills(last.expr, name)


def _reads_entry_value(stmts: tuple[N.Stmt, ...], name: str) -> bool:
    """Whether executing `stmts` may read the value `name` has before them."""
    for s in stmts:
        reads, kills = _entry_access(s, name)
        if reads:
            return True
        if kills:
            return False
    return False


def _entry_access(s: N.Stmt, name: str) -> tuple[bool, bool]:
    """(may read the value `name` has before `s`, overwrites it on every path through `s`)."""
    if isinstance(s, N.ExprStmt):
        return (False, True) if _kills(s.expr, name) else (_mentions(s.expr, name), False)
    if isinstance(s, N.Compound):
        return _reads_entry_value(s.body, name), _sequence_access(s.body, name) == KILL
    if isinstance(s, N.If):
        if _mentions(s.cond, name):
            return True, False
        branches = [_entry_access(s.then, name),
                    (False, False) if s.otherwise is None else _entry_access(s.otherwise, name)]
        return any(r for r, _ in branches), all(k for _, k in branches)
    if isinstance(s, N.For):
        init = (False, False) if s.init is None else _entry_access(s.init, name)
        if init[0] or init[1]:
            return init
        if _mentions(s.cond, name) or _mentions(s.step, name):
            return True, False
        # The body may not run: what it writes is no kill for what follows the loop.
        return _entry_access(s.body, name)[0], False
    return _mentions(s, name), False


def _written_in_loops(s: N.Stmt, in_loop: bool = False) -> set[str]:
    """Names of the variables written under a loop of `s`."""
    out: set[str] = set()
    if in_loop:
        for e in stmt_exprs(s):
            out.update(v.name for v in written_variables(e))
    loop = in_loop or isinstance(s, (N.For, N.While, N.DoWhile))
    for child in children(s):
        if isinstance(child, N.Stmt):
            out |= _written_in_loops(child, loop)
    return out


def _statements_outside(s: N.Stmt, region: N.Region) -> Iterator[N.Stmt]:
    """Every statement under `s` except `region` and what it holds."""
    if s is region:
        return
    yield s
    for child in children(s):
        if isinstance(child, N.Stmt):
            yield from _statements_outside(child, region)


def symbol_path(fn: N.Function, paths: PrefixMap) -> str:
    """The path the local symbols of `fn`'s regions are hashed from: its file as the compile
    named it (relative paths stay relative), through the debug prefix maps (clangpass.prefix_map),
    so that the object is the same from another build folder given a map, or from a distcc
    server's private copy of the sources (clangpass.driver.bundle gives its compile the map)."""
    return paths.remap(fn.loc.file)


def _symbol(fn: N.Function, kind: str, index: int, paths: PrefixMap) -> str:
    # Unique per file (static functions of the same name in two files must not clash)
    # yet deterministic: the same file and region always give the same symbol.
    digest = hashlib.sha1(f"{symbol_path(fn, paths)}\0{fn.name}\0{kind}\0{index}".encode()).hexdigest()[:10]
    return f"__pencilcc_{fn.name}_{kind}{index}_{digest}"


def trampoline_symbol(fn: N.Function, paths: PrefixMap = PrefixMap()) -> str:
    """The external name under which outlined code calls `fn`, a function of internal linkage
    of the file (unique per file and function, like `_symbol`); a region keeps those of its
    calls (`OptRegion.trampoline_symbols`)."""
    digest = hashlib.sha1(f"{symbol_path(fn, paths)}\0{fn.name}\0trampoline".encode()).hexdigest()[:10]
    return f"__pencilcc_call_{fn.name}_{digest}"


def _analyse(module: N.Module, region: OptRegion, paths: PrefixMap) -> OptRegion:
    """Compute the region's arguments, iterators and symbol."""
    fn = region.function
    problems: list[Reject] = []
    trampolines: list[N.Function] = []
    declared_inside: set[str] = set()
    uses: dict[str, N.VarRef] = {}
    written: set[str] = set()
    header_writes: set[str] = set()   # written in a for header (init/step)
    body_writes: set[str] = set()     # written anywhere else
    order: list[str] = []

    def note_use(ref: N.VarRef) -> None:
        if ref.scope in ("function", "enum") or ref.name in declared_inside:
            return
        if ref.name not in uses:
            uses[ref.name] = ref
            order.append(ref.name)
            for extent in type_extent_exprs(ref.type):
                for sub in iter_exprs(extent):
                    if isinstance(sub, N.VarRef):
                        note_use(sub)

    for_inits: set[int] = set()
    for s in iter_stmts(region.body):
        if isinstance(s, N.DeclStmt):
            for d in s.decls:
                declared_inside.add(d.name)
                if d.storage == "static":
                    problems.append(Reject("pencil-storage-class", f"static local variable '{d.name}'"))
        if isinstance(s, N.For) and s.init is not None:
            for_inits.add(id(s.init))
    for s in iter_stmts(region.body):
        if isinstance(s, (N.Return, N.Goto, N.Label)) and region.kind != "function":
            problems.append(Reject("pencil-return" if isinstance(s, N.Return) else "pencil-goto",
                                   f"'{type(s).__name__.lower()}' statement inside the region"))
        for e in stmt_exprs(s):
            for sub in iter_exprs(e):
                if isinstance(sub, N.VarRef):
                    note_use(sub)
                elif isinstance(sub, N.Call) and not sub.builtin:
                    callee = module.function(sub.callee)
                    # The outlined code lives in another object: a function without external
                    # linkage is called through a wrapper that has it (clangpass.driver.rewrite).
                    if callee is not None and (callee.storage == "static" or
                                               (callee.inline and callee.storage != "extern")):
                        awkward = [p.name for p in callee.params
                                   if not isinstance(p.type, (T.IntType, T.FloatType, T.ArrayType, T.PointerType))]
                        if callee.variadic or awkward or not isinstance(
                                callee.result, (T.VoidType, T.IntType, T.FloatType)):
                            problems.append(Reject("pencil-outline",
                                                   f"calls '{sub.callee}', which has internal linkage "
                                                   f"({callee.storage or 'inline'}) and a signature no "
                                                   "wrapper of external linkage is made for"))
                        elif callee not in trampolines:
                            trampolines.append(callee)
            for var in written_variables(e):
                written.add(var.name)
                is_header = (isinstance(s, N.For) and e is s.step) or id(s) in for_inits
                (header_writes if is_header else body_writes).add(var.name)

    param_names = [p.name for p in fn.params]
    iterators = tuple(sorted(n for n in header_writes - body_writes
                             if n in uses and uses[n].scope == "local"
                             and isinstance(uses[n].type, T.IntType)))
    args: list[RegionArg] = []
    ordered = [n for n in param_names if n in uses] + sorted(n for n in order if n not in param_names)
    for name in ordered:
        if name in iterators:
            continue
        ref = uses[name]
        t = ref.type
        if isinstance(t, (T.ArrayType, T.PointerType)):
            passing = "array"
        elif isinstance(t, T.StructType) or name in written:
            passing = "pointer"
        elif isinstance(t, (T.IntType, T.FloatType)):
            passing = "value"
        else:
            problems.append(Reject("pencil-outline", f"variable '{name}' of type '{t.spelling()}' cannot be "
                                   "passed to the outlined region"))
            passing = "pointer"
        args.append(RegionArg(name, t, passing, ref.scope, name in written))
    return replace(region, args=tuple(args), iterators=iterators,
                   symbol=_symbol(fn, region.kind, region.index, paths), problems=tuple(problems),
                   trampolines=tuple(trampolines),
                   trampoline_symbols=tuple(trampoline_symbol(callee, paths) for callee in trampolines))
