# SPDX-License-Identifier: MIT
"""The driver keeps the user's files and build safe: output = input refused, files with a
NUL byte compiled, outlined symbols local to their object, no recursion through the host
command, clean exit on SIGTERM/SIGHUP, escaped `#line` names, a compile cache that trusts
only what this user wrote.

Each test runs the real `pencilcc` (as `python -m clangpass`) and compares with gcc -O0
where a program runs. Every test has a private compile cache and cache key: none reads or
writes the user's ~/.cache or ~/.config.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from clangpass.toolchain import host_cc

PENCILCC = [sys.executable, "-m", "clangpass"]
CC = host_cc()

PLAIN = "int main(void) { return 0; }\n"

# One region whose result depends on SCALE and whose entry point is NAME: the same file
# compiled twice with different -D goes into one program.
KERNEL = r"""#include <stdio.h>
#ifndef SCALE
#define SCALE 2
#endif
#ifndef NAME
#define NAME kernel_sum
#endif
#define N 48
static void kernel(int n, double A[N][N], double x[N])
{
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] * SCALE + x[j];
#pragma endscop
}
double NAME(void)
{
  static double A[N][N], x[N];
  for (int i = 0; i < N; i++) {
    x[i] = i;
    for (int j = 0; j < N; j++)
      A[i][j] = i - 2 * j + 1;
  }
  kernel(N, A, x);
  double s = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      s += A[i][j] * (i + 1) - A[j][i];
  return s;
}
"""

MAIN_TWO = r"""#include <stdio.h>
double sum2(void);
double sum3(void);
int main(void) { printf("%.1f %.1f\n", sum2(), sum3()); return 0; }
"""

MAIN_ONE = r"""#include <stdio.h>
double kernel_sum(void);
int main(void) { printf("%.1f %s\n", kernel_sum(), __FILE__); return 0; }
"""


def environment(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PENCILCC_CC", "CC", "PENCILCC_NO_CACHE")}
    env["PENCILCC_CACHE_DIR"] = str(tmp_path / "cache")
    env["PENCILCC_CACHE_KEY_FILE"] = str(tmp_path / "config" / "cache-key")
    env.update(extra)
    return env


def pencilcc(args: list[str], cwd: Path, env: dict[str, str] | None = None,
             timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*PENCILCC, *args], cwd=cwd, capture_output=True, text=True,
                          env=env if env is not None else environment(cwd), timeout=timeout)


def run_program(path: Path) -> str:
    proc = subprocess.run([str(path)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PENCILCC_NUM_THREADS": "2"})
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def gcc(args: list[str], cwd: Path) -> None:
    proc = subprocess.run([*CC, "-O0", *args], cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------------------------------- output = input
@pytest.mark.parametrize("mode", [["-c"], ["-S"], ["-E"], []], ids=["c", "S", "E", "link"])
@pytest.mark.parametrize("kernel", [False, True], ids=["plain", "pencil"])
def test_output_same_as_input_is_refused(tmp_path: Path, mode: list[str], kernel: bool) -> None:
    source = tmp_path / "v.c"
    text = (KERNEL + "int main(void) { return kernel_sum() > 0; }\n") if kernel else PLAIN
    source.write_text(text)
    proc = pencilcc([*mode, "v.c", "-o", "v.c"], tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == "pencilcc: fatal error: input file 'v.c' is the same as output file\n" \
                          "compilation terminated.\n"
    assert source.read_text() == text
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != "cache") == ["v.c"]


@pytest.mark.parametrize("mode", [["-c"], ["-S", "-emit-llvm"], []], ids=["c", "S", "link"])
@pytest.mark.parametrize("kernel", [False, True], ids=["plain", "pencil"])
def test_output_in_a_missing_folder_is_a_diagnostic(tmp_path: Path, mode: list[str], kernel: bool) -> None:
    """gcc and ld say they cannot open the output; pencilcc says so too, no traceback, and
    creates no folder."""
    (tmp_path / "v.c").write_text((KERNEL + "int main(void) { return kernel_sum() > 0; }\n")
                                  if kernel else PLAIN)
    proc = pencilcc([*mode, "v.c", "-o", "nodir/x.out"], tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "pencilcc: error: cannot open output file 'nodir/x.out': " \
                          "No such file or directory\n"
    assert not (tmp_path / "nodir").exists()


@pytest.mark.skipif(shutil.which("clang") is None, reason="clang is not installed")
def test_preprocessing_over_the_input_is_refused_with_clang(tmp_path: Path) -> None:
    """clang -E, unlike gcc, would write over its input: pencilcc refuses before it runs."""
    source = tmp_path / "v.c"
    source.write_text(PLAIN)
    proc = pencilcc(["-E", "v.c", "-o", "v.c"], tmp_path, environment(tmp_path, PENCILCC_CC="clang"))
    assert proc.returncode == 1 and "is the same as output file" in proc.stderr
    assert source.read_text() == PLAIN


def test_output_same_as_input_under_another_name(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    source = tmp_path / "sub" / "v.c"
    source.write_text(PLAIN)
    os.link(source, tmp_path / "alias.c")
    for output in ("./sub/v.c", "sub/../sub/v.c", "alias.c"):
        proc = pencilcc(["-c", "sub/v.c", "-o", output], tmp_path)
        assert proc.returncode == 1, output
        assert "pencilcc: fatal error: input file 'sub/v.c' is the same as output file" in proc.stderr
        assert source.read_text() == PLAIN


def test_object_input_same_as_link_output(tmp_path: Path) -> None:
    (tmp_path / "v.c").write_text(PLAIN)
    assert pencilcc(["-c", "v.c"], tmp_path).returncode == 0
    before = (tmp_path / "v.o").read_bytes()
    proc = pencilcc(["v.o", "-o", "v.o"], tmp_path)
    assert proc.returncode == 1 and "'v.o' is the same as output file" in proc.stderr
    assert (tmp_path / "v.o").read_bytes() == before


# ----------------------------------------------------------------------------- NUL bytes
def test_nul_byte_in_plain_file_compiles_like_gcc(tmp_path: Path) -> None:
    source = tmp_path / "n.c"
    source.write_bytes(b"/* a \0 in a comment */\n#include <stdio.h>\n"
                       b"int main(void) { puts(\"ok\"); return 0; }\n")
    proc = pencilcc(["n.c", "-o", "n"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Wpencil" not in proc.stderr
    assert run_program(tmp_path / "n") == "ok\n"


def test_nul_byte_in_pencil_file_goes_to_host_with_warning(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_bytes(b"/* \0 */\n" + KERNEL.encode())
    (tmp_path / "main.c").write_text(MAIN_ONE)
    proc = pencilcc(["-O3", "k.c", "main.c", "-o", "prog"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.startswith("k.c: warning: PENCIL code not optimized")
    assert "NUL byte" in proc.stderr and "[-Wpencil-file-unparsable]" in proc.stderr
    gcc(["k.c", "main.c", "-o", "ref"], tmp_path)
    assert run_program(tmp_path / "prog") == run_program(tmp_path / "ref")
    quiet = pencilcc(["-O3", "-Wno-pencil", "-c", "k.c", "-o", "k.o"], tmp_path)
    assert quiet.returncode == 0 and "NUL" not in quiet.stderr
    strict = pencilcc(["-O3", "-Werror=pencil", "-c", "k.c", "-o", "k2.o"], tmp_path)
    assert strict.returncode == 1 and "[-Werror=pencil-file-unparsable]" in strict.stderr
    assert not (tmp_path / "k2.o").exists()


# ----------------------------------------------------------------------------- local symbols
def test_same_source_twice_with_different_defines_links(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    (tmp_path / "main.c").write_text(MAIN_TWO)
    for scale in (2, 3):
        proc = pencilcc(["-O3", "-c", "k.c", f"-DSCALE={scale}", f"-DNAME=sum{scale}",
                         "-o", f"k{scale}.o", "-Rpass=pencil"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assert "optimized" in proc.stderr          # the region really went through pencilcc
        gcc(["-c", "k.c", f"-DSCALE={scale}", f"-DNAME=sum{scale}", "-o", f"g{scale}.o"], tmp_path)
    symbols = subprocess.run(["nm", "k2.o"], cwd=tmp_path, capture_output=True, text=True).stdout
    outlined = [line.split() for line in symbols.splitlines() if "__pencilcc_kernel_scop0_" in line]
    assert outlined and all(kind.islower() for _, kind, _ in outlined), symbols
    link = pencilcc(["main.c", "k2.o", "k3.o", "-o", "prog"], tmp_path)
    assert link.returncode == 0, link.stderr
    gcc(["main.c", "g2.o", "g3.o", "-o", "ref"], tmp_path)
    out = run_program(tmp_path / "prog")
    assert out == run_program(tmp_path / "ref")
    first, second = out.split()
    assert first != second


def test_same_source_twice_through_assembly_links(tmp_path: Path) -> None:
    """-S then the assembler: the outlined functions are local in the assembly too."""
    (tmp_path / "k.c").write_text(KERNEL)
    (tmp_path / "main.c").write_text(MAIN_TWO)
    for scale in (2, 3):
        proc = pencilcc(["-O3", "-S", "k.c", f"-DSCALE={scale}", f"-DNAME=sum{scale}",
                         "-o", f"k{scale}.s"], tmp_path)
        assert proc.returncode == 0, proc.stderr
        assembly = (tmp_path / f"k{scale}.s").read_text()
        assert "__pencilcc_kernel_scop0_" in assembly and "# pencilcc: outlined regions" in assembly
        gcc(["-c", f"k{scale}.s", "-o", f"k{scale}.o"], tmp_path)
        gcc(["-c", "k.c", f"-DSCALE={scale}", f"-DNAME=sum{scale}", "-o", f"g{scale}.o"], tmp_path)
    assert pencilcc(["main.c", "k2.o", "k3.o", "-o", "prog"], tmp_path).returncode == 0
    gcc(["main.c", "g2.o", "g3.o", "-o", "ref"], tmp_path)
    assert run_program(tmp_path / "prog") == run_program(tmp_path / "ref")


# ----------------------------------------------------------------------------- host command
def test_cc_running_pencilcc_is_skipped(tmp_path: Path) -> None:
    """`CC="env pencilcc"` names the compiler make runs, which is pencilcc: the host is cc."""
    (tmp_path / "v.c").write_text(PLAIN)
    for cc in ("env pencilcc", "ccache pencilcc"):
        proc = pencilcc(["-c", "v.c", "-o", "v.o"], tmp_path, environment(tmp_path, CC=cc), timeout=60)
        assert proc.returncode == 0, (cc, proc.stderr)
        assert (tmp_path / "v.o").exists()


def test_pencilcc_cc_running_pencilcc_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "v.c").write_text(PLAIN)
    proc = pencilcc(["-c", "v.c", "-o", "v.o"], tmp_path,
                    environment(tmp_path, PENCILCC_CC="env pencilcc"), timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.startswith("pencilcc: error: $PENCILCC_CC runs pencilcc itself")
    assert not (tmp_path / "v.o").exists()


@pytest.mark.parametrize("variable", ["PENCILCC_CC", "CC"])
def test_wrapper_that_runs_pencilcc_stops_at_once(tmp_path: Path, variable: str) -> None:
    """A wrapper script the name check cannot see through: the guard variable stops it."""
    wrapper = tmp_path / "mycc"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -m clangpass "$@"\n')
    wrapper.chmod(0o755)
    (tmp_path / "v.c").write_text(PLAIN)
    start = time.monotonic()
    proc = pencilcc(["-c", "v.c", "-o", "v.o"], tmp_path,
                    environment(tmp_path, **{variable: str(wrapper)}), timeout=60)
    assert proc.returncode == 1
    assert "pencilcc: error: pencilcc was started by its own host compiler command" in proc.stderr
    assert proc.stderr.count("pencilcc: error:") == 1      # one level deep, not seventy
    assert "internal error" not in proc.stderr
    assert time.monotonic() - start < 60
    assert not (tmp_path / "v.o").exists()


def test_badly_quoted_host_command_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "v.c").write_text(PLAIN)
    proc = pencilcc(["-c", "v.c", "-o", "v.o"], tmp_path, environment(tmp_path, PENCILCC_CC='gcc "'))
    assert proc.returncode == 1
    assert proc.stderr == "pencilcc: error: $PENCILCC_CC is not a valid command " \
                          "(No closing quotation): gcc \"\n"


# ----------------------------------------------------------------------------- signals
def _compile_with_a_slow_host(tmp_path: Path, work: Path, hangup: object,
                              **env: str) -> tuple[subprocess.Popen, Path]:
    """pencilcc -c work/v.c, its host compiler a script that leaves a temporary in $TMPDIR (as
    gcc does) and sleeps; returns once the host compiler runs. SIGHUP starts as `hangup`
    (SIG_DFL as from a shell; under `nohup`, as in a CI runner, it is inherited as ignored)."""
    started = tmp_path / "started"
    slow = tmp_path / "slowcc"
    slow.write_text(f'#!/bin/sh\ntouch "${{TMPDIR:-/tmp}}/ccHOST.s" "{started}"\nexec sleep 120\n')
    slow.chmod(0o755)
    (work / "v.c").write_text(PLAIN)
    proc = subprocess.Popen([*PENCILCC, "-c", "v.c", "-o", "v.o"], cwd=work, stderr=subprocess.PIPE,
                            env=environment(tmp_path, PENCILCC_CC=str(slow), **env),
                            preexec_fn=lambda: (signal.signal(signal.SIGHUP, hangup),
                                                signal.signal(signal.SIGTERM, signal.SIG_DFL)))
    deadline = time.monotonic() + 120
    while not started.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    return proc, started


@pytest.mark.parametrize("signo", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_signal_removes_temporaries(tmp_path: Path, signo: int) -> None:
    work = tmp_path / "work"
    temp = tmp_path / "tmp"
    work.mkdir()
    temp.mkdir()
    proc, started = _compile_with_a_slow_host(tmp_path, work, signal.SIG_DFL, TMPDIR=str(temp))
    try:
        assert started.exists(), proc.stderr.read() if proc.poll() is not None else "never started"
        assert [p.name for p in temp.iterdir() if p.name.startswith("pencilcc-")]
        assert any(p.name.endswith(".pencilcc-tmp") for p in work.iterdir())
        proc.send_signal(signo)
        status = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert status == 128 + signo
    assert list(temp.iterdir()) == []
    assert [p.name for p in work.iterdir()] == ["v.c"]
    assert b"Traceback" not in proc.stderr.read()


def test_ignored_hangup_stays_ignored(tmp_path: Path) -> None:
    """`nohup pencilcc ...`: a SIGHUP ignored by the parent does not stop the compile."""
    work = tmp_path / "work"
    work.mkdir()
    proc, started = _compile_with_a_slow_host(tmp_path, work, signal.SIG_IGN, TMPDIR=str(tmp_path))
    try:
        assert started.exists()
        proc.send_signal(signal.SIGHUP)
        time.sleep(1.0)
        assert proc.poll() is None
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert [p.name for p in work.iterdir()] == ["v.c"]


def test_in_process_main_gives_signal_handlers_back(tmp_path: Path, monkeypatch) -> None:
    """main() called by a Python program (a test, a build tool) leaves its handlers as they
    were, and works from a thread, where no handler can be set."""
    import threading

    from clangpass.driver.main import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "v.c").write_text(PLAIN)
    before = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    assert main(["-c", "v.c", "-o", "v.o"]) == 0
    assert {s: signal.getsignal(s) for s in before} == before
    statuses: list[int] = []
    worker = threading.Thread(target=lambda: statuses.append(main(["-c", "v.c", "-o", "w.o"])))
    worker.start()
    worker.join()
    assert statuses == [0] and (tmp_path / "w.o").exists()


# ----------------------------------------------------------------------------- #line names
@pytest.mark.parametrize("name", ['q"uote.c', "back\\slash.c", "new\nline.c", "caf\u00e9.c"],
                         ids=["quote", "backslash", "newline", "utf8"])
def test_line_directives_escape_file_names(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(KERNEL.replace('#define N 48', '#define N 48\n'
                                                'const char *kernel_file(void) { return __FILE__; }'))
    (tmp_path / "main.c").write_text(r"""#include <stdio.h>
double kernel_sum(void);
const char *kernel_file(void);
int main(void) { printf("%.1f [%s]\n", kernel_sum(), kernel_file()); return 0; }
""")
    proc = pencilcc(["-O3", name, "main.c", "-o", "prog", "-Rpass=pencil"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "optimized" in proc.stderr
    gcc([name, "main.c", "-o", "ref"], tmp_path)
    out = run_program(tmp_path / "prog")
    assert out == run_program(tmp_path / "ref")
    assert out.endswith(f"[{name}]\n")


# ----------------------------------------------------------------------------- cache integrity
def _cache_entries(cache: Path) -> list[Path]:
    return sorted(cache.glob("*/*.json"))


def test_swapped_cache_entry_is_not_used(tmp_path: Path) -> None:
    """Another process replaces the cached object (and rewrites the JSON in the right shape,
    with a checksum of its own object): the next compile misses and builds the real thing."""
    (tmp_path / "k.c").write_text(KERNEL)
    (tmp_path / "main.c").write_text(MAIN_ONE)
    (tmp_path / "evil.c").write_text("double kernel_sum(void) { return -1.0; }\n")
    gcc(["-c", "evil.c", "-o", "evil.o"], tmp_path)
    evil = (tmp_path / "evil.o").read_bytes()
    compile_k = ["-O3", "-c", "k.c", "-o", "k.o", "-v"]
    # The key covers pencilcc's own files: in a checkout being edited it may change between
    # two compiles, and then a miss proves nothing. Try again until it holds still.
    for _ in range(3):
        shutil.rmtree(tmp_path / "cache", ignore_errors=True)
        assert pencilcc(compile_k, tmp_path).returncode == 0
        if "cache hit" not in pencilcc(compile_k, tmp_path).stderr:
            continue
        [meta_path] = _cache_entries(tmp_path / "cache")
        obj_path = meta_path.with_suffix(".o")
        meta = json.loads(meta_path.read_text())
        meta["mac"] = hashlib.sha256(evil).hexdigest()
        meta["object_sha256"] = hashlib.sha256(evil).hexdigest()
        obj_path.write_bytes(evil)
        meta_path.write_text(json.dumps(meta))
        again = pencilcc(compile_k, tmp_path)
        assert again.returncode == 0, again.stderr
        assert "cache hit" not in again.stderr
        assert (tmp_path / "k.o").read_bytes() != evil
        if obj_path.read_bytes() != evil:        # the same key missed, and was stored afresh
            break
    else:
        pytest.fail("pencilcc's own files kept changing; the cache key never held still")
    assert pencilcc(["main.c", "k.o", "-o", "prog"], tmp_path).returncode == 0
    gcc(["k.c", "main.c", "-o", "ref"], tmp_path)
    assert run_program(tmp_path / "prog") == run_program(tmp_path / "ref")


@pytest.mark.parametrize("damage", ["bad-json", "list", "no-object", "wrong-types"])
def test_malformed_cache_entry_is_a_miss(tmp_path: Path, damage: str) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    assert pencilcc(["-O3", "-c", "k.c", "-o", "k.o"], tmp_path).returncode == 0
    [meta_path] = _cache_entries(tmp_path / "cache")
    meta = json.loads(meta_path.read_text())
    if damage == "bad-json":
        meta_path.write_text("{ not json")
    elif damage == "list":
        meta_path.write_text("[1, 2, 3]")
    elif damage == "no-object":
        meta_path.with_suffix(".o").unlink()
    else:
        meta_path.write_text(json.dumps({**meta, "records": "none", "link_flags": [1]}))
    proc = pencilcc(["-O3", "-c", "k.c", "-o", "k.o", "-v"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "cache miss" in proc.stderr and "internal error" not in proc.stderr


def test_cache_directory_others_can_write_is_not_used(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    cache.chmod(0o777)
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O3", "-c", "k.c", "-o", "k.o", "-v"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("pencilcc: warning: compile cache not used: other users can write "
                             f"the cache directory '{cache}'") == 1
    assert "cache miss" not in proc.stderr and list(cache.iterdir()) == []
    assert (tmp_path / "k.o").exists()


def test_cache_key_lives_outside_the_cache(tmp_path: Path) -> None:
    (tmp_path / "k.c").write_text(KERNEL)
    assert pencilcc(["-O3", "-c", "k.c", "-o", "k.o"], tmp_path).returncode == 0
    key = tmp_path / "config" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600 and key.stat().st_size == 32
    assert (tmp_path / "config").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700
    assert not list((tmp_path / "cache").rglob("*key*"))


@pytest.mark.parametrize("flag", ["-fprofile-use", "-fauto-profile=prof.afdo", "-specs=my.specs",
                                  "-fplugin=./plugin.so"])
def test_flags_reading_unseen_files_bypass_the_cache(tmp_path: Path, flag: str) -> None:
    """The compile fails or not as gcc decides; what matters is that nothing is cached."""
    (tmp_path / "k.c").write_text(KERNEL)
    proc = pencilcc(["-O3", "-c", "k.c", "-o", "k.o", flag, "-v"], tmp_path)
    assert "cache hit" not in proc.stderr and "cache miss" not in proc.stderr
    assert not _cache_entries(tmp_path / "cache")


def test_march_native_keys_on_the_resolved_cpu(tmp_path: Path) -> None:
    from clangpass.driver.host import HostCompiler

    plain = HostCompiler(command=list(CC)).identity()
    native = HostCompiler(command=list(CC), flags=("-O2", "-march=native")).identity()
    assert native.startswith(plain) and "\nnative:" in native and len(native) > len(plain) + 20
    assert "native:" not in plain
    # The same on every compile of this machine, or the cache would never hit.
    assert HostCompiler(command=list(CC), flags=("-march=native",)).identity() == \
        HostCompiler(command=list(CC), flags=("-march=native", "-O3")).identity()
