# SPDX-License-Identifier: MIT
"""Types and signatures PENCIL allows (thesis sections 4.2.2 iii, 4.3.1, appendix A).

Input: PENCIL functions and the code of pencil regions, walked by
`PencilWalker`, and the record declarations of a PENCIL file. Output:
pencil-union and pencil-bitfield (in the type of every parameter, result, local
variable, explicit cast and global used by PENCIL code, looking through arrays,
pointers and struct fields; pencil-union also for every union a PENCIL file
declares), pencil-array-param
(array parameters are `static const restrict`, i.e. `pencil_array`) and
pencil-variadic.
"""
from __future__ import annotations

from typing import Callable, Optional, Sequence

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.ir.types import is_pencil_array
from clangpass.lint.unit import PencilUnit
from clangpass.lint.walker import PencilWalker
# Finds the offending part of a struct type: (field path, what is wrong) or None.
StructDefect = Callable[[T.StructType], Optional[tuple[str, str]]]


def _union_defect(s: T.StructType) -> Optional[tuple[str, str]]:
    return ("", f"'{s.spelling()}'") if s.is_union else None


def _bitfield_defect(s: T.StructType) -> Optional[tuple[str, str]]:
    for f in s.fields:
        if f.bit_width is not None:
            return (f.name, f"a bit-field of width {f.bit_width}")
    return None


# A defect found in a type: (path of fields to it, description, declaration of the last field).
Defect = tuple[str, str, Optional[N.SourceLoc]]


def find_defect(t: T.CType, defect: StructDefect, seen: frozenset[str] = frozenset()) -> Optional[Defect]:
    """Searches `t` (through arrays, pointers, functions and struct fields) for a struct `defect`.

    Returns (path of fields to the defect, description, where the field at the end of the path
    is declared); the path is '' and the place None when `t` itself is at fault.
    """
    if isinstance(t, T.ArrayType):
        return find_defect(t.element, defect, seen)
    if isinstance(t, T.PointerType):
        return find_defect(t.pointee, defect, seen)
    if isinstance(t, T.FunctionType):
        for part in (t.result, *t.params):
            found = find_defect(part, defect, seen)
            if found is not None:
                return found
        return None
    if not isinstance(t, T.StructType) or t.spelling() in seen:
        return None
    own = defect(t)
    if own is not None:
        name, what = own
        field_loc = next((f.loc for f in t.fields if f.name == name), None) if name else None
        return (name, what, field_loc)
    for f in t.fields:
        found = find_defect(f.type, defect, seen | {t.spelling()})
        if found is not None:
            path, what, field_loc = found
            return (f"{f.name}.{path}" if path else f.name, what, field_loc if path else f.loc)
    return None


class UnionBitfieldCheck(PencilWalker):
    rules = ("pencil-union", "pencil-bitfield")

    def __init__(self, unit: PencilUnit, function: N.Function) -> None:
        super().__init__(unit, function)
        self._globals_seen: set[str] = set()

    @classmethod
    def check_unit(cls, unit: PencilUnit) -> None:
        """A PENCIL file's global declarations are PENCIL code too: no union declared, no global of one."""
        if not unit.module.pencil_file:
            return
        for record in unit.module.structs:
            if record.is_union:
                what = f"union '{record.name}'" if record.name else "an anonymous union"
                unit.report("pencil-union", record.loc, f"PENCIL file declares {what}; PENCIL has no unions")
        for g in unit.module.globals:
            report_type_defects(unit, g.type, g.loc, f"global variable '{g.name}'")

    def check_function(self, function: N.Function) -> None:
        for p in function.params:
            report_type_defects(self.unit, p.type, p.loc, f"parameter '{p.name}'")
        report_type_defects(self.unit, function.result, function.loc,
                            f"the result of '{function.name}'")

    def visit_VarDecl(self, node: N.VarDecl) -> None:
        report_type_defects(self.unit, node.type, node.loc, f"variable '{node.name}'")

    def visit_Cast(self, node: N.Cast) -> None:
        if not node.implicit:
            report_type_defects(self.unit, node.type, node.loc, "cast")

    def visit_VarRef(self, node: N.VarRef) -> None:
        if node.scope == "global" and node.name not in self._globals_seen:
            self._globals_seen.add(node.name)
            report_type_defects(self.unit, node.type, node.loc, f"global variable '{node.name}'",
                                declared_here(node))


def declared_here(node: N.VarRef) -> list[tuple[N.SourceLoc, str]]:
    """The note that points at the declaration of a variable used at `node`, if it is known."""
    return [(node.decl_loc, f"'{node.name}' is declared here")] if node.decl_loc.line > 0 else []


def report_type_defects(unit: PencilUnit, t: T.CType, loc: N.SourceLoc, what: str,
                        notes: Sequence[tuple[N.SourceLoc, str]] = ()) -> None:
    """Reports a union or a bit-field in `t`, with a note at the offending field's declaration."""
    for rule_id, defect, banned in (("pencil-union", _union_defect, "unions"),
                                    ("pencil-bitfield", _bitfield_defect, "bit-fields")):
        found = find_defect(t, defect)
        if found is None:
            continue
        path, description, field_loc = found
        message = f"{what} has type '{t.spelling()}'"
        if path:
            message += f", whose field '{path}' is {description}"
        elif description != f"'{t.spelling()}'":
            message += f", which contains {description}"
        field_note = [(field_loc, f"field '{path.rsplit('.', 1)[-1]}' is declared here")] \
            if path and field_loc is not None and field_loc.line > 0 else []
        unit.report(rule_id, loc, f"{message}; PENCIL has no {banned}", [*notes, *field_note])


def _missing_qualifiers(t: T.ArrayType) -> list[str]:
    return [word for word in ("static", "const", "restrict") if not getattr(t, word)]


class ArrayParamCheck(PencilWalker):
    rules = ("pencil-array-param",)

    def __init__(self, unit: PencilUnit, function: N.Function) -> None:
        super().__init__(unit, function)
        self._region_params_seen: set[str] = set()

    def check_function(self, function: N.Function) -> None:
        for p in function.params:
            if isinstance(p.type, T.ArrayType) and not is_pencil_array(p.type):
                self.report("pencil-array-param", p.loc,
                            f"array parameter '{p.name}' must be declared "
                            f"'{p.name}[static const restrict n]' (pencil_array): "
                            f"missing {', '.join(_missing_qualifiers(p.type))}")

    def visit_VarRef(self, node: N.VarRef) -> None:
        """Arrays a pencil region uses follow the PENCIL declaration rules (section 4.3.4 iii)."""
        if self.whole_function or node.scope != "param" or node.name in self._region_params_seen:
            return
        variable = self.lookup(node.name)
        if variable is None or variable.kind != "param" or not isinstance(variable.type, T.ArrayType):
            return
        if is_pencil_array(variable.type):
            return
        self._region_params_seen.add(node.name)
        self.report("pencil-array-param", variable.loc,
                    f"array parameter '{node.name}' is used in a '#pragma pencil region' and must be "
                    f"declared '{node.name}[static const restrict n]' (pencil_array): "
                    f"missing {', '.join(_missing_qualifiers(variable.type))}",
                    notes=[(node.loc, f"'{node.name}' is used in the region here")])


class VariadicCheck(PencilWalker):
    rules = ("pencil-variadic",)

    def check_function(self, function: N.Function) -> None:
        if function.variadic:
            self.report("pencil-variadic", function.loc,
                        f"PENCIL function '{function.name}' is variadic ('...'); "
                        "PENCIL functions have a fixed argument list")
