# SPDX-License-Identifier: MIT
"""Command-line parsing of the driver (clangpass.driver.cli): every flag family, @files."""
from __future__ import annotations

from pathlib import Path

import pytest

from clangpass.driver.cli import (CommandLineError, expand_response_files, language_of,
                                  parse_command_line, quote_response_arg, split_response_text)
from clangpass.driver.depfile import dependency_command, depfile_name
from clangpass.driver.link import link_arguments
from clangpass.driver.outputs import output_name, record_name, strip_suffix
from clangpass.resources import include_dir

PENCIL_H = ("-idirafter", str(include_dir()))


def parse(*argv: str):
    return parse_command_line(list(argv))


def user_flags(args) -> tuple:
    """host_args/link_args without the -idirafter pencil.h pair the driver appends."""
    args = tuple(args)
    assert args[-2:] == PENCIL_H
    return args[:-2]


# ----------------------------------------------------------------------------- actions
@pytest.mark.parametrize("argv, action", [
    (["a.c"], "link"),
    (["-c", "a.c"], "compile"),
    (["-S", "a.c"], "assemble"),
    (["-c", "-S", "a.c"], "assemble"),
    (["-S", "-E", "a.c"], "host"),
    (["-fsyntax-only", "a.c"], "host"),
    (["-M", "a.c"], "host"),
    (["-MM", "a.c"], "host"),
    (["-###", "a.c"], "host"),
    ([], "host"),
    (["-dumpversion"], "host"),
    (["--help"], "help"),
    (["-c", "a.c", "--version"], "version"),
    (["--print-include-dir"], "print-include-dir"),
    (["--cmake-dir"], "cmake-dir"),
    (["--show-cc-args=LIBS"], "show-cc-args"),
    (["--lint", "a.c"], "lint"),
    (["--lint-explain", "PENCIL001"], "lint-explain"),
    (["--dump-ir", "a.c"], "dump-ir"),
])
def test_action(argv, action) -> None:
    assert parse(*argv).action == action


def test_compile_flags_reach_host_and_link() -> None:
    c = parse("-O2", "-I", "inc", "-Iinc2", "-DX=1", "-D", "Y", "-UZ", "-include", "pre.h",
              "-isystem", "sys", "-iquote", "q", "-std=c99", "-g", "-Wall", "-w", "-fno-strict-aliasing",
              "-mavx2", "-march=native", "-pthread", "-c", "a.c", "-o", "a.o")
    assert user_flags(c.host_args) == ("-O2", "-I", "inc", "-Iinc2", "-DX=1", "-D", "Y", "-UZ",
                                       "-include", "pre.h", "-isystem", "sys", "-iquote", "q",
                                       "-std=c99", "-g", "-Wall", "-w", "-fno-strict-aliasing",
                                       "-mavx2", "-march=native", "-pthread")
    assert c.output == "a.o"
    assert [i.path for i in c.inputs] == ["a.c"]
    assert c.options.opt_level == 2 and c.options.debug and c.options.march == "native"
    assert c.parser_args[:10] == ("-O2", "-I", "inc", "-Iinc2", "-DX=1", "-D", "Y", "-UZ", "-include", "pre.h")
    assert "-std=c99" in c.parser_args and "-march=native" in c.parser_args and "-mavx2" not in c.parser_args
    assert not c.diagnostics.enabled        # -w silences -Wpencil too


def test_link_flags_keep_their_order_and_stay_out_of_compiles() -> None:
    c = parse("-O1", "main.c", "-L", "lib", "-lfoo", "b.o", "libc.a", "-l", "m", "-Wl,-z,now",
              "-Xlinker", "--as-needed", "-shared", "-static", "-o", "prog")
    assert user_flags(c.host_args) == ("-O1",)
    assert user_flags(c.link_args) == ("-O1", 0, "-L", "lib", "-lfoo", 1, 2, "-l", "m", "-Wl,-z,now",
                                       "-Xlinker", "--as-needed", "-shared", "-static")
    assert [i.language for i in c.inputs] == ["c", "linker", "linker"]
    assert c.pic is True and c.options.pic is True     # -shared
    args = link_arguments(c, {0: "/tmp/main.o"}, [["-lm"], ["-lm"], ["-fopenmp"]], "out.tmp")
    assert args[:8] == ["-O1", "/tmp/main.o", "-L", "lib", "-lfoo", "b.o", "libc.a", "-l"]
    assert args[-6:] == [*PENCIL_H, "-lm", "-fopenmp", "-o", "out.tmp"]    # equal lists once


def test_unknown_flags_pass_through_with_their_values() -> None:
    c = parse("-fsanitize=address", "-Wno-foo-bar", "--param", "max-inline-insns-auto=10",
              "-Xassembler", "--noexecstack", "-frandom-thing", "-c", "a.c")
    assert user_flags(c.host_args) == ("-fsanitize=address", "-Wno-foo-bar", "--param",
                                       "max-inline-insns-auto=10", "-Xassembler", "--noexecstack",
                                       "-frandom-thing")
    assert [i.path for i in c.inputs] == ["a.c"]          # values are not inputs
    c = parse("-o", "x", "-MF", "dep.c", "-MT", "t.c", "-x", "c", "in.txt", "-I", "dir.c")
    assert [i.path for i in c.inputs] == ["in.txt"]


def test_schedule_folders_are_checked_and_read(tmp_path) -> None:
    (tmp_path / "k.f.0.schedule.yaml").write_text('domain: "{ S_0[i] : 0 <= i < 4 }"\n')
    (tmp_path / "notes.txt").write_text("not a schedule")
    c = parse(f"-fpencil-save-schedule={tmp_path / 'out'}", f"-fpencil-load-schedule={tmp_path}", "-c", "k.c")
    assert user_flags(c.host_args) == () and not any("schedule" in a for a in c.passthrough_args)
    o = c.options
    assert o.save_schedule_dir == str(tmp_path / "out") and o.load_schedule_dir == str(tmp_path)
    assert o.loaded_schedules == (("k.f.0.schedule.yaml", 'domain: "{ S_0[i] : 0 <= i < 4 }"\n'),)
    for flag, message in ((f"-fpencil-save-schedule={tmp_path / 'notes.txt'}", "expects a folder"),
                          ("-fpencil-save-schedule=", "expects a folder"),
                          ("-fpencil-load-schedule=", "expects a folder"),
                          (f"-fpencil-load-schedule={tmp_path / 'none'}", "cannot read the folder")):
        with pytest.raises(CommandLineError, match=message):
            parse(flag, "-c", "k.c")
    (tmp_path / "k.g.schedule.yaml").write_text("child: [")
    with pytest.raises(CommandLineError, match="k.g.schedule.yaml' is not an isl schedule tree"):
        parse(f"-fpencil-load-schedule={tmp_path}", "-c", "k.c")


def test_own_flags_never_reach_the_host() -> None:
    own = ["-fpencil-dump=ir,scop,deps,schedule,ast,llvm", "-fpencil-dump-dir=d", "--tile-size=16",
           "-fno-pencil-parallel", "-fpencil-fusion=min", "--disable-pass=tile,wavefront", "--disable-pass",
           "thread-team",
           "--dump-before=tile", "--dump-after=codegen", "-ftime-report", "-fsave-optimization-record",
           "-foptimization-record-file=r.json", "-Rpass=pencil", "-Rpass-missed=pencil", "-Wpencil",
           "-Wno-pencil", "-Werror=pencil", "--keep", "-emit-llvm"]
    c = parse(*own, "-S", "a.c")
    assert user_flags(c.host_args) == ()
    assert all(flag not in c.passthrough_args for flag in own)
    o = c.options
    assert o.dump == {"ir", "scop", "deps", "schedule", "ast", "llvm"} and o.dump_dir == "d"
    assert o.tile_size == 16 and o.parallel is False and o.fusion == "min"
    assert o.disabled_passes == {"tile", "wavefront", "thread-team"}
    assert o.dump_before == {"tile"} and o.dump_after == {"codegen"} and o.time_report
    assert c.save_record and c.record_file == "r.json" and c.keep and c.emit_llvm
    assert c.diagnostics.remarks and c.diagnostics.missed_remarks
    assert c.diagnostics.enabled and c.diagnostics.error     # -Werror=pencil after -Wno-pencil


def test_exact_reductions_flag() -> None:
    assert parse("-c", "a.c").options.exact_reductions is True
    c = parse("-fno-pencil-exact-reductions", "-c", "a.c")
    assert c.options.exact_reductions is False and "-fno-pencil-exact-reductions" not in c.host_args
    assert parse("-fno-pencil-exact-reductions", "-fpencil-exact-reductions", "-c", "a.c").options.exact_reductions


def test_other_rpass_goes_to_the_host() -> None:
    c = parse("-Rpass=loop-vectorize", "-c", "a.c")
    assert "-Rpass=loop-vectorize" in c.host_args and not c.diagnostics.remarks
    assert parse("-Rpass=.*", "-c", "a.c").diagnostics.remarks


@pytest.mark.parametrize("flag, level, fast", [
    ("-O0", 0, False), ("-O1", 1, False), ("-O", 1, False), ("-O2", 2, False), ("-O3", 3, False),
    ("-Os", 2, False), ("-Oz", 2, False), ("-Og", 1, False), ("-Ofast", 3, True), ("-O9", 3, False),
])
def test_optimisation_levels(flag, level, fast) -> None:
    c = parse(flag, "-c", "a.c")
    assert (c.options.opt_level, c.options.fast_math) == (level, fast)
    assert flag in c.host_args
    assert parse("-c", "a.c").options.opt_level == 0      # gcc's default


@pytest.mark.parametrize("argv, style", [
    (["-O3"], "fast"), (["-O2"], "fast"), (["-Os"], "fast"), (["-O3", "-std=gnu99"], "fast"),
    (["-O3", "-std=gnu11"], "fast"), (["-O3", "--std=gnu17"], "fast"),
    (["-O3", "-std=c99"], "on"), (["-O3", "-std=c11"], "on"), (["-O3", "-std=c17"], "on"),
    (["-O3", "-std=iso9899:1999"], "on"), (["-O3", "-ansi"], "on"), (["-O3", "--std=c2x"], "on"),
    (["-O3", "-std=c99", "-std=gnu99"], "fast"), (["-O3", "-std=gnu99", "-std=c99"], "on"),
    (["-O3", "-std=c99", "-std=c++17"], "on"),           # not a C dialect: the last C one counts
    ([], "off"), (["-O0"], "off"), (["-O1"], "off"), (["-Og"], "off"), (["-O3", "-O1"], "off"),
    (["-std=c99"], "off"), (["-O1", "-std=c99"], "off"),
    (["-O3", "-ffp-contract=off"], "off"), (["-O3", "-ffp-contract=on"], "on"),
    (["-O3", "-std=c99", "-ffp-contract=off"], "off"), (["-O1", "-ffp-contract=on"], "on"),
    (["-O3", "-std=c99", "-ffp-contract=fast"], "fast"), (["-O1", "-ffp-contract=fast"], "fast"),
    (["-O3", "-ffp-contract=off", "-ffp-contract=fast"], "fast"), (["-O3", "-ffp-contract=fast", "-std=c99"], "fast"),
])
def test_fp_contract_defaults(argv, style) -> None:
    """fast in GNU dialects from -O2 up (gcc's), on in ISO ones from -O2 up (clang's), off
    below -O2; an explicit -ffp-contract= wins wherever it stands; every flag also reaches
    the host."""
    c = parse(*argv, "-c", "a.c")
    assert (c.options.fp_contract, c.options.fp_contract_on) == (style == "fast", style == "on")
    assert all(flag in c.host_args for flag in argv)


@pytest.mark.parametrize("argv, pic", [
    ([], None), (["-fPIC"], True), (["-fpic"], True), (["-fPIE"], True), (["-fno-pic"], False),
    (["-fPIC", "-fno-PIC"], False), (["-shared"], True),
])
def test_position_independence(argv, pic) -> None:
    assert parse(*argv, "-c", "a.c").pic is pic


@pytest.mark.parametrize("argv, enabled, error, werror", [
    (["-Wpencil"], True, False, False), (["-Wno-pencil"], False, False, False),
    (["-Werror=pencil"], True, True, False), (["-Werror=pencil", "-Wno-error=pencil"], True, False, False),
    (["-Werror"], True, True, True), (["-Werror", "-Wno-error"], True, False, False),
    (["-Werror", "-Wno-error=pencil"], True, False, True), (["-w"], False, False, False),
])
def test_diagnostic_flags(argv, enabled, error, werror) -> None:
    d = parse(*argv, "-c", "a.c").diagnostics
    assert (d.enabled, d.error, d.werror) == (enabled, error, werror)


def test_languages() -> None:
    c = parse("a.c", "k.pencil.c", "-x", "pencil", "p.txt", "-x", "c", "c.txt", "-x", "none", "d.cpp",
              "-x", "assembler", "e.asm", "-x", "none", "f.S", "g.o", "h.a", "i.so.1", "weird.zzz", "-")
    langs = [(i.path, i.language, i.x_language) for i in c.inputs]
    assert langs == [("a.c", "c", ""), ("k.pencil.c", "pencil", ""), ("p.txt", "pencil", "pencil"),
                     ("c.txt", "c", "c"), ("d.cpp", "host", ""), ("e.asm", "host", "assembler"),
                     ("f.S", "host", ""), ("g.o", "linker", ""), ("h.a", "linker", ""),
                     ("i.so.1", "linker", ""), ("weird.zzz", "linker", ""), ("-", "host", "")]
    assert language_of("x.i", "") == "host" and language_of("x.s", "") == "host"
    assert language_of("-", "c") == "host"        # stdin is read once, by the host compiler
    # -x pencil reaches the host as -x c
    assert parse("-E", "-x", "pencil", "p.txt").passthrough_args == ("-E", "-x", "c", "p.txt")
    args = link_arguments(c, {}, [], "out")
    assert args[args.index("p.txt") - 2:args.index("p.txt") + 3] == ["-x", "c", "p.txt", "-x", "none"]


def test_dependency_flags() -> None:
    c = parse("-MMD", "-MP", "-MF", "deps/a.d", "-MT", "obj/a.o", "-MQ", "$x", "-MG", "-c", "a.c",
              "-o", "obj/a.o")
    assert c.deps.kind == "MMD" and c.deps.phony and c.deps.missing_generated
    assert c.deps.file == "deps/a.d" and c.deps.targets == (("-MT", "obj/a.o"), ("-MQ", "$x"))
    assert not any(a.startswith("-M") for a in c.host_args)
    cmd = dependency_command(c, c.inputs[0], "/tmp/d.tmp")
    assert cmd[-3:] == ["a.c", "-o", "/dev/null"]
    assert "-MM" in cmd and "-E" in cmd and "-MP" in cmd and "-MG" in cmd
    assert cmd[cmd.index("-MF") + 1] == "/tmp/d.tmp" and cmd[cmd.index("-MT") + 1] == "obj/a.o"
    assert parse("-MF", "x.d", "-c", "a.c").deps.kind == ""       # -MF alone asks for nothing


@pytest.mark.parametrize("argv, depfile, default_target", [
    (["-MD", "-c", "src/a.c"], "a.d", None),
    (["-MD", "-c", "src/a.c", "-o", "obj/x.obj"], "obj/x.d", "obj/x.obj"),
    (["-MD", "src/a.c", "-o", "bin/prog"], "bin/prog.d", "bin/prog"),
    (["-MD", "-MFfoo.dep", "-c", "a.c"], "foo.dep", None),
])
def test_depfile_names(argv, depfile, default_target) -> None:
    c = parse(*argv)
    assert depfile_name(c, c.inputs[0]) == depfile
    cmd = dependency_command(c, c.inputs[0], "tmp.d")
    assert (cmd[cmd.index("-MQ") + 1] if "-MQ" in cmd else None) == default_target
    assert "-M" in cmd


def test_output_names() -> None:
    assert output_name(parse("-c", "src/a.c"), parse("-c", "src/a.c").inputs[0]) == "a.o"
    assert output_name(parse("-S", "k.pencil.c"), parse("-S", "k.pencil.c").inputs[0]) == "k.pencil.s"
    c = parse("-S", "-emit-llvm", "a.c")
    assert output_name(c, c.inputs[0]) == "a.ll"
    assert output_name(parse("a.c"), None) == "a.out"
    c = parse("-c", "a.c", "-o", "o/x.o", "-fsave-optimization-record")
    assert record_name(c, c.inputs[0]) == "o/x.opt.json"
    c = parse("-c", "src/a.c", "src/b.c", "-fsave-optimization-record")
    assert [record_name(c, i) for i in c.inputs] == ["a.opt.json", "b.opt.json"]
    assert record_name(parse("a.c", "-o", "prog", "-fsave-optimization-record"), None) == "prog.opt.json"
    assert record_name(parse("a.c", "-foptimization-record-file=r.json"), None) == "r.json"
    c = parse("--dump-ir", "a.c", "-x", "pencil", "--dump-ir", "k.txt")
    assert (c.dump_ir.path, c.dump_ir.language) == ("k.txt", "pencil")
    assert strip_suffix("a.b/prog") == "a.b/prog" and strip_suffix("x.tar.o") == "x.tar"


@pytest.mark.parametrize("argv, message", [
    (["-c", "a.c", "b.c", "-o", "x.o"], "cannot specify '-o'"),
    (["-o"], "missing argument to '-o'"),
    (["--tile-size=big", "a.c"], "expects an integer"),
    (["--tile-size=-1", "a.c"], "expects an integer >= 0"),
    (["-fpencil-fusion=some", "a.c"], "'max' or 'min'"),
    (["-fpencil-dump=nonsense", "a.c"], "unknown stage 'nonsense'"),
    (["--disable-pass=tiling", "-c", "a.c"], "unknown pass 'tiling' in '--disable-pass' (passes: extract, "
                                             "alias-check, demote-scalars, index-set-split, privatize-arrays, "),
    (["--disable-pass", "tile,nope", "-c", "a.c"], "unknown pass 'nope' in '--disable-pass'"),
    (["--dump-after=nosuch", "-c", "a.c"], "unknown pass 'nosuch' in '--dump-after' (passes: extract, "),
    (["--dump-before", "tile,nosuch", "-c", "a.c"], "unknown pass 'nosuch' in '--dump-before' (passes: "),
    (["--dump-after=", "-c", "a.c"], "'--dump-after' expects a pass name, got ''"),
    (["--disable-pass=,", "-c", "a.c"], "'--disable-pass' expects a pass name, got ','"),
    (["-fpencil-dump=", "a.c"], "unknown stage '' in '-fpencil-dump='"),
    (["--show-cc-args=FOO"], "INCLUDE_DIRS"),
    (["-emit-llvm", "-c", "a.c"], "only supported with '-S'"),
    # Options in pencilcc's namespace that it does not have (issue 29): its own error, with the
    # nearest of its options, not the host's "unrecognized command-line option".
    (["-fpencil-tile-sises=32,64", "-c", "a.c"], "unknown option '-fpencil-tile-sises=32,64'; did you "
                                               "mean '-fpencil-tile-sizes='?"),
    (["-fpencil-tile-sizes=32,x", "-c", "a.c"], "'-fpencil-tile-sizes=': 'x' in '32,x' is not a size"),
    (["-fpencil-memry=all", "-c", "a.c"], "did you mean '-fpencil-memory='?"),
    (["-fno-pencil-paralel", "-c", "a.c"], "did you mean '-fno-pencil-parallel'?"),
    (["--dumpp-after=tile", "-c", "a.c"], "unknown option '--dumpp-after=tile'; did you mean '--dump-after='?"),
    (["-fpencil-frobnicate", "-c", "a.c"], "unknown option '-fpencil-frobnicate' (pencilcc --help lists"),
    (["-fpencil-memory=some", "-c", "a.c"], "'-fpencil-memory=' expects 'none', 'reuse', 'contract' or 'all'"),
])
def test_command_line_errors(argv, message) -> None:
    with pytest.raises(CommandLineError, match=message.replace("(", r"\(")):
        parse(*argv)


def test_every_option_in_help_is_known_to_the_parser() -> None:
    """The misspelling check compares with --help's options: each of them parses (no false
    'unknown option' for an option pencilcc has), and gcc's two-dash options still pass."""
    from clangpass.driver.help import own_option_names
    values = {"-fpencil-dump=": "ir", "--dump-before=": "tile", "--dump-after=": "tile", "--tile-size=": "8",
              "--show-cc-args=": "LIBS", "-fpencil-target=": "cpu", "-fpencil-fusion=": "auto",
              "-fpencil-cluster=": "none", "-fpencil-source-order=": "gain", "--disable-pass=": "tile",
              "-fpencil-memory=": "all", "--cache-sizes=": "32K", "-fpencil-max-statements=": "10",
              "-fpencil-max-loop-depth=": "4", "-fpencil-time-limit=": "1", "-fpencil-memory-limit=": "100",
              "-fpencil-thread-min-work=": "1", "-fpencil-thread-start-work=": "1", "-fpencil-thread-warm-ms=": "0",
              "--show-listsep=": ";"}
    names = own_option_names()
    assert "-fpencil-memory=" in names and "--dump-after=" in names and "-fno-pencil-parallel" in names
    for name in names:
        if name.endswith("=") and name not in values:
            continue        # takes a value whose form the other tests check
        if name in ("--lint", "--lint-explain", "--dump-ir", "--help", "--version"):
            continue        # actions of their own
        parse(name + values.get(name, ""), "-c", "a.c")
    c = parse("--save-temps", "--param", "x=1", "--sysroot=/", "-c", "a.c")
    assert "--save-temps" in c.host_args


def test_no_input_is_pencilccs_own_fatal_error(capfd) -> None:
    """Bare `pencilcc` (or flags without an input) is answered by pencilcc as gcc answers, while
    the host's own queries without an input (-dumpmachine, -print-file-name=) still reach it."""
    from clangpass.driver.main import main
    for argv in ([], ["-O3", "-Wall"]):
        assert main(argv) == 1
        assert capfd.readouterr().err == "pencilcc: fatal error: no input files\ncompilation terminated.\n"
    assert main(["-dumpmachine"]) == 0
    assert capfd.readouterr().out.strip()


def test_unknown_pass_error_lists_every_registered_pass() -> None:
    from clangpass.passes.manager import PASSES
    with pytest.raises(CommandLineError) as info:
        parse("--disable-pass=tiling", "-c", "a.c")
    from clangpass.passes.plugins import entry_points
    listed = str(info.value).split("(passes: ", 1)[1].rstrip(")").split(", ")
    # Installed plugins' passes too (entry-point group pencilcc.passes), loaded or not.
    assert sorted(listed) == sorted({*PASSES, *entry_points()}) and "tile" in listed


def test_dump_pass_names_are_checked(capfd) -> None:
    """--dump-before/--dump-after name registered passes: a typo is a usage error (status 1, one
    clang-style line listing the passes), never a compile that silently dumps nothing."""
    from clangpass.driver.main import main
    from clangpass.passes.manager import PASSES
    from clangpass.passes.plugins import entry_points
    for flag in ("--dump-after=nosuch", "--dump-before=nosuch"):
        assert main([flag, "-c", "a.c"]) == 1
        err = capfd.readouterr().err
        name = flag.split("=")[0]
        assert err.startswith(f"pencilcc: error: unknown pass 'nosuch' in '{name}' (passes: extract, ")
        assert err.count("\n") == 1
        assert sorted(err.split("(passes: ", 1)[1].rstrip(")\n").split(", ")) == sorted({*PASSES, *entry_points()})
    c = parse("--dump-after=tile,live-ranges", "--dump-before", "codegen", "-c", "a.c")
    assert c.options.dump_after == {"tile", "live-ranges"} and c.options.dump_before == {"codegen"}


def test_opencl_dump_and_target_are_options() -> None:
    c = parse("-fpencil-dump=ir,opencl", "-fpencil-target=opencl", "-c", "a.c")
    assert "opencl" in c.options.dump and c.options.target == "opencl"
    assert c.options.source_order == "gain"          # the OpenCL target's default
    assert parse("-c", "a.c").options.target == "cpu"
    assert parse("-c", "a.c").options.source_order == "streams"
    with pytest.raises(CommandLineError) as info:
        parse("-fpencil-target=cuda", "-c", "a.c")
    assert str(info.value) == "'-fpencil-target=' expects one of cpu, opencl, got 'cuda'"


def test_deterministic_bounds_and_the_time_limit() -> None:
    options = parse("-c", "a.c").options
    assert (options.max_statements, options.max_loop_depth, options.time_limit) == (1500, 16, 120.0)
    options = parse("-fpencil-max-statements=0", "-fpencil-max-loop-depth=20", "-c", "a.c").options
    assert (options.max_statements, options.max_loop_depth) == (0, 20)
    with pytest.raises(CommandLineError) as info:
        parse("-fpencil-max-statements=-1", "-c", "a.c")
    assert str(info.value) == "'-fpencil-max-statements=' expects an integer >= 0, got '-1'"
    from clangpass.driver.help import help_text
    text = " ".join(help_text().split())
    assert "-fpencil-max-statements=N" in text and "-fpencil-max-loop-depth=N" in text
    assert "A safety net: CPU time the analysis may spend on one region (default 120;" in text


def test_help_lists_the_opencl_target_and_dump() -> None:
    from clangpass.driver.help import help_text
    text = help_text()
    assert "-fpencil-target=cpu|opencl" in text
    assert "Print a stage of every region: ir, scop, deps," in text and "opencl" in text


def test_multiple_inputs_with_c_are_fine_without_o() -> None:
    c = parse("-c", "a.c", "b.c", "x.o")
    assert [i.path for i in c.c_inputs] == ["a.c", "b.c"]


def test_verbose_is_ours_and_the_hosts() -> None:
    c = parse("-v", "-c", "a.c")
    assert c.verbose and "-v" in c.host_args


def test_lint_takes_the_rest_of_the_line() -> None:
    c = parse("-I", "inc", "--lint", "--format=json", "-DX", "a.c")
    assert c.lint_argv == ("-I", "inc", "--format=json", "-DX", "a.c")
    assert parse("--lint-explain=R1").lint_rule == "R1"


def test_show_cc_args_and_listsep() -> None:
    c = parse("--show-cc-args", "INCLUDE_DIRS", "--show-listsep=;")
    assert (c.show_cc_args, c.listsep) == ("INCLUDE_DIRS", ";")


# ----------------------------------------------------------------------------- response files
def test_response_file_quoting() -> None:
    text = "-DA='x y' \"-DB=a\\\"b\" plain\\ space '' -I'dir with'/sub\n\t-c\\\\x"
    assert split_response_text(text) == ["-DA=x y", '-DB=a"b', "plain space", "", "-Idir with/sub",
                                         "-c\\x"]
    assert split_response_text("") == [] and split_response_text("  \n ") == []
    for arg in ["", "a b", "it's", 'q"q', "back\\slash", "plain"]:
        assert split_response_text(quote_response_arg(arg)) == [arg]


def test_response_files_expand_recursively(tmp_path: Path) -> None:
    inner = tmp_path / "inner.rsp"
    inner.write_text("-DINNER=1 'b c.c'\n")
    outer = tmp_path / "outer.rsp"
    outer.write_text(f"-O2 @{inner} -o prog\n")
    assert expand_response_files(["-c", f"@{outer}", "x.c"]) == \
        ["-c", "-O2", "-DINNER=1", "b c.c", "-o", "prog", "x.c"]
    assert expand_response_files(["@/nonexistent/file.rsp"]) == ["@/nonexistent/file.rsp"]
    c = parse(f"@{outer}")
    assert c.output == "prog" and [i.path for i in c.inputs] == ["b c.c"]


def test_self_including_response_file_is_an_error(tmp_path: Path) -> None:
    loop = tmp_path / "loop.rsp"
    loop.write_text(f"-c @{loop}")
    with pytest.raises(CommandLineError, match="nests more than"):
        parse(f"@{loop}")


def test_prefix_maps_are_read_and_reach_the_host(capfd) -> None:
    """-ffile-prefix-map and -fdebug-prefix-map, in order, are the debug maps pencilcc applies
    to the paths it writes (clangpass.prefix_map); -fmacro-prefix-map is the host's only; all
    three reach the host; a value without '=' is gcc's usage error."""
    from clangpass.driver.main import main
    argv = ("-ffile-prefix-map=/a=/A", "-fmacro-prefix-map=/m=/M", "-fdebug-prefix-map=/a/b=", "-c", "a.c")
    c = parse(*argv)
    assert c.options.debug_prefix_map.pairs == (("/a", "/A"), ("/a/b", ""))
    assert [a for a in c.host_args if "prefix-map" in a] == list(argv[:3])
    assert main(["-fdebug-prefix-map=/a", "-c", "a.c"]) == 1
    assert capfd.readouterr().err == "pencilcc: error: invalid argument '/a' to '-fdebug-prefix-map'\n"
