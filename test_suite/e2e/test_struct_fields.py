# SPDX-License-Identifier: MIT
"""Fields of struct array elements are accesses of the model (issue 8, item 3).

An array of structs of numbers is one more dimension, its fields in order (nested
structs flattened): `img[i].g` is `img[i][1]`, a whole element `img[i]` is every
field (clangpass.poly.extract). Colour conversion on RGB pixels, a struct copy and a
nested struct are optimized and print what gcc -O0 prints, on 1 and 2 threads.
"""
from __future__ import annotations

import json
import sys

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
INCLUDE = ["-I", str(harness.REPO_ROOT / "include")]

PROGRAM = r"""
#include <stdio.h>
#include <pencil.h>

struct rgb { float r, g, b; };
struct particle { struct { double x, y; } pos; double mass; };

void to_gray(int h, int w, const struct rgb img[static const restrict h][w], float out[static const restrict h][w]) PENCIL;
void to_gray(int h, int w, const struct rgb img[static const restrict h][w], float out[static const restrict h][w])
{
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++)
      out[i][j] = 0.299f * img[i][j].r + 0.587f * img[i][j].g + 0.114f * img[i][j].b;
}

/* Swap channels in place, and copy whole elements. */
void swap_copy(int n, struct rgb a[static const restrict n], struct rgb b[static const restrict n]) PENCIL;
void swap_copy(int n, struct rgb a[static const restrict n], struct rgb b[static const restrict n])
{
  for (int i = 0; i < n; i++) {
    float t = a[i].r;
    a[i].r = a[i].b;
    a[i].b = t;
  }
  for (int i = 0; i < n; i++)
    b[i] = a[n - 1 - i];
}

void drift(int n, struct particle p[static const restrict n], double dt) PENCIL;
void drift(int n, struct particle p[static const restrict n], double dt)
{
  for (int i = 1; i < n; i++) {
    p[i].pos.x += dt * p[i - 1].mass;
    p[i].pos.y -= dt * p[i].pos.x / p[i].mass;
  }
}

int main(void)
{
  static struct rgb img[20][30], a[50], b[50];
  static float out[20][30];
  static struct particle p[40];
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 30; j++) {
      img[i][j].r = (i * 7 + j) % 256;
      img[i][j].g = (i + j * 3) % 256;
      img[i][j].b = (i * j) % 256;
    }
  for (int i = 0; i < 50; i++) {
    a[i].r = i;
    a[i].g = 2 * i;
    a[i].b = 100 - i;
  }
  for (int i = 0; i < 40; i++) {
    p[i].pos.x = i * 0.5;
    p[i].pos.y = 10 - i;
    p[i].mass = 1 + i % 3;
  }
  to_gray(20, 30, img, out);
  swap_copy(50, a, b);
  drift(40, p, 0.125);
  printf("== gray\n");
  for (int i = 0; i < 20; i++)
    for (int j = 0; j < 30; j++)
      printf("%.9g\n", out[i][j]);
  printf("== a b\n");
  for (int i = 0; i < 50; i++)
    printf("%.9g\n%.9g\n%.9g\n%.9g\n%.9g\n%.9g\n", a[i].r, a[i].g, a[i].b, b[i].r, b[i].g, b[i].b);
  printf("== p\n");
  for (int i = 0; i < 40; i++)
    printf("%.17g\n%.17g\n%.17g\n", p[i].pos.x, p[i].pos.y, p[i].mass);
  return 0;
}
"""


def test_struct_fields_are_optimized_and_correct(tmp_path):
    source = tmp_path / "fields.c"
    source.write_text(PROGRAM)
    exe, record = tmp_path / "fields", tmp_path / "fields.json"
    harness.build(PENCILCC, [source], exe, [*harness.KERNEL_CFLAGS, *INCLUDE, "-O3", "-fpencil-thread-min-work=0",
                                            f"-foptimization-record-file={record}"])
    regions = {r["function"]: r for r in json.loads(record.read_text())["regions"]}
    assert {name: (r["status"], r["reason"]) for name, r in regions.items()} == {
        "to_gray": ("optimized", ""), "swap_copy": ("optimized", ""), "drift": ("optimized", "")}
    assert regions["to_gray"]["parallel_loops"] >= 1
    harness.assert_matches_gcc_O0(source, exe, tmp_path, [*harness.KERNEL_CFLAGS, *INCLUDE])


PARTICLES = r"""
#include <stdio.h>
struct particle { double pos[3]; double vel[3]; double m[2][2]; int id; };

void step(int n, struct particle p[static const restrict n], double dt)
{
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 3; k++)
      p[i].pos[k] = p[i].pos[k] + dt * p[i].vel[k];
  for (int i = 1; i < n; i++)
    p[i].vel[0] = 0.5 * (p[i].vel[0] + p[i - 1].pos[2]);
  for (int i = 0; i < n; i++)
    for (int k = 0; k < 4; k++)
      p[i].m[k / 2][k % 2] = p[i].m[k % 2][k / 2] + p[i].pos[p[i].id % 3];
}

int main(void)
{
  static struct particle p[200];
  for (int i = 0; i < 200; i++) {
    p[i].id = i * 7;
    for (int k = 0; k < 3; k++) {
      p[i].pos[k] = i * 0.5 + k;
      p[i].vel[k] = (i % 7) * 0.25 - k;
    }
    for (int k = 0; k < 4; k++)
      p[i].m[k / 2][k % 2] = k - i * 0.125;
  }
  step(200, p, 0.125);
  printf("== p\n");
  for (int i = 0; i < 200; i++) {
    for (int k = 0; k < 3; k++)
      printf("%.17g\n%.17g\n", p[i].pos[k], p[i].vel[k]);
    for (int k = 0; k < 4; k++)
      printf("%.17g\n", p[i].m[k / 2][k % 2]);
  }
  return 0;
}
"""


def test_array_fields_are_more_numbers_of_the_struct(tmp_path):
    """`p[i].pos[k]`: an array field of constant extents is its numbers, row-major, in the
    struct's last dimension (pos at 0..2, vel at 3..5, m at 6..9): the access is p[i, k]; a
    non-affine field subscript touches any number of the field... here of the struct."""
    source = tmp_path / "particles.c"
    source.write_text(PARTICLES)
    exe = tmp_path / "particles"
    proc, regions = harness.build_recorded([source], exe, [*harness.KERNEL_CFLAGS, "-O3", "-fpencil-thread-min-work=0",
                                                           "-fpencil-dump=scop"])
    assert regions["step"]["status"] == "optimized" and regions["step"]["parallel_loops"] >= 2
    assert regions["step"]["approximated_accesses"] == [
        "'p[i].pos[(p[i].id % 3)]' at particles.c:14:53: any element of the struct along a non-affine field "
        "subscript"]
    scop = proc.stderr.split(";; pencilcc scop")[1]
    assert "S_0[i, k] -> p[i, 3 + k]" in scop and "MustWriteAccess :=\n            [n] -> { S_0[i, k] -> p[i, k]" in scop
    harness.assert_matches_gcc_O0(source, exe, tmp_path, harness.KERNEL_CFLAGS)
