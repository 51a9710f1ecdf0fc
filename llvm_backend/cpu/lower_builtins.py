# SPDX-License-Identifier: MIT
"""PENCIL builtin functions (clangpass.builtins, include/pencil.h) as LLVM IR.

Input: an IR `Call` with `builtin=True`; its arguments already carry the conversions
to the parameter types of the prototypes in <math.h> / pencil.h. Output: the value,
computed exactly as gcc -O0 computes the C definition:

- exactly rounded operations become LLVM intrinsics: sqrt, fabs, floor, ceil,
  trunc, rint, round, copysign, fma, and fmin/fmax as llvm.minnum/maxnum (both
  return the non-NaN operand, C99 F.9.9.2);
- the other <math.h> functions are calls to libm (`sin`, `sinf`, ...), declared with
  their C signature; link with -lm;
- the functions pencil.h defines inline (degrees, mix, sign, maxmag, rsqrt, pown,
  rootn, sinpi, fclamp, ...) are expanded with the same operations in the same order
  and the same constants (float versions round the constant to float first);
- the integer families (min/max/clamp/abs/abs_diff/hadd/rhadd/rotate/popcount/clz/
  ctz/add_sat/sub_sat/mul_hi/mad_hi/mad_sat/mul24/mad24, every prefix b s l u us ub
  ul) are inline compare+select or the matching LLVM intrinsic (llvm.fshl,
  llvm.ctpop, llvm.ctlz/cttz with zero defined, llvm.[su]{add,sub}.sat); mul_hi and
  mad_sat compute in twice the width (i128 for long).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import llvmlite.ir as ir

from clangpass.builtins import FLOAT_FUNCTIONS, INTEGER_FUNCTIONS, INTEGER_PREFIXES
from clangpass.ir import nodes as N
from llvm_backend.cpu.lower_types import I1, BackendError, is_signed, llvm_type

if TYPE_CHECKING:  # pragma: no cover
    from llvm_backend.cpu.lower_expr import ExprLowering

_PI = 3.14159265358979323846

# Exactly rounded functions with an LLVM intrinsic of the same meaning.
INTRINSICS = {
    "sqrt": ("llvm.sqrt", 1), "fabs": ("llvm.fabs", 1), "floor": ("llvm.floor", 1),
    "ceil": ("llvm.ceil", 1), "trunc": ("llvm.trunc", 1), "rint": ("llvm.rint", 1),
    "round": ("llvm.round", 1), "copysign": ("llvm.copysign", 2), "fmin": ("llvm.minnum", 2),
    "fmax": ("llvm.maxnum", 2), "fma": ("llvm.fma", 3),
}

# <math.h> functions called in libm under their C name (`f` suffix for float).
LIBM = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt", "cos", "cosh", "erf",
    "erfc", "exp", "exp2", "expm1", "fdim", "fmod", "hypot", "ilogb", "ldexp", "lgamma", "log",
    "log2", "log10", "log1p", "logb", "nextafter", "pow", "remainder", "sin", "sinh", "tan",
    "tanh", "tgamma",
})

FLOAT_BUILTINS = frozenset(FLOAT_FUNCTIONS) | {"fclamp"}
_PREFIXES_LONGEST_FIRST = sorted(INTEGER_PREFIXES, key=len, reverse=True)


def classify(name: str) -> tuple[str, str]:
    """('float', base) or ('int', base) for a builtin name: sinf -> ('float', 'sin'),
    ulmax -> ('int', 'max')."""
    if name in FLOAT_BUILTINS:
        return "float", name
    if name.endswith("f") and name[:-1] in FLOAT_BUILTINS:
        return "float", name[:-1]
    for prefix in _PREFIXES_LONGEST_FIRST:
        if name.startswith(prefix) and name[len(prefix):] in INTEGER_FUNCTIONS:
            return "int", name[len(prefix):]
    raise KeyError(name)


def uses_libm(name: str) -> bool:
    """Whether a builtin may end up as a libm call (directly, or an intrinsic LLVM
    lowers to one on targets without the instruction, e.g. floor before SSE4.1)."""
    try:
        return classify(name)[0] == "float"
    except KeyError:
        return False


class BuiltinLowering:
    def __init__(self, lowering: "ExprLowering") -> None:
        self.lowering = lowering

    @property
    def b(self) -> ir.IRBuilder:
        return self.lowering.builder

    def lower(self, call: N.Call) -> ir.Value:
        try:
            kind, base = classify(call.callee)
        except KeyError:
            raise BackendError(f"builtin '{call.callee}' is not supported by the CPU back end", call.loc) from None
        args = [self.lowering.rvalue(a) for a in call.args]
        if kind == "float":
            return self.float_builtin(call, base, args)
        method: Callable = getattr(self, "int_" + base)
        return method(args, is_signed(call.args[0].type))

    # ------------------------------------------------------------------ floating point
    def float_builtin(self, call: N.Call, base: str, args: list[ir.Value]) -> ir.Value:
        ty = args[0].type
        if base in INTRINSICS:
            name, n = INTRINSICS[base]
            fn = self.lowering.ctx.intrinsic(name, ty, n)
            return self.b.call(fn, args, fastmath=self.lowering.fm)
        if base in LIBM:
            return self.libm(base, ty, args, llvm_type(call.type, call.loc))
        method = getattr(self, "float_" + base, None)
        if method is None:
            raise BackendError(f"builtin '{call.callee}' is not supported by the CPU back end", call.loc)
        return method(ty, *args)

    def libm(self, base: str, ty: ir.Type, args: list[ir.Value], result: ir.Type | None = None) -> ir.Value:
        name = base + ("f" if isinstance(ty, ir.FloatType) else "")
        fn = self.lowering.ctx.declare(name, result or ty, [a.type for a in args])
        return self.b.call(fn, args, fastmath=self.lowering.fm)

    def intrinsic(self, base: str, ty: ir.Type, *args: ir.Value) -> ir.Value:
        name, n = INTRINSICS[base]
        return self.b.call(self.lowering.ctx.intrinsic(name, ty, n), list(args), fastmath=self.lowering.fm)

    def const(self, ty: ir.Type, value: float) -> ir.Constant:
        return ir.Constant(ty, value)  # llvmlite rounds to float for FloatType

    def fop(self, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        fn = {"+": self.b.fadd, "-": self.b.fsub, "*": self.b.fmul, "/": self.b.fdiv}[op]
        return fn(lhs, rhs, flags=self.lowering.fm)

    def fcmp(self, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        return self.b.fcmp_ordered(op, lhs, rhs, flags=self.lowering.fm)

    def float_fclamp(self, ty, x, lo, hi):
        return self.intrinsic("fmin", ty, self.intrinsic("fmax", ty, x, lo), hi)

    def float_degrees(self, ty, r):
        return self.fop("*", r, self.const(ty, 180.0 / _PI))

    def float_radians(self, ty, d):
        return self.fop("*", d, self.const(ty, _PI / 180.0))

    def float_mix(self, ty, x, y, a):
        return self.fop("+", x, self.fop("*", self.fop("-", y, x), a))

    def float_step(self, ty, edge, x):
        return self.b.select(self.fcmp("<", x, edge), self.const(ty, 0.0), self.const(ty, 1.0))

    def float_smoothstep(self, ty, edge0, edge1, x):
        ratio = self.fop("/", self.fop("-", x, edge0), self.fop("-", edge1, edge0))
        t = self.float_fclamp(ty, ratio, self.const(ty, 0.0), self.const(ty, 1.0))
        return self.fop("*", self.fop("*", t, t), self.fop("-", self.const(ty, 3.0), self.fop("*", self.const(ty, 2.0), t)))

    def float_sign(self, ty, x):
        zero = self.const(ty, 0.0)
        not_nan = self.b.select(self.fcmp("==", x, x), x, zero)
        negative = self.b.select(self.fcmp("<", x, zero), self.const(ty, -1.0), not_nan)
        return self.b.select(self.fcmp(">", x, zero), self.const(ty, 1.0), negative)

    def float_mad(self, ty, a, b, c):
        return self.fop("+", self.fop("*", a, b), c)

    def _by_magnitude(self, ty, x, y, op: str, tie: str):
        ax, ay = self.intrinsic("fabs", ty, x), self.intrinsic("fabs", ty, y)
        inner = self.b.select(self.fcmp(op, ay, ax), y, self.intrinsic(tie, ty, x, y))
        return self.b.select(self.fcmp(op, ax, ay), x, inner)

    def float_maxmag(self, ty, x, y):
        return self._by_magnitude(ty, x, y, ">", "fmax")

    def float_minmag(self, ty, x, y):
        return self._by_magnitude(ty, x, y, "<", "fmin")

    def float_rsqrt(self, ty, x):
        return self.fop("/", self.const(ty, 1.0), self.intrinsic("sqrt", ty, x))

    def float_exp10(self, ty, x):
        return self.libm("pow", ty, [self.const(ty, 10.0), x])

    def float_pown(self, ty, x, n):
        return self.libm("pow", ty, [x, self.b.sitofp(n, ty)])

    def float_powr(self, ty, x, y):
        power = self.libm("pow", ty, [x, y])
        return self.b.select(self.fcmp("<", x, self.const(ty, 0.0)), self.const(ty, math.nan), power)

    def float_rootn(self, ty, x, n):
        odd = self.b.icmp_unsigned("!=", self.b.and_(n, ir.Constant(n.type, 1)), ir.Constant(n.type, 0))
        negative_odd = self.b.and_(self.fcmp("<", x, self.const(ty, 0.0)), odd)
        exponent = self.fop("/", self.const(ty, 1.0), self.b.sitofp(n, ty))
        base = self.b.select(negative_odd, self.b.fneg(x, flags=self.lowering.fm), x)
        root = self.libm("pow", ty, [base, exponent])
        return self.b.select(negative_odd, self.b.fneg(root, flags=self.lowering.fm), root)

    def _times_pi(self, fn: str, ty, x):
        return self.libm(fn, ty, [self.fop("*", self.const(ty, _PI), x)])

    def float_sinpi(self, ty, x):
        return self._times_pi("sin", ty, x)

    def float_cospi(self, ty, x):
        return self._times_pi("cos", ty, x)

    def float_tanpi(self, ty, x):
        return self._times_pi("tan", ty, x)

    def _over_pi(self, fn: str, ty, *args):
        return self.fop("/", self.libm(fn, ty, list(args)), self.const(ty, _PI))

    def float_asinpi(self, ty, x):
        return self._over_pi("asin", ty, x)

    def float_acospi(self, ty, x):
        return self._over_pi("acos", ty, x)

    def float_atanpi(self, ty, x):
        return self._over_pi("atan", ty, x)

    def float_atan2pi(self, ty, y, x):
        return self._over_pi("atan2", ty, y, x)

    # ------------------------------------------------------------------ integers
    def icmp(self, signed: bool, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        return self.b.icmp_signed(op, lhs, rhs) if signed else self.b.icmp_unsigned(op, lhs, rhs)

    def int_min(self, args, signed):
        x, y = args
        return self.b.select(self.icmp(signed, "<", y, x), y, x)

    def int_max(self, args, signed):
        x, y = args
        return self.b.select(self.icmp(signed, "<", x, y), y, x)

    def int_clamp(self, args, signed):
        x, lo, hi = args
        return self.int_min([self.int_max([x, lo], signed), hi], signed)

    def int_abs(self, args, signed):
        (x,) = args
        if not signed:
            return x
        negated = self.b.sub(ir.Constant(x.type, 0), x)
        return self.b.select(self.icmp(True, "<", x, ir.Constant(x.type, 0)), negated, x)

    def int_abs_diff(self, args, signed):
        x, y = args
        return self.b.select(self.icmp(signed, ">", x, y), self.b.sub(x, y), self.b.sub(y, x))

    def _halves(self, x, y, signed):
        one = ir.Constant(x.type, 1)
        shift = self.b.ashr if signed else self.b.lshr
        return self.b.add(shift(x, one), shift(y, one))

    def int_hadd(self, args, signed):
        # (x >> 1) + (y >> 1) + (x & y & 1): never overflows, so the narrow width is exact.
        x, y = args
        one = ir.Constant(x.type, 1)
        return self.b.add(self._halves(x, y, signed), self.b.and_(self.b.and_(x, y), one))

    def int_rhadd(self, args, signed):
        x, y = args
        one = ir.Constant(x.type, 1)
        return self.b.add(self._halves(x, y, signed), self.b.and_(self.b.or_(x, y), one))

    def int_rotate(self, args, signed):
        x, n = args
        fn = self.lowering.ctx.intrinsic("llvm.fshl", x.type, 3)
        return self.b.call(fn, [x, x, n])

    def int_popcount(self, args, signed):
        return self.b.call(self.lowering.ctx.intrinsic("llvm.ctpop", args[0].type, 1), args)

    def _count_zeros(self, name, x):
        fn = self.lowering.ctx.intrinsic(name, x.type, 1, [I1])
        return self.b.call(fn, [x, ir.Constant(I1, 0)])  # the width for 0, as pencil.h

    def int_clz(self, args, signed):
        return self._count_zeros("llvm.ctlz", args[0])

    def int_ctz(self, args, signed):
        return self._count_zeros("llvm.cttz", args[0])

    def _saturating(self, op, args, signed):
        name = f"llvm.{'s' if signed else 'u'}{op}.sat"
        return self.b.call(self.lowering.ctx.intrinsic(name, args[0].type, 2), args)

    def int_add_sat(self, args, signed):
        return self._saturating("add", args, signed)

    def int_sub_sat(self, args, signed):
        return self._saturating("sub", args, signed)

    def _widen(self, x, signed):
        wide = ir.IntType(2 * x.type.width)
        return self.b.sext(x, wide) if signed else self.b.zext(x, wide)

    def int_mul_hi(self, args, signed):
        x, y = args
        product = self.b.mul(self._widen(x, signed), self._widen(y, signed))
        width = ir.Constant(product.type, x.type.width)
        high = self.b.ashr(product, width) if signed else self.b.lshr(product, width)
        return self.b.trunc(high, x.type)

    def int_mad_hi(self, args, signed):
        x, y, z = args
        return self.b.add(self.int_mul_hi([x, y], signed), z)

    def int_mad_sat(self, args, signed):
        x, y, z = args
        w = x.type.width
        exact = self.b.add(self.b.mul(self._widen(x, signed), self._widen(y, signed)), self._widen(z, signed))
        wide = exact.type
        if signed:
            top, bottom = (1 << (w - 1)) - 1, -(1 << (w - 1))
        else:
            top, bottom = (1 << w) - 1, 0
        result = self.b.trunc(exact, x.type)
        result = self.b.select(self.icmp(signed, ">", exact, ir.Constant(wide, top)),
                               ir.Constant(x.type, top if signed else -1), result)
        if signed:
            result = self.b.select(self.icmp(True, "<", exact, ir.Constant(wide, bottom)),
                                   ir.Constant(x.type, bottom), result)
        return result

    def int_mul24(self, args, signed):
        return self.b.mul(*args)

    def int_mad24(self, args, signed):
        x, y, z = args
        return self.b.add(self.b.mul(x, y), z)
