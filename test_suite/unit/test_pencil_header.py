# SPDX-License-Identifier: MIT
"""include/pencil.h with a plain C compiler, and the kernels that use it.

* every image-processing kernel in ``test_suite/kernels/image`` builds
  warning-free (``gcc -std=c99 -Wall -Wextra -pedantic -Werror -O0``), runs and
  passes its own comparison against a plain-C reference, at the default
  sizes and at odd sizes given with ``-D``;
* every thesis example in ``test_suite/kernels/thesis`` compiles with
  ``gcc -std=c99 -c``;
* the builtins compute the right values, the ``__pencil_*`` builtins generate
  no code (except ``__pencil_assert``, which checks), and the header is
  warning-free in several language modes;
* under ``-D__PENCILCC__`` libclang sees real calls to the ``__pencil_*``
  builtins and ``annotate`` attributes for ``PENCIL`` / ``ACCESS``.

Nothing here needs pencilcc itself.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INCLUDE = ROOT / "include"
HEADER = INCLUDE / "pencil.h"
IMAGE_DIR = ROOT / "test_suite" / "kernels" / "image"
THESIS_DIR = ROOT / "test_suite" / "kernels" / "thesis"

IMAGE_KERNELS = ("color_convert", "resize", "filter2d", "gaussian", "dilate",
                 "histogram", "warp_affine")
THESIS_FILES = sorted(p.name for p in THESIS_DIR.glob("*.c"))

STRICT = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"]

GCC = shutil.which("gcc")
needs_gcc = pytest.mark.skipif(GCC is None, reason="gcc is not installed")


def _gcc(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([GCC, *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def _build(src: Path, exe: Path, extra: list[str] = ()) -> None:
    res = _gcc([*STRICT, "-O0", "-I", str(INCLUDE), *extra, str(src), "-o", str(exe), "-lm"], exe.parent)
    assert res.returncode == 0, res.stderr
    assert res.stderr == "", res.stderr  # no warnings either


def _run(exe: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)


# --------------------------------------------------------------------------
# Image-processing kernels
# --------------------------------------------------------------------------


def test_image_kernel_set_is_complete() -> None:
    assert sorted(p.stem for p in IMAGE_DIR.glob("*.c")) == sorted(IMAGE_KERNELS)


@pytest.mark.parametrize("name", IMAGE_KERNELS)
def test_image_kernel_source_shape(name: str) -> None:
    text = (IMAGE_DIR / f"{name}.c").read_text()
    assert text.splitlines()[0] == "/* SPDX-License-Identifier: MIT */"
    assert '#include "pencil.h"' in text
    assert "pencil_array" in text
    assert "__pencil_kill(" in text or "#pragma pencil independent" in text
    for forbidden in (r"\bgoto\b", r"\bswitch\s*\(", r"\brand\s*\("):
        assert not re.search(forbidden, text), (name, forbidden)


@needs_gcc
@pytest.mark.parametrize("name", IMAGE_KERNELS)
def test_image_kernel_self_check(name: str, tmp_path: Path) -> None:
    exe = tmp_path / name
    _build(IMAGE_DIR / f"{name}.c", exe)
    res = _run(exe)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.strip().splitlines()
    assert len(lines) >= 2
    assert lines[-1] == "OK"
    assert "FAILED" not in res.stdout and "mismatch" not in res.stdout
    # Deterministic: a second run prints exactly the same checksums.
    assert _run(exe).stdout == res.stdout


@needs_gcc
@pytest.mark.parametrize("name", IMAGE_KERNELS)
def test_image_kernel_sizes_overridable(name: str, tmp_path: Path) -> None:
    exe = tmp_path / f"{name}_odd"
    _build(IMAGE_DIR / f"{name}.c", exe, ["-DROWS=17", "-DCOLS=23"])
    res = _run(exe)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "17" in res.stdout and "23" in res.stdout
    assert res.stdout.strip().splitlines()[-1] == "OK"


# --------------------------------------------------------------------------
# Thesis examples
# --------------------------------------------------------------------------


def test_thesis_examples_present_and_documented() -> None:
    expected = {"bfs.c", "resize.c", "summary_bar.c", "summary_fft32.c", "summary_maybe.c",
                "independent_bfs_frontier.c", "independent_inc.c", "independent_privatization.c",
                "reduction.c", "ivdep.c", "kill.c", "assume_convolution.c", "assume_shift.c",
                "nonpencil_tree_search.c"}
    assert expected <= set(THESIS_FILES)
    readme = (THESIS_DIR / "README.md").read_text()
    for name in THESIS_FILES:
        assert f"`{name}`" in readme, name
    tree = (THESIS_DIR / "nonpencil_tree_search.c").read_text()
    assert "find(node->left, value)" in tree and "->" in tree


@needs_gcc
@pytest.mark.parametrize("name", THESIS_FILES)
def test_thesis_example_compiles(name: str, tmp_path: Path) -> None:
    src = THESIS_DIR / name
    obj = tmp_path / (src.stem + ".o")
    res = _gcc(["-std=c99", "-c", "-I", str(INCLUDE), str(src), "-o", str(obj)], tmp_path)
    assert res.returncode == 0, res.stderr
    assert obj.stat().st_size > 0
    # The header keeps them warning-free too (thesis code has unused parameters).
    res = _gcc([*STRICT, "-Wno-unused-parameter", "-c", "-I", str(INCLUDE), str(src),
                "-o", str(obj)], tmp_path)
    assert res.returncode == 0, res.stderr


# --------------------------------------------------------------------------
# The builtins
# --------------------------------------------------------------------------

BUILTINS_C = r"""
#include "pencil.h"

static int failures = 0;
#define CHECK(c) do { if (!(c)) { printf("FAIL line %d: %s\n", __LINE__, #c); failures++; } } while (0)
#define NEAR(a, b) (fabs((double)(a) - (double)(b)) <= 1e-6 * (1.0 + fabs((double)(b))))
#define LBITS ((long)(sizeof(long) * CHAR_BIT))

static int side_effects = 0;
static int touch(void) { side_effects++; return 1; }

int main(void)
{
    /* min / max / clamp, every prefix */
    CHECK(max(3, -4) == 3 && min(3, -4) == -4);
    CHECK(bmax(-128, 127) == 127 && bmin(-128, 127) == -128);
    CHECK(smax(-300, 200) == 200 && smin(-300, 200) == -300);
    CHECK(lmax(-5L, 1L << 40) == 1L << 40 && lmin(-5L, 7L) == -5L);
    CHECK(umax(0u, UINT_MAX) == UINT_MAX && umin(0u, UINT_MAX) == 0u);
    CHECK(ubmax(200, 100) == 200 && ubmin(200, 100) == 100);
    CHECK(usmax(60000, 5) == 60000 && usmin(60000, 5) == 5);
    CHECK(ulmax(ULONG_MAX, 1UL) == ULONG_MAX && ulmin(ULONG_MAX, 1UL) == 1UL);
    CHECK(clamp(5, 0, 3) == 3 && clamp(-5, 0, 3) == 0 && clamp(2, 0, 3) == 2);
    CHECK(bclamp(-100, -50, 50) == -50 && sclamp(1000, 0, 255) == 255);
    CHECK(lclamp(-7L, -3L, 3L) == -3L && uclamp(9u, 2u, 4u) == 4u);
    CHECK(ubclamp(7, 8, 9) == 8 && usclamp(7, 1, 9) == 7 && ulclamp(0UL, 3UL, 5UL) == 3UL);
    CHECK(fclamp(2.5, 0.0, 1.0) == 1.0 && fclampf(-2.5f, 0.0f, 1.0f) == 0.0f);
    CHECK(fclamp(0.25, 0.0, 1.0) == 0.25);
    CHECK(fmax(1.5, 2.5) == 2.5 && fminf(1.5f, 2.5f) == 1.5f);

    /* abs / abs_diff */
    CHECK(abs(-7) == 7 && labs(-7L) == 7L && fabs(-2.0) == 2.0 && fabsf(-2.0f) == 2.0f);
    CHECK(babs(-128) == 128 && sabs(-32768) == 32768u && sabs(5) == 5);
    CHECK(ubabs(200) == 200 && usabs(7) == 7 && uabs(9u) == 9u && ulabs(9UL) == 9UL);
    CHECK(abs_diff(INT_MIN, INT_MAX) == UINT_MAX && abs_diff(3, 10) == 7u);
    CHECK(babs_diff(-128, 127) == 255 && sabs_diff(-1, 1) == 2);
    CHECK(labs_diff(LONG_MIN, 0L) == (unsigned long)LONG_MAX + 1UL);
    CHECK(uabs_diff(3u, 10u) == 7u && ubabs_diff(0, 255) == 255 && usabs_diff(9, 4) == 5);
    CHECK(ulabs_diff(1UL, ULONG_MAX) == ULONG_MAX - 1UL);

    /* saturating arithmetic */
    CHECK(add_sat(INT_MAX, 1) == INT_MAX && add_sat(INT_MIN, -1) == INT_MIN && add_sat(2, 3) == 5);
    CHECK(sub_sat(INT_MIN, 1) == INT_MIN && sub_sat(INT_MAX, -1) == INT_MAX && sub_sat(2, 3) == -1);
    CHECK(badd_sat(100, 100) == 127 && bsub_sat(-100, 100) == -128);
    CHECK(sadd_sat(30000, 30000) == SHRT_MAX && ssub_sat(-30000, 30000) == SHRT_MIN);
    CHECK(ladd_sat(LONG_MAX, 5L) == LONG_MAX && lsub_sat(LONG_MIN, 5L) == LONG_MIN);
    CHECK(ubadd_sat(200, 100) == 255 && ubsub_sat(100, 200) == 0 && ubadd_sat(1, 2) == 3);
    CHECK(usadd_sat(60000, 60000) == USHRT_MAX && ussub_sat(5, 6) == 0);
    CHECK(uadd_sat(UINT_MAX, 1u) == UINT_MAX && usub_sat(1u, 2u) == 0u && usub_sat(5u, 2u) == 3u);
    CHECK(uladd_sat(ULONG_MAX, 1UL) == ULONG_MAX && ulsub_sat(0UL, 1UL) == 0UL);
    CHECK(mad_sat(INT_MAX, 2, 0) == INT_MAX && mad_sat(INT_MIN, 2, 0) == INT_MIN && mad_sat(3, 4, 5) == 17);
    CHECK(bmad_sat(100, 2, 0) == 127 && smad_sat(-200, 200, 0) == SHRT_MIN);
    CHECK(ubmad_sat(16, 16, 0) == 255 && usmad_sat(2, 3, 4) == 10 && umad_sat(UINT_MAX, 1u, 1u) == UINT_MAX);
    CHECK(lmad_sat(LONG_MAX, 2L, 0L) == LONG_MAX && lmad_sat(LONG_MIN, 2L, 0L) == LONG_MIN);
    CHECK(lmad_sat(LONG_MIN, -1L, 0L) == LONG_MAX && lmad_sat(LONG_MIN, -1L, LONG_MIN) == 0L);
    CHECK(lmad_sat(-3L, 4L, 5L) == -7L && lmad_sat(LONG_MIN, 1L, 1L) == LONG_MIN + 1);
    CHECK(ulmad_sat(ULONG_MAX, 2UL, 0UL) == ULONG_MAX && ulmad_sat(3UL, 4UL, 5UL) == 17UL);

    /* halving add */
    CHECK(hadd(INT_MAX, INT_MAX) == INT_MAX && hadd(-1, -2) == -2 && hadd(3, 4) == 3);
    CHECK(rhadd(3, 4) == 4 && rhadd(-1, -2) == -1 && uhadd(UINT_MAX, UINT_MAX) == UINT_MAX);
    CHECK(ubhadd(255, 255) == 255 && ubrhadd(254, 255) == 255 && bhadd(127, 127) == 127);
    CHECK(lhadd(LONG_MAX, LONG_MAX) == LONG_MAX && ulrhadd(ULONG_MAX, 0UL) == ULONG_MAX / 2 + 1);
    CHECK(shadd(-3, 0) == -2 && usrhadd(1, 2) == 2 && brhadd(-128, 127) == 0);

    /* mul_hi / mad_hi / mul24 / mad24 */
    CHECK(mul_hi(0x40000000, 8) == 2 && mul_hi(-1, 1) == -1 && umul_hi(0x80000000u, 4u) == 2u);
    CHECK(bmul_hi(-128, -128) == 64 && ubmul_hi(255, 255) == 254 && smul_hi(-32768, 2) == -1);
    CHECK(usmul_hi(65535, 65535) == 65534);
    CHECK(ulmul_hi(ULONG_MAX, ULONG_MAX) == ULONG_MAX - 1UL);
    CHECK(ulmul_hi(1UL << (LBITS / 2), 1UL << (LBITS / 2 + 3)) == 8UL);
    CHECK(lmul_hi(-1L, 1L) == -1L && lmul_hi(-3L, 5L) == -1L && lmul_hi(3L, 5L) == 0L);
    CHECK(lmul_hi(LONG_MIN, LONG_MIN) == (long)(1UL << (LBITS - 2)));
    CHECK(lmul_hi(LONG_MIN, 2L) == -1L && lmul_hi(LONG_MAX, -1L) == -1L);
    CHECK(mad_hi(0x40000000, 8, 5) == 7 && ulmad_hi(ULONG_MAX, ULONG_MAX, 1UL) == ULONG_MAX);
    CHECK(lmad_hi(3L, 5L, 2L) == 2L && umad_hi(0x80000000u, 4u, 1u) == 3u);
    CHECK(mul24(1000, 1000) == 1000000 && mad24(-3, 4, 5) == -7);
    CHECK(umul24(7u, 6u) == 42u && umad24(7u, 6u, 1u) == 43u);

    /* bit operations */
    CHECK(popcount(0) == 0 && popcount(-1) == 32 && popcount(0x0F0F) == 8);
    CHECK(bpopcount(-1) == 8 && spopcount(-1) == 16 && lpopcount(-1L) == LBITS);
    CHECK(upopcount(0xFFu) == 8u && ubpopcount(0x81) == 2 && uspopcount(0xFFFF) == 16);
    CHECK(ulpopcount(ULONG_MAX) == (unsigned long)LBITS);
    CHECK(clz(0) == 32 && clz(1) == 31 && clz(-1) == 0 && uclz(0x00010000u) == 15u);
    CHECK(bclz(1) == 7 && ubclz(0) == 8 && sclz(0x100) == 7 && usclz(0x8000) == 0);
    CHECK(lclz(1L) == LBITS - 1 && ulclz(0UL) == (unsigned long)LBITS);
    CHECK(ctz(8) == 3 && ctz(0) == 32 && bctz(0) == 8 && uctz(0x80000000u) == 31u);
    CHECK(ulctz(1UL << 33) == 33UL && sctz(-32768) == 15 && lctz(4L) == 2L);
    CHECK(rotate(1, 33) == 2 && rotate(INT_MIN, 1) == 1 && urotate(0x80000001u, 4u) == 0x18u);
    CHECK(ubrotate(0x81, 1) == 0x03 && brotate(1, -1) == -128 && ulrotate(1UL, 0UL) == 1UL);
    CHECK(usrotate(0x8001, 1) == 0x0003 && lrotate(1L, (long)LBITS) == 1L);

    /* common functions on double / float */
    CHECK(mix(0.0, 2.0, 0.25) == 0.5 && mixf(1.0f, 3.0f, 0.5f) == 2.0f);
    CHECK(sign(-3.0) == -1.0 && sign(2.0) == 1.0 && sign(0.0) == 0.0 && sign(NAN) == 0.0);
    CHECK(signf(-0.5f) == -1.0f && signf(7.0f) == 1.0f);
    CHECK(step(1.0, 0.5) == 0.0 && step(1.0, 1.0) == 1.0 && stepf(0.0f, 2.0f) == 1.0f);
    CHECK(smoothstep(0.0, 1.0, 0.5) == 0.5 && smoothstep(0.0, 1.0, -1.0) == 0.0);
    CHECK(smoothstepf(0.0f, 1.0f, 2.0f) == 1.0f);
    CHECK(NEAR(degrees(3.14159265358979323846), 180.0) && NEAR(degreesf(1.0f), 57.29577951308232));
    CHECK(NEAR(radians(180.0), 3.14159265358979323846) && NEAR(radiansf(90.0f), 1.5707963267948966));

    /* math functions beyond C99 <math.h> */
    CHECK(mad(2.0, 3.0, 4.0) == 10.0 && madf(2.0f, 3.0f, 4.0f) == 10.0f);
    CHECK(maxmag(-3.0, 2.0) == -3.0 && minmag(-3.0, 2.0) == 2.0);
    CHECK(maxmagf(2.0f, -2.0f) == 2.0f && minmagf(2.0f, -2.0f) == -2.0f);
    CHECK(rsqrt(4.0) == 0.5 && rsqrtf(16.0f) == 0.25f);
    CHECK(NEAR(exp10(2.0), 100.0) && NEAR(exp10f(-1.0f), 0.1));
    CHECK(pown(2.0, 10) == 1024.0 && pownf(-2.0f, 3) == -8.0f);
    CHECK(powr(4.0, 0.5) == 2.0 && isnan(powr(-1.0, 2.0)) && powrf(9.0f, 0.5f) == 3.0f);
    CHECK(NEAR(rootn(-27.0, 3), -3.0) && NEAR(rootnf(16.0f, 4), 2.0));
    CHECK(NEAR(sinpi(0.5), 1.0) && NEAR(cospi(1.0), -1.0) && NEAR(tanpi(0.25), 1.0));
    CHECK(NEAR(sinpif(0.5f), 1.0) && NEAR(cospif(0.0f), 1.0) && NEAR(tanpif(0.25f), 1.0));
    CHECK(NEAR(asinpi(1.0), 0.5) && NEAR(acospi(-1.0), 1.0) && NEAR(atanpi(1.0), 0.25));
    CHECK(NEAR(atan2pi(1.0, -1.0), 0.75) && NEAR(atan2pif(-1.0f, 0.0f), -0.5));
    CHECK(NEAR(asinpif(1.0f), 0.5) && NEAR(acospif(0.0f), 0.5) && NEAR(atanpif(1.0f), 0.25));

    /* C99 <math.h> functions are PENCIL builtins too */
    CHECK(sqrt(9.0) == 3.0 && sqrtf(9.0f) == 3.0f && floor(-1.5) == -2.0 && ceilf(1.2f) == 2.0f);
    CHECK(NEAR(exp(0.0), 1.0) && NEAR(logf(1.0f), 0.0) && pow(2.0, 3.0) == 8.0 && hypot(3.0, 4.0) == 5.0);
    CHECK(NEAR(atan2(1.0, 1.0), 0.7853981633974483) && fmaxf(-1.0f, 1.0f) == 1.0f);

    /* __pencil_* builtins: no code, arguments not evaluated (assert: checked) */
    {
        int n = 4, v[4] = {1, 2, 3, 4};
        struct { int re, im; } z = {1, 2};
        __pencil_assume(n > 0);
        __pencil_assume(touch() > 0);
        __pencil_kill(v);
        __pencil_kill(v[1]);
        __pencil_kill(z.re);
        __pencil_use(v[touch()]);
        __pencil_def(z);
        USE(v[0]);
        DEF(v[2]);
        if (MAYBE)
            failures++;
        __pencil_assert(n == 4);
        __pencil_assert(touch() == 1);
        CHECK(side_effects == 1);
        CHECK(v[1] == 2 && z.re == 1);
    }

    printf("builtins: %d failures\n", failures);
    return failures != 0;
}
"""


@needs_gcc
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_builtin_values(opt: str, tmp_path: Path) -> None:
    src = tmp_path / "builtins.c"
    src.write_text(BUILTINS_C)
    exe = tmp_path / "builtins"
    res = _gcc([*STRICT, opt, "-I", str(INCLUDE), str(src), "-o", str(exe), "-lm"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    run = _run(exe)
    assert run.stdout.strip() == "builtins: 0 failures", run.stdout
    assert run.returncode == 0


@needs_gcc
def test_pencil_assert_aborts(tmp_path: Path) -> None:
    src = tmp_path / "assert.c"
    src.write_text('#include "pencil.h"\n'
                   "int main(int argc, char **argv)\n"
                   "{\n"
                   "    (void)argv;\n"
                   "    __pencil_assert(argc == 7);\n"
                   "    return 0;\n"
                   "}\n")
    exe = tmp_path / "assert"
    for extra in ([], ["-DNDEBUG"]):  # independent of <assert.h> and NDEBUG
        res = _gcc([*STRICT, *extra, "-I", str(INCLUDE), str(src), "-o", str(exe), "-lm"], tmp_path)
        assert res.returncode == 0, res.stderr
        run = _run(exe)
        assert run.returncode != 0
        assert "__pencil_assert(argc == 7) failed" in run.stderr


@needs_gcc
@pytest.mark.parametrize("std", ["c99", "gnu99", "c11", "c17"])
@pytest.mark.parametrize("gnu_source", [False, True])
def test_header_clean_in_language_modes(std: str, gnu_source: bool, tmp_path: Path) -> None:
    src = tmp_path / "modes.c"
    src.write_text("#include \"pencil.h\"\n"
                   "#pragma pencil independent\n"
                   "void PENCIL_H_probe(int n, float a[pencil_array n]);\n"
                   "void PENCIL_H_probe(int n, float a[pencil_array n]) ACCESS(PENCIL_H_summary) PENCIL;\n"
                   "CONST int twice(int x);\n"
                   "int twice(int x) { return 2 * x; }\n"
                   "int main(void)\n"
                   "{\n"
                   "    double r = rsqrt(4.0) + exp10(0.0) + sinpi(0.5) + pown(2.0, 2);\n"
                   "    return !(fabs(r - 6.5) < 1e-12 && max(twice(2), 3) == 4 && clamp(9, 0, 5) == 5);\n"
                   "}\n")
    exe = tmp_path / "modes"
    flags = [f"-std={std}", "-Wall", "-Wextra", "-pedantic", "-Werror"]
    if gnu_source:
        flags.append("-D_GNU_SOURCE")
    res = _gcc([*flags, "-I", str(INCLUDE), str(src), "-o", str(exe), "-lm"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert _run(exe).returncode == 0


def test_header_documents_every_family() -> None:
    text = HEADER.read_text()
    assert text.splitlines()[0] == "/* SPDX-License-Identifier: MIT */"
    assert "#define pencil_array static const restrict" in text
    for name in ("__pencil_assume", "__pencil_kill", "__pencil_assert", "__pencil_use",
                 "__pencil_def", "__pencil_maybe", "ACCESS", "USE", "DEF", "MAYBE", "CONST",
                 "PENCIL", "__PENCILCC__"):
        assert name in text, name
    # The builtin families are static inline functions (C99, nothing to link but -lm).
    assert text.count("static inline") > 40


# --------------------------------------------------------------------------
# Under __PENCILCC__ (libclang)
# --------------------------------------------------------------------------


def _clang_parse(path: Path, pencilcc: bool):
    ci = pytest.importorskip("clang.cindex")
    args = ["-x", "c", "-std=c99", "-Wall", "-Wextra", "-I", str(INCLUDE)]
    if pencilcc:
        args.append("-D__PENCILCC__=1")
    if GCC is not None:
        inc = subprocess.run([GCC, "-print-file-name=include"], capture_output=True, text=True).stdout.strip()
        if inc and Path(inc).is_dir():
            args += ["-isystem", inc]
    try:
        index = ci.Index.create()
    except Exception as exc:  # libclang shared library missing
        pytest.skip(f"libclang unavailable: {exc}")
    return ci, index.parse(str(path), args=args)


def _walk(cursor):
    yield cursor
    for child in cursor.get_children():
        yield from _walk(child)


@pytest.mark.parametrize("name", IMAGE_KERNELS)
def test_pencilcc_mode_sees_builtin_calls(name: str) -> None:
    path = IMAGE_DIR / f"{name}.c"
    ci, tu = _clang_parse(path, pencilcc=True)
    problems = [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Warning]
    assert problems == []
    calls = {c.spelling for c in _walk(tu.cursor)
             if c.kind == ci.CursorKind.CALL_EXPR and c.location.file
             and Path(c.location.file.name).resolve() == path.resolve()}
    source = path.read_text()
    for builtin in ("__pencil_assume", "__pencil_kill"):
        if f"{builtin}(" in source:
            assert builtin in calls, builtin


def test_pencilcc_mode_attributes_and_polymorphic_builtins(tmp_path: Path) -> None:
    src = tmp_path / "attrs.c"
    src.write_text('#include "pencil.h"\n'
                   "struct P { int a; };\n"
                   "void s(int n, int A[pencil_array n]) { for (int i = 0; i < n; i++) { USE(A[i]); "
                   "if (MAYBE) DEF(A[i]); } }\n"
                   "void f(int n, int A[pencil_array n]) ACCESS(s) PENCIL;\n"
                   "void g(int n, int A[pencil_array n]) __attribute__((pencil_access(s)));\n"
                   "void h(int n, int A[pencil_array n])\n"
                   "{\n"
                   "    struct P p = {1};\n"
                   "    __pencil_assume(n > 2);\n"
                   "    __pencil_kill(A); __pencil_kill(A[0]); __pencil_kill(p); __pencil_kill(n);\n"
                   "    __pencil_assert(n > 2);\n"
                   "}\n")
    ci, tu = _clang_parse(src, pencilcc=True)
    assert [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Warning] == []
    cursors = list(_walk(tu.cursor))
    calls = [c.spelling for c in cursors if c.kind == ci.CursorKind.CALL_EXPR]
    assert calls.count("__pencil_kill") == 4
    for name in ("__pencil_assume", "__pencil_assert", "__pencil_use", "__pencil_def", "__pencil_maybe"):
        assert name in calls, name
    annotations = {}
    for c in cursors:
        if c.kind == ci.CursorKind.FUNCTION_DECL and c.spelling in ("f", "g"):
            annotations[c.spelling] = sorted(a.spelling for a in c.get_children()
                                             if a.kind == ci.CursorKind.ANNOTATE_ATTR)
    assert annotations == {"f": ["pencil", "pencil_access(s)"], "g": ["pencil_access(s)"]}

    # Without __PENCILCC__ the builtins are macros: no calls remain.
    ci, tu = _clang_parse(src, pencilcc=False)
    assert [str(d) for d in tu.diagnostics if d.severity >= ci.Diagnostic.Warning] == []
    calls = [c.spelling for c in _walk(tu.cursor) if c.kind == ci.CursorKind.CALL_EXPR]
    assert not any(name.startswith("__pencil") for name in calls)


USER_NAMES = r"""
#include <stdio.h>
#include <pencil.h>
/* Functions of the program's own whose names pencil.h's builtins also use. */
static double step(double x) { return x * 2.0 + 1.0; }
static int max(int a, int b) { return a > b ? a - 1 : b + 1; }
static double mix(double a) { return -a; }
int main(void) {
    double s = 0.0;
    for (int i = 0; i < 4; i++) s += step(i) + mix(i) + max(i, 2);
    __pencil_assume(s > 0.0);
    printf("%g\n", s);
    return 0;
}
"""


@needs_gcc
def test_program_with_its_own_builtin_names_compiles_with_pencil_no_builtins(tmp_path: Path) -> None:
    """A program whose own functions are named like builtins (max, step, mix) cannot include
    pencil.h as it is (gcc: conflicting types); with PENCIL_NO_BUILTINS it can, keeps the
    language part (__pencil_assume) and runs its own functions."""
    source = tmp_path / "names.c"
    source.write_text(USER_NAMES)
    plain = subprocess.run([GCC, *STRICT, f"-I{INCLUDE}", "-c", str(source), "-o", str(tmp_path / "a.o")],
                           capture_output=True, text=True)
    assert plain.returncode != 0 and "step" in plain.stderr
    exe = tmp_path / "names"
    subprocess.run([GCC, *STRICT, "-DPENCIL_NO_BUILTINS", f"-I{INCLUDE}", str(source), "-o", str(exe)],
                   check=True)
    # step: 1+3+5+7 = 16, mix: -(0+1+2+3) = -6, max: 3+3+1+4 = 11
    assert subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout == "21\n"
