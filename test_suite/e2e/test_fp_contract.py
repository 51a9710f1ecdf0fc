# SPDX-License-Identifier: MIT
"""-ffp-contract: regions fuse a multiply and an add into one FMA.

Without the flag: fast in a GNU dialect (no -std, -std=gnu*) from -O2 up, as gcc; on in an
ISO one (-std=c99...) from -O2 up, as clang (gcc has no 'on'); off below -O2. Off, a region
rounds every product, as gcc -O0 does: its assembly has no FMA even with -march=native on a
host that has them, and its output equals gcc -O0's exactly. Fused (-ffp-contract=fast or on,
-ffast-math, or the defaults from -O2), the CPU target emits FMAs and the output agrees with
gcc -O0's to rounding; 'on' fuses within one expression only (`t = a*b; c = t + d;` keeps
its product rounded). An unknown style is a command-line error. The OpenCL program's
prelude says FP_CONTRACT ON for 'fast' only.
"""
from __future__ import annotations

import re
import subprocess
import sys

import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
GEMM = harness.POLYBENCH_DIR / "gemm.c"
SIZES = ("-DNI=45", "-DNJ=53", "-DNK=37")

KERNEL = r"""
void kern(int n, double alpha, double C[static const restrict n][n], double A[static const restrict n][n],
          double B[static const restrict n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++)
      for (int j = 0; j < n; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
#pragma endscop
}
"""


def _fmas(tmp_path, flags) -> int:
    source = tmp_path / "kern.c"
    source.write_text(KERNEL)
    asm = tmp_path / "kern.s"
    harness.build(PENCILCC, [source], asm, ["-O3", "-march=native", "-S", *flags])
    return sum(1 for line in asm.read_text().splitlines() if line.strip().startswith("vfmadd"))


@pytest.mark.skipif(not harness.host_has_cpu_flag("fma"), reason="the host has no FMA instructions")
@pytest.mark.parametrize("flags, fused", [
    (("-std=c99",), True), ((), True), (("-std=gnu11",), True), (("-std=c99", "-ffp-contract=fast"), True),
    (("-ffp-contract=off",), False), (("-std=c99", "-ffp-contract=off"), False), (("-ffp-contract=on",), True),
    (("-std=c99", "-ffast-math"), True), (("-O1",), False), (("-std=c99", "-O1"), False)],
    ids=["c99", "default", "gnu11", "c99-fast", "off", "c99-off", "on", "c99-fast-math", "O1", "c99-O1"])
def test_region_fuses_by_default_from_O2(tmp_path, flags, fused):
    assert (_fmas(tmp_path, flags) > 0) == fused


@pytest.mark.parametrize("flags, exact", [(("-std=c99",), False), (("-ffp-contract=off",), True),
                                         (("-std=c99", "-ffp-contract=off"), True),
                                         ((), False), (("-std=c99", "-ffp-contract=fast"), False)],
                         ids=["c99", "off", "c99-off", "default", "fast"])
def test_output_against_gcc_O0(tmp_path, flags, exact):
    exe = tmp_path / "gemm"
    harness.build(PENCILCC, [GEMM], exe, ["-O3", "-march=native", *SIZES, *flags])
    # fused: one rounding less per update, so agreement to rounding; unfused: bit for bit
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=SIZES, rtol=0 if exact else 1e-12)


def test_unknown_style_is_an_error(tmp_path):
    source = tmp_path / "kern.c"
    source.write_text(KERNEL)
    proc = subprocess.run([*PENCILCC, "-ffp-contract=sometimes", "-c", str(source), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "unknown floating point contraction style 'sometimes'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("flags, pragma", [(("-std=c99",), "OFF"), (("-ffp-contract=off",), "OFF"), ((), "ON"),
                                           (("-ffp-contract=on",), "OFF"),
                                           (("-std=c99", "-ffp-contract=fast"), "ON")])
def test_opencl_prelude_follows_the_flag(tmp_path, flags, pragma):
    source = tmp_path / "kern.c"
    source.write_text(KERNEL)
    proc = subprocess.run([*PENCILCC, "-O3", "-fpencil-target=opencl", "-fpencil-dump=opencl", *flags,
                           "-c", str(source), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"#pragma OPENCL FP_CONTRACT {pragma}" in proc.stdout + proc.stderr


# Three-address code: the product reaches the add through a variable of another statement.
THREE_ADDRESS = r"""
void tac(int n, double a[static const restrict n], double b[static const restrict n],
         double d[static const restrict n], double c[static const restrict n])
{
#pragma scop
  for (int i = 0; i < n; i++) {
    double t;
    t = a[i] * b[i];
    c[i] = t + d[i];
  }
#pragma endscop
}
"""


@pytest.mark.skipif(not harness.host_has_cpu_flag("fma"), reason="the host has no FMA instructions")
def test_on_does_not_fuse_across_statements(tmp_path):
    source = tmp_path / "tac.c"
    asm = tmp_path / "tac.s"
    source.write_text(THREE_ADDRESS)
    harness.build(PENCILCC, [source], asm, ["-O3", "-march=native", "-S", "-std=c99"])
    text = asm.read_text()
    assert not re.search(r"\bvf(n?madd|n?msub)", text), text
    assert re.search(r"\bvmul[sp]d", text), text
    harness.build(PENCILCC, [source], asm, ["-O3", "-march=native", "-S", "-std=c99", "-ffp-contract=fast"])
    assert re.search(r"\bvf(n?madd|n?msub)", asm.read_text())


@pytest.mark.skipif(not harness.host_has_cpu_flag("avx512f"), reason="the host has no AVX-512")
def test_c99_gemm_uses_packed_zmm_fmas(tmp_path):
    """PolyBench gemm with the harness's flags (-std=c99): the register-tiled update
    `C[i][j] += alpha * A[i][k] * B[k][j]` is one expression, so 'on' fuses it, vectorised."""
    asm = tmp_path / "gemm.s"
    harness.build(PENCILCC, [GEMM], asm, ["-O3", "-march=native", "-S", *harness.KERNEL_CFLAGS, *SIZES])
    fmas = re.findall(r"\bvf(?:n?madd|n?msub)\d{3}pd\s+[^\n]*%(zmm|ymm|xmm)\d+", asm.read_text())
    assert fmas.count("zmm") >= 16, fmas
