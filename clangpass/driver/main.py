# SPDX-License-Identifier: MIT
"""`pencilcc`: the one driver for `pencilcc -O3 file.c -o prog`, `make CC=pencilcc` and `--lint`.

Input: a gcc command line. Output: what cc would produce (objects, assembly,
programs, dependency files), with the PENCIL regions of C inputs compiled by
pencilcc (see clangpass.driver.compile), plus pencilcc's own outputs (record,
dumps). The flow of a compile or link:

  parse argv (cli) -> for each C input: analyse (cache, parse, compile core)
  -> print -Wpencil/-Rpass diagnostics (errors stop here, nothing written)
  -> no optimized region anywhere: the host compiler builds everything from the
     original sources with the user's flags (exactly cc's result)
  -> else per input: host part + regions' object (-r linked, cached) -> link
  -> dependency files from the original sources -> commit every output at once
  -> optimisation record.

Everything temporary lives in one private directory (removed unless --keep);
outputs are written beside their targets and renamed at the end. SIGINT,
SIGTERM and SIGHUP (what a terminal, make and CI send) remove both before
pencilcc exits with status 128 + the signal's number, as a shell reports it.
"""
from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from typing import TYPE_CHECKING, Callable, NoReturn, Optional

from clangpass import dataclass_code
from clangpass.driver.cache import open_cache
from clangpass.driver.cli import CommandLineError, DriverConfig, InputFile, parse_command_line
from clangpass.driver.depfile import write_depfile
from clangpass.driver.help import help_text, passes_text, version_text
from clangpass.driver.host import HostCompiler, HostError, starting_host_command
from clangpass.driver.link import OBJCOPY_QUESTION, link_arguments, prebuilt_runtime_flags, unused_linker_inputs
from clangpass.driver.outputs import OutputSet, input_overwritten, output_name, record_name
from clangpass.driver.sources import (DriverError, HostCompileFailed, host_compile, language_flags,
                                      may_hold_pencil, mentions_pencil, read_source, unreadable_by_libclang)
from clangpass.ir.nodes import SourceLoc
from clangpass.rejects import Reject, option as reject_option
from clangpass.resources import cmake_dir, include_dir
from clangpass.targets import get_target
from clangpass.toolchain import HostCommandError, builtin_include_dir, host_cc, start_builtin_include_dir

if TYPE_CHECKING:
    from clangpass.driver.bundle import Tree
    from clangpass.driver.compile import InputPlan

EXIT_INTERNAL_ERROR = 70

# Signals that end a compile from outside (SIGINT is Python's KeyboardInterrupt already).
_TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """SIGTERM or SIGHUP arrived: unwind (removing temporaries and partial outputs) and exit."""

    def __init__(self, signo: int) -> None:
        super().__init__(signo)
        self.signo = signo


def _terminate(signo: int, frame: object) -> None:
    # A second signal must not interrupt the clean-up the first one started.
    for other in _TERMINATING_SIGNALS:
        signal.signal(other, signal.SIG_IGN)
    raise Terminated(signo)


def _catch_terminating_signals() -> dict[int, object]:
    """Install `_terminate`; returns the handlers it replaced (main() called in-process, by
    tests or a build tool, gives them back)."""
    if threading.current_thread() is not threading.main_thread():
        return {}           # only the main thread may set handlers (and receives signals)
    replaced = {}
    for signo in _TERMINATING_SIGNALS:
        # An ignored signal stays ignored (`nohup pencilcc ...`).
        if signal.getsignal(signo) == signal.SIG_DFL:
            replaced[signo] = signal.signal(signo, _terminate)
    return replaced


def _error(message: str) -> int:
    sys.stderr.write(f"pencilcc: error: {message}\n")
    return 1


def main(argv: Optional[list[str]] = None) -> int:
    """Console entry point; returns the exit status, never raises (except with PENCILCC_DEBUG=1)."""
    args = sys.argv[1:] if argv is None else list(argv)
    replaced = _catch_terminating_signals()
    try:
        return run(args)
    except (CommandLineError, HostError, HostCommandError) as exc:
        return _error(str(exc))
    except KeyboardInterrupt:
        return 128 + signal.SIGINT
    except Terminated as exc:
        return 128 + exc.signo
    except BrokenPipeError:
        # `pencilcc --help | head`: stop quietly, and keep Python from complaining at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:
        if os.environ.get("PENCILCC_DEBUG", "") == "1":
            raise
        sys.stderr.write(f"pencilcc: internal error: {type(exc).__name__}: {exc}\n"
                         "pencilcc: note: this is a bug in pencilcc; please report it with the command "
                         "line and the input file (PENCILCC_DEBUG=1 shows the traceback)\n")
        return EXIT_INTERNAL_ERROR
    finally:
        for signo, handler in replaced.items():
            signal.signal(signo, handler)


def entry() -> NoReturn:
    """The `pencilcc` command (and `python -m clangpass`): `main`, then exit at once.

    Everything a compile writes is written, closed and renamed when `main` returns, and its
    temporary directory is removed; what is left is the interpreter's teardown (freeing
    several hundred modules, islpy's and llvmlite's objects), about 60 ms of every compile
    that changes nothing. So the command flushes its standard streams and ends the process
    with `os._exit`. Callers of `main` itself (the test suite, `clangpass.main`) keep
    Python's normal exit, and so does a run under a profiler or tracer (`python -m cProfile
    -m clangpass`, coverage), which writes its results at exit.
    """
    status = main()
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(status)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):   # a closed pipe or stream: nothing more can be written
            pass
    os._exit(status)


def print_passes(config: DriverConfig) -> int:
    """--print-passes: every pass, installed plugins' too (one that cannot be loaded is a
    warning), and the pipeline the other options select."""
    from clangpass.passes.manager import pass_names
    from clangpass.passes.plugins import load_all_entry_points

    for problem in load_all_entry_points():
        sys.stderr.write(f"pencilcc: warning: {problem}\n")
    options = config.options
    where = f"-O{options.opt_level}, target '{options.target}'"
    sys.stdout.write(passes_text(pass_names(options, get_target(options.target)), where))
    return 0


def run(argv: list[str]) -> int:
    outer = starting_host_command()
    if outer:
        raise CommandLineError(f"pencilcc was started by its own host compiler command ({outer}): "
                               "set PENCILCC_CC to a C compiler that does not run pencilcc, such as "
                               "gcc or clang")
    config = parse_command_line(argv)
    host = HostCompiler(verbose=config.verbose, flags=config.host_args)
    action = config.action
    if action == "help":
        sys.stdout.write(help_text())
        return 0
    if action == "version":
        sys.stdout.write(version_text(host.version_line(), host.name))
        return 0
    if action == "print-passes":
        return print_passes(config)
    if action == "print-include-dir":
        print(include_dir())
        return 0
    if action == "cmake-dir":
        print(cmake_dir())
        return 0
    if action == "show-cc-args":
        print(config.listsep.join(show_cc_args(config.show_cc_args, config.options.target)))
        return 0
    if action == "lint":
        from clangpass.lint.cli import run_lint

        return run_lint(list(config.lint_argv))
    if action == "lint-explain":
        from clangpass.lint.cli import explain

        return explain(config.lint_rule)
    if action == "dump-ir":
        return dump_ir(config)
    if action == "host":
        return run_host_only(config, host)
    return Driver(config, host).run()


def show_cc_args(what: str, target: str = "cpu") -> list[str]:
    """What a plain C compiler needs for PENCIL code (INCLUDE_DIRS, DEFFLAGS: none, pencil.h
    works with any C99 compiler) and to link programs whose regions pencilcc compiled
    (LIBS, LIBRARY_DIRS) for `target` (-fpencil-target=opencl adds its runtime)."""
    if what == "INCLUDE_DIRS":
        return [str(include_dir())]
    if what == "LIBS":
        # Everything llvm_backend.cpu.runtime_link_flags may ask for: libgomp for parallel
        # loops, libm for math builtins; and the OpenCL target's runtime (its files and
        # libraries are the target's to say).
        flags = ["-fopenmp", "-lm"]
        if target == "opencl":
            flags += get_target("opencl").runtime_flags()
        return flags
    return []


def dump_ir(config: DriverConfig) -> int:
    from clangpass.diagnostics import DiagnosticEngine
    from clangpass.frontend import FrontendOptions, parse_file
    from clangpass.ir.printer import format_module

    source = config.dump_ir
    if not os.path.isfile(source.path):
        return _error(f"{source.path}: No such file or directory")
    result = parse_file(source.path, FrontendOptions(config.parser_args,
                                                     force_pencil=source.language == "pencil"))
    if not result.ok or result.module is None:
        engine = DiagnosticEngine()
        engine.extend(d for d in result.diagnostics if d.severity in ("error", "fatal error"))
        engine.emit(sys.stderr)
        return 1
    sys.stdout.write(format_module(result.module))
    return 0


def refuse_to_overwrite_input(config: DriverConfig) -> bool:
    """gcc's refusal of a command whose output is one of its inputs (True: refused)."""
    overwritten = input_overwritten(config)
    if overwritten:
        sys.stderr.write(f"pencilcc: fatal error: input file '{overwritten}' is the same as "
                         "output file\ncompilation terminated.\n")
    return bool(overwritten)


# Options that ask the host compiler something without an input (gcc -print-file-name=..., -dumpmachine,
# -v, --version, -###, --target-help, -Q --help=...): with them and no input, the host answers.
_HOST_QUERIES = ("-print", "--print", "-dump", "-v", "--version", "-###", "--target-help", "--help=", "-Q")


def run_host_only(config: DriverConfig, host: HostCompiler) -> int:
    """-E, -M, -MM, -fsyntax-only, -###, no input: the host compiler with the same arguments."""
    if refuse_to_overwrite_input(config):
        return 1
    if not config.inputs and not any(arg.startswith(_HOST_QUERIES) for arg in config.passthrough_args):
        # gcc's own words, as pencilcc's: bare `pencilcc` is not the host compiler's business.
        sys.stderr.write("pencilcc: fatal error: no input files\ncompilation terminated.\n")
        return 1
    args = list(config.passthrough_args)
    if config.verbose and not config.inputs:
        sys.stderr.write(version_text(host.version_line(), host.name))
    if config.inputs:
        args += ["-idirafter", str(include_dir())]      # pencil.h, last in the search order
    sys.stdout.flush()
    status = exit_status(host.run(args).returncode)
    if status == 0 and config.inputs:
        _append_bundle(config, host)
    return status


def _append_bundle(config: DriverConfig, host: HostCompiler) -> None:
    """`pencilcc -E` of a C input that may hold PENCIL code: after the host's preprocessed text,
    the sources a compile of it elsewhere needs (clangpass.driver.bundle)."""
    from clangpass.driver.bundle import bundle_line

    line = bundle_line(host, config)
    if line is None:
        return
    if config.output and config.output != "-":
        with open(config.output, "ab") as f:
            f.write(line)
    else:
        sys.stdout.buffer.write(line)
        sys.stdout.flush()


def exit_status(returncode: int) -> int:
    """A child's status as ours: killed by signal N -> 128 + N, as a shell reports it."""
    return returncode if returncode >= 0 else 128 - returncode


class Driver:
    """One compile (-c), assembly (-S) or link command with pencilcc in the loop."""

    def __init__(self, config: DriverConfig, host: HostCompiler) -> None:
        self.config = config
        self.host = host
        self.outputs = OutputSet()
        # Inputs that may hold PENCIL code of which nothing was analysed, and why (the record's
        # `file_fallbacks`): clang could not parse them, the analysis failed, they hold a NUL.
        self.file_fallbacks: dict[int, Reject] = {}
        # Preprocessed inputs compiled from the sources they bundle (clangpass.driver.bundle), and
        # those whose bundle could not be used (already warned about).
        self.trees: dict[int, "Tree"] = {}
        self.unbundled: set[int] = set()
        # The analysed C inputs (index -> what pencilcc decided), for -fpencil-report.
        self.plans: dict[int, "InputPlan"] = {}

    def run(self) -> int:
        if refuse_to_overwrite_input(self.config):
            return 1
        workdir = tempfile.mkdtemp(prefix="pencilcc-")
        self.host.workdir = workdir
        try:
            status = self._run(workdir)
        except BaseException:
            self.outputs.discard()
            raise
        finally:
            if self.config.keep:
                sys.stderr.write(f"pencilcc: intermediate files kept in {workdir}\n")
            else:
                shutil.rmtree(workdir, ignore_errors=True)
        if status != 0:
            self.outputs.discard()
        return status

    def _run(self, workdir: str) -> int:
        config = self.config
        for path in unused_linker_inputs(config):
            sys.stderr.write(f"pencilcc: warning: {path}: linker input file unused because linking "
                             "not done\n")
        if not self._unpack_bundles(workdir) or not self._warn_of_preprocessed_pencil():
            return 1
        try:
            texts = {index: read_source(source.path) for index, source in enumerate(config.inputs)
                     if source.is_c}
            if not self._leave_unreadable_to_host(texts):
                return 1
            if config.emit_llvm or any(may_hold_pencil(config.inputs[i], t, config.host_args, config.options.detect)
                                       for i, t in texts.items()):
                status, records = self._compile_with_regions(workdir, texts)
            else:
                status, records = self._compile_plain(), {index: [] for index in texts}
            if status == 0:
                status = self._dependency_files()
        except DriverError as exc:
            return _error(str(exc))
        except HostCompileFailed:
            return 1
        if status != 0:
            return status
        if config.options.report_file:
            self._write_report(texts)
        self.outputs.commit()
        if config.save_record:
            self._write_records(records)
        return 0

    def _unpack_bundles(self, workdir: str) -> bool:
        """Each preprocessed input (`.i`) that ends with the sources `pencilcc -E` bundled
        (clangpass.driver.bundle) is unpacked into a folder of its own under `workdir`, to be
        compiled from them. A bundle that cannot be used is a -Wpencil warning that says why (the
        host compiles the file unchanged). False when the warning is an error (-Werror=pencil)."""
        from clangpass.driver.bundle import BundleError, read_bundle, unpack

        engine = self.config.diagnostics.engine()
        for index, source in enumerate(self.config.inputs):
            if not source.preprocessed_c or source.path == "-":
                continue
            try:
                bundle = read_bundle(read_source(source.path))
                if bundle is None:
                    continue
                if self.config.action not in ("compile", "assemble"):
                    raise BundleError("its sources are compiled only with -c or -S")
                self.trees[index] = unpack(bundle, tempfile.mkdtemp(prefix="bundle-", dir=workdir))
            except DriverError:
                continue        # the host compiler says what is wrong with the file
            except BundleError as exc:
                self.unbundled.add(index)
                engine.report("pencil-preprocessed", "warning", SourceLoc(source.path, 0, 0),
                              "PENCIL code not optimized, the file is compiled by the host compiler "
                              f"unchanged: the sources 'pencilcc -E' bundled in it cannot be used: {exc}",
                              option=reject_option("pencil-preprocessed"))
        engine.emit(sys.stderr)
        return not engine.has_errors

    def _warn_of_preprocessed_pencil(self) -> bool:
        """A -Wpencil warning for each preprocessed input (`.i`) that holds PENCIL code and no
        sources bundled by `pencilcc -E`: the host compiles it, unoptimized. libclang cannot read
        what gcc's preprocessor made of the system headers (gcc-only attributes and types), and
        a region's symbol and messages would name the preprocessed file, not its source: what
        ccache with `run_second_cpp = false` and distcc's servers compile when the file was not
        preprocessed by pencilcc (docs/user-guide.md, "Build-system behaviour"). False when
        the warning is an error (-Werror=pencil)."""
        engine = self.config.diagnostics.engine()
        for index, source in enumerate(self.config.inputs):
            if not source.preprocessed_c or source.path == "-" or index in self.trees \
                    or index in self.unbundled:
                continue
            try:
                text = read_source(source.path)
            except DriverError:
                continue        # the host compiler says what is wrong with it
            if mentions_pencil(text):
                engine.report("pencil-preprocessed", "warning", SourceLoc(source.path, 0, 0),
                              "PENCIL code not optimized, the file is compiled by the host compiler "
                              "unchanged: it is preprocessed and carries no sources of pencilcc's "
                              "(pencilcc analyses only C source; preprocess with 'pencilcc -E', "
                              "which bundles them)", option=reject_option("pencil-preprocessed"))
        engine.emit(sys.stderr)
        return not engine.has_errors

    def _compile_bundled(self, index: int, source: InputFile, output: str) -> int:
        """-c / -S of a preprocessed input from the sources it bundles: pencilcc itself, in the
        bundle's folder (its working directory as the client's was), on the source as the
        client named it, so that messages, symbols and the object are the client's. If that
        fails where the host compiles the `.i` (the server lacks something the client had), the
        host's object, with a warning; if both fail, the source's errors."""
        from clangpass.driver.bundle import inner_flags

        config = self.config
        tree = self.trees[index]
        record = os.path.abspath(record_name(config, source)) if config.save_record else ""
        mode = "-S" if config.action == "assemble" else "-c"
        language = ["-x", tree.language] if tree.language else []
        argv = [sys.executable, "-m", "clangpass", *inner_flags(tree, config.argv, record), *language, mode,
                tree.source, "-o", os.path.abspath(output)]
        self.host.echo(argv)
        environment = {**os.environ, "TMPDIR": self.host.workdir} if self.host.workdir else None
        proc = subprocess.run(argv, cwd=tree.cwd, capture_output=True, env=environment)
        # Messages and the record name the client's absolute paths, not the private folder's.
        proc.stdout, proc.stderr = tree.client_text(proc.stdout), tree.client_text(proc.stderr)
        if record and os.path.isfile(record):
            with open(record, "rb") as f:
                text = f.read()
            with open(record, "wb") as f:
                f.write(tree.client_text(text))
        if proc.returncode == 0:
            sys.stdout.buffer.write(proc.stdout)
            sys.stdout.flush()
            sys.stderr.buffer.write(proc.stderr)
            sys.stderr.flush()
            return 0
        policy = config.diagnostics
        host = self.host.run([*config.host_args, *language_flags(source), mode, source.path, "-o", output],
                             capture=True)
        if host.returncode != 0 or policy.error or any(error for _, error in policy.reject_error):
            # The source's own errors (or pencilcc's warnings made errors), as the client's compile
            # gives them.
            sys.stdout.buffer.write(proc.stdout)
            sys.stderr.buffer.write(proc.stderr)
            return exit_status(proc.returncode)
        why = " | ".join(proc.stderr.decode(errors="replace").strip().splitlines()[:3])
        engine = policy.engine()
        engine.report("pencil-preprocessed", "warning", SourceLoc(source.path, 0, 0),
                      "PENCIL code not optimized, the file is compiled by the host compiler unchanged: "
                      f"its bundled sources do not compile here: {why}",
                      option=reject_option("pencil-preprocessed"))
        engine.emit(sys.stderr)
        sys.stderr.buffer.write(host.stderr)
        return 1 if engine.has_errors else 0

    def _leave_unreadable_to_host(self, texts: dict[int, bytes]) -> bool:
        """Drop from `texts` the inputs pencilcc cannot analyse (the host compiles them as
        they are), with a -Wpencil warning for those that look like PENCIL code; False when
        the warning is an error (-Werror=pencil)."""
        engine = self.config.diagnostics.engine()
        for index in list(texts):
            why = unreadable_by_libclang(texts[index])
            if not why:
                continue
            text = texts.pop(index)
            if may_hold_pencil(self.config.inputs[index], text, self.config.host_args,
                               self.config.options.detect):
                self.file_fallbacks[index] = Reject("pencil-file-unparsable", why)
            if mentions_pencil(text):
                path = self.config.inputs[index].path
                engine.report("pencil-file-unparsable", "warning", SourceLoc(path, 0, 0),
                              f"PENCIL code not optimized, the file is compiled by the host compiler "
                              f"unchanged: {why}", option=reject_option("pencil-file-unparsable"))
        engine.emit(sys.stderr)
        return not engine.has_errors

    def _compile_plain(self) -> int:
        """No input can hold PENCIL code: the host compiler does everything, as cc."""
        config = self.config
        if config.action == "link":
            return self._link_objects({}, [])
        mode = "-S" if config.action == "assemble" else "-c"
        return self._each_output(
            lambda index, source, path: host_compile(self.host, config, source, mode, path))

    def _compile_with_regions(self, workdir: str, texts: dict[int, bytes]) -> tuple[int, dict[int, list]]:
        config = self.config
        if config.pic is None:
            # The analysis needs it first thing (clangpass.driver.compile, `_resolve_pic`):
            # the host answers while the imports below run.
            self.host.start_pic_probe(config.host_args)
        # Two more questions for the host compiler, answered while the imports run: its header
        # folder (the front end's, asked below before the analysis child is forked, which
        # inherits the answer) and its objcopy (localize_symbols).
        start_builtin_include_dir(tuple(host_cc()))
        self.host.ask_early(OBJCOPY_QUESTION)
        # Imported only now: the polyhedral path and LLVM take a second to load, which
        # commands without PENCIL code never pay.
        from clangpass.driver.compile import Compilation

        cache, distrust = open_cache()
        if distrust:
            sys.stderr.write(f"pencilcc: warning: compile cache not used: {distrust}\n")
        compilation = Compilation(config, self.host, workdir, cache)
        # The compile path's dataclasses are defined now: keep their methods' code for the next
        # run (clangpass.dataclass_code; writes only when one was new).
        dataclass_code.save()
        builtin_include_dir(tuple(host_cc()))
        try:
            return self._analysed_and_built(compilation, texts)
        finally:
            compilation.close()     # host compiles started ahead that no build used
            self.host.end_pic_probes()

    def _analysed_and_built(self, compilation, texts: dict[int, bytes]) -> tuple[int, dict[int, list]]:
        config = self.config
        plans = {}
        for index, text in texts.items():
            plan, ok = compilation.analyse(config.inputs[index], text)
            if not ok:
                return 1, {}
            plans[index] = plan
            if plan.file_fallback:
                self.file_fallbacks[index] = plan.file_fallback
        self.plans = plans
        records = {index: plan.records() for index, plan in plans.items()}
        if config.action == "link":
            return self._link(compilation, plans), records

        def one_output(index: int, source: InputFile, path: str) -> int:
            plan = plans.get(index)
            if plan is None:
                return compilation.host_object(source, "-S" if config.action == "assemble" else "-c", path)
            if config.action == "assemble":
                return compilation.assembly_for(plan, path)
            if not plan.needs_pencilcc:
                return compilation.host_object(source, "-c", path)
            shutil.copyfile(compilation.object_for(plan).path, path)
            return 0

        return self._each_output(one_output), records

    def _each_output(self, build: Callable[[int, InputFile, str], int]) -> int:
        """-c / -S: one output per compiled input, built by `build(index, source, temp path)`."""
        config = self.config
        for index, source in enumerate(config.inputs):
            if source.language == "linker":
                continue
            path = self.outputs.open(output_name(config, source)).path
            status = (self._compile_bundled(index, source, path) if index in self.trees
                      else build(index, source, path))
            if status != 0:
                return exit_status(status)
        return 0

    def _write_records(self, records: dict[int, list]) -> None:
        """One record per output (each -c object), or one for all inputs (a link, or
        -foptimization-record-file)."""
        from clangpass.report import write_record

        config = self.config
        if config.record_file or config.action == "link":
            groups = [(record_name(config, None), sorted({*records, *self.file_fallbacks}))]
        else:
            groups = [(record_name(config, config.inputs[index]), [index])
                      for index in sorted({*records, *self.file_fallbacks})]
        for path, indices in groups:
            write_record(path, " ".join(config.inputs[i].path for i in indices),
                         [r for i in indices for r in records.get(i, [])],
                         {config.inputs[i].path: self.file_fallbacks[i] for i in indices
                          if i in self.file_fallbacks})

    def _write_report(self, texts: dict[int, bytes]) -> None:
        """-fpencil-report=FILE: the page of every C input of the command (clangpass.report_html),
        written with the other outputs (atomically, only if the command succeeds)."""
        from clangpass.report_html import InputReport, render_page

        config = self.config
        inputs: list[InputReport] = []
        for index, source in enumerate(config.inputs):
            if not source.is_c:
                continue
            plan = self.plans.get(index)
            text = texts.get(index, b"").decode("utf-8", errors="replace")
            outcomes = plan.outcomes if plan is not None else []
            if index in self.trees:
                inputs.append(InputReport(source.path, text, note="compiled from the sources 'pencilcc -E' "
                                          "bundled in it, whose regions this page does not show"))
                continue
            headers = {}
            for o in outcomes:
                extent = o.region.extent
                if extent is not None and extent.file != source.path and extent.file not in headers:
                    try:
                        headers[extent.file] = read_source(extent.file).decode("utf-8", errors="replace")
                    except DriverError:
                        pass        # the page says the text is not available
            inputs.append(InputReport(source.path, text, outcomes, self.file_fallbacks.get(index), headers))
        page = render_page(" ".join(shlex.quote(a) for a in ("pencilcc", *config.argv)), inputs)
        self.outputs.open(config.options.report_file).write_bytes(page.encode("utf-8"))

    def _link(self, compilation, plans) -> int:
        """A link of C inputs some of which have regions: each becomes one object first."""
        return self._link_objects(*compilation.objects_for(plans))

    def _link_objects(self, objects: dict[int, str], runtime_flags: list[list[str]]) -> int:
        """The host links, with C inputs in `objects` replaced by their objects."""
        config = self.config
        prebuilt = prebuilt_runtime_flags(config)
        if prebuilt:
            runtime_flags.append(prebuilt)
        out = self.outputs.open(output_name(config, None))
        return exit_status(self.host.run(link_arguments(config, objects, runtime_flags, out.path)).returncode)

    def _dependency_files(self) -> int:
        config = self.config
        if not config.deps.kind:
            return 0
        for source in config.inputs:
            if source.language in ("c", "pencil", "host") and source.path != "-":
                status = write_depfile(self.host, config, source, self.outputs)
                if status:
                    return status
        return 0

