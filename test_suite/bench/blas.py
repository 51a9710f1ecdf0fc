# SPDX-License-Identifier: MIT
"""numpy's BLAS on the kernels that are BLAS operations: the column a build is held against.

Input: a kernel's PolyBench name and size values, a thread count.  Output:
:class:`NumpyTiming`, the seconds of numpy's calls that compute the kernel's
result from its inputs, median over the repetitions.

The operations (:func:`operation`), each written with the numpy calls that reach
its bundled BLAS (OpenBLAS in the numpy wheels):

- ``gemm``: ``C = beta*C + alpha*(A @ B)`` (dgemm);
- ``syrk``: the lower triangle of ``beta*C + alpha*(A @ A.T)`` (numpy calls
  dsyrk for a product with its own transpose);
- ``syr2k``: the lower triangle of ``beta*C + alpha*(X + X.T)``, ``X = A @ B.T``
  (one dgemm of the same flops as the kernel's);
- ``symm``: ``C = beta*C + alpha*(S @ B)``, ``S`` the symmetric matrix of
  ``A``'s lower triangle, built inside the timed call (numpy has no dsymm: a
  dgemm);
- ``trmm``: ``B = alpha*((I + U) @ B)``, ``U`` the transpose of ``A``'s strict
  lower triangle, built inside the timed call (numpy has no dtrmm: a dgemm,
  twice the kernel's flops);
- ``gemver``: the whole kernel: its rank-2 update ``A += [u1 u2] @ [v1; v2]``
  (a dgemm of inner size 2), ``x += beta * (A.T @ y)``, ``x += z``,
  ``w += alpha * (A @ x)`` (two dgemv).

Only the calls are timed, after one untimed warm-up call (OpenBLAS starts its
threads on the first); every timed call gets fresh copies of the arrays it
updates.  The timing runs in a subprocess of its own
(``python -m test_suite.bench.blas``) whose ``OPENBLAS_NUM_THREADS`` (and
``OMP_NUM_THREADS``, ``MKL_NUM_THREADS``) is the bench's thread count, read by
OpenBLAS when it loads; where threadpoolctl is installed the subprocess also
reports the library and thread count it found.  The attained rate of numpy's
call is taken with the kernel's own flop and byte counts, so a call that does
more work than the kernel (trmm's dgemm) shows as slower.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Optional, Sequence

#: Kernels that are BLAS operations, by PolyBench name.
BLAS_KERNELS: tuple[str, ...] = ("gemm", "syrk", "syr2k", "symm", "trmm", "gemver")
#: The column's name in the tables and the JSON.
NAME = "numpy"
#: The scalars of the operations (any values: the timing does not depend on them).
ALPHA, BETA = 1.5, 1.2


@dataclass(frozen=True)
class NumpyTiming:
    """numpy's calls for one kernel: seconds per timed call, or why there are none."""

    values: tuple[float, ...] = ()
    error: str = ""
    #: The BLAS library and its thread count as the subprocess saw them ("" when unknown).
    library: str = ""

    @property
    def median(self) -> Optional[float]:
        if self.error or not self.values:
            return None
        ordered = sorted(self.values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def is_blas_kernel(polybench_name: str) -> bool:
    return polybench_name in BLAS_KERNELS


def operation(name: str, sizes: Mapping[str, int], np: Any, rng: Any) -> tuple[dict[str, Any], Callable[..., dict]]:
    """The inputs of kernel ``name`` at ``sizes`` and numpy's call computing its outputs from them.

    The call takes the inputs as keyword arguments and returns the outputs by
    array name; it may update the arrays it is given (callers pass copies).
    """
    def matrix(rows: int, columns: int) -> Any:
        return rng.random((rows, columns))

    def vector(length: int) -> Any:
        return rng.random(length)

    if name == "gemm":
        ni, nj, nk = sizes["NI"], sizes["NJ"], sizes["NK"]

        def gemm(C: Any, A: Any, B: Any) -> dict:
            product = A @ B
            product *= ALPHA
            C *= BETA
            C += product
            return {"C": C}
        return {"C": matrix(ni, nj), "A": matrix(ni, nk), "B": matrix(nk, nj)}, gemm
    if name == "syrk":
        n, m = sizes["N"], sizes["M"]
        lower = np.tril(np.ones((n, n), dtype=bool))

        def syrk(C: Any, A: Any) -> dict:
            product = A @ A.T
            return {"C": np.where(lower, BETA * C + ALPHA * product, C)}
        return {"C": matrix(n, n), "A": matrix(n, m)}, syrk
    if name == "syr2k":
        n, m = sizes["N"], sizes["M"]
        lower = np.tril(np.ones((n, n), dtype=bool))

        def syr2k(C: Any, A: Any, B: Any) -> dict:
            half = A @ B.T
            return {"C": np.where(lower, BETA * C + ALPHA * (half + half.T), C)}
        return {"C": matrix(n, n), "A": matrix(n, m), "B": matrix(n, m)}, syr2k
    if name == "symm":
        m, n = sizes["M"], sizes["N"]

        def symm(C: Any, A: Any, B: Any) -> dict:
            strict = np.tril(A, -1)
            symmetric = strict + strict.T + np.diag(np.diag(A))
            product = symmetric @ B
            product *= ALPHA
            C *= BETA
            C += product
            return {"C": C}
        return {"C": matrix(m, n), "A": matrix(m, m), "B": matrix(m, n)}, symm
    if name == "trmm":
        m, n = sizes["M"], sizes["N"]

        def trmm(A: Any, B: Any) -> dict:
            upper = np.tril(A, -1).T + np.eye(m)
            product = upper @ B
            product *= ALPHA
            return {"B": product}
        return {"A": matrix(m, m), "B": matrix(m, n)}, trmm
    if name == "gemver":
        n = sizes["N"]

        def gemver(A: Any, u1: Any, v1: Any, u2: Any, v2: Any, w: Any, x: Any, y: Any, z: Any) -> dict:
            A += np.stack((u1, u2), axis=1) @ np.stack((v1, v2))
            x += BETA * (A.T @ y)
            x += z
            w += ALPHA * (A @ x)
            return {"A": A, "x": x, "w": w}
        inputs = {"A": matrix(n, n), **{v: vector(n) for v in ("u1", "v1", "u2", "v2", "w", "x", "y", "z")}}
        return inputs, gemver
    raise ValueError(f"{name} is not a BLAS operation (those: {', '.join(BLAS_KERNELS)})")


#: The arrays each operation updates (a timed call gets fresh copies of them).
UPDATED: dict[str, tuple[str, ...]] = {
    "gemm": ("C",), "syrk": ("C",), "syr2k": ("C",), "symm": ("C",), "trmm": ("B",),
    "gemver": ("A", "w", "x"),
}


def time_operation(name: str, sizes: Mapping[str, int], repeat: int) -> list[float]:
    """Seconds of ``repeat`` timed calls of numpy's operation (after one warm-up), in this process."""
    import numpy as np

    inputs, call = operation(name, sizes, np, np.random.default_rng(1))
    seconds = []
    for index in range(repeat + 1):
        arguments = {k: (v.copy() if k in UPDATED[name] else v) for k, v in inputs.items()}
        start = time.perf_counter()
        call(**arguments)
        elapsed = time.perf_counter() - start
        if index:
            seconds.append(elapsed)
    return seconds


def _library() -> str:
    """The BLAS library numpy loaded and its threads, from threadpoolctl where installed."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return ""
    pools = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    return "; ".join(f"{p.get('internal_api')} {p.get('version')} {p.get('num_threads')} threads"
                     for p in pools)


def thread_env(threads: int) -> dict[str, str]:
    """The subprocess's environment: every BLAS thread variable set to ``threads``."""
    return {**os.environ, "OPENBLAS_NUM_THREADS": str(threads), "OMP_NUM_THREADS": str(threads),
            "MKL_NUM_THREADS": str(threads)}


def time_numpy(name: str, sizes: Mapping[str, int], threads: int, repeat: int, timeout: float) -> NumpyTiming:
    """numpy's timed calls for kernel ``name``, in a subprocess with ``threads`` BLAS threads."""
    command = [sys.executable, "-m", "test_suite.bench.blas", name, json.dumps(dict(sizes)), str(repeat)]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, env=thread_env(threads), timeout=timeout)
    except subprocess.TimeoutExpired:
        return NumpyTiming(error=f"numpy timed out after {timeout:g} s")
    except OSError as exc:
        return NumpyTiming(error=f"numpy run failed: {exc}")
    if proc.returncode != 0:
        return NumpyTiming(error=f"numpy run failed: {proc.stderr.strip()[-300:]}")
    try:
        document = json.loads(proc.stdout)
        return NumpyTiming(tuple(float(s) for s in document["seconds"]), "", str(document.get("library", "")))
    except (ValueError, KeyError, TypeError) as exc:
        return NumpyTiming(error=f"bad numpy output: {exc}")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m test_suite.bench.blas",
                                     description="Time numpy's BLAS call for one kernel (used by the bench).")
    parser.add_argument("kernel", choices=BLAS_KERNELS)
    parser.add_argument("sizes", help='JSON object of size values, e.g. {"NI": 100, "NJ": 110, "NK": 120}')
    parser.add_argument("repeat", type=int)
    args = parser.parse_args(argv)
    seconds = time_operation(args.kernel, json.loads(args.sizes), args.repeat)
    print(json.dumps({"seconds": seconds, "library": _library()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
