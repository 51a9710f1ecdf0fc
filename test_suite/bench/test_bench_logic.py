# SPDX-License-Identifier: MIT
"""The benchmark script's logic, without compilers or timings.

Checks that every dataset only sets macros the kernel programs declare (a
typo would leave a kernel at its default size), that ``--kernels`` parses,
that checksums parse and compare as documented (including a mismatch that
must be caught), and the median and ratio arithmetic.  Nothing here is timed.
"""

from __future__ import annotations

import pytest

from test_suite.bench import checksums, datasets, report
from test_suite.bench.checksums import ArrayChecksum
from test_suite.bench.measure import KernelResult, Outcome


@pytest.mark.parametrize("dataset", datasets.DATASETS)
def test_every_dataset_sizes_every_kernel(dataset: str) -> None:
    kernels = datasets.all_kernels()
    assert len(kernels) >= 37
    for kernel in kernels:
        datasets.check_sizes(kernel, dataset)
        if dataset != "mini":
            assert kernel.size_macros(dataset), kernel.label


def test_check_sizes_rejects_unknown_macro(monkeypatch: pytest.MonkeyPatch) -> None:
    gemm = datasets.select_kernels("gemm")[0]
    monkeypatch.setitem(datasets.SIZES["small"], "gemm", "NI=10 NJ=10 NKK=10")
    with pytest.raises(ValueError, match="NKK=10"):
        datasets.check_sizes(gemm, "small")


def test_select_kernels() -> None:
    assert [k.label for k in datasets.select_kernels("default")] == list(datasets.DEFAULT_KERNELS)
    picked = datasets.select_kernels("gemm,pencil/gemm,gemm")
    assert [k.label for k in picked] == ["gemm", "pencil/gemm"]
    assert picked[1].source.parent.name == "pencil"
    assert picked[1].size_macros("medium") == picked[0].size_macros("medium")
    assert len(datasets.select_kernels("polybench")) == 30
    assert all(k.label.startswith("pencil/") for k in datasets.select_kernels("pencil"))
    with pytest.raises(ValueError, match="unknown kernel"):
        datasets.select_kernels("gemm,nosuch")


OUTPUT = "== C\n4\n1.5\n3.5\n7.25\n== P\n2\n-3\n5\n-1\n"


def test_parse_checksums() -> None:
    assert checksums.parse(OUTPUT) == (ArrayChecksum("C", 4, 1.5, 3.5, 7.25), ArrayChecksum("P", 2, -3, 5, -1))
    with pytest.raises(ValueError):
        checksums.parse("== C\n1.5\n2.5\n")
    with pytest.raises(ValueError):
        checksums.parse("")


def test_compare_checksums() -> None:
    reference = checksums.parse(OUTPUT)
    assert checksums.compare(reference, reference) == []
    # Within 1e-6 of the absolute sum: a reassociated sum that cancels.
    close = checksums.parse("== C\n4\n1.5000001\n3.5\n7.25\n== P\n2\n-3\n5\n-1\n")
    assert checksums.compare(reference, close) == []
    wrong = checksums.parse("== C\n4\n1.5\n3.5\n7.5\n== P\n2\n-3\n5\n-2\n")
    problems = checksums.compare(reference, wrong)
    assert len(problems) == 2
    assert problems[0].startswith("C: weighted 7.5")
    assert problems[1].startswith("P: weighted -2")
    assert checksums.compare(reference, checksums.parse("== C\n4\nnan\n3.5\n7.25\n== P\n2\n-3\n5\n-1\n"))
    assert "elements" in checksums.compare(reference, checksums.parse(
        "== C\n5\n1.5\n3.5\n7.25\n== P\n2\n-3\n5\n-1\n"))[0]
    assert "arrays differ" in checksums.compare(reference, reference[:1])[0]


def test_median_ratio_and_geomean() -> None:
    fast = Outcome("pencilcc", 1.0, (0.5, 0.1, 0.2))
    slow = Outcome("gcc", 0.1, (0.4, 0.5, 0.3, 0.2))
    assert fast.median == 0.2
    assert slow.median == pytest.approx(0.35)
    result = KernelResult("gemm", ("NI=1",), (slow, fast), "gcc")
    assert report.ratio(result, "gcc", "pencilcc") == pytest.approx(1.75)
    bad = KernelResult("gemm", (), (slow, Outcome("pencilcc", 1.0, (0.1,), mismatches=("C: total",))), "gcc")
    assert report.ratio(bad, "gcc", "pencilcc") is None
    assert report.status(bad).startswith("MISMATCH pencilcc")
    failed = Outcome("pencilcc", 1.0, (0.1,), error="run failed")
    assert failed.median is None
    assert report.geometric_mean([2.0, 8.0]) == pytest.approx(4.0)
    assert report.geometric_mean([]) is None
