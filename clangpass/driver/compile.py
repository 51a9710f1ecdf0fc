# SPDX-License-Identifier: MIT
"""Per-input compilation: what pencilcc optimizes, what the host compiler compiles.

For one C input (`.c`, `.pencil.c`, `-x c`, `-x pencil`):

1. `analyse` (given its bytes, see clangpass.driver.sources): a file that
   cannot hold PENCIL code (no `scop`, `pencil` or `restrict` in its text, no
   `scop` or `pencil` in a user header it includes, not `.pencil.c`, not
   `-x pencil`; under -fpencil-detect, no `for` either) is plain and never parsed. Otherwise look it up
   in the compile cache; on a miss parse it with libclang (a file clang cannot
   parse goes to the host compiler unchanged, with a -Wpencil warning when it
   mentions PENCIL) and hand the module to the compile core (clangpass.compiler),
   which gives every region a `RegionOutcome`, their diagnostics and the target's
   code for the optimized ones (object, assembly or LLVM IR, as the action needs).
   Both run in the analysis child (clangpass.driver.isolate), and so does the
   caller's `exports` (what clangpass.compile takes from the same parse: the
   functions' signatures), kept in the plan and the cache entry. What the input's
   compile says goes to the caller's console (clangpass.driver.console): the
   driver's prints it, clangpass.compile's keeps it as values.
2. `object_for` / `assembly_for`: with no optimized region the host compiles the
   original file with the user's flags; otherwise the host compiles a rewritten
   copy (`rewrite.outline_regions`, in the private temp dir, `-iquote` the
   original's folder; regions of user headers: rewritten copies of those headers,
   `rewrite.outline_translation_unit`), and it and the target's object are linked with `-r` into
   one object (cached). If the host rejects the rewritten copy, the original is
   compiled instead: its errors are the user's; if it compiles, the regions fall
   back with a warning (an outlining bug of ours, which only the host can reveal).
"""
from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Protocol, Sequence

from clangpass.compiler import compile_module
from clangpass.diagnostics import Diagnostic, DiagnosticEngine, render
from clangpass.driver.ahead import Decided, HostCompileAhead
from clangpass.driver.cache import CacheEntry, CompileCache, cache_key, plugin_identity
from clangpass.driver.cli import DriverConfig, InputFile, emit_c_is_folder
from clangpass.driver.console import Console, Terminal, tool_diagnostics
from clangpass.driver.host import HostCompiler, HostError
from clangpass.driver.isolate import AnalysisFailed, Watch, run_in_process, run_isolated
from clangpass.driver.link import localize_in_assembly, localize_symbols
from clangpass.driver.rewrite import (HeaderCopy, Redirect, RewriteError, emitted_c_text, outline_regions,
                                      outline_translation_unit)
from clangpass.driver.sources import (DriverError, HostCompileFailed, host_compile, language_flags,
                                      may_hold_pencil, mentions_pencil)
from clangpass import dataclass_code, residency
from clangpass.dumps import DumpSink
from clangpass.emit_c import PRELUDE as EMIT_C_PRELUDE, fallback_comment
from clangpass.frontend import INTERNAL_ERROR, FrontendOptions, FrontendResult, parse_file
from clangpass.ir.nodes import Include, Module, SourceLoc
from clangpass.ir.printer import format_module
from clangpass.options import CompileOptions
from clangpass.tuning import tuned_rules
from clangpass.poly.schedule_files import schedule_file_name
from clangpass.resources import include_dir
from clangpass.prefix_map import DEBUG as DEBUG_PREFIX_MAP, PrefixMap
from clangpass.poly.alias_check import AliasCheck
from clangpass.regions import OptRegion
from clangpass.residency import ResidentLoop
from clangpass.rejects import Reject, option as reject_option
from clangpass.report import RegionOutcome, fallback, report_outcomes
from clangpass.targets import Artifact, Output, get_target


# What a caller takes from the parsed input besides its compile (JSON; run in the analysis child).
Exports = Callable[[FrontendResult], dict]


class Record(Protocol):
    def as_record(self) -> dict: ...


@dataclass(frozen=True)
class CachedOutcome:
    """A region outcome replayed from the compile cache (its record only)."""

    record: dict

    def as_record(self) -> dict:
        return dict(self.record)


class DetachedOutcome:
    """A region outcome from the analysis child: its fields and derived values, no isl/LLVM unit
    (those cannot cross the process boundary; the child already emitted the regions' code)."""

    def __init__(self, outcome: RegionOutcome) -> None:
        self.outcome = replace(outcome, unit=None)
        self.derived: dict[str, object] = {}      # RegionOutcome's properties, read from the unit
        for name, attr in vars(RegionOutcome).items():
            if isinstance(attr, property):
                try:
                    self.derived[name] = attr.fget(outcome)
                except AttributeError:
                    pass    # a unit that lacks what this property reads (test stand-ins)

    def __getattr__(self, name: str):
        state = self.__dict__
        if "outcome" not in state:      # unpickling: not built yet
            raise AttributeError(name)
        return state["derived"][name] if name in state["derived"] else getattr(state["outcome"], name)

    def as_record(self) -> dict:
        return RegionOutcome.as_record(self)    # type: ignore[arg-type]  # same fields, duck-typed


@dataclass(frozen=True)
class Analysis:
    """The result of the isolated analysis of one input: the compile core's, detached."""

    parsed: bool = True                              # the front end gave a module
    parse_diagnostics: tuple[Diagnostic, ...] = ()   # if not, why
    outcomes: tuple[DetachedOutcome, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()         # the outcomes', before the user's policy
    artifact: Optional[Artifact] = None
    dump_count: int = 0
    includes: tuple[Include, ...] = ()               # the module's, for rewriting headers
    exports: Optional[dict] = None                   # the caller's `Exports` of the parse
    resident_loops: tuple[ResidentLoop, ...] = ()     # loops to bracket (clangpass.residency)


# Ordering: the stage names the analysis child announces; a failure in 'region N' leaves only
# that region out on the next try, a failure elsewhere sends the whole input to the host.
_PARSE_STAGE = "parse"
_BACKEND_STAGE = "back end"
_PARSE_SLACK_SECONDS = 20.0     # libclang on a large file, beyond the per-region time limit


@dataclass(frozen=True)
class _Stages:
    """The compile core's progress as the analysis child's stages, each with its time allowance."""

    watch: Watch
    limit: float        # seconds per region (0: none)
    includes: tuple[Include, ...] = ()    # the module's, for the rewritten copy (clangpass.driver.ahead)

    def region(self, index: int) -> None:
        self.watch.stage(_region_stage(index), self.limit)

    def decided(self, outcomes: list[RegionOutcome]) -> None:
        optimized = tuple((o.region, o.alias_check) for o in outcomes if o.status == "optimized")
        if optimized:
            self.watch.early(Decided(optimized, self.includes))

    def back_end(self, units: int) -> None:
        self.watch.stage(_BACKEND_STAGE, self.limit * max(1, units))


@dataclass
class InputPlan:
    """What pencilcc decided for one C input."""

    source: InputFile
    text: bytes
    outcomes: list[RegionOutcome] = field(default_factory=list)
    cache_key: str = ""
    cached: Optional[CacheEntry] = None
    stderr: str = ""                 # our diagnostics for this input, as printed
    diagnostics: list[Diagnostic] = field(default_factory=list)   # the same, as values
    exports: Optional[dict] = None   # the caller's `Exports` of its parse (None: not parsed)
    artifact: Optional[Artifact] = None   # the target's code for the optimized regions
    file_fallback: Optional[Reject] = None   # why nothing of the file was analysed (it could not be parsed...)
    includes: tuple[Include, ...] = ()   # its #include directives (clangpass.ir.nodes.Include)
    resident_loops: tuple[ResidentLoop, ...] = ()   # loops whose region calls keep device data

    @property
    def optimized(self) -> list[RegionOutcome]:
        return [o for o in self.outcomes if o.status == "optimized"]

    @property
    def nondeterministic(self) -> bool:
        """Whether an outcome depends on the machine (a region stopped by the time limit)."""
        return any(o.nondeterministic for o in self.outcomes)

    @property
    def needs_pencilcc(self) -> bool:
        """Whether the host alone cannot build this input the way pencilcc must."""
        return self.cached is not None or bool(self.optimized)

    def records(self) -> list[Record]:
        if self.cached is not None:
            return [CachedOutcome(r) for r in self.cached.records]
        return list(self.outcomes)


@dataclass
class BuiltObject:
    path: str
    link_flags: list[str]


def _debug_enabled() -> bool:
    return os.environ.get("PENCILCC_DEBUG", "") == "1"


class Compilation:
    """Compiles the C inputs of one pencilcc command inside the private `workdir`."""

    def __init__(self, config: DriverConfig, host: HostCompiler, workdir: str,
                 cache: Optional[CompileCache], console: Optional[Console] = None,
                 exports: Optional[Exports] = None) -> None:
        """`console`: where messages go (the terminal by default); `exports`: what to take from
        each input's parse besides its compile; every input is then parsed, even one that
        cannot hold PENCIL code, and a cache entry without exports is a miss."""
        self.config = config
        self.host = host
        self.workdir = workdir
        self.cache = cache
        self.console: Console = console if console is not None else Terminal()
        self.exports = exports
        self.options: CompileOptions = config.options
        self.target = get_target(config.options.target)
        self.dumps = DumpSink(stages=config.options.dump, directory=config.options.dump_dir)
        self._pic_resolved = False
        self._cache_keys: dict[str, str] = {}
        self._tuned: dict[str, tuple] = {}       # input path -> its rules from the tuning cache
        self._ahead: dict[str, HostCompileAhead] = {}   # input path -> its host compile started early
        self._analysed: dict[str, InputPlan] = {}       # input path -> its plan, while it is analysed

    def close(self) -> None:
        """End the host compiles started ahead that no build used (clangpass.driver.ahead)."""
        while self._ahead:
            self._ahead.popitem()[1].cancel()

    # ------------------------------------------------------------------ diagnostics
    def engine(self) -> DiagnosticEngine:
        return self.config.diagnostics.engine()

    def _print(self, plan: InputPlan, engine: DiagnosticEngine) -> bool:
        """Show the input's diagnostics; remember them for the cache; True if none is an error."""
        shown = engine.sorted()
        plan.stderr += "".join(render(d) + "\n" for d in shown)
        plan.diagnostics += shown
        if shown:
            self.console.report(shown)
        return not engine.has_errors

    def _resolve_pic(self) -> None:
        """The back end must emit PIC exactly when the host does (PIE is many hosts' default)."""
        if self.config.pic is None and not self._pic_resolved:
            pic = self.host.default_pic(self.config.host_args)
            self.options = replace(self.options, pic=pic)
        self._pic_resolved = True

    # ------------------------------------------------------------------ analysis
    def analyse(self, source: InputFile, text: bytes) -> tuple[InputPlan, bool]:
        """The plan for `source` (whose bytes are `text`) and whether its diagnostics allow
        going on (no error)."""
        plan, ok = self._analyse(source, text)
        if self.options.emit_c:
            self._emit_c(plan)
        return plan, ok

    def _analyse(self, source: InputFile, text: bytes) -> tuple[InputPlan, bool]:
        plan = InputPlan(source, text)
        if self.exports is None and not may_hold_pencil(source, text, self.config.host_args,
                                                                  self.options.detect):
            return plan, True
        plan.cache_key = self.cache_key(source)
        if plan.cache_key and self.cache is not None:
            plan.cached = self.cache.load(plan.cache_key)
            if plan.cached is not None and self.exports is not None and plan.cached.exports is None:
                plan.cached = None      # the command line's entry: no exports to give
            if plan.cached is not None:
                if self.config.verbose:
                    self.console.output(f"pencilcc: cache hit for '{source.path}' ({plan.cache_key[:16]})\n")
                plan.stderr = plan.cached.stderr
                plan.exports = plan.cached.exports
                try:
                    plan.diagnostics = [Diagnostic.from_json(d) for d in plan.cached.diagnostics]
                except (ValueError, TypeError, KeyError):
                    plan.diagnostics = []       # authenticated, so ours: an older pencilcc's shape
                self.console.output(plan.cached.stderr, plan.diagnostics)
                return plan, True
            if self.config.verbose:
                self.console.output(f"pencilcc: cache miss for '{source.path}' ({plan.cache_key[:16]})\n")
        engine = self.engine()
        unchanged = "PENCIL code not optimized, the file is compiled by the host compiler unchanged"
        try:
            self._analysed[source.path] = plan      # its text, for a host compile started ahead
            try:
                analysis = self._isolated_analysis(source)
            finally:
                del self._analysed[source.path]
        except AnalysisFailed as exc:
            plan.file_fallback = Reject(exc.reject_id, f"pencilcc's analysis {exc}")
            engine.report(exc.reject_id, "warning", SourceLoc(source.path, 0, 0),
                          f"{unchanged}: {plan.file_fallback}", option=reject_option(exc.reject_id))
            return plan, self._print(plan, engine)
        self.dumps = replace(self.dumps, _count=analysis.dump_count)   # the child's numbered dumps
        if not analysis.parsed:
            internal = next((d for d in analysis.parse_diagnostics if d.id == INTERNAL_ERROR), None)
            if internal is not None:
                plan.file_fallback = Reject("pencil-internal-error", internal.message)
            else:
                first = next((d for d in analysis.parse_diagnostics
                              if d.severity in ("error", "fatal error")), None)
                why = f": {first.loc.file}:{first.loc.line}:{first.loc.col}: {first.message}" if first else ""
                if first is not None and _in_host_builtin_headers(first.loc.file):
                    why += ("; a header of the host compiler that clang cannot read: install "
                            "clang's builtin headers (Debian: libclang-common-16-dev) or set "
                            "PENCILCC_CLANG_RESOURCE_DIR")
                plan.file_fallback = Reject("pencil-file-unparsable", f"clang cannot parse it{why}")
            # The record always says why; the warning only for a file written for pencilcc (a
            # file with a mere `restrict` that clang cannot parse is not ours to warn about).
            if internal is not None or mentions_pencil(text):
                engine.report(plan.file_fallback.id, "warning", SourceLoc(source.path, 0, 0),
                              f"{unchanged}: {plan.file_fallback}", option=reject_option(plan.file_fallback.id))
            return plan, self._print(plan, engine)
        plan.outcomes = list(analysis.outcomes)
        plan.artifact = analysis.artifact
        plan.includes = analysis.includes
        plan.exports = analysis.exports
        plan.resident_loops = analysis.resident_loops
        if analysis.artifact is not None and analysis.artifact.messages:
            self.console.output(analysis.artifact.messages, tool_diagnostics(analysis.artifact.messages))
        self._report_timings(plan)
        self._save_schedules(plan)
        engine.extend(analysis.diagnostics)
        return plan, self._print(plan, engine)

    def source_options(self, source: InputFile) -> CompileOptions:
        """The options `source` compiles with: the command's, with the sizes `pencilcc-tune`
        cached for the input on this machine's device (clangpass.tuning; from -O2 on, unless
        -fno-pencil-tuned); looked up once per input."""
        if source.path not in self._tuned:
            rules: tuple = ()
            if self.options.use_tuned and self.options.opt_level >= 2:
                try:
                    with open(source.path, "rb") as f:
                        rules = tuned_rules(f.read(), self.options.target)
                except OSError:
                    rules = ()
            self._tuned[source.path] = rules
        return replace(self.options, tuned_tile_sizes=self._tuned[source.path])

    def cache_key(self, source: InputFile) -> str:
        """The compile cache key of `source`, or '' (no cache, or the preprocessor failed);
        computed once per input (clangpass.compile asks before `analyse`)."""
        if source.path not in self._cache_keys:
            self._resolve_pic()
            self._cache_keys[source.path] = self._cache_key(source)
        return self._cache_keys[source.path]

    def _cache_key(self, source: InputFile) -> str:
        if self.cache is None or self.config.action not in ("compile", "link"):
            return ""
        options = self.options
        if options.dump or options.dump_before or options.dump_after or options.time_report \
                or options.save_schedule_dir or options.report_file or options.emit_c or self.config.keep:
            return ""       # these print, write or keep things only a real compile produces
        proc = self.host.run([*self.config.host_args, *language_flags(source), "-E", source.path],
                             capture=True)
        if proc.returncode != 0:
            return ""
        # The pipeline (-fpencil-passes=, -fpencil-pass-plugin=) is in the options, and so are
        # the sizes the tuning cache holds for the input.
        flags = [*self.config.host_args, *language_flags(source), repr(self.source_options(source)),
                 repr(self.config.diagnostics), plugin_identity()]
        return cache_key(self.host.identity(), os.getcwd(), source.path, flags, proc.stdout)

    def _isolated_analysis(self, source: InputFile) -> Analysis:
        """`_analysis` in a child process (clangpass.driver.isolate), retried without each region
        that crashes it or overruns the time limit; AnalysisFailed for a failure elsewhere.
        A region left out for a reason that depends on the machine (the time limit) is marked
        `nondeterministic` in the result. PENCILCC_DEBUG=1 runs it in this process, so that its
        exceptions propagate."""
        left_out: dict[int, Reject] = {}
        nondeterministic: dict[int, str] = {}     # region index -> what made its outcome machine-dependent
        if _debug_enabled():
            return run_in_process(lambda watch: self._analysis(source, watch, left_out))
        limit = self.options.time_limit
        parse_seconds = limit + _PARSE_SLACK_SECONDS if limit else 0.0
        while True:
            try:
                analysis = run_isolated(lambda watch: self._analysis(source, watch, left_out),
                                        self.options.memory_limit_mb, _PARSE_STAGE, parse_seconds,
                                        on_early=lambda decided: self._start_ahead(source, decided))
            except AnalysisFailed as exc:
                index = _region_of_stage(exc.stage)
                if index is None or index in left_out:
                    raise
                left_out[index] = Reject(exc.reject_id, f"pencilcc's analysis of the region {exc.reason}")
                if exc.nondeterministic:
                    nondeterministic[index] = exc.nondeterministic
                continue
            return replace(analysis, outcomes=tuple(
                DetachedOutcome(replace(o.outcome, nondeterministic=nondeterministic[k]))
                if k in nondeterministic else o for k, o in enumerate(analysis.outcomes)))

    def _analysis(self, source: InputFile, watch: Watch, left_out: dict[int, Reject]) -> Analysis:
        """Parse, and compile the module with the compile core (but the regions `left_out`,
        index -> reason): everything that runs libclang, isl and LLVM on the input.
        Runs in the analysis child: prints only dumps."""
        limit = self.options.time_limit
        watch.stage(_PARSE_STAGE, limit + _PARSE_SLACK_SECONDS if limit else 0.0)
        result = parse_file(source.path, FrontendOptions(self.config.parser_args,
                                                         force_pencil=source.language == "pencil"))
        if not result.ok or result.module is None:
            return Analysis(parsed=False, parse_diagnostics=tuple(result.diagnostics))
        self.dumps.emit("ir", os.path.basename(source.path), "frontend",
                        format_module(result.module, heading=False))
        compiled = compile_module(result.module, self.source_options(source), self.target, self._output(),
                                  dumps=self.dumps, progress=_Stages(watch, limit, result.module.includes),
                                  left_out=left_out,
                                  reraise=_debug_enabled())
        outcomes, diagnostics = list(compiled.outcomes), list(compiled.diagnostics)
        dataclass_code.save()   # what the compile core imported here (clangpass.dataclass_code)
        loops: tuple[ResidentLoop, ...] = ()
        if self.target.traits.device_data and result.tu is not None and \
                any(o.status == "optimized" for o in outcomes):
            # Loops whose host code writes nothing the regions they call see: data stays on
            # the device across those calls (clangpass.residency).
            try:
                found = residency.find(result.tu, source.path, outcomes)
            except Exception:   # a bug of ours: the calls upload as they always did
                if _debug_enabled():
                    raise
                found = residency.Residency()
            outcomes, remarks = residency.annotate(outcomes, found)
            diagnostics += remarks
            loops = found.loops
        return Analysis(outcomes=tuple(DetachedOutcome(o) for o in outcomes),
                        diagnostics=tuple(diagnostics), artifact=compiled.artifact,
                        dump_count=self.dumps._count, includes=result.module.includes,
                        exports=self.exports(result) if self.exports is not None else None,
                        resident_loops=loops)

    def _output(self) -> Output:
        """What the action needs from the target."""
        if self.config.action == "assemble":
            return Output.LLVM_IR if self.config.emit_llvm else Output.ASSEMBLY
        return Output.OBJECT

    def _save_schedules(self, plan: InputPlan) -> None:
        """-fpencil-save-schedule=DIR: each optimized region's final schedule tree in its file
        (clangpass.poly.schedule_files), written atomically."""
        folder = self.options.save_schedule_dir
        saved = [o for o in plan.outcomes if o.schedule_text]
        if not folder or not saved:
            return
        try:
            os.makedirs(folder, exist_ok=True)
            for o in saved:
                path = os.path.join(folder, schedule_file_name(o.region))
                fd, temporary = tempfile.mkstemp(prefix=".pencilcc-", dir=folder)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(o.schedule_text)
                os.replace(temporary, path)
        except OSError as exc:
            raise DriverError(f"cannot write the schedule files of '{plan.source.path}' into '{folder}': "
                              f"{exc.strerror or exc}") from None

    def _emit_c(self, plan: InputPlan) -> None:
        """-fpencil-emit-c=FILE (or DIR/): the input as C99 whose optimized regions are their code
        (clangpass.emit_c), pencil.h inlined, every other byte as written; written atomically.
        A region of a user header stays in the header, as written; an optimized region that
        cannot be printed stays as written, under a comment that says why."""
        target = self.options.emit_c
        source = plan.source
        path = os.path.join(target, os.path.basename(source.path)) if emit_c_is_folder(target) else target
        if os.path.exists(path) and os.path.exists(source.path) and os.path.samefile(path, source.path):
            raise DriverError(f"'-fpencil-emit-c={target}' would overwrite the input '{source.path}'")
        ours = [o for o in plan.optimized if o.region.extent is not None and o.region.extent.file == source.path]
        blocks: dict[str, str] = {}
        for o in ours:
            if o.c_source:
                blocks[o.region.symbol] = o.c_source
            else:
                extent = o.region.extent
                original = plan.text[extent.start_offset:extent.end_offset].decode(errors="surrogateescape")
                blocks[o.region.symbol] = fallback_comment(o.c_unprintable) + "\n" + original
        guards = {o.region.symbol: o.alias_check for o in ours if o.c_source and o.alias_check}
        header = os.path.realpath(include_dir() / "pencil.h")
        inlined = []
        for d in plan.includes:
            if d.file == source.path and os.path.realpath(d.included) == header:
                with open(header, "rb") as f:
                    inlined.append(Redirect(d.start_offset, d.end_offset, header, f.read().rstrip(b"\n")))
        try:
            text = emitted_c_text(plan.text, blocks, [o.region for o in ours], guards, EMIT_C_PRELUDE,
                                  inlined)
        except RewriteError as exc:
            raise DriverError(f"cannot write '{source.path}' as C: {exc}") from None
        folder = os.path.dirname(path) or "."
        try:
            if emit_c_is_folder(target):
                os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".pencilcc-", dir=folder)
            with os.fdopen(fd, "wb") as f:
                f.write(text)
            os.replace(temporary, path)
        except OSError as exc:
            raise DriverError(f"cannot write the C of '{source.path}' to '{path}' "
                              f"(-fpencil-emit-c): {exc.strerror or exc}") from None

    def _report_timings(self, plan: InputPlan) -> None:
        if not (self.config.verbose or self.options.time_report):
            return
        for o in plan.outcomes:
            if not o.pass_seconds:
                continue
            total = sum(o.pass_seconds.values())
            lines = [f"pencilcc: pass timings for region '{o.region.label}' ({o.region.loc.file}:"
                     f"{o.region.loc.line}), {total:.4f}s in all:"]
            for name, seconds in o.pass_seconds.items():
                lines.append(f"  {seconds:10.4f}s  {100 * seconds / total if total else 0:5.1f}%  {name}")
            self.console.output("\n".join(lines) + "\n")

    # ------------------------------------------------------------------ building
    def _fresh_dir(self, tag: str) -> str:
        return tempfile.mkdtemp(prefix=f"{tag}-", dir=self.workdir)

    def host_object(self, source: InputFile, mode: str, output: str) -> int:
        """The host compiles the original `source` (mode '-c' or '-S') into `output`."""
        return host_compile(self.host, self.config, source, mode, output)

    def _rewritten(self, source: InputFile, text: bytes, optimized: Sequence[tuple[OptRegion, Optional[AliasCheck]]],
                   includes: Sequence[Include], resident_loops: Sequence[ResidentLoop], mode: str, output: str,
                   folder: str) -> tuple[bytes, list[HeaderCopy], list[str]]:
        """The outlined copy of `source` (whose bytes are `text`) in `folder`, the copies of its
        headers, and the host's arguments compiling it in `mode` into `output`; writes nothing."""
        copy = os.path.join(folder, os.path.basename(source.path))
        original_dir = os.path.dirname(source.path) or "."
        guards = {region.symbol: check for region, check in optimized if check}
        regions = [region for region, _ in optimized]
        headers: list[HeaderCopy] = []
        resident = [(lp.start_offset, lp.end_offset) for lp in resident_loops]
        if all(r.extent.file == source.path for r in regions):
            rewritten = outline_regions(text, regions, source.path, guards, resident=resident)
        else:
            rewritten, headers = outline_translation_unit(source.path, text, regions, includes,
                                                          guards, folder, resident=resident)
        # A copied header's quoted includes that the front end did not see taken (another
        # branch of an #if) still find its folder, searched last.
        args = ["-iquote", original_dir, *self.config.host_args,
                *(a for h in headers for a in ("-idirafter", os.path.dirname(h.original) or "."))]
        if self.options.debug:
            # The copy's folder stands for the source's, then the user's maps apply (gcc applies
            # one map to a path: the two composed, clangpass.prefix_map).
            copy_map = PrefixMap(((folder, os.path.abspath(original_dir)),))
            args += copy_map.then(self.options.debug_prefix_map).flags(DEBUG_PREFIX_MAP)
        return rewritten, headers, [*args, *language_flags(source), mode, copy, "-o", output]

    @staticmethod
    def _write_rewritten(source: InputFile, folder: str, text: bytes, headers: Sequence[HeaderCopy]) -> None:
        for header in headers:
            os.makedirs(os.path.dirname(header.path), exist_ok=True)
            with open(header.path, "wb") as f:
                f.write(header.text)
        with open(os.path.join(folder, os.path.basename(source.path)), "wb") as f:
            f.write(text)

    def _start_ahead(self, source: InputFile, decided: Decided) -> None:
        """Start the host's compile of `plan`'s rewritten copy as `decided` says it will be, while the
        analysis child emits the regions' code (clangpass.driver.ahead); a build that does not
        compile the copy into an object, or whose copy depends on more than the outcomes (loops
        kept resident on a device), starts nothing."""
        plan = self._analysed.get(source.path)
        if plan is None or self.config.action not in ("compile", "link") or self.target.traits.device_data:
            return
        previous = self._ahead.pop(plan.source.path, None)
        if previous is not None:        # the analysis was retried: its outcomes may differ
            previous.cancel()
        try:
            folder = self._fresh_dir("src")
            output = os.path.join(folder, "host.o")
            text, headers, argv = self._rewritten(plan.source, plan.text, decided.optimized, decided.includes, (),
                                                  "-c", output, folder)
            self._write_rewritten(plan.source, folder, text, headers)
            process = self.host.start(argv)
        except (RewriteError, OSError, HostError):
            return          # the build compiles the copy when it needs it, and reports what fails
        self._ahead[plan.source.path] = HostCompileAhead(text, tuple((h.path, h.text) for h in headers),
                                                         tuple(argv), folder, output, process)

    def _compile_rewritten(self, plan: InputPlan, mode: str, output: str) -> tuple[bool, str]:
        """The host compiles the outlined copy; (succeeded, its stderr)."""
        source = plan.source
        optimized = [(o.region, o.alias_check) for o in plan.optimized]
        ahead = self._ahead.pop(source.path, None)
        if ahead is not None:
            text, headers, argv = self._rewritten(source, plan.text, optimized, plan.includes, plan.resident_loops,
                                                  mode, ahead.output, ahead.folder)
            if ahead.runs(text, headers, argv):
                returncode, stdout, stderr = ahead.finish()
                ahead.move_output(output)
                return self._host_finished(returncode, stdout, stderr)
            ahead.cancel()
        folder = self._fresh_dir("src")
        text, headers, argv = self._rewritten(source, plan.text, optimized, plan.includes, plan.resident_loops,
                                              mode, output, folder)
        self._write_rewritten(source, folder, text, headers)
        proc = self.host.run(argv, capture=True)
        return self._host_finished(proc.returncode, proc.stdout, proc.stderr)

    @staticmethod
    def _host_finished(returncode: int, stdout: bytes, stderr: bytes) -> tuple[bool, str]:
        if stdout:
            sys.stdout.buffer.write(stdout)
            sys.stdout.flush()
        return returncode == 0, stderr.decode(errors="replace")

    def _give_up_outlining(self, plan: InputPlan, why: str) -> None:
        """Turn the input's optimized regions into fallbacks (printed as -Wpencil warnings)."""
        engine = self.engine()
        plan.outcomes = [fallback(o.region, "pencil-outline", why) if o.status == "optimized" else o
                         for o in plan.outcomes]
        report_outcomes(engine, [o for o in plan.outcomes if o.reason == why], False, False)
        if not self._print(plan, engine):
            raise DriverError("PENCIL regions could not be compiled (see the errors above)")

    def _host_part(self, plan: InputPlan, mode: str, output: str) -> Optional[str]:
        """Compile the rewritten copy; returns its stderr, or None if the input fell back to the host."""
        try:
            ok, stderr = self._compile_rewritten(plan, mode, output)
        except RewriteError as exc:
            if _debug_enabled():
                raise
            self._give_up_outlining(plan, f"outlining failed: {exc}")
            if self.host_object(plan.source, mode, output) != 0:
                raise HostCompileFailed() from None
            return None
        if ok:
            self.console.output(stderr, tool_diagnostics(stderr))
            return stderr
        # Is it the user's error or ours? The original decides, and shows its own messages.
        if self.host_object(plan.source, mode, output) != 0:
            raise HostCompileFailed()
        first = stderr.strip().splitlines()[:3]
        self._give_up_outlining(plan, "the host compiler rejected the outlined copy of the file "
                                      f"(a pencilcc bug, please report it): {' | '.join(first)}")
        return None

    def objects_for(self, plans: dict[int, InputPlan]) -> tuple[dict[int, str], list[list[str]]]:
        """The object of each input of a link (index -> path) and the runtime link flags they
        ask for; no objects when no input needs pencilcc (the host compiles and links them all)."""
        objects: dict[int, str] = {}
        runtime_flags: list[list[str]] = []
        if any(p.needs_pencilcc for p in plans.values()):
            for index, plan in plans.items():
                built = self.object_for(plan)
                objects[index] = built.path
                if built.link_flags:
                    runtime_flags.append(built.link_flags)
        return objects, runtime_flags

    def object_for(self, plan: InputPlan) -> BuiltObject:
        """One object file (in the temp dir) holding everything of `plan`'s input."""
        folder = self._fresh_dir("obj")
        combined = os.path.join(folder, "combined.o")
        if plan.cached is not None:
            with open(combined, "wb") as f:
                f.write(plan.cached.object_bytes)
            return BuiltObject(combined, list(plan.cached.link_flags))
        if not plan.optimized:
            if self.host_object(plan.source, "-c", combined) != 0:
                raise HostCompileFailed()
            return BuiltObject(combined, [])
        host_o = os.path.join(folder, "host.o")
        host_stderr = self._host_part(plan, "-c", host_o)
        if host_stderr is None:
            return BuiltObject(host_o, [])
        artifact = _artifact_of(plan)
        link_flags = list(artifact.link_flags)
        regions_o = os.path.join(folder, "regions.o")
        with open(regions_o, "wb") as f:
            f.write(artifact.object_bytes)
        machine = [a for a in self.config.host_args if a.startswith(("-m", "-fuse-ld=", "-B", "--target="))]
        # The linker's own remarks on this step (LTO objects linked with ours) are not the
        # user's business unless it fails.
        proc = self.host.run([*machine, "-nostdlib", "-r", host_o, regions_o, "-o", combined], capture=True)
        # The wrappers too: those of a header's static functions are defined by every file
        # that includes the header.
        local = [*(o.region.symbol for o in plan.optimized),
                 *dict.fromkeys(s for o in plan.optimized for s in o.region.trampoline_symbols)]
        failure = proc.stderr.decode(errors="replace") if proc.returncode != 0 else \
            localize_symbols(self.host, combined, local)
        if failure:
            self.console.output(failure, tool_diagnostics(failure))
            raise HostCompileFailed()
        # A result that depends on the machine is not kept: the next compile may do better.
        if plan.cache_key and self.cache is not None and not plan.nondeterministic:
            with open(combined, "rb") as f:
                entry = CacheEntry(f.read(), [o.as_record() for o in plan.outcomes], link_flags,
                                   plan.stderr + host_stderr,
                                   [d.as_json() for d in (*plan.diagnostics, *tool_diagnostics(host_stderr))],
                                   plan.exports)
            self.cache.store(plan.cache_key, entry)
        return BuiltObject(combined, link_flags)

    def assembly_for(self, plan: InputPlan, output: str) -> int:
        """-S: host assembly of the outlined copy, then the regions' assembly (or LLVM IR)."""
        if self.config.emit_llvm:
            return self._llvm_ir_for(plan, output)
        if not plan.optimized:
            return self.host_object(plan.source, "-S", output)
        host_s = os.path.join(self._fresh_dir("asm"), "host.s")
        if self._host_part(plan, "-S", host_s) is None:   # fell back: host_s is the original's
            os.replace(host_s, output)
            return 0
        regions_s = localize_in_assembly(_artifact_of(plan).text, [o.region.symbol for o in plan.optimized])
        with open(host_s, "rb") as f:
            host_text = f.read()
        with open(output, "wb") as f:
            f.write(host_text.rstrip(b"\n") + b"\n\n# pencilcc: outlined regions\n" + regions_s.encode())
        return 0

    def _llvm_ir_for(self, plan: InputPlan, output: str) -> int:
        artifact = plan.artifact
        if artifact is None:
            # An input without PENCIL code was never analysed: its module has no region.
            artifact = compile_module(Module(plan.source.path), self.options, self.target,
                                      Output.LLVM_IR, reraise=_debug_enabled()).artifact
        with open(output, "w", encoding="utf-8") as f:
            f.write(artifact.text)
        return 0


def _region_stage(index: int) -> str:
    return f"region {index}"


def _region_of_stage(stage: str) -> Optional[int]:
    """The region index of a `_region_stage` name, None for the other stages."""
    prefix = _region_stage(0)[:-1]
    return int(stage[len(prefix):]) if stage.startswith(prefix) else None


def _artifact_of(plan: InputPlan) -> Artifact:
    """The target's code for `plan`'s optimized regions (analysed inputs always have it)."""
    if plan.artifact is None:
        raise DriverError(f"{plan.source.path}: no code for its optimized regions (a pencilcc bug)")
    return plan.artifact


def _in_host_builtin_headers(path: str) -> bool:
    """Whether `path` is a header of the host compiler's builtin directory, read because no
    clang builtin headers were found (gcc's immintrin.h and its kind, which clang cannot parse)."""
    from clangpass.toolchain import builtin_include_dir, clang_resource_include, host_cc
    if not path or clang_resource_include() is not None:
        return False
    builtin = builtin_include_dir(tuple(host_cc()))
    return bool(builtin) and os.path.abspath(path).startswith(os.path.abspath(builtin) + os.sep)
