# SPDX-License-Identifier: MIT
"""The benchmark script's logic, without compilers or timings.

Checks that every dataset only sets macros the kernel programs declare (a
typo would leave a kernel at its default size), that ``--kernels`` parses,
that checksums parse and compare as documented (including a mismatch that
must be caught), the median and ratio arithmetic, the flop counts and the
peak formula.  Nothing here is timed.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_suite.bench import checksums, datasets, flops, measure, report
from test_suite.bench.checksums import ArrayChecksum
from test_suite.bench.compilers import Compiler
from test_suite.bench.measure import KernelResult, Outcome, measure_kernel


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


def test_size_values_take_program_defaults_and_dataset() -> None:
    gemm = datasets.select_kernels("gemm")[0]
    assert gemm.size_values("mini") == {"NI": 60, "NJ": 70, "NK": 80}
    assert gemm.size_values("large") == {"NI": 1000, "NJ": 1100, "NK": 1200}


def test_flop_counts_from_the_loops() -> None:
    # Counted by hand from each kernel's loops (invariants hoisted, a multiply-add = 2).
    assert flops.kernel_flops("gemm", {"NI": 2, "NJ": 3, "NK": 4}) == 2 * 3 + 2 * 4 + 2 * 2 * 3 * 4
    assert flops.kernel_flops("3mm", {"NI": 1, "NJ": 2, "NK": 3, "NL": 4, "NM": 5}) == 2 * (6 + 40 + 8)
    # syrk with N=2, M=3: triangle of 3 points; 3 + 2*3 + 2*3*3.
    assert flops.kernel_flops("syrk", {"N": 2, "M": 3}) == 3 + 6 + 18
    # trmm with M=3: k runs 2, 1, 0 times for i = 0, 1, 2.
    assert flops.kernel_flops("trmm", {"M": 3, "N": 5}) == 2 * 5 * 3 + 3 * 5
    assert flops.kernel_flops("doitgen", {"NR": 2, "NQ": 3, "NP": 4}) == 2 * 2 * 3 * 16
    assert flops.kernel_flops("atax", {"M": 10, "N": 10}) is None
    assert set(flops.FLOP_COUNTS) == {"gemm", "2mm", "3mm", "syrk", "syr2k", "symm", "trmm", "doitgen"}
    for name in flops.FLOP_COUNTS:
        kernel = datasets.select_kernels(name)[0]
        # Every macro a count reads is one the program declares.
        assert flops.kernel_flops(name, kernel.size_values("large")) > 0


CPUINFO = "processor\t: 0\nmodel name\t: Some CPU\ncpu MHz\t\t: 2500.000\nflags\t\t: fpu sse2 {}\n"


def test_peak_from_cpuinfo() -> None:
    peak = flops.peak_from_cpuinfo(CPUINFO.format("avx2 fma"), cores=2)
    assert peak is not None
    assert (peak.doubles_per_vector, peak.fma_pipes, peak.ghz) == (4, 2, 2.5)
    assert peak.flops_per_second == pytest.approx(2 * 2 * 4 * 2 * 2.5e9)
    assert "2 cores x 2 FMA pipes x 4 doubles/vector x 2 x 2.50 GHz" in peak.describe()
    wide = flops.peak_from_cpuinfo(CPUINFO.format("avx2 fma avx512f"), cores=1, max_freq_khz=3_000_000)
    assert wide is not None and (wide.doubles_per_vector, wide.ghz) == (8, 3.0)
    assert "sysfs" in wide.source
    narrow = flops.peak_from_cpuinfo(CPUINFO.format(""), cores=1)
    assert narrow is not None and narrow.doubles_per_vector == 2
    assert flops.peak_from_cpuinfo("model name\t: x\n", cores=1) is None


def test_zen4_avx512_counts_256_bit_pipes() -> None:
    zen4 = "vendor_id\t: AuthenticAMD\ncpu family\t: 25\n" + CPUINFO.format("avx2 fma avx512f")
    peak = flops.peak_from_cpuinfo(zen4, cores=2)
    assert peak is not None and peak.doubles_per_vector == 4
    assert "Zen 4" in peak.describe()
    zen5 = "vendor_id\t: AuthenticAMD\ncpu family\t: 26\n" + CPUINFO.format("avx2 fma avx512f")
    assert flops.peak_from_cpuinfo(zen5, cores=2).doubles_per_vector == 8
    intel = "vendor_id\t: GenuineIntel\ncpu family\t: 6\n" + CPUINFO.format("avx2 fma avx512f")
    assert flops.peak_from_cpuinfo(intel, cores=2).doubles_per_vector == 8


def _compiler(name: str) -> Compiler:
    return Compiler(name, (name,))


def test_ratios_over_every_peer_and_gflops() -> None:
    compilers = [_compiler(n) for n in ("gcc", "clang", "polly", "pencilcc")]
    assert report.ratio_pairs(compilers) == [("gcc", "pencilcc"), ("clang", "pencilcc"), ("polly", "pencilcc")]
    outcomes = (Outcome("gcc", 1.0, (2.0,)), Outcome("clang", 1.0, (1.0,)), Outcome("polly", 1.0, (0.5,)),
                Outcome("pencilcc", 1.0, (0.25,)))
    result = KernelResult("gemm", (), outcomes, "gcc", flops=10**9)
    assert [report.ratio(result, a, b) for a, b in report.ratio_pairs(compilers)] == [8.0, 4.0, 2.0]
    assert report.gflops(result, "pencilcc") == pytest.approx(4.0)
    assert report.gflops(KernelResult("atax", (), outcomes, "gcc"), "gcc") is None
    peak = flops.Peak(1, 2, 4, 1.0, "test")  # 16 GFLOP/s
    table = report.format_flops([result], compilers, peak)
    assert "4.00 (25%)" in table and "0.50 (3%)" in table
    assert peak.describe() in table
    assert report.format_flops([KernelResult("atax", (), outcomes, "gcc")], compilers, peak) == ""
    text = report.format_results([result], compilers, callgrind=False)
    assert "clang/pencilcc" in text and "geomean over gcc/pencilcc 1 kernels" in text


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_progress_names_each_step(tmp_path: Path) -> None:
    steps: list[str] = []
    gcc = Compiler("gcc", ("gcc", "-O1"))
    missing = Compiler("clang", ("clang",), unavailable="not on PATH")
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, missing], tmp_path, repeat=2,
                            threads=1, timeout=60, callgrind=False, reference="gcc", progress=steps.append)
    # An unavailable compiler is neither built nor run, and its outcome says why.
    assert steps == ["build gcc", "run gcc 1/2", "run gcc 2/2"]
    assert result.outcome("clang").error.startswith("n/a")
    assert len(result.outcome("gcc").values) == 2


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_configuration_can_run_another_build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pencilcc-1t runs pencilcc's build on one thread: one build, two run columns.
    gcc = Compiler("gcc", ("gcc", "-O1"))
    one_thread = Compiler("gcc-1t", ("gcc", "-O1"), runs_build_of="gcc", run_threads=1)
    seen: list[int] = []
    real_run = measure.run
    monkeypatch.setattr(measure, "run", lambda exe, threads, timeout: (seen.append(threads),
                                                                        real_run(exe, threads, timeout))[1])
    steps: list[str] = []
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, one_thread], tmp_path, repeat=1,
                            threads=2, timeout=60, callgrind=False, reference="gcc", progress=steps.append)
    assert steps == ["build gcc", "run gcc 1/1", "run gcc-1t 1/1"]
    assert seen == [2, 1]
    assert result.outcome("gcc-1t").compile_seconds is None and result.outcome("gcc-1t").usable
    assert report.ratio_pairs([_compiler("gcc"), _compiler("pencilcc-1t")]) == [("gcc", "pencilcc-1t")]
