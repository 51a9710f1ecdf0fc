# SPDX-License-Identifier: MIT
"""pencilcc-tune (clangpass.driver.tune) and the tuning cache (clangpass.tuning): with a tiny
budget the tuner builds and runs gemm, caches sizes for this machine's device, and the next
plain build uses them (`tile_sizes_from`: tuned) and still prints what gcc -O0's build prints.
Which sizes win is not checked (timings on a shared machine decide it): only that the choice
is one the search tried and that the compiler uses it."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass import tuning
from clangpass.driver import tune as tune_mod
from clangpass.driver.tune import DirectFit, better, direct_seeds, direct_start, plausible, search
from clangpass.tile_spec import DIRECT, TileSizeRule
from test_suite.e2e import harness

GEMM = harness.POLYBENCH_DIR / "gemm.c"
TUNE = [sys.executable, "-m", "clangpass.driver.tune"]


def _env(tmp_path: Path) -> dict:
    return {**os.environ, "PENCILCC_CACHE_DIR": str(tmp_path / "cache")}


def _tune(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*TUNE, *args], cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True,
                          timeout=900)


def _entries(tmp_path: Path, target: str) -> dict:
    files = list((tmp_path / "cache" / "tuned").glob(f"{target}-*.json"))
    assert len(files) == 1, files
    doc = json.loads(files[0].read_text())
    assert doc["target"] == target and doc["device"] == tuning.device_name(target)
    return doc["regions"]


def _record(tmp_path: Path, name: str, flags: list[str]) -> dict:
    record = tmp_path / f"{name}.json"
    subprocess.run([sys.executable, "-m", "clangpass", "-O3", *harness.KERNEL_CFLAGS, *flags, "gemm.c", "-o", name,
                    f"-foptimization-record-file={record}", "-lm"], cwd=tmp_path, env=_env(tmp_path), check=True,
                   capture_output=True, text=True)
    return json.loads(record.read_text())["regions"][0]


def test_cache_round_trip_and_file_identity(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path))
    source = b"void f(void) {}\n"
    assert tuning.tuned_rules(source, "cpu") == ()
    tuning.store("cpu", tuning.cpu_name(), source, "f#1", {"bands": {0: (8, 16), 2: (4,)}, "seconds": 1.0})
    tuning.store("cpu", "another CPU", source, "f#1", {"bands": {0: (2, 2)}})
    assert tuning.tuned_rules(source, "cpu") == (TileSizeRule("f#1", 0, (8, 16)), TileSizeRule("f#1", 2, (4,)))
    assert tuning.tuned_rules(source + b" ", "cpu") == ()       # an edited file is another region
    assert tuning.tuned_rules(source, "opencl") == ()


def test_cache_keeps_the_mappings_apart(tmp_path, monkeypatch) -> None:
    """On the OpenCL target the cache is per device and mapping: the `cpu` mapping's choices (a
    tiled kernel's direct variant: `direct_bands`) never size the `gpu` mapping's kernels."""
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PENCILCC_OPENCL_MAPPING", raising=False)
    device = tuning.OpenclDevice("a CPU device", True, 4096, (4096, 4096, 4096))
    monkeypatch.setattr(tuning, "opencl_device", lambda want=None: device)
    source = b"void f(void) {}\n"
    gpu = tuning.store("opencl", device.name, source, "f", {"bands": {0: (8, 32)}})
    cpu = tuning.store("opencl", device.name, source, "f", {"bands": {1: (64,)}, "direct_bands": {0: (1, 256)}},
                       "cpu")
    assert gpu != cpu and cpu.name.endswith("-cpu.json")
    assert json.loads(gpu.read_text())["mapping"] == "gpu" and json.loads(cpu.read_text())["mapping"] == "cpu"
    # The device's local memory is global memory: the cpu mapping, as the runtime decides.
    assert tuning.opencl_mapping() == "cpu"
    assert tuning.tuned_rules(source, "opencl") == (TileSizeRule("f", 1, (64,)),
                                                    TileSizeRule("f", 0, (1, 256), DIRECT))
    monkeypatch.setenv("PENCILCC_OPENCL_MAPPING", "gpu")
    assert tuning.tuned_rules(source, "opencl") == (TileSizeRule("f", 0, (8, 32)),)
    # A document from before mappings is the gpu mapping's.
    doc = json.loads(gpu.read_text())
    del doc["mapping"]
    gpu.write_text(json.dumps(doc))
    assert tuning.tuned_rules(source, "opencl") == (TileSizeRule("f", 0, (8, 32)),)
    monkeypatch.setenv("PENCILCC_OPENCL_MAPPING", "auto")
    assert tuning.tuned_rules(source, "opencl")[1].variant == DIRECT
    # A device with local memory of its own: the gpu mapping.
    monkeypatch.setattr(tuning, "opencl_device", lambda want=None: tuning.OpenclDevice("a GPU", False, 1024))
    assert tuning.opencl_mapping() == "gpu"


def test_direct_candidates_from_the_device() -> None:
    """The cpu mapping's candidates: within the device's work-group limits (at most 1024), the
    start about the runtime's own choice, a row of work-items along the inner loop first."""
    pocl = DirectFit(tuning.OpenclDevice("pocl", True, 4096, (4096, 4096, 4096)))
    assert pocl.most == 1024 and pocl((1, 1024)) and pocl((32, 32)) and not pocl((2, 1024)) and not pocl((0, 4))
    assert direct_start(2, pocl) == (8, 32) and direct_start(1, pocl) == (256,)
    assert direct_seeds(2, pocl) == [(1, 256)] and direct_seeds(1, pocl) == []
    small = DirectFit(tuning.OpenclDevice("small", True, 128, (64, 128, 1)))
    assert direct_start(2, small) == (4, 32) and direct_seeds(2, small) == []      # dimension 0: 64 at most
    assert small((2, 64)) and not small((1, 128)) and not small((2, 1, 1))         # dimension 2: 1 at most
    assert DirectFit(tuning.OpenclDevice("unknown"))((16, 16)) and not DirectFit(tuning.OpenclDevice("unknown"))((16, 32))


def test_search_tries_the_seeds_then_descends_from_the_best() -> None:
    fit = DirectFit(tuning.OpenclDevice("pocl", True, 4096, (4096, 4096, 4096)))
    fake = FakeTimings({(): 1.0, ((0, (1, 256)),): 0.5, ((0, (1, 512)),): 0.4}, 2.0)
    result = search({0: (8, 32)}, {0: True}, fake, 20, "opencl", 0.05, lambda band, sizes: fit(sizes),
                    {0: [(1, 256)]})
    assert fake.calls[:3] == [(), ((0, (1, 256)),), ((0, (2, 256)),)]
    assert result.chosen == {0: (1, 512)} and result.evaluations == len(fake.calls) <= 20
    assert fake.calls[-2:] == [(), ((0, (1, 512)),)]
    assert ((0, (8, 32)),) not in fake.calls                         # the start is the default build
    assert not any(not fit(sizes) for call in fake.calls for _, sizes in call)
    assert ((0, (2, 512)),) in fake.calls and ((0, (1, 2048)),) not in fake.calls


def test_footprint_pruning() -> None:
    assert plausible("opencl", (16, 16)) and not plausible("opencl", (32, 16))
    assert plausible("cpu", (32, 32, 32)) and not plausible("cpu", (1024, 1024, 1024))
    assert not plausible("cpu", (0, 8))


class FakeTimings:
    """`search`'s measure with made-up times: `times` by assignment (sorted band, sizes pairs),
    `other` for every assignment not listed, `again` for a second timing (default: the same);
    it keeps the order of the calls."""

    def __init__(self, times: dict, other: float, again: dict = None) -> None:
        self.times, self.other, self.again, self.calls = times, other, again or {}, []

    def __call__(self, assignment: dict, again: bool = False) -> tuple:
        key = tuple(sorted(assignment.items()))
        self.calls.append(key)
        first = self.times.get(key, self.other)
        return (self.again.get(key, first) if again else first), True


def test_search_starts_from_the_default_build_and_keeps_it_without_a_real_gain() -> None:
    # Every candidate 3% faster than the default: noise under the 5% margin, nothing cached.
    fake = FakeTimings({(): 1.0}, 0.97)
    result = search({0: (16, 16)}, {0: True}, fake, 20, "opencl", 0.05)
    assert fake.calls[0] == ()                              # the first candidate: no rule at all
    assert result.chosen == {} and result.seconds == result.default_seconds == 1.0
    assert result.evaluations == len(fake.calls) <= 20
    # A start that a rule would build like the default is not timed as a rule of its own.
    assert ((0, (16, 16)),) not in fake.calls


def test_search_keeps_a_candidate_only_when_faster_by_the_margin() -> None:
    # 16x8 is 10% faster, then 32x8 another 11%; 16x4 and 32x4 gain 2% and 1% (noise): 32x8
    # is kept. 32x16 and 16x32 (512 work-items) are never built.
    fake = FakeTimings({(): 1.0, ((0, (8, 16)),): 1.05, ((0, (16, 8)),): 0.9, ((0, (16, 4)),): 0.88,
                        ((0, (32, 8)),): 0.8, ((0, (32, 4)),): 0.79}, 2.0)
    result = search({0: (16, 16)}, {0: True}, fake, 20, "opencl", 0.05)
    assert result.chosen == {0: (32, 8)} and result.seconds == 0.8 and result.default_seconds == 1.0
    # Six candidates, then the default and the winner timed again (the budget keeps two for it).
    assert result.evaluations == len(fake.calls) == 8 and len(set(fake.calls)) == 6
    assert fake.calls[-2:] == [(), ((0, (32, 8)),)]
    assert not any(sizes in ((32, 16), (16, 32)) for call in fake.calls for _, sizes in call)
    # With no margin the 1% better one wins.
    fake = FakeTimings(fake.times, 2.0)
    assert search({0: (16, 16)}, {0: True}, fake, 20, "opencl", 0.0).chosen == {0: (32, 4)}


def test_search_confirms_the_winner_against_the_default() -> None:
    # 32x8 looked 20% faster, but timed again (over all their runs) the two are within 5%.
    times = {(): 1.0, ((0, (16, 8)),): 0.9, ((0, (32, 8)),): 0.8}
    fake = FakeTimings(times, 2.0, again={(): 0.85, ((0, (32, 8)),): 0.84})
    result = search({0: (16, 16)}, {0: True}, fake, 20, "opencl", 0.05)
    assert result.chosen == {} and result.seconds == result.default_seconds == 0.85
    assert fake.calls[-2:] == [(), ((0, (32, 8)),)] and result.evaluations == len(fake.calls) <= 20
    # Still faster by the margin: kept, with the second timings.
    fake = FakeTimings(times, 2.0, again={(): 0.95, ((0, (32, 8)),): 0.81})
    result = search({0: (16, 16)}, {0: True}, fake, 20, "opencl", 0.05)
    assert result.chosen == {0: (32, 8)} and (result.seconds, result.default_seconds) == (0.81, 0.95)
    # The descent stops two evaluations short of the budget to leave room for it.
    fake = FakeTimings({(): 1.0, ((0, (2,)),): 0.5, ((0, (4,)),): 0.25, ((0, (8,)),): 0.12}, 0.06)
    result = search({0: (1,)}, {0: True}, fake, 6, "opencl", 0.05)
    assert result.evaluations == len(fake.calls) == 6 and result.chosen == {0: (8,)}
    assert fake.calls[-2:] == [(), ((0, (8,)),)]


def test_search_budget_and_a_start_the_runtime_does_not_use() -> None:
    # An untiled kernel: the default is the runtime's work-group, so the start is a candidate.
    fake = FakeTimings({(): 1.0, ((0, (64,)),): 0.5, ((0, (128,)),): 0.4, ((0, (256,)),): 0.3}, 2.0)
    result = search({0: (64,)}, {0: False}, fake, 3, "opencl", 0.05)     # budget 3: 256 not reached
    assert fake.calls == [(), ((0, (64,)),), ((0, (128,)),)]
    assert result.evaluations == 3 and result.chosen == {0: (128,)} and result.seconds == 0.4
    # A default that fails to build or run is beaten by any candidate that runs.
    fake = FakeTimings({(): float("inf")}, 3.0)
    assert search({0: (64,)}, {0: False}, fake, 2, "opencl", 0.05).chosen == {0: (64,)}
    assert better(3.0, float("inf"), 0.05) and not better(float("inf"), float("inf"), 0.05)
    assert not better(0.96, 1.0, 0.05) and better(0.94, 1.0, 0.05)


def test_search_counts_only_fresh_evaluations() -> None:
    # The default of a second region is the first region's choice, timed already: not counted.
    def measure(assignment: dict, again: bool = False) -> tuple:
        return (1.0, False) if not assignment else (2.0, True)
    result = search({0: (16, 16)}, {0: True}, measure, 20, "opencl", 0.05)
    assert result.chosen == {} and result.evaluations == 2       # 8x16, 16x8 (32x16, 16x32: too big)


def test_search_starts_match_the_defaults() -> None:
    """Where the search starts and whether that start is the default build: on the OpenCL
    target a tiled kernel's default is its tiles' shape (tiling.GROUP, declared in the record);
    an untiled kernel's is the runtime's choice at launch, so its start is a candidate."""
    from llvm_backend.opencl.tiling import GROUP
    tuner = object.__new__(tune_mod.Tuner)
    tuner.inputs = {os.path.realpath("k.c"): "k.c"}
    tuner.mapping, tuner.direct = "gpu", {}
    region = {"status": "optimized", "file": "k.c", "label": "k", "mapping": {"kernels": [
        {"dimensions": 2, "work_group": list(GROUP), "work_group_from": "model", "tiling": {"work_group": list(GROUP)}},
        {"dimensions": 1, "work_group": None, "work_group_from": "model"},
        {"dimensions": 1, "work_group": None, "work_group_from": ""},          # a reduction: not a band
        {"dimensions": 2, "work_group": None, "work_group_from": "model"}]},
        "tile_bands": [{"band": 0, "sizes": [32, 64, 8], "from": "model"}]}
    tuner.target = "opencl"
    assert tuner.bands([region]) == {(os.path.realpath("k.c"), "k"): {
        0: (tuple(reversed(GROUP)), True), 1: (tune_mod.OPENCL_START[1], False),
        2: (tune_mod.OPENCL_START[2], False)}}
    assert tuner.direct == {}
    # The cpu mapping (PoCL): every band's kernel runs one work-item per iteration in the
    # runtime's work-group, the tiled one as its direct variant, which a `direct:` rule sizes.
    tuner.mapping, tuner.device = "cpu", "pocl"
    tuner.opencl = tuning.OpenclDevice("pocl", True, 4096, (4096, 4096, 4096))
    assert tuner.bands([region]) == {(os.path.realpath("k.c"), "k"): {0: ((8, 32), True), 1: ((256,), True),
                                                                       2: ((8, 32), True)}}
    assert tuner.direct == {(os.path.realpath("k.c"), "k"): {0}}
    # The CPU target: the cache model's sizes, which a rule of the same sizes reproduces.
    tuner.target = "cpu"
    assert tuner.bands([region]) == {(os.path.realpath("k.c"), "k"): {0: ((32, 64, 8), True)}}
    assert tuner.bands([{**region, "status": "fallback"}]) == {}


@pytest.mark.parametrize("argv, message", [
    (["--run", "./x"], "after '--'"),
    (["--budget", "21", "--", "pencilcc", "-O3", "x.c"], "'--budget' expects 1 to 20"),
    (["--", "pencilcc", "-O1", "x.c"], "below -O2"),
    (["--min-gain", "100", "--", "pencilcc", "-O3", "x.c"], "'--min-gain' expects a percentage"),
    (["--", "pencilcc", "-O3", "-fpencil-tile-sizes=x", "x.c"], "the build command: '-fpencil-tile-sizes='"),
])
def test_bad_invocations(tmp_path, argv, message) -> None:
    proc = _tune(tmp_path, *argv)
    assert proc.returncode == 1 and f"pencilcc-tune: error: " in proc.stderr and message in proc.stderr
    assert "Traceback" not in proc.stderr


def _timings(stdout: str) -> list[str]:
    """The candidates the tuner timed, in order ('default': the build without tuned sizes)."""
    return [line.split()[1].rstrip(":") for line in stdout.splitlines()
            if line.startswith("pencilcc-tune:   ")]


def test_tune_gemm_cpu(tmp_path, monkeypatch) -> None:
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes())
    reference = harness.gcc_reference(GEMM, tmp_path)
    proc = _tune(tmp_path, "--budget", "3", "--repeat", "1", "--", "pencilcc", "-O3", *harness.KERNEL_CFLAGS,
                 "gemm.c", "-o", "gemm", "-lm")
    assert proc.returncode == 0, proc.stderr
    timed = _timings(proc.stdout)
    assert timed[0] == "default" and 1 <= len(timed) <= 3          # the default build is the first candidate
    entry = _entries(tmp_path, "cpu")[f"{tuning.file_digest(GEMM.read_bytes())}:kernel_gemm#0"]
    assert entry["evaluations"] == len(timed) and entry["label"] == "kernel_gemm#0"
    untuned = _record(tmp_path, "untuned", ["-fno-pencil-tuned"])
    assert untuned["tile_sizes_from"] == "model"
    tuned = _record(tmp_path, "tuned", [])
    if entry["bands"]:
        # Kept only when faster than the default by the margin (5%).
        sizes = entry["bands"]["0"]
        assert f"kernel_gemm#0:0={','.join(map(str, sizes))}" in timed
        assert entry["seconds"] < 0.95 * entry["model_seconds"]
        assert tuned["tile_sizes_from"] == "tuned" and tuned["tile_bands"][0]["sizes"] == sizes
    else:
        # Nothing beat the default: the next build is the default one.
        assert entry["seconds"] == entry["model_seconds"]
        assert tuned["tile_sizes_from"] == "model" and tuned["tile_bands"] == untuned["tile_bands"]
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "tuned"), rtol=1e-9)
    # The user's own build (the tuner's last step) used them too.
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "gemm"), rtol=1e-9)

    # Sizes in the cache (here: half the model's) are what the next build uses.
    half = [max(1, s // 2) for s in untuned["tile_bands"][0]["sizes"]]
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path / "cache"))
    tuning.store("cpu", tuning.cpu_name(), GEMM.read_bytes(), "kernel_gemm#0", {"bands": {0: half}})
    tuned = _record(tmp_path, "tuned", [])
    assert tuned["tile_sizes_from"] == "tuned" and tuned["tile_bands"][0]["sizes"] == half
    assert tuned["tile_sizes"] == half
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "tuned"), rtol=1e-9)
    # The flag wins, -fno-pencil-tuned ignores the cache, an edited file is not the tuned one.
    assert _record(tmp_path, "flag", ["-fpencil-tile-sizes=kernel_gemm=8"])["tile_sizes_from"] == "flag"
    assert _record(tmp_path, "untuned", ["-fno-pencil-tuned"])["tile_sizes_from"] == "model"
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes() + b"\n/* edited */\n")
    assert _record(tmp_path, "edited", [])["tile_sizes_from"] == "model"


def _opencl_device() -> bool:
    return tuning.opencl_device_name() is not None


@pytest.mark.skipif(not _opencl_device(), reason="no OpenCL device (install PoCL: .ci/run)")
def test_tune_gemm_opencl(tmp_path, monkeypatch) -> None:
    """The tuner sizes the kernels the device present runs: on a device whose local memory is
    global memory (PoCL: the cpu mapping) the direct variant of gemm's tiled kernel, whose
    work-group then reaches the build (`direct_work_group`, `reqd_work_group_size` on the
    `_direct` kernel); elsewhere the tiled kernel's work-group."""
    (tmp_path / "gemm.c").write_bytes(GEMM.read_bytes())
    reference = harness.gcc_reference(GEMM, tmp_path)
    monkeypatch.delenv("PENCILCC_OPENCL_MAPPING", raising=False)
    mapping = tuning.opencl_mapping()
    proc = _tune(tmp_path, "--budget", "3", "--repeat", "1", "--run", "./gemm", "--", "pencilcc", "-O3",
                 "-fpencil-target=opencl", *harness.KERNEL_CFLAGS, "gemm.c", "-o", "gemm", "-lm")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].endswith(f"(opencl, {mapping} mapping)")
    timed = _timings(proc.stdout)
    assert timed[0] == "default" and 1 <= len(timed) <= 3
    entry = _entries(tmp_path, "opencl")[f"{tuning.file_digest(GEMM.read_bytes())}:kernel_gemm#0"]
    assert entry["evaluations"] == len(timed)
    kernel = _record(tmp_path, "tuned", ["-fpencil-target=opencl"])["mapping"]["kernels"][0]
    assert kernel["tiling"] is not None and kernel["variants"]["cpu"] == kernel["name"] + "_direct"
    env = {"PENCILCC_CACHE_DIR": str(tmp_path / "cache")}
    if mapping == "cpu":
        # Candidates of the direct variant only: the row of 256 work-items first, then the descent.
        assert all(t.startswith("direct:kernel_gemm#0:0=") for t in timed[1:]), timed
        assert timed[1:2] in ([], ["direct:kernel_gemm#0:0=1,256"])
        assert entry["bands"] == {} and set(entry["direct_bands"]) <= {"0"}
        assert kernel["work_group"] == [16, 16] and kernel["work_group_from"] == "model"
        if entry["direct_bands"]:
            sizes = entry["direct_bands"]["0"]
            assert f"direct:kernel_gemm#0:0={','.join(map(str, sizes))}" in timed
            assert kernel["direct_work_group"] == sizes[::-1] and kernel["direct_work_group_from"] == "tuned"
        else:
            assert kernel["direct_work_group"] is None and kernel["direct_work_group_from"] == "model"
    elif entry["bands"]:
        sizes = entry["bands"]["0"]
        assert kernel["work_group"] == sizes[::-1] and kernel["work_group_from"] == "tuned"
    else:
        assert kernel["work_group_from"] == "model"
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "tuned", env=env), rtol=1e-9)
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path / "cache"))
    device = tuning.opencl_device_name()
    if mapping == "cpu":
        # A cached direct work-group that divides neither loop (7 along the outer loop of 60, 16
        # along the inner of 70) is what the next build declares and the runtime launches.
        tuning.store("opencl", device, GEMM.read_bytes(), "kernel_gemm#0",
                     {"bands": {}, "direct_bands": {0: (7, 16)}}, "cpu")
        region = _record(tmp_path, "tuned", ["-fpencil-target=opencl"])
        kernel = region["mapping"]["kernels"][0]
        assert kernel["direct_work_group"] == [16, 7] and kernel["direct_work_group_from"] == "tuned"
        assert region["mapping"]["direct_tile_sizes_from"] == "tuned"
        assert kernel["work_group"] == [16, 16] and kernel["work_group_from"] == "model"
        assert f"reqd_work_group_size(16, 7, 1))) void {kernel['name']}_direct(".encode() \
            in (tmp_path / "tuned").read_bytes()
        out = subprocess.run([str(tmp_path / "tuned")], env={**os.environ, **env, "PENCILCC_PROFILE": "1"},
                             capture_output=True, text=True, timeout=120, check=True)
        assert re.search(rf"kernel {kernel['name']}_direct: [1-9]\d* launches", out.stderr), out.stderr
        assert "runs on the CPU" not in out.stderr
        assert not harness.compare_outputs(reference, out.stdout, rtol=1e-9)
        # The gpu mapping reads the gpu mapping's choices only.
        monkeypatch.setenv("PENCILCC_OPENCL_MAPPING", "gpu")
        env["PENCILCC_OPENCL_MAPPING"] = "gpu"
    # A cached work-group (8 along the outer loop, 32 along the inner) is what the next build declares.
    tuning.store("opencl", device, GEMM.read_bytes(), "kernel_gemm#0", {"bands": {0: (8, 32)}}, "gpu")
    kernel = _record(tmp_path, "tuned", ["-fpencil-target=opencl"])["mapping"]["kernels"][0]
    assert kernel["work_group"] == [32, 8] and kernel["work_group_from"] == "tuned"
    assert kernel["direct_work_group"] is None
    assert not harness.compare_outputs(reference, harness.run(tmp_path / "tuned", env=env), rtol=1e-9)
