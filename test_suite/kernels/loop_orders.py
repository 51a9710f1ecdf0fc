# SPDX-License-Identifier: MIT
"""Loop-order variants of the PolyBench-style kernels (issue 28, item 4).

The same computation as `test_suite/kernels/polybench/<kernel>.c`, its scop written in
another loop order, one a programmer (or another version of the benchmark) writes as
readily: a dot-product (`i-j-k`) or `k`-outer gemm, a column-by-column syrk, mvt's two
products in one sweep over the matrix, adi's sweeps with the recurrence loop outside.
A polyhedral compiler should give each the schedule it gives the original: the
dependences are the same, only the order the source happens to use differs
(test_suite/e2e/test_loop_orders.py compares the final schedules).

Every variant keeps, for each array element, the order of the floating-point operations
that update it (`C[i][j]` is scaled by beta, then gets its `k` terms in increasing
`k`): it prints exactly what its original prints with gcc -O0 (`--check`).

A variant is `loop_orders/<kernel>.<order>.c`: the original file with its scop
replaced by the text below and a first comment saying so; everything else (sizes,
initialisation, output, the benchmark build's timer) is the original's. The benchmark
knows them as `order/<kernel>.<order>` with the original's sizes (test_suite/bench/
datasets.py), and `python -m test_suite.bench.variants` times them against their
original.

Usage: `python -m test_suite.kernels.loop_orders` (re)writes every variant; `--check`
verifies the written files are current and print what their originals print.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

KERNELS_DIR = Path(__file__).resolve().parent
POLYBENCH_DIR = KERNELS_DIR / "polybench"
ORDER_DIR = KERNELS_DIR / "loop_orders"
#: The benchmark's label prefix (and group name) of the variants.
GROUP = "order"

_SCOP_RE = re.compile(r"^#pragma scop\n.*?^#pragma endscop\n", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Order:
    """One variant: its kernel, the name of its order, what it is, and its scop's body."""

    kernel: str
    order: str
    description: str
    scop: str

    @property
    def name(self) -> str:
        return f"{self.kernel}.{self.order}"

    @property
    def path(self) -> Path:
        return ORDER_DIR / f"{self.name}.c"

    @property
    def original(self) -> Path:
        return POLYBENCH_DIR / f"{self.kernel}.c"


_ADI_STEP_JI = """\
  for (t = 1; t <= tsteps; t++) {
    /* column sweep: all columns at once, the recurrence along j outside */
    for (i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
    }
    for (j = 1; j < n - 1; j++)
      for (i = 1; i < n - 1; i++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i]
                   - f * u[j][i + 1] - a * q[i][j - 1])
                  / (a * p[i][j - 1] + b);
      }
    for (i = 1; i < n - 1; i++)
      v[n - 1][i] = 1.0;
    for (j = n - 2; j >= 1; j--)
      for (i = 1; i < n - 1; i++)
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
    /* row sweep: all rows at once, the recurrence along j outside */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
    }
    for (j = 1; j < n - 1; j++)
      for (i = 1; i < n - 1; i++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j]
                   - c * v[i + 1][j] - d * q[i][j - 1])
                  / (d * p[i][j - 1] + e);
      }
    for (i = 1; i < n - 1; i++)
      u[i][n - 1] = 1.0;
    for (j = n - 2; j >= 1; j--)
      for (i = 1; i < n - 1; i++)
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
  }
"""

_ADI_COEFFICIENTS = """\
  DX = 1.0 / n;
  DY = 1.0 / n;
  DT = 1.0 / tsteps;
  B1 = 2.0;
  B2 = 1.0;
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);
  a = -mul1 / 2.0;
  b = 1.0 + mul1;
  c = a;
  d = -mul2 / 2.0;
  e = 1.0 + mul2;
  f = d;
"""

ORDERS: tuple[Order, ...] = (
    Order("gemm", "ijk", "dot-product order: C[i][j] is scaled, then accumulates its k terms in "
          "the innermost loop (B read down a column)", """\
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
"""),
    Order("gemm", "kij", "k outermost: C is scaled in a nest of its own, then every k adds the "
          "rank-one update A[:][k] * B[k][:]", """\
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
  for (k = 0; k < nk; k++)
    for (i = 0; i < ni; i++)
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
"""),
    Order("gemm", "jki", "column-major order (Fortran's): one column of C at a time, i innermost "
          "(C, A read down columns)", """\
  for (j = 0; j < nj; j++) {
    for (i = 0; i < ni; i++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++)
      for (i = 0; i < ni; i++)
        C[i][j] += alpha * A[i][k] * B[k][j];
  }
"""),
    Order("syrk", "ji", "transposed: the lower triangle column by column (j outer, i >= j), each "
          "element a dot product over k", """\
  for (j = 0; j < n; j++)
    for (i = j; i < n; i++) {
      C[i][j] *= beta;
      for (k = 0; k < m; k++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
"""),
    Order("syrk", "kij", "k outermost: the triangle is scaled first, then every k adds a "
          "rank-one update", """\
  for (i = 0; i < n; i++)
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
  for (k = 0; k < m; k++)
    for (i = 0; i < n; i++)
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
"""),
    Order("syr2k", "ji", "transposed: the lower triangle column by column (j outer, i >= j), each "
          "element a dot product over k", """\
  for (j = 0; j < n; j++)
    for (i = j; i < n; i++) {
      C[i][j] *= beta;
      for (k = 0; k < m; k++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
    }
"""),
    Order("mvt", "fused", "both products in one sweep over A, row by row: x1 along the row, x2 "
          "down the columns (x2[j] gets its terms in increasing i, as in the original)", """\
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      x1[i] = x1[i] + A[i][j] * y1[j];
      x2[j] = x2[j] + A[i][j] * y2[i];
    }
"""),
    Order("adi", "ji", "each sweep's tridiagonal solves run side by side: the recurrence loop "
          "j outside, the independent lines i inside", _ADI_COEFFICIENTS + _ADI_STEP_JI),
    Order("trmm", "ikj", "k between i and j: row i of B gets the rows below it, scaled by A[k][i], "
          "along j; then row i is scaled by alpha", """\
  for (i = 0; i < m; i++) {
    for (k = i + 1; k < m; k++)
      for (j = 0; j < n; j++)
        B[i][j] += A[k][i] * B[k][j];
    for (j = 0; j < n; j++)
      B[i][j] = alpha * B[i][j];
  }
"""),
)

BY_NAME: dict[str, Order] = {o.name: o for o in ORDERS}


def kernel_of(name: str) -> str:
    """The PolyBench kernel of the variant `name` (`gemm.kij` -> `gemm`)."""
    return name.split(".", 1)[0]


def source(order: Order) -> str:
    """The variant's text: the original with its scop replaced."""
    text = order.original.read_text()
    found = _SCOP_RE.findall(text)
    if len(found) != 1:
        raise ValueError(f"{order.original}: {len(found)} scops")
    header = (f"/* Generated by test_suite/kernels/loop_orders.py from polybench/{order.kernel}.c: the scop\n"
              f" * in another loop order ({order.order}), {order.description}. Do not edit. */\n")
    return header + _SCOP_RE.sub(lambda _: "#pragma scop\n" + order.scop + "#pragma endscop\n", text)


def _gcc_output(path: Path, workdir: Path) -> str:
    exe = workdir / path.stem
    subprocess.run(["gcc", "-std=c99", "-O0", "-Wno-unknown-pragmas", str(path), "-o", str(exe), "-lm"],
                   check=True, capture_output=True)
    return subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="verify the written variants instead of writing them")
    args = parser.parse_args(argv)
    problems: list[str] = []
    ORDER_DIR.mkdir(exist_ok=True)
    stale = {p.stem for p in ORDER_DIR.glob("*.c")} - set(BY_NAME)
    with tempfile.TemporaryDirectory() as tmp:
        for order in ORDERS:
            text = source(order)
            if not args.check:
                order.path.write_text(text)
            elif not order.path.is_file() or order.path.read_text() != text:
                problems.append(f"{order.path}: not what the generator writes")
            elif _gcc_output(order.path, Path(tmp)) != _gcc_output(order.original, Path(tmp)):
                problems.append(f"{order.path}: prints something else than polybench/{order.kernel}.c")
    for name in sorted(stale):
        if args.check:
            problems.append(f"{ORDER_DIR / name}.c: no longer generated")
        else:
            (ORDER_DIR / f"{name}.c").unlink()
    for p in problems:
        print(p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
