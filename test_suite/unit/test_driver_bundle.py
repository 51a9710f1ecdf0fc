# SPDX-License-Identifier: MIT
"""The sources `pencilcc -E` bundles after the preprocessed text (clangpass.driver.bundle): the
line round-trips, a damaged or foreign line is refused with a reason, and unpacking never writes
outside its folder, whatever the bundle says (it comes from the network on a distcc server)."""
from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from clangpass.driver.bundle import (MAX_BYTES, Bundle, BundleError, compile_flags, dependency_paths,
                                     encode, inner_flags, make_bundle, read_bundle, unpack)
from clangpass.prefix_map import DEBUG, MACRO, PrefixMap

PREPROCESSED = b'# 1 "k.c"\nint f(int x) { return x + 1; }\n'


def _line(doc: dict, version: str = "1") -> bytes:
    payload = json.dumps(doc).encode()
    return (b"\n/* pencilcc-bundle " + version.encode() + b" " + hashlib.sha256(payload).hexdigest().encode()
            + b" " + base64.b64encode(zlib.compress(payload)) + b" */\n")


def _doc(**changes: object) -> dict:
    doc = {"version": 1, "source": "k.c", "language": "", "flags": [["-I", "inc"], ["-D", "N"]], "up": [],
           "files": [["k.c", base64.b64encode(b"int f(int x) { return x + 1; }\n").decode()]]}
    doc.update(changes)
    return doc


def test_a_bundle_round_trips_and_unpacks_as_the_client_saw_it(tmp_path: Path) -> None:
    bundle = Bundle("../src/k.c", "c", (("-I", "../inc"), ("-I", "/opt/h"), ("-D", "N=3"), ("-std=c99",)),
                    (("../src/k.c", b"int k;\n"), ("../inc/a.h", b"#define A 1\n"), ("/opt/h/b.h", b"\n")),
                    ("build",))
    line = encode(bundle)
    assert line is not None and line.startswith(b"\n/* pencilcc-bundle 1 ") and line.endswith(b" */\n")
    assert read_bundle(PREPROCESSED + line) == bundle
    tree = unpack(bundle, str(tmp_path / "root"))
    assert tree.cwd == str(tmp_path / "root" / "rel" / "build") and tree.source == "../src/k.c"
    assert (Path(tree.cwd) / "../src/k.c").read_bytes() == b"int k;\n"
    assert (Path(tree.cwd) / "../inc/a.h").read_bytes() == b"#define A 1\n"
    assert (Path(tree.absolute) / "opt/h/b.h").read_bytes() == b"\n"
    assert tree.flags == ("-I", "../inc", "-I", os.path.join(tree.absolute, "opt/h"), "-D", "N=3", "-std=c99")


def test_a_file_without_a_bundle_has_none() -> None:
    assert read_bundle(PREPROCESSED) is None
    assert read_bundle(PREPROCESSED + b"/* pencilcc-bundle is mentioned */ int x;\n") is None


@pytest.mark.parametrize("damage, why", [
    (lambda line: line.replace(b"bundle 1 ", b"bundle 2 "), "version 2"),
    (lambda line: line[:-40] + b" */\n", "truncated|malformed|decoded"),
    (lambda line: line[:30] + (b"0" if line[30:31] != b"0" else b"1") + line[31:], "hash"),
])
def test_a_damaged_bundle_is_refused_with_its_reason(damage, why: str) -> None:
    line = encode(Bundle("k.c", "", (), (("k.c", b"int k;\n"),), ()))
    assert line is not None
    with pytest.raises(BundleError, match=why):
        read_bundle(PREPROCESSED + damage(line))


@pytest.mark.parametrize("changes, why", [
    ({"flags": [["-fplugin=/tmp/evil.so"]]}, "not preprocessing flags"),
    ({"flags": [["-wrapper", "sh"]]}, "not preprocessing flags"),
    ({"flags": [["-D", "@/etc/passwd"]]}, "response file"),
    ({"source": "-fplugin=x.so"}, "reads as an option"),
    ({"language": "assembler"}, "not C"),
    ({"up": [".."]}, "working directory"),
    ({"version": 7}, "not a version-1 bundle"),
])
def test_a_bundle_that_asks_for_more_than_sources_is_refused(changes: dict, why: str) -> None:
    with pytest.raises(BundleError, match=why):
        read_bundle(PREPROCESSED + _line(_doc(**changes)))


@pytest.mark.parametrize("path", ["../../etc/cron.d/x", "inc/../../../x", "..", "/"])
def test_unpacking_never_writes_outside_its_folder(tmp_path: Path, path: str) -> None:
    bundle = read_bundle(PREPROCESSED + _line(_doc(files=[["k.c", ""], [path, base64.b64encode(b"x").decode()]])))
    assert bundle is not None
    with pytest.raises(BundleError):
        unpack(bundle, str(tmp_path / "root"))
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert all(str(p).startswith(str(tmp_path / "root")) for p in written)
    assert not (tmp_path / "x").exists() and not (tmp_path.parent / "x").exists()


def test_an_include_folder_outside_the_bundle_is_refused(tmp_path: Path) -> None:
    bundle = read_bundle(PREPROCESSED + _line(_doc(flags=[["-I", "../../.."]])))
    assert bundle is not None
    with pytest.raises(BundleError, match="leaves"):
        unpack(bundle, str(tmp_path / "root"))


def test_absolute_paths_land_under_the_folder(tmp_path: Path) -> None:
    bundle = read_bundle(PREPROCESSED + _line(_doc(files=[["k.c", ""], ["/etc/passwd", "eA=="],
                                                           ["//etc/../etc/shadow", "eA=="]])))
    assert bundle is not None
    tree = unpack(bundle, str(tmp_path / "root"))
    assert (Path(tree.absolute) / "etc/passwd").read_bytes() == b"x"
    assert (Path(tree.absolute) / "etc/shadow").read_bytes() == b"x"


def test_a_compression_bomb_is_refused() -> None:
    payload = b"{" + b" " * (MAX_BYTES + 10) + b"}"
    line = (b"\n/* pencilcc-bundle 1 " + hashlib.sha256(payload).hexdigest().encode() + b" "
            + base64.b64encode(zlib.compress(payload, 9)) + b" */\n")
    with pytest.raises(BundleError, match="more than"):
        read_bundle(PREPROCESSED + line)


def test_the_line_is_a_comment_any_compiler_ignores_under_werror(tmp_path: Path) -> None:
    line = encode(Bundle("k.c", "", (), (("k.c", b"int k;\n" * 50),), ()))
    assert line is not None and b"*/" not in line[:-4]
    (tmp_path / "k.i").write_bytes(PREPROCESSED + line)
    proc = subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wunknown-pragmas", "-Wcomment",
                           "-std=c99", "-c", "k.i", "-o", "k.o"], cwd=tmp_path, capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_make_rules_are_read_as_gcc_writes_them() -> None:
    rule = b"x: k.c inc/a\\ b.h \\\n  ../c$$d.h inc/\\#e.h\n"
    assert dependency_paths(rule) == ["k.c", "inc/a b.h", "../c$d.h", "inc/#e.h"]


def test_paths_climbing_past_the_root_become_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "k.c").write_text("int k;\n")
    monkeypatch.chdir(tmp_path)
    made = make_bundle("k.c", "", ["-I", "../inc", "-I" + "../" * 80 + "x", "-DN"], ["k.c"], str(tmp_path))
    assert made is not None
    assert made.flags == (("-I", "../inc"), ("-I", "/x"), ("-D", "N"))
    assert made.up == (tmp_path.name,)


def test_the_inner_compile_keeps_code_generation_flags_only() -> None:
    argv = ["-O3", "-Iinc", "-D", "X", "-c", "distccd_1.i", "-o", "out.o", "-MD", "-MF", "d.d", "-x", "cpp-output",
            "-fpencil-dump-dir=dumps", "--tile-size", "32", "-g", "-include", "h.h", "-Wp,-MD,x"]
    assert compile_flags(argv, "/abs/out.opt.json") == [
        "-O3", f"-fpencil-dump-dir={os.path.abspath('dumps')}", "--tile-size", "32", "-g",
        "-foptimization-record-file=/abs/out.opt.json"]


def test_the_clients_working_directory_maps_the_private_folder_back(tmp_path: Path) -> None:
    """The bundle records the client's working directory; the compile of its sources maps the
    private folder's paths to the client's, then the client's own maps (clangpass.prefix_map)."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "k.c").write_text("int k;\n")
    (tmp_path / "build").mkdir()
    cwd = os.getcwd()
    os.chdir(tmp_path / "build")
    try:
        bundle = make_bundle("../src/k.c", "", [], [], str(tmp_path / "build"))
    finally:
        os.chdir(cwd)
    assert bundle is not None and bundle.cwd == str(tmp_path / "build") and bundle.up == ("build",)
    line = encode(bundle)
    assert line is not None and read_bundle(PREPROCESSED + line) == bundle
    tree = unpack(bundle, str(tmp_path / "root"))
    client = tree.client_paths()
    assert client.remap(tree.cwd) == str(tmp_path / "build")
    assert client.remap(os.path.join(tree.absolute, "opt/h/b.h")) == "/opt/h/b.h"
    flags = inner_flags(tree, ["-O2", "-g", f"-ffile-prefix-map={tmp_path}=/P", "-c", "x.i", "-o", "x.o"], "")
    assert flags[:2] == ["-O2", "-g"] and not any(f == f"-ffile-prefix-map={tmp_path}=/P" for f in flags)
    debug = PrefixMap.of(flags, DEBUG)
    assert debug.remap(tree.cwd) == "/P/build" and debug.remap(os.path.join(tree.cwd, "../src/k.c")) == "/P/build/../src/k.c"
    assert PrefixMap.of(flags, MACRO).remap(os.path.join(tree.absolute, "usr/x.h")) == "/usr/x.h"


@pytest.mark.parametrize("cwd", ["relative/dir", "/a/../b", "/a/other"])
def test_a_malformed_working_directory_is_refused(cwd: str) -> None:
    with pytest.raises(BundleError, match="working directory"):
        read_bundle(PREPROCESSED + _line(_doc(cwd=cwd, up=["build"])))


def test_the_bundles_flags_the_command_line_repeats_are_given_once(tmp_path: Path) -> None:
    bundle = Bundle("k.c", "", (("-I", "inc"), ("-O3",), ("-fopenmp",), ("-nostdinc",)), (("k.c", b"int k;\n"),),
                    (), "/home/u")
    tree = unpack(bundle, str(tmp_path / "root"))
    flags = inner_flags(tree, ["-O3", "-fopenmp", "-g", "-c", "k.i"], "")
    assert flags[:6] == ["-I", "inc", "-nostdinc", "-O3", "-fopenmp", "-g"]
