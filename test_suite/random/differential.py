# SPDX-License-Identifier: MIT
"""Differential check of one generated program: reference compiler versus candidate.

`check_seed` generates the program of a seed, builds it with the reference compiler
(`gcc -std=c99 -O0`) and with the candidate (pencilcc by default), runs both and
compares their outputs with the e2e harness (`test_suite/e2e/harness.py`) at a
relative tolerance of 1e-9.  Used by `python -m test_suite.random` and by the tests.
"""
from __future__ import annotations

import os
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from test_suite.e2e import harness
from test_suite.random.generator import GenConfig, GeneratedProgram, generate

#: The reference: what every candidate must agree with.
REFERENCE_COMPILER: tuple[str, ...] = ("gcc",)
REFERENCE_FLAGS: tuple[str, ...] = ("-std=c99", "-O0", "-Wno-unknown-pragmas")
#: Flags given to the candidate compiler before the source (``-lm`` comes last).
CANDIDATE_FLAGS: tuple[str, ...] = ("-std=c99", "-Wno-unknown-pragmas")
#: pencilcc run from this checkout, without installing it. Random programs are small: the
#: granularity model would keep them off threads, so every parallel loop is forced onto them
#: (thread teams, barriers and chunking are what the comparison must see).
PENCILCC: tuple[str, ...] = (sys.executable, "-m", "clangpass", "-O3", "-fpencil-thread-min-work=0")
RTOL = 1e-9


@dataclass
class Outcome:
    """What happened to one seed."""

    seed: int
    passed: bool
    stage: str = "compare"  # generate, reference build/run, candidate build/run, compare
    problems: list[str] = field(default_factory=list)
    description: str = ""
    kept: Path | None = None  # where the failing program was kept
    #: pencilcc's `[-Wpencil...]` warnings, e.g. a region compiled by the host compiler instead
    candidate_warnings: list[str] = field(default_factory=list)

    @property
    def fell_back(self) -> bool:
        """Whether a region of the program was not optimized (host-compiler fallback)."""
        return any("not optimized" in w for w in self.candidate_warnings)

    def summary(self) -> str:
        head = f"seed {self.seed}: {self.stage} failed"
        if self.kept is not None:
            head += f" (kept: {self.kept})"
        detail = "\n".join("    " + line for p in self.problems[:6] for line in p.splitlines()[:12])
        return head + ("\n" + detail if detail else "")


def check_program(program: GeneratedProgram, workdir: Path, candidate: Sequence[str],
                  *, rtol: float = RTOL, timeout: float = 120) -> Outcome:
    """Build and run `program` with the reference and the candidate; compare outputs."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"seed{program.seed}.c"
    source.write_text(program.source)
    outcome = Outcome(program.seed, False, description=program.description)
    pencilcc = any(part.endswith("pencilcc") or part == "clangpass" for part in candidate)
    candidate_flags = CANDIDATE_FLAGS + (program.flags if pencilcc else ())
    emitted = workdir / f"seed{program.seed}.emitted.c"
    if pencilcc and program.emit_c:
        candidate_flags += (f"-fpencil-emit-c={emitted}",)
    steps = [("reference", REFERENCE_COMPILER, REFERENCE_FLAGS), ("candidate", tuple(candidate), candidate_flags)]
    # `python -m clangpass` must find this checkout's package from any directory
    pythonpath = os.pathsep.join(p for p in (str(harness.REPO_ROOT), os.environ.get("PYTHONPATH"))
                                 if p)
    outputs: list[str] = []
    for role, compiler, flags in steps:
        exe = workdir / f"seed{program.seed}.{role}"
        outcome.stage = f"{role} build"
        env = {"PYTHONPATH": pythonpath} if role == "candidate" else None
        try:
            proc = harness.build(compiler, [source], exe, flags, env=env, timeout=timeout)
            if role == "candidate":
                outcome.candidate_warnings = [line.split(": warning: ", 1)[1]
                                              for line in proc.stderr.splitlines()
                                              if ": warning: " in line and "[-Wpencil" in line]
            outcome.stage = f"{role} run"
            # OpenCL builds cache their device programs in the seed's folder, not the user's.
            run_env = {"PENCILCC_CACHE_DIR": str(workdir)} if "-fpencil-target=opencl" in flags else None
            outputs.append(harness.run(exe, env=run_env, timeout=timeout))
        except (harness.HarnessError, OSError) as exc:
            outcome.problems.append(str(exc))
            return outcome
        if role == "candidate" and pencilcc and program.emit_c:
            # The optimized program as C, built by gcc alone (OpenMP threads for parallel loops).
            outcome.stage = "emitted C build"
            try:
                exe = workdir / f"seed{program.seed}.emitted"
                harness.build(REFERENCE_COMPILER, [emitted], exe, ("-std=c99", "-O1", "-fopenmp",
                                                                   "-Wno-unknown-pragmas"), timeout=timeout)
                outcome.stage = "emitted C run"
                emitted_output = harness.run(exe, timeout=timeout)
            except (harness.HarnessError, OSError) as exc:
                outcome.problems.append(str(exc))
                return outcome
    outcome.stage = "compare"
    outcome.problems = harness.compare_outputs(outputs[0], outputs[1], rtol)
    if pencilcc and program.emit_c and not outcome.problems:
        outcome.problems = [f"emitted C: {p}" for p in harness.compare_outputs(outputs[0], emitted_output, rtol)]
    outcome.passed = not outcome.problems
    return outcome


def check_seed(seed: int, workdir: Path, candidate: Sequence[str],
               config: GenConfig = GenConfig(), *, keep: Path | None = None,
               rtol: float = RTOL) -> Outcome:
    """Generate the program of `seed` and check it; a failing program is copied to `keep`.

    The build products of a passing seed are removed from `workdir`.
    """
    seed_dir = workdir / f"seed{seed}"
    try:
        program = generate(seed, config)
    except Exception as exc:  # a generator bug is a failure of that seed, not of the run
        return Outcome(seed, False, "generate", [f"{type(exc).__name__}: {exc}"])
    outcome = check_program(program, seed_dir, candidate, rtol=rtol)
    if not outcome.passed and keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        kept = keep / f"seed{seed}.c"
        kept.write_text(program.source)
        (keep / f"seed{seed}.log").write_text(outcome.summary() + "\n" + "\n".join(outcome.problems) + "\n")
        outcome.kept = kept
    if outcome.passed:
        shutil.rmtree(seed_dir, ignore_errors=True)
    return outcome
