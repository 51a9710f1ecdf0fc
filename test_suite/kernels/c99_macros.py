# SPDX-License-Identifier: MIT
"""The PolyBench-style kernels declared the C99 way, through macros (issue 30).

Input: `test_suite/kernels/polybench/<kernel>.c`. Output: `polybench_c99/<kernel>.c`, the
same program written as PolyBench/C 4.2.1 writes its kernels in C99 mode
(-DPOLYBENCH_USE_C99_PROTO), with macros of our own (PolyBench-like, not PolyBench's):

- every array parameter of `init_array` and `kernel_<name>` becomes a VLA parameter whose
  extents are the function's int size parameters, written through a declarator macro:
  `double C[NI][NJ]` becomes `DATA_TYPE ARRAY_2D(C, NI, NJ, ni, nj)`, which expands to
  `C[ni + 0][nj + 0]` through a nested macro that picks the run-time extent
  (`-DKERNEL_FIXED_EXTENTS` picks the constant one instead, as PolyBench without C99 does);
  ARRAY_3D parenthesises each extent, `A[(nr + 0)][(nq + 0)][(np + 0)]`;
- `double` in those functions is `DATA_TYPE` (a macro), scalars included;
- a floating literal of the kernel function (`0.1`, `1.0`, not one with an exponent) is
  `SCALAR(0.1)`, which pastes a harmless trailing `0` onto it with `##` (`0.10`: the
  same double);
- a size parameter in a for-loop header of the kernel function is an object-like macro
  (`i < ni` becomes `i < PB_NI`, `#define PB_NI LOOP_BOUND(NI, ni)`, which expands to
  `(ni)`), as PolyBench's `_PB_NI`.

libclang (clang.cindex) gives the positions of the parameter declarations and of the
tokens rewritten; everything else is the original text. Each generated file builds
warning-free with `gcc -std=c99 -O0 -Wall -Wextra` (constant extents: but for unused
parameters) and prints
exactly what its original prints (checked by `--check`, and by
test_suite/e2e/test_polybench_c99_macros.py, which builds them with pencilcc).

Usage: `python -m test_suite.kernels.c99_macros` (re)writes every file; `--check` verifies
the written files are current and print what their originals print.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import clang.cindex as ci

from clangpass.frontend import FrontendOptions, clang_args

KERNELS_DIR = Path(__file__).resolve().parent
POLYBENCH_DIR = KERNELS_DIR / "polybench"
C99_DIR = KERNELS_DIR / "polybench_c99"
SPDX = "/* SPDX-License-Identifier: MIT */\n"

# The macros every generated file defines, before its first declaration.
PREAMBLE = """\
/* C99 declarators through macros (written for pencilcc's tests, PolyBench-like). */
#ifndef DATA_TYPE
# define DATA_TYPE double
#endif
#define CAT_(a, b) a##b
#define SCALAR(x) CAT_(x, 0)
#ifdef KERNEL_FIXED_EXTENTS
# define C99_PICK(fixed, runtime) fixed
#else
# define C99_PICK(fixed, runtime) runtime
#endif
#define PADDING 0
#define EXTENT(fixed, runtime) C99_PICK(fixed, runtime) + PADDING
#define ARRAY_1D(name, d1, n1) name[EXTENT(d1, n1)]
#define ARRAY_2D(name, d1, d2, n1, n2) name[EXTENT(d1, n1)][EXTENT(d2, n2)]
#define ARRAY_3D(name, d1, d2, d3, n1, n2, n3) \\
  name[(EXTENT(d1, n1))][(EXTENT(d2, n2))][(EXTENT(d3, n3))]
#define LOOP_BOUND(fixed, runtime) (C99_PICK(fixed, runtime))
"""

# A floating literal SCALAR may paste a digit onto: digits and a point, no exponent or suffix.
_PLAIN_FLOAT = re.compile(r"^(\d+\.\d*|\.\d+)$")
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)", re.MULTILINE)
_BENCH_HELPERS = ("pencilcc_bench_",)


class Unconvertible(Exception):
    """The kernel holds a declaration this generator does not rewrite."""


def _parse(path: Path) -> ci.TranslationUnit:
    tu = ci.Index.create().parse(str(path), args=clang_args(FrontendOptions(("-std=c99",))))
    errors = [d for d in tu.diagnostics if d.severity >= ci.Diagnostic.Error]
    if errors:
        raise Unconvertible(f"{path}: {errors[0]}")
    return tu


def _in_file(cursor: ci.Cursor, path: Path) -> bool:
    return cursor.location.file is not None and Path(cursor.location.file.name).resolve() == path.resolve()


def _size_params(fn: ci.Cursor, macros: set[str]) -> dict[str, str]:
    """{size parameter: its constant macro}: the int parameters whose upper-case name is a macro."""
    return {p.spelling: p.spelling.upper() for p in fn.get_arguments()
            if p.type.spelling == "int" and p.spelling.upper() in macros}


def _parameter(p: ci.Cursor, sizes: dict[str, str]) -> Optional[str]:
    """`p` declared through DATA_TYPE and, for an array, ARRAY_kD; None to leave it as written."""
    tokens = [t.spelling for t in p.get_tokens()]
    if p.spelling not in tokens:
        raise Unconvertible(f"parameter '{p.spelling}': its name is not among its tokens {tokens}")
    at = tokens.index(p.spelling)
    base, rest = tokens[:at], tokens[at + 1:]
    words = ["DATA_TYPE" if t == "double" else t for t in base if t != "*"]
    base_text = " ".join(words) + " " + "*" * base.count("*")
    if not rest:
        return None if "double" not in base else f"{base_text}{p.spelling}"
    if "*" in base:
        raise Unconvertible(f"parameter '{p.spelling}': an array of pointers")
    fixed, runtime = [], []
    while rest:
        if len(rest) < 3 or rest[0] != "[" or rest[2] != "]":
            raise Unconvertible(f"parameter '{p.spelling}': extent not one name: {tokens}")
        extent, rest = rest[1], rest[3:]
        if extent in sizes:
            fixed.append(sizes[extent])
            runtime.append(extent)
        elif extent in sizes.values():
            fixed.append(extent)
            runtime.append(next(k for k, v in sizes.items() if v == extent))
        else:
            raise Unconvertible(f"parameter '{p.spelling}': extent '{extent}' is no size parameter")
    if len(fixed) > 3:
        raise Unconvertible(f"parameter '{p.spelling}': {len(fixed)} dimensions")
    return f"{base_text}ARRAY_{len(fixed)}D({p.spelling}, {', '.join(fixed)}, {', '.join(runtime)})"


def _wrapped(params: list[str], indent: int, width: int = 90) -> str:
    """`params` joined by commas, a line break before one that would pass column `width`."""
    lines = [params[0]]
    for p in params[1:]:
        if indent + len(lines[-1]) + len(p) + 3 > width:
            lines[-1] += ","
            lines.append(p)
        else:
            lines[-1] += ", " + p
    return ("\n" + " " * indent).join(lines)


def _for_header_tokens(tokens: list[ci.Token]) -> set[int]:
    """Indices (into `tokens`) of the tokens inside the parentheses of each `for` header."""
    inside: set[int] = set()
    k = 0
    while k < len(tokens):
        if tokens[k].spelling == "for" and k + 1 < len(tokens) and tokens[k + 1].spelling == "(":
            depth, j = 0, k + 1
            while j < len(tokens):
                s = tokens[j].spelling
                depth += s == "("
                depth -= s == ")"
                if depth == 0:
                    break
                inside.add(j)
                j += 1
        k += 1
    return inside


def make_c99(path: Path) -> str:
    """The C99-macro form of the kernel at `path`."""
    text = path.read_text()
    data = text.encode()
    macros = set(_DEFINE.findall(text))
    tu = _parse(path)
    edits: list[tuple[int, int, str]] = []          # (start, end, replacement), byte offsets
    top = [c for c in tu.cursor.get_children() if _in_file(c, path)]
    first = next(c for c in top if not c.spelling.startswith(_BENCH_HELPERS))
    bound_macros: dict[str, str] = {}
    for fn in top:
        if fn.kind != ci.CursorKind.FUNCTION_DECL or not fn.is_definition():
            continue
        if fn.spelling != "init_array" and not fn.spelling.startswith("kernel_"):
            continue
        sizes = _size_params(fn, macros)
        params = list(fn.get_arguments())
        texts = []
        for p in params:
            new = _parameter(p, sizes)
            texts.append(data[p.extent.start.offset:p.extent.end.offset].decode() if new is None else new)
        start, end = params[0].extent.start.offset, params[-1].extent.end.offset
        edits.append((start, end, _wrapped(texts, params[0].extent.start.column - 1)))
        body = next(c for c in fn.get_children() if c.kind == ci.CursorKind.COMPOUND_STMT)
        tokens = list(tu.get_tokens(extent=body.extent))
        headers = _for_header_tokens(tokens) if fn.spelling.startswith("kernel_") else set()
        for k, tok in enumerate(tokens):
            s, start, end = tok.spelling, tok.extent.start.offset, tok.extent.end.offset
            if s == "double" and tok.kind == ci.TokenKind.KEYWORD:
                edits.append((start, end, "DATA_TYPE"))
            elif (fn.spelling.startswith("kernel_") and tok.kind == ci.TokenKind.LITERAL
                  and _PLAIN_FLOAT.match(s)):
                edits.append((start, end, f"SCALAR({s})"))
            elif k in headers and tok.kind == ci.TokenKind.IDENTIFIER and s in sizes:
                bound_macros[f"PB_{sizes[s]}"] = f"LOOP_BOUND({sizes[s]}, {s})"
                edits.append((start, end, f"PB_{sizes[s]}"))
    if not any("ARRAY_" in r for _, _, r in edits):
        raise Unconvertible(f"{path}: no array parameter")
    bounds = "".join(f"#define {name} {value}\n" for name, value in sorted(bound_macros.items()))
    line_start = data.rfind(b"\n", 0, first.extent.start.offset) + 1
    edits.append((line_start, line_start, PREAMBLE + bounds + "\n"))
    for start, end, new in sorted(edits, reverse=True):
        data = data[:start] + new.encode() + data[end:]
    out = data.decode()
    if not out.startswith(SPDX):
        raise Unconvertible(f"{path}: no SPDX line first")
    header = (f"/* Generated by test_suite/kernels/c99_macros.py from polybench/{path.name}: array\n"
              " * parameters declared as C99 VLAs through macros, PolyBench/C's C99 style. Do not edit. */\n")
    return SPDX + header + out[len(SPDX):]


def c99_path(kernel: str) -> Path:
    return C99_DIR / f"{kernel}.c"


def gcc_output(source: Path, workdir: Path, defines: tuple[str, ...] = ()) -> str:
    """What `source` built by gcc -std=c99 -O0 (warnings are errors) prints."""
    exe = workdir / f"{source.parent.name}-{source.stem}{''.join(defines)}"
    # Constant extents leave the size parameters of a kernel that uses them only as bounds unused.
    unused = ["-Wno-unused-parameter"] if "-DKERNEL_FIXED_EXTENTS" in defines else []
    subprocess.run(["gcc", "-std=c99", "-O0", "-Wall", "-Wextra", "-Werror", "-Wno-unknown-pragmas", *unused,
                    *defines, str(source), "-o", str(exe), "-lm"], check=True, capture_output=True, text=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="verify the written files instead of writing them")
    args = parser.parse_args(argv)
    problems: list[str] = []
    C99_DIR.mkdir(exist_ok=True)
    originals = sorted(POLYBENCH_DIR.glob("*.c"))
    with tempfile.TemporaryDirectory() as tmp:
        for original in originals:
            path = c99_path(original.stem)
            made = make_c99(original)
            if not args.check:
                path.write_text(made)
                continue
            if not path.is_file() or path.read_text() != made:
                problems.append(f"{path}: not what the generator writes")
                continue
            try:
                expected = gcc_output(original, Path(tmp))
                for mode in ((), ("-DKERNEL_FIXED_EXTENTS",)):
                    if gcc_output(path, Path(tmp), mode) != expected:
                        problems.append(f"{path} {' '.join(mode)}: prints something else than {original.name}")
            except subprocess.CalledProcessError as e:
                problems.append(f"{path}: {' '.join(e.cmd)} failed: {e.stderr}")
        for stale in sorted({p.stem for p in C99_DIR.glob("*.c")} - {p.stem for p in originals}):
            problems.append(f"{c99_path(stale)}: no longer generated") if args.check else c99_path(stale).unlink()
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
