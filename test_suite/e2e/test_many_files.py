# SPDX-License-Identifier: MIT
"""`make -j4 CC=pencilcc` on twenty files at once.

A generated program of twenty C files, half of them holding a small
``#pragma scop`` kernel and half plain C, is built in parallel by make.  Parallel
pencilcc processes must not collide (temporary files, outputs, the compile
cache): the program prints what the gcc build prints, the source folder gets no
stray files, every kernel has its optimisation record, and a second build after
``make clean`` (with a cold cache) gives byte-identical objects.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from test_suite.e2e.test_build_systems import (build_environment, first_difference,
                                               optimised_functions, run_checked, tree_files)

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")

FILES = 20
#: Files f00.c, f02.c, ... hold a scop kernel; the odd ones are plain C.
SCOP_FILES = tuple(k for k in range(FILES) if k % 2 == 0)

_MAKEFILE = """\
# SPDX-License-Identifier: MIT
CC ?= cc
CFLAGS ?= -O2
OBJS := $(patsubst src/%.c,obj/%.o,$(wildcard src/*.c))

prog: $(OBJS)
\t$(CC) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

obj/%.o: src/%.c
\t@mkdir -p obj
\t$(CC) -Isrc $(CFLAGS) -MMD -MP -c $< -o $@

clean:
\trm -rf obj prog

.PHONY: clean
-include $(OBJS:.o=.d)
"""

_HEADER = """\
/* SPDX-License-Identifier: MIT */
#ifndef MANY_H
#define MANY_H
#define MANY_N 24
{declarations}
#endif
"""

_SCOP_FILE = """\
/* SPDX-License-Identifier: MIT */
#include "many.h"

static void kernel_{k:02d}(int n, double x[n], double y[n][n])
{{
  int i, j;

#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      y[i][j] = x[i] * (j + {k}) + y[i][j] * 0.5;
  for (i = 1; i < n; i++)
    x[i] = x[i - 1] + y[i][i];
#pragma endscop
}}

double f{k:02d}(void)
{{
  double x[MANY_N], y[MANY_N][MANY_N], sum = 0.0;

  for (int i = 0; i < MANY_N; i++) {{
    x[i] = (double)((i * {k} + 1) % 7);
    for (int j = 0; j < MANY_N; j++)
      y[i][j] = (double)((i + 2 * j + {k}) % 5);
  }}
  kernel_{k:02d}(MANY_N, x, y);
  for (int i = 0; i < MANY_N; i++)
    sum += x[i] + y[i][(i * 7) % MANY_N];
  return sum;
}}
"""

_PLAIN_FILE = """\
/* SPDX-License-Identifier: MIT */
#include <stdlib.h>

#include "many.h"

static long walk(const int *values, int count, int depth)
{{
  long total = 0;

  if (count <= 0)
    return depth;
  switch (*values % 3) {{
  case 0:
    total = *values * {k};
    break;
  case 1:
    total = -*values;
    break;
  default:
    total = depth;
    break;
  }}
  return total + walk(values + 1, count - 1, depth + 1);
}}

double f{k:02d}(void)
{{
  int *values = malloc(MANY_N * sizeof *values);
  long total;

  if (!values)
    return -1.0;
  for (int i = 0; i < MANY_N; i++)
    values[i] = (i * {k} + 5) % 11;
  total = walk(values, MANY_N, 0);
  free(values);
  return (double)total / 4.0;
}}
"""

_MAIN = """\
/* SPDX-License-Identifier: MIT */
#include <stdio.h>

#include "many.h"

int main(void)
{{
{calls}
  return 0;
}}
"""


def write_program(root: Path) -> Path:
    """The generated project: Makefile, src/many.h, src/f00.c..f19.c, src/main.c."""
    src = root / "src"
    src.mkdir(parents=True)
    (root / "Makefile").write_text(_MAKEFILE)
    (src / "many.h").write_text(_HEADER.format(
        declarations="\n".join(f"double f{k:02d}(void);" for k in range(FILES))))
    for k in range(FILES):
        template = _SCOP_FILE if k in SCOP_FILES else _PLAIN_FILE
        (src / f"f{k:02d}.c").write_text(template.format(k=k))
    (src / "main.c").write_text(_MAIN.format(
        calls="\n".join(f'  printf("f{k:02d} %.17g\\n", f{k:02d}());' for k in range(FILES))))
    return root


def object_bytes(root: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((root / "obj").glob("*.o"))}


def test_make_j4_cc_pencilcc_on_twenty_files(tmp_path):
    env = build_environment(tmp_path / "bin", tmp_path / "cache-first")
    reference = write_program(tmp_path / "gcc")
    run_checked(["make", "-j4"], reference, env)
    expected = run_checked(["./prog"], reference, env)

    project = write_program(tmp_path / "pencilcc")
    sources = tree_files(project)
    make = ["make", "-j4", "CC=pencilcc", "CFLAGS=-O2 -fsave-optimization-record"]
    run_checked(make, project, env)
    assert first_difference(run_checked(["./prog"], project, env), expected) is None

    # Outputs only where the Makefile puts them: no temporary or stray file anywhere.
    assert tree_files(project, skip=("obj",)) == sources | {"prog"}
    stems = [f"f{k:02d}" for k in range(FILES)] + ["main"]
    outputs = tree_files(project / "obj")
    required = {f"{s}.o" for s in stems} | {f"{s}.d" for s in stems}
    required |= {f"f{k:02d}.opt.json" for k in SCOP_FILES}
    allowed_records = {f"{s}.opt.json" for s in stems}
    assert required <= outputs
    assert outputs - required <= allowed_records
    for k in SCOP_FILES:
        outcome = optimised_functions(project / "obj" / f"f{k:02d}.opt.json")
        assert outcome == {f"kernel_{k:02d}": "optimized"}, f"f{k:02d}.c"
    for record in sorted(outputs - required):
        assert optimised_functions(project / "obj" / record) == {}, f"{record} of a plain file"

    # Determinism: rebuild from scratch with a cold cache, get the same objects.
    first = object_bytes(project)
    run_checked(["make", "clean"], project, env)
    assert tree_files(project) == sources
    env_again = build_environment(tmp_path / "bin", tmp_path / "cache-second")
    run_checked(make, project, env_again)
    second = object_bytes(project)
    assert sorted(second) == sorted(first)
    differing = [name for name in first if first[name] != second[name]]
    assert differing == []
    assert first_difference(run_checked(["./prog"], project, env_again), expected) is None
