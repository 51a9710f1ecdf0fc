# SPDX-License-Identifier: MIT
"""`#pragma pencil independent reduction(op: v)` as a parallel reduction on CPU threads.

Each program reduces into caller storage (`s[0]` of a one-element array parameter,
or a scalar of a `#pragma scop` region) with the operators of the PENCIL
definition; its values sum exactly (integers, or small integers held in doubles),
so every thread count must print what gcc -O0 prints. The record shows the loop
parallel and the reduction run on threads with the pragma, and the loop
sequential without it; a reduction variable the loop also reads otherwise stays
in order, and the remark says why. The bitwise and logical operators (`& | ^ && ||`,
OpenMP's, accepted beyond the definition's list) run over sizes 0, 1, 2, an odd
prime and the whole array, from starting values that are not 0 or 1 (a logical
reduction no update reaches must leave them as they are).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]
THREADS = (1, 2, 3)

MAIN = r"""
#include <stdio.h>
#include <math.h>
#include <pencil.h>
%(kernel)s
int main(void)
{
  static int a[4000];
  static double d[4000], b[300][200];
  for (int i = 0; i < 4000; i++) {
    a[i] = (i * 7919) %% 1000 - 300;
    d[i] = (double)((i * 31) %% 17) - 8.0;
  }
  for (int i = 0; i < 300; i++)
    for (int j = 0; j < 200; j++)
      b[i][j] = (double)((i + 3 * j) %% 11);
  %(call)s
  return 0;
}
"""

SUMS = r"""
static void sums(int n, int a[static const restrict 4000], double d[static const restrict 4000],
                 int s[static const restrict 1], double t[static const restrict 1],
                 int lo[static const restrict 1], double hi[static const restrict 1])
{
%(pragma)s
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    t[0] = t[0] + d[i];
    lo[0] = min(lo[0], a[i]);
    hi[0] = fmax(hi[0], d[i] * a[i]);
  }
}
"""
SUMS_CALL = r"""{ int s[1] = {7}, lo[1] = {100}; double t[1] = {0.5}, hi[1] = {-1e300};
    sums(4000, a, d, s, t, lo, hi); sums(0, a, d, s, t, lo, hi);
    printf("== r\n%d\n%.17g\n%d\n%.17g\n", s[0], t[0], lo[0], hi[0]); }"""
SUMS_PRAGMA = "#pragma pencil independent reduction(+: s, t) reduction(min: lo) reduction(max: hi)"

ROWS = r"""
static void rows(int n, int m, double b[static const restrict 300][200], double s[static const restrict 1],
                 double p[static const restrict 1])
{
#pragma pencil independent reduction(+: s) reduction(*: p)
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      s[0] -= b[i][j];
      p[0] *= (b[i][j] > 9.5 ? 2.0 : 1.0) * (b[i][j] < 0.5 ? 0.5 : 1.0);
    }
}
"""
ROWS_CALL = r"""{ double s[1] = {1.0}, p[1] = {1.0}; rows(300, 200, b, s, p);
    printf("== r\n%.17g\n%.17g\n", s[0], p[0]); }"""

# The reduction inside a sequential loop (one thread team around it), next to a loop that
# writes what the next step's reduction reads.
STEPS = r"""
static void steps(int T, int n, int a[static const restrict 4000], long s[static const restrict 1])
{
  for (int t = 0; t < T; t++) {
#pragma pencil independent reduction(+: s)
    for (int i = 0; i < n; i++)
      s[0] += a[i] * (t + 1);
    for (int i = 0; i < n; i++)
      a[i] = a[i] % 1000 + t;
  }
}
"""
STEPS_CALL = r"""{ long s[1] = {3}; steps(6, 4000, a, s);
    printf("== r\n%ld\n", s[0]);
    printf("== a\n"); for (int i = 0; i < 4000; i += 37) printf("%d\n", a[i]); }"""

# Two reductions per step, their results read in the same step (isl's maximal fusion would put
# that read in the loops' last iteration: minimal fusion keeps the loops apart).
TWO_PER_STEP = r"""
static void steps2(int T, int n, int a[static const restrict 4000], long s[static const restrict 1],
                   int mx[static const restrict 1], long hist[static const restrict 40])
{
  for (int t = 0; t < T; t++) {
#pragma pencil independent reduction(+: s)
    for (int i = 0; i < n; i++)
      s[0] += a[i] * (t + 1);
#pragma pencil independent reduction(max: mx)
    for (int i = 0; i < n; i++)
      mx[0] = max(mx[0], a[i] - t * 3);
    for (int i = 0; i < n; i++)
      a[i] = a[i] % 1000 + t;
    hist[t] = s[0] + mx[0];
  }
}
"""
TWO_PER_STEP_CALL = r"""{ static long hist[40]; long s[1] = {3}; int mx[1] = {-100000};
    steps2(40, 4000, a, s, mx, hist);
    printf("== r\n%ld\n%d\n== hist\n", s[0], mx[0]); for (int t = 0; t < 40; t++) printf("%ld\n", hist[t]);
    printf("== a\n"); for (int i = 0; i < 4000; i += 37) printf("%d\n", a[i]); }"""

SCOP = r"""
static int unused_kernel_marker;
"""
SCOP_CALL = r"""int s = 11, big = -5;
#pragma scop
#pragma pencil independent reduction(+: s) reduction(max: big)
  for (int i = 0; i < 4000; i++) {
    s += a[i] * 3;
    big = max(big, a[i] - i);
  }
#pragma endscop
  printf("== r\n%d\n%d\n%d\n", s, big, unused_kernel_marker);"""

# `s` is also read by the other statement: no private partial result can replace it.
READ_TOO = r"""
static void read_too(int n, int a[static const restrict 4000], int s[static const restrict 1])
{
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++) {
    s[0] += a[i];
    a[i] = s[0] % 100;
  }
}
"""
READ_TOO_CALL = r"""{ int s[1] = {0}; read_too(4000, a, s);
    printf("== r\n%d\n== a\n", s[0]); for (int i = 0; i < 4000; i += 37) printf("%d\n", a[i]); }"""


def _build(tmp_path: Path, name: str, kernel: str, call: str, *flags: str) -> tuple[Path, Path, dict, str]:
    source = tmp_path / f"{name}.c"
    source.write_text(MAIN % {"kernel": kernel, "call": call})
    exe = tmp_path / f"{name}-pencilcc"
    record = tmp_path / f"{name}.json"
    proc = harness.build(PENCILCC, [source], exe,
                         [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-fpencil-thread-min-work=0",
                          "-Rpass=pencil", "-Rpass-missed=pencil", f"-foptimization-record-file={record}",
                          *flags, "-lm"])
    regions = json.loads(record.read_text())["regions"]
    assert len(regions) == 1, regions
    return source, exe, regions[0], proc.stderr


def _same_as_gcc(tmp_path: Path, source: Path, exe: Path) -> None:
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*INCLUDE, "-lm"], threads=THREADS)


def _reduced(region: dict) -> dict[str, tuple[str, bool]]:
    [use] = region["pragmas"]
    return {r["variable"]: (r["operator"], r["threads"]) for r in use["reductions"]}


def test_sum_min_max_reductions_run_on_threads(tmp_path):
    source, exe, region, stderr = _build(tmp_path, "sums", SUMS % {"pragma": SUMS_PRAGMA}, SUMS_CALL)
    assert region["status"] == "optimized" and region["parallel_loops"] >= 1
    assert _reduced(region) == {"s": ("+", True), "t": ("+", True), "lo": ("min", True), "hi": ("max", True)}
    [use] = region["pragmas"]
    assert use["used"] and use["missed"] == ""
    assert "run on threads (private partial results combined in thread order)" in stderr
    _same_as_gcc(tmp_path, source, exe)


def test_without_the_pragma_the_loop_stays_sequential(tmp_path):
    source, exe, region, _ = _build(tmp_path, "plain", SUMS % {"pragma": ""}, SUMS_CALL)
    assert (region["status"], region["parallel_loops"], region["pragmas"]) == ("optimized", 0, [])
    _same_as_gcc(tmp_path, source, exe)


def test_no_threads_keeps_the_reduction_in_order(tmp_path):
    source, exe, region, stderr = _build(tmp_path, "seq", SUMS % {"pragma": SUMS_PRAGMA}, SUMS_CALL,
                                         "-fno-pencil-parallel")
    assert region["parallel_loops"] == 0
    assert set(_reduced(region).values()) <= {("+", False), ("min", False), ("max", False)}
    [use] = region["pragmas"]
    assert "reduction variable 's' kept in order: no loop runs on threads" in use["missed"]
    _same_as_gcc(tmp_path, source, exe)


def test_a_reduction_loop_not_run_on_threads_is_still_ordered(tmp_path):
    # Without mark-parallel the updates' dependences are still dropped (the scheduler may reorder
    # them) and the loop may become a vector loop: the updates stay out of its access group.
    source, exe, region, _ = _build(tmp_path, "vector", SUMS % {"pragma": SUMS_PRAGMA}, SUMS_CALL,
                                    "--disable-pass=mark-parallel")
    assert region["parallel_loops"] == 0
    [use] = region["pragmas"]
    assert "not run on threads: no parallel loop performs it" in use["missed"]
    _same_as_gcc(tmp_path, source, exe)


def test_a_guarded_count(tmp_path):
    kernel = r"""
static void count(int n, int a[static const restrict 4000], int c[static const restrict 1])
{
#pragma pencil independent reduction(+: c)
  for (int i = 0; i < n; i++)
    if (a[i] > 100)
      c[0]++;
}
"""
    call = r"""{ int c[1] = {2}; count(4000, a, c); printf("== r\n%d\n", c[0]); }"""
    source, exe, region, _ = _build(tmp_path, "count", kernel, call)
    assert region["parallel_loops"] == 1 and _reduced(region) == {"c": ("+", True)}
    _same_as_gcc(tmp_path, source, exe)


def test_difference_and_product_over_a_nest(tmp_path):
    # (The memory-stream model would keep the source order: the scheduler splits the statements.)
    source, exe, region, _ = _build(tmp_path, "rows", ROWS, ROWS_CALL, "-fpencil-source-order=gain")
    assert region["parallel_loops"] >= 1
    assert _reduced(region) == {"s": ("+", True), "p": ("*", True)}
    _same_as_gcc(tmp_path, source, exe)


def test_reduction_inside_a_sequential_loop(tmp_path):
    source, exe, region, _ = _build(tmp_path, "steps", STEPS, STEPS_CALL)
    assert region["parallel_loops"] >= 1 and region["thread_teams"] >= 1, region
    assert _reduced(region) == {"s": ("+", True)}
    _same_as_gcc(tmp_path, source, exe)


def test_two_reductions_read_in_every_step(tmp_path):
    source, exe, region, _ = _build(tmp_path, "steps2", TWO_PER_STEP, TWO_PER_STEP_CALL, "-fpencil-fusion=min")
    assert region["parallel_loops"] == 3 and region["thread_teams"] == 1, region
    assert [u["reductions"] for u in region["pragmas"]] == [
        [{"variable": "s", "operator": "+", "threads": True}], [{"variable": "mx", "operator": "max", "threads": True}]]
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*INCLUDE, "-lm"], threads=(1, 2, 3, 7))


def test_reduction_into_scalars_of_a_scop(tmp_path):
    source, exe, region, _ = _build(tmp_path, "scop", SCOP, SCOP_CALL)
    assert region["status"] == "optimized" and region["parallel_loops"] >= 1
    assert _reduced(region) == {"s": ("+", True), "big": ("max", True)}
    _same_as_gcc(tmp_path, source, exe)


def test_variable_read_in_the_loop_is_kept_in_order(tmp_path):
    source, exe, region, stderr = _build(tmp_path, "read_too", READ_TOO, READ_TOO_CALL)
    assert region["parallel_loops"] == 0
    assert _reduced(region) == {"s": ("+", False)}
    [use] = region["pragmas"]
    assert use["missed"].startswith("reduction variable 's' kept in order: the statement at line ")
    assert "uses it other than as a '+' update" in use["missed"]
    _same_as_gcc(tmp_path, source, exe)


@pytest.mark.parametrize("threads", ["1", "2", "3"])
def test_the_sum_is_the_same_on_every_run(tmp_path, threads):
    kernel = r"""
static void fsum(int n, double d[static const restrict 4000], double s[static const restrict 1])
{
#pragma pencil independent reduction(+: s)
  for (int i = 0; i < n; i++)
    s[0] += d[i] * 0.1;
}
"""
    call = r"""{ double s[1] = {0}; fsum(4000, d, s); printf("%.17g\n", s[0]); }"""
    _, exe, region, _ = _build(tmp_path, "fsum", kernel, call)
    assert _reduced(region) == {"s": ("+", True)}
    runs = {harness.run(exe, env={"PENCILCC_NUM_THREADS": threads}) for _ in range(4)}
    assert len(runs) == 1, runs


# Every form of update the model recognises for the bitwise and logical operators: `v op= e`,
# `v = v op e`, `v = e op v`, guarded, into int, unsigned, long and double storage.
BITS = r"""
static void bits(int n, int a[static const restrict 4000], int s[static const restrict 3],
                 unsigned u[static const restrict 2], long l[static const restrict 2],
                 double f[static const restrict 1])
{
#pragma pencil independent reduction(&: s) reduction(|: u)
  for (int i = 0; i < n; i++) {
    s[0] &= a[i] | 0x1000;
    u[0] = u[0] | (unsigned)(a[i] + 300) << (i % 20);
  }
#pragma pencil independent reduction(^: s, l)
  for (int i = 0; i < n; i++) {
    s[1] = (a[i] * 40503) ^ s[1];
    if (a[i] > 0)
      l[0] ^= (long)a[i] << 33;
  }
#pragma pencil independent reduction(&: u) reduction(^: s)
  for (int i = 0; i < n; i++) {
    u[1] = (unsigned)(a[i] + 301) & u[1];
    s[2] = s[2] ^ i;
  }
#pragma pencil independent reduction(&&: l) reduction(||: f)
  for (int i = 0; i < n; i++) {
    l[1] = l[1] && a[i] != 393;
    if (a[i] > 0)
      f[0] = a[i] == 619 || f[0];
  }
}
"""
BITS_CALL = r"""{ int sizes[5] = {0, 1, 2, 31, 4000};
    printf("== r\n");
    for (int k = 0; k < 5; k++) {
      int s[3] = {-1, 5, 0x5a5a}; unsigned u[2] = {0x10000u, 0xffffffffu}; long l[2] = {7, -3};
      double f[1] = {5.0};
      bits(sizes[k], a, s, u, l, f);
      printf("%d\n%d\n%d\n%d\n%u\n%u\n%ld\n%ld\n%.17g\n", sizes[k], s[0], s[1], s[2], u[0], u[1], l[0], l[1], f[0]);
    } }"""

# `&&` and `||` on int flags: all positive, any equal to the first, written both ways round.
FLAGS = r"""
static void flags(int n, int a[static const restrict 4000], int all[static const restrict 1],
                  int all2[static const restrict 1], int any[static const restrict 1],
                  int any2[static const restrict 1])
{
#pragma pencil independent reduction(&&: all, all2) reduction(||: any, any2)
  for (int i = 0; i < n; i++) {
    all[0] = all[0] && a[i] > -300;
    all2[0] = a[i] < 690 && all2[0];
    any[0] = any[0] || a[i] == 419;
    any2[0] = a[i] * 3 == 2097 || any2[0];
  }
}
"""
FLAGS_CALL = r"""{ int sizes[5] = {0, 1, 2, 31, 4000};
    printf("== r\n");
    for (int k = 0; k < 5; k++) {
      int all[1] = {9}, all2[1] = {-4}, any[1] = {0}, any2[1] = {6};
      flags(sizes[k], a, all, all2, any, any2);
      printf("%d\n%d\n%d\n%d\n%d\n", sizes[k], all[0], all2[0], any[0], any2[0]);
      all[0] = 0; any[0] = 1; flags(sizes[k], a, all, all2, any, any2);
      printf("%d\n%d\n", all[0], any[0]);
    } }"""

# A char reduction is computed in int (C's promotions): no private partial result of its type.
NARROW = r"""
static void narrow(int n, int a[static const restrict 4000], unsigned char c[static const restrict 1])
{
#pragma pencil independent reduction(|: c)
  for (int i = 0; i < n; i++)
    c[0] |= a[i] & 0x70;
}
"""
NARROW_CALL = r"""{ unsigned char c[1] = {1}; narrow(4000, a, c); printf("== r\n%d\n", c[0]); }"""


def test_bitwise_and_logical_reductions_run_on_threads(tmp_path):
    source, exe, region, stderr = _build(tmp_path, "bits", BITS, BITS_CALL)
    assert region["status"] == "optimized" and region["parallel_loops"] >= 4, region
    assert [u["reductions"] for u in region["pragmas"]] == [
        [{"variable": "s", "operator": "&", "threads": True}, {"variable": "u", "operator": "|", "threads": True}],
        [{"variable": "s", "operator": "^", "threads": True}, {"variable": "l", "operator": "^", "threads": True}],
        [{"variable": "u", "operator": "&", "threads": True}, {"variable": "s", "operator": "^", "threads": True}],
        [{"variable": "l", "operator": "&&", "threads": True}, {"variable": "f", "operator": "||", "threads": True}]]
    assert all(u["used"] and u["missed"] == "" for u in region["pragmas"])
    _same_as_gcc(tmp_path, source, exe)


def test_logical_reductions_keep_an_unreached_variable_and_give_zero_or_one(tmp_path):
    source, exe, region, _ = _build(tmp_path, "flags", FLAGS, FLAGS_CALL)
    assert region["parallel_loops"] >= 1
    assert _reduced(region) == {"all": ("&&", True), "all2": ("&&", True), "any": ("||", True),
                                "any2": ("||", True)}
    _same_as_gcc(tmp_path, source, exe)
    lines = harness.run(exe, env={"PENCILCC_NUM_THREADS": "2"}).split("\n")
    assert lines[1:8] == ["0", "9", "-4", "0", "6", "0", "1"]   # no iteration: the values stay as they are
    assert lines[8:13] == ["1", "0", "1", "0", "1"]             # one iteration: 0 or 1


def test_a_narrow_bitwise_reduction_is_kept_in_order(tmp_path):
    source, exe, region, _ = _build(tmp_path, "narrow", NARROW, NARROW_CALL)
    assert region["parallel_loops"] == 0
    assert _reduced(region) == {"c": ("|", False)}
    [use] = region["pragmas"]
    assert "uses it other than as a '|' update computed in its type" in use["missed"]
    _same_as_gcc(tmp_path, source, exe)
