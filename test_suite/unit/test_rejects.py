# SPDX-License-Identifier: MIT
"""Reject ids (clangpass.rejects): every fallback names a registered one, the driver shows it and
acts on it, the record holds it, and the user guide's table lists exactly the registry.

Every snippet `rejects/<name>.c` holds regions that fall back for one reason, named on its first
line (`// REJECT: pencil-<name>`), with the driver's extra flags on an optional `// FLAGS:` line;
compiled by the driver, its `-Wpencil` warnings and its record must give that id and no other.
"""
from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from clangpass.compiler import compile_module
from clangpass.driver import main as driver_main
from clangpass.driver.cli import parse_command_line
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.poly.extract import NotModelled
from clangpass.rejects import REJECTS, Reject, UnknownRejectId
from clangpass.report import RECORD_KEYS, fallback
from clangpass.targets import get_target

ROOT = Path(__file__).resolve().parents[2]
SNIPPETS = Path(__file__).resolve().parent / "rejects"
GUIDE = ROOT / "docs" / "user-guide.md"


def expected_id(path: Path) -> str:
    return re.search(r"// REJECT: (\S+)", path.read_text())[1]


def extra_flags(path: Path) -> list[str]:
    found = re.search(r"// FLAGS: (.*)", path.read_text())
    return found[1].split() if found else []


def compile_snippet(path: Path, tmp_path: Path, capfd, *flags: str) -> tuple[int, str, list[dict]]:
    """The driver on `path` (-O1 -c): its exit status, stderr, and the record's regions."""
    record = tmp_path / "r.json"
    status = driver_main.main(["-O1", "-c", str(path), "-o", str(tmp_path / "x.o"),
                               f"-foptimization-record-file={record}", *extra_flags(path), *flags])
    err = capfd.readouterr().err
    return status, err, json.loads(record.read_text())["regions"] if record.exists() else []


def warning_options(err: str) -> list[str]:
    """The options of pencilcc's region fallback warnings, in order."""
    return re.findall(r"(?:warning|error): region in '\w+' not optimized.*\[(-W[\w=-]+)\]$", err, re.MULTILINE)


@pytest.fixture(autouse=True)
def _driver(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PENCILCC_DEBUG", raising=False)
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")


# ----------------------------------------------------------------------------- reachable ids
@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("*.c")), ids=lambda p: p.stem)
def test_snippet_reports_exactly_its_reject_id(path: Path, tmp_path: Path, capfd) -> None:
    id = expected_id(path)
    assert path.stem == id[len("pencil-"):] and id in REJECTS
    status, err, regions = compile_snippet(path, tmp_path, capfd)
    assert status == 0, err
    # (A PENCIL function the region calls is a region of its own, which may be optimized.)
    fallbacks = [r for r in regions if r["status"] == "fallback"]
    assert fallbacks and {r["reason_id"] for r in fallbacks} == {id}, regions
    assert warning_options(err) == [f"-W{id}"] * len(fallbacks), err
    assert "[-Wpencil]" not in err


def test_enough_ids_are_reached_by_a_snippet() -> None:
    reached = {expected_id(path) for path in SNIPPETS.glob("*.c")}
    assert len(reached) >= 20 and reached <= set(REJECTS)


def test_the_isl_budget_falls_back_under_its_own_id(tmp_path: Path) -> None:
    """The isl budget is an option of the compile core only (CompileOptions.isl_max_operations)."""
    source = tmp_path / "k.c"
    source.write_text("void f(int n, double A[64][64]) {\n#pragma scop\n"
                      "  for (int i = 1; i < n; i++)\n    for (int j = 1; j < n; j++)\n"
                      "      A[i][j] = A[i - 1][j] + A[i][j - 1];\n#pragma endscop\n}\n")
    result = parse_file(str(source))
    compiled = compile_module(result.module, CompileOptions(opt_level=1, isl_max_operations=10), get_target("cpu"))
    [outcome] = compiled.outcomes
    assert (outcome.status, outcome.reason_id) == ("fallback", "pencil-isl-budget"), outcome.reason
    assert [d.option for d in compiled.diagnostics if d.severity == "warning"] == ["-Wpencil-isl-budget"]


# ----------------------------------------------------------------------------- flags
def test_wno_id_silences_only_that_id(tmp_path: Path, capfd) -> None:
    both = tmp_path / "both.c"
    both.write_text((SNIPPETS / "goto.c").read_text() + (SNIPPETS / "loop-step.c").read_text())
    status, err, regions = compile_snippet(both, tmp_path, capfd)
    assert status == 0 and warning_options(err) == ["-Wpencil-goto", "-Wpencil-loop-step"], err
    status, err, regions = compile_snippet(both, tmp_path, capfd, "-Wno-pencil-goto")
    assert status == 0 and warning_options(err) == ["-Wpencil-loop-step"], err
    # The record is not a warning: it keeps both.
    assert [r["reason_id"] for r in regions] == ["pencil-goto", "pencil-loop-step"]
    status, err, _ = compile_snippet(both, tmp_path, capfd, "-Wno-pencil")
    assert status == 0 and warning_options(err) == [], err
    # An id's own setting wins over the group's, in either order (as gcc's -Wno-all -Wunused).
    for flags in (("-Wno-pencil", "-Wpencil-loop-step"), ("-Wpencil-loop-step", "-Wno-pencil")):
        status, err, _ = compile_snippet(both, tmp_path, capfd, *flags)
        assert status == 0 and warning_options(err) == ["-Wpencil-loop-step"], (flags, err)


def test_werror_id_makes_only_that_id_an_error(tmp_path: Path, capfd) -> None:
    both = tmp_path / "both.c"
    both.write_text((SNIPPETS / "goto.c").read_text() + (SNIPPETS / "loop-step.c").read_text())
    status, err, _ = compile_snippet(both, tmp_path, capfd, "-Werror=pencil-loop-step")
    assert status == 1 and warning_options(err) == ["-Wpencil-goto", "-Werror=pencil-loop-step"], err
    assert re.search(r"error: region in 'strided' not optimized.*\[-Werror=pencil-loop-step\]", err)
    status, err, _ = compile_snippet(both, tmp_path, capfd, "-Werror", "-Wno-error=pencil-goto")
    assert status == 1 and warning_options(err) == ["-Wpencil-goto", "-Werror=pencil-loop-step"], err
    status, err, _ = compile_snippet(both, tmp_path, capfd, "-Werror=pencil", "-Wno-pencil-goto")
    assert status == 1 and warning_options(err) == ["-Werror=pencil-loop-step"], err


def test_reject_flags_are_pencilccs_and_unknown_ones_the_hosts() -> None:
    config = parse_command_line(["-c", "k.c", "-Wno-pencil-goto", "-Werror=pencil-loop-step",
                                 "-Wno-pencil-no-such-reason", "-Wno-unused"])
    policy = config.diagnostics
    assert not policy.reject_warns("pencil-goto") and policy.reject_warns("pencil-recursion")
    assert policy.reject_is_error("pencil-loop-step") and not policy.reject_is_error("pencil-goto")
    # Unknown -Wno- options go to the host compiler, as every -W option pencilcc does not own
    # (gcc accepts any -Wno-*); pencilcc keeps its own.
    assert "-Wno-pencil-no-such-reason" in config.host_args and "-Wno-unused" in config.host_args
    assert "-Wno-pencil-goto" not in config.host_args and "-Werror=pencil-loop-step" not in config.host_args


def test_w_silences_every_id() -> None:
    policy = parse_command_line(["-c", "k.c", "-Wpencil-goto", "-w"]).diagnostics
    assert not any(policy.reject_warns(id) for id in REJECTS)


# ----------------------------------------------------------------------------- the registry
def test_an_unknown_id_is_refused_everywhere() -> None:
    with pytest.raises(UnknownRejectId):
        Reject("pencil-no-such-reason", "why")
    with pytest.raises(UnknownRejectId):
        NotModelled("pencil-no-such-reason", "why")
    with pytest.raises(UnknownRejectId):
        fallback(None, "pencil-no-such-reason", "why")
    with pytest.raises(TypeError):
        NotModelled("a reason without an id")     # the id is a required argument


def test_ids_are_well_formed_and_described() -> None:
    for id, kind in REJECTS.items():
        assert re.fullmatch(r"pencil-[a-z]+(-[a-z]+)*", id) and kind.id == id
        assert kind.title and "\n" not in kind.title and kind.example
    assert 15 <= len(REJECTS) <= 35


def _reject_sites() -> list[tuple[str, int, ast.expr]]:
    """(file, line, id argument) of every NotModelled(...), Reject(...) and fallback(...) call in
    the package (AnalysisFailed carries its id as reject_id=)."""
    sites = []
    for path in [*(ROOT / "clangpass").rglob("*.py"), *(ROOT / "llvm_backend").rglob("*.py")]:
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name in ("NotModelled", "Reject"):
                sites.append((str(path), node.lineno, node.args[0]))
            elif name == "fallback":
                sites.append((str(path), node.lineno, node.args[1]))
            elif name == "AnalysisFailed":
                sites += [(str(path), node.lineno, k.value) for k in node.keywords if k.arg == "reject_id"]
    return sites


def test_every_constant_id_at_a_fallback_site_is_registered() -> None:
    sites = _reject_sites()
    assert len(sites) >= 60
    constants = []
    for file, line, arg in sites:
        for sub in ast.walk(arg):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                constants.append(sub.value)
                assert sub.value in REJECTS, f"{file}:{line}: '{sub.value}' is not a registered reject id"
    # Most sites name their id as a literal; the others pass on one that was checked where it was made.
    assert len(constants) >= 50


def test_the_record_keeps_its_keys_and_adds_reason_id_last(tmp_path: Path, capfd) -> None:
    _, _, [region] = compile_snippet(SNIPPETS / "goto.c", tmp_path, capfd)
    keys = list(region)
    assert keys[:len(RECORD_KEYS)] == list(RECORD_KEYS) and "reason_id" not in RECORD_KEYS
    assert keys[-1] == "reason_id" and region["reason"] == "'goto' statement inside the region"


def test_an_optimized_region_has_no_reason_id(tmp_path: Path, capfd) -> None:
    source = tmp_path / "k.c"
    source.write_text("void f(int n, double A[64]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n"
                      "    A[i] = 2.0 * A[i];\n#pragma endscop\n}\n")
    status, err, [region] = compile_snippet(source, tmp_path, capfd)
    assert status == 0 and (region["status"], region["reason_id"]) == ("optimized", ""), err


# ----------------------------------------------------------------------------- the user guide
def _guide_table() -> dict[str, tuple[str, str]]:
    text = GUIDE.read_text()
    section = text[text.index("### Reject ids"):]
    section = section[:section.index("\n#")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
        if line.startswith("| `pencil-"):
            rows[cells[0].strip("`")] = (cells[1], cells[2])
    return rows


def test_user_guide_table_lists_exactly_the_registry() -> None:
    rows = _guide_table()
    assert sorted(rows) == sorted(REJECTS), set(rows) ^ set(REJECTS)
    for id, kind in REJECTS.items():
        assert rows[id] == (kind.title, kind.example), id


# ----------------------------------------------------------------------------- -fpencil-detect
def test_a_detected_single_loop_is_unprofitable_and_only_a_remark(tmp_path: Path, capfd) -> None:
    """A loop nest -fpencil-detect finds and does not take has its reject id in the record and
    the -Rpass-missed=pencil remark, and no warning: the user did not mark it."""
    source = tmp_path / "k.c"
    source.write_text("double sum(int n, const double *x)\n{\n  double s = 0;\n"
                      "  for (int i = 0; i < n; i++)\n    s += x[i];\n  return s;\n}\n")
    status, err, [region] = compile_snippet(source, tmp_path, capfd, "-fpencil-detect", "-Rpass-missed=pencil",
                                            "-Werror")
    assert status == 0 and warning_options(err) == [] and "warning" not in err, err
    assert (region["kind"], region["status"], region["reason_id"]) == ("detected", "fallback", "pencil-unprofitable")
    assert re.search(r"k.c:4:3: remark: loop nest in 'sum' not optimized: one loop, fewer than the 2 .*"
                     r"\[-Rpass-missed=pencil\]", err), err
