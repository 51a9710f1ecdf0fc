# SPDX-License-Identifier: MIT
"""A reference middle and back end for driver tests, independent of the polyhedral path.

`install(monkeypatch)` replaces, in the compile core, `optimise_region` (every
outlinable region is 'optimized', its unit is the region itself) and the driver's
target with `ReferenceTarget` (its object and assembly are the region's original
text, wrapped in a function with the outlined ABI, compiled by gcc). The driver
cannot tell the difference, so its own logic (rewriting, -r linking, caching,
records, dependency files, linking) is tested exactly, fast and whatever state the
real passes are in. The tests at the end check the reference outliner itself.
"""
from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from clangpass import compiler
from clangpass.driver import compile as driver_compile
from clangpass.ir import types as T
from clangpass.ir.printer import format_expr
from clangpass.regions import OptRegion
from clangpass.report import RegionOutcome
from clangpass.targets import Artifact, Output, TargetTraits, get_target

STUB_LINK_FLAGS = ["-lm"]


def _row_pointer(name: str, t: T.CType) -> str:
    """A declarator for the pointer an array/pointer argument decays to."""
    if isinstance(t, T.ArrayType):
        rows = "".join(f"[{d.constant_extent if d.constant_extent is not None else format_expr(d.extent)}]"
                       for d in t.dims()[1:])
        return f"{t.scalar_element().unqualified().spelling()} (*{name}){rows}"
    return f"{t.unqualified().spelling()} {name}"


def _preprocessor_lines(text: str) -> str:
    """The original file's directives (includes, macros, conditionals), not its pragmas."""
    out, keep = [], False
    for line in text.splitlines():
        stripped = line.lstrip()
        if keep or (stripped.startswith("#") and not re.match(r"#\s*pragma", stripped)):
            out.append(line)
            keep = line.endswith("\\")
    return "\n".join(out)


def _function_source(region: OptRegion) -> str:
    text = Path(region.extent.file).read_bytes()
    body = text[region.extent.start_offset:region.extent.end_offset].decode()
    if region.kind != "function":
        body = "{\n" + "\n".join(body.splitlines()[1:-1]) + "\n}"
    params, prologue, epilogue = [], [], []
    for arg in region.args:
        if arg.passing == "value":
            params.append(f"{arg.type.unqualified().spelling()} {arg.name}")
        elif arg.passing == "pointer":
            params.append(f"void *{arg.name}__p")
            prologue.append(f"#define {arg.name} (*({arg.type.unqualified().spelling()} *){arg.name}__p)")
            epilogue.append(f"#undef {arg.name}")
        else:
            params.append(f"const void *{arg.name}__p")
            prologue.append(f"{_row_pointer(arg.name, arg.type)} = (void *){arg.name}__p;")
    iterators = "".join(f"int {it}; " for it in region.iterators)
    result = "void"
    if region.kind == "function" and not isinstance(region.function.result, T.VoidType):
        result = region.function.result.unqualified().spelling()
    return (f"{result} {region.symbol}({', '.join(params) or 'void'}) {{\n"
            + "\n".join(p for p in prologue if p.startswith("#")) + "\n"
            + "".join(p for p in prologue if not p.startswith("#")) + iterators + "\n"
            + body + "\n}\n" + "\n".join(epilogue) + "\n")


def _reference_compile(units, options, module_name: str, mode: str) -> bytes:
    """gcc `mode` ('-c' or '-S') of the regions' original text with the outlined ABI."""
    regions = list(units)
    source = _preprocessor_lines(Path(regions[0].extent.file).read_text())
    source += "\n" + "\n".join(_function_source(r) for r in regions)
    with tempfile.TemporaryDirectory() as tmp:
        c_file, out = os.path.join(tmp, "regions.c"), os.path.join(tmp, "regions.out")
        Path(c_file).write_text(source)
        flags = ["-fPIC"] if options.pic else ["-fno-pic"]
        original_dir = os.path.dirname(os.path.abspath(regions[0].extent.file))
        subprocess.run(["gcc", "-std=gnu99", "-O1", "-w", *flags, "-iquote", original_dir, mode, c_file,
                        "-o", out], check=True, capture_output=True)
        return Path(out).read_bytes()


def reference_emit_object(units, options, module_name: str) -> bytes:
    return _reference_compile(units, options, module_name, "-c")


class ReferenceTarget:
    """The clangpass.targets.Target protocol on the reference outliner; `emit_object` may be
    replaced (a failing back end)."""

    name = "reference"
    traits = TargetTraits()

    def __init__(self, emit_object=reference_emit_object) -> None:
        self.emit_object = emit_object

    def pipeline(self, opt_level: int):
        return get_target("cpu").pipeline(opt_level)

    def emit(self, units, options, output: Output, module_name: str, dumps) -> Artifact:
        if output is Output.LLVM_IR:
            return Artifact(output, text="; regions\n")
        if output is Output.ASSEMBLY:
            return Artifact(output, text=_reference_compile(units, options, module_name, "-S").decode())
        return Artifact(output, object_bytes=self.emit_object(units, options, module_name),
                        link_flags=self.link_flags(units, options))

    def link_flags(self, units, options) -> tuple[str, ...]:
        return tuple(STUB_LINK_FLAGS)


def reference_optimise_region(region, module, options, dumps, pipeline=None) -> RegionOutcome:
    return RegionOutcome(region, "optimized", unit=region, statements=1,
                         pass_seconds={"reference-outliner": 0.001})


def install(monkeypatch: pytest.MonkeyPatch, optimise=reference_optimise_region,
            emit=reference_emit_object) -> None:
    """Route the compile core's calls into the reference outliner."""
    target = ReferenceTarget(emit)
    monkeypatch.setattr(compiler, "optimise_region", optimise)
    monkeypatch.setattr(driver_compile, "get_target", lambda name="cpu": target)


# ----------------------------------------------------------------------------- self-checks
def test_row_pointer_declarators() -> None:
    two_d = T.ArrayType(T.ArrayType(T.FloatType(), constant_extent=70), constant_extent=60)
    assert _row_pointer("C", two_d) == "double (*C)[70]"
    assert _row_pointer("p", T.PointerType(T.FloatType(), restrict=True)) == "double * p"


def test_preprocessor_lines_keep_directives_and_continuations() -> None:
    text = "#include <x.h>\n#pragma scop\n#define A \\\n  1\nint x;\n"
    assert _preprocessor_lines(text) == "#include <x.h>\n#define A \\\n  1"


def test_reference_outliner_compiles_a_region(tmp_path: Path) -> None:
    from clangpass.frontend import parse_file
    from clangpass.options import CompileOptions
    from clangpass.regions import find_regions

    source = tmp_path / "r.c"
    source.write_text("#define M 4\nvoid f(int n, double a[M][M], double *s)\n{\n  int i;\n"
                      "#pragma scop\n  for (i = 0; i < n; i++)\n    *s += a[i][i];\n#pragma endscop\n}\n")
    regions = find_regions(parse_file(str(source)).module)
    assert [a.passing for a in regions[0].args] == ["value", "array", "array"]
    obj = reference_emit_object(regions, CompileOptions(pic=True), str(source))
    assert obj[:4] == b"\x7fELF"
