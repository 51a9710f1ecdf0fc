# SPDX-License-Identifier: MIT
"""The README's first command (`python -m test_suite.quickstart`) says what pencilcc did, whether
the result is right and the time: run here at the kernels' small sizes, once."""
from __future__ import annotations

import pytest

from test_suite import quickstart


@pytest.mark.parametrize("kernel", ["gemm", "jacobi-2d"])
def test_quickstart_shows_the_remark_the_check_and_the_time(kernel: str, capsys) -> None:
    assert quickstart.main(["--kernel", kernel, "--small", "--runs", "1"]) == 0
    out = capsys.readouterr().out
    assert f"remark: region in 'kernel_{kernel.replace('-', '_')}' optimized" in out
    assert "result: " in out and " match " in out and "DIFFERS" not in out
    assert "time of the kernel: " in out and out.rstrip().endswith("x")


def test_quickstart_refuses_an_unknown_kernel(capsys) -> None:
    with pytest.raises(SystemExit) as info:
        quickstart.main(["--kernel", "nosuch"])
    assert info.value.code == 2 and "no kernel 'nosuch'" in capsys.readouterr().err
