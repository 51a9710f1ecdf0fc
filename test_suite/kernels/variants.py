# SPDX-License-Identifier: MIT
"""Three-address (3AC) and PRE variants of the PolyBench-style kernels (thesis ch. 2.6).

Input: `test_suite/kernels/polybench/<kernel>.c`. Output: the same program with its
`#pragma scop` region rewritten, in `three_address/polybench_3ac/` and
`three_address/polybench_pre/`. libclang parses (clangpass.frontend); the region is
transformed on clangpass's IR and printed back; everything outside the region is the
original text.

- **3AC** (Baghdadi's thesis, section 2.6, Fig. 2.16): every operation gets its own
  statement and a fresh scalar temporary, assigned once; its operands are variables,
  constants, array elements or earlier temporaries, and a store into the program's
  variables is a copy of a temporary (as in the thesis's Polybench-3AC): `C[i][j] +=
  alpha * A[i][k] * B[k][j]` becomes `t1 = alpha * A[i][k]; t2 = t1 * B[k][j]; t3 =
  C[i][j] + t2; C[i][j] = t3;`. Subscripts (address arithmetic) are left alone, and
  so are integer compound updates (their operand still lowered).
- **PRE** (section 2.2 and Fig. 2.18, 2.21): scalar replacement of an array element
  that a loop reads and writes at an invariant subscript (`t = C[i][j]; ... t += ...;
  C[i][j] = t;`, extended over the neighbouring statements that use the same element),
  then loop-invariant code motion of the expressions and loads of a loop body that no
  statement of the loop changes (`t = alpha * A[i][k];` before the `j` loop).

In both forms the temporaries are declared at function scope, before the `#pragma
scop`, as three-address code and PRE usually leave them (`double t1, t2;`). Both
transformations keep every floating-point operation, its operands and its order, so
a variant prints exactly what the original prints (checked with gcc -O0 by `--check`
and by test_suite/e2e/test_three_address_variants.py). A kernel with no PRE
opportunity has no PRE variant.

Usage: `python -m test_suite.kernels.variants` (re)writes every variant;
`--check` verifies the written files are current and that each variant built with
gcc -O0 prints what its original prints.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterator, Optional

from clangpass.frontend import FrontendOptions, parse_file
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.c_printer import CDialect, CPrinter
from clangpass.ir.walk import base_variable, children, iter_exprs, iter_stmts, stmt_exprs, transform, written_variables

KERNELS_DIR = Path(__file__).resolve().parent
POLYBENCH_DIR = KERNELS_DIR / "polybench"
VARIANT_DIRS = {"3ac": KERNELS_DIR / "three_address" / "polybench_3ac",
                "pre": KERNELS_DIR / "three_address" / "polybench_pre"}
FORM_TITLES = {"3ac": "three-address code", "pre": "partial redundancy elimination"}


class Unlowerable(Exception):
    """The region holds a construct the variant generator does not transform."""


# ----------------------------------------------------------------------------- printing
# C operator precedence (higher binds tighter), for printing with the parentheses C needs.
_BINARY_PRECEDENCE = {"*": 13, "/": 13, "%": 13, "+": 12, "-": 12, "<<": 11, ">>": 11,
                      "<": 10, "<=": 10, ">": 10, ">=": 10, "==": 9, "!=": 9, "&": 8, "^": 7,
                      "|": 6, "&&": 5, "||": 4, ",": 1}
_UNARY, _POSTFIX, _CONDITIONAL, _ASSIGNMENT = 15, 16, 3, 2


class SourcePrinter(CPrinter):
    """IR as readable C: only the parentheses precedence needs, implicit conversions left
    implicit (the C compiler inserts them again from the same operand types), statements
    indented two spaces per level."""

    def __init__(self) -> None:
        super().__init__(CDialect())

    def expr(self, e: N.Expr, context: int = 0) -> str:
        text, precedence = self._expr(e)
        return f"({text})" if precedence < context else text

    def _expr(self, e: N.Expr) -> tuple[str, int]:
        if isinstance(e, N.Cast) and e.implicit:
            return self._expr(e.operand)
        if isinstance(e, N.Binary):
            p = _BINARY_PRECEDENCE[e.op]
            return f"{self.expr(e.lhs, p)} {e.op} {self.expr(e.rhs, p + 1)}", p
        if isinstance(e, N.Assign):
            return f"{self.expr(e.target, _UNARY)} {e.op} {self.expr(e.value, _ASSIGNMENT)}", _ASSIGNMENT
        if isinstance(e, N.Conditional):
            return (f"{self.expr(e.cond, _CONDITIONAL + 1)} ? {self.expr(e.then, _ASSIGNMENT)} : "
                    f"{self.expr(e.otherwise, _CONDITIONAL)}", _CONDITIONAL)
        if isinstance(e, N.Unary) and e.op.startswith("post"):
            return f"{self.expr(e.operand, _POSTFIX)}{e.op[4:]}", _POSTFIX
        if isinstance(e, N.Unary):
            operand = self.expr(e.operand, _UNARY)
            if operand.startswith(("-", "+")):
                operand = f"({operand})"      # `- -x` and `--x` differ
            return f"{e.op}{operand}", _UNARY
        if isinstance(e, N.Cast):
            return f"({self.dialect.type_name(e.type)}){self.expr(e.operand, _UNARY)}", _UNARY
        if isinstance(e, N.Call):
            return f"{e.callee}({', '.join(self.expr(a, _ASSIGNMENT) for a in e.args)})", _POSTFIX
        if isinstance(e, N.Subscript):
            return f"{self.expr(e.base, _POSTFIX)}[{self.expr(e.index)}]", _POSTFIX
        text = super().expr(e)                 # literals and variables
        return text, (_UNARY if text.startswith("(") or text.startswith("-") else _POSTFIX)

    def lines(self, s: N.Stmt, indent: str) -> list[str]:
        if isinstance(s, N.Compound):
            return [f"{indent}{{", *(line for c in s.body for line in self.lines(c, indent + "  ")), f"{indent}}}"]
        if isinstance(s, N.ExprStmt):
            return [f"{indent}{self.expr(s.expr)};"]
        if isinstance(s, N.For):
            init = "" if s.init is None else self.lines(s.init, "")[0].rstrip(";")
            cond = "" if s.cond is None else self.expr(s.cond)
            step = "" if s.step is None else self.expr(s.step)
            return self._headed(f"{indent}for ({init}; {cond}; {step})", s.body, indent)
        if isinstance(s, N.If):
            out = self._headed(f"{indent}if ({self.expr(s.cond)})", s.then, indent)
            if s.otherwise is not None and isinstance(s.then, N.Compound):
                out = out[:-1] + self._headed(f"{indent}}} else", s.otherwise, indent)
            elif s.otherwise is not None:
                out += self._headed(f"{indent}else", s.otherwise, indent)
            return out
        if isinstance(s, N.NullStmt):
            return [f"{indent};"]
        raise Unlowerable(f"statement '{type(s).__name__}'")

    def _headed(self, head: str, body: N.Stmt, indent: str) -> list[str]:
        if isinstance(body, N.Compound):
            inner = [line for c in body.body for line in self.lines(c, indent + "  ")]
            return [f"{head} {{", *inner, f"{indent}}}"]
        return [head, *self.lines(body, indent + "  ")]


# ----------------------------------------------------------------------------- temporaries
class Temporaries:
    """Fresh scalars `<prefix>1, <prefix>2, ...`, none of them a name of the file."""

    def __init__(self, taken: set[str]) -> None:
        self.prefix = next(p for p in ("t", "tmp", "tac") if not any(re.fullmatch(rf"{p}\d+", n) for n in taken))
        self.declared: list[tuple[str, T.CType]] = []

    def new(self, t: T.CType) -> N.VarRef:
        if not isinstance(t, (T.IntType, T.FloatType)):
            raise Unlowerable(f"a temporary of type '{t.spelling()}'")
        name = f"{self.prefix}{len(self.declared) + 1}"
        self.declared.append((name, t.unqualified()))
        return N.VarRef(name, "local", type=t.unqualified())

    def declarations(self, indent: str) -> str:
        """`double t1, t2;` lines, one per type, in order of first use."""
        by_type: dict[str, list[str]] = {}
        for name, t in self.declared:
            by_type.setdefault(t.spelling(), []).append(name)
        return "".join(f"{indent}{spelling} {', '.join(names)};\n" for spelling, names in by_type.items())


def _assign(target: N.Expr, value: N.Expr) -> N.ExprStmt:
    return N.ExprStmt(N.Assign("=", target, value, type=target.type))


def _is_operand(e: N.Expr) -> bool:
    """A three-address operand: a variable, a constant or an array element (possibly converted)."""
    if isinstance(e, N.Cast):
        return _is_operand(e.operand)
    if isinstance(e, N.Unary) and e.op == "-":
        return isinstance(e.operand, (N.IntLit, N.FloatLit))
    return isinstance(e, (N.VarRef, N.IntLit, N.FloatLit, N.Subscript))


def _accesses(e: Optional[N.Expr]) -> Iterator[N.Subscript]:
    """The outermost array element accesses under `e` (a chain `A[i][j]` once)."""
    if e is None:
        return
    if isinstance(e, N.Subscript):
        yield e
        yield from (a for index in _indices(e) for a in _accesses(index))
        return
    for sub in _children_exprs(e):
        yield from _accesses(sub)


def _indices(e: N.Subscript) -> list[N.Expr]:
    out = []
    node: N.Expr = e
    while isinstance(node, N.Subscript):
        out.append(node.index)
        node = node.base
    return out


def _children_exprs(e: N.Expr) -> Iterator[N.Expr]:
    return (c for c in children(e) if isinstance(c, N.Expr))


# ----------------------------------------------------------------------------- 3AC
class ThreeAddress:
    """Lowers each assignment of a region into three-address statements."""

    def __init__(self, temps: Temporaries) -> None:
        self.temps = temps
        self.code: list[N.Stmt] = []

    def block(self, s: N.Stmt) -> N.Stmt:
        if isinstance(s, N.Compound):
            return replace(s, body=tuple(x for c in s.body for x in self.statements(c)))
        lowered = self.statements(s)
        return lowered[0] if len(lowered) == 1 else N.Compound(body=tuple(lowered))

    def statements(self, s: N.Stmt) -> list[N.Stmt]:
        if isinstance(s, N.ExprStmt) and isinstance(s.expr, N.Assign):
            self.code = []
            e = s.expr
            if e.op == "=" and _is_operand(e.value):
                return [s]                                              # a copy already
            if e.op == "=":
                value = self.operation(e.value)
            elif e.compute_type not in (None, e.target.type) or not isinstance(e.target.type, T.FloatType):
                # An integer or mixed-type update keeps its compound form (C's conversions).
                return [*self.code, replace(s, expr=replace(e, value=self.operand(e.value)))]
            else:
                # `X op= v` is `X = X op v`, the operands in that order: the same rounding.
                value = N.Binary(e.op[:-1], e.target, self.operand(e.value), type=e.target.type)
            result = self.temps.new(value.type)
            return [*self.code, _assign(result, value), replace(s, expr=N.Assign("=", e.target, result, type=e.target.type))]
        if isinstance(s, N.For):
            return [replace(s, body=self.block(s.body))]
        if isinstance(s, N.If):
            return [replace(s, then=self.block(s.then),
                            otherwise=None if s.otherwise is None else self.block(s.otherwise))]
        if isinstance(s, N.Compound):
            return [self.block(s)]
        if isinstance(s, (N.ExprStmt, N.NullStmt)):
            return [s]
        raise Unlowerable(f"statement '{type(s).__name__}'")

    def operand(self, e: N.Expr) -> N.Expr:
        if _is_operand(e):
            return e
        value = self.operation(e)
        t = self.temps.new(e.type)
        self.code.append(_assign(t, value))
        return t

    def operation(self, e: N.Expr) -> N.Expr:
        """`e` as one operation whose operands are three-address operands."""
        if isinstance(e, N.Binary) and e.op not in ("&&", "||", ","):
            return replace(e, lhs=self.operand(e.lhs), rhs=self.operand(e.rhs))
        if isinstance(e, N.Unary) and e.op in ("-", "+", "!", "~"):
            return replace(e, operand=self.operand(e.operand))
        if isinstance(e, N.Cast):
            return replace(e, operand=self.operand(e.operand))
        if isinstance(e, N.Call):
            return replace(e, args=tuple(self.operand(a) for a in e.args))
        if isinstance(e, N.Conditional):
            cond = self.operand(e.cond)
            return replace(e, cond=cond, then=self._branch(e.then, e.cond),
                           otherwise=self._branch(e.otherwise, e.cond))
        raise Unlowerable(f"expression '{type(e).__name__}'")

    def _branch(self, e: N.Expr, cond: N.Expr) -> N.Expr:
        """A branch of `?:` is evaluated before the choice only when that cannot fault: the
        array elements it reads are read by the condition too and it divides no integer."""
        read_by_cond = list(_accesses(cond))
        safe = (all(a in read_by_cond for a in _accesses(e))
                and not any(isinstance(x, N.Binary) and x.op in ("/", "%") and isinstance(x.type, T.IntType)
                            for x in iter_exprs(e)))
        return self.operand(e) if safe else e


# ----------------------------------------------------------------------------- PRE
def _written_names(s: N.Stmt) -> set[str]:
    """Variables (scalars and whole arrays) some statement under `s` writes, loop iterators included."""
    return {v.name for x in iter_stmts(s) for e in stmt_exprs(x) for v in written_variables(e)}


def _read_names(e: N.Expr) -> set[str]:
    return {v.name for v in iter_exprs(e) if isinstance(v, N.VarRef)}


def _stmt_accesses(s: N.Stmt) -> Iterator[N.Subscript]:
    for x in iter_stmts(s):
        for e in stmt_exprs(x):
            yield from _accesses(e)


def _substitute(s: N.Stmt, old: N.Expr, new: N.Expr) -> N.Stmt:
    return transform(s, lambda node: new if isinstance(node, N.Expr) and node == old else node)


def _worth_hoisting(e: N.Expr) -> bool:
    return not _is_operand(e) or isinstance(_strip(e), N.Subscript)


def _strip(e: N.Expr) -> N.Expr:
    while isinstance(e, N.Cast):
        e = e.operand
    return e


class PartialRedundancy:
    """Scalar replacement of loop-invariant array elements, then loop-invariant code motion."""

    def __init__(self, temps: Temporaries) -> None:
        self.temps = temps
        self.hoisted: set[str] = set()      # temporaries holding a hoisted invariant value

    def block(self, stmts: tuple[N.Stmt, ...]) -> tuple[N.Stmt, ...]:
        out = [x for s in stmts for x in self.statement(s)]
        while True:
            run = self._replaceable_run(out)
            if run is None:
                return tuple(out)
            first, last, element = run
            t = self.temps.new(element.type)
            body = [_substitute(s, element, t) for s in out[first:last + 1]]
            head = out[first]
            loads = [] if (isinstance(head, N.ExprStmt) and isinstance(head.expr, N.Assign)
                           and head.expr.op == "=" and head.expr.target == element
                           and element not in list(_accesses(head.expr.value))) else [_assign(t, element)]
            out[first:last + 1] = [*loads, *body, _assign(element, t)]

    def statement(self, s: N.Stmt) -> list[N.Stmt]:
        if isinstance(s, N.For):
            body = s.body.body if isinstance(s.body, N.Compound) else (s.body,)
            inner = list(self.block(body))
            hoisted, inner = self._hoist(s, inner)
            new_body = replace(s.body, body=tuple(inner)) if isinstance(s.body, N.Compound) else (
                inner[0] if len(inner) == 1 else N.Compound(body=tuple(inner)))
            return [*hoisted, replace(s, body=new_body)]
        if isinstance(s, N.If):
            return [replace(s, then=self._sub_block(s.then),
                            otherwise=None if s.otherwise is None else self._sub_block(s.otherwise))]
        if isinstance(s, N.Compound):
            return [replace(s, body=self.block(s.body))]
        return [s]

    def _sub_block(self, s: N.Stmt) -> N.Stmt:
        stmts = self.block(s.body if isinstance(s, N.Compound) else (s,))
        if isinstance(s, N.Compound):
            return replace(s, body=stmts)
        return stmts[0] if len(stmts) == 1 else N.Compound(body=stmts)

    # -------------------------------------------------------------- scalar replacement
    def _replaceable_run(self, stmts: list[N.Stmt]) -> Optional[tuple[int, int, N.Subscript]]:
        """(first, last, X[f]): a loop of `stmts` writes X[f], f does not change in it and every
        access to X in statements first..last is X[f]; first..last is as long as it gets."""
        for k, loop in enumerate(stmts):
            if not isinstance(loop, N.For):
                continue
            changed = _written_names(loop)
            for e in (e for x in iter_stmts(loop) for e in stmt_exprs(x)):
                for target in (w.target for w in iter_exprs(e) if isinstance(w, N.Assign)):
                    if not isinstance(target, N.Subscript) or not self._only_access(loop, target, changed):
                        continue
                    first = last = k
                    for j in range(k - 1, -1, -1):
                        if self._extends(stmts[j], target):
                            first = j
                        elif not self._independent(stmts[j], target):
                            break
                    for j in range(k + 1, len(stmts)):
                        if self._extends(stmts[j], target):
                            last = j
                        elif not self._independent(stmts[j], target):
                            break
                    return first, last, target
        return None

    @staticmethod
    def _only_access(s: N.Stmt, element: N.Subscript, changed: set[str]) -> bool:
        array = base_variable(element)
        if array is None or _read_names(element) - {array.name} & changed:
            return False
        if any(_read_names(i) & changed for i in _indices(element)):
            return False
        return all(a == element for a in _stmt_accesses(s) if base_variable(a) == array)

    def _extends(self, s: N.Stmt, element: N.Subscript) -> bool:
        array = base_variable(element)
        uses = [a for a in _stmt_accesses(s) if base_variable(a) == array]
        return bool(uses) and not isinstance(s, N.DeclStmt) and self._only_access(s, element, _written_names(s))

    @staticmethod
    def _independent(s: N.Stmt, element: N.Subscript) -> bool:
        """`s` neither accesses the array of `element` nor changes its subscript."""
        array = base_variable(element)
        return (not any(base_variable(a) == array for a in _stmt_accesses(s))
                and not _read_names(element) & _written_names(s) and not isinstance(s, N.DeclStmt))

    # -------------------------------------------------------------- invariant code motion
    def _hoist(self, loop: N.For, body: list[N.Stmt]) -> tuple[list[N.Stmt], list[N.Stmt]]:
        """The statements to put before `loop` and its new body: maximal expressions of the
        body's own assignments (not under an `if` or an inner loop) that nothing in the loop
        changes, each computed once into a temporary."""
        changed = _written_names(loop) | _written_names(N.Compound(body=tuple(body)))
        hoisted: list[N.Stmt] = []
        out: list[N.Stmt] = []
        for s in body:
            if not (isinstance(s, N.ExprStmt) and isinstance(s.expr, N.Assign)):
                out.append(s)
                continue
            e = s.expr
            if (isinstance(e.target, N.VarRef) and e.target.name in self.hoisted and e.op == "="
                    and not self._changes(e.value, changed - {e.target.name})):
                hoisted.append(s)               # a value hoisted out of an inner loop moves on out
                continue
            value = self._hoist_expr(e.value, changed, hoisted)
            out.append(replace(s, expr=replace(e, value=value)))
        return hoisted, out

    def _hoist_expr(self, e: N.Expr, changed: set[str], hoisted: list[N.Stmt]) -> N.Expr:
        if not self._changes(e, changed) and _worth_hoisting(e):
            for h in hoisted:
                if h.expr.value == e:
                    return h.expr.target
            t = self.temps.new(e.type)
            self.hoisted.add(t.name)
            hoisted.append(_assign(t, e))
            return t
        if isinstance(e, N.Binary) and e.op not in ("&&", "||", ","):
            return replace(e, lhs=self._hoist_expr(e.lhs, changed, hoisted),
                           rhs=self._hoist_expr(e.rhs, changed, hoisted))
        if isinstance(e, N.Cast) or isinstance(e, N.Unary) and e.op in ("-", "+", "!", "~"):
            return replace(e, operand=self._hoist_expr(e.operand, changed, hoisted))
        if isinstance(e, N.Call):
            return replace(e, args=tuple(self._hoist_expr(a, changed, hoisted) for a in e.args))
        if isinstance(e, N.Conditional):      # the branches may not run: only the condition moves
            return replace(e, cond=self._hoist_expr(e.cond, changed, hoisted))
        return e

    @staticmethod
    def _changes(e: N.Expr, changed: set[str]) -> bool:
        return bool(_read_names(e) & changed) or any(
            isinstance(x, (N.Assign, N.Call)) and not (isinstance(x, N.Call) and x.builtin)
            or isinstance(x, N.Unary) and x.op in ("++", "--", "post++", "post--") for x in iter_exprs(e))


# ----------------------------------------------------------------------------- files
@dataclass(frozen=True)
class Variant:
    kernel: str
    form: str
    source: str          # the variant's text
    temporaries: int     # scalars declared for it


def _region(module: N.Module) -> tuple[N.Function, N.Region]:
    found = [(fn, s) for fn in module.functions if fn.body is not None and fn.in_main_file
             for s in iter_stmts(fn.body) if isinstance(s, N.Region)]
    if len(found) != 1:
        raise Unlowerable(f"{len(found)} regions")
    return found[0]


def make_variant(path: Path, form: str) -> Optional[Variant]:
    """The `form` ('3ac' or 'pre') variant of the kernel at `path`; None if it would not differ."""
    text = path.read_text()
    parsed = parse_file(str(path), FrontendOptions(("-std=c99",)))
    if not parsed.ok:
        raise Unlowerable(f"{path}: does not parse")
    fn, region = _region(parsed.module)
    temps = Temporaries(set(re.findall(r"[A-Za-z_]\w*", text)))
    if form == "3ac":
        body = ThreeAddress(temps).block(region.body)
        stmts = body.body
    else:
        stmts = PartialRedundancy(temps).block(region.body.body)
    if not temps.declared:
        return None
    printer = SourcePrinter()
    start, end = region.extent.start_offset, region.extent.end_offset
    indent = " " * (region.body.body[0].loc.col - 1) if region.body.body else "  "
    lines = [line for s in stmts for line in printer.lines(s, indent)]
    rewritten = temps.declarations(indent) + "#pragma scop\n" + "\n".join(lines) + "\n#pragma endscop"
    header = (f"/* Generated by test_suite/kernels/variants.py from polybench/{path.name}: the scop in\n"
              f" * {FORM_TITLES[form]} form, temporaries declared at function scope. Do not edit. */\n")
    return Variant(path.stem, form, header + text[:start] + rewritten + text[end:], len(temps.declared))


def variants(form: str) -> dict[str, Optional[Variant]]:
    return {p.stem: make_variant(p, form) for p in sorted(POLYBENCH_DIR.glob("*.c"))}


def variant_path(kernel: str, form: str) -> Path:
    return VARIANT_DIRS[form] / f"{kernel}.c"


def _gcc_output(source: Path, workdir: Path) -> str:
    exe = workdir / (source.parent.name + "-" + source.stem)
    subprocess.run(["gcc", "-std=c99", "-O0", "-Wno-unknown-pragmas", str(source), "-o", str(exe), "-lm"],
                   check=True, capture_output=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="verify the written variants instead of writing them")
    args = parser.parse_args(argv)
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        for form, folder in VARIANT_DIRS.items():
            folder.mkdir(parents=True, exist_ok=True)
            made = {k: v for k, v in variants(form).items() if v is not None}
            stale = {p.stem for p in folder.glob("*.c")} - set(made)
            for kernel, v in made.items():
                path = variant_path(kernel, form)
                if args.check:
                    if not path.is_file() or path.read_text() != v.source:
                        problems.append(f"{path}: not what the generator writes")
                    elif _gcc_output(path, Path(tmp)) != _gcc_output(POLYBENCH_DIR / f"{kernel}.c", Path(tmp)):
                        problems.append(f"{path}: prints something else than polybench/{kernel}.c")
                else:
                    path.write_text(v.source)
            for kernel in sorted(stale):
                problems.append(f"{variant_path(kernel, form)}: no longer generated") if args.check else \
                    variant_path(kernel, form).unlink()
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
