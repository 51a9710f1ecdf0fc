# SPDX-License-Identifier: MIT
"""The PENCIL builtin functions, recognised by name (thesis section 4.3.5).

PENCIL takes OpenCL's integer, common and math builtins; since C99 has no
overloading, each exists once per argument type, named by prefixes and suffixes:
`max` (int), `smax` (short), `bmax` (char), `lmax` (long), `u`-prefixed unsigned
versions (`umax`, `usmax`, `ubmax`, `ulmax`), `fmax` (double) and `fmaxf` (float).
Functions that only exist on floating point (sin, mix, sign, ...) keep C99's
convention: plain name for double, `f` suffix for float.
"""
from __future__ import annotations

# Builtins with a memory/analysis meaning rather than a value.
PENCIL_SPECIAL = frozenset({
    "__pencil_kill", "__pencil_use", "__pencil_def", "__pencil_maybe",
    "__pencil_assume", "__pencil_assert",
})
SUMMARY_ONLY = frozenset({"__pencil_use", "__pencil_def", "__pencil_maybe"})

# OpenCL integer functions (and common functions that also exist on integers).
INTEGER_FUNCTIONS = ("abs", "abs_diff", "add_sat", "hadd", "rhadd", "clamp", "clz", "ctz",
                     "mad_hi", "mad_sat", "max", "min", "mul_hi", "rotate", "sub_sat",
                     "popcount", "mad24", "mul24")
INTEGER_PREFIXES = ("", "s", "b", "l", "u", "us", "ub", "ul")

# Functions that exist on both integers and floats: the float versions take an `f`
# prefix for double and additionally an `f` suffix for float (fmax / fmaxf).
SHARED_FUNCTIONS = ("abs", "clamp", "max", "min")

# OpenCL common and math functions on floating point (double name; float adds 'f').
FLOAT_FUNCTIONS = (
    "degrees", "radians", "mix", "step", "smoothstep", "sign",
    "acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atan2", "atanh", "atanpi",
    "atan2pi", "cbrt", "ceil", "copysign", "cos", "cosh", "cospi", "erfc", "erf", "exp",
    "exp2", "exp10", "expm1", "fabs", "fdim", "floor", "fma", "fmax", "fmin", "fmod",
    "hypot", "ilogb", "ldexp", "lgamma", "log", "log2", "log10", "log1p", "logb", "mad",
    "maxmag", "minmag", "nextafter", "pow", "pown", "powr", "remainder", "rint", "rootn",
    "round", "rsqrt", "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma",
    "trunc",
)


def _all_names() -> frozenset[str]:
    names: set[str] = set(PENCIL_SPECIAL)
    for fn in INTEGER_FUNCTIONS:
        names.update(prefix + fn for prefix in INTEGER_PREFIXES)
    for fn in SHARED_FUNCTIONS:
        names.update({"f" + fn, "f" + fn + "f"})
    for fn in FLOAT_FUNCTIONS:
        names.update({fn, fn + "f"})
    return frozenset(names)


BUILTIN_NAMES = _all_names()


def is_builtin(name: str) -> bool:
    return name in BUILTIN_NAMES
