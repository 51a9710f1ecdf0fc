# SPDX-License-Identifier: MIT
"""Device data across region calls (issue 27, item 3): the loops of the main file whose host
code provably writes no array between the calls of OpenCL regions it makes.

Input: libclang's translation unit of the input, its path and the compile core's outcomes
(`RegionOutcome`s: which regions were optimized, their kernels and alias checks), for a target
whose data lives on a device (`TargetTraits.device_data`). Output (`find`): the `ResidentLoop`s,
which the driver brackets with `pencilcc_cl_residency_push()` / `_pop()` in the host's copy of
the file (clangpass.driver.rewrite), and the `MissedLoop`s that call device regions but are not
provable, with the reason. Inside a bracketed loop the runtime keeps device copies between region
calls as `pencil_keep_device_data(1)` does, with no host write to declare; the first push makes
every device copy stale once, which covers what the host wrote before the loop.

A loop (`for`, `while`, `do`) is resident when, conservatively, every statement it runs on the
host between region calls writes no memory a region can see:
- its body is made of calls of *device functions*, updates of *counters*, `if`s, `break`,
  `continue`, empty statements, blocks and loops of the same kind; its header (init,
  condition, increment) only declares or updates counters and reads;
- a *counter* is an integer variable local to the function (a parameter or an automatic or
  static local) whose address the function never takes: writing it writes no array;
- every other expression only reads (no call, assignment, `++`/`--`): after each region call
  the host copy of every array is current (the call read its results back), so reads are free;
- each array or pointer argument of a device-function call is a variable named as it is
  (`A`, not `A + 1` nor `&x`): the loop cannot change it (it assigns counters only), so a call
  sees the same arrays as the one before;
- a *device function* is a function of the translation unit each of whose regions is optimized
  for the device, has a kernel and no run-time alias check (whose failing branch would run the
  original code on the host, undeclared), and whose body holds nothing outside its regions but
  declarations, without initialiser, of the regions' loop iterators or local scalars;
- the loop is in the main file, written there (not by a macro), overlaps no region, and no
  preprocessor directive, `_Pragma` or macro comes right before it (`#pragma omp for`,
  `#pragma GCC ivdep` must be followed by the loop itself);
- it calls at least one device function.
Only the outermost such loop is bracketed (pushes nest, so nothing is gained inside). Anything
else keeps the default: each region call uploads the arrays its kernels use.
A loop that is not resident and calls a device function outside any resident loop is a
`MissedLoop`. Other threads' region calls are not affected (the runtime's depth is per thread);
a program in which another thread writes such arrays during the loop has a data race anyway.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Sequence

import clang.cindex as ci

from clangpass.frontend.clang_api import binary_operator, cursor_kind, type_kind, unary_operator, var_decl_initializer
from clangpass.ir.nodes import SourceLoc

CK = ci.CursorKind
TK = ci.TypeKind

PUSH = "pencilcc_cl_residency_push"
POP = "pencilcc_cl_residency_pop"

_LOOPS = (CK.FOR_STMT, CK.WHILE_STMT, CK.DO_STMT)
_INTEGER = {TK.BOOL, TK.CHAR_U, TK.UCHAR, TK.CHAR16, TK.CHAR32, TK.USHORT, TK.UINT, TK.ULONG, TK.ULONGLONG,
            TK.UINT128, TK.CHAR_S, TK.SCHAR, TK.WCHAR, TK.SHORT, TK.INT, TK.LONG, TK.LONGLONG, TK.INT128}
_POINTERS = {TK.POINTER, TK.CONSTANTARRAY, TK.INCOMPLETEARRAY, TK.VARIABLEARRAY, TK.DEPENDENTSIZEDARRAY}
# Expressions that only read (with pure operands); operators are checked apart.
_READS = {CK.DECL_REF_EXPR, CK.INTEGER_LITERAL, CK.FLOATING_LITERAL, CK.CHARACTER_LITERAL, CK.STRING_LITERAL,
          CK.PAREN_EXPR, CK.UNEXPOSED_EXPR, CK.CSTYLE_CAST_EXPR, CK.ARRAY_SUBSCRIPT_EXPR, CK.MEMBER_REF_EXPR,
          CK.CONDITIONAL_OPERATOR, CK.CXX_UNARY_EXPR, CK.TYPE_REF}
_UPDATES = {"++", "--", "post++", "post--"}
_ASSIGNMENTS = {"=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|="}


@dataclass(frozen=True)
class ResidentLoop:
    """A loop to bracket: bytes [start_offset, end_offset) of the main file, from its keyword
    to the `;` or `}` that ends it, and the device-function calls it makes."""

    start_offset: int
    end_offset: int
    loc: SourceLoc
    calls: tuple[tuple[str, SourceLoc], ...]     # (function, call site)


@dataclass(frozen=True)
class MissedLoop:
    """A loop calling device functions whose host code pencilcc cannot prove harmless."""

    loc: SourceLoc
    functions: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class Residency:
    loops: tuple[ResidentLoop, ...] = ()
    missed: tuple[MissedLoop, ...] = ()


def _loc(location: ci.SourceLocation) -> SourceLoc:
    return SourceLoc(location.file.name if location.file else "<unknown>", location.line, location.column)


def _strip(c: ci.Cursor) -> ci.Cursor:
    """`c` without the parentheses and implicit conversions around it."""
    while cursor_kind(c) in (CK.PAREN_EXPR, CK.UNEXPOSED_EXPR):
        inner = list(c.get_children())
        if len(inner) != 1:
            break
        c = inner[0]
    return c


def _variable(c: ci.Cursor) -> Optional[ci.Cursor]:
    """The variable `c` names as it is (`A`), or None."""
    c = _strip(c)
    if cursor_kind(c) is not CK.DECL_REF_EXPR or c.referenced is None:
        return None
    return c.referenced if cursor_kind(c.referenced) in (CK.VAR_DECL, CK.PARM_DECL) else None


def _name(c: ci.Cursor) -> str:
    """What an expression is called in a message: the first variable it names, or its kind."""
    for d in c.walk_preorder():
        if cursor_kind(d) is CK.DECL_REF_EXPR and d.spelling:
            return d.spelling
    return "an expression"


class _Function:
    """A function of the main file whose loops are looked at."""

    def __init__(self, cursor: ci.Cursor) -> None:
        self.cursor = cursor
        # Variables whose address is taken anywhere in the function: they may be written
        # through a pointer, so they are no counters.
        self.address_taken: set[str] = set()
        for c in cursor.walk_preorder():
            if cursor_kind(c) is CK.UNARY_OPERATOR and unary_operator(c) == "&":
                operand = next(iter(c.get_children()), None)
                var = _variable(operand) if operand is not None else None
                if var is not None:
                    self.address_taken.add(var.get_usr())

    def is_counter(self, var: Optional[ci.Cursor]) -> bool:
        if var is None or var.get_usr() in self.address_taken:
            return False
        if type_kind(var.type.get_canonical()) not in _INTEGER:
            return False
        if cursor_kind(var) is CK.PARM_DECL:
            return var.semantic_parent == self.cursor
        # A local: declared inside this function's text (block-scope variables' semantic
        # parent is the function in libclang; a file-scope one's is the translation unit).
        return var.semantic_parent == self.cursor and var.storage_class != ci.StorageClass.EXTERN


class _Finder:
    def __init__(self, tu: ci.TranslationUnit, main_file: str, outcomes: Sequence) -> None:
        self.tu = tu
        self.main_file = main_file
        self.by_function: dict[str, list] = {}
        for o in outcomes:
            self.by_function.setdefault(o.region.function.name, []).append(o)
        self.extents = [o.region.extent for o in outcomes if o.region.extent is not None]
        self._device: dict[str, Optional[str]] = {}    # function -> why it is no device function ('' if it is)
        self.size = os.path.getsize(main_file)

    # ------------------------------------------------------------------ device functions
    def device_problem(self, call: ci.Cursor) -> tuple[str, Optional[str]]:
        """(the callee's name, why calling it is not a device-function call, or None)."""
        callee = call.referenced
        name = callee.spelling if callee is not None else call.spelling
        if callee is None or cursor_kind(callee) is not CK.FUNCTION_DECL:
            return name, f"it calls '{name}' through a pointer"
        if name not in self._device:
            self._device[name] = self._why_not_device(name, callee.get_definition())
        return name, self._device[name] or None

    def _why_not_device(self, name: str, definition: Optional[ci.Cursor]) -> str:
        outcomes = self.by_function.get(name)
        if not outcomes or definition is None:
            return f"it calls '{name}', which holds no region of this file"
        for o in outcomes:
            if o.status != "optimized":
                return f"a region of '{name}' is not optimized and runs on the host"
            if not o.mapping.get("kernels"):
                return f"a region of '{name}' has no OpenCL kernel and runs on the host"
            if o.alias_check is not None and o.alias_check.condition:
                return (f"a region of '{name}' runs its original code on the host when its arrays "
                        "overlap (run-time alias check)")
        body = next((c for c in definition.get_children() if cursor_kind(c) is CK.COMPOUND_STMT), None)
        if body is None:
            return f"it calls '{name}', whose body pencilcc cannot see"
        declared = {v for o in outcomes for v in (*o.region.iterators, *(d.name for d in o.region.privatized))}
        for statement in body.get_children():
            if self._in_region(statement, outcomes):
                continue
            if cursor_kind(statement) is CK.DECL_STMT and all(
                    cursor_kind(v) is CK.VAR_DECL and v.spelling in declared and var_decl_initializer(v) is None
                    for v in statement.get_children()):
                continue
            return f"'{name}' runs host code outside its regions (line {statement.extent.start.line})"
        return ""

    @staticmethod
    def _in_region(c: ci.Cursor, outcomes: Iterable) -> bool:
        ext = c.extent
        if ext.start.file is None:
            return False
        for o in outcomes:
            e = o.region.extent
            if e is not None and e.file == ext.start.file.name and \
                    e.start_offset <= ext.start.offset and ext.end.offset <= e.end_offset:
                return True
        return False

    # ------------------------------------------------------------------ loops
    def find(self) -> Residency:
        loops: list[ResidentLoop] = []
        missed: list[MissedLoop] = []
        for fn in self.tu.cursor.get_children():
            if cursor_kind(fn) is not CK.FUNCTION_DECL or not fn.is_definition():
                continue
            if fn.location.file is None or fn.location.file.name != self.main_file:
                continue
            function = _Function(fn)
            for statement in fn.get_children():
                if cursor_kind(statement) is CK.COMPOUND_STMT:
                    self._search(function, statement, loops, missed)
        return Residency(tuple(loops), tuple(missed))

    def _search(self, fn: _Function, c: ci.Cursor, loops: list, missed: list) -> None:
        if cursor_kind(c) in _LOOPS:
            candidates = list(self._device_calls(c))
            if candidates:
                calls: list[tuple[str, SourceLoc]] = []
                why = self._loop(fn, c, calls) or self._placement(fn, c)
                if why is None:
                    loops.append(self._resident(c, calls))
                    return
                before = len(loops)
                for child in c.get_children():
                    self._search(fn, child, loops, missed)
                inner = loops[before:]
                outside = [name for name, at in candidates
                           if not any(lp.start_offset <= at < lp.end_offset for lp in inner)]
                if outside:
                    missed.append(MissedLoop(_loc(c.extent.start), tuple(dict.fromkeys(outside)), why))
                return
        for child in c.get_children():
            self._search(fn, child, loops, missed)

    def _device_calls(self, c: ci.Cursor) -> Iterator[tuple[str, int]]:
        """(name, offset) of the calls under `c` of functions holding a region with a kernel
        (device functions, or functions that would be but for a reason `device_problem` gives)."""
        for d in c.walk_preorder():
            if cursor_kind(d) is CK.CALL_EXPR and d.referenced is not None and any(
                    o.status == "optimized" and o.mapping.get("kernels")
                    for o in self.by_function.get(d.referenced.spelling, ())):
                yield d.referenced.spelling, d.extent.start.offset

    def _loop(self, fn: _Function, loop: ci.Cursor, calls: list) -> Optional[str]:
        """Why the host code of `loop` may write what a region sees (None: it cannot); the
        device-function calls it makes are added to `calls`. Also for a loop without any call
        of a device function (`calls` stays empty), whose verdict then does not matter."""
        children = list(loop.get_children())
        if not children:
            return "it is empty"
        body, header = (children[0], children[1:]) if cursor_kind(loop) is CK.DO_STMT else (children[-1], children[:-1])
        for part in header:
            why = self._header(fn, part)
            if why is not None:
                return why
        return self._statement(fn, body, calls)

    def _header(self, fn: _Function, part: ci.Cursor) -> Optional[str]:
        if cursor_kind(part) is CK.DECL_STMT:
            for var in part.get_children():
                if not fn.is_counter(var):
                    return f"its header declares '{var.spelling}', which is no integer counter"
                init = var_decl_initializer(var)
                if init is not None and (why := self._reads(fn, init)) is not None:
                    return why
            return None
        return self._update_or_read(fn, part)

    def _statement(self, fn: _Function, s: ci.Cursor, calls: list) -> Optional[str]:
        kind = cursor_kind(s)
        line = s.extent.start.line
        if kind in (CK.NULL_STMT, CK.BREAK_STMT, CK.CONTINUE_STMT):
            return None
        if kind is CK.COMPOUND_STMT:
            for child in s.get_children():
                why = self._statement(fn, child, calls)
                if why is not None:
                    return why
            return None
        if kind in _LOOPS:
            return self._loop(fn, s, calls)
        if kind is CK.IF_STMT:
            children = list(s.get_children())
            why = self._reads(fn, children[0])
            for branch in children[1:]:
                why = why or self._statement(fn, branch, calls)
            return why
        call = _strip(s)
        if cursor_kind(call) is CK.CSTYLE_CAST_EXPR:     # (void)f(A)
            call = _strip(list(call.get_children())[-1])
        if cursor_kind(call) is CK.CALL_EXPR:
            return self._call(fn, call, calls)
        if kind in (CK.UNARY_OPERATOR, CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR):
            return self._update_or_read(fn, s)
        return f"it runs host code between region calls (line {line})"

    def _call(self, fn: _Function, call: ci.Cursor, calls: list) -> Optional[str]:
        name, problem = self.device_problem(call)
        if problem is not None:
            return problem
        for arg in call.get_arguments():
            if type_kind(arg.type.get_canonical()) in _POINTERS or \
                    type_kind(_strip(arg).type.get_canonical()) in _POINTERS:
                if _variable(arg) is None:
                    return f"an array argument of '{name}' (line {arg.extent.start.line}) is not a variable as it is"
            elif (why := self._reads(fn, arg)) is not None:
                return why
        calls.append((name, _loc(call.extent.start)))
        return None

    def _update_or_read(self, fn: _Function, e: ci.Cursor) -> Optional[str]:
        """None when `e` only updates counters (with read-only operands) and reads."""
        e = _strip(e)
        kind = cursor_kind(e)
        children = list(e.get_children())
        if kind is CK.UNARY_OPERATOR and unary_operator(e) in _UPDATES:
            if fn.is_counter(_variable(children[0])):
                return None
            return f"it updates '{_name(children[0])}' on the host (line {e.extent.start.line})"
        if kind in (CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR):
            op = binary_operator(e)
            if op in _ASSIGNMENTS:
                if not fn.is_counter(_variable(children[0])):
                    return f"it writes '{_name(children[0])}' on the host (line {e.extent.start.line})"
                return self._reads(fn, children[1])
            if op == ",":
                return self._update_or_read(fn, children[0]) or self._update_or_read(fn, children[1])
        return self._reads(fn, e)

    def _reads(self, fn: _Function, e: ci.Cursor) -> Optional[str]:
        """None when `e` only reads memory (no call, no assignment, no `++`/`--`)."""
        for d in e.walk_preorder():
            kind = cursor_kind(d)
            line = d.extent.start.line
            if kind is CK.CALL_EXPR:
                return f"it calls '{d.spelling}' on the host (line {line})"
            if kind is CK.UNARY_OPERATOR:
                if unary_operator(d) in _UPDATES:
                    return f"it updates '{_name(d)}' on the host (line {line})"
            elif kind in (CK.BINARY_OPERATOR, CK.COMPOUND_ASSIGNMENT_OPERATOR):
                if binary_operator(d) in _ASSIGNMENTS:
                    return f"it writes '{_name(d)}' on the host (line {line})"
            elif kind not in _READS:
                return f"it runs host code between region calls (line {line})"
        return None

    # ------------------------------------------------------------------ placement
    def _placement(self, fn: _Function, loop: ci.Cursor) -> Optional[str]:
        """Why the brackets cannot be written around `loop` (None: they can)."""
        ext = loop.extent
        if ext.start.file is None or ext.end.file is None or ext.start.file.name != self.main_file \
                or ext.end.file.name != self.main_file:
            return "it is not written in the main file"
        for e in self.extents:
            if e.file == self.main_file and e.start_offset < ext.end.offset and ext.start.offset < e.end_offset:
                return "it overlaps a region"
        tokens = list(loop.get_tokens())
        if not tokens or tokens[0].extent.start.offset != ext.start.offset \
                or tokens[0].spelling not in ("for", "while", "do"):
            return "it is written by a macro"
        before = [t for t in self._tokens(fn.cursor.extent.start.offset, ext.start.offset)
                  if t.extent.start.offset < ext.start.offset]     # the range ends with the loop's keyword
        if before:
            last_line = before[-1].extent.start.line
            first_of_line = next(t for t in before if t.extent.start.line == last_line)
            if first_of_line.spelling == "#" or "_Pragma" in (t.spelling for t in before[-4:]):
                return "a preprocessor directive comes right before it"
            previous = before[-1]
            if previous.kind == ci.TokenKind.IDENTIFIER:
                return f"the macro '{previous.spelling}' comes right before it"
        return None

    def _tokens(self, start: int, end: int) -> list[ci.Token]:
        f = self.tu.get_file(self.main_file)
        return list(self.tu.get_tokens(extent=ci.SourceRange.from_locations(
            ci.SourceLocation.from_offset(self.tu, f, start), ci.SourceLocation.from_offset(self.tu, f, end))))

    def _end(self, loop: ci.Cursor) -> Optional[int]:
        """The offset just past the loop's last byte: its `}`, or the `;` that clang's extent of a
        loop whose body is one statement (or of a `do`) leaves out."""
        ext = loop.extent
        last = loop
        while cursor_kind(last) in (CK.FOR_STMT, CK.WHILE_STMT, CK.IF_STMT):
            # The statement the loop's text ends with: a body, an `else` branch.
            last = list(last.get_children())[-1]
        if cursor_kind(last) is CK.COMPOUND_STMT:
            return ext.end.offset
        end = ext.end.offset
        following = [t for t in self._tokens(end, min(self.size, end + 4096)) if t.extent.start.offset >= end]
        if following and following[0].spelling == ";":
            return following[0].extent.end.offset
        return None

    def _resident(self, loop: ci.Cursor, calls: list) -> ResidentLoop:
        return ResidentLoop(loop.extent.start.offset, self._end(loop) or -1, _loc(loop.extent.start), tuple(calls))


def find(tu: ci.TranslationUnit, main_file: str, outcomes: Sequence) -> Residency:
    """The resident and missed loops of `main_file` (see the module's docstring)."""
    found = _Finder(tu, main_file, outcomes).find()
    # A loop whose end cannot be found (no `;` after a one-statement body) is left alone.
    kept = tuple(lp for lp in found.loops if lp.end_offset > lp.start_offset)
    missed = found.missed + tuple(MissedLoop(lp.loc, tuple(dict.fromkeys(n for n, _ in lp.calls)),
                                             "pencilcc cannot find where it ends")
                                  for lp in found.loops if lp.end_offset <= lp.start_offset)
    return Residency(kept, missed)


def annotate(outcomes: Sequence, residency: Residency) -> tuple[list, list]:
    """`outcomes` with the record's `mapping.resident_calls` on every optimized region of the
    device (the call sites, in bracketed loops, of the function holding it: `{file, line,
    column}`), and the remarks: -Rpass=pencil for each bracketed loop, -Rpass-missed=pencil for
    each missed one. Outcomes are `RegionOutcome`s (dataclasses)."""
    from dataclasses import replace

    from clangpass.diagnostics import DiagnosticEngine

    sites: dict[str, list[dict]] = {}
    for loop in residency.loops:
        for name, at in loop.calls:
            sites.setdefault(name, []).append({"file": at.file, "line": at.line, "column": at.col})
    out = [replace(o, mapping={**o.mapping, "resident_calls": sites.get(o.region.function.name, [])})
           if o.status == "optimized" else o for o in outcomes]
    engine = DiagnosticEngine()
    for loop in residency.loops:
        names = ", ".join(f"'{n}'" for n in dict.fromkeys(n for n, _ in loop.calls))
        engine.report("pencil", "remark", loop.loc,
                      f"data stays on the device across the calls of {names} in this loop: the host "
                      "writes none of their arrays between calls", option="-Rpass=pencil")
    for miss in residency.missed:
        names = ", ".join(f"'{n}'" for n in miss.functions)
        engine.report("pencil", "remark", miss.loc,
                      f"the calls of {names} in this loop upload their arrays at every call: {miss.reason}",
                      option="-Rpass-missed=pencil")
    return out, list(engine.diagnostics)
