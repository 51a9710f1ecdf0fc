# SPDX-License-Identifier: MIT
"""The kernel suite through the real pencilcc: every region optimized, same results as gcc -O0.

Every `test_suite/kernels/polybench/*.c` and `test_suite/kernels/pencil/*.c` is
built by `pencilcc` (this checkout, `python -m clangpass`) at -O0 and -O3 with
`-fsave-optimization-record` and `-Wall -Wextra -Werror` (the rewritten file
must not warn where the original does not), run with one and two threads
(`OMP_NUM_THREADS`, and `PENCILCC_NUM_THREADS`, which overrides it), and its
output is compared with
the same program built by `gcc -O0` (`harness.compare_outputs`, rtol 1e-9). The
record must list every region of the kernel as `optimized`: a fallback would
make the comparison meaningless (the host compiler would have run the region).

Builds run in parallel in the background (one per CPU) as soon as the module's
first test starts; each test waits for its own.
"""
from __future__ import annotations

import json
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
LEVELS = ("-O0", "-O3")
# The kernels build warning-free with gcc (test_kernels_gcc.py): outlining must add no
# warning either. A region that falls back stays a warning, reported from the record.
WARNING_FLAGS = ("-Wall", "-Wextra", "-Werror", "-Wno-error=pencil")
THREAD_SETTINGS = (
    {"OMP_NUM_THREADS": "1"},
    {"OMP_NUM_THREADS": "2"},
    {"OMP_NUM_THREADS": "1", "PENCILCC_NUM_THREADS": "2"},
)
KERNELS = [(source, level) for source in [*harness.polybench_sources(), *harness.pencil_sources()]
           for level in LEVELS]


def _kernel_id(source: Path, level: str) -> str:
    return f"{source.parent.name}/{source.stem}{level}"


class Builds:
    """pencilcc builds of every kernel, started together, run `os.cpu_count()` at a time."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
        self.futures: dict[str, Future] = {
            _kernel_id(source, level): self.pool.submit(self._build, source, level)
            for source, level in KERNELS
        }

    def _build(self, source: Path, level: str) -> tuple[Path, dict]:
        exe = self.workdir / _kernel_id(source, level).replace("/", "-")
        harness.build(PENCILCC, [source], exe,
                      [*harness.KERNEL_CFLAGS, *WARNING_FLAGS, level, "-fsave-optimization-record"],
                      env={"PENCILCC_NO_CACHE": "1"})
        record = json.loads(exe.with_name(exe.name + ".opt.json").read_text())
        return exe, record

    def result(self, source: Path, level: str) -> tuple[Path, dict]:
        return self.futures[_kernel_id(source, level)].result()


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory):
    started = Builds(tmp_path_factory.mktemp("pencilcc_kernels"))
    yield started
    started.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def reference_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("gcc_reference")


@pytest.mark.parametrize("source, level",
                         [pytest.param(s, lv, id=_kernel_id(s, lv)) for s, lv in KERNELS])
def test_kernel(source: Path, level: str, builds: Builds, reference_dir: Path) -> None:
    reference = harness.gcc_reference(source, reference_dir)
    exe, record = builds.result(source, level)
    regions = record["regions"]
    assert regions, f"{source.name}: the record lists no region"
    not_optimized = [f"{r['function']} (line {r['line']}): {r['status']}: {r['reason']}"
                     for r in regions if r["status"] != "optimized"]
    assert not_optimized == [], f"{source.name} {level}: regions not optimized: {not_optimized}"
    for threads in THREAD_SETTINGS:
        output = harness.run(exe, env=threads)
        problems = harness.compare_outputs(reference, output, rtol=1e-9)
        assert problems == [], f"{source.name} {level} {threads}: " + "; ".join(problems)
