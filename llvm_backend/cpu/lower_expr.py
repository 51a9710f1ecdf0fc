# SPDX-License-Identifier: MIT
"""Statement bodies and expressions of the pencilcc IR as LLVM IR, with C99 semantics.

Input: an IR statement (a `StatementBody.body`) and the `FunctionState` whose scope
says what each name means. Output: instructions appended at the builder.

The front end made every value-changing implicit conversion an explicit `Cast`, so
an operator is lowered in the type of its operands: signed integers use sdiv/srem/
ashr/signed predicates and `nsw` arithmetic (signed overflow is undefined in C,
C99 6.5p5), unsigned ones udiv/urem/lshr/unsigned predicates and wrap; `/` and `%`
truncate toward zero in both C99 and LLVM. The exceptions are shifts (the right
operand keeps its own type), comparisons and `!`/`&&`/`||` (int 0/1 results) and
pointer arithmetic. Compound assignments follow 6.5.16.2: `a op= b` is
`a = (T_a)((compute_type)a op b)`, the front end giving shifts the promoted type of `a`.
Floating point gets fast-math flags only under -ffast-math, and `contract` alone
under -ffp-contract=fast. Under -ffp-contract=on a multiply that is an operand of an
add or subtract in the same type (`a*b + c`, `c - a*b`, `x += a*b`, `x -= a*b`) becomes
one `llvm.fmuladd` with it, as clang emits it (C99 6.5p8 lets an expression be
contracted): LLVM fuses it into an FMA where the target has one, and vectorises it
like the multiply and add. An accumulation `x += a*b` / `x -= a*b` is fused only where
`fuse_accumulators` is set (the AST lowering sets it under `register-tile` and `vector`
marks, where many independent accumulators make the loop throughput-bound): elsewhere
it is usually one loop-carried chain (lu's, ludcmp's, durbin's `k` loops), and on this
project's Xeon an FMA in that chain (4 cycles) is slower than the add it replaces, the
multiply being off the chain (LARGE, one thread: lu 1.05 s -> 1.40 s, durbin 1.5 -> 2.5 ms). A product reached through a variable, a cast or another
statement stays rounded. Without any of these, results equal gcc -O0's, which neither
reassociates nor fuses.

Array elements are addressed as one `getelementptr inbounds` on the scalar element
with a linear i64 index in Horner form, `((i * m) + j) * p + k`, the extents being
i64 values evaluated once at function entry from the array's declared type.
Signed int index arithmetic is done directly in i64 (`index_value`), which equals
the sign-extended int result whenever the C expression is defined, and leaves
scalar evolution a plain affine expression of the loop counters.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import llvmlite.ir as ir

from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.regions import OptRegion
from llvm_backend.cpu.context import FunctionState, Variable, null_pointer
from llvm_backend.cpu.lower_builtins import BuiltinLowering
from llvm_backend.cpu.lower_types import (I1, I64, PTR, BackendError, is_bool, is_signed, llvm_type,
                                          row_dims, scalar_element)

_COMPARISONS = {"<", "<=", ">", ">=", "==", "!="}
_SIGNED_INDEX_OPS = {"+", "-", "*"}


@dataclass(frozen=True)
class Lvalue:
    """An object in memory: its address, its C type, and whether it is shared array data."""

    ptr: ir.Value
    ctype: T.CType
    shared_array: bool = False
    array: Optional[str] = None     # the variable an array element belongs to (`C` of `C[i][j]`)
    chain: Optional[N.Expr] = None  # the subscript chain it was lowered from (`C[i][j]`)


def c_value(value: int, ctype: T.CType) -> int:
    """The mathematical value of constant `value` read as C type `ctype`."""
    bits = ctype.bits if isinstance(ctype, T.IntType) else 64
    value &= (1 << bits) - 1
    if is_signed(ctype) and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def int_constant(value: int, ctype: T.CType) -> ir.Constant:
    """A C integer constant as an LLVM constant of its width (two's complement)."""
    bits = ctype.bits if isinstance(ctype, T.IntType) else 64
    return ir.Constant(ir.IntType(bits), c_value(value, T.IntType(bits=bits, signed=True)))


def is_speculatable(e: N.Expr) -> bool:
    """Whether `e` may be evaluated when C would not: no side effect, no memory access
    that could fault, no integer division that could trap. Such operands of `?:`,
    `&&` and `||` become a `select` instead of branches."""
    if isinstance(e, (N.IntLit, N.FloatLit, N.VarRef)):
        return True
    if isinstance(e, N.Cast):
        return is_speculatable(e.operand)
    if isinstance(e, N.Unary):
        return e.op in ("+", "-", "~", "!") and is_speculatable(e.operand)
    if isinstance(e, N.Binary):
        if e.op in ("/", "%") and not T.is_floating(e.type):
            return False
        return e.op != "," and is_speculatable(e.lhs) and is_speculatable(e.rhs)
    if isinstance(e, N.Conditional):
        return is_speculatable(e.cond) and is_speculatable(e.then) and is_speculatable(e.otherwise)
    return False


class ExprLowering:
    """Lowers IR statements and expressions into the function of `state`."""

    def __init__(self, state: FunctionState) -> None:
        #: whether `x += a*b` fuses under -ffp-contract=on (the module docstring)
        self.fuse_accumulators = False
        self.state = state
        self.ctx = state.ctx
        self.builtins = BuiltinLowering(self)
        self.jump_targets: list[tuple[ir.Block, ir.Block]] = []   # (continue, break) of enclosing C loops

    @property
    def builder(self) -> ir.IRBuilder:
        return self.state.builder

    @property
    def fm(self) -> tuple[str, ...]:
        return self.ctx.fast_math

    # ------------------------------------------------------------------ statements
    def statement(self, s: N.Stmt) -> None:
        method = getattr(self, "stmt_" + type(s).__name__, None)
        if method is None:
            raise BackendError(f"statement '{type(s).__name__}' cannot appear in a statement body", s.loc)
        previous = self.state.at_statement(s.loc)
        method(s)
        self.builder.debug_metadata = previous

    def stmt_ExprStmt(self, s: N.ExprStmt) -> None:
        self.rvalue(s.expr)

    def stmt_Compound(self, s: N.Compound) -> None:
        for sub in s.body:
            self.statement(sub)

    def stmt_NullStmt(self, s: N.NullStmt) -> None:
        pass

    def stmt_If(self, s: N.If) -> None:
        cond = self.condition(s.cond)
        if s.otherwise is None:
            with self.builder.if_then(cond):
                self.statement(s.then)
            return
        with self.builder.if_else(cond) as (then, otherwise):
            with then:
                self.statement(s.then)
            with otherwise:
                self.statement(s.otherwise)

    # Loops and jumps: only inside opaque statements (clangpass.poly.extract), run as written.
    def stmt_For(self, s: N.For) -> None:
        if s.init is not None:
            self.statement(s.init)
        self._loop(s.cond, s.body, s.step)

    def stmt_While(self, s: N.While) -> None:
        self._loop(s.cond, s.body, None)

    def _loop(self, cond: Optional[N.Expr], body: N.Stmt, step: Optional[N.Expr]) -> None:
        b = self.builder
        test = b.append_basic_block("loop.cond")
        inside = b.append_basic_block("loop.body")
        latch = b.append_basic_block("loop.step")
        done = b.append_basic_block("loop.end")
        b.branch(test)
        b.position_at_end(test)
        if cond is not None:
            b.cbranch(self.condition(cond), inside, done)
        else:
            b.branch(inside)
        b.position_at_end(inside)
        self.jump_targets.append((latch, done))
        try:
            self.statement(body)
        finally:
            self.jump_targets.pop()
        b.branch(latch)
        b.position_at_end(latch)
        if step is not None:
            self.rvalue(step)
        b.branch(test)
        b.position_at_end(done)

    def stmt_Break(self, s: N.Break) -> None:
        self._jump(s, 1)

    def stmt_Continue(self, s: N.Continue) -> None:
        self._jump(s, 0)

    def _jump(self, s: N.Stmt, which: int) -> None:
        if not self.jump_targets:
            raise BackendError(f"'{type(s).__name__.lower()}' outside a loop of its statement", s.loc)
        self.builder.branch(self.jump_targets[-1][which])
        # What follows in the same block is unreachable; it gets a block of its own.
        self.builder.position_at_end(self.builder.append_basic_block("after.jump"))

    def stmt_DeclStmt(self, s: N.DeclStmt) -> None:
        for decl in s.decls:
            if decl.name not in self.state.scope:
                self.state.scope[decl.name] = allocate_local(self, decl)
            if decl.init is not None:
                var = self.state.scope[decl.name]
                self.store(Lvalue(var.value, decl.type), self.rvalue(decl.init))

    # ------------------------------------------------------------------ dispatch
    def rvalue(self, e: N.Expr) -> Optional[ir.Value]:
        """The value of `e` (None for void expressions); arrays decay to their address."""
        method = getattr(self, "lower_" + type(e).__name__, None)
        if method is None:
            raise BackendError(f"expression '{type(e).__name__}' is not supported by the CPU back end", e.loc)
        return method(e)

    def address(self, e: N.Expr) -> Lvalue:
        method = getattr(self, "address_" + type(e).__name__, None)
        if method is None:
            raise BackendError(f"'{type(e).__name__}' does not designate an object", e.loc)
        return method(e)

    def variable(self, ref: N.VarRef) -> Variable:
        var = self.state.scope.get(ref.name)
        if var is None:
            raise BackendError(f"'{ref.name}' is neither a region argument, a region local "
                               f"nor an iterator of this statement", ref.loc)
        return var

    def load(self, lv: Lvalue, name: str = "") -> ir.Value:
        instr = self.builder.load(lv.ptr, name=name, typ=llvm_type(lv.ctype))
        self._tag(instr, lv)
        return instr

    def store(self, lv: Lvalue, value: ir.Value) -> None:
        self._tag(self.builder.store(value, lv.ptr), lv)

    def _tag(self, instr: ir.Instruction, lv: Lvalue) -> None:
        # Only region-argument arrays: locals are per-thread copies and scalars passed
        # by pointer carry the dependences a parallel mark does not cover.
        if lv.shared_array and self.state.access_group_list is not None:
            instr.set_metadata("llvm.access.group", self.state.access_group_list)
        # A register tile's row whose elements of this array no other row touches (register_rows).
        scopes = self.state.row_scopes.get(lv.array) if lv.array is not None else None
        # An innermost loop's accumulators, apart from the loop's other accesses to their
        # array for one execution of the loop (accumulators.py, lower_ast.accumulator_scopes).
        accumulators = self.state.accumulator_scopes.get(lv.array) if lv.array is not None else None
        if scopes is None and accumulators is not None and lv.chain is not None:
            chains, mine, others = accumulators
            scopes = mine if lv.chain in chains else others
        if scopes is not None:
            instr.set_metadata("alias.scope", scopes[0])
            instr.set_metadata("noalias", scopes[1])

    # ------------------------------------------------------------------ leaves
    def lower_IntLit(self, e: N.IntLit) -> ir.Value:
        if isinstance(e.type, T.PointerType):
            return null_pointer()
        return int_constant(e.value, e.type)

    def lower_FloatLit(self, e: N.FloatLit) -> ir.Value:
        return ir.Constant(llvm_type(e.type, e.loc), e.value)

    def lower_VarRef(self, e: N.VarRef) -> ir.Value:
        var = self.variable(e)
        if var.kind == "iterator":
            return self.convert_int(var.value, T.LONG, e.type)
        if var.kind == "value":
            return var.value
        if var.kind == "array":
            return var.value
        return self.load(Lvalue(var.value, var.ctype), name=f"pencil.{e.name}")

    def address_VarRef(self, e: N.VarRef) -> Lvalue:
        var = self.variable(e)
        if var.kind == "memory" or (var.kind == "array" and isinstance(var.ctype, T.ArrayType)):
            return Lvalue(var.value, var.ctype, var.shared_array)
        raise BackendError(f"region argument '{e.name}' is passed by value and cannot be written", e.loc)

    # ------------------------------------------------------------------ arrays, pointers, structs
    def lower_Subscript(self, e: N.Subscript) -> ir.Value:
        lv = self.address_Subscript(e)
        if isinstance(e.type, T.ArrayType):
            return lv.ptr
        return self.load(lv)

    def address_Subscript(self, e: N.Subscript) -> Lvalue:
        indices = [e.index]
        node = e.base
        while isinstance(node, N.Subscript) and isinstance(node.type, T.ArrayType):
            indices.append(node.index)
            node = node.base
        indices.reverse()
        base, extents, shared = self.array_root(node)
        offset = self.index_value(indices[0])
        for index, extent in zip(indices[1:], extents):
            offset = self.builder.add(self.builder.mul(offset, extent, flags=("nsw",)),
                                      self.index_value(index), flags=("nsw",))
        for extent in extents[len(indices) - 1:]:
            offset = self.builder.mul(offset, extent, flags=("nsw",))
        element = llvm_type(scalar_element(node.type), e.loc)
        ptr = self.builder.gep(base, [offset], inbounds=True, source_etype=element,
                               name=f"pencil.{_root_name(node)}.addr")
        return Lvalue(ptr, e.type, shared, node.name if isinstance(node, N.VarRef) else None, e)

    def array_root(self, node: N.Expr) -> tuple[ir.Value, tuple[ir.Value, ...], bool]:
        """The address an array access starts from, the extents of the dimensions below
        its first subscript and whether it is a region argument's array."""
        if isinstance(node, N.VarRef):
            var = self.variable(node)
            if var.kind == "array":
                return var.value, var.extents, var.shared_array
        if isinstance(node.type, T.PointerType):
            ptr = self.rvalue(node)
            shared = isinstance(node, N.VarRef) and self.variable(node).shared_array
        elif isinstance(node.type, T.ArrayType):
            lv = self.address(node)
            ptr, shared = lv.ptr, lv.shared_array
        else:
            raise BackendError("subscripted value is neither an array nor a pointer", node.loc)
        return ptr, self.type_extents(node.type, node.loc), shared

    def type_extents(self, t: T.CType, loc: N.SourceLoc) -> tuple[ir.Value, ...]:
        """The i64 extents of `row_dims(t)`, evaluated here (declared variables have them
        precomputed at function entry; this serves casts, members and pointer chains)."""
        out = []
        for dim in row_dims(t):
            if dim.constant_extent is not None:
                out.append(ir.Constant(I64, dim.constant_extent))
            elif dim.extent is not None:
                out.append(self.index_value(dim.extent))
            else:
                raise BackendError(f"the extent of '{t.spelling()}' is unknown here", loc)
        return tuple(out)

    def index_value(self, e: N.Expr) -> ir.Value:
        """An integer expression as i64 (sign- or zero-extended as its C type says).

        Signed +, -, * and negation are computed in i64 directly: where the C
        expression is defined its value fits its type, so both agree."""
        if isinstance(e, N.IntLit):
            return ir.Constant(I64, c_value(e.value, e.type))
        if isinstance(e, N.VarRef) and self.variable(e).kind == "iterator" \
                and isinstance(e.type, T.IntType) and e.type.bits >= 32:
            return self.variable(e).value
        if isinstance(e, N.Binary) and e.op in _SIGNED_INDEX_OPS and is_signed(e.type):
            lhs, rhs = self.index_value(e.lhs), self.index_value(e.rhs)
            op = {"+": self.builder.add, "-": self.builder.sub, "*": self.builder.mul}[e.op]
            return op(lhs, rhs, flags=("nsw",))
        if isinstance(e, N.Unary) and e.op == "-" and is_signed(e.type):
            return self.builder.sub(ir.Constant(I64, 0), self.index_value(e.operand), flags=("nsw",))
        if isinstance(e, N.Cast) and isinstance(e.type, T.IntType) and isinstance(e.operand.type, T.IntType) \
                and is_signed(e.operand.type) and not is_bool(e.type) \
                and (e.type.bits > e.operand.type.bits or (e.type.bits == e.operand.type.bits and is_signed(e.type))):
            return self.index_value(e.operand)
        if isinstance(e, N.Unary) and e.op == "+":
            return self.index_value(e.operand)
        value = self.rvalue(e)
        if not isinstance(e.type, T.IntType):
            raise BackendError(f"array index of type '{e.type.spelling()}'", e.loc)
        return self.convert_int(value, e.type, T.LONG)

    def lower_Member(self, e: N.Member) -> ir.Value:
        lv = self.address_Member(e)
        if isinstance(e.type, T.ArrayType):
            return lv.ptr
        return self.load(lv)

    def address_Member(self, e: N.Member) -> Lvalue:
        if e.arrow:
            base = self.rvalue(e.base)
            struct = e.base.type.pointee if isinstance(e.base.type, T.PointerType) else e.base.type
            shared = isinstance(e.base, N.VarRef) and self.variable(e.base).shared_array
        else:
            lv = self.address(e.base)
            base, struct, shared = lv.ptr, e.base.type, lv.shared_array
        if not isinstance(struct, T.StructType):
            raise BackendError(f"member access into '{struct.spelling()}'", e.loc)
        if struct.is_union:
            return Lvalue(base, e.type, shared)
        try:
            index = struct.field_index(e.field_name)
        except KeyError:
            raise BackendError(f"'{struct.spelling()}' has no visible field '{e.field_name}'", e.loc) from None
        ptr = self.builder.gep(base, [ir.Constant(ir.IntType(32), 0), ir.Constant(ir.IntType(32), index)],
                               inbounds=True, source_etype=llvm_type(struct, e.loc),
                               name=f"pencil.{e.field_name}.addr")
        return Lvalue(ptr, e.type, shared)

    def address_Unary(self, e: N.Unary) -> Lvalue:
        if e.op != "*":
            raise BackendError(f"operator '{e.op}' does not designate an object", e.loc)
        shared = isinstance(e.operand, N.VarRef) and self.variable(e.operand).shared_array
        return Lvalue(self.rvalue(e.operand), e.type, shared)

    def address_Cast(self, e: N.Cast) -> Lvalue:
        # Only qualification changes reach here (value-changing casts are not lvalues).
        lv = self.address(e.operand)
        return Lvalue(lv.ptr, e.type, lv.shared_array)

    # ------------------------------------------------------------------ operators
    def lower_Unary(self, e: N.Unary) -> Optional[ir.Value]:
        op = e.op
        if op == "+":
            return self.rvalue(e.operand)
        if op == "-":
            value = self.rvalue(e.operand)
            if T.is_floating(e.type):
                return self.builder.fneg(value, flags=self.fm)
            flags = ("nsw",) if is_signed(e.type) else ()
            return self.builder.sub(ir.Constant(value.type, 0), value, flags=flags)
        if op == "~":
            return self.builder.not_(self.rvalue(e.operand))
        if op == "!":
            return self.builder.zext(self.builder.not_(self.condition(e.operand)), llvm_type(e.type))
        if op == "*":
            if isinstance(e.type, (T.ArrayType, T.FunctionType)):
                return self.rvalue(e.operand)
            return self.load(self.address_Unary(e))
        if op == "&":
            return self.address(e.operand).ptr
        if op in ("++", "--", "post++", "post--"):
            return self.increment(e)
        raise BackendError(f"unary operator '{op}' is not supported", e.loc)

    def increment(self, e: N.Unary) -> ir.Value:
        lv = self.address(e.operand)
        old = self.load(lv)
        t = e.operand.type
        up = e.op in ("++", "post++")
        if is_bool(t):
            # C99 6.5.3.1: ++b is b += 1 (always 1), --b is b -= 1 (flips 0/1).
            new = ir.Constant(old.type, 1) if up else self.builder.xor(old, ir.Constant(old.type, 1))
        elif isinstance(t, T.IntType):
            # Narrow types are promoted to int and converted back (gcc wraps): no nsw.
            flags = ("nsw",) if is_signed(t) and t.bits >= 32 else ()
            one = ir.Constant(old.type, 1)
            new = self.builder.add(old, one, flags=flags) if up else self.builder.sub(old, one, flags=flags)
        elif isinstance(t, T.FloatType):
            one = ir.Constant(old.type, 1.0)
            new = self.builder.fadd(old, one, flags=self.fm) if up else self.builder.fsub(old, one, flags=self.fm)
        elif isinstance(t, T.PointerType):
            new = self.builder.gep(old, [ir.Constant(I64, 1 if up else -1)], inbounds=True,
                                   source_etype=self.pointee_type(t, e.loc))
        else:
            raise BackendError(f"'{e.op}' on '{t.spelling()}'", e.loc)
        self.store(lv, new)
        return new if e.op in ("++", "--") else old

    def pointee_type(self, t: T.PointerType, loc: N.SourceLoc) -> ir.Type:
        if isinstance(t.pointee, T.ArrayType) and t.pointee.is_vla:
            raise BackendError("arithmetic on a pointer to a variable-length array", loc)
        if isinstance(t.pointee, T.VoidType):
            return ir.IntType(8)
        return llvm_type(t.pointee, loc)

    def lower_Binary(self, e: N.Binary) -> Optional[ir.Value]:
        op = e.op
        if op in ("&&", "||") or op in _COMPARISONS:
            return self.builder.zext(self.condition(e), llvm_type(e.type))
        if op == ",":
            self.rvalue(e.lhs)
            return self.rvalue(e.rhs)
        lt, rt = e.lhs.type, e.rhs.type
        if isinstance(lt, (T.PointerType, T.ArrayType)) or isinstance(rt, (T.PointerType, T.ArrayType)):
            return self.pointer_arithmetic(e)
        if op in ("+", "-") and (self.product(e.lhs, e.type) or self.product(e.rhs, e.type)):
            if self.product(e.lhs, e.type):
                a, b = self.rvalue(e.lhs.lhs), self.rvalue(e.lhs.rhs)
                return self.fmuladd(a, b, self.rvalue(e.rhs), negate_addend=op == "-")
            addend = self.rvalue(e.lhs)
            return self.fmuladd(self.rvalue(e.rhs.lhs), self.rvalue(e.rhs.rhs), addend,
                                negate_product=op == "-")
        return self.arithmetic(op, self.rvalue(e.lhs), self.rvalue(e.rhs), e.type, rt, e.loc)

    def product(self, e: N.Expr, ctype: T.CType) -> bool:
        """Whether `e` is a multiply in the floating type `ctype` that -ffp-contract=on fuses
        into the add or subtract whose operand it is (the module's docstring)."""
        return (self.ctx.fuse_products and isinstance(ctype, T.FloatType) and isinstance(e, N.Binary)
                and e.op == "*" and e.type == ctype)

    def fmuladd(self, a: ir.Value, b: ir.Value, addend: ir.Value, negate_product: bool = False,
                negate_addend: bool = False) -> ir.Value:
        """`a*b + addend` rounded once where the target fuses it (llvm.fmuladd); `c - a*b` is
        `(-a)*b + c` and `a*b - c` is `a*b + (-c)`, exact negations, as clang writes them."""
        if negate_product:
            a = self.builder.fneg(a)
        if negate_addend:
            addend = self.builder.fneg(addend)
        return self.builder.call(self.ctx.intrinsic("llvm.fmuladd", a.type, 3), [a, b, addend])

    def arithmetic(self, op: str, lhs: ir.Value, rhs: ir.Value, ctype: T.CType,
                   rhs_type: T.CType, loc: N.SourceLoc) -> ir.Value:
        """`lhs op rhs` computed in `ctype` (`rhs_type` matters for shifts only)."""
        b = self.builder
        if isinstance(ctype, T.FloatType):
            table = {"+": b.fadd, "-": b.fsub, "*": b.fmul, "/": b.fdiv}
            if op not in table:
                raise BackendError(f"operator '{op}' on '{ctype.spelling()}'", loc)
            return table[op](lhs, rhs, flags=self.fm)
        if not isinstance(ctype, T.IntType):
            raise BackendError(f"operator '{op}' on '{ctype.spelling()}'", loc)
        signed = is_signed(ctype)
        if op in ("<<", ">>"):
            rhs = self.resize(rhs, rhs_type, lhs.type)
            if op == "<<":
                return b.shl(lhs, rhs)
            return b.ashr(lhs, rhs) if signed else b.lshr(lhs, rhs)
        wrap = ("nsw",) if signed else ()
        if op == "+":
            return b.add(lhs, rhs, flags=wrap)
        if op == "-":
            return b.sub(lhs, rhs, flags=wrap)
        if op == "*":
            return b.mul(lhs, rhs, flags=wrap)
        if op == "/":
            return b.sdiv(lhs, rhs) if signed else b.udiv(lhs, rhs)
        if op == "%":
            return b.srem(lhs, rhs) if signed else b.urem(lhs, rhs)
        if op == "&":
            return b.and_(lhs, rhs)
        if op == "|":
            return b.or_(lhs, rhs)
        if op == "^":
            return b.xor(lhs, rhs)
        raise BackendError(f"binary operator '{op}' is not supported", loc)

    def resize(self, value: ir.Value, ctype: T.CType, target: ir.IntType) -> ir.Value:
        """An integer of C type `ctype` widened (by its signedness) or truncated to `target`."""
        width = value.type.width
        if width < target.width:
            return self.builder.sext(value, target) if is_signed(ctype) else self.builder.zext(value, target)
        if width > target.width:
            return self.builder.trunc(value, target)
        return value

    def pointer_arithmetic(self, e: N.Binary) -> ir.Value:
        lt, rt = e.lhs.type, e.rhs.type
        if isinstance(lt, (T.PointerType, T.ArrayType)) and isinstance(rt, (T.PointerType, T.ArrayType)):
            if e.op != "-":
                raise BackendError(f"operator '{e.op}' on two pointers", e.loc)
            element = self.pointee_type(_as_pointer(lt), e.loc)
            diff = self.builder.sub(self.builder.ptrtoint(self.rvalue(e.lhs), I64),
                                    self.builder.ptrtoint(self.rvalue(e.rhs), I64))
            count = self.builder.sdiv(diff, ir.Constant(I64, self.ctx.size_of(element)))
            return self.resize(count, T.LONG, llvm_type(e.type))
        if isinstance(lt, (T.PointerType, T.ArrayType)):
            pointer, index, ptype = e.lhs, e.rhs, lt
        else:
            pointer, index, ptype = e.rhs, e.lhs, rt
        offset = self.index_value(index)
        if e.op == "-":
            offset = self.builder.sub(ir.Constant(I64, 0), offset, flags=("nsw",))
        return self.builder.gep(self.rvalue(pointer), [offset], inbounds=True,
                                source_etype=self.pointee_type(_as_pointer(ptype), e.loc))

    # ------------------------------------------------------------------ conditions
    def condition(self, e: N.Expr) -> ir.Value:
        """`e != 0` as an i1, the way `if`, `?:`, `!`, `&&` and `||` read a scalar."""
        if isinstance(e, N.Binary) and e.op in _COMPARISONS:
            return self.compare(e)
        if isinstance(e, N.Binary) and e.op in ("&&", "||"):
            return self.logical(e)
        if isinstance(e, N.Unary) and e.op == "!":
            return self.builder.not_(self.condition(e.operand))
        return self.is_nonzero(self.rvalue(e), e.type)

    def is_nonzero(self, value: ir.Value, ctype: T.CType) -> ir.Value:
        if isinstance(ctype, T.FloatType):
            return self.builder.fcmp_unordered("!=", value, ir.Constant(value.type, 0.0), flags=self.fm)
        if isinstance(ctype, (T.PointerType, T.ArrayType)):
            return self.builder.icmp_unsigned("!=", value, null_pointer())
        return self.builder.icmp_unsigned("!=", value, ir.Constant(value.type, 0))

    def compare(self, e: N.Binary) -> ir.Value:
        lhs, rhs = self.rvalue(e.lhs), self.rvalue(e.rhs)
        t = e.lhs.type
        if isinstance(t, T.FloatType):
            # C comparisons are false on NaN except !=, which is true (unordered).
            if e.op == "!=":
                return self.builder.fcmp_unordered("!=", lhs, rhs, flags=self.fm)
            return self.builder.fcmp_ordered(e.op, lhs, rhs, flags=self.fm)
        if is_signed(t):
            return self.builder.icmp_signed(e.op, lhs, rhs)
        return self.builder.icmp_unsigned(e.op, lhs, rhs)

    def logical(self, e: N.Binary) -> ir.Value:
        """`&&` / `||`: both sides evaluated when the right one is speculatable,
        else a branch around it (C99 6.5.13p4: it is not evaluated)."""
        is_and = e.op == "&&"
        lhs = self.condition(e.lhs)
        if is_speculatable(e.rhs):
            rhs = self.condition(e.rhs)
            return self.builder.and_(lhs, rhs) if is_and else self.builder.or_(lhs, rhs)
        start = self.builder.block
        tag = "and" if is_and else "or"
        rhs_block = self.builder.append_basic_block(f"pencil.{tag}.rhs")
        merge = self.builder.append_basic_block(f"pencil.{tag}.end")
        if is_and:
            self.builder.cbranch(lhs, rhs_block, merge)
        else:
            self.builder.cbranch(lhs, merge, rhs_block)
        self.builder.position_at_end(rhs_block)
        rhs = self.condition(e.rhs)
        rhs_end = self.builder.block
        self.builder.branch(merge)
        self.builder.position_at_end(merge)
        result = self.builder.phi(I1, name=f"pencil.{tag}")
        result.add_incoming(ir.Constant(I1, 0 if is_and else 1), start)
        result.add_incoming(rhs, rhs_end)
        return result

    def lower_Conditional(self, e: N.Conditional) -> Optional[ir.Value]:
        cond = self.condition(e.cond)
        if isinstance(e.type, T.VoidType):
            with self.builder.if_else(cond) as (then, otherwise):
                with then:
                    self.rvalue(e.then)
                with otherwise:
                    self.rvalue(e.otherwise)
            return None
        if is_speculatable(e.then) and is_speculatable(e.otherwise):
            return self.builder.select(cond, self.rvalue(e.then), self.rvalue(e.otherwise))
        with self.builder.if_else(cond) as (then, otherwise):
            with then:
                then_value = self.rvalue(e.then)
                then_end = self.builder.block
            with otherwise:
                other_value = self.rvalue(e.otherwise)
                other_end = self.builder.block
        result = self.builder.phi(then_value.type, name="pencil.cond")
        result.add_incoming(then_value, then_end)
        result.add_incoming(other_value, other_end)
        return result

    # ------------------------------------------------------------------ assignments
    def lower_Assign(self, e: N.Assign) -> ir.Value:
        if e.op == "=":
            value = self.rvalue(e.value)
            lv = self.address(e.target)
            self.store(lv, value)
            return value
        op = e.op[:-1]
        target_type = e.target.type
        compute = e.compute_type or e.value.type
        if op in ("+", "-") and target_type == compute and self.fuse_accumulators \
                and self.product(e.value, compute):
            # `x += a*b`, `x -= a*b`: x + a*b and x - a*b in one expression
            a, b = self.rvalue(e.value.lhs), self.rvalue(e.value.rhs)
            lv = self.address(e.target)
            new = self.fmuladd(a, b, self.load(lv), negate_product=op == "-")
            self.store(lv, new)
            return new
        value = self.rvalue(e.value)
        lv = self.address(e.target)
        old = self.load(lv)
        if isinstance(target_type, T.PointerType):
            offset = self.index_value(e.value)
            if op == "-":
                offset = self.builder.sub(ir.Constant(I64, 0), offset, flags=("nsw",))
            new = self.builder.gep(old, [offset], inbounds=True,
                                   source_etype=self.pointee_type(target_type, e.loc))
        else:
            if op not in ("<<", ">>"):
                value = self.convert(value, e.value.type, compute, e.loc)
            result = self.arithmetic(op, self.convert(old, target_type, compute, e.loc), value,
                                     compute, e.value.type, e.loc)
            new = self.convert(result, compute, target_type, e.loc)
        self.store(lv, new)
        return new

    # ------------------------------------------------------------------ conversions
    def lower_Cast(self, e: N.Cast) -> Optional[ir.Value]:
        value = self.rvalue(e.operand)
        if isinstance(e.type, T.VoidType):
            return None
        return self.convert(value, e.operand.type, e.type, e.loc)

    def convert(self, value: ir.Value, source: T.CType, target: T.CType,
                loc: N.SourceLoc = N.NOLOC) -> ir.Value:
        """C99 6.3 conversion of `value` from `source` to `target`."""
        b = self.builder
        if isinstance(target, T.VoidType):
            return value
        if is_bool(target) and not is_bool(source):
            return b.zext(self.is_nonzero(value, source), llvm_type(target))
        if isinstance(source, T.IntType) and isinstance(target, T.IntType):
            return self.convert_int(value, source, target)
        if isinstance(source, T.IntType) and isinstance(target, T.FloatType):
            ty = llvm_type(target, loc)
            return b.sitofp(value, ty) if is_signed(source) else b.uitofp(value, ty)
        if isinstance(source, T.FloatType) and isinstance(target, T.IntType):
            ty = llvm_type(target)
            return b.fptosi(value, ty) if is_signed(target) else b.fptoui(value, ty)
        if isinstance(source, T.FloatType) and isinstance(target, T.FloatType):
            if source.bits < target.bits:
                return b.fpext(value, llvm_type(target, loc))
            if source.bits > target.bits:
                return b.fptrunc(value, llvm_type(target, loc))
            return value
        pointer_like = (T.PointerType, T.ArrayType, T.FunctionType)
        if isinstance(source, pointer_like) and isinstance(target, T.PointerType):
            return value
        if isinstance(source, T.IntType) and isinstance(target, T.PointerType):
            return b.inttoptr(self.convert_int(value, source, T.LONG), PTR)
        if isinstance(source, pointer_like) and isinstance(target, T.IntType):
            return b.ptrtoint(value, llvm_type(target))
        if isinstance(source, T.StructType) and isinstance(target, T.StructType):
            return value
        raise BackendError(f"conversion from '{source.spelling()}' to '{target.spelling()}'", loc)

    def convert_int(self, value: ir.Value, source: T.CType, target: T.CType) -> ir.Value:
        if is_bool(target) and not is_bool(source):
            return self.builder.zext(self.is_nonzero(value, source), llvm_type(target))
        return self.resize(value, source, llvm_type(target))

    # ------------------------------------------------------------------ calls
    def lower_Call(self, e: N.Call) -> Optional[ir.Value]:
        if e.callee.startswith("__pencil_"):
            return None  # assumptions, kills and summaries: analysis only, no code
        if e.builtin:
            return self.builtins.lower(e)
        args = [self.rvalue(a) for a in e.args]
        # A function of internal linkage is called through its wrapper (clangpass.driver.rewrite).
        name = self.ctx.trampolines.get(e.callee, e.callee)
        fn = self.ctx.declare(name, llvm_type(e.type, e.loc), [a.type for a in args])
        result = self.builder.call(fn, args)
        return None if isinstance(e.type, T.VoidType) else result


def _as_pointer(t: T.CType) -> T.PointerType:
    if isinstance(t, T.ArrayType):
        return T.PointerType(pointee=t.element)
    assert isinstance(t, T.PointerType)
    return t


def _root_name(e: N.Expr) -> str:
    while not isinstance(e, N.VarRef):
        if isinstance(e, (N.Subscript, N.Member)):
            e = e.base
        elif isinstance(e, (N.Cast, N.Unary)):
            e = e.operand
        else:
            return "elt"
    return e.name


def declared_extents(lowering: ExprLowering, ctype: T.CType, loc: N.SourceLoc) -> tuple[ir.Value, ...]:
    """The row extents of a declared array variable, evaluated once at function entry."""
    with lowering.state.at_entry():
        return lowering.type_extents(ctype, loc)


_ARRAY_ALIGNMENT = 64       # bytes, of every region-local array


def allocate_local(lowering: ExprLowering, decl: N.VarDecl) -> Variable:
    """A region local as an entry-block alloca (one per LLVM function, so one per thread)."""
    state = lowering.state
    t = decl.type
    if isinstance(t, T.ArrayType):
        element = llvm_type(scalar_element(t), decl.loc)
        extents = declared_extents(lowering, t, decl.loc)
        with state.at_entry():
            count = lowering.index_value(t.extent) if t.constant_extent is None and t.extent is not None \
                else ir.Constant(I64, t.constant_extent if t.constant_extent is not None else 1)
            for extent in extents:
                count = state.entry.mul(count, extent, flags=("nsw",))
        ptr = state.alloca(element, f"pencil.{decl.name}", count)
        # A cache line: the rows of a packed panel (clangpass.poly.packing) are loaded as whole
        # 64-byte vectors, which must not straddle two lines.
        ptr.align = _ARRAY_ALIGNMENT
        return Variable(decl.name, t, "array", ptr, extents, elements=count)
    ptr = state.alloca(llvm_type(t, decl.loc), f"pencil.{decl.name}")
    return Variable(decl.name, t, "memory", ptr)


def bind_region_args(lowering: ExprLowering, region: OptRegion, values: list[ir.Value]) -> None:
    """Make the region's arguments visible under their C names, `values` being the
    outlined function's parameters (or their copies inside a thread function)."""
    scope = lowering.state.scope
    kinds = {"value": "value", "pointer": "memory", "array": "array"}
    for arg, value in zip(region.args, values):
        scope[arg.name] = Variable(arg.name, arg.type, kinds[arg.passing], value,
                                   shared_array=arg.passing == "array")
    for arg in region.args:
        if arg.passing == "array":
            scope[arg.name].extents = declared_extents(lowering, arg.type, region.loc)
