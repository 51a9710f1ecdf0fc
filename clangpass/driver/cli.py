# SPDX-License-Identifier: MIT
"""gcc-compatible command line -> `DriverConfig` (+ `CompileOptions`).

Input: argv as a build system passes it to `cc` (response files `@file` are
expanded first, recursively, with gcc's quoting rules). Output: one frozen
`DriverConfig` that says what to do (`action`), which inputs to compile and how
(`InputFile.language`), the flags for the host compiler (`host_args`, the user's
flags minus inputs, output, mode and pencilcc's own flags), the link line as
the user wrote it (`link_args`), dependency-file options and pencilcc's own
options (`options`, diagnostics, record, dumps).

Rules:
- every flag pencilcc does not know goes to the host compiler unchanged;
- pencilcc's own flags never reach the host compiler;
- flags that take a separate value (`-I dir`, `-o out`, `-Xlinker x`) keep it,
  so that a value is never mistaken for an input;
- `-x LANG` applies to the inputs after it, as with gcc: `c` and `pencil` are
  parsed by pencilcc, `none` restores the choice by suffix, anything else is
  compiled by the host compiler.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Optional, Union

import islpy as isl

from clangpass.diagnostics import DiagnosticEngine
from clangpass.dumps import STAGES
from clangpass import prefix_map
from clangpass.options import CompileOptions
from clangpass.prefix_map import PrefixMap
from clangpass.poly.schedule_files import SUFFIX as SCHEDULE_SUFFIX
from clangpass.poly.schedule_files import ScheduleFileError, read_schedule
from clangpass.poly.tile_sizes import parse_size
from clangpass.tile_spec import TileSizeRule, TileSpecError, parse_rules
from clangpass.rejects import GROUP, REJECTS
from clangpass.resources import include_dir
from clangpass.targets import TARGET_MODULES


class CommandLineError(Exception):
    """A command line pencilcc cannot act on; the message is printed as `pencilcc: error: ...`."""


# Flags whose value may be the next argument (gcc and clang spellings).
SEPARATE_VALUE_FLAGS = frozenset({
    "-o", "-x", "-I", "-D", "-U", "-include", "-imacros", "-isystem", "-iquote", "-idirafter",
    "-iprefix", "-iwithprefix", "-iwithprefixbefore", "-isysroot", "-imultilib", "-L", "-l",
    "-MF", "-MT", "-MQ", "-Xlinker", "-Xassembler", "-Xpreprocessor", "-Xclang", "-u", "-T",
    "-z", "-A", "-B", "-e", "-aux-info", "--param", "-dumpbase", "-dumpdir", "-dumpbase-ext",
    "-target", "-arch", "--sysroot", "-F", "-wrapper", "-specs", "--include",
})
# Of those, the ones only the link step reads.
_LINK_ONLY_SEPARATE = frozenset({"-L", "-l", "-Xlinker", "-u", "-T", "-z", "-e"})
# Flags only the link step reads, without a value.
_LINK_ONLY_EXACT = frozenset({
    "-shared", "-static", "-static-libgcc", "-static-pie", "-rdynamic", "-nostdlib",
    "-nostartfiles", "-nodefaultlibs", "-nolibc", "-s", "-pie", "-no-pie", "-r", "-symbolic",
})
_LINK_ONLY_PREFIXES = ("-Wl,", "-L", "-l")

# Suffixes of inputs the host compiler compiles itself (not C for us, not for the linker).
_HOST_SUFFIXES = frozenset({
    ".i", ".ii", ".h", ".s", ".S", ".sx", ".asm", ".cc", ".cp", ".cxx", ".cpp", ".c++", ".C",
    ".CPP", ".m", ".mi", ".mm", ".M", ".f", ".for", ".ftn", ".f90", ".f95", ".f03", ".f08",
    ".F", ".F90", ".F95", ".go", ".d", ".ads", ".adb", ".hh", ".hpp", ".hxx", ".cu", ".cl",
})

MEMORY_MODES = ("none", "reuse", "contract", "all")   # -fpencil-memory= (CompileOptions.memory)

ACTIONS = (
    "link", "compile", "assemble",          # pencilcc compiles: -o prog / -c / -S
    "host",                                  # -E, -M, -MM, -fsyntax-only, -###, no input: the host alone
    "help", "version", "print-include-dir", "cmake-dir", "show-cc-args", "print-passes",
    "lint", "lint-explain", "dump-ir",
)

SHOW_CC_ARGS = ("INCLUDE_DIRS", "DEFFLAGS", "LIBS", "LIBRARY_DIRS")


@dataclass(frozen=True)
class InputFile:
    path: str
    language: str      # 'c' | 'pencil' (parsed by pencilcc) | 'host' (host compiles) | 'linker'
    x_language: str = ""   # the -x value in force for it, '' when chosen by suffix

    @property
    def is_c(self) -> bool:
        return self.language in ("c", "pencil")

    @property
    def preprocessed_c(self) -> bool:
        """Preprocessed C (`.i`, `-x cpp-output`): the host compiles it, pencilcc does not analyse it."""
        return self.x_language == "cpp-output" or (not self.x_language and self.path.endswith(".i"))


@dataclass(frozen=True)
class DepOptions:
    """-MD/-MMD and their companions; `kind` is '' when no dependency file is wanted."""

    kind: str = ""                                   # '' | 'MD' | 'MMD'
    file: str = ""                                   # -MF
    targets: tuple[tuple[str, str], ...] = ()        # ('-MT', t) / ('-MQ', t) in order
    phony: bool = False                              # -MP
    missing_generated: bool = False                  # -MG


@dataclass(frozen=True)
class DiagnosticPolicy:
    """What to do with pencilcc's own warnings (-Wpencil family, -w, -Werror).

    `-Wpencil` is the group of every reject id (clangpass.rejects): a fallback's warning has
    its reject id, and `-W<id>` / `-Wno-<id>` / `-Werror=<id>` / `-Wno-error=<id>` set that id
    alone. As in gcc, an id's own setting wins over the group's, whatever their order."""

    enabled: bool = True
    pencil_error: Optional[bool] = None   # -Werror=pencil / -Wno-error=pencil; None: as -Werror
    werror: bool = False         # -Werror
    remarks: bool = False        # -Rpass=pencil
    missed_remarks: bool = False  # -Rpass-missed=pencil
    reject_enabled: tuple[tuple[str, bool], ...] = ()   # (id, on) of -W<id> / -Wno-<id>, sorted
    reject_error: tuple[tuple[str, bool], ...] = ()     # (id, error) of -Werror=<id> / -Wno-error=<id>, sorted

    @property
    def error(self) -> bool:
        """Whether a -Wpencil warning is an error."""
        return self.werror if self.pencil_error is None else self.pencil_error

    def reject_warns(self, id: str) -> bool:
        """Whether a fallback of reject id `id` is warned about."""
        return dict(self.reject_enabled).get(id, self.enabled)

    def reject_is_error(self, id: str) -> bool:
        """Whether a fallback of reject id `id` is an error."""
        return dict(self.reject_error).get(id, self.error)

    def engine(self) -> DiagnosticEngine:
        """A diagnostic engine that applies this policy to pencilcc's warnings and remarks."""
        remarks = (("-Rpass=pencil",) if self.remarks else ()) + \
            (("-Rpass-missed=pencil",) if self.missed_remarks else ())
        disabled = ((() if self.enabled else (GROUP,))
                    + tuple(id for id in REJECTS if not self.reject_warns(id)))
        errors = (GROUP,) * self.error + tuple(id for id in REJECTS if self.reject_is_error(id))
        return DiagnosticEngine(disabled=disabled, errors=errors, remarks=remarks)


@dataclass(frozen=True)
class DriverConfig:
    argv: tuple[str, ...]                      # the command line after @file expansion
    action: str = "link"                       # one of ACTIONS
    inputs: tuple[InputFile, ...] = ()
    output: str = ""                           # -o, '' when not given
    host_args: tuple[str, ...] = ()            # flags for compiling one input with the host compiler
    link_args: tuple[Union[str, int], ...] = ()  # link line in the user's order; ints index `inputs`
    passthrough_args: tuple[str, ...] = ()     # argv minus pencilcc's own flags (host-only actions)
    options: CompileOptions = field(default_factory=CompileOptions)
    pic: Optional[bool] = None                 # -fPIC/-fno-pic...; None: the host compiler's default
    deps: DepOptions = field(default_factory=DepOptions)
    diagnostics: DiagnosticPolicy = field(default_factory=DiagnosticPolicy)
    emit_llvm: bool = False
    keep: bool = False
    verbose: bool = False
    save_record: bool = False
    record_file: str = ""
    dump_ir: Optional[InputFile] = None        # --dump-ir FILE (with the -x in force before it)
    show_cc_args: str = ""
    listsep: str = " "
    lint_argv: tuple[str, ...] = ()
    lint_rule: str = ""

    @property
    def c_inputs(self) -> tuple[InputFile, ...]:
        return tuple(i for i in self.inputs if i.is_c)

    @property
    def parser_args(self) -> tuple[str, ...]:
        """What libclang must see of the command line (-I/-D/-U/-std/-include...)."""
        # Imported here, not at the top: loading libclang costs a tenth of a second that
        # plain compiles (`make CC=pencilcc` on files without PENCIL code) never need.
        from clangpass.frontend import select_parser_args

        return tuple(select_parser_args(list(self.host_args)))


# ----------------------------------------------------------------------------- response files
def split_response_text(text: str) -> list[str]:
    """Split a response file as libiberty's buildargv does (gcc's rules).

    Whitespace separates arguments; single and double quotes group; a backslash
    takes the next character literally, inside quotes too; '' is an empty argument.
    """
    args: list[str] = []
    current: list[str] = []
    in_arg = squote = dquote = backslash = False
    for ch in text:
        if ch in " \t\n\r\v\f" and not (squote or dquote or backslash):
            if in_arg:
                args.append("".join(current))
                current, in_arg = [], False
            continue
        in_arg = True
        if backslash:
            current.append(ch)
            backslash = False
        elif ch == "\\":
            backslash = True
        elif squote:
            if ch == "'":
                squote = False
            else:
                current.append(ch)
        elif dquote:
            if ch == '"':
                dquote = False
            else:
                current.append(ch)
        elif ch == "'":
            squote = True
        elif ch == '"':
            dquote = True
        else:
            current.append(ch)
    if in_arg:
        args.append("".join(current))
    return args


_MAX_RESPONSE_DEPTH = 64


def expand_response_files(argv: list[str], _depth: int = 0) -> list[str]:
    """Replace every `@file` by the arguments it holds; an unreadable `@file` stays as is (gcc)."""
    out: list[str] = []
    for arg in argv:
        if not arg.startswith("@") or len(arg) == 1:
            out.append(arg)
            continue
        try:
            with open(arg[1:], encoding="utf-8", errors="surrogateescape") as f:
                text = f.read()
        except OSError:
            out.append(arg)
            continue
        if _depth >= _MAX_RESPONSE_DEPTH:
            raise CommandLineError(f"response file '{arg[1:]}' nests more than {_MAX_RESPONSE_DEPTH} "
                                   "levels deep (does it include itself?)")
        out.extend(expand_response_files(split_response_text(text), _depth + 1))
    return out


def quote_response_arg(arg: str) -> str:
    """One argument written so that `split_response_text` gives it back."""
    if arg and not re.search(r"[\s'\"\\]", arg):
        return arg
    return "'" + re.sub(r"(['\\])", r"\\\1", arg) + "'"


# ----------------------------------------------------------------------------- languages
def language_of(path: str, x_language: str) -> str:
    """'c' | 'pencil' | 'host' | 'linker' for an input named after `-x x_language`."""
    if path == "-":
        return "host"       # stdin: only the host compiler can read it (once)
    if x_language == "c":
        return "c"
    if x_language == "pencil":
        return "pencil"
    if x_language:
        return "host"
    if path.endswith(".pencil.c"):
        return "pencil"
    suffix = os.path.splitext(path)[1]
    if suffix == ".c":
        return "c"
    if suffix in _HOST_SUFFIXES:
        return "host"
    return "linker"         # .o .a .so .so.1 .lo ... and, as with gcc, any unknown suffix


# ----------------------------------------------------------------------------- the parser
@dataclass
class _State:
    """Mutable scratch while walking argv; frozen into DriverConfig at the end."""

    mode: str = ""                  # '' | 'c' | 'S' | 'E' | 'syntax' | 'M'
    info_action: str = ""
    inputs: list[InputFile] = field(default_factory=list)
    output: str = ""
    host_args: list[str] = field(default_factory=list)
    link_args: list[Union[str, int]] = field(default_factory=list)
    passthrough: list[str] = field(default_factory=list)
    x_language: str = ""
    opt_level: int = 0
    fast_math: bool = False
    fp_contract: Optional[str] = None      # -ffp-contract= as given (fast/on/off); None: the default (_fp_contract)
    iso_c: bool = False             # the last -std= (or -ansi) names an ISO C dialect, not a GNU one
    march: str = ""
    debug: bool = False
    debug_prefix_map: list = field(default_factory=list)     # (OLD, NEW) of -ffile/-fdebug-prefix-map
    pic: Optional[bool] = None
    tile_size: Optional[int] = None
    tile_sizes: tuple[TileSizeRule, ...] = ()
    use_tuned: bool = True
    cache_sizes: tuple[int, ...] = ()
    parallel: bool = True
    exact_reductions: bool = True
    detect: bool = False
    thread_min_work: int = CompileOptions.thread_min_work
    thread_start_work: int = CompileOptions.thread_start_work
    thread_warm_ms: int = CompileOptions.thread_warm_ms
    thread_pin: bool = CompileOptions.thread_pin
    time_limit: float = CompileOptions.time_limit
    max_statements: int = CompileOptions.max_statements
    max_loop_depth: int = CompileOptions.max_loop_depth
    memory_limit_mb: int = CompileOptions.memory_limit_mb
    fusion: str = "auto"
    cluster: str = CompileOptions.cluster
    cluster_decision: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    save_schedule_dir: str = ""
    report_file: str = ""
    emit_c: str = ""
    load_schedule_dir: str = ""
    loaded_schedules: tuple[tuple[str, str], ...] = ()
    target: str = CompileOptions.target
    memory: str = CompileOptions.memory
    source_order: str = ""          # '': the target's default (CompileOptions.source_order; OpenCL: gain)
    disabled_passes: list[str] = field(default_factory=list)
    passes: Optional[list[str]] = None      # -fpencil-passes=; None: the target's pipeline
    pass_plugins: list[str] = field(default_factory=list)
    dump: list[str] = field(default_factory=list)
    dump_dir: str = ""
    dump_before: list[str] = field(default_factory=list)
    dump_after: list[str] = field(default_factory=list)
    time_report: bool = False
    deps_kind: str = ""
    dep_file: str = ""
    dep_targets: list[tuple[str, str]] = field(default_factory=list)
    dep_phony: bool = False
    dep_missing: bool = False
    pencil_enabled: bool = True
    pencil_error: Optional[bool] = None
    reject_enabled: dict[str, bool] = field(default_factory=dict)   # -W<id> / -Wno-<id>
    reject_error: dict[str, bool] = field(default_factory=dict)     # -Werror=<id> / -Wno-error=<id>
    werror: bool = False
    remarks: bool = False
    missed_remarks: bool = False
    emit_llvm: bool = False
    keep: bool = False
    verbose: bool = False
    save_record: bool = False
    record_file: str = ""
    dump_ir: Optional[InputFile] = None
    show_cc_args: str = ""
    listsep: str = " "
    lint_argv: list[str] = field(default_factory=list)
    lint_rule: str = ""


def _int_value(flag: str, text: str, minimum: int = 0) -> int:
    try:
        value = int(text, 10)
    except ValueError:
        raise CommandLineError(f"'{flag}' expects an integer, got '{text}'") from None
    if value < minimum:
        raise CommandLineError(f"'{flag}' expects an integer >= {minimum}, got '{text}'")
    return value


def _cache_sizes(text: str) -> tuple[int, ...]:
    """`32K,1M,32M` (L1 first; bytes, K, M or G) as bytes."""
    try:
        sizes = tuple(parse_size(part) for part in text.split(","))
    except ValueError:
        raise CommandLineError(f"'--cache-sizes' expects sizes such as 32K,1M,32M, got '{text}'") from None
    if not sizes or min(sizes) <= 0:
        raise CommandLineError(f"'--cache-sizes' expects positive sizes, got '{text}'")
    return sizes


def _tile_sizes(value: str) -> tuple[TileSizeRule, ...]:
    """The rules of one -fpencil-tile-sizes= (clangpass.tile_spec): `;`-separated rules, or
    `@FILE`, a file of them one a line."""
    flag = "-fpencil-tile-sizes="
    try:
        if value.startswith("@"):
            path = value[1:]
            try:
                with open(path, encoding="utf-8") as f:
                    text = f.read()
            except OSError as exc:
                raise CommandLineError(f"'{flag}': cannot read '{path}': {exc.strerror or exc}") from None
            rules = parse_rules(text, origin=f"{path}:")
        else:
            rules = parse_rules(value)
    except TileSpecError as exc:
        raise CommandLineError(f"'{flag}': {exc}") from None
    if not rules:
        raise CommandLineError(f"'{flag}' expects sizes such as 32,64 or fn:0=32,32,8, got '{value}'")
    return rules


def _cluster_decision(path: str) -> tuple[tuple[str, tuple[tuple[str, ...], ...]], ...]:
    """A user's clustering (-fpencil-cluster-decision=FILE): JSON, a list of clusters (lists of
    statement names, as in the `scop` dump) for every region, or an object from region labels
    (`function`, `function#2`) to such lists. As (label, clusters) pairs, '*' for every region."""
    flag = "-fpencil-cluster-decision="
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except OSError as exc:
        raise CommandLineError(f"'{flag}': cannot read '{path}': {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CommandLineError(f"'{flag}': '{path}' is not JSON: {exc}") from None
    by_region = doc if isinstance(doc, dict) else {"*": doc}

    def clusters(value: object) -> tuple[tuple[str, ...], ...]:
        if not isinstance(value, list) or not all(
                isinstance(c, list) and all(isinstance(n, str) for n in c) for c in value):
            raise CommandLineError(f"'{flag}': '{path}' must hold lists of statement names "
                                   "(e.g. [[\"S_0\", \"S_1\"]])")
        return tuple(tuple(c) for c in value)

    return tuple((str(label), clusters(value)) for label, value in by_region.items())


def _loaded_schedules(path: str) -> tuple[tuple[str, str], ...]:
    """The schedule files (`*.schedule.yaml`, clangpass.poly.schedule_files) of the folder `path`
    of -fpencil-load-schedule=, as (file name, contents) pairs in name order; each must be an
    isl schedule tree (its fit to a region is checked when the region is compiled)."""
    flag = "-fpencil-load-schedule="
    if not path:
        raise CommandLineError(f"'{flag}' expects a folder")
    try:
        names = sorted(n for n in os.listdir(path) if n.endswith(SCHEDULE_SUFFIX))
    except OSError as exc:
        raise CommandLineError(f"'{flag}': cannot read the folder '{path}': {exc.strerror or exc}") from None
    files: list[tuple[str, str]] = []
    ctx = isl.Context()
    for name in names:
        file = os.path.join(path, name)
        try:
            with open(file, encoding="utf-8") as f:
                text = f.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandLineError(f"'{flag}': cannot read '{file}': {getattr(exc, 'strerror', None) or exc}") from None
        try:
            read_schedule(ctx, text, file)
        except ScheduleFileError as exc:
            raise CommandLineError(f"'{flag}': {exc}") from None
        files.append((name, text))
    return tuple(files)


def _report_file(path: str) -> str:
    """The page of -fpencil-report=FILE: a file that can be made where the command runs (its folder
    exists; it is not a folder itself). Checked before anything is compiled; the page is written
    once the command has succeeded (clangpass.driver.main)."""
    flag = "-fpencil-report="
    if not path:
        raise CommandLineError(f"'{flag}' expects a file name, such as '{flag}report.html'")
    if os.path.isdir(path):
        raise CommandLineError(f"'{flag}': '{path}' is a folder; name the HTML file to write")
    folder = os.path.dirname(path) or "."
    if not os.path.isdir(folder):
        raise CommandLineError(f"'{flag}': cannot write '{path}': no folder '{folder}'")
    return path


def _seconds_value(flag: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise CommandLineError(f"'{flag}' expects a number of seconds, got '{text}'") from None
    if not value >= 0 or value == float("inf"):
        raise CommandLineError(f"'{flag}' expects a number of seconds >= 0, got '{text}'")
    return value


def _names(text: str) -> list[str]:
    return [n for n in (p.strip() for p in text.split(",")) if n]


def _pass_names(flag: str, text: str) -> list[str]:
    """The pass names of `flag`'s value `text` (checked once parsing is done, `_check_pass_names`):
    an empty list is an error, so that `--dump-after=` does not silently dump nothing."""
    names = _names(text)
    if not names:
        raise CommandLineError(f"'{flag}' expects a pass name, got '{text}'")
    return names


# gcc's C dialects: ISO ones (-std=c99, -std=iso9899:2011, -ansi) and GNU ones (-std=gnu11).
_ISO_C_STD = re.compile(r"c(89|90|9x|99|1x|11|17|18|2x|23)|iso9899:\d+")
_GNU_C_STD = re.compile(r"gnu(89|90|9x|99|1x|11|17|18|2x|23)")


def _fp_contract(s: _State) -> str:
    """The contraction style of regions: 'fast', 'on' or 'off' (CompileOptions.fp_contract and
    fp_contract_on).

    An explicit -ffp-contract= wins (the last one). Otherwise: 'fast' in the GNU dialects (no
    -std, or -std=gnu*), as gcc's default there; 'on' in the ISO ones (-std=c99/c11/c17...,
    -ansi), as clang's default: a multiply fuses with the add or subtract of its own expression
    only, which C99 6.5p8 allows (gcc, which has no 'on', keeps products rounded there). FMAs
    are formed only from -O2 up (-Os included, as gcc's -fexpensive-optimizations), so at -O0,
    -O1 and -Og the default fuses nothing, as gcc's code there does not. -ffast-math fuses
    whatever this says (its `fast` flags include `contract`).
    """
    if s.fp_contract is not None:
        return s.fp_contract
    if s.opt_level < 2:
        return "off"
    return "on" if s.iso_c else "fast"


def _optimisation_level(arg: str) -> Optional[tuple[int, bool]]:
    """(level, fast_math) for -O, -O0..-O3, -Os, -Oz, -Og, -Ofast; None if not one."""
    value = arg[2:]
    if value == "":
        return 1, False
    if value.isdigit():
        return min(int(value), 3), False
    return {"s": (2, False), "z": (2, False), "g": (1, False), "fast": (3, True)}.get(value)


class _Parser:
    """One pass over argv, one method per family of flags."""

    def __init__(self, argv: list[str]) -> None:
        self.argv = argv
        self.i = 0
        self.s = _State()

    # -- helpers
    def value(self, flag: str, arg: str) -> str:
        """The value of `flag` written as `arg`: joined (-Idir, -o=...) or the next argument."""
        if arg != flag:
            rest = arg[len(flag):]
            return rest[1:] if flag.startswith("--") and rest.startswith("=") else rest
        if self.i + 1 >= len(self.argv):
            raise CommandLineError(f"missing argument to '{flag}'")
        self.i += 1
        return self.argv[self.i]

    def host(self, *args: str, link: bool = True, compile_: bool = True) -> None:
        """Flags for the host compiler: the per-input compile, the link, the host-only actions."""
        if compile_:
            self.s.host_args.extend(args)
        if link:
            self.s.link_args.extend(args)
        self.s.passthrough.extend(args)

    # -- the walk
    def run(self) -> _State:
        while self.i < len(self.argv):
            self.one(self.argv[self.i])
            self.i += 1
        return self.s

    def one(self, arg: str) -> None:
        s = self.s
        if s.info_action == "lint":
            s.lint_argv.append(arg)
            return
        if arg == "-" or not arg.startswith("-") or arg == "":
            self.input(arg)
            return
        for handler in (self.own_flag, self.mode_flag, self.dependency_flag, self.diagnostic_flag,
                        self.codegen_flag, self.language_flag, self.output_flag):
            if handler(arg):
                return
        self.generic_flag(arg)

    def input(self, path: str) -> None:
        language = language_of(path, self.s.x_language)
        self.s.inputs.append(InputFile(path, language, self.s.x_language))
        self.s.link_args.append(len(self.s.inputs) - 1)
        self.s.passthrough.append(path)

    def own_flag(self, arg: str) -> bool:
        """pencilcc's own flags: consumed here, never passed on."""
        s = self.s
        if arg in ("--help", "-help"):
            s.info_action = s.info_action or "help"
        elif arg == "--version":
            s.info_action = s.info_action or "version"
        elif arg == "--print-include-dir":
            s.info_action = "print-include-dir"
        elif arg == "--cmake-dir":
            s.info_action = "cmake-dir"
        elif arg.startswith("--show-cc-args"):
            what = self.value("--show-cc-args", arg)
            if what not in SHOW_CC_ARGS:
                raise CommandLineError(f"'--show-cc-args' expects one of {', '.join(SHOW_CC_ARGS)}, "
                                       f"got '{what}'")
            s.info_action, s.show_cc_args = "show-cc-args", what
        elif arg.startswith("--show-listsep"):
            s.listsep = self.value("--show-listsep", arg)
        elif arg == "--lint":
            # Everything else on the line belongs to the linter (its own flags, -I/-D, files).
            s.info_action = "lint"
            s.lint_argv = [a for a in self.argv[:self.i]]
        elif arg.startswith("--lint-explain"):
            s.info_action, s.lint_rule = "lint-explain", self.value("--lint-explain", arg)
        elif arg.startswith("--dump-ir"):
            path = self.value("--dump-ir", arg)
            s.info_action = "dump-ir"
            s.dump_ir = InputFile(path, language_of(path, s.x_language), s.x_language)
        elif arg.startswith("--tile-size"):
            s.tile_size = _int_value("--tile-size", self.value("--tile-size", arg))
        elif arg.startswith("-fpencil-tile-sizes="):
            s.tile_sizes += _tile_sizes(arg.split("=", 1)[1])
        elif arg in ("-fpencil-tuned", "-fno-pencil-tuned"):
            s.use_tuned = arg == "-fpencil-tuned"
        elif arg.startswith("--cache-sizes"):
            s.cache_sizes = _cache_sizes(self.value("--cache-sizes", arg))
        elif arg == "-fpencil-parallel":
            s.parallel = True
        elif arg == "-fno-pencil-parallel":
            s.parallel = False
        elif arg in ("-fpencil-exact-reductions", "-fno-pencil-exact-reductions"):
            s.exact_reductions = arg == "-fpencil-exact-reductions"
        elif arg == "-fpencil-detect":
            s.detect = True
        elif arg == "-fno-pencil-detect":
            s.detect = False
        elif arg.startswith("-fpencil-thread-min-work="):
            s.thread_min_work = _int_value("-fpencil-thread-min-work=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-thread-start-work="):
            s.thread_start_work = _int_value("-fpencil-thread-start-work=", arg.split("=", 1)[1])
        elif arg in ("-fpencil-thread-pin", "-fno-pencil-thread-pin"):
            s.thread_pin = arg == "-fpencil-thread-pin"
        elif arg.startswith("-fpencil-thread-warm-ms="):
            s.thread_warm_ms = _int_value("-fpencil-thread-warm-ms=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-time-limit="):
            s.time_limit = _seconds_value("-fpencil-time-limit=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-max-statements="):
            s.max_statements = _int_value("-fpencil-max-statements=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-max-loop-depth="):
            s.max_loop_depth = _int_value("-fpencil-max-loop-depth=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-memory="):
            s.memory = arg.split("=", 1)[1]
            if s.memory not in MEMORY_MODES:
                raise CommandLineError(f"'-fpencil-memory=' expects 'none', 'reuse', 'contract' or "
                                       f"'all', got '{s.memory}'")
        elif arg.startswith("-fpencil-memory-limit="):
            s.memory_limit_mb = _int_value("-fpencil-memory-limit=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-target="):
            s.target = arg.split("=", 1)[1]
            if s.target not in TARGET_MODULES:
                raise CommandLineError(f"'-fpencil-target=' expects one of {', '.join(sorted(TARGET_MODULES))}, "
                                       f"got '{s.target}'")
        elif arg.startswith("-fpencil-fusion="):
            s.fusion = arg.split("=", 1)[1]
            if s.fusion not in ("auto", "max", "min"):
                raise CommandLineError(f"'-fpencil-fusion=' expects 'auto', 'max' or 'min', got '{s.fusion}'")
        elif arg.startswith("-fpencil-cluster="):
            s.cluster = arg.split("=", 1)[1]
            if s.cluster not in ("none", "scc", "bb"):
                raise CommandLineError(f"'-fpencil-cluster=' expects 'none', 'scc' or 'bb', got '{s.cluster}'")
        elif arg.startswith("-fpencil-cluster-decision="):
            s.cluster_decision = _cluster_decision(arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-save-schedule="):
            s.save_schedule_dir = arg.split("=", 1)[1]
            if not s.save_schedule_dir or (os.path.exists(s.save_schedule_dir)
                                           and not os.path.isdir(s.save_schedule_dir)):
                raise CommandLineError(f"'-fpencil-save-schedule=' expects a folder, got '{s.save_schedule_dir}'")
        elif arg.startswith("-fpencil-report="):
            s.report_file = _report_file(arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-emit-c="):
            s.emit_c = arg.split("=", 1)[1]
            if not s.emit_c:
                raise CommandLineError("'-fpencil-emit-c=' expects a file name (or a folder, ending in '/')")
        elif arg.startswith("-fpencil-load-schedule="):
            s.load_schedule_dir = arg.split("=", 1)[1]
            s.loaded_schedules = _loaded_schedules(s.load_schedule_dir)
        elif arg.startswith("-fpencil-source-order="):
            s.source_order = arg.split("=", 1)[1]
            if s.source_order not in ("gain", "streams"):
                raise CommandLineError(f"'-fpencil-source-order=' expects 'gain' or 'streams', got '{s.source_order}'")
        elif arg.startswith("-fpencil-passes="):
            s.passes = _pass_names("-fpencil-passes=", arg.split("=", 1)[1])
        elif arg.startswith("-fpencil-pass-plugin="):
            module = arg.split("=", 1)[1]
            if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", module):
                raise CommandLineError(f"'-fpencil-pass-plugin=' expects a Python module name, got '{module}'")
            s.pass_plugins.append(module)
        elif arg == "--print-passes":
            s.info_action = s.info_action or "print-passes"
        elif arg.startswith("--disable-pass"):
            s.disabled_passes += _pass_names("--disable-pass", self.value("--disable-pass", arg))
        elif arg.startswith("--dump-before"):
            s.dump_before += _pass_names("--dump-before", self.value("--dump-before", arg))
        elif arg.startswith("--dump-after"):
            s.dump_after += _pass_names("--dump-after", self.value("--dump-after", arg))
        elif arg.startswith("-fpencil-dump="):
            stages = _names(arg.split("=", 1)[1])
            unknown = [st for st in stages if st not in STAGES]
            if unknown or not stages:
                raise CommandLineError(f"unknown stage '{','.join(unknown)}' in '{arg}' "
                                       f"(stages: {','.join(STAGES)})")
            s.dump += stages
        elif arg.startswith("-fpencil-dump-dir="):
            s.dump_dir = arg.split("=", 1)[1]
        elif arg == "-ftime-report":
            s.time_report = True
        elif arg == "-fsave-optimization-record" or arg == "-fsave-optimization-record=json":
            s.save_record = True
        elif arg.startswith("-foptimization-record-file="):
            s.save_record, s.record_file = True, arg.split("=", 1)[1]
        elif arg == "--keep":
            s.keep = True
        elif arg == "-v":
            # Ours (print commands, timings) and the host's (cmake reads its link line).
            s.verbose = True
            self.host(arg)
        else:
            return False
        return True

    def mode_flag(self, arg: str) -> bool:
        s = self.s
        rank = {"": 0, "c": 1, "S": 2, "syntax": 3, "E": 4}
        if arg in ("-c", "-S", "-E", "-fsyntax-only"):
            mode = "syntax" if arg == "-fsyntax-only" else arg[1]
            if rank[mode] > rank.get(s.mode, 0):
                s.mode = mode
            s.passthrough.append(arg)
            return True
        if arg == "-###":
            s.mode = "E"        # the host prints what it would run
            s.passthrough.append(arg)
            return True
        if arg == "-emit-llvm":
            s.emit_llvm = True
            return True
        return False

    def dependency_flag(self, arg: str) -> bool:
        s = self.s
        if arg in ("-MD", "-MMD"):
            s.deps_kind = arg[1:]
        elif arg in ("-M", "-MM"):
            s.mode = "E"        # -M/-MM without -MD imply -E: the host's job
        elif arg.startswith("-MF"):
            s.dep_file = self.value("-MF", arg)
            s.passthrough += ["-MF", s.dep_file]
            return True
        elif arg.startswith(("-MT", "-MQ")):
            flag = arg[:3]
            target = self.value(flag, arg)
            s.dep_targets.append((flag, target))
            s.passthrough += [flag, target]
            return True
        elif arg == "-MP":
            s.dep_phony = True
        elif arg == "-MG":
            s.dep_missing = True
        else:
            return False
        s.passthrough.append(arg)
        return True

    def diagnostic_flag(self, arg: str) -> bool:
        s = self.s
        if arg == "-Wpencil":
            s.pencil_enabled = True
        elif arg == "-Wno-pencil":
            s.pencil_enabled = False
        elif arg == "-Werror=pencil":
            s.pencil_enabled, s.pencil_error = True, True
        elif arg == "-Wno-error=pencil":
            s.pencil_error = False
        elif _reject_flag(arg):
            # One reject id (clangpass.rejects); an unknown `-Wno-pencil-foo` is not ours and goes to
            # the host compiler, which accepts any -Wno-* as gcc does.
            negated, error, id = _reject_flag(arg)
            if error:
                s.reject_error[id] = not negated
                if not negated:
                    s.reject_enabled[id] = True     # -Werror=<id> implies -W<id>, as in gcc
            else:
                s.reject_enabled[id] = not negated
        elif arg.startswith(("-Rpass=", "-Rpass-missed=")) and _matches_pencil(arg.split("=", 1)[1]):
            if arg.startswith("-Rpass="):
                s.remarks = True
            else:
                s.missed_remarks = True
        else:
            if arg == "-Werror":
                s.werror = True
            elif arg == "-Wno-error":
                s.werror = False
            elif arg == "-w":
                s.pencil_enabled = False
                s.reject_enabled.clear()
            return False        # also the host's
        return True

    def codegen_flag(self, arg: str) -> bool:
        """Flags pencilcc reads into CompileOptions and also gives to the host compiler."""
        s = self.s
        if arg.startswith("-O"):
            level = _optimisation_level(arg)
            if level is not None:
                s.opt_level, fast = level
                s.fast_math = fast or s.fast_math
        elif arg == "-ffast-math":
            s.fast_math = True
        elif arg == "-fno-fast-math":
            s.fast_math = False
        elif arg.startswith("-ffp-contract="):
            style = arg.split("=", 1)[1]
            if style not in ("fast", "on", "off"):
                raise CommandLineError(f"unknown floating point contraction style '{style}' in '{arg}' "
                                       "(expected 'fast', 'on' or 'off')")
            s.fp_contract = style
        elif arg.startswith(("-std=", "--std=")) or arg == "-ansi":
            dialect = "c90" if arg == "-ansi" else arg.split("=", 1)[1]
            if _ISO_C_STD.fullmatch(dialect):
                s.iso_c = True
            elif _GNU_C_STD.fullmatch(dialect):
                s.iso_c = False
            # anything else (a C++ dialect, a misspelling) is the host compiler's to judge
        elif arg.startswith("-march="):
            s.march = arg.split("=", 1)[1]
        elif arg in ("-fPIC", "-fpic", "-fPIE", "-fpie"):
            s.pic = True
        elif arg in ("-fno-PIC", "-fno-pic", "-fno-PIE", "-fno-pie"):
            s.pic = False
        elif arg == "-shared":
            s.pic = True
            self.host(arg, compile_=False)
            return True
        elif arg.startswith(prefix_map.FLAGS):
            try:
                flag, old, new = prefix_map.parse_flag(arg)
            except prefix_map.PrefixMapError as exc:
                raise CommandLineError(str(exc)) from None
            if flag != prefix_map.MACRO:
                s.debug_prefix_map.append((old, new))
        elif arg == "-g0":
            s.debug = False
        elif re.fullmatch(r"-g(gdb|dwarf(-\d)?|[1-3]|gdb[1-3])?", arg):
            s.debug = True
        return False            # the host needs them all

    def language_flag(self, arg: str) -> bool:
        if not arg.startswith("-x"):
            return False
        lang = self.value("-x", arg)
        self.s.x_language = "" if lang == "none" else lang
        self.s.passthrough += ["-x", "c" if lang == "pencil" else lang]
        return True

    def output_flag(self, arg: str) -> bool:
        if not arg.startswith("-o"):
            return False
        self.s.output = self.value("-o", arg)
        self.s.passthrough += ["-o", self.s.output]
        return True

    def generic_flag(self, arg: str) -> None:
        """Anything else goes to the host compiler, with its separate value if it takes one;
        an option in pencilcc's namespace that it does not know is an error of its own."""
        _check_not_misspelt(arg)
        flag_values = [arg]
        if arg in SEPARATE_VALUE_FLAGS:
            flag_values.append(self.value(arg, arg))
        link_only = (arg in _LINK_ONLY_EXACT or arg in _LINK_ONLY_SEPARATE
                     or arg.startswith(_LINK_ONLY_PREFIXES))
        self.host(*flag_values, compile_=not link_only)


# gcc's options spelt with two dashes: never taken for a misspelling of one of pencilcc's.
_HOST_LONG_OPTIONS = ("--param", "--sysroot", "--help", "--target-help", "--version", "--coverage",
                      "--entry", "--save-temps", "--specs", "--std", "--output", "--compile",
                      "--assemble", "--preprocess", "--include", "--define-macro", "--undefine-macro",
                      "--include-directory", "--library-directory", "--language", "--pass-exit-codes",
                      "--pipe", "--print-", "--verbose", "--no-", "--for-linker", "--force-link",
                      "--imacros", "--debug", "--optimize", "--pedantic", "--machine", "--extra-warnings",
                      "--all-warnings", "--user-dependencies", "--write-", "--dependencies", "--dumpbase",
                      "--dumpdir", "--trace-includes", "--no-warnings", "--profile", "--dumpversion",
                      "--dumpmachine", "--dumpspecs")


def _check_not_misspelt(arg: str) -> None:
    """CommandLineError for `-fpencil-*` / `-fno-pencil-*` options pencilcc does not have, and for
    `--` options close to one of its own (`--dumpp-after=`), with the nearest of its options: the
    host compiler would only say that it does not know them."""
    import difflib

    from clangpass.driver.help import own_option_names

    name = re.match(r"-[-\w]+=?", arg)
    if not name:
        return
    typed = name.group(0)
    ours = own_option_names()
    pencil_namespace = typed.startswith(("-fpencil-", "-fno-pencil-"))
    if not pencil_namespace and (not typed.startswith("--") or typed.startswith(_HOST_LONG_OPTIONS)):
        return
    # Compared without their prefixes: `-fpencil-tile-size=` is nearest to `--tile-size=`.
    stems = {re.sub(r"^(-fno-pencil-|-fpencil-|--)", "", name): name for name in ours}
    stem = re.sub(r"^(-fno-pencil-|-fpencil-|--)", "", typed)
    close = [stems[c] for c in difflib.get_close_matches(stem, list(stems), n=1,
                                                         cutoff=0.75 if pencil_namespace else 0.85)]
    if not pencil_namespace and not close:
        return
    hint = f"; did you mean '{close[0]}'?" if close else " (pencilcc --help lists its options)"
    raise CommandLineError(f"unknown option '{arg}'{hint}")


def _reject_flag(arg: str) -> Optional[tuple[bool, bool, str]]:
    """(negated, error, id) of `-W[no-][error=]<id>` for a registered reject id, else None."""
    m = re.fullmatch(r"-W(no-)?(error=)?(pencil-[a-z0-9-]+)", arg)
    if m is None or m[3] not in REJECTS:
        return None
    return bool(m[1]), bool(m[2]), m[3]


def _matches_pencil(pattern: str) -> bool:
    try:
        return re.fullmatch(pattern, "pencil") is not None
    except re.error:
        return False


def _action(s: _State) -> str:
    if s.info_action:
        action = s.info_action
    elif s.mode in ("E", "syntax") or not s.inputs:
        action = "host"
    else:
        action = {"c": "compile", "S": "assemble"}.get(s.mode, "link")
    assert action in ACTIONS, action
    return action


def _check_pass_names(flag: str, names: list[str]) -> None:
    """Every name is a registered pass, or an installed plugin's (clangpass.passes.plugins, which
    registers it); the error lists them in -O3 pipeline order, then the plugins'."""
    if not names:
        return
    from clangpass.passes.manager import PASSES  # importing it registers every pass
    from clangpass.passes.plugins import PluginError, entry_points, resolve
    from clangpass.targets import get_target
    try:
        resolve(names)
    except PluginError as exc:
        raise CommandLineError(str(exc)) from None
    unknown = [n for n in names if n not in PASSES]
    if unknown:
        valid = list(dict.fromkeys([*get_target().pipeline(3), *PASSES, *sorted(entry_points())]))
        raise CommandLineError(f"unknown pass '{unknown[0]}' in '{flag}' (passes: {', '.join(valid)})")


def _pipeline(s: _State) -> tuple[str, ...]:
    """`CompileOptions.passes`: the pipeline of -fpencil-passes=, else the target's of the -O level
    with the passes of the -fpencil-pass-plugin modules after the pass each names (`after`);
    () when neither flag is given. Checked here, before anything runs: an unknown pass, a pass
    whose `requires` no earlier pass provides, a pipeline without the AST the target lowers,
    or a plugin that cannot be loaded is a command-line error."""
    if s.passes is None and not s.pass_plugins:
        return ()
    from clangpass.passes.manager import PASSES, PipelineError, build_pipeline
    from clangpass.passes.plugins import PluginError, load_module, with_plugin_passes
    from clangpass.targets import get_target
    target = get_target(s.target)
    try:
        plugins = [cls for module in dict.fromkeys(s.pass_plugins) for cls in load_module(module)]
        names = s.passes if s.passes is not None else with_plugin_passes(target.pipeline(s.opt_level), plugins)
    except PluginError as exc:
        raise CommandLineError(str(exc)) from None
    where = (f"'-fpencil-passes={','.join(names)}'" if s.passes is not None else
             f"the -O{s.opt_level} pipeline of target '{s.target}' with the passes of "
             f"'-fpencil-pass-plugin={','.join(dict.fromkeys(s.pass_plugins))}' ({','.join(names)})")
    _check_pass_names("-fpencil-passes=", names)
    try:
        build_pipeline(names, frozenset(s.disabled_passes), traits=target.traits)
    except PipelineError as exc:
        raise CommandLineError(f"in {where}: {exc}") from None
    if not any("ast" in PASSES[name].provides for name in names):
        raise CommandLineError(f"in {where}: no pass builds the AST the target lowers (end the "
                               "pipeline with 'codegen')")
    return tuple(names)


def emit_c_is_folder(path: str) -> bool:
    """Whether `-fpencil-emit-c=path` names a folder (each input's C under its own name there)."""
    return path.endswith(("/", os.sep)) or os.path.isdir(path)


def _check_emit_c(path: str, action: str, compiled: list[InputFile]) -> None:
    """-fpencil-emit-c= rules like -o: one file per C input, so several inputs need a folder."""
    if action not in ("compile", "assemble", "link"):
        raise CommandLineError("'-fpencil-emit-c=' writes what a compile optimized; it needs '-c', '-S' "
                               "or a link, not '-E', '-M' or '-fsyntax-only'")
    sources = [i for i in compiled if i.language in ("c", "pencil")]
    if emit_c_is_folder(path):
        names = [os.path.basename(i.path) for i in sources]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise CommandLineError(f"'-fpencil-emit-c={path}' would write '{twice[0]}' twice (two inputs of "
                                   "that name); compile them separately")
    elif len(sources) > 1:
        raise CommandLineError(f"cannot specify '-fpencil-emit-c={path}' with multiple files; name a "
                               f"folder ('-fpencil-emit-c={path.rstrip(os.sep)}/') to get one C file per input")


def parse_command_line(argv: list[str]) -> DriverConfig:
    """argv (without the program name) -> DriverConfig; raises CommandLineError."""
    expanded = expand_response_files(list(argv))
    s = _Parser(expanded).run()
    action = _action(s)
    compiled = [i for i in s.inputs if i.language != "linker"]
    if action in ("compile", "assemble") and s.output and len(compiled) > 1:
        raise CommandLineError("cannot specify '-o' with '-c', '-S' or '-E' with multiple files")
    if s.emit_c:
        _check_emit_c(s.emit_c, action, compiled)
    passes = _pipeline(s)
    for flag, names in (("--disable-pass", s.disabled_passes), ("--dump-before", s.dump_before),
                        ("--dump-after", s.dump_after)):
        _check_pass_names(flag, names)
    if s.emit_llvm and action in ("compile", "link"):
        raise CommandLineError("'-emit-llvm' is only supported with '-S' (writes the optimized "
                               "regions' LLVM IR)")
    # pencil.h for the host compiler too, searched last: `#include <pencil.h>` works with
    # pencilcc without -I, and a project's own pencil.h still wins.
    pencil_h = ("-idirafter", str(include_dir()))
    contraction = _fp_contract(s)
    options = CompileOptions(
        opt_level=s.opt_level, tile_size=s.tile_size, tile_sizes=s.tile_sizes, use_tuned=s.use_tuned, cache_sizes=s.cache_sizes, parallel=s.parallel,
        exact_reductions=s.exact_reductions, detect=s.detect,
        fusion=s.fusion, cluster=s.cluster, cluster_decision=s.cluster_decision, target=s.target,
        save_schedule_dir=s.save_schedule_dir, report_file=s.report_file, emit_c=s.emit_c,
        load_schedule_dir=s.load_schedule_dir,
        loaded_schedules=s.loaded_schedules,
        source_order=s.source_order or ("gain" if s.target == "opencl" else CompileOptions.source_order),
        disabled_passes=frozenset(s.disabled_passes), passes=passes,
        pass_plugins=tuple(dict.fromkeys(s.pass_plugins)), dump=frozenset(s.dump), dump_dir=s.dump_dir,
        dump_before=frozenset(s.dump_before), dump_after=frozenset(s.dump_after),
        time_report=s.time_report, march=s.march, fast_math=s.fast_math, fp_contract=contraction == "fast",
        fp_contract_on=contraction == "on",
        pic=bool(s.pic), debug=s.debug, debug_prefix_map=PrefixMap(tuple(s.debug_prefix_map)),
        thread_min_work=s.thread_min_work,
        thread_start_work=s.thread_start_work,
        thread_warm_ms=s.thread_warm_ms,
        thread_pin=s.thread_pin,
        time_limit=s.time_limit, memory_limit_mb=s.memory_limit_mb, max_statements=s.max_statements,
        max_loop_depth=s.max_loop_depth, memory=s.memory)
    return DriverConfig(
        argv=tuple(expanded), action=action, inputs=tuple(s.inputs), output=s.output,
        host_args=(*s.host_args, *pencil_h), link_args=(*s.link_args, *pencil_h),
        passthrough_args=tuple(s.passthrough), options=options, pic=s.pic,
        deps=DepOptions(s.deps_kind, s.dep_file, tuple(s.dep_targets), s.dep_phony, s.dep_missing),
        diagnostics=DiagnosticPolicy(s.pencil_enabled, s.pencil_error, s.werror, s.remarks,
                                     s.missed_remarks, tuple(sorted(s.reject_enabled.items())),
                                     tuple(sorted(s.reject_error.items()))),
        emit_llvm=s.emit_llvm, keep=s.keep, verbose=s.verbose, save_record=s.save_record,
        record_file=s.record_file, dump_ir=s.dump_ir, show_cc_args=s.show_cc_args,
        listsep=s.listsep, lint_argv=tuple(s.lint_argv), lint_rule=s.lint_rule)

