# SPDX-License-Identifier: MIT
"""No pointer manipulation in PENCIL (thesis section 4.2.2 iii, "Pointer types").

Input: PENCIL functions and the code of pencil regions, walked by
`PencilWalker`. Output: pencil-pointer for pointer parameters and results of
PENCIL function definitions, dereferences (`*p`, `p->f`), address-of, pointer
arithmetic, pointer assignment/initialisation/conversion, subscripts of
pointers (arrays are declared with the VLA syntax), reading a pointer or an
array reference as a value, and function pointers. Passing an array or a
pointer as a whole to a call is the one exception the thesis makes. Summary
functions (section 4.3.2) mirror the signature of the function they describe,
so their pointer parameters are allowed and so is a dereferenced pointer named
in `__pencil_use`/`__pencil_def`.
"""
from __future__ import annotations

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.lint.unit import PencilUnit
from clangpass.ir.walk import base_variable, strip_implicit_casts
from clangpass.lint.walker import INCREMENTS, PencilWalker, spell
_ACCESS_BUILTINS = ("__pencil_use", "__pencil_def")


class PointerCheck(PencilWalker):
    rules = ("pencil-pointer",)

    def __init__(self, unit: PencilUnit, function: N.Function) -> None:
        super().__init__(unit, function)
        self.in_summary = unit.is_summary(function) and self.whole_function
        self._reported_params: set[str] = set()
        self._subscripted: set[str] = set()

    def check_function(self, function: N.Function) -> None:
        if not self.in_summary:
            for p in function.params:
                if isinstance(p.type, T.PointerType):
                    self._reported_params.add(p.name)
                    kind = "function pointer" if isinstance(p.type.pointee, T.FunctionType) else "pointer"
                    self.report("pencil-pointer", p.loc,
                                f"{kind} parameter '{p.name}' is not allowed in PENCIL (arrays are passed "
                                f"as 'T {p.name}[static const restrict n]', i.e. pencil_array)")
        if isinstance(function.result, T.PointerType):
            self.report("pencil-pointer", function.loc,
                        f"PENCIL function '{function.name}' returns a pointer")

    def _names_accessed_memory(self) -> bool:
        """Inside `__pencil_use(...)`/`__pencil_def(...)` of a summary function."""
        return self.in_summary and any(isinstance(p, N.Call) and p.callee in _ACCESS_BUILTINS
                                       for p in self.parents)

    def visit_Unary(self, node: N.Unary) -> None:
        if node.op == "*":
            if not self._names_accessed_memory():
                self.report("pencil-pointer", node.loc,
                            f"pointer dereference '{spell(node)}' is not allowed in PENCIL")
        elif node.op == "&":
            self.report("pencil-pointer", node.loc,
                        f"address-of '{spell(node)}' is not allowed in PENCIL")
        elif node.op in INCREMENTS and T.is_pointer_like(node.operand.type):
            self.report("pencil-pointer", node.loc,
                        f"pointer arithmetic '{spell(node)}' is not allowed in PENCIL")

    def visit_Member(self, node: N.Member) -> None:
        if node.arrow and not self._names_accessed_memory():
            self.report("pencil-pointer", node.loc,
                        f"'{spell(node)}' dereferences a pointer, which is not allowed in PENCIL")

    def visit_Binary(self, node: N.Binary) -> None:
        if node.op in ("+", "-") and (T.is_pointer_like(strip_implicit_casts(node.lhs).type)
                                      or T.is_pointer_like(strip_implicit_casts(node.rhs).type)):
            self.report("pencil-pointer", node.loc,
                        f"pointer arithmetic '{spell(node)}' is not allowed in PENCIL")

    def visit_Assign(self, node: N.Assign) -> None:
        if not T.is_pointer_like(node.target.type):
            return
        what = "assignment to a pointer" if node.op == "=" else "pointer arithmetic"
        self.report("pencil-pointer", node.loc, f"{what} '{spell(node)}' is not allowed in PENCIL")

    def visit_VarDecl(self, node: N.VarDecl) -> None:
        if isinstance(node.type, T.PointerType) and node.init is not None:
            self.report("pencil-pointer", node.loc,
                        f"initialisation of pointer '{node.name}' is not allowed in PENCIL "
                        "(pointers may only be declared)")

    def visit_Cast(self, node: N.Cast) -> None:
        if not node.implicit and isinstance(node.type, T.PointerType):
            self.report("pencil-pointer", node.loc,
                        f"conversion to pointer type '{node.type.spelling()}' is not allowed in PENCIL")

    def visit_Subscript(self, node: N.Subscript) -> None:
        base = strip_implicit_casts(node.base)
        if not isinstance(base.type, T.PointerType):
            return
        variable = base_variable(base)
        name = variable.name if variable is not None else spell(base)
        if name in self._reported_params or name in self._subscripted:
            return
        self._subscripted.add(name)
        self.report("pencil-pointer", base.loc,
                    f"pointer '{name}' is accessed with a subscript; PENCIL arrays are declared "
                    "with the C99 array syntax ('T A[n]'), not as pointers")

    def visit_VarRef(self, node: N.VarRef) -> None:
        if node.scope == "function":
            self.report("pencil-pointer", node.loc,
                        f"function '{node.name}' used as a value (function pointers are not allowed in PENCIL)")
            return
        if not T.is_pointer_like(node.type) or self._reported_by_parent(node):
            return
        if isinstance(node.type, T.ArrayType):
            self.report("pencil-pointer", node.loc,
                        f"array '{node.name}' used as a pointer value; PENCIL only subscripts arrays "
                        "or passes them to calls")
        else:
            self.report("pencil-pointer", node.loc, f"reading pointer '{node.name}' is not allowed in PENCIL")

    def _reported_by_parent(self, node: N.VarRef) -> bool:
        """Whether this use is allowed, or already reported through the construct around it."""
        parent, child = self.value_parent(node)
        if isinstance(parent, N.Call):
            return any(arg is child for arg in parent.args)  # passing an array/pointer as a whole
        if isinstance(parent, N.Subscript):
            return parent.base is child
        if isinstance(parent, (N.Member, N.Unary)):
            return isinstance(parent, N.Member) or parent.op in ("*", "&", *INCREMENTS)
        if isinstance(parent, N.Binary):
            return parent.op in ("+", "-")
        if isinstance(parent, N.Assign):
            return parent.target is child or T.is_pointer_like(parent.target.type)
        if isinstance(parent, N.VarDecl):
            return isinstance(parent.type, T.PointerType)
        if isinstance(parent, N.Cast):
            return isinstance(parent.type, T.PointerType)
        return False
