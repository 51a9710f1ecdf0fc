# SPDX-License-Identifier: MIT
"""pencilcc from Python: compile C/PENCIL source, call its functions on numpy arrays.

    import numpy as np, clangpass
    lib = clangpass.compile(source_text_or_path, flags=["-O3"], target="cpu")
    C = np.zeros((ni, nj))
    lib.gemm(ni, nj, nk, 1.5, 1.2, C, A, B)        # C is updated in place
    s = lib.dot(n, x, y)                            # a double comes back as a float

What `compile` does: what `pencilcc FLAGS -shared -fPIC SOURCE -o LIB.so` does, with
the driver's own steps run in this process: its flags become a `DriverConfig` (the
driver's flag parser), the driver's per-input compile (`clangpass.driver.compile.
Compilation`: cache, parse, compile core and target, host part, `-r` link) builds the
source's object, and the host compiler links the shared object through the driver's
link helpers; ctypes loads it. The source is parsed once: the parse the compile core
gets also gives the C signatures (`function_specs`, run as the compile's `exports`),
so every function with external linkage defined in the source becomes an attribute
of the returned `CompiledModule`. What the compile says comes back as values
(`clangpass.diagnostics.Diagnostic`, through a `clangpass.driver.console.Transcript`):
`CompiledModule.messages`, or `CompileError.messages` when it fails; `diagnostics` is
the same as the text a terminal would have shown.

Calls are checked against the C signature before anything runs, so that a mistake
is an exception and never a write out of bounds:

- too few or too many arguments: TypeError (as for a Python function);
- an array parameter (`double A[static const restrict n][m]`, `double A[10][m]`,
  `double A[]`) takes a numpy array of exactly the element's dtype (TypeError
  otherwise), with one dimension per C dimension and the extents the C type gives
  for the scalar arguments of this call, C-contiguous, and writeable unless the
  element type is const-qualified (ValueError otherwise). A `[]` extent accepts any
  size. Extents are evaluated with C's integer semantics from integer literals,
  scalar parameters, casts and + - * / %; any other extent makes the call a
  TypeError (pencilcc cannot check it, so it does not run the function);
- a pointer parameter `double *p` is PENCIL's 0-d array: it takes a numpy array of
  that dtype with at least one element (C-contiguous, writeable unless the pointee
  is const); the function sees its first element and may read the others;
- a scalar parameter takes a Python or numpy number: integers for integer types
  (a float is a TypeError rather than a silent truncation; a value outside the C
  type's range is an OverflowError), bool or 0/1 for `_Bool`, any real number for
  floating types (a finite value beyond `float`'s range is an OverflowError).

The return value is a Python int, float or bool (None for void). A function whose
parameters or result have no numpy equivalent (structs, pointers to pointers,
`void *`, a pointer result) is still an attribute; calling it is a TypeError saying
why. The caller must not pass overlapping arrays for `restrict` parameters that the
function writes: C leaves that undefined and pencilcc does not check it.

Caching: `compile` of the same source text (or path and its text), flags and target
returns the same `CompiledModule` for the life of the process, once the files the
source includes (recorded with their hashes) are checked unchanged. Across processes
it uses the driver's compile cache (`clangpass.driver.cache`: one implementation, one
key, one identity, the same HMAC and trust rules; `PENCILCC_NO_CACHE=1` disables it):
the source's object is the entry `pencilcc -fPIC -c SOURCE` with the same flags would
use, which also keeps the signatures, the included files and the diagnostics, and the
shared object is an entry of its own, keyed by the source's entry key and the link
line, loaded where the cache keeps it. The key holds the code of the plugin passes the
flags load (`-fpencil-pass-plugin=`, `-fpencil-passes=`), as the driver's does. Source text is written to the cache directory
under a name that is its hash (`sources/`), so that its key is the same in every
process.
"""
from __future__ import annotations

import ctypes
import hashlib
import inspect
import keyword
import math
import numbers
import os
import shlex
import shutil
import tempfile
import threading
import warnings
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Iterator, Optional, Sequence, Union

import numpy as np

from clangpass.diagnostics import Diagnostic
from clangpass.driver.cache import CacheEntry, atomic_write, read_regular

__all__ = ["CompileError", "CompileWarning", "CompiledModule", "CFunction", "compile"]

TARGETS = ("cpu", "opencl")

# Part of a shared object's cache key: a new format of what the API stores makes old entries misses.
_ENTRY_FORMAT = 2

# Flags that would make the driver produce something other than one shared object, or
# nothing: the API adds -shared, -fPIC and -o itself.
_REFUSED_FLAGS = ("-c", "-S", "-E", "-M", "-MM", "-fsyntax-only", "--dump-ir", "-###", "--help",
                  "-help", "--version", "-dumpversion", "-dumpmachine")
_REFUSED_PREFIXES = ("-o", "--lint", "-fpencil-target=")

class CompileError(Exception):
    """The source did not compile. `diagnostics` is what the compile printed (text, as a
    terminal shows it); `messages` the same as values (`clangpass.diagnostics.Diagnostic`:
    id, severity, location, message), pencilcc's own and those read from the host
    compiler's output (id 'host-compiler'); `errors` those that are errors."""

    def __init__(self, diagnostics: str, summary: str = "compilation failed",
                 messages: Sequence[Diagnostic] = ()) -> None:
        self.diagnostics = diagnostics
        self.messages = tuple(messages)
        text = diagnostics.rstrip()
        super().__init__(f"{summary}:\n{text}" if text else summary)

    @property
    def errors(self) -> tuple[Diagnostic, ...]:
        return tuple(d for d in self.messages if d.severity in ("error", "fatal error"))


class CompileWarning(UserWarning):
    """The compile succeeded and printed diagnostics (warnings, -Rpass remarks)."""


# --------------------------------------------------------------------------------------
# C types as numpy and ctypes see them
# --------------------------------------------------------------------------------------
_INT_CTYPES = {(8, True): ctypes.c_int8, (16, True): ctypes.c_int16, (32, True): ctypes.c_int32,
               (64, True): ctypes.c_int64, (8, False): ctypes.c_uint8, (16, False): ctypes.c_uint16,
               (32, False): ctypes.c_uint32, (64, False): ctypes.c_uint64}
_FLOAT_CTYPES = {32: ctypes.c_float, 64: ctypes.c_double}
_FLOAT_DTYPES = {32: np.dtype(np.float32), 64: np.dtype(np.float64)}
_FLOAT_OVERFLOW = 2.0 ** 128 - 2.0 ** 103
# x86's 80-bit long double is numpy's longdouble and ctypes' c_longdouble when both
# store it in the same number of bytes; elsewhere long double is not supported.
if np.finfo(np.longdouble).nmant == 63 and ctypes.sizeof(ctypes.c_longdouble) == np.dtype(np.longdouble).itemsize:
    _FLOAT_CTYPES[80] = ctypes.c_longdouble
    _FLOAT_DTYPES[80] = np.dtype(np.longdouble)


@dataclass(frozen=True)
class ScalarType:
    """A C arithmetic type as the API converts it; `kind` is 'bool', 'int' or 'float'."""

    name: str
    kind: str
    bits: int
    signed: bool = True

    @property
    def dtype(self) -> np.dtype:
        if self.kind == "bool":
            return np.dtype(np.bool_)
        if self.kind == "int":
            return np.dtype(f"{'i' if self.signed else 'u'}{self.bits // 8}")
        return _FLOAT_DTYPES[self.bits]

    @property
    def ctype(self) -> type:
        if self.kind == "bool":
            return ctypes.c_bool
        if self.kind == "int":
            return _INT_CTYPES[(self.bits, self.signed)]
        return _FLOAT_CTYPES[self.bits]

    def as_json(self) -> list:
        return [self.name, self.kind, self.bits, self.signed]

    @staticmethod
    def from_json(data: Sequence) -> "ScalarType":
        name, kind, bits, signed = data
        return ScalarType(str(name), str(kind), int(bits), bool(signed))


def _scalar_type(t: Any) -> Union[ScalarType, str]:
    """The ScalarType of IR type `t`, or why it has none (a string)."""
    from clangpass.ir import types as T

    if isinstance(t, T.IntType):
        if t.name == "_Bool":
            return ScalarType(t.name, "bool", 8, False)
        if (t.bits, t.signed) in _INT_CTYPES:
            return ScalarType(t.name, "int", t.bits, t.signed)
    elif isinstance(t, T.FloatType) and t.bits in _FLOAT_CTYPES:
        return ScalarType(t.name, "float", t.bits, True)
    return f"{t.spelling()} has no numpy equivalent"


# --------------------------------------------------------------------------------------
# Array extents: IR expressions over earlier parameters, kept as JSON-able trees
# --------------------------------------------------------------------------------------
# A tree is a list: ["int", value], ["param", name], ["cast", type, operand],
# ["unary", op, operand, type], ["binary", op, lhs, rhs, type] or ["unsupported", text];
# `type` is a ScalarType's JSON. The disk cache stores them, so a cache hit needs
# neither libclang nor the IR.

class ExtentError(TypeError):
    """An extent the API cannot evaluate (a call, a global, a float operation...)."""


def _extent_tree(e: Any) -> list:
    from clangpass.ir import nodes as N
    from clangpass.ir.printer import format_expr

    def typed(node: Any) -> Optional[list]:
        st = _scalar_type(node.type)
        return st.as_json() if isinstance(st, ScalarType) else None

    if isinstance(e, N.IntLit):
        return ["int", int(e.value)]
    if isinstance(e, N.VarRef) and e.scope == "param":
        return ["param", e.name]
    if isinstance(e, N.Cast) and typed(e) is not None:
        return ["cast", typed(e), _extent_tree(e.operand)]
    if isinstance(e, N.Unary) and e.op in ("+", "-") and typed(e) is not None:
        return ["unary", e.op, _extent_tree(e.operand), typed(e)]
    if isinstance(e, N.Binary) and e.op in ("+", "-", "*", "/", "%") and typed(e) is not None:
        return ["binary", e.op, _extent_tree(e.lhs), _extent_tree(e.rhs), typed(e)]
    return ["unsupported", format_expr(e)]


def _c_convert(value: Union[int, float, bool], to: ScalarType) -> Union[int, float, bool]:
    """C's conversion of `value` to `to` (integers wrap, as gcc does for signed types too)."""
    if to.kind == "float":
        return float(value)
    if to.kind == "bool":
        return value != 0
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} converted to {to.name}")
        value = math.trunc(value)
    value = int(value) & ((1 << to.bits) - 1)
    if to.signed and value >= 1 << (to.bits - 1):
        value -= 1 << to.bits
    return value


def _evaluate(tree: Sequence, scalars: dict[str, Union[int, float, bool]]) -> Union[int, float, bool]:
    """The value of extent `tree` for the scalar arguments `scalars` (name -> value)."""
    tag = tree[0]
    if tag == "int":
        return int(tree[1])
    if tag == "param":
        if tree[1] not in scalars:
            raise ExtentError(f"it uses '{tree[1]}', which is not a scalar parameter")
        return scalars[tree[1]]
    if tag == "cast":
        return _c_convert(_evaluate(tree[2], scalars), ScalarType.from_json(tree[1]))
    if tag == "unary":
        value = _evaluate(tree[2], scalars)
        return _c_convert(-value if tree[1] == "-" else value, ScalarType.from_json(tree[3]))
    if tag == "binary":
        op, to = tree[1], ScalarType.from_json(tree[4])
        lhs, rhs = _evaluate(tree[2], scalars), _evaluate(tree[3], scalars)
        if op == "+":
            value = lhs + rhs
        elif op == "-":
            value = lhs - rhs
        elif op == "*":
            value = lhs * rhs
        elif to.kind == "float":
            if op == "%":
                raise ExtentError("'%' on floating values")
            value = lhs / rhs if rhs else math.copysign(math.inf, lhs) if lhs else math.nan
        else:
            lhs, rhs = int(lhs), int(rhs)
            if rhs == 0:
                raise ValueError("it divides by zero")
            quotient = abs(lhs) // abs(rhs)         # C truncates toward zero
            quotient = quotient if (lhs >= 0) == (rhs >= 0) else -quotient
            value = quotient if op == "/" else lhs - rhs * quotient
        return _c_convert(value, to)
    raise ExtentError(f"'{tree[1]}' is not an integer literal, a scalar parameter, a cast or "
                      "+ - * / % of those")


# --------------------------------------------------------------------------------------
# Signatures
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Parameter:
    """One C parameter as the API checks it.

    `kind`: 'scalar' (a number), 'array' (`dims`: per C dimension None for `[]`, else
    the extent's C text and tree), 'pointer' (PENCIL's 0-d array) or 'unsupported'
    (`reason`). `writable`: arrays and pointers whose elements are not const, which
    the function may therefore write.
    """

    name: str
    declaration: str
    kind: str
    type: Optional[ScalarType] = None
    writable: bool = False
    dims: tuple = ()
    reason: str = ""

    def as_json(self) -> dict:
        return {"name": self.name, "declaration": self.declaration, "kind": self.kind,
                "type": self.type.as_json() if self.type else None, "writable": self.writable,
                "dims": [None if d is None else [d[0], d[1]] for d in self.dims], "reason": self.reason}

    @staticmethod
    def from_json(data: dict) -> "Parameter":
        return Parameter(str(data["name"]), str(data["declaration"]), str(data["kind"]),
                         ScalarType.from_json(data["type"]) if data["type"] else None,
                         bool(data["writable"]),
                         tuple(None if d is None else (str(d[0]), d[1]) for d in data["dims"]),
                         str(data["reason"]))


@dataclass(frozen=True)
class FunctionSpec:
    """A function's C signature as the API calls it; `unsupported` says why it cannot be."""

    name: str
    prototype: str
    result: Optional[ScalarType]
    params: tuple[Parameter, ...]
    unsupported: str = ""

    def as_json(self) -> dict:
        return {"name": self.name, "prototype": self.prototype,
                "result": self.result.as_json() if self.result else None,
                "params": [p.as_json() for p in self.params], "unsupported": self.unsupported}

    @staticmethod
    def from_json(data: dict) -> "FunctionSpec":
        return FunctionSpec(str(data["name"]), str(data["prototype"]),
                            ScalarType.from_json(data["result"]) if data["result"] else None,
                            tuple(Parameter.from_json(p) for p in data["params"]), str(data["unsupported"]))


def _declaration(name: str, t: Any) -> str:
    """`double A[static const restrict n][m]`: the parameter as C spells it."""
    from clangpass.ir import types as T

    if isinstance(t, T.ArrayType):
        element = t.scalar_element().spelling()
        return f"{element} {name}{t.spelling()[len(element):]}"
    if isinstance(t, T.PointerType):
        return f"{t.spelling()}{name}"
    return f"{t.spelling()} {name}"


def _parameter(name: str, t: Any) -> Parameter:
    from clangpass.ir import types as T
    from clangpass.ir.printer import format_expr

    declaration = _declaration(name, t)
    if isinstance(t, T.ArrayType):
        element = t.scalar_element()
        st = _scalar_type(element)
        if isinstance(st, str):
            return Parameter(name, declaration, "unsupported", reason=f"its element type {st}")
        dims = []
        for d in t.dims():
            if d.extent is not None:
                dims.append((format_expr(d.extent), _extent_tree(d.extent)))
            elif d.constant_extent is not None:
                dims.append((str(d.constant_extent), ["int", d.constant_extent]))
            else:
                dims.append(None)
        return Parameter(name, declaration, "array", st, not element.const, tuple(dims))
    if isinstance(t, T.PointerType):
        st = _scalar_type(t.pointee)
        if isinstance(st, str):
            return Parameter(name, declaration, "unsupported", reason=f"it points to {t.pointee.spelling()}, "
                             "which has no numpy equivalent")
        return Parameter(name, declaration, "pointer", st, not t.pointee.const)
    st = _scalar_type(t)
    if isinstance(st, str):
        return Parameter(name, declaration, "unsupported", reason=f"its type {st}")
    return Parameter(name, declaration, "scalar", st)


def function_specs(module: Any) -> list[FunctionSpec]:
    """The externally visible functions defined in `module`'s main file, with their signatures.

    `static` functions have no symbol to call; C99 `inline` definitions without
    `extern` have none either, which the loader finds out (their symbol is absent).
    """
    from clangpass.ir import types as T

    specs = []
    for fn in module.functions:
        if fn.body is None or not fn.in_main_file or fn.storage == "static":
            continue
        params = tuple(_parameter(p.name or f"arg{i}", p.type) for i, p in enumerate(fn.params))
        reasons = [f"parameter '{p.name}' ({p.declaration}): {p.reason}" for p in params if p.kind == "unsupported"]
        result: Optional[ScalarType] = None
        if not isinstance(fn.result, T.VoidType):
            st = _scalar_type(fn.result)
            if isinstance(st, str):
                reasons.append(f"its result type {st}")
            else:
                result = st
        if fn.variadic:
            reasons.append("it is variadic")
        prototype = f"{fn.result.spelling()} {fn.name}({', '.join(p.declaration for p in params) or 'void'})"
        specs.append(FunctionSpec(fn.name, prototype, result, params, "; ".join(reasons)))
    return specs


# --------------------------------------------------------------------------------------
# Calling
# --------------------------------------------------------------------------------------
def _python_signature(params: Sequence[Parameter]) -> inspect.Signature:
    """Keyword arguments by the C names when every name can be one; else positional only."""
    names = [p.name for p in params]
    usable = len(set(names)) == len(names) and all(n.isidentifier() and not keyword.iskeyword(n) for n in names)
    if usable:
        return inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    return inspect.Signature([inspect.Parameter(f"arg{i}", inspect.Parameter.POSITIONAL_ONLY)
                              for i in range(len(names))])


def _scalar_argument(fname: str, p: Parameter, value: Any) -> Union[int, float, bool]:
    """`value` as the C scalar of `p`, or the exception the module docstring lists."""
    st = p.type
    assert st is not None
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    where = f"{fname}(): argument '{p.name}' ({p.declaration})"
    if st.kind == "float":
        if not isinstance(value, numbers.Real):
            raise TypeError(f"{where} expects a real number, got {type(value).__name__}")
        number = float(value)       # OverflowError for an int beyond double's range
        # Beyond the midpoint between FLT_MAX and 2**128 a float rounds to infinity: C leaves
        # that conversion undefined, numpy would give inf.
        if st.bits == 32 and math.isfinite(number) and abs(number) >= _FLOAT_OVERFLOW:
            raise OverflowError(f"{where}: {value!r} is out of range of float")
        return number
    if not isinstance(value, (numbers.Integral, np.bool_)):   # numpy's bool is no Integral
        raise TypeError(f"{where} expects an integer, got {type(value).__name__}"
                        + (" (pass int(x) to truncate)" if isinstance(value, numbers.Real) else ""))
    number = int(value)
    if st.kind == "bool":
        if number not in (0, 1):
            raise OverflowError(f"{where}: {number} is not 0, 1, False or True")
        return bool(number)
    low, high = (-(1 << (st.bits - 1)), (1 << (st.bits - 1)) - 1) if st.signed else (0, (1 << st.bits) - 1)
    if not low <= number <= high:
        raise OverflowError(f"{where}: {number} is out of range of {st.name} [{low}, {high}]")
    return number


def _array_argument(fname: str, p: Parameter, value: Any, scalars: dict) -> int:
    """The address of array argument `value` of `p`, after every check of the module docstring."""
    st = p.type
    assert st is not None
    where = f"{fname}(): argument '{p.name}' ({p.declaration})"
    if not isinstance(value, np.ndarray):
        raise TypeError(f"{where} expects a numpy array of {st.dtype}, got {type(value).__name__}")
    if value.dtype != st.dtype:
        raise TypeError(f"{where} expects dtype {st.dtype}, got {value.dtype}")
    if p.kind == "pointer":
        if value.size < 1:
            raise ValueError(f"{where} expects an array with at least one element, got shape {value.shape}")
    else:
        if value.ndim != len(p.dims):
            raise ValueError(f"{where} expects a {len(p.dims)}-dimensional array, got shape {value.shape}")
        expected: list[Optional[int]] = []
        for dim in p.dims:
            if dim is None:
                expected.append(None)
                continue
            text, tree = dim
            try:
                extent = _evaluate(tree, scalars)
            except ExtentError as exc:
                raise ExtentError(f"{where}: cannot check its extent '{text}': {exc}") from None
            except (ValueError, ArithmeticError) as exc:
                raise ValueError(f"{where}: its extent '{text}' has no value: {exc}") from None
            if isinstance(extent, float):
                raise ExtentError(f"{where}: its extent '{text}' is not an integer")
            if extent < 0:
                raise ValueError(f"{where}: its extent '{text}' is {extent}, which is negative")
            expected.append(int(extent))
        if any(e is not None and e != n for e, n in zip(expected, value.shape)):
            comma = "," if len(expected) == 1 else ""
            shown = "(" + ", ".join("any" if e is None else str(e) for e in expected) + comma + ")"
            texts = "(" + ", ".join("any" if d is None else d[0] for d in p.dims) + comma + ")"
            raise ValueError(f"{where} expects shape {texts} = {shown} for these arguments, got {value.shape}")
    if not value.flags.c_contiguous:
        raise ValueError(f"{where} expects a C-contiguous array (np.ascontiguousarray makes one, "
                         "but then the function updates the copy)")
    if p.writable and not value.flags.writeable:
        raise ValueError(f"{where} expects a writeable array: the function may write its elements "
                         "(declare them const if it does not)")
    return value.ctypes.data


class CFunction:
    """One function of a compiled module, called with numpy arrays and Python numbers.

    `prototype` is its C declaration; `__signature__` names its parameters, so that
    keyword arguments and `help()` work. Every argument is checked before the call.
    """

    def __init__(self, spec: FunctionSpec, pointer: Optional[Any]) -> None:
        self.spec = spec
        self.prototype = spec.prototype
        self.__name__ = self.__qualname__ = spec.name
        self.__doc__ = spec.prototype + (f"\n\nNot callable from Python: {spec.unsupported}." if spec.unsupported else "")
        self.__signature__ = _python_signature(spec.params)
        self._pointer = pointer
        if pointer is not None and not spec.unsupported:
            pointer.argtypes = [ctypes.c_void_p if p.kind in ("array", "pointer") else p.type.ctype
                                for p in spec.params]
            pointer.restype = spec.result.ctype if spec.result else None

    def __repr__(self) -> str:
        return f"<pencilcc function {self.prototype}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Union[int, float, bool, None]:
        spec = self.spec
        if spec.unsupported:
            raise TypeError(f"{spec.name}() cannot be called from Python: {spec.unsupported}")
        try:
            bound = self.__signature__.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"{spec.name}() takes {len(spec.params)} argument"
                            f"{'' if len(spec.params) == 1 else 's'} ({spec.prototype}): {exc}") from None
        values = bound.args
        # Scalars first: the arrays' extents are expressions over them.
        scalars = {p.name: _scalar_argument(spec.name, p, v) for p, v in zip(spec.params, values)
                   if p.kind == "scalar"}
        c_args = [scalars[p.name] if p.kind == "scalar" else _array_argument(spec.name, p, v, scalars)
                  for p, v in zip(spec.params, values)]
        # `values` keeps the arrays alive during the call; ctypes releases the GIL.
        return self._pointer(*c_args)


class CompiledModule:
    """The functions of one compiled source, as attributes (`lib.gemm`) and by name (`lib["gemm"]`).

    `library` is the shared object's path (None when the disk cache is off: the file
    is removed once loaded), `flags` the driver's flags, `target` the target,
    `diagnostics` what the compile printed (warnings, remarks; '' when nothing) and
    `messages` the same as values (`clangpass.diagnostics.Diagnostic`, in order: id,
    severity, location, message; a -Wpencil fallback is id 'pencil', option '-Wpencil',
    at its function). A C function whose name is one of these attributes is reached
    with `lib["name"]`.
    """

    def __init__(self, functions: dict[str, CFunction], library: Optional[str], flags: Sequence[str],
                 target: str, diagnostics: str, handle: Any, dependencies: Sequence,
                 messages: Sequence[Diagnostic] = ()) -> None:
        self._functions = dict(functions)
        self.library = library
        self.flags = tuple(flags)
        self.target = target
        self.diagnostics = diagnostics
        self.messages = tuple(messages)
        self._handle = handle                   # keeps the shared object loaded
        self._dependencies = tuple(tuple(d) for d in dependencies)

    def __getattr__(self, name: str) -> CFunction:
        if name.startswith("__") or name == "_functions":
            raise AttributeError(name)
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"the compiled module has no function '{name}' "
                                 f"(it has: {', '.join(self._functions) or 'none'})") from None

    def __getitem__(self, name: str) -> CFunction:
        return self._functions[name]

    def __contains__(self, name: object) -> bool:
        return name in self._functions

    def __iter__(self) -> Iterator[str]:
        return iter(self._functions)

    def __len__(self) -> int:
        return len(self._functions)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self._functions))

    def __repr__(self) -> str:
        return f"<pencilcc module {self.target} [{', '.join(self._functions)}]>"


# --------------------------------------------------------------------------------------
# Building: the driver's compile of one input, in this process, with a console of values
# --------------------------------------------------------------------------------------
def _file_digest(path: str) -> Optional[str]:
    try:
        with open(path, "rb") as f:
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def _dependencies_current(dependencies: Sequence) -> bool:
    return all(_file_digest(path) == digest for path, digest in dependencies)


def _exports(parsed: Any) -> dict:
    """What the API takes from the parse that the compile core uses (run in the analysis
    child, kept in the cache entry): the signatures of the input's functions and the files
    it includes, with their digests (the in-memory cache checks them on every hit)."""
    main = os.path.abspath(parsed.module.file)
    includes: dict[str, Optional[str]] = {}
    if parsed.tu is not None:
        for inclusion in parsed.tu.get_includes():
            name = os.path.abspath(inclusion.include.name)
            if name != main and name not in includes:
                includes[name] = _file_digest(name)
    return {"functions": [s.as_json() for s in function_specs(parsed.module)],
            "includes": [[name, digest] for name, digest in includes.items()]}


def _shared_object_key(input_key: str, config: Any) -> str:
    """The cache key of the shared object linked from one input whose entry key is
    `input_key` ('' when that input is not cached): it adds the link line."""
    if not input_key:
        return ""
    link = [a if isinstance(a, str) else f"<input {a}>" for a in config.link_args]
    digest = hashlib.sha256(f"pencilcc-api-{_ENTRY_FORMAT}\0{input_key}\0".encode())
    digest.update("\0".join(link).encode("utf-8", errors="surrogateescape"))
    return digest.hexdigest()


@dataclass
class _Built:
    """What a compile leaves: the library, the signatures, what it said, the included files."""

    library: Path
    specs: list[FunctionSpec]
    text: str
    messages: tuple[Diagnostic, ...]
    dependencies: list
    kept: bool          # the library lives in the cache (else in a directory removed after loading)


def _string_source(text: str, cache: Any, workdir: Path) -> str:
    """A file holding source `text`: in the cache when there is one (a fixed name for the
    text, so that the next compile of it, in any process, has the same cache key)."""
    if cache is None:
        folder = workdir
    else:
        folder = cache.directory / "sources"
        folder.mkdir(mode=0o700, exist_ok=True)
    path = folder / f"{hashlib.sha256(text.encode('utf-8', errors='surrogateescape')).hexdigest()}.c"
    data = text.encode("utf-8", errors="surrogateescape")
    try:
        current = read_regular(path)
    except OSError:
        current = None
    if current != data:
        atomic_write(path, data)
    return str(path)


def _shown(messages: Sequence[Diagnostic], text: str, source: str, shown: str) -> tuple[tuple[Diagnostic, ...], str]:
    """The diagnostics and their text with the source file's name as the user knows it."""
    def rename(d: Diagnostic) -> Diagnostic:
        loc = replace(d.loc, file=shown) if d.loc.file == source else d.loc
        return replace(d, loc=loc, notes=tuple(rename(n) for n in d.notes))
    return tuple(rename(d) for d in messages), text.replace(source, shown)


def _build(text: str, path: Optional[str], flags: list[str], workdir: Path) -> _Built:
    """Compile and link one shared object as `pencilcc FLAGS -shared -fPIC SOURCE -o LIB` would:
    the driver's per-input compile (clangpass.driver.compile: cache, parse, compile core,
    host part, `-r` link) and its link helpers, run here with a console that keeps the
    diagnostics as values. Raises CompileError."""
    from clangpass.driver.cache import open_cache
    from clangpass.driver.cli import CommandLineError, parse_command_line
    from clangpass.driver.compile import Compilation
    from clangpass.driver.console import Transcript
    from clangpass.driver.host import HostCompiler, HostError
    from clangpass.driver.link import link_arguments, prebuilt_runtime_flags
    from clangpass.driver.sources import (DriverError, HostCompileFailed, read_source,
                                          unreadable_by_libclang)
    from clangpass.toolchain import HostCommandError

    cache, distrust = open_cache()
    if distrust:
        warnings.warn(f"pencilcc: the compile cache is not used: {distrust}", CompileWarning, stacklevel=4)
    source = path if path is not None else _string_source(text, cache, workdir)
    shown = path if path is not None else "<string>"
    transcript = Transcript()

    def failed(summary: str) -> CompileError:
        messages, printed = _shown(transcript.diagnostics, transcript.text, source, shown)
        return CompileError(printed, summary, messages)

    built = workdir / "module.so"
    try:
        config = parse_command_line([*flags, "-shared", "-fPIC", source, "-o", str(built)])
    except CommandLineError as exc:
        transcript.output(f"pencilcc: error: {exc}\n")
        raise failed("pencilcc cannot use these flags") from None
    try:
        host = HostCompiler(verbose=config.verbose, flags=config.host_args, workdir=str(workdir),
                            console=transcript)
    except HostCommandError as exc:
        transcript.output(f"pencilcc: error: {exc}\n")
        raise failed("no host compiler") from None
    compilation = Compilation(config, host, str(workdir), cache, transcript, exports=_exports)
    try:
        inputs = {index: read_source(i.path) for index, i in enumerate(config.inputs) if i.is_c}
        index = next((k for k in inputs if config.inputs[k].path == source), None)
        if index is None:
            raise DriverError(f"{shown}: not compiled as C (check the -x flags)")
        why = unreadable_by_libclang(inputs[index])
        if why:
            transcript.output(f"pencilcc: error: {shown}: pencilcc cannot read the signatures: {why}\n")
            raise failed("pencilcc cannot read the source")
        library_key = ""
        if cache is not None and len(config.inputs) == 1:
            library_key = _shared_object_key(compilation.cache_key(config.inputs[index]), config)
        entry = cache.load(library_key) if library_key and cache is not None else None
        if entry is not None and entry.exports is not None:
            messages = tuple(Diagnostic.from_json(d) for d in entry.diagnostics)
            transcript.output(entry.stderr, messages)
            return _built(cache.path(library_key), entry.exports, transcript, source, shown, True)
        plans = {}
        for k, data in inputs.items():
            plans[k], ok = compilation.analyse(config.inputs[k], data)
            if not ok:
                raise failed("pencilcc reported errors")
        objects, runtime_flags = compilation.objects_for(plans)
        prebuilt = prebuilt_runtime_flags(config)
        if prebuilt:
            runtime_flags.append(prebuilt)
        status = host.run(link_arguments(config, objects, runtime_flags, str(built))).returncode
    except HostCompileFailed:
        raise failed("the host compiler failed") from None
    except HostError as exc:
        transcript.output(f"pencilcc: error: {exc}\n")
        raise failed("no host compiler") from None
    except DriverError as exc:
        transcript.output(f"pencilcc: error: {exc}\n")
        raise failed("pencilcc cannot compile the source") from None
    finally:
        compilation.close()     # host compiles started ahead that no build used (clangpass.driver.ahead)
    if status != 0 or not built.is_file():
        raise failed(f"the host compiler's link exited with status {status}")
    plan = plans[index]
    if plan.exports is None:
        transcript.output(f"pencilcc: error: {shown}: pencilcc's front end cannot read the signatures"
                          + (f": {plan.file_fallback}" if plan.file_fallback else "") + "\n")
        raise failed("pencilcc's front end cannot read the signatures")
    if library_key and cache is not None and not plan.nondeterministic:
        cache.store(library_key, CacheEntry(built.read_bytes(), [r.as_record() for r in plan.records()], [],
                                            transcript.text,
                                            [d.as_json() for d in transcript.diagnostics], plan.exports))
        if cache.load(library_key) is not None:
            return _built(cache.path(library_key), plan.exports, transcript, source, shown, True)
    return _built(built, plan.exports, transcript, source, shown, False)


def _built(library: Path, exports: dict, transcript: Any, source: str, shown: str, kept: bool) -> _Built:
    messages, printed = _shown(transcript.diagnostics, transcript.text, source, shown)
    return _Built(library, [FunctionSpec.from_json(f) for f in exports["functions"]], printed, messages,
                  [list(d) for d in exports["includes"]], kept)


def _load(specs: Sequence[FunctionSpec], library: Path) -> tuple[Any, dict[str, CFunction]]:
    handle = ctypes.CDLL(str(library))
    functions = {}
    for spec in specs:
        try:
            pointer = handle[spec.name]
        except AttributeError:
            continue            # no external symbol (a C99 inline definition)
        functions[spec.name] = CFunction(spec, pointer)
    return handle, functions


# --------------------------------------------------------------------------------------
# compile()
# --------------------------------------------------------------------------------------
_lock = threading.RLock()
_modules: dict[tuple, CompiledModule] = {}


def _normalised_flags(flags: Union[str, Sequence[str]], target: str) -> list[str]:
    """The driver flags for `flags` and `target`: -O3 unless an -O flag is given, the target's flag."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    if isinstance(flags, str):
        flags = shlex.split(flags)
    flags = list(flags)
    for flag in flags:
        if not isinstance(flag, str):
            raise TypeError(f"flags must be strings, got {type(flag).__name__}")
        if flag in _REFUSED_FLAGS or flag.startswith(_REFUSED_PREFIXES):
            hint = " (use target=)" if flag.startswith("-fpencil-target=") else ""
            raise ValueError(f"flag {flag!r} cannot be used with clangpass.compile{hint}: it builds "
                             "one shared object itself")
    out = [] if any(f.startswith("-O") for f in flags) else ["-O3"]
    out += flags
    if target == "opencl":
        out.append("-fpencil-target=opencl")
    return out


def _source_text(source: Union[str, "os.PathLike[str]"]) -> tuple[str, Optional[str]]:
    """(text, absolute path or None). A str holding a newline, '{' or ';' (or nothing but
    blanks) is source text; any other str, or an os.PathLike, is a path."""
    if isinstance(source, str) and (not source.strip() or any(c in source for c in "\n{;")):
        return source, None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be C source text or a path, got {type(source).__name__}")
    path = os.path.abspath(os.fspath(source))
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read(), path


def compile(source: Union[str, "os.PathLike[str]"], flags: Union[str, Sequence[str]] = (),
            target: str = "cpu") -> CompiledModule:
    """Compile C/PENCIL `source` (text or a path) with pencilcc; the module of its functions.

    `flags` are pencilcc's (gcc's) command-line flags (`["-O2", "-DN=100"]`, or one
    string split like a shell's); `-O3` is added unless an -O flag is given. `target`
    is 'cpu' or 'opencl' (`-fpencil-target=opencl`). Raises CompileError when the
    source does not compile, ValueError/TypeError for unusable flags or target, and
    OSError when a path cannot be read. See the module docstring for the caches.
    """
    driver_flags = _normalised_flags(flags, target)
    text, path = _source_text(source)
    memory_key = (text, path, tuple(driver_flags), target)
    with _lock:
        module = _modules.get(memory_key)
        if module is not None and _dependencies_current(module._dependencies):
            return module
        module = _compile_uncached(text, path, driver_flags, target)
        _modules[memory_key] = module
        return module


def _compile_uncached(text: str, path: Optional[str], flags: list[str], target: str) -> CompiledModule:
    workdir = Path(tempfile.mkdtemp(prefix="pencilcc-api-"))
    try:
        built = _build(text, path, flags, workdir)
        # Without the cache the mapping outlives the file, which goes with the directory.
        handle, functions = _load(built.specs, built.library)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if built.text.strip():
        warnings.warn("pencilcc printed:\n" + built.text.rstrip(), CompileWarning, stacklevel=3)
    return CompiledModule(functions, str(built.library) if built.kept else None, flags, target, built.text,
                          handle, built.dependencies, built.messages)
