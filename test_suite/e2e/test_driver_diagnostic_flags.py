# SPDX-License-Identifier: MIT
"""The driver's diagnostic flags end to end: -w and -Wno-pencil leave -Rpass remarks alone;
unknown --disable-pass names and dump stages are usage errors (exit status 1).

The reference outliner of test_driver_stubs stands in for the passes, so these tests
check the driver, fast, whatever state the optimizer is in.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from clangpass.driver import main as driver_main
from test_suite.e2e import test_driver_stubs as stubs

KERNEL = r"""
void scale(int n, double A[16])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    A[i] = 2.0 * A[i];
#pragma endscop
}

int first_negative(int n, int v[16])
{
  int k = -1;
#pragma scop
  for (int i = 0; i < n; i++)
    if (v[i] < 0) { k = i; goto done; }
#pragma endscop
done:
  return k;
}
"""


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "k.c").write_text(KERNEL)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PENCILCC_DEBUG", raising=False)
    stubs.install(monkeypatch)
    return tmp_path


def pencilcc(capfd: pytest.CaptureFixture, *argv: str) -> tuple[int, str]:
    status = driver_main.main(list(argv))
    return status, capfd.readouterr().err


@pytest.mark.parametrize("silencer", ["-w", "-Wno-pencil"])
def test_silencing_warnings_keeps_the_remarks(project: Path, capfd, silencer: str) -> None:
    status, err = pencilcc(capfd, "-O1", "-Rpass=pencil", "-Rpass-missed=pencil", silencer, "-c", "k.c")
    assert status == 0 and (project / "k.o").is_file()
    assert "k.c:5:1: remark: region in 'scale' optimized: " in err
    assert "remark: region in 'first_negative' missed: " in err
    assert "warning:" not in err and "[-Wpencil" not in err
    # The control: without the silencer the fallback is also a -Wpencil warning.
    status, err = pencilcc(capfd, "-O1", "-Rpass=pencil", "-c", "k.c")
    assert status == 0 and "[-Wpencil-goto]" in err and "remark: region in 'scale' optimized" in err


def test_unknown_pass_name_is_a_usage_error(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, "-O2", "--disable-pass=tiling", "-c", "k.c")
    assert status == 1 and not (project / "k.o").exists()
    assert err.startswith("pencilcc: error: unknown pass 'tiling' in '--disable-pass' (passes: extract, ")
    assert ", tile, " in err and err.count("\n") == 1
    status, _ = pencilcc(capfd, "-O2", "--disable-pass=tile", "-c", "k.c")
    assert status == 0


def test_unknown_dump_stage_is_a_usage_error(project: Path, capfd) -> None:
    status, err = pencilcc(capfd, "-O2", "-fpencil-dump=cuda", "-c", "k.c")
    assert status == 1 and not (project / "k.o").exists()
    assert err == ("pencilcc: error: unknown stage 'cuda' in '-fpencil-dump=cuda' "
                   "(stages: ir,scop,deps,schedule,ast,llvm,opencl)\n")