# SPDX-License-Identifier: MIT
"""Sanity tests of the kernel suite and of the harness, independent of pencilcc.

Every kernel under ``test_suite/kernels/polybench`` and ``test_suite/kernels/pencil``
must build warning-free, run, print finite values, and give the same output
with ``gcc -O0`` and ``gcc -O2 -ffp-contract=off`` (rtol 1e-9).  The comparator
itself is exercised on small hand-made outputs so that it is shown to fail
when it should.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from test_suite.e2e import harness

POLYBENCH = harness.polybench_sources()
PENCIL = harness.pencil_sources()
ALL_KERNELS = [pytest.param(p, id=f"polybench/{p.stem}") for p in POLYBENCH] + [
    pytest.param(p, id=f"pencil/{p.stem}") for p in PENCIL
]

WARNING_FLAGS = ["-Wall", "-Wextra", "-Werror"]
SCOP_RE = re.compile(r"^\s*#\s*pragma\s+scop\s*$", re.MULTILINE)
ENDSCOP_RE = re.compile(r"^\s*#\s*pragma\s+endscop\s*$", re.MULTILINE)


@pytest.fixture(scope="session")
def build_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("kernels_gcc")


# --------------------------------------------------------------------------
# The kernel suite
# --------------------------------------------------------------------------


def test_all_polybench_kernels_present() -> None:
    names = {p.stem for p in POLYBENCH}
    assert len(harness.POLYBENCH_KERNELS) == 30
    assert sorted(set(harness.POLYBENCH_KERNELS) - names) == []
    assert sorted(names - set(harness.POLYBENCH_KERNELS)) == []


def test_no_polybench_support_files() -> None:
    for folder in (harness.POLYBENCH_DIR, harness.PENCIL_DIR):
        assert not (folder / "polybench.c").exists()
        assert not (folder / "polybench.h").exists()


def test_pencil_variants_present() -> None:
    assert len(PENCIL) >= 6
    for path in PENCIL:
        text = path.read_text()
        assert "static const restrict" in text, path.name
        assert not SCOP_RE.search(text), path.name


def test_sources_have_spdx_header() -> None:
    for path in POLYBENCH + PENCIL:
        first = path.read_text().splitlines()[0]
        assert first == "/* SPDX-License-Identifier: MIT */", path.name


def test_polybench_kernels_have_one_scop() -> None:
    for path in POLYBENCH:
        text = path.read_text()
        assert len(SCOP_RE.findall(text)) == 1, path.name
        assert len(ENDSCOP_RE.findall(text)) == 1, path.name
        assert "rand(" not in text, path.name


@pytest.mark.parametrize("source", ALL_KERNELS)
def test_gcc_O0_matches_O2(source: Path, build_dir: Path) -> None:
    reference = harness.gcc_reference(source, build_dir)
    exe = build_dir / f"{source.parent.name}-{source.stem}.gcc-O2"
    proc = harness.build(
        ["gcc"],
        [source],
        exe,
        [*harness.KERNEL_CFLAGS, *WARNING_FLAGS, "-O2", "-ffp-contract=off"],
    )
    assert proc.stderr == ""
    candidate = harness.run(exe)
    assert harness.compare_outputs(reference, candidate, rtol=1e-9) == []


@pytest.mark.parametrize("source", ALL_KERNELS)
def test_output_is_finite_and_nonempty(source: Path, build_dir: Path) -> None:
    output = harness.gcc_reference(source, build_dir)
    sections = harness.parse_values(output)
    assert sections, "no '== NAME' section printed"
    for name, values in sections:
        assert len(values) > 0, name
    assert harness.nonfinite_values(output) == []


@pytest.mark.parametrize(
    "source", [pytest.param(p, id=p.stem) for p in PENCIL if (harness.POLYBENCH_DIR / p.name).exists()]
)
def test_pencil_variant_matches_polybench(source: Path, build_dir: Path) -> None:
    """The PENCIL rewrite computes the same values as its PolyBench twin."""
    twin = harness.POLYBENCH_DIR / source.name
    pencil_out = harness.gcc_reference(source, build_dir)
    polybench_out = harness.gcc_reference(twin, build_dir)
    assert harness.compare_outputs(polybench_out, pencil_out, rtol=1e-12) == []


def test_problem_size_is_overridable(build_dir: Path) -> None:
    source = harness.POLYBENCH_DIR / "gemm.c"
    small = harness.parse_values(harness.gcc_reference(source, build_dir, ["NI=7", "-DNJ=5", "NK=3"]))
    assert [(name, len(values)) for name, values in small] == [("C", 35)]


# --------------------------------------------------------------------------
# The comparator
# --------------------------------------------------------------------------

REF = "== A\n1.5\n2.25\n0\n== B\n3\n-4\n"


def test_parse_values() -> None:
    assert harness.parse_values(REF) == [("A", [1.5, 2.25, 0]), ("B", [3, -4])]
    assert harness.parse_values("== x\n1e-3\n-inf\n") == [("x", [0.001, float("-inf")])]
    with pytest.raises(ValueError):
        harness.parse_values("1.0\n== A\n")
    with pytest.raises(ValueError):
        harness.parse_values("== A\nhello\n")


def test_compare_equal_outputs() -> None:
    assert harness.compare_outputs(REF, REF, rtol=1e-9) == []
    # Integral doubles printed as "0" on one side and as a float on the other.
    assert harness.compare_outputs(REF, "== A\n1.5\n2.25\n0.0\n== B\n3\n-4\n", rtol=1e-9) == []


def test_compare_within_tolerance() -> None:
    cand = "== A\n1.5000000001\n2.25\n1e-14\n== B\n3\n-4\n"
    assert harness.compare_outputs(REF, cand, rtol=1e-9) == []


def test_compare_beyond_tolerance() -> None:
    cand = "== A\n1.5001\n2.25\n0\n== B\n3\n-4\n"
    problems = harness.compare_outputs(REF, cand, rtol=1e-9)
    assert len(problems) == 1
    assert "A[0]" in problems[0]
    # The same pair passes with a loose enough tolerance.
    assert harness.compare_outputs(REF, cand, rtol=1e-3) == []


def test_compare_absolute_tolerance_near_zero() -> None:
    assert harness.compare_outputs("== A\n0\n", "== A\n-3e-17\n", rtol=1e-9) == []
    assert len(harness.compare_outputs("== A\n0\n", "== A\n1e-6\n", rtol=1e-9)) == 1
    assert harness.compare_outputs("== A\n0\n", "== A\n1e-6\n", rtol=1e-9, atol=1e-5) == []


def test_compare_integers_exactly() -> None:
    problems = harness.compare_outputs("== P\n10\n20\n", "== P\n10\n21\n", rtol=0.5)
    assert len(problems) == 1
    assert "P[1]" in problems[0]


def test_compare_different_section_count() -> None:
    problems = harness.compare_outputs(REF, "== A\n1.5\n2.25\n0\n", rtol=1e-9)
    assert problems
    assert "sections differ" in problems[0]


def test_compare_different_section_names() -> None:
    problems = harness.compare_outputs("== A\n1\n", "== Z\n1\n", rtol=1e-9)
    assert problems and "sections differ" in problems[0]


def test_compare_different_value_count() -> None:
    problems = harness.compare_outputs(REF, "== A\n1.5\n2.25\n== B\n3\n-4\n", rtol=1e-9)
    assert problems == ["section A: reference has 3 values, candidate has 2"]


def test_compare_nan_and_inf() -> None:
    assert harness.compare_outputs("== A\nnan\ninf\n", "== A\n-nan\ninf\n", rtol=1e-9) == []
    assert len(harness.compare_outputs("== A\n1.0\n", "== A\nnan\n", rtol=1e-9)) == 1
    assert len(harness.compare_outputs("== A\ninf\n", "== A\n-inf\n", rtol=1e-9)) == 1
    assert harness.nonfinite_values("== A\n1.0\nnan\n== B\n-inf\n") == ["A[1] = nan", "B[0] = -inf"]


def test_compare_limits_report_length() -> None:
    ref = "== A\n" + "1.0\n" * 50
    cand = "== A\n" + "2.0\n" * 50
    problems = harness.compare_outputs(ref, cand, rtol=1e-9, max_per_section=3)
    assert len(problems) == 4
    assert "47 more mismatches" in problems[-1]


def test_compare_malformed_candidate() -> None:
    problems = harness.compare_outputs(REF, "Segmentation fault\n", rtol=1e-9)
    assert len(problems) == 1 and "candidate output is malformed" in problems[0]


# --------------------------------------------------------------------------
# build / run errors
# --------------------------------------------------------------------------


def test_build_error_carries_stderr(tmp_path: Path) -> None:
    bad = tmp_path / "bad.c"
    bad.write_text("int main(void) { return undeclared_name; }\n")
    with pytest.raises(harness.BuildError) as info:
        harness.build(["gcc"], [bad], tmp_path / "bad", list(harness.KERNEL_CFLAGS))
    assert "undeclared_name" in info.value.stderr
    assert info.value.returncode != 0


def test_run_error_on_nonzero_exit(tmp_path: Path) -> None:
    src = tmp_path / "fail.c"
    src.write_text('#include <stdio.h>\nint main(void) { puts("== A"); return 3; }\n')
    exe = tmp_path / "fail"
    harness.build(["gcc"], [src], exe, list(harness.KERNEL_CFLAGS))
    with pytest.raises(harness.RunError) as info:
        harness.run(exe)
    assert info.value.returncode == 3
    assert info.value.stdout == "== A\n"
