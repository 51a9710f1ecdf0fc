# SPDX-License-Identifier: MIT
"""`pencilcc --help`, `pencilcc --version` and `pencilcc --print-passes`.

The help is data (sections of (option, description)) laid out by one function,
so that every line fits in 79 columns whatever is added.
"""
from __future__ import annotations

import re
import textwrap
from typing import Sequence

from clangpass.dumps import STAGES

WIDTH = 79
_OPTION_COLUMN = 26

INTRO = """\
Usage: pencilcc [options] file...

pencilcc compiles C99 programs like cc, and compiles their PENCIL parts itself:
functions of *.pencil.c files (or -x pencil input), functions marked PENCIL or
with pencil_array (static const restrict) parameters, and blocks between
'#pragma scop' and '#pragma endscop' or in a '#pragma pencil region'. Each such
region goes through a polyhedral optimizer (islpy: rescheduling, tiling,
parallel loops) and LLVM (llvmlite); everything else in the file goes to the
host C compiler with your flags, unchanged. A region pencilcc cannot handle is
compiled by the host compiler too, with a -Wpencil warning that says why. A
file without PENCIL code is compiled exactly as the host compiler would.
"""

EXAMPLES = (
    ("pencilcc -O3 gemm.c -o gemm", "compile and link, regions optimized"),
    ("pencilcc -O3 -c kernel.pencil.c", "compile to kernel.pencil.o"),
    ("make CC=pencilcc CFLAGS=-O3", "build a project (other files as with cc)"),
    ("cmake -DCMAKE_C_COMPILER=pencilcc ..", "the same with CMake"),
    ("pencilcc -O3 -Rpass=pencil -c gemm.c", "say what was optimized"),
    ("pencilcc -O3 -Werror=pencil -c gemm.c", "fail if a region is not optimized"),
    ("pencilcc -O3 -fpencil-dump=schedule -c gemm.c", "each region's schedule after each pass that sets it"),
    ("pencilcc --lint src/*.c", "check the PENCIL rules only"),
)

SECTIONS: tuple[tuple[str, tuple[tuple[str, str], ...], str], ...] = (
    ("Overall options (as with gcc)", (
        ("-c", "Compile and assemble; do not link."),
        ("-S", "Compile only: the host's assembly of the file followed by the optimized "
               "regions' assembly. With -emit-llvm: the regions' optimized LLVM IR (.ll)."),
        ("-E", "Preprocess only (run by the host compiler). For a C file that may hold PENCIL code, "
                "the output ends with a comment bundling its sources, so that compiling it elsewhere "
                "(distcc, ccache) compiles the source with pencilcc."),
        ("-fsyntax-only", "Check syntax only (run by the host compiler)."),
        ("-o FILE", "Write the output to FILE. Outputs are written atomically: a failed "
                    "compile never leaves a partial or changed FILE."),
        ("-x LANG", "Treat the following inputs as LANG: c; pencil (every function is "
                    "PENCIL); none (by suffix). Other languages go to the host compiler."),
        ("-v", "Print every command run, cache hits and the time of each pass."),
        ("--version", "Print pencilcc's and the host compiler's versions."),
        ("--help", "Print this help."),
        ("@FILE", "Read more options from FILE (gcc quoting rules, nested @FILEs)."),
    ), "Inputs: .c, .pencil.c (PENCIL), and anything the host compiler accepts (.o, .a, "
       ".so, .s, .S, ...), passed to it in order. Any option not listed here goes to the "
       "host compiler unchanged: -I -D -U -include -isystem -iquote -std= -g -W... -f... "
       "-m... -march= -l -L -Wl, -Xlinker -shared -fPIC -pthread ..."),
    ("Optimization options", (
        ("-O0, -O1", "Outline and compile regions with their original schedule (no "
                     "rescheduling, tiling or parallel loops). Without -O the level is 0, "
                     "as with gcc."),
        ("-O2, -O3, -Os, -Oz", "Reschedule (isl), tile and parallelize regions."),
        ("-Ofast", "As -O3, plus -ffast-math."),
        ("-ffast-math", "Allow reassociation in regions (vectorized reductions)."),
        ("-ffp-contract=fast|on|off", "fast: fuse any multiply and add into one FMA in regions "
                                      "(rounded once: results differ from gcc -O0's in the last "
                                      "bits); on (clang's meaning; gcc has none): fuse a multiply "
                                      "only into the add or subtract of the same expression; off: "
                                      "round every product, as gcc -O0 does. Default at -O2 and "
                                      "above: fast in GNU dialects (no -std, -std=gnu*), as gcc; "
                                      "on with an ISO -std (c99, c11, c17, -ansi), as clang (gcc: "
                                      "off); off below -O2. Also given to the host compiler."),
        ("-march=CPU", "Optimize regions for CPU (native: this machine)."),
        ("-g", "Regions carry line information for debuggers."),
        ("-ffile-prefix-map=OLD=NEW", "Write paths starting with OLD as NEW in the object (gcc's; "
                                      "also -fdebug-prefix-map=, -fmacro-prefix-map=): the "
                                      "regions' debug information and symbol names too."),
        ("-fPIC, -fpic, -shared", "Position-independent code (default: the host "
                                  "compiler's, PIE on most Linux distributions)."),
    ), ""),
    ("PENCIL/polyhedral options", (
        ("--tile-size=N", "Tile size of every tiled loop band (default: from the cache sizes and "
                          "the accesses; 0: no tiling)."),
        ("-fpencil-tile-sizes=RULES", "Tile sizes per region and band, outermost loop first: "
                                      "32,64 (every band), fn=32,64 (the regions of function fn; "
                                      "fn#1 its second), fn:0=32,32,8 (band 0 of them), rules "
                                      "separated by ';' or the flag repeated, @FILE (one rule a "
                                      "line). On the OpenCL target: kernels' work-group sizes "
                                      "(a,b,c,d: a x b work-items, c x d points each, for a "
                                      "tiled two-dimensional kernel); direct:RULE: the "
                                      "work-group of a tiled kernel's direct variant (what CPU "
                                      "devices such as PoCL run). "
                                      "Sizes that do not fit a band: a warning and the default. "
                                      "Wins over --tile-size and the sizes pencilcc-tune cached."),
        ("-fno-pencil-tuned", "Do not use the tile and work-group sizes pencilcc-tune cached for "
                              "this file and device (-fpencil-tuned: the default)."),
        ("pencilcc-tune [OPTIONS] -- COMMAND",
         "A separate command (OPTIONS: --run CMD, --budget N, --repeat N, --min-gain PERCENT): builds the program with the pencilcc COMMAND line and times CMD "
         "(default ./OUTPUT) over tile sizes (CPU) or work-group sizes (OpenCL: of the kernels "
         "the device runs, the direct variants on CPU devices), at most N "
         "(20) builds per region, the default build first; sizes replace the default only when "
         "faster by more than PERCENT (5). Caches the choice per device (and OpenCL mapping) and region in the cache "
         "directory's tuned/, which later builds use."),
        ("--cache-sizes=L1,L2[,L3]", "Data-cache sizes for the tile-size model (e.g. 32K,1M,32M; "
                                     "default: this machine's, from sysfs)."),
        ("-fno-pencil-parallel", "Do not run parallel loops on threads "
                                 "(-fpencil-parallel: the default)."),
        ("-fno-pencil-exact-reductions", "Keep the source order of the updates of one integer "
                                         "array element that all use one of & | ^ min max, or "
                                         "unsigned + *, (`t[i] = max(t[i], e)`, `?:` spellings "
                                         "included); by default they may run in any order, as "
                                         "the result is the same (-fpencil-exact-reductions). "
                                         "Never floating point; CPU target only."),
        ("-fpencil-detect", "Also optimize the static-affine loop nests of ordinary functions, "
                            "found without pragmas (affine bounds and subscripts, no calls but "
                            "pure ones, two loops or more); arrays that may overlap are checked "
                            "at run time. -Rpass-missed=pencil says why a nest was not taken "
                            "(never a warning). Off by default (-fno-pencil-detect)."),
        ("-fpencil-thread-min-work=N", "Run a parallel loop on threads only when its estimated "
                                       "work reaches N (default 200000; 0: always, and no "
                                       "start test either)."),
        ("-fpencil-thread-start-work=N", "Start threads for a team or lone parallel loop only when "
                                         "its whole estimated work reaches N (default 500000000; "
                                         "0: no such test)."),
        ("-fpencil-thread-pin", "While a team runs, bind its thread k to the k-th CPU it may "
                                "use counted from the forking thread's, each getting its mask "
                                "back after (Linux; default -fno-pencil-thread-pin: threads left "
                                "to the scheduler)."),
        ("-fpencil-thread-warm-ms=N", "Keep idle CPUs awake (low-priority spinners) for N ms from "
                                      "the start of a program whose regions may use threads, and "
                                      "skip the start test in that window (default 0: off; try 200; "
                                      "PENCILCC_THREAD_WARM_MS=N overrides it when a program built "
                                      "with it runs)."),
        ("-fpencil-target=cpu|opencl", "Where optimized regions run: the host CPU through LLVM "
                                       "(cpu, default), or OpenCL: outermost parallel loops become "
                                       "kernels run through pencilcc's runtime on the device "
                                       "PENCILCC_DEVICE names (default: the first GPU, else any "
                                       "device), with the CPU code kept for a machine without one."),
        ("-fpencil-fusion=auto|max|min", "Loop fusion: chosen per region by the fusion model (auto, "
                                         "default), or isl's maximal or minimal fusion."),
        ("-fpencil-cluster=none|scc|bb", "Statement clustering before scheduling (thesis ch. 3): "
                                         "none (default), the dense strongly connected components "
                                         "of each basic block (scc), or whole basic blocks (bb). A "
                                         "region of more than 200 statements (31 with relaxed "
                                         "false dependences), or that many left by scc, or over "
                                         "the isl budget unclustered, gets bb all the same."),
        ("-fpencil-cluster-decision=FILE", "Cluster the statements as FILE says (JSON: a list of "
                                           "clusters of statement names, or an object from region "
                                           "labels to such lists); an invalid decision is an error."),
        ("-fpencil-save-schedule=DIR", "Write each optimized region's final schedule tree (isl's "
                                       "YAML, marks included) to DIR/<file stem>.<function>[.<n>]"
                                       ".schedule.yaml."),
        ("-fpencil-load-schedule=DIR", "Give a region the schedule of its file in DIR (as "
                                       "-fpencil-save-schedule names it, perhaps edited), checked "
                                       "against the dependences: one that breaks a dependence is "
                                       "an error naming it; a region without a file is scheduled "
                                       "as usual."),
        ("-fpencil-emit-c=FILE", "Also write the input as C99 to FILE, each optimized region "
                                 "replaced by its optimized code (OpenMP pragmas for parallel "
                                 "loops and thread teams, 'omp simd' for vector loops, pencil.h "
                                 "inlined), every other byte as written: 'gcc -fopenmp FILE' "
                                 "builds it without pencilcc. Regions that fell back stay as "
                                 "written. With several inputs, name a folder (DIR/): each "
                                 "input's C goes to DIR/<its file name>. With "
                                 "-fpencil-target=opencl the same OpenMP C is written (the "
                                 "kernels: -fpencil-dump=opencl)."),
        ("-fpencil-source-order=streams|gain", "Give a region its source order back when its schedule "
                                               "gained no tile, parallel loop or wavefront (gain), or "
                                               "also when it reads a matrix from memory more often "
                                               "than the source order (streams, default)."),
        ("-fpencil-memory=none|reuse|contract|all", "The memory passes: store an array's values "
                                                    "in place of one that is dead and remove the "
                                                    "copies (reuse), give arrays whose values die "
                                                    "in the region the smaller storage of their "
                                                    "conflict set (contract), both (all, default) "
                                                    "or neither (none)."),
        ("--disable-pass=NAME", "Switch off one pass (repeatable, or NAME,NAME...), to "
                                "measure its effect or to work around a problem."),
        ("-fpencil-passes=NAME,...", "Run these passes on every region, in this order, instead of "
                                     "the target's pipeline of the -O level (-O still sets LLVM's "
                                     "level). Checked before anything runs: unknown passes, a pass "
                                     "whose input no earlier pass provides, or no 'codegen' are "
                                     "errors. A name pencilcc lacks is looked up among installed "
                                     "plugins (entry-point group pencilcc.passes)."),
        ("-fpencil-pass-plugin=MODULE", "Import Python module MODULE for the passes it registers "
                                        "(repeatable); those that name a pass to follow join "
                                        "the target's pipeline after it."),
        ("--print-passes", "List every pass (pencilcc's and installed plugins') with what it "
                           "requires and provides, and the pipeline these options run."),
        ("-fpencil-max-statements=N", "Analyse no region of more than N statements (default "
                                      "1500; 0: no bound): a larger one is compiled by the host "
                                      "compiler, with a -Wpencil warning."),
        ("-fpencil-max-loop-depth=N", "Analyse no region with loops nested more than N deep "
                                      "(default 16; 0: no bound), likewise."),
        ("-fpencil-time-limit=SECONDS", "A safety net: CPU time the analysis may spend on one "
                                        "region (default 120; 0: no limit; 20 times as much "
                                        "wall-clock time at most). The analysis bounds its own "
                                        "work by counts (isl operations, statements, loop depth), "
                                        "so that the same source and flags give the same object "
                                        "on any machine; a region over the time limit is compiled "
                                        "by the host compiler, with a -Wpencil warning that the "
                                        "result depends on this machine, and 'nondeterministic' "
                                        "in its record."),
        ("-fpencil-memory-limit=MiB", "Address-space bound of the analysis process (default "
                                      "4096; 0: none); beyond it the file is compiled by the "
                                      "host compiler, with a -Wpencil warning."),
    ), ""),
    ("Diagnostics", (
        ("-Wpencil", "Warn when a region is compiled by the host compiler instead, and "
                     "why (on by default)."),
        ("-Wno-pencil", "Do not."),
        ("-Werror=pencil", "Make that an error: exit status 1, no output."),
        ("-Wno-error=pencil", "Keep it a warning under -Werror."),
        ("-Wno-<id>", "Do not warn of one reject id, the one a warning ends with "
                      "([-Wpencil-goto]; docs/user-guide.md lists them); -W<id>, "
                      "-Werror=<id>, -Wno-error=<id> as for -Wpencil."),
        ("-Werror, -w", "As with gcc; they apply to the -Wpencil warning too (not to "
                        "remarks, which only -R flags control)."),
        ("-Rpass=pencil", "A remark for each optimized region (statements, tiled bands, "
                          "parallel loops)."),
        ("-Rpass-missed=pencil", "A remark for each region that was not optimized."),
        ("-fsave-optimization-record", "Write the outcome of every region (function, file, "
                                       "line, kind, status, reason, tiling, parallel loops, "
                                       "scheduling time) as JSON to <output without "
                                       ".o>.opt.json (prog.opt.json for -o prog)."),
        ("-foptimization-record-file=FILE", "Write that record to FILE."),
        ("-fpencil-report=FILE", "Write one self-contained HTML page of the whole command (every "
                                 "C input, every region): each region's source beside its final "
                                 "schedule tree, its loops with what was decided (tiled, "
                                 "parallel, vectorised, fused) and why not, its remarks and "
                                 "its record; a fallback's reason and reason id. Written only "
                                 "if the command succeeds; the compile cache is not used."),
        ("-ftime-report", "Print the time of each pass of each region."),
    ), ""),
    ("Dumps (to stderr, or to numbered files with -fpencil-dump-dir)", (
        ("-fpencil-dump=STAGE,...", f"Print a stage of every region: {', '.join(STAGES)}."),
        ("-fpencil-dump-dir=DIR", "Write each dump to its own numbered file in DIR."),
        ("--dump-before=NAME", "Print the region's polyhedral model before pass NAME."),
        ("--dump-after=NAME", "Print it after pass NAME."),
        ("--dump-ir FILE", "Print the pencilcc IR of FILE and exit."),
        ("--keep", "Keep intermediate files (outlined source, objects) in a directory "
                   "whose name is printed."),
    ), ""),
    ("Linter", (
        ("--lint [options] FILE...", "Check FILEs against the PENCIL rules and print "
                                     "clang-style diagnostics, without compiling "
                                     "(pencilcc --lint --help lists its options)."),
        ("--lint-explain RULE", "Explain one rule of the linter, with examples."),
    ), ""),
    ("Build-system helpers", (
        ("--print-include-dir", "Print the directory of pencil.h."),
        ("--cmake-dir", "Print the directory of pencilcc's CMake package: "
                        "cmake -DPENCIL_DIR=\"$(pencilcc --cmake-dir)\"."),
        ("--show-cc-args=WHAT", "Print what a plain C compiler needs to build PENCIL code "
                                "and to link what pencilcc built: INCLUDE_DIRS, DEFFLAGS, "
                                "LIBS or LIBRARY_DIRS."),
        ("--show-listsep=SEP", "Separate the items of --show-cc-args with SEP (default a "
                               "space; ';' makes a CMake list)."),
        ("-MD, -MMD, -MF FILE, -MT T, -MQ T, -MP, -MG",
         "Dependency files as with gcc, naming your source and headers; -M and -MM "
         "alone run the host compiler."),
    ), ""),
    ("Environment", (
        ("PENCILCC_CC", "Host C compiler (default: $CC unless it is pencilcc, else cc); "
                        "may hold options: PENCILCC_CC=\"gcc-13 -m64\"."),
        ("PENCILCC_CACHE_DIR", "Compile cache directory (default $XDG_CACHE_HOME/pencilcc "
                               "or ~/.cache/pencilcc). The cache keeps the objects of files "
                               "with optimized regions, keyed by pencilcc, the host "
                               "compiler, the flags and the preprocessed source."),
        ("PENCILCC_CACHE_KEY_FILE", "The per-user secret key that authenticates cache "
                                    "entries (default $XDG_CONFIG_HOME/pencilcc/cache-key or "
                                    "~/.config/pencilcc/cache-key; yours, mode 0600)."),
        ("PENCILCC_NO_CACHE=1", "Do not use the compile cache."),
        ("PENCILCC_CLANG_RESOURCE_DIR", "clang's builtin headers for pencilcc's parser "
                                        "(immintrin.h, stddef.h, ...: a clang resource "
                                        "directory or its include/). Default: the newest "
                                        "installed clang's not newer than pencilcc's libclang "
                                        "(Debian: libclang-common-16-dev), else the host "
                                        "compiler's, which clang cannot read for intrinsics."),
        ("PENCILCC_NUM_THREADS, OMP_NUM_THREADS", "Threads of the parallel loops of a "
                                                  "program pencilcc built (read when it runs)."),
        ("PENCILCC_THREAD_WARM_MS", "Milliseconds from its start that such a program keeps idle "
                                    "CPUs awake for its first fork (overrides "
                                    "-fpencil-thread-warm-ms; 0: off)."),
        ("PENCILCC_DEVICE", "The OpenCL device of a program built with -fpencil-target=opencl "
                            "(read when it runs): unset, the first GPU, else the first device; "
                            "gpu, cpu or accelerator; P:D (platform and device indices); else "
                            "a text the platform and device name contain (runtime/README.md)."),
        ("PENCILCC_OPENCL_MAPPING", "Which variant of its tiled kernels such a program "
                                    "runs: gpu (tiles staged in local memory), cpu (one "
                                    "work-item per iteration, no local copies), auto (default: "
                                    "cpu where the device's local memory is global memory, "
                                    "as on PoCL; else gpu)."),
        ("PENCILCC_PROFILE=1", "Such a program profiles its kernels and transfers and prints "
                               "a report to stderr at exit."),
        ("PENCILCC_DEBUG=1", "Show Python tracebacks of internal errors instead of the "
                             "one-line report, and stop at the first one instead of falling "
                             "back to the host compiler."),
        ("TMPDIR", "Where the private temporary directory is made."),
    ), "Exit status: 0 on success; on compile errors 1 (or the host compiler's status); "
       "70 on an internal error of pencilcc (please report it)."),
)


def _wrap(text: str, indent: int) -> list[str]:
    return textwrap.wrap(text, WIDTH - indent, break_on_hyphens=False, break_long_words=False)


def _option_lines(option: str, description: str) -> list[str]:
    pad = " " * _OPTION_COLUMN
    lines = _wrap(description, _OPTION_COLUMN)
    head = f"  {option}"
    if len(head) + 1 <= _OPTION_COLUMN:
        out = [head.ljust(_OPTION_COLUMN) + lines[0]]
    else:
        out = [head, pad + lines[0]]
    return out + [pad + line for line in lines[1:]]


def help_text() -> str:
    out = [INTRO, "Examples:"]
    for command, what in EXAMPLES:
        out.append(f"  {command}")
        out.append(f"      {what}")
    for heading, options, note in SECTIONS:
        out += ["", f"{heading}:"]
        for option, description in options:
            out += _option_lines(option, description)
        if note:
            out += [""] + ["  " + line for line in _wrap(note, 2)]
    return "\n".join(out) + "\n"


def passes_text(pipeline: Sequence[str], where: str) -> str:
    """--print-passes: every registered pass (pencilcc's in -O3 order, then the plugins'), what it
    requires and provides, and `pipeline`, the one `where` names, as -fpencil-passes= takes it."""
    from clangpass.passes.manager import PASSES
    from clangpass.passes.registry import is_builtin
    from clangpass.targets import get_target

    ordered = list(dict.fromkeys([*get_target().pipeline(3), *sorted(PASSES)]))
    out = ["Passes (-fpencil-passes=NAME,... runs them in that order):"]
    for heading, builtin in (("", True), ("Passes of plugins:", False)):
        classes = [PASSES[n] for n in ordered if is_builtin(PASSES[n]) == builtin]
        if heading and classes:
            out += ["", heading]
        for cls in classes:
            summary = " ".join((cls.__doc__ or "").strip().split("\n\n")[0].split())
            facts = [f"Requires {', '.join(sorted(cls.requires))}." if cls.requires else "",
                     f"Provides {', '.join(sorted(cls.provides))}." if cls.provides else "",
                     "" if builtin else f"From {cls.__module__}" + (f", after {cls.after}." if cls.after else ".")]
            out += _option_lines(cls.name, " ".join(p for p in (summary, *facts) if p))
    # One line, however long: it is there to be copied.
    out += ["", f"The pipeline these options run ({where}):", "  -fpencil-passes=" + ",".join(pipeline)]
    return "\n".join(out) + "\n"


def version() -> str:
    from importlib import metadata      # only here: importing it costs every compile 20 ms

    try:
        return metadata.version("pencilcc")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _dependency_version(name: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "missing"


def version_text(host_line: str, host_name: str) -> str:
    deps = ", ".join(f"{name} {_dependency_version(name)}" for name in ("libclang", "islpy", "llvmlite"))
    return (f"pencilcc {version()} (PENCIL and polyhedral C compiler; {deps})\n"
            f"Host compiler ({host_name}): {host_line}\n")


def own_option_names() -> list[str]:
    """pencilcc's own options as --help lists them, each as typed before its value
    (`-fpencil-memory=`, `--dump-after=`, `--keep`): what an unknown option is compared with."""
    names: list[str] = []
    for _, options, _ in SECTIONS:
        for spelling, _ in options:
            for word in spelling.split(", "):
                word = word.split(" ", 1)[0]
                if word.startswith(("-fpencil", "-fno-pencil", "--")):
                    name = re.match(r"-[-\w]+=?", word)
                    if name:
                        names.append(name.group(0))
    return list(dict.fromkeys(names))
