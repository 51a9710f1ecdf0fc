# SPDX-License-Identifier: MIT
"""Third-party code on user input cannot fail a build the host compiler passes
(clangpass.driver.isolate): 500- and 30,000-term expressions (libclang's stack,
the front end's RecursionError), a crashing analysis child (the
PENCILCC_TEST_CRASH_AT hook), an exhausted memory bound and the per-region time
limit each send the file or the region to the host compiler with a -Wpencil
warning, exit 0, leave no temporary files and give gcc -O0's program output.
A 16-deep nest compiles within the default limit; user errors still fail.

Every run has a private TMPDIR (pencilcc's temporary directories must be gone
afterwards) and no compile cache.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clangpass.driver.isolate import AnalysisFailed, run_isolated
from clangpass.toolchain import host_cc

PENCILCC = [sys.executable, "-m", "clangpass"]
CC = host_cc()

# A plain C file: its only PENCIL hint is the word in the comment, so pencilcc parses it.
LONG_SUM = """/* restrict */
#include <stdio.h>
static int f(const int *a) {{ return {terms}; }}
int main(void) {{ int a[7] = {{1, 2, 3, 4, 5, 6, 7}}; printf("%d\\n", f(a)); return 0; }}
"""

KERNEL = r"""#include <stdio.h>
#define N 40
static void kernel(int n, double A[N][N], double x[N])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      A[i][j] = A[i][j] * 2 + x[j];
#pragma endscop
}
int main(void)
{
  static double A[N][N], x[N];
  for (int i = 0; i < N; i++) {
    x[i] = i;
    for (int j = 0; j < N; j++)
      A[i][j] = i - 2 * j + 1;
  }
  kernel(N, A, x);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * (i + 1) - A[j][i];
  printf("%.1f\n", s);
  return 0;
}
"""


def deep_nest(depth: int) -> str:
    """A PENCIL function with one statement in a `depth`-deep nest, and a main printing its result."""
    heads = "".join(f"for (int i{k} = 0; i{k} < n; i{k}++)\n" for k in range(depth))
    return f"""#include <stdio.h>
static void deep(int n, float A[static const restrict n])
{{
{heads}      A[i0] += 1.0f + i{depth - 1};
}}
int main(void)
{{
  float A[2] = {{0.5f, 1.5f}};
  deep(2, A);
  printf("%.1f %.1f\\n", A[0], A[1]);
  return 0;
}}
"""


def pencilcc(args: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("PENCILCC_")}
    (cwd / "tmp").mkdir(exist_ok=True)
    environment.update(TMPDIR=str(cwd / "tmp"), PENCILCC_NO_CACHE="1", **env)
    return subprocess.run([*PENCILCC, *args], cwd=cwd, capture_output=True, text=True,
                          env=environment, timeout=300)


def gcc_output(source: Path) -> str:
    exe = source.with_suffix(".gcc")
    subprocess.run([*CC, "-O0", str(source), "-o", str(exe)], check=True, capture_output=True, timeout=300)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout


def built_output(exe: Path) -> str:
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60).stdout


def assert_clean(cwd: Path) -> None:
    """No temporary directory of pencilcc's is left behind."""
    assert list((cwd / "tmp").iterdir()) == []


def region_records(path: Path) -> list[dict]:
    return json.loads(path.read_text())["regions"]


# ----------------------------------------------------------------------------- long expressions
@pytest.mark.parametrize("terms", [500, 30000])
def test_long_expression_goes_to_the_host(tmp_path: Path, terms: int) -> None:
    """libclang parses on a thread with a large stack (30,000 terms overflowed its own and
    killed pencilcc); the front end's recursion then gives up and says so."""
    source = tmp_path / "sum.c"
    source.write_text(LONG_SUM.format(terms=" + ".join(f"a[{k % 7}]" for k in range(terms))))
    proc = pencilcc(["-O0", "sum.c", "-o", "sum"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "compiled by the host compiler unchanged: pencilcc cannot analyse this file (" in proc.stderr
    assert "RecursionError" in proc.stderr
    assert "[-Wpencil-internal-error]" in proc.stderr
    assert built_output(tmp_path / "sum") == gcc_output(source)
    assert_clean(tmp_path)


# ----------------------------------------------------------------------------- crashes, memory
def test_crash_in_a_region_falls_back_for_that_region(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O2", "k.c", "-o", "k", "-foptimization-record-file=k.json"], tmp_path,
                    PENCILCC_TEST_CRASH_AT="region 0")
    assert proc.returncode == 0, proc.stderr
    assert "pencilcc's analysis of the region crashed (SIGABRT)" in proc.stderr
    [record] = region_records(tmp_path / "k.json")
    assert record["status"] == "fallback" and "crashed (SIGABRT)" in record["reason"]
    assert record["reason_id"] == "pencil-internal-error" and "[-Wpencil-internal-error]" in proc.stderr
    assert built_output(tmp_path / "k") == gcc_output(tmp_path / "k.c")
    assert_clean(tmp_path)


def test_crash_while_parsing_falls_back_for_the_file(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O2", "-c", "k.c"], tmp_path, PENCILCC_TEST_CRASH_AT="parse")
    assert proc.returncode == 0, proc.stderr
    assert "k.c: warning: PENCIL code not optimized, the file is compiled by the host compiler " \
           "unchanged: pencilcc's analysis crashed (SIGABRT) (during parse) [-Wpencil-internal-error]" in proc.stderr
    assert (tmp_path / "k.o").is_file()
    assert_clean(tmp_path)


def test_without_a_crash_the_region_is_optimized(tmp_path: Path) -> None:
    """The control of the two tests above: the same kernel, no hook."""
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O2", "k.c", "-o", "k", "-foptimization-record-file=k.json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [r["status"] for r in region_records(tmp_path / "k.json")] == ["optimized"]
    assert built_output(tmp_path / "k") == gcc_output(tmp_path / "k.c")


def test_memory_limit_falls_back(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O2", "-fpencil-memory-limit=64", "k.c", "-o", "k"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "compiled by the host compiler" in proc.stderr and "Traceback" not in proc.stderr
    # The parser's large stack did not fit: that is the memory limit, and said so (issue 29).
    assert "ran out of memory (the limit is 64 MiB, -fpencil-memory-limit=)" in proc.stderr, proc.stderr
    assert "internal error" not in proc.stderr
    assert built_output(tmp_path / "k") == gcc_output(tmp_path / "k.c")
    assert_clean(tmp_path)


# ----------------------------------------------------------------------------- time limit, deep nests
def test_time_limit_sends_a_slow_region_to_the_host(tmp_path: Path) -> None:
    (tmp_path / "d.c").write_text(deep_nest(10))
    proc = pencilcc(["-O3", "-fpencil-time-limit=0.05", "d.c", "-o", "d", "-foptimization-record-file=d.json"],
                    tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("exceeded the time limit of 0.05 s (-fpencil-time-limit=), so the result depends on this "
            "machine's speed and load") in proc.stderr
    [record] = region_records(tmp_path / "d.json")
    assert record["status"] == "fallback" and "exceeded the time limit" in record["reason"]
    assert record["nondeterministic"] == "time limit"
    assert record["reason_id"] == "pencil-time-limit" and "[-Wpencil-time-limit]" in proc.stderr
    assert built_output(tmp_path / "d") == gcc_output(tmp_path / "d.c")
    assert_clean(tmp_path)


def test_sixteen_deep_nest_is_scheduled_within_the_default_limit(tmp_path: Path) -> None:
    (tmp_path / "d.c").write_text(deep_nest(16))
    proc = pencilcc(["-O3", "d.c", "-o", "d", "-foptimization-record-file=d.json"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    [record] = region_records(tmp_path / "d.json")
    assert record["status"] == "optimized", record["reason"]
    assert "without proximity constraints" in record["reason"]
    assert built_output(tmp_path / "d") == gcc_output(tmp_path / "d.c")


# ----------------------------------------------------------------------------- user errors, options
def test_user_errors_still_fail_the_build(tmp_path: Path) -> None:
    (tmp_path / "bad.c").write_text("/* restrict */\nint f(void) { return undeclared_name; }\n")
    proc = pencilcc(["-O2", "-c", "bad.c"], tmp_path)
    assert proc.returncode == 1
    assert "bad.c:2:" in proc.stderr and "undeclared_name" in proc.stderr
    assert not (tmp_path / "bad.o").exists()
    assert_clean(tmp_path)


@pytest.mark.parametrize("flag", ["-fpencil-time-limit=soon", "-fpencil-time-limit=-1",
                                  "-fpencil-memory-limit=lots"])
def test_bad_limit_values_are_usage_errors(tmp_path: Path, flag: str) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc([flag, "-c", "k.c"], tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("pencilcc: error: '-fpencil-")
    assert not (tmp_path / "k.o").exists()


# ----------------------------------------------------------------------------- the isolation itself
def _raise(watch) -> int:
    raise ValueError("lost")


def _run_out_of_memory(watch) -> int:
    raise MemoryError


def _sleep(watch) -> int:
    import time

    watch.stage("region 3", 0.1)
    time.sleep(30)
    return 0


def _abort(watch) -> int:
    import faulthandler

    faulthandler.disable()      # pytest's: it would print the child's stack on stderr
    os.abort()


def test_run_isolated_returns_the_result() -> None:
    assert run_isolated(lambda watch: {"bytes": b"x" * 100000}, 0, "parse", 5) == {"bytes": b"x" * 100000}


@pytest.mark.parametrize("work, stage, reason", [
    (_raise, "parse", "internal error (ValueError: lost)"),
    (_sleep, "region 3", "exceeded the time limit of 0.1 s (-fpencil-time-limit=), so the result depends on "
                         "this machine's speed and load"),
    (_abort, "parse", "crashed (SIGABRT)"),
    (_run_out_of_memory, "parse", "ran out of memory (the limit is 0 MiB, -fpencil-memory-limit=)"),
])
def test_run_isolated_says_why_there_is_no_result(work, stage: str, reason: str) -> None:
    with pytest.raises(AnalysisFailed) as failure:
        run_isolated(work, 0, "parse", 20)
    assert (failure.value.stage, failure.value.reason) == (stage, reason)
    assert failure.value.nondeterministic == ("time limit" if work is _sleep else "")
    assert failure.value.reject_id == {_sleep: "pencil-time-limit", _run_out_of_memory: "pencil-memory-limit"}.get(
        work, "pencil-internal-error")
