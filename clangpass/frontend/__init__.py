# SPDX-License-Identifier: MIT
"""The front end: C99/PENCIL source -> pencilcc IR `Module`, through libclang.

`parse_file(path, options)` runs clang's parser with the user's preprocessor
flags (plus pencil.h's directory and the host compiler's builtin headers, with
include/libclang/ in front of them: the host's headers clang cannot parse as they
are, gcc's omp.h, read through a shim),
recovers pragmas and `__attribute__`s libclang does not expose, lowers the main
file to IR and decides which functions are PENCIL (issue #2, point 4):
every function of a `*.pencil.c` file or of `-x pencil` input, functions marked
`__attribute__((pencil))`, functions whose array parameters are all
`static const restrict` (pencil_array) and summary functions named by a
`pencil_access` attribute.
"""
from __future__ import annotations

import os
import sys
import threading
from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import clang.cindex as ci

from clangpass.diagnostics import Diagnostic
from clangpass.frontend.clang_api import cursor_kind
from clangpass.frontend.lower import Lowering, location, source_range
from clangpass.frontend.openmp import without_openmp
from clangpass.frontend.pragmas import collect_pragmas
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.pencil_headers import may_define_pencil
from clangpass.resources import include_dir, libclang_include_dir
from clangpass.toolchain import builtin_include_dir, clang_resource_include, host_cc

CK = ci.CursorKind

# Flags of the user's command line that change what the preprocessor/parser sees.
_PARSER_FLAGS_WITH_VALUE = ("-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter",
                            "-imacros", "-std=", "--std=")
# The -O levels and -ffast-math set macros headers test (__OPTIMIZE__, __OPTIMIZE_SIZE__,
# __NO_INLINE__, __FAST_MATH__: glibc's extern inlines, fortified functions), so libclang sees
# the declarations the host compiler will; so does -march=native (__AVX2__, ...: the same CPU
# for both). Other -march= values are not passed: gcc knows CPUs clang 18 does not, and an
# unknown one would make clang refuse the whole file.
_PARSER_FLAGS_EXACT = ("-ansi", "-fsigned-char", "-funsigned-char", "-pedantic", "-w",
                       "-fopenmp", "-m32", "-m64", "-nostdinc", "-fno-builtin",
                       "-O", "-O0", "-O1", "-O2", "-O3", "-Os", "-Oz", "-Og", "-Ofast",
                       "-ffast-math", "-fno-fast-math", "-march=native")


@dataclass(frozen=True)
class FrontendOptions:
    """What the front end needs from the command line."""

    parser_args: tuple[str, ...] = ()      # -I/-D/-U/-std/-include ... as the user wrote them
    force_pencil: bool = False             # -x pencil


@dataclass
class FrontendResult:
    module: Optional[N.Module]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    tu: Optional[ci.TranslationUnit] = None

    @property
    def ok(self) -> bool:
        return self.module is not None and not any(d.severity in ("error", "fatal error") for d in self.diagnostics)


def select_parser_args(argv: list[str]) -> list[str]:
    """The subset of a gcc command line that libclang must see (joined or separate values)."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        matched = False
        for flag in _PARSER_FLAGS_WITH_VALUE:
            if a == flag and not flag.endswith("=") and i + 1 < len(argv):
                out += [a, argv[i + 1]]
                i += 2
                matched = True
                break
            if a.startswith(flag) and len(a) > len(flag):
                out.append(a)
                i += 1
                matched = True
                break
        if matched:
            continue
        if a in _PARSER_FLAGS_EXACT:
            out.append(a)
        i += 1
    return out


def clang_args(options: FrontendOptions) -> list[str]:
    args = ["-x", "c"]
    if not any(a.startswith(("-std=", "--std=")) or a == "-ansi" for a in options.parser_args):
        args.append("-std=gnu99")
    args += ["-D__PENCILCC__=1", "-I", str(include_dir())]
    builtin = builtin_include_dir(tuple(host_cc()))
    resource = clang_resource_include()
    # Ordering: the shims `#include_next` the header they stand in front of. With clang's own
    # builtin headers, the host compiler's directory still comes last (-idirafter) for what only
    # it has (gcc's <omp.h>); clang's limits.h keeps glibc's from reaching gcc's.
    if resource:
        args += ["-isystem", str(libclang_include_dir()), "-isystem", resource]
        if builtin:
            args += ["-idirafter", builtin]
    elif builtin:
        args += ["-isystem", str(libclang_include_dir()), "-isystem", builtin]
    # pencilcc interprets these itself; clang's warnings about them would be noise.
    args += ["-Wno-unknown-attributes", "-Wno-unknown-pragmas", "-Wno-ignored-attributes"]
    args += list(options.parser_args)
    return args


INTERNAL_ERROR = "pencilcc-internal"
"""Diagnostic id of a valid C file the front end could not lower (a pencilcc limit, not the user's error)."""

_SEVERITY = {ci.Diagnostic.Ignored: "note", ci.Diagnostic.Note: "note", ci.Diagnostic.Warning: "warning",
             ci.Diagnostic.Error: "error", ci.Diagnostic.Fatal: "fatal error"}


def _clang_diagnostic(d: ci.Diagnostic) -> Diagnostic:
    loc = d.location
    where = N.SourceLoc(loc.file.name if loc.file else "", loc.line, loc.column)
    option = d.option[2:] if d.option.startswith("-W") else ""
    return Diagnostic(f"clang{'-' + option if option else ''}", _SEVERITY.get(d.severity, "error"), where, d.spelling)


def _annotation_attribute(text: str, loc: N.SourceLoc) -> Optional[N.Attribute]:
    """pencil.h spells PENCIL attributes as annotate("pencil") / annotate("pencil_access:f")."""
    if text == "pencil":
        return N.Attribute("pencil", (), loc)
    if text.startswith("pencil_access"):
        arg = text[len("pencil_access"):].strip(":() ")
        return N.Attribute("pencil_access", (arg,) if arg else (), loc)
    return None


def _token_attributes(cursor: ci.Cursor) -> list[N.Attribute]:
    """`__attribute__((pencil))` / `((pencil_access(f)))` written directly (clang drops them)."""
    tokens = list(cursor.get_tokens())
    out: list[N.Attribute] = []
    for i, tok in enumerate(tokens):
        if tok.spelling == "{":
            break
        if tok.spelling != "__attribute__" or i + 3 >= len(tokens):
            continue
        j = i + 3  # skip '(' '('
        while j < len(tokens) and tokens[j].spelling != ")":
            name = tokens[j].spelling
            args: list[str] = []
            k = j + 1
            if k < len(tokens) and tokens[k].spelling == "(":
                depth = 1
                k += 1
                while k < len(tokens) and depth:
                    if tokens[k].spelling == "(":
                        depth += 1
                    elif tokens[k].spelling == ")":
                        depth -= 1
                    elif depth == 1 and tokens[k].spelling != ",":
                        args.append(tokens[k].spelling)
                    k += 1
            if name in ("pencil", "pencil_access"):
                loc = N.SourceLoc(tok.location.file.name if tok.location.file else "",
                                  tokens[j].location.line, tokens[j].location.column)
                out.append(N.Attribute(name, tuple(args), loc))
            j = k
            if j < len(tokens) and tokens[j].spelling == ",":
                j += 1
    return out


def _cursor_attributes(cursor: ci.Cursor, scan_tokens: bool) -> list[N.Attribute]:
    out: list[N.Attribute] = []
    for child in cursor.get_children():
        kind = cursor_kind(child)
        # The location only of an attribute: every declaration of the system headers is looked at.
        if kind == CK.CONST_ATTR:
            out.append(N.Attribute("const", (), location(child)))
        elif kind == CK.PURE_ATTR:
            out.append(N.Attribute("pure", (), location(child)))
        elif kind == CK.ANNOTATE_ATTR:
            attr = _annotation_attribute(child.spelling, location(child))
            if attr is not None:
                out.append(attr)
    if scan_tokens:
        out.extend(_token_attributes(cursor))
    return out


def _pencil_reason(fn: N.Function, pencil_file: bool, summaries: set[str]) -> str:
    if pencil_file:
        return "PENCIL source file"
    if fn.attribute("pencil") is not None:
        return "__attribute__((pencil))"
    if fn.name in summaries:
        return "summary function"
    arrays = [p for p in fn.params if isinstance(p.type, T.ArrayType)]
    if arrays and all(T.is_pencil_array(p.type) for p in arrays):
        return "array parameters declared static const restrict"
    return ""


# clang's parser recurses once per operator of an expression: the 8 MiB stack of the thread
# libclang parses on overflows at about 30,000 terms (SIGSEGV, the process dies). Our own parse
# thread gets this much stack instead; it is address space, pages are used only as touched
# (measured: 300,000 terms parse with 345 MB resident).
_PARSE_STACK_BYTES = 512 << 20


def _parse_on_large_stack(path: str, args: list[str]) -> ci.TranslationUnit:
    """libclang's parse of `path`, on a thread with `_PARSE_STACK_BYTES` of stack."""
    os.environ["LIBCLANG_NOTHREADS"] = "1"     # parse on the calling thread, not on libclang's own
    parsed: dict[str, object] = {}

    def parse() -> None:
        try:
            parsed["tu"] = ci.Index.create().parse(
                path, args=args, options=ci.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD)
        except BaseException as exc:    # re-raised on the caller's thread
            parsed["error"] = exc

    previous = threading.stack_size(_PARSE_STACK_BYTES)
    try:
        thread = threading.Thread(target=parse, name="pencilcc-libclang")
        try:
            thread.start()
        except RuntimeError as exc:
            # The stack is address space: under a small RLIMIT_AS (-fpencil-memory-limit=) there
            # is not enough of it, which is running out of memory, not an error of pencilcc's.
            raise MemoryError(f"no address space for the parser's {_PARSE_STACK_BYTES >> 20} MiB stack") from exc
    finally:
        threading.stack_size(previous)
    thread.join()
    if "error" in parsed:
        raise parsed["error"]   # type: ignore[misc]
    return parsed["tu"]         # type: ignore[return-value]


def parse_file(path: str, options: FrontendOptions = FrontendOptions()) -> FrontendResult:
    """Parse and lower one C file. Never raises for bad C: problems come back as diagnostics."""
    if not os.path.isfile(path):
        return FrontendResult(None, [Diagnostic("pencilcc-no-such-file", "error", N.SourceLoc(path, 0, 0),
                                                "no such file or directory")])
    try:
        tu = _parse_on_large_stack(path, clang_args(options))
    except ci.TranslationUnitLoadError as exc:
        return FrontendResult(None, [Diagnostic("pencilcc-parse", "fatal error", N.SourceLoc(path, 0, 0),
                                                f"cannot parse file: {exc}")])
    diagnostics = [_clang_diagnostic(d) for d in tu.diagnostics
                   if d.severity >= ci.Diagnostic.Warning]
    if any(d.severity in ("error", "fatal error") for d in diagnostics):
        return FrontendResult(None, diagnostics, tu)
    # An exception inside libclang's cursor-visitor callback cannot unwind through C: Python
    # reports it as "unraisable" and get_children() silently returns fewer children. Such an IR
    # would be wrong, so those exceptions are caught here and fail the lowering.
    lost: list[BaseException] = []
    previous_hook = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: lost.append(unraisable.exc_value)
    try:
        module = _lower_module(tu, path, options)
        if lost:
            raise lost[0]
    except Exception as exc:  # any lowering failure is ours, never the user's
        # C that clang accepts but our lowering cannot walk (an expression 500 operators deep
        # overflows Python's recursion limit): the driver compiles such a file with the host
        # compiler and says why.
        exc = lost[0] if lost else exc
        return FrontendResult(None, diagnostics + [Diagnostic(
            INTERNAL_ERROR, "fatal error", N.SourceLoc(path, 0, 0),
            f"pencilcc cannot analyse this file ({type(exc).__name__}: {str(exc)[:200]})")], tu)
    finally:
        sys.unraisablehook = previous_hook
    return FrontendResult(module, diagnostics, tu)


class _PencilHeaders:
    """The user headers of a translation unit whose PENCIL code pencilcc compiles (issue 30).

    A `static` function of a header (the PENCIL benchmarks' HOG keeps its kernels so) is the
    translation unit's own code: pencilcc compiles it where it is defined. A header qualifies
    when it is not a system header (found through -isystem or the system's folders: never
    touched), not pencilcc's own (pencil.h) and its text mentions `scop` or `pencil`. Its
    function definitions are lowered as the main file's are (PENCIL by the same rules but the
    file's name), by a `Lowering` of its own, whose pragmas and offsets are the header's.
    """

    def __init__(self, tu: ci.TranslationUnit, reparse: Callable[[str], ci.TranslationUnit]) -> None:
        self.tu = tu
        self._reparse = reparse
        self._own = os.path.realpath(include_dir())     # pencil.h's folder
        self._verdicts: dict[str, bool] = {}
        self._lowerings: dict[str, Lowering] = {}

    def holds(self, cursor: ci.Cursor) -> bool:
        """Whether `cursor` lies in a header whose PENCIL code pencilcc compiles."""
        where = cursor.location.file
        if where is None or where.name == self.tu.spelling:
            return False
        name = where.name
        if name not in self._verdicts:
            # pencil.h (ours, or a project's copy of it) defines PENCIL's builtins, not user code.
            self._verdicts[name] = (not cursor.location.is_in_system_header
                                    and os.path.basename(name) != "pencil.h"
                                    and os.path.dirname(os.path.realpath(name)) != self._own
                                    and may_define_pencil(name))
        return self._verdicts[name]

    def lowering(self, cursor: ci.Cursor) -> Lowering:
        """The lowering of the header that defines `cursor`."""
        name = cursor.location.file.name
        if name not in self._lowerings:
            self._lowerings[name] = Lowering(self.tu, name, collect_pragmas(self.tu, name), self._reparse)
        return self._lowerings[name]


def _lower_module(tu: ci.TranslationUnit, path: str, options: FrontendOptions) -> N.Module:
    """The IR of the main file of `tu` and of the PENCIL code of its user headers
    (`_PencilHeaders`), PENCIL functions marked."""
    main_file = tu.spelling
    args = clang_args(options)
    reparsed: dict[str, ci.TranslationUnit] = {}

    def reparse(version: str) -> ci.TranslationUnit:
        if version not in reparsed:
            reparsed[version] = _parse_on_large_stack(path, without_openmp(args, version))
        return reparsed[version]

    lowering = Lowering(tu, main_file, collect_pragmas(tu, main_file), reparse)
    headers = _PencilHeaders(tu, reparse)
    pencil_file = options.force_pencil or path.endswith(".pencil.c")

    attributes: dict[str, list[N.Attribute]] = {}
    decl_cursors: dict[str, ci.Cursor] = {}
    globals_: list[N.VarDecl] = []
    records: list[N.RecordDecl] = []
    includes: list[N.Include] = []
    top_level = list(tu.cursor.get_children())
    lowering.macros.share_top_level(top_level)      # one walk of them for both
    for cursor in top_level:
        kind = cursor_kind(cursor)
        if kind == CK.FUNCTION_DECL:
            attrs = attributes.setdefault(cursor.spelling, [])
            in_main = cursor.location.file is not None and cursor.location.file.name == main_file
            for a in _cursor_attributes(cursor, in_main or headers.holds(cursor)):
                if a not in attrs:
                    attrs.append(a)
            previous = decl_cursors.get(cursor.spelling)
            if previous is None or (cursor.is_definition() and not previous.is_definition()):
                decl_cursors[cursor.spelling] = cursor
        elif kind == CK.VAR_DECL and cursor.location.file is not None \
                and cursor.location.file.name == main_file:
            globals_.append(lowering.var_decl(cursor))
        elif kind in (CK.STRUCT_DECL, CK.UNION_DECL) and cursor.location.file is not None \
                and cursor.location.file.name == main_file:
            records.extend(_record_decls(cursor))
        elif kind == CK.INCLUSION_DIRECTIVE:
            include = _include(tu, cursor)
            if include is not None:
                includes.append(include)

    summaries = {a.args[0] for attrs in attributes.values() for a in attrs
                 if a.name == "pencil_access" and a.args}
    functions: list[N.Function] = []
    for name, cursor in decl_cursors.items():
        in_main = cursor.location.file is not None and cursor.location.file.name == main_file
        if not in_main and cursor.is_definition() and headers.holds(cursor):
            functions.append(_header_function(headers, cursor, tuple(attributes[name]), summaries))
            continue
        if not in_main and not attributes[name]:
            continue
        fn = lowering.function(cursor, tuple(attributes[name]))
        if fn.body is not None and in_main:
            reason = _pencil_reason(fn, pencil_file and name != "main", summaries)
            fn = replace(fn, is_pencil=bool(reason), pencil_reason=reason)
        functions.append(fn)
    # The main file's functions in source order, then the headers' code, then declarations.
    functions.sort(key=lambda f: (not f.in_main_file, f.loc.file != main_file, f.loc.file if f.in_main_file else "",
                                  f.loc.line if f.in_main_file else 0, f.name))
    return N.Module(main_file, tuple(functions), tuple(globals_), tuple(records), pencil_file,
                    tuple(includes))


def _header_function(headers: _PencilHeaders, cursor: ci.Cursor, attributes: tuple[N.Attribute, ...],
                     summaries: set[str]) -> N.Function:
    """The definition `cursor` of a PENCIL header, lowered as the main file's are: the
    translation unit's own code (`in_main_file`), PENCIL by the same rules but the file's name."""
    fn = headers.lowering(cursor).function(cursor, attributes)
    reason = _pencil_reason(fn, False, summaries)
    return replace(fn, is_pencil=bool(reason), pencil_reason=reason)


def _include(tu: ci.TranslationUnit, cursor: ci.Cursor) -> Optional[N.Include]:
    """The `#include` directive `cursor` with the file it named; None between system headers
    (the driver never rewrites those) or when it named no file."""
    target = cursor.get_included_file()
    if target is None or cursor.location.file is None:
        return None
    in_system = cursor.location.is_in_system_header
    names_system = ci.SourceLocation.from_offset(tu, target, 0).is_in_system_header
    if in_system and names_system:
        return None
    extent = cursor.extent
    return N.Include(cursor.location.file.name, extent.start.offset, extent.end.offset,
                     target.name, in_system, names_system)


def _record_decls(cursor: ci.Cursor) -> list[N.RecordDecl]:
    """The struct/union declared by `cursor` and those declared inside it, outermost first."""
    extent = source_range(cursor)
    out = [N.RecordDecl("" if cursor.is_anonymous() else cursor.spelling, cursor.kind == CK.UNION_DECL,
                        extent.start if extent is not None else location(cursor), cursor.is_definition())]
    for child in cursor.get_children():
        if child.kind in (CK.STRUCT_DECL, CK.UNION_DECL):
            out.extend(_record_decls(child))
    return out
