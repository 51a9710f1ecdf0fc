# SPDX-License-Identifier: MIT
"""The benchmark script's logic, without compilers or timings.

Checks that every dataset only sets macros the kernel programs declare (a
typo would leave a kernel at its default size), that ``--kernels`` parses,
that checksums parse and compare as documented (including a mismatch that
must be caught), the median and ratio arithmetic, the flop counts and the
peak formula, and the OpenCL column: opt-in, its profile parsed, its ratio
kept out of the CPU geomeans, n/a without a platform, and (where PoCL or a
device is there) its cold, timed and profiled runs.  Nothing here is timed.
"""

from __future__ import annotations

import json
import importlib.util
import os
from dataclasses import replace
import re
import shutil
import sys
import time
from pathlib import Path

import pytest

from test_suite.bench import __main__ as bench_main
from test_suite.bench import blas, charts, checksums, datasets, flops, machine, measure, opencl, report, roofline, rusage, tuned
from test_suite.bench import compilers as compilers_mod
from test_suite.bench.checksums import ArrayChecksum
from test_suite.bench.compilers import Compiler
from test_suite.bench.machine import Machine
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
    # Matrix-vector kernels and stencils: two multiply-adds per matrix element; heat-3d's
    # 2.0 * A[i][j][k], written three times, counted once (13 per point).
    assert flops.kernel_flops("atax", {"M": 10, "N": 7}) == 4 * 10 * 7
    assert flops.kernel_flops("gemver", {"N": 3}) == 10 * 9 + 3
    assert flops.kernel_flops("heat-3d", {"TSTEPS": 2, "N": 4}) == 2 * 2 * 13 * 8
    assert flops.kernel_flops("trisolv", {"N": 4}) == 4 * 3 + 4
    assert flops.kernel_flops("lu", {"N": 10}) is None
    assert flops.BLAS_LIKE == {"gemm", "2mm", "3mm", "syrk", "syr2k", "symm", "trmm", "doitgen"}
    assert flops.BLAS_LIKE <= set(flops.FLOP_COUNTS)
    # Every kernel with a flop count has a byte count, and the other way round.
    assert set(flops.FLOP_COUNTS) == set(flops.ELEMENT_COUNTS)
    for name in flops.FLOP_COUNTS:
        kernel = datasets.select_kernels(name)[0]
        # Every macro a count reads is one the program declares.
        assert flops.kernel_flops(name, kernel.size_values("large")) > 0
        assert flops.kernel_bytes(name, kernel.size_values("large")) > 0


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
    monkeypatch.setattr(measure, "run", lambda exe, threads, timeout, **kw: (seen.append(threads),
                                                                              real_run(exe, threads, timeout))[1])
    steps: list[str] = []
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, one_thread], tmp_path, repeat=1,
                            threads=2, timeout=60, callgrind=False, reference="gcc", progress=steps.append)
    assert steps == ["build gcc", "run gcc 1/1", "run gcc-1t 1/1"]
    assert seen == [2, 1]
    assert result.outcome("gcc-1t").compile_seconds is None and result.outcome("gcc-1t").usable
    assert report.ratio_pairs([_compiler("gcc"), _compiler("pencilcc-1t")]) == [("gcc", "pencilcc-1t")]



@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_configuration_runs_with_its_own_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pencilcc-cold runs pencilcc's build without the warm start: PENCILCC_THREAD_WARM_MS=0 in its runs only.
    gcc = Compiler("gcc", ("gcc", "-O1"))
    cold = Compiler("gcc-cold", ("gcc", "-O1"), runs_build_of="gcc", run_env=(("PENCILCC_THREAD_WARM_MS", "0"),))
    seen: list[dict] = []
    real_run = measure.run
    monkeypatch.setattr(measure, "run", lambda exe, threads, timeout, **kw: (seen.append(kw.get("extra_env")),
                                                                              real_run(exe, threads, timeout, **kw))[1])
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, cold], tmp_path, repeat=1,
                            threads=2, timeout=60, callgrind=False, reference="gcc", progress=lambda _: None)
    assert seen == [{}, {"PENCILCC_THREAD_WARM_MS": "0"}]
    assert result.outcome("gcc-cold").usable
    assert compilers_mod.COLD in compilers_mod.COMPILER_NAMES and compilers_mod.COLD not in compilers_mod.DEFAULT_COMPILERS
    for name in (*compilers_mod.STARTED, compilers_mod.BOUND):
        assert name in compilers_mod.COMPILER_NAMES and name not in compilers_mod.DEFAULT_COMPILERS


PROFILE = """\
pencilcc-bench-seconds: 0.05
pencilcc profile: device Portable Computing Language / pthread-cpu
pencilcc profile: kernel k0: 100 launches, 43.010 ms
pencilcc profile: kernel k1: 100 launches, 43.244 ms
pencilcc profile: host-to-device: 2 transfers, 6760000 bytes, 5.156 ms
pencilcc profile: device-to-host: 2 transfers, 6760000 bytes, 0.557 ms
pencilcc profile: programs: 0 built, 1 loaded from disk cache
pencilcc profile: buffers: 2 allocated, 398 reused
"""


def test_parse_opencl_profile() -> None:
    profile = opencl.parse_profile(PROFILE)
    assert profile.device == "Portable Computing Language / pthread-cpu"
    assert profile.kernels == (opencl.KernelProfile("k0", 100, 43.01), opencl.KernelProfile("k1", 100, 43.244))
    assert profile.launches == 200
    assert profile.host_to_device == opencl.Transfers(2, 6760000, 5.156)
    assert profile.device_to_host == opencl.Transfers(2, 6760000, 0.557)
    assert (profile.programs_built, profile.programs_loaded) == (0, 1)
    assert (profile.buffers_allocated, profile.buffers_reused) == (2, 398)
    # A profile without its programs line, or with a line of an unknown kind, is refused.
    with pytest.raises(ValueError, match="programs"):
        opencl.parse_profile("\n".join(line for line in PROFILE.splitlines() if "programs:" not in line))
    with pytest.raises(ValueError, match="unknown profile line"):
        opencl.parse_profile(PROFILE + "pencilcc profile: something new\n")
    with pytest.raises(ValueError, match="device"):
        opencl.parse_profile("pencilcc-bench-seconds: 0.05\n")


def test_runtime_messages_are_problems() -> None:
    assert opencl.runtime_problems(PROFILE) == []
    line = "pencilcc: no OpenCL platform (clGetPlatformIDs: error -1001); OpenCL regions run on the CPU"
    assert opencl.runtime_problems(f"pencilcc-bench-seconds: 1\n{line}\n") == [line]
    env = opencl.run_env(Path("/c"), 2, profile=False)
    assert env["PENCILCC_CACHE_DIR"] == "/c" and env["POCL_CACHE_DIR"] == "/c/pocl"
    assert env["CUDA_CACHE_PATH"] == "/c/nv"   # NVIDIA's kernel cache: the cold run stays cold
    assert env["PENCILCC_PROFILE"] == "0" and opencl.run_env(Path("/c"), 2, profile=True)["PENCILCC_PROFILE"] == "1"


def test_opencl_is_opt_in_and_not_under_callgrind(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert opencl.NAME in compilers_mod.COMPILER_NAMES
    assert opencl.NAME not in compilers_mod.DEFAULT_COMPILERS
    assert bench_main.parse_args([]).compiler_names == list(compilers_mod.DEFAULT_COMPILERS)
    assert bench_main.parse_args(["--compilers", f"gcc,{opencl.NAME}"]).compiler_names == ["gcc", opencl.NAME]
    monkeypatch.setattr(bench_main.shutil, "which", lambda name: f"/usr/bin/{name}")
    with pytest.raises(SystemExit):
        bench_main.parse_args(["--callgrind", "--compilers", f"gcc,{opencl.NAME}"])
    assert "--callgrind cannot count pencilcc-opencl" in capsys.readouterr().err


class _NoPlatform:
    """A stand-in for pyopencl on a machine whose ICD loader finds no platform."""

    @staticmethod
    def get_platforms() -> list[object]:
        raise RuntimeError("clGetPlatformIDs failed: PLATFORM_NOT_FOUND_KHR")


def test_no_opencl_platform_makes_the_column_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyopencl", _NoPlatform)
    assert opencl.platform_problem().startswith("no OpenCL platform (pyopencl.get_platforms(): ")
    monkeypatch.setattr(compilers_mod, "_pencilcc_command", lambda: ("pencilcc",))
    monkeypatch.setattr(compilers_mod, "_first_line", lambda command: "pencilcc 0.1.0")
    [compiler] = compilers_mod.detect([opencl.NAME], "native", tmp_path)
    assert compiler.opencl and opencl.TARGET_FLAG in compiler.command
    assert compiler.unavailable.startswith("no OpenCL platform")
    # Its outcome is n/a, and the OpenCL table is left out.
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [compiler], tmp_path, repeat=1, threads=1,
                            timeout=60, callgrind=False, reference="gcc")
    assert result.outcome(opencl.NAME).error.startswith("n/a: no OpenCL platform")
    assert report.format_opencl([result], [compiler]) == ""


def test_opencl_ratio_is_shown_but_kept_apart() -> None:
    compilers = [_compiler("gcc"), _compiler("pencilcc"), Compiler(opencl.NAME, (opencl.NAME,), opencl=True)]
    pairs = report.ratio_pairs(compilers)
    assert pairs == [("gcc", "pencilcc"), ("gcc", opencl.NAME)]
    assert [report.cpu_pair(compilers, p) for p in pairs] == [True, False]
    profile = opencl.parse_profile(PROFILE)
    outcomes = (Outcome("gcc", 0.1, (2.0,)), Outcome("pencilcc", 1.0, (1.0,)),
                Outcome(opencl.NAME, 1.0, (4.0,), cold_seconds=5.0, profile=profile))
    result = KernelResult("jacobi-2d", (), outcomes, "gcc")
    text = report.format_results([result], compilers, callgrind=False)
    assert f"gcc/{opencl.NAME}" in text and "0.50" in text and "no CPU figure" in text
    machine = Machine("cpu", 2, 1.0, "Linux")
    document = report.to_json([result], compilers, machine, {"start": (0, 0, 0), "end": (0, 0, 0)}, {})
    assert document["geomean"] == {"gcc/pencilcc": 2.0}
    assert document["geomean_opencl"] == {f"gcc/{opencl.NAME}": 0.5}
    [opencl_outcome] = [o for o in document["results"][0]["outcomes"] if o["compiler"] == opencl.NAME]
    assert opencl_outcome["cold_seconds"] == 5.0
    assert opencl_outcome["profile"]["kernels"][0] == {"name": "k0", "launches": 100, "milliseconds": 43.01}
    assert "profile" not in document["results"][0]["outcomes"][0]
    table = report.format_opencl([result], compilers)
    row = next(line for line in table.splitlines() if line.startswith("jacobi-2d"))
    assert row.split() == ["jacobi-2d", opencl.NAME, "5", "4", "2", "200", "86.3", "2", "6.76", "5.16",
                           "2", "6.76", "0.557", "0/1", "2/398"]
    assert "device: Portable Computing Language / pthread-cpu" in table


def _opencl_compiler(tmp_path: Path) -> Compiler:
    """The real ``pencilcc-opencl`` configuration, or a skip when pencilcc or an OpenCL platform is missing."""
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    [compiler] = compilers_mod.detect([opencl.NAME], "native", tmp_path / "probe")
    if not compiler.available:
        pytest.skip(f"{opencl.NAME}: {compiler.unavailable}")
    try:
        import pyopencl  # noqa: F401
    except ImportError:
        pytest.skip("needs pyopencl to know that an OpenCL platform exists")
    return compiler


def test_opencl_column_cold_warm_and_profiled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compiler = _opencl_compiler(tmp_path)
    steps: list[str] = []
    gcc = Compiler("gcc", ("gcc", "-O1"))
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, compiler], tmp_path / "build",
                            repeat=2, threads=1, timeout=120, callgrind=False, reference="gcc",
                            progress=steps.append)
    assert steps == ["build gcc", f"build {opencl.NAME}", f"run {opencl.NAME} cold", "run gcc 1/2",
                     f"run {opencl.NAME} 1/2", "run gcc 2/2", f"run {opencl.NAME} 2/2", f"run {opencl.NAME} profiled"]
    outcome = result.outcome(opencl.NAME)
    assert outcome.usable, outcome.error or outcome.mismatches
    assert len(outcome.values) == 2 and outcome.cold_seconds is not None
    # The cold run built the program into the build's own cache; the profiled run loaded it from there.
    profile = outcome.profile
    assert profile is not None and profile.launches >= 1
    assert (profile.programs_built, profile.programs_loaded) == (0, 1)
    executable = tmp_path / "build" / f"gemm.{opencl.NAME}"
    assert list((executable.with_name(executable.name + ".cache") / "opencl").glob("*"))
    # Without a platform the runtime runs the regions on the CPU, and says so: a failed run for this column.
    vendors = tmp_path / "no-vendors"
    vendors.mkdir()
    monkeypatch.setenv("OCL_ICD_VENDORS", str(vendors))
    hidden = measure.run(executable, 1, 120, opencl_env=opencl.run_env(tmp_path / "cache", 1, profile=False))
    assert hidden.value is None and "ran regions on the CPU" in hidden.error


def test_clustered_builds_are_opt_in_and_pass_their_heuristic(tmp_path: Path) -> None:
    for name, heuristic in compilers_mod.CLUSTERED.items():
        assert name in compilers_mod.COMPILER_NAMES and name not in compilers_mod.DEFAULT_COMPILERS
        compiler = next(c for c in compilers_mod.detect([name], "x86-64", tmp_path) if c.name == name)
        assert f"-fpencil-cluster={heuristic}" in compiler.command
    assert ("pencilcc", "pencilcc-bb") in report.RATIO_PAIRS


def test_variants_pairs_each_round_and_judges_the_target() -> None:
    from test_suite.bench import variants
    # A drift that slows the second half of the runs falls on both forms of a round alike.
    assert variants.paired_ratio([1.0, 1.0, 2.0, 2.0, 2.0], [1.0, 1.1, 2.0, 2.1, 2.0]) == pytest.approx(1.0)
    assert variants.paired_ratio([1.0, 1.0, 1.0], [1.2, 1.25, 1.1]) == pytest.approx(1 / 1.2)
    assert variants.paired_ratio([], []) is None
    forms = variants.kernel_forms(["gemm", "trisolv"])
    assert set(forms["gemm"]) == {"original", "3ac", "pre"} and set(forms["trisolv"]) == {"original", "3ac"}
    with pytest.raises(ValueError):
        variants.kernel_forms(["no-such-kernel"])
    kernel = forms["gemm"]["original"]
    results = {"gemm": {"original": variants.Form(kernel, seconds=[1.0, 1.0, 1.0]),
                        "3ac": variants.Form(kernel, seconds=[1.02, 1.04, 1.01]),
                        "pre": variants.Form(kernel, seconds=[1.3, 1.2, 1.25])},
               "trisolv": {"original": variants.Form(kernel, seconds=[1.0]),
                           "3ac": variants.Form(kernel, seconds=[1.0], error="checksums differ from the original's")}}
    table, summary = variants.report(results)
    assert summary["within"] == {"3ac": [1, 2], "pre": [0, 1]}
    assert "| gemm | 1 | 1.02 | 0.98 | 1.25 | 0.80 |" in table
    assert "miss: checksums differ" in table


def test_clustering_rows_with_the_isl_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    # The floor divides the unclustered seconds by isl's scheduler alone on the clustered side.
    from test_suite.bench import clustering
    results = {"none": (6, 16, 0.008, 0.0079), "scc": (2, 2, 0.002, 0.0005), "bb": (2, 2, 0.004, 0.001)}
    monkeypatch.setattr(clustering, "measure", lambda path, h, timeout: results[h])
    name, cells = clustering._row("gemm", "gemm.c", 60.0, floor=True)
    assert cells == [6, 16, "0.008", 2, 2, "0.002", "4.00", 2, 2, "0.004", "2.00", "16.00", "8.00"]
    assert len(clustering._row("gemm", "gemm.c", 60.0)[1]) == 11
    header = clustering._header(True).splitlines()
    assert header[0].count("|") - 1 == len(cells) + 1 and header[1].count("---") == len(cells) + 1


def test_memory_group_selection_and_sizes() -> None:
    picked = datasets.select_kernels("memory")
    assert [k.label for k in picked] == ["memory/lu_ssa", "memory/nw_diag", "memory/plane_fold",
                                         "memory/jacobi_1d_expanded", "memory/stencil_2d_expanded",
                                         "memory/image_pipeline"]
    assert all(datasets.is_memory_kernel(k) and k.source.is_file() and k.cflags == datasets.MEMORY_CFLAGS
               for k in picked)
    # Not in `all`, and no other group's kernel is a memory kernel.
    assert not any(datasets.is_memory_kernel(k) for k in datasets.select_kernels("all"))
    assert datasets.select_kernels("memory/nw_diag,gemm")[0].source.parent.name == "value_style"
    # The medium sizes are the programs' own -DBENCH sizes.
    bench_block = re.compile(r"^#ifdef BENCH\n((?:# define \w+ \d+\n)+)#endif$", re.MULTILINE)
    for kernel in picked:
        [block] = bench_block.findall(kernel.source.read_text())
        assert kernel.size_macros("medium") == tuple(
            "=".join(line.split()[2:]) for line in block.splitlines()), kernel.label


def test_memory_group_default_compilers(capsys: pytest.CaptureFixture[str]) -> None:
    none = compilers_mod.MEMORY_NONE
    assert none in compilers_mod.COMPILER_NAMES and none not in compilers_mod.DEFAULT_COMPILERS
    assert bench_main.parse_args(["--kernels", "memory"]).compiler_names == [
        "gcc", "clang", "polly", "pencilcc", none]
    assert bench_main.parse_args(["--kernels", "gemm,memory/lu_ssa"]).compiler_names == [
        *compilers_mod.DEFAULT_COMPILERS, none]
    assert bench_main.parse_args(["--kernels", "gemm"]).compiler_names == list(compilers_mod.DEFAULT_COMPILERS)
    assert bench_main.parse_args(["--kernels", "memory", "--compilers", "gcc,pencilcc"]).compiler_names == [
        "gcc", "pencilcc"]
    assert bench_main.main(["--list", "--kernels", "memory", "--dataset", "small"]) == 0
    listed = [line.split(maxsplit=1) for line in capsys.readouterr().out.splitlines()]
    assert ["memory/jacobi_1d_expanded", "TSTEPS=750 N=20000"] in listed and len(listed) == 6


def test_memory_none_is_pencilcc_with_the_memory_passes_off(tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compilers_mod, "_pencilcc_command", lambda: ("pencilcc",))
    monkeypatch.setattr(compilers_mod, "_first_line", lambda command: "pencilcc 0.1.0")
    full, none = compilers_mod.detect(["pencilcc", compilers_mod.MEMORY_NONE], "native", tmp_path)
    assert none.command == (*full.command, "-fpencil-memory=none")
    assert none.writes_record and not none.runs_build_of
    pairs = report.ratio_pairs([_compiler("gcc"), _compiler("pencilcc"), _compiler(compilers_mod.MEMORY_NONE)])
    assert pairs == [("gcc", "pencilcc"), ("gcc", compilers_mod.MEMORY_NONE), (compilers_mod.MEMORY_NONE, "pencilcc")]


def test_max_rss_units() -> None:
    assert rusage.max_rss_kib(2048, "linux") == 2048
    assert rusage.max_rss_kib(2048 * 1024, "darwin") == 2048
    assert rusage.max_rss_kib(2048, "freebsd13") == 2048


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_each_run_reports_its_own_peak_rss(tmp_path: Path) -> None:
    helper, problem = rusage.build_helper(tmp_path)
    assert helper is not None, problem
    env = dict(os.environ)
    touch = "import sys; b = b'x' * (int(sys.argv[1]) << 20); print(len(b))"
    # This process's own high-water mark above 300 MiB: a child executed straight from it would
    # inherit that mark (Linux keeps it across execve); one executed by the helper does not.
    ballast = b"x" * (300 << 20)
    assert len(ballast) == 300 << 20
    del ballast
    big = rusage.execute([sys.executable, "-c", touch, "200"], env, 60, helper)
    # A small child after a big one: getrusage(RUSAGE_CHILDREN) would say the big one's peak.
    small = rusage.execute([sys.executable, "-c", touch, "10"], env, 60, helper)
    assert (big.returncode, big.stdout, small.stdout) == (0, f"{200 << 20}\n", f"{10 << 20}\n")
    assert big.max_rss_kib is not None and small.max_rss_kib is not None
    assert big.max_rss_kib > 200 * 1024 and small.max_rss_kib < 60 * 1024
    assert rusage.execute([sys.executable, "-c", touch, "10"], env, 60).max_rss_kib is None  # no helper
    # The helper passes the exit status, a signal and the output on; a timeout kills the program too.
    failed = rusage.execute([sys.executable, "-c", "import sys; sys.stderr.write('no'); sys.exit(3)"], env, 60, helper)
    assert (failed.returncode, failed.stderr, failed.timed_out) == (3, "no", False)
    killed = rusage.execute([sys.executable, "-c", "import os; os.kill(os.getpid(), 9)"], env, 60, helper)
    assert killed.returncode == -9 and killed.max_rss_kib is not None
    marker = tmp_path / "late"
    slow = rusage.execute([sys.executable, "-c", f"import time; time.sleep(1); open({str(marker)!r}, 'w')"],
                          env, 0.3, helper)
    assert slow.timed_out and slow.max_rss_kib is None and slow.returncode == -9
    time.sleep(1.2)
    assert not marker.exists()


def test_peak_rss_table_and_percentages() -> None:
    none = compilers_mod.MEMORY_NONE
    compilers = [_compiler("gcc"), Compiler("clang", ("clang",), unavailable="not on PATH"),
                 _compiler("pencilcc"), _compiler(none)]
    assert report.rss_pairs(compilers) == [("pencilcc", "gcc"), (none, "gcc"), ("pencilcc", none)]
    # The peak of an outcome is the largest of its runs'; none for a failed or callgrind outcome.
    assert Outcome("gcc", 1.0, (1.0, 1.0), rss_kib=(4096, 4100)).peak_rss_kib == 4100
    assert Outcome("gcc", 1.0, (1.0,)).peak_rss_kib is None
    assert Outcome("gcc", 1.0, (1.0,), error="run failed", rss_kib=(1,)).peak_rss_kib is None
    jacobi = KernelResult("memory/jacobi_1d_expanded", ("TSTEPS=3000", "N=40000"), (
        Outcome("gcc", 0.1, (1.0,), rss_kib=(1024 * 1000,)), Outcome("clang", error="n/a: not on PATH"),
        Outcome("pencilcc", 1.0, (0.5,), rss_kib=(1024 * 100,)),
        Outcome(none, 1.0, (1.2,), rss_kib=(1024 * 1000,))), "gcc")
    pipeline = KernelResult("memory/image_pipeline", ("H=6000", "W=6000"), (
        Outcome("gcc", 0.1, (1.0,), rss_kib=(1024 * 1000,)), Outcome("clang", error="n/a: not on PATH"),
        Outcome("pencilcc", 1.0, (0.5,), rss_kib=(1024 * 400,), mismatches=("out: total",)),
        Outcome(none, 1.0, (1.2,), rss_kib=(1024 * 1000,))), "gcc")
    assert report.rss_ratio(jacobi, "pencilcc", "gcc") == pytest.approx(0.1)
    assert report.rss_ratio(pipeline, "pencilcc", "gcc") is None  # a mismatch enters no ratio
    text = report.format_memory([jacobi, pipeline], compilers)
    rows = {line.split()[0]: line.split() for line in text.splitlines()[1:]}
    assert rows["memory/jacobi_1d_expanded"][3:] == ["1000.0", "n/a", "100.0", "1000.0", "10%", "100%", "10%"]
    assert rows["memory/image_pipeline"][3:] == ["1000.0", "n/a", "400.0!", "1000.0", "-", "100%", "-"]
    assert rows["geomean"][1:] == ["10%", "100%", "10%"]
    # The speed columns compare pencilcc with its memory passes off too.
    assert f"{none}/pencilcc" in report.format_results([jacobi], compilers, callgrind=False)
    machine = Machine("cpu", 2, 1.0, "Linux")
    document = report.to_json([jacobi], compilers, machine, {"start": (0, 0, 0), "end": (0, 0, 0)}, {})
    assert document["results"][0]["rss_ratios"]["pencilcc/gcc"] == pytest.approx(0.1)
    assert document["results"][0]["outcomes"][0]["peak_rss_kib"] == 1024 * 1000
    assert document["geomean_rss"][f"pencilcc/{none}"] == pytest.approx(0.1)


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_memory_kernel_runs_report_checksums_and_rss(tmp_path: Path) -> None:
    # The memory programs' default sizes, built by gcc: their PENCILCC_BENCH output parses.
    gcc = Compiler("gcc", ("gcc", "-O1"))
    helper, problem = rusage.build_helper(tmp_path / "helper")
    assert helper is not None, problem
    for kernel in datasets.select_kernels("memory/nw_diag,memory/plane_fold,memory/jacobi_1d_expanded"):
        result = measure_kernel(kernel, (), [gcc], tmp_path, repeat=1, threads=1, timeout=60,
                                callgrind=False, reference="gcc", rss_helper=helper)
        outcome = result.outcome("gcc")
        assert outcome.usable, outcome.error
        assert outcome.peak_rss_kib and outcome.peak_rss_kib > 0
        assert len(outcome.checksums) == {"plane_fold": 4}.get(kernel.polybench_name, 1)


# --- The roofline: byte counts, bound selection, fraction, numpy's BLAS operations, charts. ---


class _Traffic:
    """Compulsory traffic of a loop nest run in Python: the elements whose initial value it reads
    (read before any write) and the elements it writes."""

    def __init__(self) -> None:
        self.read: set[tuple] = set()
        self.written: set[tuple] = set()

    def r(self, array: str, *index: int) -> None:
        if (array, index) not in self.written:
            self.read.add((array, index))

    def w(self, array: str, *index: int) -> None:
        self.written.add((array, index))

    @property
    def elements(self) -> int:
        return len(self.read) + len(self.written)


def _traffic_gemm(t: _Traffic, s: dict) -> None:
    for i in range(s["NI"]):
        for j in range(s["NJ"]):
            t.r("C", i, j), t.w("C", i, j)
        for k in range(s["NK"]):
            for j in range(s["NJ"]):
                t.r("A", i, k), t.r("B", k, j), t.r("C", i, j), t.w("C", i, j)


def _traffic_2mm(t: _Traffic, s: dict) -> None:
    for i in range(s["NI"]):
        for j in range(s["NJ"]):
            t.w("tmp", i, j)
            for k in range(s["NK"]):
                t.r("tmp", i, j), t.r("A", i, k), t.r("B", k, j), t.w("tmp", i, j)
    for i in range(s["NI"]):
        for j in range(s["NL"]):
            t.r("D", i, j), t.w("D", i, j)
            for k in range(s["NJ"]):
                t.r("D", i, j), t.r("tmp", i, k), t.r("C", k, j), t.w("D", i, j)


def _traffic_syrk(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        for j in range(i + 1):
            t.r("C", i, j), t.w("C", i, j)
        for k in range(s["M"]):
            for j in range(i + 1):
                t.r("C", i, j), t.r("A", i, k), t.r("A", j, k), t.w("C", i, j)


def _traffic_syr2k(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        for j in range(i + 1):
            t.r("C", i, j), t.w("C", i, j)
        for k in range(s["M"]):
            for j in range(i + 1):
                t.r("C", i, j), t.r("A", j, k), t.r("B", i, k), t.r("B", j, k), t.r("A", i, k)
                t.w("C", i, j)


def _traffic_symm(t: _Traffic, s: dict) -> None:
    for i in range(s["M"]):
        for j in range(s["N"]):
            for k in range(i):
                t.r("C", k, j), t.r("B", i, j), t.r("A", i, k), t.w("C", k, j)
                t.r("B", k, j), t.r("A", i, k)
            t.r("C", i, j), t.r("B", i, j), t.r("A", i, i), t.w("C", i, j)


def _traffic_trmm(t: _Traffic, s: dict) -> None:
    for i in range(s["M"]):
        for j in range(s["N"]):
            for k in range(i + 1, s["M"]):
                t.r("B", i, j), t.r("A", k, i), t.r("B", k, j), t.w("B", i, j)
            t.r("B", i, j), t.w("B", i, j)


def _traffic_doitgen(t: _Traffic, s: dict) -> None:
    for r in range(s["NR"]):
        for q in range(s["NQ"]):
            for p in range(s["NP"]):
                t.w("sum", p)
                for k in range(s["NP"]):
                    t.r("sum", p), t.r("A", r, q, k), t.r("C4", k, p), t.w("sum", p)
            for p in range(s["NP"]):
                t.r("sum", p), t.w("A", r, q, p)


def _traffic_atax(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        t.w("y", i)
    for i in range(s["M"]):
        t.w("tmp", i)
        for j in range(s["N"]):
            t.r("tmp", i), t.r("A", i, j), t.r("x", j), t.w("tmp", i)
        for j in range(s["N"]):
            t.r("y", j), t.r("A", i, j), t.r("tmp", i), t.w("y", j)


def _traffic_bicg(t: _Traffic, s: dict) -> None:
    for i in range(s["M"]):
        t.w("s", i)
    for i in range(s["N"]):
        t.w("q", i)
        for j in range(s["M"]):
            t.r("s", j), t.r("r", i), t.r("A", i, j), t.w("s", j)
            t.r("q", i), t.r("A", i, j), t.r("p", j), t.w("q", i)


def _traffic_mvt(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        for j in range(s["N"]):
            t.r("x1", i), t.r("A", i, j), t.r("y1", j), t.w("x1", i)
    for i in range(s["N"]):
        for j in range(s["N"]):
            t.r("x2", i), t.r("A", j, i), t.r("y2", j), t.w("x2", i)


def _traffic_gesummv(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        t.w("tmp", i), t.w("y", i)
        for j in range(s["N"]):
            t.r("A", i, j), t.r("x", j), t.r("tmp", i), t.w("tmp", i)
            t.r("B", i, j), t.r("x", j), t.r("y", i), t.w("y", i)
        t.r("tmp", i), t.r("y", i), t.w("y", i)


def _traffic_gemver(t: _Traffic, s: dict) -> None:
    n = s["N"]
    for i in range(n):
        for j in range(n):
            t.r("A", i, j), t.r("u1", i), t.r("v1", j), t.r("u2", i), t.r("v2", j), t.w("A", i, j)
    for i in range(n):
        for j in range(n):
            t.r("x", i), t.r("A", j, i), t.r("y", j), t.w("x", i)
    for i in range(n):
        t.r("x", i), t.r("z", i), t.w("x", i)
    for i in range(n):
        for j in range(n):
            t.r("w", i), t.r("A", i, j), t.r("x", j), t.w("w", i)


def _traffic_trisolv(t: _Traffic, s: dict) -> None:
    for i in range(s["N"]):
        t.r("b", i), t.w("x", i)
        for j in range(i):
            t.r("x", i), t.r("L", i, j), t.r("x", j), t.w("x", i)
        t.r("x", i), t.r("L", i, i), t.w("x", i)


_TRAFFIC = {
    "gemm": (_traffic_gemm, {"NI": 3, "NJ": 4, "NK": 5}),
    "2mm": (_traffic_2mm, {"NI": 3, "NJ": 4, "NK": 5, "NL": 6}),
    "syrk": (_traffic_syrk, {"N": 5, "M": 3}),
    "syr2k": (_traffic_syr2k, {"N": 5, "M": 3}),
    "symm": (_traffic_symm, {"M": 5, "N": 3}),
    "trmm": (_traffic_trmm, {"M": 5, "N": 3}),
    "doitgen": (_traffic_doitgen, {"NR": 2, "NQ": 3, "NP": 4}),
    "atax": (_traffic_atax, {"M": 4, "N": 6}),
    "bicg": (_traffic_bicg, {"M": 4, "N": 6}),
    "mvt": (_traffic_mvt, {"N": 5}),
    "gesummv": (_traffic_gesummv, {"N": 5}),
    "gemver": (_traffic_gemver, {"N": 5}),
    "trisolv": (_traffic_trisolv, {"N": 6}),
}


@pytest.mark.parametrize("name", sorted(_TRAFFIC))
def test_byte_counts_match_a_trace_of_the_loops(name: str) -> None:
    # The loops of test_suite/kernels/polybench/NAME.c, run in Python on small, distinct extents
    # (a swapped extent changes the count), recording every element's first access.
    trace, sizes = _TRAFFIC[name]
    traffic = _Traffic()
    trace(traffic, sizes)
    assert flops.kernel_bytes(name, sizes) == flops.ELEMENT_BYTES * traffic.elements


def test_byte_counts_by_hand() -> None:
    # gemm: A and B read, C read and written.
    assert flops.kernel_bytes("gemm", {"NI": 2, "NJ": 3, "NK": 4}) == 8 * (8 + 12 + 2 * 6)
    # syrk with N=3, M=2: the triangle of C (6 elements) twice, A (6) once.
    assert flops.kernel_bytes("syrk", {"N": 3, "M": 2}) == 8 * (12 + 6)
    # trmm with M=3, N=2: the strict lower triangle of A (3), B (6) twice.
    assert flops.kernel_bytes("trmm", {"M": 3, "N": 2}) == 8 * (3 + 12)
    # Stencils: the arrays once or twice, whatever the number of steps.
    assert flops.kernel_bytes("jacobi-2d", {"TSTEPS": 10, "N": 5}) == 8 * 3 * 25
    assert flops.kernel_bytes("seidel-2d", {"TSTEPS": 10, "N": 5}) == 8 * 2 * 25
    assert flops.kernel_bytes("lu", {"N": 10}) is None


def _roof(threads: int = 2, gflops: float = 100.0, gbps: float = 10.0) -> machine.Roof:
    return machine.Roof(threads, gflops * 1e9, gbps * 1e9)


def test_bound_selection() -> None:
    roof = _roof()  # balance 10 flop/byte
    assert roof.balance == pytest.approx(10.0)
    assert roofline.bound(1000, 200, roof) == roofline.Bound(roofline.BANDWIDTH, 10e9)  # 5 flop/byte
    assert roofline.bound(1000, 50, roof) == roofline.Bound(roofline.COMPUTE, 100e9)  # 20 flop/byte
    assert roofline.bound(1000, 100, roof).kind == roofline.COMPUTE  # at the ridge: the peak
    assert roofline.bound(999, 100, roof).kind == roofline.BANDWIDTH
    # No flop count: bandwidth; no byte count: no roofline.
    assert roofline.bound(None, 100, roof).kind == roofline.BANDWIDTH
    assert roofline.bound(1000, None, roof) is None
    assert roofline.bound(1000, 0, roof) is None
    assert roofline.intensity(1000, 50) == 20.0 and roofline.intensity(None, 50) is None
    # The roofline itself.
    assert roofline.attainable_flops(5.0, roof) == pytest.approx(50e9)
    assert roofline.attainable_flops(50.0, roof) == pytest.approx(100e9)


def test_attained_rate_and_fraction() -> None:
    roof = _roof()
    # Bandwidth-bound (1 flop/byte): 1 GB in 0.5 s = 2 GB/s, 20% of 10 GB/s.
    low = roofline.attained(10**9, 10**9, 0.5, roof)
    assert low is not None and low.bound.kind == roofline.BANDWIDTH and low.bound.unit == "GB/s"
    assert low.rate == pytest.approx(2e9) and low.fraction == pytest.approx(0.2)
    # Compute-bound (100 flop/byte): 100 GFLOP in 2 s = 50 GFLOP/s, half the peak.
    high = roofline.attained(100 * 10**9, 10**9, 2.0, roof)
    assert high is not None and high.bound.unit == "GFLOP/s"
    assert high.rate == pytest.approx(50e9) and high.fraction == pytest.approx(0.5)
    # Either way the fraction is flop/s over the roofline at the kernel's intensity.
    for value, flop, byte, seconds in ((low, 10**9, 10**9, 0.5), (high, 100 * 10**9, 10**9, 2.0)):
        assert value.fraction == pytest.approx(flop / seconds / roofline.attainable_flops(flop / byte, roof))
    assert roofline.attained(None, 10**9, 1.0, roof).fraction == pytest.approx(0.1)
    for missing in ((10**9, 10**9, None, roof), (10**9, 10**9, 0.0, roof), (10**9, 10**9, 1.0, None),
                    (10**9, None, 1.0, roof)):
        assert roofline.attained(*missing) is None


def test_roofs_per_thread_count_and_program_output() -> None:
    roofs = machine.Roofs((_roof(1, 50, 8), _roof(2, 100, 10)))
    assert roofs.at(2).threads == 2 and roofs.at(1).threads == 1
    assert roofs.at(4).threads == 2  # the largest count measured below it
    assert roofs.at(0) is None
    assert "1 thread: FMA peak 50.0 GFLOP/s, triad 8.0 GB/s" in roofs.describe()
    assert machine.roof_thread_counts(1) == (1,) and machine.roof_thread_counts(2) == (1, 2)
    assert machine.parse_roof_output("fma 2 9.5e+10\nnoise\ntriad 2 3.1e10\n") == {
        "fma": (2, 9.5e10), "triad": (2, 3.1e10)}
    with pytest.raises(ValueError):
        machine.parse_roof_output("fma 0 1e9\n")
    assert machine.parse_roof_output("nothing") == {}


def _roofline_result(numpy_values: tuple[float, ...] = (0.5,)) -> KernelResult:
    outcomes = (Outcome("gcc", 1.0, (2.0,)), Outcome("pencilcc", 1.0, (0.25,)), Outcome("pencilcc-1t", 1.0, (0.5,)))
    # 10 GFLOP over 1 GB: 10 flop/byte, the ridge of the 2-thread roof below, so compute-bound.
    return KernelResult("gemm", (), outcomes, "gcc", flops=10 * 10**9, bytes=10**9,
                        numpy=blas.NumpyTiming(numpy_values, "", "openblas 2 threads"))


def test_roofline_table_and_json() -> None:
    compilers = [_compiler("gcc"), _compiler("pencilcc"), Compiler("pencilcc-1t", ("pencilcc",), run_threads=1)]
    roofs = machine.Roofs((_roof(1, 50, 10), _roof(2, 100, 10)))
    result = _roofline_result()
    stream = KernelResult("mvt", (), (Outcome("gcc", 1.0, (1.0,)), Outcome("pencilcc", 1.0, (0.5,))), "gcc",
                          flops=10**9, bytes=4 * 10**9)
    other = KernelResult("lu", (), (Outcome("gcc", 1.0, (1.0,)),), "gcc")
    table = report.format_roofline([result, stream, other], compilers, roofs, threads=2)
    lines = table.splitlines()
    gemm_row = next(line for line in lines if line.startswith("gemm"))
    # gcc: 5 GFLOP/s of 100; pencilcc: 40 (40%); pencilcc-1t against the 1-thread roof (balance 5:
    # compute too) 20 of 50 (40%); numpy 20 GFLOP/s (20%), numpy/pencilcc = 0.5 / 0.25.
    assert "compute GFLOP/s" in gemm_row
    assert "5 (5%)" in gemm_row and "40 (40%)" in gemm_row and "20 (40%)" in gemm_row
    assert "20 (20%)" in gemm_row and gemm_row.endswith("2.00")
    mvt_row = next(line for line in lines if line.startswith("mvt"))
    # 0.25 flop/byte: bandwidth-bound; pencilcc 4 GB in 0.5 s = 8 GB/s, 80% of 10; no numpy.
    assert "bandwidth GB/s" in mvt_row and "8 (80%)" in mvt_row and "4 (40%)" in mvt_row
    assert not any(line.startswith("lu") for line in lines)
    assert "pencilcc-1t: against the roofs of 1 thread" in table
    assert "openblas 2 threads" in table
    assert report.numpy_ratio(result, "gcc") == pytest.approx(0.25)
    # No roofs, or no kernel with a byte count: no table.
    assert report.format_roofline([result], compilers, None, threads=2) == ""
    assert report.format_roofline([other], compilers, roofs, threads=2) == ""
    # A failed numpy run is shown, not hidden.
    failed = replace(result, numpy=blas.NumpyTiming((), "numpy run failed: boom"))
    assert "numpy FAIL gemm: numpy run failed: boom" in report.format_roofline([failed], compilers, roofs, 2)
    document = report.to_json([result, stream], compilers, Machine("cpu", 2, 1.0, "Linux"),
                              {"start": (0, 0, 0), "end": (0, 0, 0)}, {"threads": 2}, None, roofs)
    assert document["roofs"]["roofs"][1] == {"threads": 2, "flops_per_second": 100e9, "bytes_per_second": 10e9,
                                             "balance": 10.0}
    entry = document["results"][0]
    assert entry["bytes"] == 10**9 and entry["flop_per_byte"] == 10.0
    assert entry["roofline"]["pencilcc"]["fraction"] == pytest.approx(0.4)
    assert entry["roofline"]["pencilcc-1t"]["limit"] == 50e9
    assert entry["numpy"]["median"] == 0.5 and entry["numpy"]["ratios"]["numpy/pencilcc"] == pytest.approx(2.0)
    assert document["results"][1]["numpy"] is None
    assert document["results"][1]["roofline"]["pencilcc"]["bound"] == roofline.BANDWIDTH


def _reference(name: str, arrays: dict, np) -> dict:  # type: ignore[no-untyped-def]
    """The kernel's loops (test_suite/kernels/polybench/NAME.c), element by element."""
    a = {k: v.copy() for k, v in arrays.items()}
    alpha, beta = blas.ALPHA, blas.BETA
    if name == "gemm":
        C, A, B = a["C"], a["A"], a["B"]
        for i in range(C.shape[0]):
            C[i, :] *= beta
            for k in range(A.shape[1]):
                for j in range(C.shape[1]):
                    C[i, j] += alpha * A[i, k] * B[k, j]
        return {"C": C}
    if name in ("syrk", "syr2k"):
        C, A = a["C"], a["A"]
        B = a.get("B")
        for i in range(C.shape[0]):
            for j in range(i + 1):
                C[i, j] *= beta
            for k in range(A.shape[1]):
                for j in range(i + 1):
                    if B is None:
                        C[i, j] += alpha * A[i, k] * A[j, k]
                    else:
                        C[i, j] += A[j, k] * alpha * B[i, k] + B[j, k] * alpha * A[i, k]
        return {"C": C}
    if name == "symm":
        C, A, B = a["C"], a["A"], a["B"]
        for i in range(C.shape[0]):
            for j in range(C.shape[1]):
                acc = 0.0
                for k in range(i):
                    C[k, j] += alpha * B[i, j] * A[i, k]
                    acc += B[k, j] * A[i, k]
                C[i, j] = beta * C[i, j] + alpha * B[i, j] * A[i, i] + alpha * acc
        return {"C": C}
    if name == "trmm":
        A, B = a["A"], a["B"]
        m, n = B.shape
        for i in range(m):
            for j in range(n):
                for k in range(i + 1, m):
                    B[i, j] += A[k, i] * B[k, j]
                B[i, j] = alpha * B[i, j]
        return {"B": B}
    assert name == "gemver"
    A, x, w = a["A"], a["x"], a["w"]
    n = A.shape[0]
    for i in range(n):
        for j in range(n):
            A[i, j] = A[i, j] + a["u1"][i] * a["v1"][j] + a["u2"][i] * a["v2"][j]
    for i in range(n):
        for j in range(n):
            x[i] = x[i] + beta * A[j, i] * a["y"][j]
    for i in range(n):
        x[i] = x[i] + a["z"][i]
    for i in range(n):
        for j in range(n):
            w[i] = w[i] + alpha * A[i, j] * x[j]
    return {"A": A, "x": x, "w": w}


_BLAS_SIZES = {"gemm": {"NI": 4, "NJ": 5, "NK": 6}, "syrk": {"N": 5, "M": 3}, "syr2k": {"N": 5, "M": 3},
               "symm": {"M": 5, "N": 3}, "trmm": {"M": 5, "N": 3}, "gemver": {"N": 6}}


@pytest.mark.parametrize("name", blas.BLAS_KERNELS)
def test_numpy_operations_compute_the_kernels(name: str) -> None:
    # numpy's calls must compute what the kernel computes, or the column compares different work.
    import numpy as np

    assert set(_BLAS_SIZES) == set(blas.BLAS_KERNELS)
    inputs, call = blas.operation(name, _BLAS_SIZES[name], np, np.random.default_rng(7))
    expected = _reference(name, inputs, np)
    got = call(**{k: v.copy() for k, v in inputs.items()})
    assert set(got) == set(blas.UPDATED[name])
    for array, value in expected.items():
        np.testing.assert_allclose(got[array], value, rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="not a BLAS operation"):
        blas.operation("lu", {"N": 3}, np, np.random.default_rng(7))


def test_numpy_timing_subprocess_and_threads() -> None:
    # The subprocess path at a tiny size (what the bench runs); its environment sets the BLAS threads.
    assert blas.thread_env(3)["OPENBLAS_NUM_THREADS"] == "3"
    timing = blas.time_numpy("gemm", {"NI": 8, "NJ": 9, "NK": 10}, threads=1, repeat=3, timeout=120)
    assert timing.error == "" and len(timing.values) == 3 and timing.median is not None
    assert blas.time_numpy("gemm", {"NI": 8}, threads=1, repeat=1, timeout=120).error.startswith("numpy run failed")
    assert blas.NumpyTiming((3.0, 1.0, 2.0, 4.0)).median == 2.5
    assert blas.NumpyTiming((1.0,), "boom").median is None


def test_chart_data_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    compilers = [_compiler("gcc"), _compiler("pencilcc"), Compiler("pencilcc-1t", ("pencilcc",), run_threads=1)]
    result = _roofline_result()
    points = charts.roofline_points([result], compilers)
    assert points["pencilcc"] == [("gemm", 10.0, pytest.approx(40.0))]
    assert points["numpy"] == [("gemm", 10.0, pytest.approx(20.0))]
    series = charts.speedup_series([result], compilers)
    assert series == {"gcc/pencilcc": [8.0], "numpy/pencilcc": [2.0]}
    roofs = machine.Roofs((_roof(1, 50, 10), _roof(2, 100, 10)))
    # Without matplotlib: ChartsUnavailable (the bench prints a note and goes on).
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(charts.ChartsUnavailable, match="matplotlib"):
        charts.write_charts([result], compilers, roofs, tmp_path)
    monkeypatch.delitem(sys.modules, "matplotlib")
    pytest.importorskip("matplotlib")
    written = charts.write_charts([result], compilers, roofs, tmp_path / "charts")
    assert [p.name for p in written] == [charts.ROOFLINE_FILE, charts.SPEEDUP_FILE]
    for path in written:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_roofline_options() -> None:
    args = bench_main.parse_args(["--kernels", "gemm", "--no-roofline", "--charts", "out"])
    assert args.no_roofline and args.charts == Path("out")
    assert not bench_main.parse_args(["--kernels", "gemm"]).no_roofline


# ----------------------------------------------------------------- pencilcc-opencl-tuned


def test_tuned_opencl_is_opt_in_with_a_budget(capsys: pytest.CaptureFixture[str]) -> None:
    assert opencl.TUNED_NAME in compilers_mod.COMPILER_NAMES
    assert opencl.TUNED_NAME not in compilers_mod.DEFAULT_COMPILERS
    args = bench_main.parse_args(["--compilers", f"gcc,{opencl.NAME},{opencl.TUNED_NAME}"])
    assert args.compiler_names == ["gcc", opencl.NAME, opencl.TUNED_NAME] and args.tune_budget == 20
    assert bench_main.parse_args(["--compilers", opencl.TUNED_NAME, "--tune-budget", "5"]).tune_budget == 5
    for bad in (["--tune-budget", "21"], ["--tune-budget", "0"], ["--callgrind"]):
        with pytest.raises(SystemExit):
            bench_main.parse_args(["--compilers", f"gcc,{opencl.TUNED_NAME}", *bad])
    err = capsys.readouterr().err
    assert "--tune-budget expects 1 to 20, got 21" in err and f"--callgrind cannot count {opencl.TUNED_NAME}" in err


def _tuned_compiler() -> Compiler:
    return Compiler(opencl.TUNED_NAME, (opencl.TUNED_NAME,), opencl=True, tune_command=("pencilcc-tune",),
                    tune_budget=20)


def test_tuned_column_ratio_table_and_json() -> None:
    compilers = [_compiler("gcc"), Compiler(opencl.NAME, (opencl.NAME,), opencl=True), _tuned_compiler()]
    pairs = report.ratio_pairs(compilers)
    assert pairs == [("gcc", opencl.NAME), ("gcc", opencl.TUNED_NAME), (opencl.NAME, opencl.TUNED_NAME)]
    assert not any(report.cpu_pair(compilers, p) for p in pairs)
    tuning = tuned.Tuning((tuned.RegionChoice("kernel_gemm#0", ((0, (8, 32)),), 14, 0.4, 0.5),
                           tuned.RegionChoice("kernel_gemm#1", (), 6, 0.2, 0.2)), 91.5, ("tuned", "model"))
    outcomes = (Outcome("gcc", 0.1, (1.0,)), Outcome(opencl.NAME, 1.0, (3.0,)),
                Outcome(opencl.TUNED_NAME, 1.0, (2.0,), tuning=tuning))
    result = KernelResult("gemm", ("NI=8",), outcomes, "gcc")
    assert report.ratio(result, opencl.NAME, opencl.TUNED_NAME) == 1.5
    text = report.format_results([result], compilers, callgrind=False)
    assert f"{opencl.NAME}/{opencl.TUNED_NAME}" in text and "1.50" in text
    table = report.format_tuning([result], compilers)
    row = next(line for line in table.splitlines() if line.startswith("gemm"))
    assert row.split() == ["gemm", opencl.TUNED_NAME, "20", "kernel_gemm#0:", "0=8x32;", "kernel_gemm#1:",
                           "default", "tuned,model", "91.5", "1.50"]
    assert "at most 20 evaluations per region" in table
    document = report.to_json([result], compilers, Machine("cpu", 2, 1.0, "Linux"),
                              {"start": (0, 0, 0), "end": (0, 0, 0)}, {})
    outcome = document["results"][0]["outcomes"][2]
    assert outcome["tuning"]["evaluations"] == 20 and outcome["tuning"]["tile_sizes_from"] == ["tuned", "model"]
    assert outcome["tuning"]["regions"][0] == {"label": "kernel_gemm#0", "bands": {"0": [8, 32]}, "direct_bands": {},
                                               "evaluations": 14, "seconds": 0.4, "default_seconds": 0.5}
    assert outcome["cold_seconds"] is None and "tuning" not in document["results"][0]["outcomes"][1]
    assert document["geomean_opencl"][f"{opencl.NAME}/{opencl.TUNED_NAME}"] == 1.5
    assert document["compilers"][2]["tune_budget"] == 20 and "tune_budget" not in document["compilers"][1]
    assert report.format_tuning([result], compilers[:2]) == ""


def test_tuned_reads_the_tuners_cache_and_the_records_sources(tmp_path: Path) -> None:
    folder = tmp_path / "gemm.t.tuning"
    (folder / "tuned").mkdir(parents=True)
    (folder / "tuned" / "opencl-0123.json").write_text(json.dumps({"format": 1, "regions": {
        "abc:kernel_gemm#0": {"label": "kernel_gemm#0", "bands": {"1": [4, 64], "0": [16, 8]}, "evaluations": 9,
                              "seconds": 0.3, "model_seconds": 0.4},
        "abc:kernel_a": {"label": "kernel_a", "bands": {}, "evaluations": 11, "seconds": 1.0,
                         "model_seconds": 1.0}}}))
    # The cpu mapping's file (PoCL): a tiled kernel's direct variant, an untiled kernel's band.
    (folder / "tuned" / "opencl-0123-cpu.json").write_text(json.dumps({"format": 1, "mapping": "cpu", "regions": {
        "abc:kernel_b": {"label": "kernel_b", "bands": {"1": [64]}, "direct_bands": {"0": [1, 256]},
                         "evaluations": 5}}}))
    (folder / "tuned" / "cpu-0123.json").write_text(json.dumps({"format": 1, "regions": {
        "abc:x": {"label": "x", "bands": {"0": [1, 1]}, "evaluations": 3}}}))
    choices = tuned.read_choices(folder)
    assert [c.text() for c in choices] == ["kernel_a: default", "kernel_b: 1=64 direct:0=1x256",
                                           "kernel_gemm#0: 0=16x8 1=4x64"]
    assert tuned.Tuning(choices).evaluations == 25
    assert tuned.cache_folder(tmp_path / "gemm.t") == folder
    assert tuned.build_env(tmp_path / "gemm.t") == {"PENCILCC_CACHE_DIR": str(folder)}
    record = tmp_path / "r.json"
    record.write_text(json.dumps({"regions": [
        {"status": "optimized", "tile_sizes_from": "", "mapping": {"tile_sizes_from": "tuned"}},
        {"status": "fallback"}, {"status": "optimized", "tile_sizes_from": "model"},
        {"status": "optimized", "mapping": {"tile_sizes_from": "model", "direct_tile_sizes_from": "tuned"}},
        {"status": "optimized", "mapping": {"tile_sizes_from": "flag", "direct_tile_sizes_from": "tuned"}},
        {"status": "optimized", "mapping": {"tile_sizes_from": "model", "direct_tile_sizes_from": "model"}}]}))
    assert tuned.record_sources(record) == ("tuned", "model", "tuned", "mixed", "model")
    assert tuned.record_sources(tmp_path / "missing.json") == ()


def _bench_document(times: dict[str, dict[str, object]]) -> dict:
    """A bench --json document: per kernel, per compiler a median (None: failed, 'mismatch')."""
    results = []
    for kernel, by_compiler in times.items():
        outcomes = []
        for compiler, value in by_compiler.items():
            outcomes.append({"compiler": compiler, "median": value if isinstance(value, float) else None,
                             "error": "" if value is not None else "build failed",
                             "mismatches": ["x differs"] if value == "mismatch" else []})
        results.append({"kernel": kernel, "size": ["N=8"], "outcomes": outcomes})
    return {"settings": {}, "results": results}


def test_compare_two_runs_normalised_by_gcc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from test_suite.bench import compare
    name = opencl.NAME
    old = _bench_document({"gemm": {"gcc": 1.0, name: 2.0}, "jacobi-2d": {"gcc": 1.0, name: 1.0},
                           "atax": {"gcc": 1.0, name: 1.0}, "mvt": {"gcc": 1.0, name: 1.0}})
    new = _bench_document({"gemm": {"gcc": 0.5, name: 1.5}, "jacobi-2d": {"gcc": 1.0, name: 0.5},
                           "atax": {"gcc": 1.0, name: "mismatch"}, "bicg": {"gcc": 1.0, name: 1.0},
                           "mvt": {"gcc": None, name: 1.0}})
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    rows = compare.compare(old, new, name, "gcc")
    assert [r.kernel for r in rows] == ["gemm", "jacobi-2d", "atax", "mvt"]      # bicg: not in the old run
    # gemm: 2.0 of gcc's time before, 3.0 after: 1.5x slower although its own time fell.
    assert rows[0].old_normalised == 2.0 and rows[0].new_normalised == 3.0 and rows[0].change == 1.5
    assert rows[1].change == 0.5 and rows[2].change is None and rows[3].change is None
    assert compare.main([str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--compiler", name]) == 0
    out = capsys.readouterr().out
    gemm = next(line for line in out.splitlines() if line.startswith("gemm"))
    assert gemm.split() == ["gemm", "N=8", "2", "1", "1.5", "0.5", "2.000", "3.000", "1.500"]
    geomean = next(line for line in out.splitlines() if line.startswith("geomean"))
    assert geomean.split() == ["geomean", f"{(1.5 * 0.5) ** 0.5:.3f}"]
    assert "geomean over 2 of 4 kernels" in out and "left out (no usable time in a run): atax, mvt" in out
    # --limit: 0.866 passes 1.0, fails 0.8; pencilcc (absent) has nothing to compare.
    assert compare.main([str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--compiler", name,
                         "--limit", "1.0"]) == 0
    assert compare.main([str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--compiler", name,
                         "--limit", "0.8"]) == 1
    assert compare.main([str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--limit", "1"]) == 1
    (tmp_path / "bad.json").write_text("{")
    assert compare.main([str(tmp_path / "bad.json"), str(tmp_path / "new.json")]) == 2
    assert compare.main([str(tmp_path / "nosuch.json"), str(tmp_path / "new.json")]) == 2
    err = capsys.readouterr().err
    assert "compare: error: " in err and "is not JSON" in err and "cannot read" in err


def test_tuned_opencl_column_tunes_then_builds(tmp_path: Path) -> None:
    compiler = _opencl_compiler(tmp_path)
    [tuned_compiler] = compilers_mod.detect([opencl.TUNED_NAME], "native", tmp_path / "probe", tune_budget=2)
    assert tuned_compiler.available and tuned_compiler.tune_budget == 2 and tuned_compiler.tune_command
    steps: list[str] = []
    gcc = Compiler("gcc", ("gcc", "-O1"))
    result = measure_kernel(datasets.select_kernels("gemm")[0], (), [gcc, compiler, tuned_compiler],
                            tmp_path / "build", repeat=1, threads=1, timeout=120, callgrind=False,
                            reference="gcc", progress=steps.append)
    assert steps[:3] == ["build gcc", f"build {opencl.NAME}", f"tune {opencl.TUNED_NAME}"]
    assert f"run {opencl.TUNED_NAME} cold" in steps and f"run {opencl.TUNED_NAME} profiled" in steps
    outcome = result.outcome(opencl.TUNED_NAME)
    assert outcome.usable, outcome.error or outcome.mismatches
    tuning = outcome.tuning
    assert tuning is not None and not tuning.error and tuning.seconds > 0
    [region] = tuning.regions
    assert region.label == "kernel_gemm#0" and 1 <= region.evaluations <= 2
    # The build used what the tuner cached: tuned sizes, or the default where it kept it.
    assert tuning.tile_sizes_from == (("tuned",) if region.bands or region.direct else ("model",))
    executable = tmp_path / "build" / f"gemm.{opencl.TUNED_NAME}"
    assert list((tuned.cache_folder(executable) / "tuned").glob("opencl-*.json"))
    if not region.bands and not region.direct:
        # The default kept: the tuned build is the untuned one, byte for byte.
        untuned = tmp_path / "build" / f"gemm.{opencl.NAME}"
        assert executable.read_bytes() == untuned.read_bytes()
    assert report.ratio(result, opencl.NAME, opencl.TUNED_NAME) is not None
def test_byte_compile_writes_the_bytecode_python_would_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Under PYTHONDONTWRITEBYTECODE=1 an import leaves no __pycache__: byte_compile writes it all.
    import importlib.util

    package = tmp_path / "bench_pkg_probe"
    (package / "sub").mkdir(parents=True)
    modules = [package / "__init__.py", package / "a.py", package / "sub" / "__init__.py", package / "sub" / "b.py"]
    for module in modules:
        module.write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    compilers_mod.byte_compile(("bench_pkg_probe", "no_such_package_here"))
    for module in modules:
        assert Path(importlib.util.cache_from_source(str(module))).is_file(), module


def test_keep_dataclass_code_writes_the_file_pencilcc_reads() -> None:
    # Under PYTHONDONTWRITEBYTECODE=1 pencilcc never writes it: the bench does, once.
    from clangpass import dataclass_code

    assert compilers_mod.keep_dataclass_code()
    assert Path(dataclass_code.default_path()).read_bytes().startswith(dataclass_code.MAGIC_NUMBER)


def test_pencilcc_packages_hold_every_target() -> None:
    # Every target's Python package is byte-compiled with the driver's.
    from clangpass import targets

    roots = [Path(importlib.util.find_spec(p).submodule_search_locations[0]).resolve()
             for p in compilers_mod.PENCILCC_PACKAGES]
    for root in (r for r in targets.code_roots() if (r / "__init__.py").is_file()):    # Python, not C
        assert any(root == r or r in root.parents for r in roots), root


def test_started_builds_skip_the_start_test_unpinned_pinned_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compilers_mod, "_pencilcc_command", lambda: ("pencilcc",))
    monkeypatch.setattr(compilers_mod, "_first_line", lambda command: "pencilcc 0.1.0")
    full, started, pinned, bound, shared = compilers_mod.detect(["pencilcc", *compilers_mod.STARTED,
                                                                 compilers_mod.BOUND], "native", tmp_path)
    assert started.command == bound.command == (*full.command, "-fpencil-thread-start-work=0")
    assert pinned.command == (*full.command, "-fpencil-thread-start-work=0", "-fpencil-thread-pin")
    assert not started.runs_build_of and not pinned.runs_build_of and not bound.runs_build_of
    assert started.run_env == pinned.run_env == () and bound.run_env == (("OMP_PROC_BIND", "true"),)
    assert shared.runs_build_of == "pencilcc" and shared.run_env == (("OMP_PROC_BIND", "true"),)
