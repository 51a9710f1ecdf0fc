# SPDX-License-Identifier: MIT
"""CPU back end: hand-built CodegenUnits compiled to objects, linked with a C driver,
run, and compared with the same C compiled by gcc -O0.

Every program holds the kernel twice: as C (the reference, compiled by `cc -O0`
inside the driver) and as our object (the outlined symbol). The driver runs both
on identical inputs and prints `reference ours` pairs, one per line.
"""
from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import islpy as isl
import pytest

from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen_unit import CodegenUnit
from clangpass.regions import find_regions
from clangpass.resources import include_dir
from llvm_backend.cpu import BackendError, build_module, emit_llvm_ir, emit_object, runtime_link_flags
from test_suite.unit.backend.units import nest_unit, region_unit

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler")


def _prototype(unit: CodegenUnit) -> str:
    params = []
    for arg in unit.region.args:
        if arg.passing == "value":
            params.append(f"{arg.type.unqualified().spelling()} {arg.name}")
        elif arg.passing == "pointer":
            params.append(f"{arg.type.unqualified().spelling()} *{arg.name}")
        else:
            params.append(f"void *{arg.name}")
    return f"void {unit.region.symbol}({', '.join(params) or 'void'});"


class Kernel:
    """A C file with one region, turned into a unit and a runnable program."""

    def __init__(self, tmp_path: Path, source: str, nest: tuple[str, tuple[str, ...], str] | None = None,
                 schedule: tuple[str, list[str]] | None = None, parallel=(), context: str = "",
                 function: str = "k", ctx=None) -> None:
        self.dir = tmp_path
        self.source = tmp_path / "kernel.c"
        self.source.write_text("#include <math.h>\n#include <pencil.h>\n" + textwrap.dedent(source))
        if nest is not None:
            self.unit = nest_unit(str(self.source), function, *nest, parallel=parallel, context=context)
        else:
            self.unit = region_unit(str(self.source), function, *schedule, parallel=parallel, context=context,
                                    ctx=ctx)

    @property
    def args(self) -> list[str]:
        return [a.name for a in self.unit.region.args]

    def build(self, main: str, options: CompileOptions = CompileOptions(), tag: str = "") -> Path:
        obj = self.dir / f"ours{tag}.o"
        obj.write_bytes(emit_object([self.unit], options, "kernel"))
        driver = self.dir / f"driver{tag}.c"
        driver.write_text(
            '#include "kernel.c"\n#include <stdio.h>\n#include <string.h>\n'
            f"{_prototype(self.unit)}\n#define OURS {self.unit.region.symbol}\n"
            + textwrap.dedent(main))
        exe = self.dir / f"prog{tag}"
        cmd = ["cc", "-O0", "-std=gnu99", "-w", f"-I{include_dir()}", str(driver), str(obj), "-o", str(exe),
               *runtime_link_flags([self.unit], options), "-lm"]
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        return exe

    def run(self, main: str, options: CompileOptions = CompileOptions(), env: dict | None = None,
            tag: str = "") -> list[tuple[str, str]]:
        exe = self.build(main, options, tag)
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                             env={**os.environ, **(env or {})}, timeout=60).stdout
        return [tuple(line.split()) for line in out.splitlines()]


def assert_pairs_equal(pairs, rel: float = 0.0) -> None:
    assert pairs, "the driver printed nothing"
    for i, (ref, ours) in enumerate(pairs):
        if rel and ref != ours:
            r, o = float(ref), float(ours)
            assert (math.isnan(r) and math.isnan(o)) or math.isclose(r, o, rel_tol=rel, abs_tol=1e-300), (i, ref, ours)
        else:
            assert ref == ours, (i, ref, ours)


# --------------------------------------------------------------------------------- integers
INTEGER_KERNEL = """
void k(int n, unsigned char uc[n], int si[n], unsigned ui[n], long sl[n], short ss[n],
       signed char sc[n], _Bool bo[n], int *acc)
{
#pragma scop
  for (int i = 0; i < n; i++) {
    uc[i] = uc[i] * 3 + 7;
    uc[i] += 200;
    si[i] = (i - 17) / 5 + (i - 17) % 5 * 100 + (-i) / 3;
    ui[i] = ui[i] - 5u * i + (ui[i] >> 3) + (ui[i] / 7u) % 13u;
    sl[i] = (((long)(si[i] & 0x7fff) << 40) - (1L << 60)) >> 7;
    sl[i] >>= 3;
    ss[i] += 30000;
    ss[i] >>= 1;
    sc[i] = sc[i] * sc[i] - 100;
    sc[i]--;
    uc[i]++;
    ++ui[i];
    si[i] ^= (i & 6) | ~i;
    si[i] %= 1000;
    si[i] += (si[i] < 0) + 2 * (uc[i] >= 128) + 4 * (ui[i] == 0u) + 8 * !si[i];
    bo[i] = si[i] & 8;
    bo[i] += 1;
    bo[i] ^= i & 1;
    *acc += si[i] * (int)bo[i];
    (*acc)++;
    *acc -= 3 * bo[i]--;
    --(*acc);
  }
#pragma endscop
}
"""


INTEGER_MAIN = """
#define N 53
static void fill(unsigned char *uc, int *si, unsigned *ui, long *sl, short *ss, signed char *sc, _Bool *bo)
{
  for (int i = 0; i < N; i++) {
    uc[i] = (unsigned char)(i * 37 + 11); si[i] = i * 7919 - 200000; ui[i] = 4000000000u + i * 12345u;
    sl[i] = -(long)i * 1234567; ss[i] = (short)(i * 1000 - 9000); sc[i] = (signed char)(i * 13 - 60);
    bo[i] = i % 3 == 0;
  }
}
int main(void)
{
  unsigned char uc[2][N]; int si[2][N]; unsigned ui[2][N]; long sl[2][N]; short ss[2][N];
  signed char sc[2][N]; _Bool bo[2][N]; int acc[2] = {5, 5};
  fill(uc[0], si[0], ui[0], sl[0], ss[0], sc[0], bo[0]);
  fill(uc[1], si[1], ui[1], sl[1], ss[1], sc[1], bo[1]);
  k(N, uc[0], si[0], ui[0], sl[0], ss[0], sc[0], bo[0], &acc[0]);
  OURS(N, uc[1], si[1], ui[1], sl[1], ss[1], sc[1], bo[1], &acc[1]);
  for (int i = 0; i < N; i++) {
    printf("%d %d\\n", uc[0][i], uc[1][i]); printf("%d %d\\n", si[0][i], si[1][i]);
    printf("%u %u\\n", ui[0][i], ui[1][i]); printf("%ld %ld\\n", sl[0][i], sl[1][i]);
    printf("%d %d\\n", ss[0][i], ss[1][i]); printf("%d %d\\n", sc[0][i], sc[1][i]);
    printf("%d %d\\n", bo[0][i], bo[1][i]);
  }
  printf("%d %d\\n", acc[0], acc[1]);
  return 0;
}
"""


def test_integer_promotions_wraparound_division_shifts(tmp_path):
    kernel = Kernel(tmp_path, INTEGER_KERNEL, nest=("[n]", ("i",), "0 <= i < n"))
    assert kernel.args == ["n", "uc", "si", "ui", "sl", "ss", "sc", "bo", "acc"]
    for level in (0, 2):
        pairs = kernel.run(INTEGER_MAIN, CompileOptions(opt_level=level), tag=str(level))
        assert len(pairs) == 53 * 7 + 1
        assert_pairs_equal(pairs)
        # uc[0] = 11: (11*3+7) & 255 = 40, +200 = 240, ++ = 241 (unsigned char arithmetic wraps).
        assert pairs[0] == ("241", "241")
        # ui wraps modulo 2^32 and stays unsigned: no value is negative.
        assert all(int(p[1]) >= 0 for p in pairs[2::7])


# --------------------------------------------------------------------------------- conversions
CONVERSION_KERNEL = """
void k(int n, double d[n], float f[n], int iv[n], unsigned uv[n], long lv[n], unsigned char uc[n],
       signed char sc[n], unsigned long ul[n], _Bool b[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    iv[i] = d[i];
    uv[i] = d[i] < 0 ? -d[i] : d[i];
    f[i] = d[i] * 1.5f;
    lv[i] = (long)f[i] * 3 + (long)(f[i] * 1e6f);
    d[i] = uv[i] + (double)ul[i] / 3 + lv[i];
    uc[i] = (unsigned char)(iv[i] + 1000);
    sc[i] = (signed char)uc[i];
    iv[i] += sc[i] + uc[i];
    f[i] += d[i];
    iv[i] *= 2.5;
    uv[i] /= 1.75;
    b[i] = d[i] * 0.0001;
    d[i] += b[i] + (float)iv[i] / 7;
    ul[i] = ul[i] / 3 + (unsigned long)uv[i] * uv[i];
    d[i] += (double)ul[i] + (float)(short)iv[i];
    lv[i] += (unsigned)sc[i] + (long)(unsigned char)sc[i];
  }
#pragma endscop
}
"""

CONVERSION_MAIN = """
#define N 41
static void fill(double *d, float *f, int *iv, unsigned *uv, long *lv, unsigned char *uc, signed char *sc,
                 unsigned long *ul, _Bool *b)
{
  for (int i = 0; i < N; i++) {
    d[i] = (i - 20) * 123.456789 + 0.5; f[i] = 0; iv[i] = 0; uv[i] = 0; lv[i] = 0; uc[i] = 0; sc[i] = 0;
    ul[i] = 0xF000000000000000ul + (unsigned long)i * 12345; b[i] = 0;
  }
  d[3] = 0.0;
}
int main(void)
{
  double d[2][N]; float f[2][N]; int iv[2][N]; unsigned uv[2][N]; long lv[2][N]; unsigned char uc[2][N];
  signed char sc[2][N]; unsigned long ul[2][N]; _Bool b[2][N];
  for (int c = 0; c < 2; c++) fill(d[c], f[c], iv[c], uv[c], lv[c], uc[c], sc[c], ul[c], b[c]);
  k(N, d[0], f[0], iv[0], uv[0], lv[0], uc[0], sc[0], ul[0], b[0]);
  OURS(N, d[1], f[1], iv[1], uv[1], lv[1], uc[1], sc[1], ul[1], b[1]);
  for (int i = 0; i < N; i++) {
    printf("%.17g %.17g\\n", d[0][i], d[1][i]); printf("%.9g %.9g\\n", f[0][i], f[1][i]);
    printf("%d %d\\n", iv[0][i], iv[1][i]); printf("%u %u\\n", uv[0][i], uv[1][i]);
    printf("%ld %ld\\n", lv[0][i], lv[1][i]); printf("%d %d\\n", uc[0][i], uc[1][i]);
    printf("%d %d\\n", sc[0][i], sc[1][i]); printf("%lu %lu\\n", ul[0][i], ul[1][i]);
    printf("%d %d\\n", b[0][i], b[1][i]);
  }
  return 0;
}
"""


def test_int_float_double_bool_conversions(tmp_path):
    kernel = Kernel(tmp_path, CONVERSION_KERNEL, nest=("[n]", ("i",), "0 <= i < n"))
    pairs = kernel.run(CONVERSION_MAIN, CompileOptions(opt_level=2))
    assert len(pairs) == 41 * 9
    assert_pairs_equal(pairs)
    # unsigned long above 2^63 went through uitofp: d is positive and huge everywhere.
    assert all(float(p[1]) > 1e18 for p in pairs[0::9])
    # _Bool holds only 0/1 and d[i] * 0.0001 is non-zero for all i.
    assert {p[1] for p in pairs[8::9]} == {"1"}


# --------------------------------------------------------------------------------- && || ?:
LOGICAL_KERNEL = """
void k(int n, int a[n], int b[n], int cnt[2], double x[n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    a[i] = (a[i] > 3 && b[i] < 5) + 2 * (a[i] < 0 || b[i] == 7) + 4 * !(a[i] && b[i]);
    b[i] = a[i] > 2 ? b[i] * 2 : b[i] - 1;
    a[i] > 1 && cnt[0]++;
    a[i] == 0 || cnt[1]--;
    x[i] = x[i] > 0.5 ? sqrt(x[i]) : x[i] < -0.5 ? -x[i] : 0.25;
    a[i] = i % 2 ? (cnt[0] += 2) : (cnt[1] -= 3);
    x[i] += (x[i] != x[i]) + (x[i] == 0.25 && i > 3);
    b[i] += (i != 5 && 100 / (i - 5) > 3) + 2 * (i == 5 || 7 % (i - 5) == 1);
    b[i] = b[i] > 4 ? (b[i] < 9 ? b[i] : 9) : -b[i];
  }
#pragma endscop
}
"""

LOGICAL_MAIN = """
#define N 29
int main(void)
{
  int a[2][N], b[2][N], cnt[2][2] = {{0, 100}, {0, 100}}; double x[2][N];
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < N; i++) { a[c][i] = i % 7 - 2; b[c][i] = (i * 5) % 9; x[c][i] = (i - 14) / 7.0; }
  x[0][3] = x[1][3] = NAN;
  k(N, a[0], b[0], cnt[0], x[0]);
  OURS(N, a[1], b[1], cnt[1], x[1]);
  for (int i = 0; i < N; i++)
    printf("%d %d\\n%d %d\\n%.17g %.17g\\n", a[0][i], a[1][i], b[0][i], b[1][i], x[0][i], x[1][i]);
  printf("%d %d\\n%d %d\\n", cnt[0][0], cnt[1][0], cnt[0][1], cnt[1][1]);
  return 0;
}
"""


def test_short_circuit_and_ternary(tmp_path):
    kernel = Kernel(tmp_path, LOGICAL_KERNEL, nest=("[n]", ("i",), "0 <= i < n"))
    for level in (0, 3):
        pairs = kernel.run(LOGICAL_MAIN, CompileOptions(opt_level=level), tag=str(level))
        assert_pairs_equal(pairs)
        # Side effects in the right operand of && / || and in ?: arms ran only when C says so.
        assert pairs[-2][0] != "0" and pairs[-1][0] != "100"
        # x[3] was NaN: both ordered comparisons are false, so the last arm (0.25) was taken.
        assert pairs[3 * 3 + 2] == ("0.25", "0.25")


# --------------------------------------------------------------------------------- builtins
MATH_KERNEL = """
void k(int n, double x[n], double y[n], float xf[n], int ia[n], int ib[n], long la[n], unsigned ua[n],
       short sa[n], signed char ca[n], unsigned char uca[n], double o[n][17], float of[n][4],
       int io[n][18], long lo[n][8], unsigned uo[n][12], short so[n][4], signed char co[n][4],
       unsigned char uco[n][4])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    o[i][0] = sqrt(fabs(x[i]));
    o[i][1] = floor(x[i]) + ceil(y[i]);
    o[i][2] = fmin(x[i], y[i]);
    o[i][3] = fmax(x[i], y[i]);
    o[i][4] = exp(x[i] / 10) + log(fabs(y[i]) + 1);
    o[i][5] = pow(fabs(x[i]), 1.5);
    o[i][6] = sin(x[i]) * cos(y[i]);
    o[i][7] = atan2(y[i], x[i]);
    o[i][8] = fma(x[i], y[i], 1.0);
    o[i][9] = trunc(x[i]) + round(y[i]) + rint(x[i] * 2.5);
    o[i][10] = copysign(3.0, y[i]) + fmod(x[i], 1.7) + hypot(x[i], y[i]);
    o[i][11] = tanh(x[i]) + cbrt(y[i]) + exp2(x[i] / 8) + log2(fabs(y[i]) + 2) + log10(fabs(x[i]) + 3);
    o[i][12] = fclamp(x[i], -1.0, 2.0) + mix(x[i], y[i], 0.25) + sign(x[i]) + degrees(y[i]) + radians(x[i]);
    o[i][13] = rsqrt(fabs(x[i]) + 1) + pown(x[i], 3) + rootn(x[i], 3) + powr(fabs(y[i]), 0.5);
    o[i][14] = sinpi(x[i]) + cospi(y[i]) + atanpi(x[i] / 9) + maxmag(x[i], y[i]) + minmag(x[i], y[i]);
    o[i][15] = step(0.5, x[i]) + smoothstep(-1.0, 1.0, y[i]) + mad(x[i], y[i], 0.5) + exp10(x[i] / 20);
    o[i][16] = ldexp(x[i], 3) + ilogb(y[i] + 100.0) + expm1(x[i] / 50) + log1p(fabs(y[i]));
    of[i][0] = sqrtf(fabsf(xf[i])) + sinf(xf[i]) + fminf(xf[i], 0.5f) + fmaxf(xf[i], -0.5f);
    of[i][1] = powf(fabsf(xf[i]), 0.75f) + expf(xf[i] / 10) + floorf(xf[i] * 3);
    of[i][2] = fclampf(xf[i], -0.5f, 0.5f) + degreesf(xf[i]) + signf(xf[i]) + rsqrtf(fabsf(xf[i]) + 1);
    of[i][3] = sinpif(xf[i]) + rootnf(xf[i], 5) + mixf(xf[i], 1.0f, 0.3f);
    io[i][0] = min(ia[i], ib[i]); io[i][1] = max(ia[i], ib[i]);
    io[i][2] = clamp(ia[i], -50, 50); io[i][3] = abs(ia[i]);
    io[i][4] = abs_diff(ia[i], ib[i]); io[i][5] = hadd(ia[i], ib[i]);
    io[i][6] = rhadd(ia[i], ib[i]); io[i][7] = rotate(ia[i], ib[i]);
    io[i][8] = popcount(ia[i]); io[i][9] = clz(ia[i]);
    io[i][10] = ctz(ia[i]); io[i][11] = add_sat(ia[i], ib[i] * 1000000);
    io[i][12] = sub_sat(ia[i], ib[i] * 1000000); io[i][13] = mul_hi(ia[i], ib[i] * 99991);
    io[i][14] = mad_hi(ia[i], ib[i], 7); io[i][15] = mad_sat(ia[i], ib[i] * 1000, ia[i]);
    io[i][16] = mul24(ia[i] % 4096, ib[i]); io[i][17] = mad24(ia[i] % 4096, ib[i], 3);
    lo[i][0] = lmin(la[i], -la[i]); lo[i][1] = lmax(la[i], 77); lo[i][2] = labs(la[i]);
    lo[i][3] = lmul_hi(la[i], la[i] * 3 + 1); lo[i][4] = lmad_sat(la[i], la[i], la[i]);
    lo[i][5] = ulmul_hi((unsigned long)la[i], 0xFFFFFFFFFFFFul); lo[i][6] = lclz(la[i]);
    lo[i][7] = lrotate(la[i], 61);
    uo[i][0] = umin(ua[i], 1000u); uo[i][1] = umax(ua[i], 3000000000u); uo[i][2] = uclamp(ua[i], 5u, 4000000000u);
    uo[i][3] = uabs_diff(ua[i], 123456u); uo[i][4] = uhadd(ua[i], 4294967295u); uo[i][5] = urhadd(ua[i], 1u);
    uo[i][6] = uadd_sat(ua[i], 2000000000u); uo[i][7] = usub_sat(ua[i], 2000000000u);
    uo[i][8] = umul_hi(ua[i], 4000000000u); uo[i][9] = umad_sat(ua[i], 3u, ua[i]);
    uo[i][10] = upopcount(ua[i]); uo[i][11] = uctz(ua[i]);
    so[i][0] = sadd_sat(sa[i], (short)30000); so[i][1] = smul_hi(sa[i], sa[i]);
    so[i][2] = sabs(sa[i]); so[i][3] = smad_sat(sa[i], (short)100, (short)5);
    co[i][0] = bsub_sat(ca[i], (signed char)100); co[i][1] = bhadd(ca[i], (signed char)-128);
    co[i][2] = brotate(ca[i], (signed char)3); co[i][3] = bclz(ca[i]);
    uco[i][0] = ubmad_sat(uca[i], (unsigned char)3, (unsigned char)9); uco[i][1] = ubrhadd(uca[i], (unsigned char)255);
    uco[i][2] = babs(ca[i]); uco[i][3] = ubmul_hi(uca[i], uca[i]);
  }
#pragma endscop
}
"""

MATH_MAIN = """
#define N 23
#define EACH(c) x[c], y[c], xf[c], ia[c], ib[c], la[c], ua[c], sa[c], ca[c], uca[c], \\
                o[c], of[c], io[c], lo[c], uo[c], so[c], co[c], uco[c]
int main(void)
{
  static double x[2][N], y[2][N], o[2][N][17]; static float xf[2][N], of[2][N][4];
  static int ia[2][N], ib[2][N], io[2][N][18]; static long la[2][N], lo[2][N][8];
  static unsigned ua[2][N], uo[2][N][12]; static short sa[2][N], so[2][N][4];
  static signed char ca[2][N], co[2][N][4]; static unsigned char uca[2][N], uco[2][N][4];
  for (int c = 0; c < 2; c++)
    for (int i = 0; i < N; i++) {
      x[c][i] = (i - 11) * 0.731 + 0.05; y[c][i] = (7 - i) * 1.37 - 0.2; xf[c][i] = (float)(i - 12) * 0.37f;
      ia[c][i] = (i - 11) * 190000001; ib[c][i] = (i * 7) % 31 - 9; la[c][i] = (i - 11) * 0x123456789abcl;
      ua[c][i] = 3000000000u + i * 77777777u; sa[c][i] = (short)((i - 11) * 2999);
      ca[c][i] = (signed char)(i * 23 - 128); uca[c][i] = (unsigned char)(i * 41);
    }
  y[0][4] = y[1][4] = NAN;
  k(N, EACH(0));
  OURS(N, EACH(1));
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < 17; j++) printf("%.17g %.17g\\n", o[0][i][j], o[1][i][j]);
    for (int j = 0; j < 4; j++) printf("%.9g %.9g\\n", of[0][i][j], of[1][i][j]);
    for (int j = 0; j < 18; j++) printf("%d %d\\n", io[0][i][j], io[1][i][j]);
    for (int j = 0; j < 8; j++) printf("%ld %ld\\n", lo[0][i][j], lo[1][i][j]);
    for (int j = 0; j < 12; j++) printf("%u %u\\n", uo[0][i][j], uo[1][i][j]);
    for (int j = 0; j < 4; j++) printf("%d %d\\n%d %d\\n%d %d\\n", so[0][i][j], so[1][i][j],
                                       co[0][i][j], co[1][i][j], uco[0][i][j], uco[1][i][j]);
  }
  return 0;
}
"""


def test_math_and_integer_builtins(tmp_path):
    kernel = Kernel(tmp_path, MATH_KERNEL, nest=("[n]", ("i",), "0 <= i < n"))
    pairs = kernel.run(MATH_MAIN, CompileOptions(opt_level=2))
    per_row = 17 + 4 + 18 + 8 + 12 + 12
    assert len(pairs) == 23 * per_row
    assert_pairs_equal(pairs, rel=1e-9)
    row = pairs[:per_row]
    # sqrt(fabs(x[0])) with x[0] = -11 * 0.731 + 0.05.
    assert math.isclose(float(row[0][1]), math.sqrt(abs(-11 * 0.731 + 0.05)), rel_tol=1e-15)
    # fmin/fmax return the other operand when y is NaN (C99 F.9.9.2), as llvm.minnum does.
    row4 = pairs[4 * per_row:5 * per_row]
    assert float(row4[2][1]) == float(row4[3][1]) == (4 - 11) * 0.731 + 0.05
    assert {"-lm"} <= set(runtime_link_flags([kernel.unit], CompileOptions()))


# --------------------------------------------------------------------------------- arrays
ARRAY_KERNEL = """
void k(int n, int m, int p, double A[n][m][p], double B[10][20], double *x, float C[][8], long D[n],
       double E[][m])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      for (int l = 0; l < p; l++) {
        A[i][j][l] = A[i][j][l] * 0.5 + B[j][l + 1] + x[i * m + j] + C[l][i] + E[i][j];
        D[i] += (long)(A[i][j][l] * 10) + (long)(A[i][j] - A[0][0]);
        E[i][j] += *(x + l) + *(C[l] + i) + A[i][j][l];
      }
#pragma endscop
}
"""

ARRAY_MAIN = """
#define NN 4
#define MM 5
#define PP 6
int main(void)
{
  static double A[2][NN][MM][PP], B[2][10][20], x[2][NN * MM], E[2][NN][MM];
  static float C[2][PP][8]; static long D[2][NN];
  for (int c = 0; c < 2; c++) {
    for (int i = 0; i < NN; i++) for (int j = 0; j < MM; j++) for (int l = 0; l < PP; l++)
      A[c][i][j][l] = i * 100 + j * 10 + l;
    for (int i = 0; i < 10; i++) for (int j = 0; j < 20; j++) B[c][i][j] = i * 0.25 - j;
    for (int i = 0; i < NN * MM; i++) x[c][i] = i * 1.5;
    for (int i = 0; i < PP; i++) for (int j = 0; j < 8; j++) C[c][i][j] = i * 8 + j + 0.5f;
    for (int i = 0; i < NN; i++) { D[c][i] = i; for (int j = 0; j < MM; j++) E[c][i][j] = i - j; }
  }
  k(NN, MM, PP, A[0], B[0], x[0], C[0], D[0], E[0]);
  OURS(NN, MM, PP, A[1], B[1], x[1], C[1], D[1], E[1]);
  for (int i = 0; i < NN; i++) {
    for (int j = 0; j < MM; j++) {
      for (int l = 0; l < PP; l++) printf("%.17g %.17g\\n", A[0][i][j][l], A[1][i][j][l]);
      printf("%.17g %.17g\\n", E[0][i][j], E[1][i][j]);
    }
    printf("%ld %ld\\n", D[0][i], D[1][i]);
  }
  return 0;
}
"""


def test_vla_and_constant_arrays_1d_2d_3d(tmp_path):
    kernel = Kernel(tmp_path, ARRAY_KERNEL, nest=("[n, m, p]", ("i", "j", "l"), "0 <= i < n and 0 <= j < m and 0 <= l < p"))
    assert kernel.args == ["n", "m", "p", "A", "B", "x", "C", "D", "E"]
    for level in (0, 2):
        pairs = kernel.run(ARRAY_MAIN, CompileOptions(opt_level=level), tag=str(level))
        assert len(pairs) == 4 * (5 * 7 + 1)
        assert_pairs_equal(pairs)
    # A[0][0][0] = 0 * 0.5 + B[0][1] + x[0] + C[0][0] + E[0][0] = -1 + 0 + 0.5 + 0.
    assert float(pairs[0][1]) == -0.5
    # Linearised addressing: ((i * m) + j) * p + l on the VLA, constant 20 on B.
    text = emit_llvm_ir([kernel.unit], CompileOptions(opt_level=0), "kernel")
    assert "getelementptr inbounds double, ptr %pencil.A" in text


# --------------------------------------------------------------------------------- scalars, locals
LOCALS_KERNEL = """
void k(int n, double x[n], double y[n], double *out, int *count)
{
  double sum;
  int calls;
  sum = 1.0;
  calls = 0;
#pragma scop
  for (int i = 0; i < n; i++) {
    double t;
    double tmp[4];
    double w[n];
    t = x[i] * 2;
    tmp[i % 4] = t;
    tmp[(i + 1) % 4] = t + 1;
    w[n - 1 - i] = tmp[i % 4] * tmp[(i + 1) % 4];
    y[i] = tmp[i % 4] + tmp[(i + 1) % 4] + t + w[n - 1 - i];
    sum += y[i];
    calls++;
    ++calls;
  }
#pragma endscop
  *out = sum;
  *count = calls;
}
"""

LOCALS_MAIN = """
#define N 17
static double sum_ours; static int calls_ours;
int main(void)
{
  double x[N], y[2][N], out = 0; int count = 0;
  double sum = 1.0; int calls = 0;
  for (int i = 0; i < N; i++) { x[i] = i * 0.75 - 3; y[0][i] = y[1][i] = 0; }
  k(N, x, y[0], &out, &count);
  OURS(N, x, y[1], &calls, &sum);
  for (int i = 0; i < N; i++) printf("%.17g %.17g\\n", y[0][i], y[1][i]);
  printf("%.17g %.17g\\n%d %d\\n", out, sum, count, calls);
  return 0;
}
"""


def test_scalars_by_pointer_and_region_locals(tmp_path):
    kernel = Kernel(tmp_path, LOCALS_KERNEL, nest=("[n]", ("i",), "0 <= i < n"))
    # Scalars written in the region are passed by address, sorted after the parameters.
    assert [(a.name, a.passing) for a in kernel.unit.region.args] == [
        ("n", "value"), ("x", "array"), ("y", "array"), ("calls", "pointer"), ("sum", "pointer")]
    assert [d.name for d in kernel.unit.locals] == ["t", "tmp", "w"]
    pairs = kernel.run(LOCALS_MAIN, CompileOptions(opt_level=1))
    assert_pairs_equal(pairs)
    assert pairs[-1] == ("34", "34")


# --------------------------------------------------------------------------------- parallel loops
PARALLEL_KERNEL = """
int omp_get_thread_num(void);
void k(int n, int m, double A[n][m], double B[n][m], double alpha, int who[n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      double t;
      t = alpha * B[i][j] + i;
      A[i][j] = A[i][j] * 0.5 + t * t + j;
      who[i] = omp_get_thread_num();
    }
#pragma endscop
}
"""

PARALLEL_MAIN = """
#define N 64
#define M 33
int main(void)
{
  static double A[2][N][M], B[N][M]; static int who[2][N];
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) { A[0][i][j] = A[1][i][j] = i - j; B[i][j] = i * 0.5 + j; }
  k(N, M, A[0], B, 1.25, who[0]);
  OURS(N, M, A[1], B, 1.25, who[1]);
  for (int i = 0; i < N; i++) for (int j = 0; j < M; j++) printf("%.17g %.17g\\n", A[0][i][j], A[1][i][j]);
  for (int i = 0; i < N; i++) printf("who %d\\n", who[1][i]);
  return 0;
}
"""


def test_parallel_loop_on_threads(tmp_path):
    kernel = Kernel(tmp_path, PARALLEL_KERNEL, nest=("[n, m]", ("i", "j"), "0 <= i < n and 0 <= j < m"),
                    parallel=(0,))
    # Too small for the granularity model's default: every loop on threads, to see the chunks.
    options = CompileOptions(opt_level=2, thread_min_work=0)
    assert runtime_link_flags([kernel.unit], options) == ["-fopenmp"]
    text = emit_llvm_ir([kernel.unit], options, "kernel")
    assert "call void @GOMP_parallel(ptr nonnull @" in text and ".omp_fn.0" in text
    assert "llvm.loop.parallel_accesses" in text
    exe = kernel.build(PARALLEL_MAIN, options)
    results = {}
    for threads, env in [(1, {"OMP_NUM_THREADS": "1"}), (2, {"OMP_NUM_THREADS": "2"}),
                         (3, {"OMP_NUM_THREADS": "1", "PENCILCC_NUM_THREADS": "3"})]:
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True,
                             env={**os.environ, **env}, timeout=60).stdout.splitlines()
        pairs = [tuple(line.split()) for line in out if not line.startswith("who")]
        assert_pairs_equal(pairs)
        results[threads] = [p[1] for p in pairs]
        who = [int(line.split()[1]) for line in out if line.startswith("who")]
        # Static contiguous chunks: thread ids never decrease along i, and every thread got work.
        assert who == sorted(who) and set(who) == set(range(threads)), (threads, who)
    assert results[1] == results[2] == results[3]


def test_parallel_tiles_on_a_triangle_with_nested_marks(tmp_path):
    source = """
    void k(int n, double A[n][n], double B[n][n])
    {
    #pragma scop
      for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
          A[i][j] = A[i][j] + i * 1000 + j;
          B[i][j] = A[i][j] * 2 + B[i][j];
        }
    #pragma endscop
    }
    """
    # Two loop nests (all S_0, then all S_1); S_0 is tiled by 5 rows. Both the tile loop
    # (band 1) and the loop below it (band 2) are marked parallel.
    domain = "[n] -> { S_0[i, j] : 0 <= j <= i < n; S_1[i, j] : 0 <= j <= i < n }"
    bands = ["[n] -> { S_0[i, j] -> [0]; S_1[i, j] -> [1] }",
             "[n] -> { S_0[i, j] -> [floor(i / 5)]; S_1[i, j] -> [i] }",
             "[n] -> { S_0[i, j] -> [i]; S_1[i, j] -> [j] }",
             "[n] -> { S_0[i, j] -> [j]; S_1[i, j] -> [0] }"]
    kernel = Kernel(tmp_path, source, schedule=(domain, bands), parallel=(1, 2))
    main = """
    int main(void)
    {
      static double A[2][23][23], B[2][23][23];
      for (int i = 0; i < 23; i++)
        for (int j = 0; j < 23; j++) { A[0][i][j] = A[1][i][j] = i * 0.5 - j; B[0][i][j] = B[1][i][j] = j; }
      k(23, A[0], B[0]);
      OURS(23, A[1], B[1]);
      for (int i = 0; i < 23; i++) for (int j = 0; j < 23; j++)
        printf("%.17g %.17g\\n%.17g %.17g\\n", A[0][i][j], A[1][i][j], B[0][i][j], B[1][i][j]);
      return 0;
    }
    """
    pairs = kernel.run(main, CompileOptions(opt_level=3), env={"OMP_NUM_THREADS": "3"})
    assert_pairs_equal(pairs)
    assert float(pairs[2 * (23 * 22 + 21)][1]) == 22 * 0.5 - 21 + 22 * 1000 + 21
    text = emit_llvm_ir([kernel.unit], CompileOptions(opt_level=0), "kernel")
    # One parallel region per loop nest; the marks nested in them run inside the threads.
    assert text.count("call void @GOMP_parallel") == 2
    assert "pencil.floord" in text  # the tile loop's bound, floor((n - 1) / 5)


# --------------------------------------------------------------------------------- isl AST forms
def test_isl_ast_floor_division_min_max_strides_and_guards(tmp_path):
    # Tiles of 4 x 3 over a triangle that starts at negative i: bounds with floord of
    # negative values, min and max; a second nest keeps the points with (i + j) % 3 == 0
    # (strided loop and guards).
    source = """
    void k(int n, long A[2 * n + 8][2 * n + 8], long B[2 * n + 8][2 * n + 8])
    {
    #pragma scop
      for (int i = -n; i < n; i++)
        for (int j = 0; j <= i + 3; j++)
          A[i + n][j] = A[i + n][j] * 3 + i * 100 + j;
      for (int i = -n; i < n; i++)
        for (int j = 0; j <= i + 3; j++)
          if ((i + j) % 3 == 0)
            B[i + n][j] = B[i + n][j] + A[i + n][j] - 7 * i;
    #pragma endscop
    }
    """
    domain = ("[n] -> { S_0[i, j] : -n <= i < n and 0 <= j <= i + 3; "
              "S_1[i, j] : -n <= i < n and 0 <= j <= i + 3 and (i + j) mod 3 = 0 }")
    bands = ["[n] -> { S_0[i, j] -> [0]; S_1[i, j] -> [1] }",
             "[n] -> { S_0[i, j] -> [floor(i / 4)]; S_1[i, j] -> [j] }",
             "[n] -> { S_0[i, j] -> [floor(j / 3)]; S_1[i, j] -> [i] }",
             "[n] -> { S_0[i, j] -> [i]; S_1[i, j] -> [0] }",
             "[n] -> { S_0[i, j] -> [j]; S_1[i, j] -> [0] }"]
    kernel = Kernel(tmp_path, source, schedule=(domain, bands), parallel=(1,), context="[n] -> { : n >= 0 }")
    ast_text = kernel.unit.ast.to_C_str()
    assert "floord" in ast_text and "min(" in ast_text and "max(" in ast_text and "+= 3" in ast_text
    main = """
    #define NN 13
    #define W (2 * NN + 8)
    int main(void)
    {
      static long A[2][W][W], B[2][W][W];
      for (int c = 0; c < 2; c++) for (int i = 0; i < W; i++) for (int j = 0; j < W; j++)
        { A[c][i][j] = i - 2 * j; B[c][i][j] = i * j; }
      k(NN, A[0], B[0]);
      OURS(NN, A[1], B[1]);
      for (int i = 0; i < W; i++) for (int j = 0; j < W; j++)
        printf("%ld %ld\\n%ld %ld\\n", A[0][i][j], A[1][i][j], B[0][i][j], B[1][i][j]);
      return 0;
    }
    """
    for level in (0, 2):
        pairs = kernel.run(main, CompileOptions(opt_level=level), env={"OMP_NUM_THREADS": "2"}, tag=str(level))
        assert len(pairs) == 2 * 34 * 34
        assert_pairs_equal(pairs)
    # A[i + n][j] for i = -3, j = 0 became (10 - 0) * 3 - 300 + 0.
    assert pairs[2 * (10 * 34 + 0)] == ("-270", "-270")


def test_conjunctive_loop_bounds_and_their_trip_count_on_threads(tmp_path):
    # With atomic upper bounds off, isl writes `2 * c0 <= n && 3 * c0 <= m`: the thread
    # outliner cannot read a bound from it and counts the iterations instead.
    ctx = isl.Context()
    ctx.set_ast_build_atomic_upper_bound(0)
    source = """
    void k(int n, int m, int B[100])
    {
    #pragma scop
      for (int i = 0; 2 * i <= n && 3 * i <= m; i++)
        B[i] = B[i] * 7 + i;
    #pragma endscop
    }
    """
    domain = "[n, m] -> { S_0[i] : 0 <= i and 2i <= n and 3i <= m }"
    kernel = Kernel(tmp_path, source, schedule=(domain, ["[n, m] -> { S_0[i] -> [i] }"]), parallel=(0,), ctx=ctx)
    assert "&&" in kernel.unit.ast.to_C_str()
    main = """
    int main(void)
    {
      int B[2][100];
      for (int c = 0; c < 2; c++) for (int i = 0; i < 100; i++) B[c][i] = i % 11;
      k(150, 90, B[0]);
      OURS(150, 90, B[1]);
      for (int i = 0; i < 100; i++) printf("%d %d\\n", B[0][i], B[1][i]);
      return 0;
    }
    """
    pairs = kernel.run(main, CompileOptions(opt_level=2), env={"OMP_NUM_THREADS": "3"})
    assert_pairs_equal(pairs)
    assert pairs[30] == (str(30 % 11 * 7 + 30),) * 2 and pairs[31] == (str(31 % 11),) * 2


# --------------------------------------------------------------------------------- pipeline, IR, errors
GEMM_KERNEL = """
void k(int ni, int nj, int nk, double alpha, double beta, double C[restrict ni][nj],
       double A[restrict ni][nk], double B[nk][nj])
{
#pragma scop
  for (int i = 0; i < ni; i++) {
    for (int j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (int k2 = 0; k2 < nk; k2++)
      for (int j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k2] * B[k2][j];
  }
#pragma endscop
}
"""
GEMM_DOMAIN = ("[ni, nj, nk] -> { S_0[i, j] : 0 <= i < ni and 0 <= j < nj; "
               "S_1[i, k2, j] : 0 <= i < ni and 0 <= k2 < nk and 0 <= j < nj }")
GEMM_BANDS = ["[ni, nj, nk] -> { S_0[i, j] -> [i]; S_1[i, k2, j] -> [i] }",
              "[ni, nj, nk] -> { S_0[i, j] -> [0]; S_1[i, k2, j] -> [1 + k2] }",
              "[ni, nj, nk] -> { S_0[i, j] -> [j]; S_1[i, k2, j] -> [j] }"]
GEMM_MAIN = """
#define NI 37
#define NJ 41
#define NK 29
int main(void)
{
  static double C[2][NI][NJ], A[NI][NK], B[NK][NJ];
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) C[0][i][j] = C[1][i][j] = (i * j % 7) / 7.0;
  for (int i = 0; i < NI; i++) for (int j = 0; j < NK; j++) A[i][j] = (i + 2 * j) % 5 - 1.5;
  for (int i = 0; i < NK; i++) for (int j = 0; j < NJ; j++) B[i][j] = (i * 3 + j) % 9 * 0.125;
  k(NI, NJ, NK, 1.5, 1.2, C[0], A, B);
  OURS(NI, NJ, NK, 1.5, 1.2, C[1], A, B);
  for (int i = 0; i < NI; i++) for (int j = 0; j < NJ; j++) printf("%.17g %.17g\\n", C[0][i][j], C[1][i][j]);
  return 0;
}
"""


def test_O0_and_O3_pipelines_restrict_noalias_and_vectorisation(tmp_path):
    kernel = Kernel(tmp_path, GEMM_KERNEL, schedule=(GEMM_DOMAIN, GEMM_BANDS), parallel=(0,))
    results = []
    for level in (0, 3):
        pairs = kernel.run(GEMM_MAIN, CompileOptions(opt_level=level), env={"OMP_NUM_THREADS": "2"},
                           tag=str(level))
        assert len(pairs) == 37 * 41
        assert_pairs_equal(pairs)
        results.append([p[1] for p in pairs])
    assert results[0] == results[1]
    o0 = emit_llvm_ir([kernel.unit], CompileOptions(opt_level=0), "kernel")
    o3 = emit_llvm_ir([kernel.unit], CompileOptions(opt_level=3), "kernel")
    signature = re.search(r"define void @__pencilcc_k\S*\((.*)\)", o0).group(1)
    assert "ptr noalias %pencil.C" in signature and "ptr noalias %pencil.A" in signature
    assert "noalias %pencil.B" not in signature
    assert "alloca" in o0 and "vector.body" not in o0
    assert "vector.body" in o3 and ("<2 x double>" in o3 or "<4 x double>" in o3)
    # No fast-math flags, no FMA formation unless asked.
    assert " fast " not in o3 and "llvm.fmuladd" not in o3 and "llvm.fma" not in o3
    assert " fast " in emit_llvm_ir([kernel.unit], CompileOptions(opt_level=0, fast_math=True), "kernel")


def test_emit_object_is_deterministic_and_honours_march_native(tmp_path):
    kernel = Kernel(tmp_path, GEMM_KERNEL, schedule=(GEMM_DOMAIN, GEMM_BANDS), parallel=(0,))
    first = emit_object([kernel.unit], CompileOptions(opt_level=3), "kernel")
    second = emit_object([kernel.unit], CompileOptions(opt_level=3), "kernel")
    assert first[:4] == b"\x7fELF" and first == second
    native = emit_object([kernel.unit], CompileOptions(opt_level=3, march="native"), "kernel")
    assert native[:4] == b"\x7fELF"
    assert b".debug_line" not in first
    assert b".debug_line" in emit_object([kernel.unit], CompileOptions(opt_level=3, debug=True), "kernel")
    with_lines = emit_llvm_ir([kernel.unit], CompileOptions(opt_level=0, debug=True), str(kernel.source))
    line = kernel.source.read_text().splitlines().index("      C[i][j] *= beta;") + 1
    assert re.search(rf"!DILocation\(line: {line}, column: 7, scope: ", with_lines)
    module = build_module([kernel.unit], CompileOptions(), "kernel")
    assert [f.name for f in module.functions if not f.is_declaration] == [
        kernel.unit.region.symbol, f"{kernel.unit.region.symbol}.omp_chunk.0",
        f"{kernel.unit.region.symbol}.omp_fn.0", "pencil.num_threads"]
    # With a warm start (off by default), its constructor, gate and spinner come with the first
    # team (llvm_backend.cpu.warm).
    module = build_module([kernel.unit], CompileOptions(thread_warm_ms=200), "kernel")
    assert [f.name for f in module.functions if not f.is_declaration] == [
        kernel.unit.region.symbol, f"{kernel.unit.region.symbol}.omp_chunk.0",
        f"{kernel.unit.region.symbol}.omp_fn.0", "pencil.num_threads", "pencil.warm.start", "pencil.warm.now",
        "pencil.warm.spin", "pencil.warm.now_warm"]


def test_runtime_link_flags_and_sequential_fallback_of_marks(tmp_path):
    kernel = Kernel(tmp_path, GEMM_KERNEL, schedule=(GEMM_DOMAIN, GEMM_BANDS), parallel=(0,))
    assert runtime_link_flags([kernel.unit], CompileOptions()) == ["-fopenmp"]
    sequential = CompileOptions(parallel=False)
    assert runtime_link_flags([kernel.unit], sequential) == []
    assert "GOMP_parallel" not in emit_llvm_ir([kernel.unit], sequential, "kernel")
    pairs = kernel.run(GEMM_MAIN, sequential)
    assert_pairs_equal(pairs)


def test_unsupported_constructs_raise_backend_error(tmp_path):
    # The size of a VLA type is not a constant: the front end keeps it opaque (a constant
    # sizeof is folded to its value since issue 30).
    source = """
    void k(int n, long x[n])
    {
    #pragma scop
      for (int i = 0; i < n; i++)
        x[i] = sizeof(double[n]) * i;
    #pragma endscop
    }
    """
    kernel = Kernel(tmp_path, source, nest=("[n]", ("i",), "0 <= i < n"))
    with pytest.raises(BackendError) as error:
        emit_object([kernel.unit], CompileOptions(), "kernel")
    assert error.value.loc.line == 8


# --------------------------------------------------------------------------------- with the middle end
def test_polyhedral_pipeline_units_end_to_end(tmp_path):
    kernel = Kernel(tmp_path, GEMM_KERNEL, schedule=(GEMM_DOMAIN, GEMM_BANDS))
    module = parse_file(str(kernel.source)).module
    region = next(r for r in find_regions(module) if r.function.name == "k")
    outcome = optimise_region(region, module, CompileOptions(opt_level=3), DumpSink())
    assert outcome.status == "optimized", outcome.reason
    kernel.unit = outcome.unit
    pairs = kernel.run(GEMM_MAIN, CompileOptions(opt_level=3), env={"OMP_NUM_THREADS": "2"})
    assert_pairs_equal(pairs, rel=1e-9)


def test_struct_members_globals_and_external_calls(tmp_path):
    source = """
    struct params { int shift; double scale; double bias[3]; };
    double offset_g = 0.25;
    long calls_g;
    double twice(double v);
    void k(int n, double x[n], struct params p, struct params *q)
    {
    #pragma scop
      for (int i = 0; i < n; i++) {
        x[i] = x[i] * p.scale + p.bias[i % 3] + q->bias[(i + 1) % 3] + (i >> p.shift) + offset_g;
        x[i] = twice(x[i]);
        q->scale += x[i];
        calls_g++;
      }
    #pragma endscop
    }
    double twice(double v) { return 2 * v; }
    """
    kernel = Kernel(tmp_path, source, nest=("[n]", ("i",), "0 <= i < n"))
    passing = {a.name: a.passing for a in kernel.unit.region.args}
    assert passing == {"n": "value", "x": "array", "p": "pointer", "q": "array", "calls_g": "pointer",
                       "offset_g": "value"}
    order = ", ".join({"n": "N", "x": "x[1]", "p": "&p", "q": "&q[1]", "calls_g": "&calls_g",
                       "offset_g": "offset_g"}[name] for name in kernel.args)
    main = f"""
    #define N 10
    int main(void)
    {{
      double x[2][N]; struct params p = {{1, 1.5, {{0.5, -1, 2}}}}, q[2] = {{{{0, 0, {{3, 4, 5}}}}, {{0, 0, {{3, 4, 5}}}}}};
      for (int i = 0; i < N; i++) x[0][i] = x[1][i] = i - 4.5;
      k(N, x[0], p, &q[0]);
      long ref_calls = calls_g;
      OURS({order});
      for (int i = 0; i < N; i++) printf("%.17g %.17g\\n", x[0][i], x[1][i]);
      printf("%.17g %.17g\\n%ld %ld\\n", q[0].scale, q[1].scale, ref_calls, calls_g - ref_calls);
      return 0;
    }}
    """
    pairs = kernel.run(main)
    assert_pairs_equal(pairs)
    assert pairs[-1] == ("10", "10")


def test_llvm_warnings_about_our_loop_hints_are_not_shown(capfd):
    """LLVM's "loop not vectorized/unrolled" warnings (about llvm.loop hints the back end
    adds, printed on fd 2 with no newline between them) are dropped; anything else LLVM or
    Python writes meanwhile still reaches stderr."""
    from llvm_backend.cpu import target
    hint = (b"warning: <unknown>:0:0: loop not vectorized: the optimizer was unable to perform the "
            b"requested transformation; the transformation might be disabled or specified as part "
            b"of an unsupported transformation ordering")
    with target._without_hint_warnings():
        os.write(2, hint + hint.replace(b"vectorized", b"unrolled") + b"error: something else\n")
    err = capfd.readouterr().err
    assert "loop not" not in err
    assert err == "error: something else\n"
