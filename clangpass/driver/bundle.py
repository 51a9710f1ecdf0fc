# SPDX-License-Identifier: MIT
"""The sources a preprocessed file carries, so that compiling it elsewhere is pencilcc's compile
of the original (issue 30: distcc's servers, ccache with `run_second_cpp = false`).

pencilcc does not analyse preprocessed text: libclang cannot read what gcc's preprocessor made
of the system headers, pencil.h reads differently with `__PENCILCC__`, and a region's symbol and
messages must name the source, not a `.i`. So `pencilcc -E file.c` (a C input that may hold
PENCIL code) writes the host's preprocessed text exactly as cc does, followed by one comment
line, the *bundle*:

    /* pencilcc-bundle 1 <sha256 of the JSON> <base64 of the zlib'd JSON> */

A comment is what every C compiler reading a `.i` ignores silently, whatever its warnings
(`-Wall -Wextra -Werror -pedantic`): base64 holds no `*`, so it cannot end early. The JSON has
the source path as the command line gave it, its `-x` language, the preprocessing flags libclang
would be given (`select_parser_args`, pencil.h's folder left out: the server has its own), the
text of the source and of every user header it includes (the host's `-MM` list, with and
without `__PENCILCC__`: never a header found through -isystem or the system's folders) and
`up`, the names of the last folders of the client's working directory, as many as the deepest
`../` of a path needs. Paths stay as the client saw them: relative ones relative to its working
directory (so that the compiler names files, and hashes region symbols, alike on both sides),
absolute ones absolute.

`pencilcc -c file.i` finds the bundle (`read_bundle`) and `unpack`s it into a private folder:
relative paths under `<root>/rel/<up...>`, the compile's working directory, absolute ones under
`<root>/abs`, their flags remapped. The bundle is input from the network (a distcc server):
its size is bounded, every path must land inside the folder (no `..` or absolute path escapes
it, files are created new, links never followed), its flags are only the preprocessing flags
above (nothing in it is run), and a bundle that fails a check is not used at all.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import posixpath
import re
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional, Sequence

from clangpass.prefix_map import DEBUG, FLAGS as PREFIX_MAP_FLAGS, MACRO, PrefixMap
from clangpass.resources import include_dir

if TYPE_CHECKING:
    from clangpass.driver.cli import DriverConfig
    from clangpass.driver.host import HostCompiler

VERSION = 1
_MARKER = b"/* pencilcc-bundle "
_LINE = re.compile(rb"\n/\* pencilcc-bundle (\S+) ([0-9a-f]{64}) ([A-Za-z0-9+/=]+) \*/\n\Z")
# The JSON (sources included) may not exceed this, before or after compression.
MAX_BYTES = 64 << 20
_MAX_FILES = 20000
_MAX_PATH = 4096
_MAX_UP = 64

# Preprocessing flags whose value names a file or a folder.
_PATH_FLAGS = ("-I", "-iquote", "-isystem", "-idirafter", "-include", "-imacros")
# Of those, the system's folders: their headers are the server's own (never bundled).
_SYSTEM_FLAGS = ("-isystem", "-idirafter")
# -E companions whose output is not the preprocessed text (make rules, macro lists, commands).
_NOT_PREPROCESSED_TEXT = ("-M", "-MM", "-dM", "-###", "-fsyntax-only")
_VALUE_FLAGS = ("-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter", "-imacros")


class BundleError(Exception):
    """A bundle that cannot be used; the message says why."""


@dataclass(frozen=True)
class Bundle:
    source: str                             # the source path as the client's command line named it
    language: str                           # its -x ('', 'c' or 'pencil')
    flags: tuple[tuple[str, ...], ...]      # preprocessing flags, each (flag,) or (flag, value)
    files: tuple[tuple[str, bytes], ...]    # (path as the client saw it, text)
    up: tuple[str, ...]                     # the client's working directory's last folder names
    cwd: str = ""                           # the client's working directory ('': not recorded)


@dataclass(frozen=True)
class Tree:
    """An unpacked bundle: compile `source` with `flags` in `cwd`; `absolute` is where the
    client's absolute paths are."""

    cwd: str
    source: str
    language: str
    flags: tuple[str, ...]
    absolute: str
    relative: str = ""          # the folder that stands for `client_relative`
    client_relative: str = ""   # the client's folder that relative paths climb to ('': unknown)

    def client_paths(self) -> PrefixMap:
        """The map from this folder's paths to the client's: absolute ones are the client's
        under `absolute`, relative ones the client's under `relative` (empty when the bundle
        did not record the client's working directory: relative paths are then mapped only
        where they stay relative)."""
        pairs = [(self.absolute, "")]
        if self.client_relative == "/":
            pairs += [(self.relative, "/"), (self.relative + "/", "/")]
        elif self.client_relative:
            pairs.append((self.relative, self.client_relative))
        return PrefixMap(tuple(pairs))

    def client_text(self, text: bytes) -> bytes:
        """`text` (messages, the record's JSON) with the paths of `absolute` as the client's."""
        return text.replace(os.fsencode(self.absolute) + b"/", b"/")

    def prefix_map_flags(self, argv: Sequence[str]) -> list[str]:
        """The prefix maps (clangpass.prefix_map) that make the compile here write the paths the
        client's compile, `argv`, writes: this folder's paths as the client's, then the client's
        own maps on them (composed: gcc applies one map to a path)."""
        client = self.client_paths()
        return [*client.then(PrefixMap.of(argv, DEBUG)).flags(DEBUG),
                *client.then(PrefixMap.of(argv, MACRO)).flags(MACRO)]


# ----------------------------------------------------------------------------- the client's side
def dependency_paths(make_rule: bytes) -> list[str]:
    """The prerequisites of a one-target make rule as gcc's -MM writes it (target `x`):
    continuation lines joined, `\\ ` a space, `$$` a dollar, `\\#` a hash."""
    text = os.fsdecode(make_rule).replace("\\\n", " ")
    _, _, rest = text.partition(":")
    paths: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(rest):
        ch = rest[i]
        if ch == "\\" and i + 1 < len(rest) and rest[i + 1] in " #\\":
            current.append(rest[i + 1])
            i += 2
            continue
        if ch == "$" and rest[i + 1:i + 2] == "$":
            current.append("$")
            i += 2
            continue
        if ch.isspace():
            if current:
                paths.append("".join(current))
                current = []
        else:
            current.append(ch)
        i += 1
    if current:
        paths.append("".join(current))
    return paths


def _ups(path: str) -> int:
    """How many leading `..` the normalized relative `path` has."""
    parts = posixpath.normpath(path).split("/")
    count = 0
    while count < len(parts) and parts[count] == "..":
        count += 1
    return count


def pairs(flags: Sequence[str]) -> list[tuple[str, ...]]:
    """Preprocessing flags (select_parser_args' output) as (flag, value) or (flag,) tuples."""
    out: list[tuple[str, ...]] = []
    i = 0
    while i < len(flags):
        a = flags[i]
        if a in _VALUE_FLAGS:
            if i + 1 >= len(flags):
                raise BundleError(f"flag '{a}' without its value")
            out.append((a, flags[i + 1]))
            i += 2
            continue
        joined = next((f for f in _VALUE_FLAGS if a.startswith(f) and len(a) > len(f)), None)
        out.append((joined, a[len(joined):]) if joined else (a,))
        i += 1
    return out


def make_bundle(source: str, language: str, parser_flags: Sequence[str],
                dependencies: Sequence[str], cwd: str) -> Optional[Bundle]:
    """The bundle of `source` (whose user headers are `dependencies`, the source first, as the
    host's -MM names them) read in `cwd`; None when a file cannot be read or it is too big."""
    depth = len([p for p in cwd.split("/") if p])

    def spelled(path: str) -> str:
        # A relative path that climbs above the root is absolute in effect.
        if os.path.isabs(path):
            return posixpath.normpath(path)
        return posixpath.normpath(path) if _ups(path) <= depth else os.path.abspath(path)

    files: dict[str, bytes] = {}
    for path in [source, *dependencies]:
        key = spelled(path)
        if key in files:
            continue
        try:
            with open(path, "rb") as f:
                files[key] = f.read()
        except OSError:
            return None
    flags = []
    for pair in pairs(list(parser_flags)):
        if len(pair) == 2 and pair[0] in _PATH_FLAGS and not os.path.isabs(pair[1]) \
                and _ups(pair[1]) > depth:
            pair = (pair[0], os.path.abspath(pair[1]))
        flags.append(pair)
    relative = [p for p in [*files, source, *(f[1] for f in flags if f[0] in _PATH_FLAGS)]
                if not os.path.isabs(p)]
    climb = max((_ups(p) for p in relative), default=0)
    names = [p for p in cwd.split("/") if p]
    return Bundle(source, language, tuple(flags), tuple(files.items()),
                  tuple(names[len(names) - climb:]) if climb else (), posixpath.normpath(cwd))


def encode(bundle: Bundle) -> Optional[bytes]:
    """The bundle's comment line (with its leading newline); None when it exceeds MAX_BYTES."""
    doc = {"version": VERSION, "source": bundle.source, "language": bundle.language,
           "flags": [list(f) for f in bundle.flags], "up": list(bundle.up), "cwd": bundle.cwd,
           "files": [[path, base64.b64encode(text).decode("ascii")] for path, text in bundle.files]}
    payload = json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()
    if len(payload) > MAX_BYTES:
        return None
    packed = base64.b64encode(zlib.compress(payload, 9))
    return b"\n" + _MARKER + f"{VERSION} {hashlib.sha256(payload).hexdigest()} ".encode() + packed + b" */\n"


def bundle_line(host: "HostCompiler", config: "DriverConfig") -> Optional[bytes]:
    """The bundle line `pencilcc -E` appends to the host's preprocessed output (None: none):
    for a command that preprocesses (-E, not -M/-MM/-dM) one C input that may hold PENCIL code."""
    from clangpass.driver.sources import language_flags, may_hold_pencil, read_source, DriverError
    from clangpass.frontend import select_parser_args

    args = config.passthrough_args
    if len(config.inputs) != 1 or "-E" not in args or any(a in _NOT_PREPROCESSED_TEXT for a in args):
        return None
    [source] = config.inputs
    if not source.is_c or source.path.startswith(("-", "@")):
        return None
    try:
        text = read_source(source.path)
    except DriverError:
        return None
    if not may_hold_pencil(source, text, config.host_args, config.options.detect):
        return None
    # The host's view and the front end's (pencil.h and user headers read differently with
    # __PENCILCC__): the union of both lists of user headers.
    dependencies: list[str] = []
    for view in ([], ["-D__PENCILCC__=1"]):
        proc = host.run([*config.host_args, *view, *language_flags(source), "-MM", "-MT", "x", source.path],
                        capture=True)
        if proc.returncode == 0:
            dependencies += dependency_paths(proc.stdout)
        elif not view:
            return None
    user_flags = list(config.host_args)
    pencil_dir = ["-idirafter", str(include_dir())]
    if user_flags[-2:] == pencil_dir:
        user_flags = user_flags[:-2]        # the server has pencil.h of its own
    made = make_bundle(source.path, source.x_language, select_parser_args(user_flags), dependencies,
                       os.getcwd())
    return encode(made) if made is not None else None


# ----------------------------------------------------------------------------- the server's side
def read_bundle(text: bytes) -> Optional[Bundle]:
    """The bundle `text` ends with; None when it has none; BundleError when it cannot be used."""
    start = text.rfind(b"\n" + _MARKER)
    if start < 0 or b"\n" in text[start + 1:].rstrip(b"\n") or not text.rstrip(b"\n").endswith(b" */"):
        return None
    m = _LINE.match(text, start)
    if m is None:
        raise BundleError("its line is malformed (truncated or edited?)")
    if m[1] != str(VERSION).encode():
        raise BundleError(f"it is of version {m[1].decode(errors='replace')}, this pencilcc reads "
                          f"version {VERSION}")
    if len(m[3]) > MAX_BYTES * 4 // 3 + 4:
        raise BundleError(f"it is larger than {MAX_BYTES >> 20} MiB")
    try:
        unpacker = zlib.decompressobj()
        payload = unpacker.decompress(base64.b64decode(m[3], validate=True), MAX_BYTES + 1)
    except (binascii.Error, zlib.error) as exc:
        raise BundleError(f"it cannot be decoded ({exc})") from None
    if len(payload) > MAX_BYTES or unpacker.unconsumed_tail:
        raise BundleError(f"it holds more than {MAX_BYTES >> 20} MiB")
    if not unpacker.eof:
        raise BundleError("it is truncated")
    if hashlib.sha256(payload).hexdigest().encode() != m[2]:
        raise BundleError("its content does not match its hash (corrupted)")
    try:
        return _bundle_of(json.loads(payload))
    except (ValueError, TypeError, KeyError, binascii.Error) as exc:
        raise BundleError(f"its content is malformed ({exc})") from None


def _text(value: object, what: str) -> str:
    if not isinstance(value, str) or "\0" in value or len(value) > _MAX_PATH * 4:
        raise BundleError(f"{what} is not a valid string")
    return value


def _bundle_of(doc: object) -> Bundle:
    from clangpass.frontend import select_parser_args

    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        raise BundleError("its content is not a version-1 bundle")
    files = doc["files"]
    if not isinstance(files, list) or len(files) > _MAX_FILES or not files:
        raise BundleError("its file list is malformed")
    language = _text(doc["language"], "its language")
    if language not in ("", "c", "pencil"):
        raise BundleError(f"its language '{language}' is not C")
    flags = doc["flags"]
    if not isinstance(flags, list) or not all(isinstance(f, list) and 1 <= len(f) <= 2 for f in flags):
        raise BundleError("its flags are malformed")
    flat = [_text(a, "a flag") for f in flags for a in f]
    if any(a.startswith("@") for a in flat):
        raise BundleError("a flag names a response file")
    # Only what the front end takes from a command line, in the forms it takes them: nothing
    # that could run a program (-wrapper, -fplugin=, -B) or write a file.
    if select_parser_args(flat) != flat or pairs(flat) != [tuple(f) for f in flags]:
        raise BundleError("its flags are not preprocessing flags")
    up = doc["up"]
    if not isinstance(up, list) or len(up) > _MAX_UP or \
            not all(_text(n, "a folder name") not in ("", ".", "..") and "/" not in n for n in up):
        raise BundleError("its working directory is malformed")
    texts = tuple((_text(p, "a path"), base64.b64decode(t, validate=True)) for p, t in
                  (f if isinstance(f, list) and len(f) == 2 else ("", "") for f in files))
    source = _text(doc["source"], "its source path")
    if source.startswith(("-", "@")):
        raise BundleError(f"its source path '{source[:80]}' reads as an option")
    # The client's working directory (bundles of older pencilccs have none): only written
    # into the object as paths, never used as one here.
    cwd = _text(doc.get("cwd", ""), "its working directory")
    if cwd and (not cwd.startswith("/") or posixpath.normpath(cwd) != cwd or
                (up and cwd.split("/")[-len(up):] != up)):
        raise BundleError(f"its working directory '{cwd[:80]}' is malformed")
    return Bundle(source, language,
                  tuple(tuple(f) for f in flags), texts, tuple(up), cwd)


def _inside(base: str, path: str) -> bool:
    return path != base and os.path.commonpath([base, path]) == base


def unpack(bundle: Bundle, root: str) -> Tree:
    """Write `bundle`'s files under the new, empty folder `root`; BundleError when a path or
    flag would leave it (nothing is written outside `root`, whatever the bundle holds)."""
    rel = os.path.join(root, "rel")
    absolute = os.path.join(root, "abs")
    cwd = os.path.join(rel, *bundle.up)
    climb = len(bundle.up)

    def place(path: str, what: str) -> str:
        if not path or len(path) > _MAX_PATH:
            raise BundleError(f"{what} '{path[:80]}' is not a valid path")
        if os.path.isabs(path):
            mapped = os.path.join(absolute, posixpath.normpath(path).lstrip("/"))
            base = absolute
        else:
            if _ups(path) > climb:
                raise BundleError(f"{what} '{path}' leaves the bundle's folders")
            mapped = os.path.normpath(os.path.join(cwd, path))
            base = rel
        if not _inside(base, mapped) and not (what != "file" and mapped == base):
            raise BundleError(f"{what} '{path}' leaves the bundle's folders")
        return mapped

    os.makedirs(cwd, mode=0o700)
    os.makedirs(absolute, mode=0o700)
    for path, text in bundle.files:
        target = place(path, "file")
        try:
            os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except OSError as exc:
            raise BundleError(f"file '{path}' cannot be written ({exc.strerror or exc})") from None
        with os.fdopen(fd, "wb") as f:
            f.write(text)
    source = place(bundle.source, "source")
    if not os.path.isfile(source):
        raise BundleError(f"its source '{bundle.source}' is not among its files")
    flags: list[str] = []
    for flag in bundle.flags:
        if len(flag) == 2 and flag[0] in _PATH_FLAGS:
            name, value = flag
            if not (os.path.isabs(value) and name in _SYSTEM_FLAGS):
                mapped = place(value, f"'{name}' folder")
                if name in ("-I", "-iquote"):
                    os.makedirs(mapped, mode=0o700, exist_ok=True)
                # Relative values stay as written: the compiler names files through them.
                value = value if not os.path.isabs(value) else mapped
            flags += [name, value]
        else:
            flags += list(flag)
    client_relative = ""
    if bundle.cwd:
        client_relative = posixpath.normpath(posixpath.join(bundle.cwd, *[".."] * climb)) if climb else bundle.cwd
    return Tree(cwd, bundle.source if not os.path.isabs(bundle.source) else source,
                bundle.language, tuple(flags), absolute, rel, client_relative)


# ----------------------------------------------------------------------------- the inner compile
# What the command line of the `.i`'s compile says that the bundle says better, or that names
# the `.i`: its inputs, output, mode, language, preprocessing and dependency-file flags.
_DROPPED_EXACT = ("-c", "-S", "-E", "-M", "-MM", "-MD", "-MMD", "-MP", "-MG", "-nostdinc", "-undef")
_DROPPED_VALUE = ("-o", "-x", "-MF", "-MT", "-MQ", "-I", "-D", "-U", "-include", "-imacros",
                  "-isystem", "-iquote", "-idirafter", "-iprefix", "-iwithprefix", "-iwithprefixbefore")
# pencilcc's own options whose value may be the next argument (clangpass.driver.cli).
_OWN_VALUE = ("--tile-size", "--cache-sizes", "--disable-pass", "--dump-before", "--dump-after")
# Options whose value is a path, made absolute: the inner compile runs in the bundle's folder.
_PATH_VALUE = ("-B", "--sysroot", "-isysroot", "-specs")
_PATH_JOINED = ("-foptimization-record-file=", "-fpencil-dump-dir=", "-fpencil-cluster-decision=",
                "--sysroot=", "-specs=", "-B")


def compile_flags(argv: Sequence[str], record_file: str) -> list[str]:
    """The flags of the command line `argv` (a compile of one preprocessed input) that the
    compile of its bundled source keeps, paths made absolute; `record_file` (absolute, or '')
    where its optimisation record goes."""
    from clangpass.driver.cli import SEPARATE_VALUE_FLAGS

    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "-" or not a.startswith("-"):
            continue                                        # the input
        if a in _DROPPED_EXACT or a.startswith(("-Wp,", "-foptimization-record-file=", "-fpencil-report=", *PREFIX_MAP_FLAGS)) \
                or a in ("-fsave-optimization-record", "-fsave-optimization-record=json"):
            continue
        if a in _DROPPED_VALUE:
            i += 1
            continue
        if any(a.startswith(f) and len(a) > len(f) for f in _DROPPED_VALUE):
            continue
        if a in _PATH_VALUE and i < len(argv):
            out += [a, os.path.abspath(argv[i])]
            i += 1
            continue
        if a in SEPARATE_VALUE_FLAGS or a in _OWN_VALUE:
            out += argv[i - 1:i + 1]
            i += 1
            continue
        joined = next((f for f in _PATH_JOINED if a.startswith(f) and len(a) > len(f)), None)
        out.append(joined + os.path.abspath(a[len(joined):]) if joined else a)
    if record_file:
        out.append(f"-foptimization-record-file={record_file}")
    return out


def inner_flags(tree: Tree, argv: Sequence[str], record_file: str) -> list[str]:
    """The flags of the compile of `tree`'s source for the command line `argv` (a compile of
    one preprocessed input; `record_file` as for `compile_flags`): the bundle's preprocessing
    flags, the command line's others, in its order (what the host records of them in -g's
    DW_AT_producer is the client's: the bundle's flags that the command line has too, such as
    -O levels and -fopenmp, are not repeated), and the prefix maps that write the client's
    paths (`Tree.prefix_map_flags`)."""
    kept = compile_flags(argv, record_file)
    own = set(kept)
    preprocessing: list[str] = []
    for flag in pairs(list(tree.flags)):
        if len(flag) == 2 or flag[0] not in own:
            preprocessing += flag
    return [*preprocessing, *kept, *tree.prefix_map_flags(argv)]
