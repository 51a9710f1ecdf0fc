# SPDX-License-Identifier: MIT
"""The compile core (clangpass.compiler) and the target protocol (clangpass.targets)."""
from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from clangpass.compiler import compile_module
from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.rejects import Reject
from llvm_backend.cpu.pipeline import PIPELINES
from clangpass.targets import Artifact, Output, Target, TargetTraits, get_target

SOURCE = """\
void first_negative(int n, double A[restrict n], int *out)
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] < 0) goto found;
#pragma endscop
found:
  *out = i;
}

void scale(int n, double A[restrict n][n], double x[restrict n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      x[i] += A[i][j] * 2.0;
#pragma endscop
}
"""


@pytest.fixture(scope="module")
def module(tmp_path_factory: pytest.TempPathFactory) -> N.Module:
    path = tmp_path_factory.mktemp("core") / "k.c"
    path.write_text(SOURCE)
    result = parse_file(str(path))
    assert result.ok and result.module is not None
    return result.module


@dataclass
class Recorder:
    """A `Progress` that remembers what it was told."""

    steps: list[tuple[str, int]] = field(default_factory=list)

    def region(self, index: int) -> None:
        self.steps.append(("region", index))

    def back_end(self, units: int) -> None:
        self.steps.append(("back end", units))


class BrokenTarget:
    """The CPU target's pipelines with an emitter that always fails."""

    name = "broken"
    traits = TargetTraits()

    def pipeline(self, opt_level: int):
        return PIPELINES[max(0, min(3, opt_level))]

    def emit(self, units, options, output, module_name, dumps) -> Artifact:
        raise RuntimeError("no code for you")

    def link_flags(self, units, options) -> tuple[str, ...]:
        return ()


def test_outcomes_diagnostics_and_object_come_back_as_values(module: N.Module, capfd) -> None:
    progress = Recorder()
    result = compile_module(module, CompileOptions(opt_level=2), get_target("cpu"), Output.OBJECT,
                            progress=progress)
    assert capfd.readouterr() == ("", "")          # nothing printed, by Python or by LLVM
    fallback, optimized = result.outcomes
    assert (fallback.region.function.name, fallback.status) == ("first_negative", "fallback")
    assert (fallback.reason, fallback.reason_id) == ("'goto' statement inside the region", "pencil-goto")
    assert (optimized.region.function.name, optimized.status) == ("scale", "optimized")
    assert result.optimized == (optimized,)
    # The goto region was never handed to the passes; the target got the one optimized region.
    assert progress.steps == [("region", 1), ("back end", 1)]
    warnings = [d for d in result.diagnostics if d.severity == "warning"]
    assert [(d.id, d.option, d.loc.line) for d in warnings] == [("pencil-goto", "-Wpencil-goto", 4)]
    assert "'goto' statement inside the region" in warnings[0].message
    # Every remark comes back; the caller's policy picks those of its -R options.
    assert {d.option for d in result.diagnostics if d.severity == "remark"} == {
        "-Rpass=pencil", "-Rpass-missed=pencil"}
    artifact = result.artifact
    assert artifact.output is Output.OBJECT and artifact.object_bytes[:4] == b"\x7fELF"
    assert optimized.region.symbol.encode() in artifact.object_bytes
    assert artifact.link_flags == get_target("cpu").link_flags([optimized.unit], CompileOptions(opt_level=2))


def test_text_outputs_hold_only_the_optimized_regions(module: N.Module, capfd) -> None:
    options = CompileOptions(opt_level=1)
    ir = compile_module(module, options, get_target(), Output.LLVM_IR)
    assemblies = compile_module(module, options, get_target(), Output.ASSEMBLY)
    assert capfd.readouterr() == ("", "")
    fallback, optimized = ir.outcomes
    for text in (ir.artifact.text, assemblies.artifact.text):
        assert optimized.region.symbol in text and fallback.region.symbol not in text
    assert f"define void @{optimized.region.symbol}(" in ir.artifact.text
    assert ir.artifact.object_bytes == b"" and ir.artifact.link_flags == ()


def test_a_module_without_regions_still_has_its_llvm_module(tmp_path: Path) -> None:
    empty = N.Module(str(tmp_path / "plain.c"))
    result = compile_module(empty, CompileOptions(), get_target(), Output.LLVM_IR)
    assert result.outcomes == () and result.diagnostics == ()
    assert "target triple" in result.artifact.text and "define" not in result.artifact.text
    # An object of no region is not made at all.
    assert compile_module(empty, CompileOptions(), get_target()).artifact == Artifact(Output.OBJECT)


def test_a_failing_target_makes_its_regions_fall_back(module: N.Module, capfd) -> None:
    result = compile_module(module, CompileOptions(opt_level=2), BrokenTarget(), Output.OBJECT)
    assert capfd.readouterr() == ("", "")
    assert [o.status for o in result.outcomes] == ["fallback", "fallback"]
    reason = result.outcomes[1].reason
    assert reason.startswith("internal error in the back end (RuntimeError: no code for you)")
    assert result.outcomes[1].unit is None and result.outcomes[1].pass_seconds   # its passes' time stays
    assert result.artifact == Artifact(Output.OBJECT)
    assert [d.loc.line for d in result.diagnostics if d.severity == "warning"] == [4, 14]
    with pytest.raises(RuntimeError, match="no code for you"):
        compile_module(module, CompileOptions(opt_level=2), BrokenTarget(), reraise=True)


def test_left_out_regions_fall_back_with_the_callers_reason(module: N.Module) -> None:
    progress = Recorder()
    result = compile_module(module, CompileOptions(), get_target(),
                            left_out={1: Reject("pencil-internal-error", "it crashed last time")}, progress=progress)
    assert [(o.status, o.reason_id, o.reason) for o in result.outcomes][1] == (
        "fallback", "pencil-internal-error", "it crashed last time")
    assert progress.steps == [("back end", 0)]
    assert result.artifact == Artifact(Output.OBJECT)


def test_a_failing_pass_makes_its_region_fall_back(module: N.Module, monkeypatch) -> None:
    from clangpass import compiler

    def broken(region, module, options, dumps, pipeline):
        raise ValueError("bad schedule")

    monkeypatch.setattr(compiler, "optimise_region", broken)
    outcome = compile_module(module, CompileOptions(), get_target()).outcomes[1]
    assert outcome.status == "fallback"
    assert outcome.reason.startswith("internal error in the polyhedral path (ValueError: bad schedule)")
    with pytest.raises(ValueError):
        compile_module(module, CompileOptions(), get_target(), reraise=True)


def test_dumps_go_to_the_callers_sink(module: N.Module, capfd) -> None:
    stream = io.StringIO()
    sink = DumpSink(stages=frozenset({"ast", "llvm"}), stream=stream)
    compile_module(module, CompileOptions(opt_level=2), get_target(), dumps=sink)
    assert capfd.readouterr() == ("", "")
    text = stream.getvalue()
    assert ";; pencilcc ast 'scale#0' after codegen" in text
    assert ";; pencilcc llvm 'k.c' after llvm-pipeline" in text


def test_the_cpu_target_satisfies_the_protocol() -> None:
    cpu = get_target("cpu")
    assert isinstance(cpu, Target) and cpu.name == "cpu"
    assert [list(cpu.pipeline(level)) for level in range(4)] == [PIPELINES[level] for level in range(4)]
    assert list(cpu.pipeline(5)) == PIPELINES[3]      # -O4 and up are -O3, as with gcc
    with pytest.raises(KeyError):
        get_target("gpu")
