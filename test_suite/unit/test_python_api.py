# SPDX-License-Identifier: MIT
"""clangpass.compile: PENCIL functions called on numpy arrays (clangpass/api.py).

Each target compiles SOURCE once (module fixture); the error tests reuse it and check
that nothing ran (the arrays are unchanged). The OpenCL tests are skipped while the
driver does not accept -fpencil-target=opencl or no OpenCL platform is present.
"""
from __future__ import annotations

import functools
import json
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import clangpass
from clangpass import api

REPO = Path(__file__).resolve().parents[2]

SOURCE = """\
void gemm(int ni, int nj, int nk, double alpha, double beta,
          double C[static const restrict ni][nj],
          const double A[static const restrict ni][nk],
          const double B[static const restrict nk][nj])
{
  for (int i = 0; i < ni; i++)
    for (int j = 0; j < nj; j++) {
      C[i][j] *= beta;
      for (int k = 0; k < nk; k++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
}

double dot(int n, const double x[static const restrict n], const double y[static const restrict n])
{
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i];
  return s;
}

void scale(int n, float a, float x[static const restrict n])
{
  for (int i = 0; i < n; i++)
    x[i] *= a;
}

void fill(int n, int m, double A[static const restrict n][2 * m + 1], double v)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < 2 * m + 1; j++)
      A[i][j] = v + j;
}

void fixed(double A[static const restrict 4][3])
{
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++)
      A[i][j] += i * 3 + j;
}

void bump(double *p) { *p += 1.0; }

long mix(unsigned char c, _Bool b, short s, long long n) { return c + b + s + n; }

void weird(int n, double A[static const restrict n > 2 ? n : 3]) { A[0] = 1.0; }

struct point { int x, y; };
int getx(struct point p) { return p.x; }

static int hidden(int x) { return x; }
int uses_hidden(int x) { return hidden(x) + 1; }
"""


@functools.lru_cache(maxsize=None)
def _opencl_unavailable() -> str:
    """Why the OpenCL tests cannot run here ('' when they can)."""
    try:
        import pyopencl
        if not pyopencl.get_platforms():
            return "no OpenCL platform"
    except Exception as exc:        # no pyopencl, no ICD loader, no platform
        return f"no OpenCL platform ({type(exc).__name__}: {exc})"
    probe = Path(os.environ.get("TMPDIR", "/tmp")) / f"pencilcc-api-probe-{os.getpid()}.c"
    probe.write_text("int probe(int x) { return x; }\n")
    try:
        proc = subprocess.run([sys.executable, "-m", "clangpass", "-fpencil-target=opencl", "-c",
                               str(probe), "-o", os.devnull], capture_output=True, text=True, cwd=REPO)
    finally:
        probe.unlink()
    if proc.returncode != 0:
        return f"pencilcc does not accept -fpencil-target=opencl: {proc.stderr.strip()[:200]}"
    return ""


def _skip_unless(target: str) -> None:
    if target == "opencl":
        reason = _opencl_unavailable()
        if reason:
            pytest.skip(reason)


@pytest.fixture(autouse=True)
def private_cache(tmp_path, monkeypatch):
    """Every test caches under its own directory, never in the user's."""
    monkeypatch.setenv("PENCILCC_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("PENCILCC_CACHE_KEY_FILE", str(tmp_path / "cache-key"))
    monkeypatch.delenv("PENCILCC_NO_CACHE", raising=False)
    return tmp_path / "cache"


@pytest.fixture(scope="module", params=["cpu", "opencl"])
def lib(request, tmp_path_factory):
    target = request.param
    _skip_unless(target)
    home = tmp_path_factory.mktemp(f"cache-{target}")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PENCILCC_CACHE_DIR", str(home / "cache"))
        mp.setenv("PENCILCC_CACHE_KEY_FILE", str(home / "cache-key"))
        return clangpass.compile(SOURCE, target=target)


@pytest.fixture(params=["cpu", "opencl"])
def target(request):
    _skip_unless(request.param)
    return request.param


def _arrays(seed=0):
    rng = np.random.default_rng(seed)
    ni, nj, nk = 23, 31, 17
    return ni, nj, nk, rng.random((ni, nj)), rng.random((ni, nk)), rng.random((nk, nj))


# ---------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------
def test_exports_external_definitions_only(lib):
    assert set(lib) == {"gemm", "dot", "scale", "fill", "fixed", "bump", "mix", "weird", "getx",
                        "uses_hidden"}
    assert not hasattr(lib, "hidden")
    assert lib.target in ("cpu", "opencl") and "-O3" in lib.flags
    assert lib.uses_hidden(41) == 42


def test_gemm_updates_in_place_like_numpy(lib):
    ni, nj, nk, C, A, B = _arrays()
    expected = 1.2 * C + 1.5 * A @ B
    A0, B0 = A.copy(), B.copy()
    C_id = id(C)
    assert lib.gemm(ni, nj, nk, 1.5, 1.2, C, A, B) is None
    np.testing.assert_allclose(C, expected, rtol=1e-12)
    assert id(C) == C_id
    assert np.array_equal(A, A0) and np.array_equal(B, B0)


def test_gemm_keywords_and_read_only_const_inputs(lib):
    ni, nj, nk, C, A, B = _arrays(1)
    expected = 2.0 * C + A @ B
    A.flags.writeable = False           # const elements: read-only arrays are fine
    B.flags.writeable = False
    lib.gemm(ni, nj, nk, alpha=1.0, beta=2.0, C=C, A=A, B=B)
    np.testing.assert_allclose(C, expected, rtol=1e-12)


def test_dot_returns_a_float_equal_to_numpy(lib):
    x, y = np.linspace(0, 1, 1000), np.linspace(2, 3, 1000)
    result = lib.dot(1000, x, y)
    assert isinstance(result, float)
    assert result == pytest.approx(float(x @ y), rel=1e-12)


def test_float32_vla_constant_extents_and_pointer(lib):
    x = np.arange(5, dtype=np.float32)
    lib.scale(5, 2.5, x)
    assert np.array_equal(x, np.arange(5, dtype=np.float32) * np.float32(2.5))
    A = np.zeros((3, 7))                # [n][2 * m + 1] with n = 3, m = 3
    lib.fill(3, 3, A, 10.0)
    assert np.array_equal(A, np.tile(10.0 + np.arange(7), (3, 1)))
    F = np.zeros((4, 3))
    lib.fixed(F)
    assert np.array_equal(F, np.arange(12.0).reshape(4, 3))
    p = np.array([41.0, 7.0])           # a pointer is a 0-d array: the first element
    lib.bump(p)
    assert p.tolist() == [42.0, 7.0]


def test_integer_types(lib):
    assert lib.mix(255, True, -32768, 2**62) == 255 + 1 - 32768 + 2**62
    assert lib.mix(np.uint8(3), np.bool_(False), np.int16(4), np.int64(5)) == 12


# ---------------------------------------------------------------------------------------------
# Errors: raised before the call, arrays untouched
# ---------------------------------------------------------------------------------------------
def _unchanged_after(call, error, match, *arrays):
    before = [a.copy() for a in arrays]
    with pytest.raises(error, match=match):
        call()
    for a, b in zip(arrays, before):
        assert np.array_equal(a, b), "an argument changed although the call was refused"


def test_wrong_dtype_is_type_error(lib):
    ni, nj, nk, C, A, B = _arrays()
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, A.astype(np.float32), B),
                     TypeError, r"argument 'A'.*dtype float64, got float32", C, B)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C.tolist(), A, B),
                     TypeError, r"numpy array", A, B)
    x = np.ones(4, dtype=np.float64)
    _unchanged_after(lambda: lib.scale(4, 2.0, x), TypeError, "dtype float32, got float64", x)


def test_shape_against_vla_extents_is_value_error(lib):
    ni, nj, nk, C, A, B = _arrays()
    _unchanged_after(lambda: lib.gemm(ni, nj, nk + 1, 1.0, 1.0, C, A, B),
                     ValueError, r"argument 'A'.*\(ni, nk\) = \(23, 18\).*got \(23, 17\)", C, A, B)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C[:, :-1].copy(), A, B),
                     ValueError, r"argument 'C'", C, A, B)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C.ravel(), A, B),
                     ValueError, r"2-dimensional", C, A, B)
    A2 = np.zeros((3, 5))               # fill wants [3][2 * 3 + 1] = (3, 7)
    _unchanged_after(lambda: lib.fill(3, 3, A2, 1.0), ValueError, r"\(3, 7\)", A2)
    F = np.zeros((4, 4))                # constant extents [4][3]
    _unchanged_after(lambda: lib.fixed(F), ValueError, r"\(4, 3\)", F)
    empty = np.zeros(0)
    _unchanged_after(lambda: lib.bump(empty), ValueError, "at least one element", empty)


def test_non_contiguous_or_read_only_written_array_is_value_error(lib):
    ni, nj, nk, C, A, B = _arrays()
    Cf = np.asfortranarray(C)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, Cf, A, B), ValueError, "C-contiguous", Cf, A, B)
    strided = np.zeros((ni, 2 * nk))[:, ::2]
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, strided, B), ValueError, "C-contiguous",
                     C, strided, B)
    C.flags.writeable = False           # C's elements are not const: the function writes them
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, A, B), ValueError, "writeable", C, A, B)


def test_argument_count_is_type_error(lib):
    ni, nj, nk, C, A, B = _arrays()
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, A), TypeError, "takes 8 arguments", C, A)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, A, B, B), TypeError, "too many", C, A, B)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, 1.0, 1.0, C, A, B, gamma=1), TypeError, "gamma", C, A, B)


def test_scalar_range_and_kind(lib):
    ni, nj, nk, C, A, B = _arrays()
    _unchanged_after(lambda: lib.gemm(2**31, nj, nk, 1.0, 1.0, C, A, B), OverflowError, "out of range of int",
                     C, A, B)
    _unchanged_after(lambda: lib.gemm(float(ni), nj, nk, 1.0, 1.0, C, A, B), TypeError, "expects an integer",
                     C, A, B)
    _unchanged_after(lambda: lib.gemm(ni, nj, nk, "1.0", 1.0, C, A, B), TypeError, "real number", C, A, B)
    x = np.ones(3, dtype=np.float32)
    _unchanged_after(lambda: lib.scale(3, 1e39, x), OverflowError, "out of range of float", x)
    with pytest.raises(OverflowError, match="unsigned char"):
        lib.mix(256, True, 0, 0)
    with pytest.raises(OverflowError, match="unsigned char"):
        lib.mix(-1, True, 0, 0)
    with pytest.raises(OverflowError):
        lib.mix(0, 2, 0, 0)
    with pytest.raises(OverflowError, match="short"):
        lib.mix(0, True, 40000, 0)


def test_unsupported_extent_and_types_are_refused(lib):
    A = np.zeros(5)
    _unchanged_after(lambda: lib.weird(5, A), TypeError, r"cannot check its extent", A)
    assert isinstance(api.ExtentError("x"), TypeError)
    with pytest.raises(TypeError, match=r"struct point"):
        lib.getx(1)


# ---------------------------------------------------------------------------------------------
# Compile errors, flags
# ---------------------------------------------------------------------------------------------
def test_syntax_error_is_compile_error_with_diagnostics(target, tmp_path):
    with pytest.raises(clangpass.CompileError) as info:
        clangpass.compile("int f(int x) {\n  return x +;\n}\n", target=target)
    assert re.search(r"<string>:2:\d+: error", info.value.diagnostics)
    assert info.value.diagnostics.strip() in str(info.value)
    path = tmp_path / "broken.c"
    path.write_text("void g(void) {\n  undeclared_thing = 1;\n}\n")
    with pytest.raises(clangpass.CompileError) as info:
        clangpass.compile(path, target=target)
    assert re.search(re.escape(str(path)) + r":2:\d+: error", info.value.diagnostics)


def test_flags(tmp_path, monkeypatch):
    with pytest.raises(ValueError, match="-c"):
        clangpass.compile("int f(void) { return 0; }", flags=["-c"])
    with pytest.raises(ValueError, match="target="):
        clangpass.compile("int f(void) { return 0; }", flags=["-fpencil-target=opencl"])
    with pytest.raises(ValueError, match="target"):
        clangpass.compile("int f(void) { return 0; }", target="gpu")
    with pytest.raises(FileNotFoundError):
        clangpass.compile(tmp_path / "missing.c")
    monkeypatch.setenv("PENCILCC_NO_CACHE", "1")
    lib = clangpass.compile("int getn(void) { return N * 2; }", flags="-O1 -DN=21")
    assert lib.getn() == 42
    assert lib.flags == ("-O1", "-DN=21") and lib.library is None


# ---------------------------------------------------------------------------------------------
# Caches
# ---------------------------------------------------------------------------------------------
def test_in_process_cache_returns_the_same_module(lib):
    start = time.perf_counter()
    again = clangpass.compile(SOURCE, target=lib.target)
    assert again is lib
    assert time.perf_counter() - start < 0.05


_CHILD = """\
import sys, time
import clangpass
from clangpass.driver import compile as driver_compile
analyses = []
analyse = driver_compile.Compilation._isolated_analysis
driver_compile.Compilation._isolated_analysis = lambda self, source: (analyses.append(source.path),
                                                                      analyse(self, source))[1]
start = time.perf_counter()
lib = clangpass.compile(sys.argv[1], target=sys.argv[2])
seconds = time.perf_counter() - start
x = __import__("numpy").arange(1.0, 5.0)
print({"seconds": seconds, "analysed": len(analyses), "library": lib.library, "result": lib.dot(4, x, x)})
"""


def _child(source, target):
    """Compile `source` in a new Python process; what it saw."""
    proc = subprocess.run([sys.executable, "-c", _CHILD, source, target], capture_output=True, text=True,
                          cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return eval(proc.stdout.strip().splitlines()[-1])


def test_disk_cache_across_processes(target, private_cache):
    # Both compiles run in new processes, each hashing pencilcc's files afresh (this process
    # hashed them at its first compile; a checkout edited since then has another key).
    source = f"/* {private_cache} */\n" + SOURCE.split("void scale")[0]
    first = _child(source, target)
    assert first["analysed"] == 1 and first["result"] == 30.0
    library = Path(first["library"])
    assert private_cache in library.parents and library.is_file()
    mtime = library.stat().st_mtime_ns
    second = _child(source, target)
    assert second["library"] == str(library)
    assert second["analysed"] == 0, "the cached library was rebuilt"
    assert second["result"] == 30.0
    assert second["seconds"] < first["seconds"] / 2
    assert library.stat().st_mtime_ns == mtime
    # An entry altered by someone else (its HMAC no longer matches) is rebuilt, not loaded.
    entry = library.with_name(library.name.split(".")[0] + ".json")
    meta = json.loads(entry.read_text())
    meta["diagnostics"] = "forged"
    entry.write_text(json.dumps(meta))
    third = _child(source, target)
    assert third["result"] == 30.0
    assert json.loads(entry.read_text())["diagnostics"] != "forged"


def test_changed_header_is_not_served_stale(tmp_path):
    (tmp_path / "k.h").write_text("#define FACTOR 2.0\n")
    source = tmp_path / "uses_header.c"
    source.write_text(textwrap.dedent("""\
        #include "k.h"
        void times(int n, double x[static const restrict n])
        {
          for (int i = 0; i < n; i++)
            x[i] *= FACTOR;
        }
        """))
    x = np.ones(3)
    clangpass.compile(source).times(3, x)
    assert x.tolist() == [2.0, 2.0, 2.0]
    (tmp_path / "k.h").write_text("#define FACTOR 3.0\n")
    clangpass.compile(source).times(3, x)
    assert x.tolist() == [6.0, 6.0, 6.0]


# ---------------------------------------------------------------------------------------------
# The compile core's diagnostics as values, one parse, one cache with the driver
# ---------------------------------------------------------------------------------------------
FALLBACK = """\
int first_negative(int n, const double A[static const restrict n])
{
  int i;
#pragma scop
  for (i = 0; i < n; i++)
    if (A[i] < 0) goto found;
#pragma endscop
found:
  return i;
}
"""


def _fallbacks(messages):
    return [d for d in messages if d.id.startswith("pencil")]   # a region's reject id (pencil-return)


def test_fallback_warning_is_a_value_with_its_location(tmp_path):
    with pytest.warns(clangpass.CompileWarning, match="not optimized"):
        lib = clangpass.compile(FALLBACK, flags=["-O2"])
    [warning] = _fallbacks(lib.messages)
    assert (warning.severity, warning.option, warning.loc.file, warning.loc.line) == \
        ("warning", "-Wpencil-return", "<string>", 2)
    assert "goto" in warning.message or "not optimized" in warning.message
    assert warning.message in lib.diagnostics
    assert lib.first_negative(3, np.array([1.0, -1.0, 2.0])) == 1
    path = tmp_path / "negative.c"
    path.write_text(FALLBACK)
    with pytest.warns(clangpass.CompileWarning):
        lib = clangpass.compile(path, flags=["-O2"])
    assert [(d.loc.file, d.loc.line) for d in _fallbacks(lib.messages)] == [(str(path), 2)]


def test_errors_are_values_on_the_exception():
    with pytest.raises(clangpass.CompileError) as info:
        clangpass.compile(FALLBACK, flags=["-O2", "-Werror=pencil"])
    [error] = info.value.errors
    assert (error.id, error.severity, error.loc.file, error.loc.line) == ("pencil-return", "error", "<string>", 2)
    assert error.option == "-Werror=pencil-return"
    with pytest.raises(clangpass.CompileError) as info:
        clangpass.compile("int f(int x) {\n  return x +;\n}\n")
    [error] = info.value.errors
    assert (error.id, error.loc.file, error.loc.line) == ("host-compiler", "<string>", 2)


class _Analyses:
    """Counts the driver's analyses of an input (parse and compile core) in this process."""

    def __init__(self, monkeypatch):
        from clangpass.driver import compile as driver_compile

        self.paths: list[str] = []
        analyse = driver_compile.Compilation._isolated_analysis

        def counted(compilation, source):
            self.paths.append(source.path)
            return analyse(compilation, source)
        monkeypatch.setattr(driver_compile.Compilation, "_isolated_analysis", counted)


def test_second_compile_hits_the_cache_the_driver_shares(tmp_path, monkeypatch, private_cache):
    monkeypatch.chdir(tmp_path)
    analyses = _Analyses(monkeypatch)
    path = tmp_path / "dot.c"
    path.write_text("double dot" + SOURCE.split("double dot")[1].split("void scale")[0])
    lib = clangpass.compile(path, flags=["-O2"])
    assert analyses.paths == [str(path)] and lib.library is not None
    entries = sorted(private_cache.glob("??/*.json"))
    assert len(entries) == 2        # the input's object (the driver's entry) and the shared object
    api._modules.clear()            # a new process, as far as the caches can tell
    again = clangpass.compile(path, flags=["-O2"])
    assert again is not lib and again.library == lib.library
    assert analyses.paths == [str(path)], "the second compile analysed the source again"
    x = np.arange(1.0, 5.0)
    assert again.dot(4, x, x) == 30.0
    # The command line compiles the same input with the same flags from the same entry.
    assert clangpass.main(["-O2", "-fPIC", "-c", str(path), "-o", str(tmp_path / "dot.o")]) == 0
    assert analyses.paths == [str(path)], "the driver did not find the API's entry"
    assert sorted(private_cache.glob("??/*.json")) == entries


def test_source_is_parsed_once(tmp_path, monkeypatch):
    """The parse the compile core gets also gives the signatures (counted across the analysis
    child's fork through a file)."""
    from clangpass import frontend
    from clangpass.driver import compile as driver_compile

    log = tmp_path / "parses"
    log.write_text("")
    parse = frontend.parse_file

    def counted(path, *args, **kwargs):
        with open(log, "a") as f:
            f.write(f"{path}\n")
        return parse(path, *args, **kwargs)
    monkeypatch.setattr(frontend, "parse_file", counted)
    monkeypatch.setattr(driver_compile, "parse_file", counted)
    path = tmp_path / "once.c"
    path.write_text(FALLBACK + SOURCE.split("void scale")[0])
    with pytest.warns(clangpass.CompileWarning):
        lib = clangpass.compile(path)
    assert set(lib) == {"first_negative", "gemm", "dot"}
    assert log.read_text().splitlines() == [str(path)]
