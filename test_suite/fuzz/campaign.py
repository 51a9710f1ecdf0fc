# SPDX-License-Identifier: MIT
"""One fuzz case: mutate a kernel, run pencilcc (--lint, -O3 -c) and gcc -c on it, classify.

Input: a seed (it picks the kernel and the mutations, see test_suite.fuzz.mutate),
the per-command timeout. Output: a `Case` whose `labels` say what happened:
`ok`, `user-error` (pencilcc and gcc both reject it, pencilcc with a clean
diagnostic), `slow-input` (gcc times out too), or one or more `BAD-*` classes:

  BAD-traceback                     a Python traceback on stderr
  BAD-signal                        pencilcc killed by a signal (a crash in libclang, isl, LLVM)
  BAD-internal-error                exit status 70 ("internal error", a bug caught at the top)
  BAD-hang                          still running after the timeout (then sent SIGTERM)
  BAD-leftover-temp-files           something left in pencilcc's temporary directory ($TMPDIR),
                                    also after that SIGTERM
  BAD-rejects-what-gcc-compiles     -O3 -c fails where gcc -c succeeds
  BAD-accepts-what-gcc-rejects      -O3 -c succeeds where gcc -c fails
  BAD-output-left-after-failure     -O3 -c failed but its output file (or a partial one) exists
  BAD-silent-failure                -O3 -c failed without a diagnostic

Each case runs in its own scratch folder with TMPDIR pointing into it, so that
files left behind are pencilcc's, and with the compile cache off, so that the
analysis runs every time.
"""
from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from clangpass.resources import include_dir
from test_suite.fuzz.mutate import mutate

KERNELS = Path(__file__).resolve().parent.parent / "kernels"
_GRACE_SECONDS = 10.0


def kernel_sources() -> list[Path]:
    """The C files the mutations start from, in a fixed order."""
    return sorted(KERNELS.rglob("*.c"))


@dataclass
class Run:
    """One command of a case."""

    argv: list[str]
    returncode: int = 0
    stderr: str = ""
    timed_out: bool = False
    seconds: float = 0.0


@dataclass
class Case:
    seed: int
    kernel: str
    mutations: list[str]
    source: bytes = b""
    runs: dict[str, Run] = field(default_factory=dict)
    labels: list[str] = field(default_factory=list)
    leftovers: list[str] = field(default_factory=list)     # left in TMPDIR or beside the output

    @property
    def bad(self) -> bool:
        return any(label.startswith("BAD-") for label in self.labels)


def _run(argv: list[str], cwd: Path, env: dict[str, str], timeout: float) -> Run:
    """Run `argv`; past `timeout` it gets SIGTERM (pencilcc then removes its temporary files, as
    under make's or CI's timeouts), and SIGKILL if it is still there after a grace period."""
    run = Run(argv)
    start = time.monotonic()
    with subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          start_new_session=True) as proc:
        try:
            _, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            run.timed_out = True
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                _, stderr = proc.communicate(timeout=_GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                _, stderr = proc.communicate()
    run.returncode = proc.returncode
    run.stderr = stderr.decode(errors="replace")
    run.seconds = time.monotonic() - start
    return run


def _crash_labels(run: Run) -> list[str]:
    if run.timed_out:
        return ["BAD-hang"]
    if run.returncode < 0:
        return ["BAD-signal"]
    if "Traceback (most recent call last)" in run.stderr:
        return ["BAD-traceback"]
    if run.returncode == 70:
        return ["BAD-internal-error"]
    return []


def classify(lint: Run, compile_: Run, gcc: Run, output_left: bool, temp_left: list[str]) -> list[str]:
    """The labels of a case from its three runs and what they left behind."""
    if compile_.timed_out and gcc.timed_out:
        # The host compiler, which pencilcc runs on the same input, is as slow: not a hang of ours.
        return ["slow-input"] + (["BAD-leftover-temp-files"] if temp_left else []) + _crash_labels(lint)
    labels = _crash_labels(lint) + _crash_labels(compile_)
    if temp_left:
        labels.append("BAD-leftover-temp-files")
    if not compile_.timed_out and compile_.returncode > 0:
        if gcc.returncode == 0:
            labels.append("BAD-rejects-what-gcc-compiles")
        if output_left:
            labels.append("BAD-output-left-after-failure")
        if "error" not in compile_.stderr:
            labels.append("BAD-silent-failure")
    elif compile_.returncode == 0 and gcc.returncode != 0:
        labels.append("BAD-accepts-what-gcc-rejects")
    if labels:
        return sorted(set(labels))
    return ["ok"] if compile_.returncode == 0 else ["user-error"]


def run_case(seed: int, timeout: float, pencilcc: list[str], host_cc: list[str]) -> Case:
    """Mutate the kernel `seed` picks, compile it three ways, classify what happened."""
    rng = random.Random(seed)
    kernel = rng.choice(kernel_sources())
    text, names = mutate(kernel.read_bytes(), rng)
    case = Case(seed, str(kernel.relative_to(KERNELS)), names, text)
    scratch = Path(tempfile.mkdtemp(prefix="test_suite-fuzz-"))
    try:
        temp, out = scratch / "tmp", scratch / "out"
        temp.mkdir()
        out.mkdir()
        source = scratch / kernel.name
        source.write_bytes(text)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PENCILCC_")}
        env.update(TMPDIR=str(temp), PENCILCC_NO_CACHE="1", LC_ALL="C")
        includes = ["-I", str(kernel.parent)]
        case.runs["lint"] = _run([*pencilcc, "--lint", *includes, source.name], scratch, env, timeout)
        case.runs["compile"] = _run([*pencilcc, "-O3", "-c", *includes, source.name, "-o", str(out / "k.o")],
                                    scratch, env, timeout)
        gcc_temp = scratch / "gcc-tmp"      # gcc's own temporaries are not pencilcc's leftovers
        gcc_temp.mkdir()
        case.runs["gcc"] = _run([*host_cc, "-c", *includes, "-idirafter", str(include_dir()), source.name,
                                 "-o", str(scratch / "gcc.o")], scratch, {**env, "TMPDIR": str(gcc_temp)},
                                timeout)
        output_left = any(out.iterdir())
        # Beside the object of a successful compile, nothing may remain (an atomic write's temp).
        temp_left = sorted([p.name for p in temp.iterdir()] +
                           [p.name for p in out.iterdir() if case.runs["compile"].returncode == 0
                            and p.name != "k.o"])
        case.leftovers = temp_left
        case.labels = classify(case.runs["lint"], case.runs["compile"], case.runs["gcc"], output_left,
                               temp_left)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return case


def keep_case(case: Case, directory: Path) -> Path:
    """Write the case's input and a log of its runs under `directory`/seed-N."""
    folder = directory / f"seed-{case.seed}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / Path(case.kernel).name).write_bytes(case.source)
    lines = [f"seed {case.seed}: {case.kernel} mutated by {', '.join(case.mutations)}: "
             f"{' '.join(case.labels)}"]
    if case.leftovers:
        lines.append(f"left behind: {' '.join(case.leftovers)}")
    for name, run in case.runs.items():
        status = "timed out" if run.timed_out else f"exit {run.returncode}"
        lines += [f"== {name}: {' '.join(run.argv)}: {status} ({run.seconds:.1f} s)", run.stderr[-4000:]]
    (folder / "log.txt").write_text("\n".join(lines) + "\n")
    return folder
