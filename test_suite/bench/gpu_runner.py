# SPDX-License-Identifier: MIT
"""The GPU bundle's runner: times the prebuilt kernels on the machine the bundle was carried to.

:mod:`test_suite.bench.gpu_bundle` builds, here, every kernel twice (gcc and
``pencilcc -fpencil-target=opencl``) into a folder with a ``manifest.json``;
that folder's ``run.sh`` finds the OpenCL driver of the machine it runs on,
lists its devices (``bin/cl_devices``) and then calls this module (Python
standard library only, with :mod:`test_suite.bench.opencl`,
:mod:`test_suite.bench.checksums` and :mod:`test_suite.bench.machine` copied beside
it: no pencilcc, libclang or islpy there).

Per kernel, in the manifest's order (those whose OpenCL build launches no kernel last):

- the OpenCL build (one run only where its record lists no OpenCL kernel: every
  region runs on the host): one cold run (empty disk cache of its own: it builds the
  OpenCL program), one timed run, one run with ``PENCILCC_PROFILE=1`` (launches,
  device milliseconds, transfers; the launched names say which variant of a tiled
  kernel ran: the staged ``tiled`` one with local memory, or the ``direct`` one), one
  profiled run with the other mapping forced (``PENCILCC_OPENCL_MAPPING``), when the
  build has tiled kernels and the kernel's share of the time budget allows, then up to
  two more timed runs while that share lasts;
- the gcc build (``gcc -O3``, one thread): ``--gcc-repeat`` runs (one when the
  bundle's own run of it took more than ``--gcc-long`` seconds), in a pool of
  ``--gcc-jobs`` worker threads started at the beginning, so that these
  single-thread CPU runs go on beside the GPU runs on the other cores;
- every run's checksums are compared with those of the first gcc run there, or,
  where that failed or was not run, with the gcc checksums the bundle recorded
  when it was built; a run in which pencilcc's runtime says it ran regions on the
  CPU (a line starting ``pencilcc: ``) fails.

A time budget (``--budget``, seconds, 270 by default) bounds the whole: each kernel gets an even
share of what is left for its runs beyond the cold, first timed and profiled ones; kernels
left when it is spent are reported as skipped, and every run, gcc's included, is stopped
(timed out) ``--grace`` seconds (30) after it.
``gpu.json`` and ``gpu.md`` in ``--out`` are rewritten after every kernel, so a
run cut short still leaves its results.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Optional, Sequence

from test_suite.bench import checksums, machine, opencl
from test_suite.bench.checksums import ArrayChecksum

#: Characters of a failing run's stderr kept in its error.
_ERROR_TAIL = 400
#: The other mapping of the runtime (``PENCILCC_OPENCL_MAPPING``), by the one that ran.
_OTHER_MAPPING = {"tiled": "cpu", "direct": "gpu"}


@dataclasses.dataclass
class RunResult:
    """One execution of a prebuilt program."""

    seconds: Optional[float] = None
    checksums: tuple[ArrayChecksum, ...] = ()
    error: str = ""
    profile: Optional[opencl.Profile] = None
    #: Wall seconds of the whole process (start-up and initialisation included).
    wall: float = 0.0


def execute(executable: Path, env: dict[str, str], timeout: float, log: "Log") -> RunResult:
    """Run ``executable`` once; its seconds, checksums and (when asked for by ``env``) profile."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([str(executable)], capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return RunResult(error=f"timed out after {timeout:.1f} s", wall=time.perf_counter() - start)
    except OSError as exc:
        return RunResult(error=f"cannot run: {exc}", wall=time.perf_counter() - start)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        tail = proc.stderr[-_ERROR_TAIL:].strip()
        log.write(f"    {executable.name}: exit status {proc.returncode}: {tail}")
        return RunResult(error=f"exit status {proc.returncode}: {tail}", wall=wall)
    problems = opencl.runtime_problems(proc.stderr)
    if problems:
        return RunResult(error="the OpenCL runtime ran regions on the CPU: " + " | ".join(problems), wall=wall)
    try:
        seconds = checksums.kernel_seconds(proc.stderr)
        sums = checksums.parse(proc.stdout)
    except ValueError as exc:
        return RunResult(error=str(exc), wall=wall)
    profile = None
    if env.get("PENCILCC_PROFILE") == "1" and "pencilcc profile: " in proc.stderr:
        try:
            profile = opencl.parse_profile(proc.stderr)
        except ValueError as exc:
            return RunResult(seconds, sums, f"bad profile: {exc}", wall=wall)
    return RunResult(seconds, sums, "", profile, wall)


class Log:
    """Progress lines on stdout (run.sh copies them into ``log.txt``), each with the seconds elapsed."""

    def __init__(self, hard_end: float = float("inf")) -> None:
        self.start = time.perf_counter()
        self._lock = threading.Lock()
        #: Seconds from the start after which no run may go on (the budget and its grace).
        self.hard_end = hard_end

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def timeout(self, limit: float) -> float:
        """A run's timeout: ``limit``, cut so that the run ends by :attr:`hard_end` (at least 1 s)."""
        return max(1.0, min(limit, self.hard_end - self.elapsed()))

    def write(self, text: str) -> None:
        with self._lock:
            print(f"[{self.elapsed():6.1f} s] {text}", flush=True)


def median(values: Sequence[float]) -> Optional[float]:
    if not values:
        return None
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def mapping_of(profile: Optional[opencl.Profile], tiled: Sequence[dict[str, str]]) -> str:
    """Which variant of the tiled kernels ran, from the launched names: ``tiled`` (the staged
    ones, local memory), ``direct``, ``mixed``, ``untiled`` (the build has no tiled kernel),
    ``host`` (no kernel launched)."""
    if profile is None or not profile.kernels:
        return "host"
    if not tiled:
        return "untiled"
    launched = {k.name for k in profile.kernels}
    staged = any(v["gpu"] in launched for v in tiled)
    direct = any(v["cpu"] in launched for v in tiled)
    return "mixed" if staged and direct else "tiled" if staged else "direct" if direct else "untiled"


def profile_summary(profile: Optional[opencl.Profile]) -> Optional[dict[str, Any]]:
    """A profile's figures for the table: device ms, launches, transfer MB and ms, and the whole profile."""
    if profile is None:
        return None
    return {
        "device_ms": round(sum(k.milliseconds for k in profile.kernels), 3),
        "launches": profile.launches,
        "transfer_mb": round((profile.host_to_device.bytes + profile.device_to_host.bytes) / 1e6, 3),
        "transfer_ms": round(profile.host_to_device.milliseconds + profile.device_to_host.milliseconds, 3),
        "whole": dataclasses.asdict(profile),
    }


class GccPool:
    """The gcc builds' runs, a few at a time in worker threads, beside the GPU runs."""

    def __init__(self, jobs: int, env: dict[str, str], timeout: float, log: Log) -> None:
        self.env, self.timeout, self.log = env, timeout, log
        self.executor = ThreadPoolExecutor(max_workers=max(1, jobs))
        self.futures: dict[str, Future] = {}
        self.deadline = float("inf")

    def submit(self, label: str, executable: Path, repeat: int) -> None:
        self.futures[label] = self.executor.submit(self._runs, label, executable, repeat)

    def _runs(self, label: str, executable: Path, repeat: int) -> list[RunResult]:
        runs: list[RunResult] = []
        for _ in range(repeat):
            if runs and (runs[-1].error or self.log.elapsed() > self.deadline):
                break
            runs.append(execute(executable, self.env, self.log.timeout(self.timeout), self.log))
        times = ", ".join(f"{r.seconds:.3f}" for r in runs if r.seconds is not None)
        errors = "; ".join(r.error for r in runs if r.error)
        self.log.write(f"  gcc {label}: {times or '-'} s{'  ' + errors if errors else ''}")
        return runs

    def result(self, label: str) -> Optional[list[RunResult]]:
        """The runs of ``label`` when they are done (None while they are not)."""
        future = self.futures.get(label)
        if future is None or not future.done() or future.cancelled():
            return None
        return future.result()

    def finish(self) -> None:
        """Wait for the runs until the deadline, then drop those not started and wait for those running."""
        wait(list(self.futures.values()), timeout=max(0.0, self.deadline - self.log.elapsed()))
        self.executor.shutdown(wait=True, cancel_futures=True)


def load_checksums(entries: Optional[list[dict[str, Any]]]) -> tuple[ArrayChecksum, ...]:
    return tuple(ArrayChecksum(**e) for e in entries or ())


def run_bundle(bundle: Path, out: Path, args: argparse.Namespace) -> int:
    manifest = json.loads((bundle / "manifest.json").read_text())
    log = Log(hard_end=args.budget + args.grace)
    kernels = manifest["kernels"]
    if args.kernels:
        wanted = set(args.kernels.split(","))
        kernels = [k for k in kernels if k["label"] in wanted]
    # Builds without an OpenCL kernel (all host code) last: the budget is spent on the GPU first.
    kernels.sort(key=lambda k: "opencl_kernels" in k and not k["opencl_kernels"])
    devices = Path(args.devices).read_text() if args.devices else ""
    work = Path(tempfile.mkdtemp(prefix="pencilcc-gpu-"))
    base_env = {**os.environ, "OMP_NUM_THREADS": str(args.threads), "PENCILCC_NUM_THREADS": str(args.threads)}
    base_env.pop("PENCILCC_OPENCL_MAPPING", None)
    base_env.pop("PENCILCC_PROFILE", None)
    document: dict[str, Any] = {
        "format": 1,
        "bundle": {k: v for k, v in manifest.items() if k != "kernels"},
        "host": {"machine": platform.machine(), "cpus": os.cpu_count(), "cpu": machine.cpu_model(),
                 "kernel": platform.release(), "python": platform.python_version()},
        "devices": devices,
        "settings": {"budget_s": args.budget, "grace_s": args.grace, "threads": args.threads, "gcc_jobs": args.gcc_jobs,
                     "gcc_repeat": args.gcc_repeat, "gcc_long_s": args.gcc_long, "opencl_repeat": args.repeat,
                     "timeout_s": args.timeout, "gcc_timeout_s": args.gcc_timeout,
                     "icd": os.environ.get("GPU_BUNDLE_ICD_FOUND", "")},
        "kernels": [],
        "complete": False,
    }
    pool = GccPool(args.gcc_jobs, base_env, args.gcc_timeout, log)
    pool.deadline = args.budget
    for kernel in kernels:
        if kernel.get("gcc") and not args.no_gcc:
            here = (kernel.get("reference") or {}).get("seconds")
            repeat = 1 if here is not None and here > args.gcc_long else args.gcc_repeat
            pool.submit(kernel["label"], bundle / kernel["gcc"], repeat)
    results: list[dict[str, Any]] = []
    opencl_runs: dict[str, list[tuple[str, RunResult]]] = {}
    completed = False
    try:
        for index, kernel in enumerate(kernels):
            label = kernel["label"]
            left = args.budget - log.elapsed()
            share = left / (len(kernels) - index)
            entry: dict[str, Any] = {"label": label, "macros": kernel["macros"]}
            results.append(entry)
            if left < args.min_left:
                entry["opencl"] = {"error": f"skipped: time budget spent ({args.budget:g} s)"}
                continue
            log.write(f"[{index + 1}/{len(kernels)}] {label} {' '.join(kernel['macros'])} (share {share:.0f} s)")
            runs: list[tuple[str, RunResult]] = []
            opencl_runs[label] = runs
            entry["opencl"] = measure_opencl(bundle, kernel, work, base_env, args, log, share, runs)
            entry["regions_not_optimized"] = kernel.get("regions_not_optimized", [])
            write_outputs(out, document, results, kernels, pool, opencl_runs)
        completed = True
    finally:
        log.write("waiting for the gcc runs")
        pool.finish()
        document["complete"] = completed
        document["elapsed_s"] = round(log.elapsed(), 1)
        write_outputs(out, document, results, kernels, pool, opencl_runs)
        shutil.rmtree(work, ignore_errors=True)
    log.write(f"done: {out / 'gpu.md'}")
    failed = [r["label"] for r in results if r.get("checksum_match") is False]
    return 1 if failed else 0


def measure_opencl(bundle: Path, kernel: dict[str, Any], work: Path, base_env: dict[str, str],
                   args: argparse.Namespace, log: Log, share: float,
                   runs: list[tuple[str, RunResult]]) -> dict[str, Any]:
    """The OpenCL build's runs of one kernel (appended to ``runs`` as (what, result)) and their figures."""
    if not kernel.get("opencl"):
        return {"error": kernel.get("opencl_error") or "no OpenCL build in the bundle"}
    start = time.perf_counter()
    executable = bundle / kernel["opencl"]
    cache = work / kernel["label"].replace("/", "-")
    shutil.rmtree(cache, ignore_errors=True)
    cache.mkdir(mode=0o700, parents=True)

    def go(what: str, profile: bool = False, mapping: str = "") -> RunResult:
        env = {**base_env, **opencl.run_env(cache, args.threads, profile)}
        if mapping:
            env["PENCILCC_OPENCL_MAPPING"] = mapping
        result = execute(executable, env, log.timeout(args.timeout), log)
        runs.append((what, result))
        shown = f"{result.seconds:.4f} s" if result.seconds is not None else result.error
        log.write(f"  opencl {what}: {shown} (process {result.wall:.2f} s)")
        return result

    figures: dict[str, Any] = {}
    host_only = "opencl_kernels" in kernel and not kernel["opencl_kernels"]
    cold = go("cold" if not host_only else "only run (no OpenCL kernel in the build)")
    figures["cold_s"] = cold.seconds
    if cold.error:
        figures["error"] = f"cold run: {cold.error}"
        return figures
    if host_only:
        # Every region runs on the host: one run checks its output; its time says nothing of the GPU.
        figures.update(mapping="host", runs_s=[cold.seconds], median_s=cold.seconds,
                       note="no OpenCL kernel in the build: one run, on the host")
        return figures
    timed: list[RunResult] = []
    if log.elapsed() < args.budget:
        timed.append(go("timed 1"))
    if log.elapsed() >= args.budget:
        figures["error"] = "cut short: time budget spent"
        figures["runs_s"] = [r.seconds for r in timed if r.seconds is not None]
        figures["median_s"] = median(figures["runs_s"]) if timed and not timed[0].error else None
        return figures
    profiled = go("profiled", profile=True)
    tiled = kernel.get("tiled_kernels", [])
    figures["mapping"] = mapping_of(profiled.profile, tiled) if not profiled.error else "?"
    figures["profile"] = profile_summary(profiled.profile)
    if profiled.error:
        figures["error"] = f"profiled run: {profiled.error}"
    # What one more run costs: the slowest after the cold one, which also compiled the OpenCL program.
    per_run = max(r.wall for _, r in runs[1:]) if len(runs) > 1 else runs[0][1].wall
    if figures["mapping"] in _OTHER_MAPPING and time.perf_counter() - start + per_run > share:
        log.write("  opencl: no run with the other mapping, the kernel's share of the budget is spent")
        figures["other_mapping"] = {"error": "not run: the kernel's share of the time budget was spent"}
    elif figures["mapping"] in _OTHER_MAPPING:
        forced = _OTHER_MAPPING[figures["mapping"]]
        other = go(f"profiled, PENCILCC_OPENCL_MAPPING={forced}", profile=True, mapping=forced)
        figures["other_mapping"] = {"forced": forced, "mapping": mapping_of(other.profile, tiled),
                                    "seconds": other.seconds, "error": other.error,
                                    "profile": profile_summary(other.profile)}
    while len(timed) < args.repeat and not timed[-1].error:
        if time.perf_counter() - start + per_run > share or log.elapsed() + per_run > args.budget:
            log.write(f"  opencl: {len(timed)} timed run(s), the kernel's share of the budget is spent")
            break
        timed.append(go(f"timed {len(timed) + 1}"))
    errors = [r.error for r in timed if r.error]
    if errors and "error" not in figures:
        figures["error"] = errors[0]
    figures["runs_s"] = [r.seconds for r in timed if r.seconds is not None]
    figures["median_s"] = None if errors else median(figures["runs_s"])
    return figures


def compare_kernel(entry: dict[str, Any], kernel: dict[str, Any], gcc_runs: Optional[list[RunResult]],
                   runs: list[tuple[str, RunResult]]) -> None:
    """Fill ``entry``'s gcc figures and the checksum verdict of its OpenCL runs."""
    reference_here = load_checksums((kernel.get("reference") or {}).get("checksums"))
    gcc: dict[str, Any] = {"here_s": (kernel.get("reference") or {}).get("seconds")}
    reference, source = (), ""
    if gcc_runs is None:
        gcc["error"] = "not run (time budget, or --no-gcc)" if kernel.get("gcc") else "no gcc build in the bundle"
    else:
        good = [r for r in gcc_runs if not r.error]
        gcc["runs_s"] = [r.seconds for r in good]
        gcc["median_s"] = median(gcc["runs_s"]) if len(good) == len(gcc_runs) else None
        if len(good) != len(gcc_runs):
            gcc["error"] = next(r.error for r in gcc_runs if r.error)
        if good:
            reference, source = good[0].checksums, "gcc here"
            if reference_here and checksums.compare(reference_here, reference):
                gcc["differs_from_bundle"] = checksums.compare(reference_here, reference)
    if not reference and reference_here:
        reference, source = reference_here, "gcc at bundle build"
    entry["gcc"] = gcc
    entry["reference"] = source
    outputs = [(what, r) for what, r in runs if not r.error and r.checksums]
    if not reference or not outputs:
        entry["checksum_match"] = None
        return
    mismatches = []
    for what, result in outputs:
        problems = checksums.compare(reference, result.checksums)
        if problems:
            mismatches.append(f"{what}: {'; '.join(problems)}")
    entry["checksum_match"] = not mismatches
    entry["checksum_runs"] = len(outputs)
    if mismatches:
        entry["mismatches"] = mismatches


def write_outputs(out: Path, document: dict[str, Any], results: list[dict[str, Any]],
                  kernels: list[dict[str, Any]], pool: GccPool,
                  opencl_runs: dict[str, list[tuple[str, RunResult]]]) -> None:
    by_label = {k["label"]: k for k in kernels}
    for entry in results:
        compare_kernel(entry, by_label[entry["label"]], pool.result(entry["label"]),
                       opencl_runs.get(entry["label"], []))
        gcc, ocl = entry["gcc"].get("median_s"), entry["opencl"].get("median_s")
        entry["ratio_gcc_opencl"] = _significant(gcc / ocl) if gcc and ocl else None
    document["kernels"] = results
    ratios = [e["ratio_gcc_opencl"] for e in results if e["ratio_gcc_opencl"] and e.get("checksum_match")]
    document["geomean_gcc_opencl"] = _geomean(ratios)
    (out / "gpu.json").write_text(json.dumps(document, indent=1) + "\n")
    (out / "gpu.md").write_text(markdown(document))


def _geomean(values: Sequence[float]) -> Optional[float]:
    if not values:
        return None
    product = 1.0
    for value in values:
        product *= value
    return _significant(product ** (1.0 / len(values)))


def _significant(value: float) -> float:
    """``value`` to 4 significant digits (a ratio may be far below 0.001 on a CPU device)."""
    return float(f"{value:.4g}")


def _cell(value: Any, digits: int = 3) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def _ratio_cell(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}" if value >= 0.1 else f"{value:.2g}"


def markdown(document: dict[str, Any]) -> str:
    bundle = document["bundle"]
    lines = [
        "# pencilcc OpenCL on the GPU: PolyBench kernels",
        "",
        f"Bundle: dataset `{bundle.get('dataset')}`, built at {bundle.get('built_at')} from commit "
        f"`{bundle.get('commit')}`; gcc build `{' '.join(bundle.get('gcc_command', []))}`, OpenCL build "
        f"`{' '.join(bundle.get('opencl_command', []))}`.",
        f"Host: {document['host']['cpu']} ({document['host']['cpus']} CPUs). "
        f"{'Complete' if document['complete'] else 'INCOMPLETE (cut short)'}"
        f"{', ' + str(document.get('elapsed_s')) + ' s' if document.get('elapsed_s') else ''}.",
        "",
        "Devices:",
        "",
        "```",
        document["devices"].strip() or "(none listed)",
        "```",
        "",
        "gcc s, opencl s: medians of the kernel call's seconds (the program's own timer; for OpenCL it "
        "includes the runtime's start, the transfers and launches; the first, cold run, which builds the "
        "OpenCL program, is apart). gcc runs on one thread, "
        f"{document['settings']['gcc_jobs']} at a time beside the GPU runs. device ms, launches, transfer MB: "
        "from one run with PENCILCC_PROFILE=1. mapping: the variant of the tiled kernels that ran "
        "(tiled = staged in local memory, direct = one work-item per iteration; untiled: no tiled kernel; "
        "host: no kernel launched); other: device ms with the other mapping forced.",
        "",
        "| kernel | gcc s | opencl s | gcc/opencl | cold s | device ms | launches | transfer MB | match | "
        "mapping | other mapping device ms | note |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|",
    ]
    for entry in document["kernels"]:
        ocl, gcc = entry["opencl"], entry.get("gcc", {})
        profile = ocl.get("profile") or {}
        other = ocl.get("other_mapping") or {}
        other_cell = "-"
        if other:
            other_profile = other.get("profile") or {}
            other_cell = (f"{_cell(other_profile.get('device_ms'), 1)} ({other['mapping']})"
                          if not other.get("error") else
                          f"FAIL ({other['forced']})" if "forced" in other else "skipped")
        match = {True: "yes", False: "**NO**", None: "-"}[entry.get("checksum_match")]
        notes = [n for n in (ocl.get("error"), ocl.get("note"), gcc.get("error")) if n]
        if entry.get("reference") == "gcc at bundle build" and entry.get("checksum_match") is not None:
            notes.append("checked against the bundle's gcc checksums")
        lines.append("| " + " | ".join([
            entry["label"], _cell(gcc.get("median_s")), _cell(ocl.get("median_s")),
            _ratio_cell(entry.get("ratio_gcc_opencl")), _cell(ocl.get("cold_s")),
            _cell(profile.get("device_ms"), 1), _cell(profile.get("launches")),
            _cell(profile.get("transfer_mb"), 1), match, ocl.get("mapping", "-"), other_cell,
            "; ".join(n.replace("|", "/")[:160] for n in notes)]) + " |")
    lines += ["", f"geomean gcc/opencl over the kernels that ran and matched: "
                  f"{_ratio_cell(document.get('geomean_gcc_opencl'))}"]
    mismatched = [e for e in document["kernels"] if e.get("mismatches")]
    for entry in mismatched:
        lines += ["", f"MISMATCH {entry['label']}:"] + [f"- {m}" for m in entry["mismatches"]]
    return "\n".join(lines) + "\n"


def failure(out: Path, reason: str, devices: str) -> int:
    """``gpu.json`` and ``gpu.md`` saying why nothing ran (no OpenCL device)."""
    document = {"format": 1, "complete": False, "error": reason, "devices": devices, "kernels": []}
    (out / "gpu.json").write_text(json.dumps(document, indent=1) + "\n")
    (out / "gpu.md").write_text(f"# pencilcc OpenCL on the GPU: nothing ran\n\n{reason}\n\n```\n{devices}\n```\n")
    return 2


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="run.sh (test_suite.bench.gpu_runner)",
                                     description="Time the GPU bundle's prebuilt kernels here.")
    parser.add_argument("--bundle", required=True, help="the bundle folder (manifest.json)")
    parser.add_argument("--out", required=True, help="where gpu.json and gpu.md go")
    parser.add_argument("--devices", help="cl_devices' output, copied into the results")
    parser.add_argument("--fail", help="write a failure report with this reason and exit 2")
    parser.add_argument("--kernels", help="comma list of labels (default: every kernel of the bundle)")
    parser.add_argument("--budget", type=float, default=270.0, help="seconds for the whole run (default 270)")
    parser.add_argument("--grace", type=float, default=30.0,
                        help="seconds after the budget by which every run is stopped (default 30)")
    parser.add_argument("--min-left", type=float, default=8.0,
                        help="seconds of budget below which the remaining kernels are skipped")
    parser.add_argument("--repeat", type=int, default=3, help="timed OpenCL runs per kernel at most (default 3)")
    parser.add_argument("--gcc-repeat", type=int, default=3, help="gcc runs per kernel (default 3)")
    parser.add_argument("--gcc-long", type=float, default=20.0,
                        help="one gcc run only where the bundle's own gcc run took longer (default 20 s)")
    parser.add_argument("--gcc-jobs", type=int, default=6, help="gcc runs at a time (default 6)")
    parser.add_argument("--no-gcc", action="store_true", help="no gcc runs: compare with the bundle's checksums")
    parser.add_argument("--threads", type=int, default=1,
                        help="OMP_NUM_THREADS / PENCILCC_NUM_THREADS / POCL_MAX_PTHREAD_COUNT (default 1)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds per OpenCL run (default 60)")
    parser.add_argument("--gcc-timeout", type=float, default=120.0, help="seconds per gcc run (default 120)")
    return parser.parse_args(argv)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    if args.fail:
        devices = Path(args.devices).read_text() if args.devices and Path(args.devices).is_file() else ""
        return failure(out, args.fail, devices)
    return run_bundle(Path(args.bundle), out, args)


if __name__ == "__main__":
    sys.exit(main())
