# SPDX-License-Identifier: MIT
"""gcc's path prefix maps as pencilcc reads and composes them (clangpass.prefix_map)."""
from __future__ import annotations

import itertools
import subprocess
from pathlib import Path

import pytest

from clangpass.prefix_map import DEBUG, MACRO, PrefixMap, PrefixMapError, parse_flag


def test_flags_split_at_the_first_equals_and_the_last_match_wins() -> None:
    assert parse_flag("-ffile-prefix-map=/a=b=c") == ("-ffile-prefix-map=", "/a", "b=c")
    assert parse_flag("-fdebug-prefix-map=/a=") == ("-fdebug-prefix-map=", "/a", "")
    assert parse_flag("-fmacro-prefix-map-x") is None and parse_flag("-O2") is None
    with pytest.raises(PrefixMapError, match="invalid argument '/a' to '-ffile-prefix-map'"):
        parse_flag("-ffile-prefix-map=/a")
    args = ["-ffile-prefix-map=/src=/F", "-fdebug-prefix-map=/src/lib=/D", "-fmacro-prefix-map=/src=/M"]
    debug, macro = PrefixMap.of(args, DEBUG), PrefixMap.of(args, MACRO)
    assert debug.remap("/src/lib/x.c") == "/D/x.c" and debug.remap("/src/k.c") == "/F/k.c"
    assert macro.remap("/src/lib/x.c") == "/M/lib/x.c"
    # A plain string prefix, as gcc compares it; one map per path.
    assert PrefixMap((("/a", "/b"), ("/b", "/c"))).remap("/ab/x") == "/bb/x"
    assert debug.remap("k.c") == "k.c"


# Paths and maps chosen so that prefixes nest, overlap and end inside a folder's name.
_PATHS = ["/r/abs/tmp/x/k.c", "/r/abs/tmp/xy/k.c", "/r/rel/b/k.c", "/r/rel", "/r/relx", "/tmp/x/k.c",
          "k.c", "../inc/h.h", "/r/abs"]
_FIRST = [PrefixMap((("/r/abs", ""), ("/r/rel", "/home/u/p"))), PrefixMap((("/r/abs/", "/"),)),
          PrefixMap((("/r", "/tmp"), ("/r/rel", "/tmp/x")))]
_SECOND = [PrefixMap(), PrefixMap((("/tmp/x", "/X"),)), PrefixMap((("/tmp", "/T"), ("/tmp/x", "/X"))),
           PrefixMap((("/tmp/x", "/X"), ("/tmp", "/T"))), PrefixMap((("/home/u", "."), ("/home/u/p/b", "/B"))),
           PrefixMap((("/r/abs", "/nope"), ("", "/E")))]


@pytest.mark.parametrize("first, second", list(itertools.product(_FIRST, _SECOND)))
def test_composed_maps_are_the_two_in_turn(first: PrefixMap, second: PrefixMap) -> None:
    composed = first.then(second)
    for path in _PATHS:
        assert composed.remap(path) == second.remap(first.remap(path)), (path, composed)


def test_gcc_applies_the_composed_list_as_pencilcc_does(tmp_path: Path) -> None:
    """The list `then` gives, on gcc's command line, maps __FILE__ as `remap` says."""
    folder = tmp_path / "abs" / "tmp" / "x"
    folder.mkdir(parents=True)
    (folder / "k.c").write_text('const char *name = __FILE__;\n')
    composed = PrefixMap(((str(tmp_path / "abs"), ""),)).then(PrefixMap((("/tmp", "/T"), ("/tmp/x", "/X"))))
    proc = subprocess.run(["gcc", "-E", "-P", *composed.flags("-fmacro-prefix-map="), str(folder / "k.c")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert '"/X/k.c"' in proc.stdout
