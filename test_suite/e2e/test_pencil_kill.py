# SPDX-License-Identifier: MIT
"""`__pencil_kill` makes the killed data dead (issue 8, item 5).

A caller array used as a per-iteration temporary and killed after the loop leaves
no value to its caller: the model no longer counts it live-out (the
`-fpencil-dump=scop` Arrays line, clangpass.poly.live_ranges.live_out_arrays), and
privatize-arrays gives it a private copy with no last-value copy-out statement.
Without the kill the same array is live-out and the copy-out stores the last
iteration's values back. Both programs print what gcc -O0 prints, on 1 and 2 threads.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PROGRAM = r"""
#include <stdio.h>
#include <pencil.h>

static void mirror(int n, int m, const double A[static const restrict n][m],
                   double B[static const restrict n][m], double tmp[static const restrict m])
{
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < m; j++)
      tmp[j] = A[i][j] * 2.0 + i;
    for (int j = 0; j < m; j++)
      B[i][j] = tmp[j] - 0.5 * tmp[m - 1 - j];
  }
#ifdef KILL
  __pencil_kill(tmp);
#endif
}

int main(void)
{
  static double A[90][70], B[90][70], tmp[70];
  for (int i = 0; i < 90; i++)
    for (int j = 0; j < 70; j++)
      A[i][j] = (i * 13 + j * 7) % 17 - 8.25;
  mirror(90, 70, A, B, tmp);
  printf("== B\n");
  for (int i = 0; i < 90; i++)
    for (int j = 0; j < 70; j++)
      printf("%.17g\n", B[i][j]);
#ifndef KILL
  printf("== tmp\n");
  for (int j = 0; j < 70; j++)
    printf("%.17g\n", tmp[j]);
#endif
  return 0;
}
"""


def _build(tmp_path: Path, name: str, *defines: str) -> tuple[Path, Path, dict, dict[str, str]]:
    """(source, executable, the region's record, the scop dumps by the pass they follow)."""
    source = tmp_path / f"{name}.c"
    source.write_text(PROGRAM)
    exe = tmp_path / name
    record = tmp_path / f"{name}.json"
    proc = harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, *defines, "-O3",
                                                   "-fpencil-thread-min-work=0", "-fpencil-dump=scop",
                                                   f"-foptimization-record-file={record}"])
    dumps = dict(re.findall(r";; pencilcc scop 'mirror' after ([\w-]+)\n(.*?)(?=\n;; |\Z)", proc.stderr, re.S))
    [region] = json.loads(record.read_text())["regions"]
    return source, exe, region, dumps


def _array_line(dump: str, name: str) -> str:
    return next(line.strip() for line in dump.splitlines() if re.match(rf"\s+double {name}\[", line))


def test_killed_array_is_not_live_out_and_needs_no_copy_out(tmp_path):
    source, exe, region, dumps = _build(tmp_path, "killed", "-DKILL")
    assert (region["status"], region["reason"]) == ("optimized", "")
    assert _array_line(dumps["extract"], "tmp") == "double tmp[m];  // killed"
    assert _array_line(dumps["extract"], "B") == "double B[n][m];  // live-out"
    # Privatized without a last-value copy-out: no statement writes the caller's tmp any more.
    assert region["privatized_arrays"] == ["tmp"] and region["statements"] == 2
    assert "Body: tmp[" not in dumps["privatize-arrays"]
    assert _array_line(dumps["privatize-arrays"], "tmp") == "double tmp[m];"
    assert region["parallel_loops"] > 0
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE, "-DKILL"])


def test_without_the_kill_the_array_is_live_out_and_copied_out(tmp_path):
    source, exe, region, dumps = _build(tmp_path, "live")
    assert (region["status"], region["reason"]) == ("optimized", "")
    assert _array_line(dumps["extract"], "tmp") == "double tmp[m];  // live-out"
    assert region["privatized_arrays"] == ["tmp"] and region["statements"] == 3
    assert "Body: tmp[j] = __pencil_private_tmp[j] = " in dumps["privatize-arrays"]
    assert _array_line(dumps["privatize-arrays"], "tmp") == "double tmp[m];  // live-out"
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])
