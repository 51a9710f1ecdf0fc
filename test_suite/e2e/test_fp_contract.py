# SPDX-License-Identifier: MIT
"""-ffp-contract: regions fuse a multiply and an add into one FMA only when asked.

Without the flag (any -std) a region rounds every product, as gcc -O0 does: its assembly
has no FMA even with -march=native on a host that has them, and its output equals gcc
-O0's exactly. With -ffp-contract=fast (or -ffast-math) the CPU target fuses, and the
output still agrees with gcc -O0's to rounding. 'on' is 'off', as in gcc; an unknown
style is a command-line error. The OpenCL program's prelude follows the flag.
"""
from __future__ import annotations

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
    harness.build(PENCILCC, [source], asm, ["-O3", "-march=native", "-std=c99", "-S", *flags])
    return sum(1 for line in asm.read_text().splitlines() if line.strip().startswith("vfmadd"))


@pytest.mark.skipif(not harness.host_has_cpu_flag("fma"), reason="the host has no FMA instructions")
@pytest.mark.parametrize("flags, fused", [((), False), (("-ffp-contract=off",), False),
                                          (("-ffp-contract=on",), False), (("-ffp-contract=fast",), True),
                                          (("-ffast-math",), True), (("-std=gnu11",), False)],
                         ids=["default", "off", "on", "fast", "fast-math", "gnu11"])
def test_region_fuses_only_when_asked(tmp_path, flags, fused):
    assert (_fmas(tmp_path, flags) > 0) == fused


@pytest.mark.parametrize("contract", [(), ("-ffp-contract=fast",)], ids=["off", "fast"])
def test_output_against_gcc_O0(tmp_path, contract):
    exe = tmp_path / "gemm"
    harness.build(PENCILCC, [GEMM], exe, ["-O3", "-march=native", *SIZES, *contract])
    # fused: one rounding less per update, so agreement to rounding; unfused: bit for bit
    harness.assert_matches_gcc_O0(GEMM, exe, tmp_path, flags=SIZES, rtol=1e-12 if contract else 0)


def test_unknown_style_is_an_error(tmp_path):
    source = tmp_path / "kern.c"
    source.write_text(KERNEL)
    proc = subprocess.run([*PENCILCC, "-ffp-contract=sometimes", "-c", str(source), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True)
    assert proc.returncode == 1
    assert "unknown floating point contraction style 'sometimes'" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("flags, pragma", [((), "OFF"), (("-ffp-contract=fast",), "ON")])
def test_opencl_prelude_follows_the_flag(tmp_path, flags, pragma):
    source = tmp_path / "kern.c"
    source.write_text(KERNEL)
    proc = subprocess.run([*PENCILCC, "-O3", "-fpencil-target=opencl", "-fpencil-dump=opencl", *flags,
                           "-c", str(source), "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"#pragma OPENCL FP_CONTRACT {pragma}" in proc.stdout + proc.stderr
