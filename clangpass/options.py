# SPDX-License-Identifier: MIT
"""`CompileOptions`: every knob of the compilation pipeline, in one frozen value.

The driver builds it from the command line; passes and back ends read it and
never look at argv or the environment themselves.
"""
from __future__ import annotations

from dataclasses import dataclass

from clangpass.poly.budget import MAX_LOOP_DEPTH, MAX_STATEMENTS
from clangpass.tile_spec import TileSizeRule
from clangpass.prefix_map import PrefixMap


@dataclass(frozen=True)
class CompileOptions:
    opt_level: int = 2
    """0..3 (-Os/-Oz count as 2). -O0/-O1 keep the original schedule; -O2/-O3 reschedule, tile and parallelise."""

    tile_size: int | None = None
    """Tile size for every tiled band dimension (--tile-size=N); 0 disables tiling; None: sizes
    per band from the cache model (clangpass.poly.tile_sizes)."""

    tile_sizes: tuple[TileSizeRule, ...] = ()
    """-fpencil-tile-sizes=: sizes per region and band (clangpass.tile_spec), before `tile_size`;
    on the OpenCL target the work-group sizes of kernels."""

    tuned_tile_sizes: tuple[TileSizeRule, ...] = ()
    """The sizes `pencilcc-tune` cached for the input being compiled on this machine's device
    (clangpass.tuning; the driver fills it per input): used where no flag gives sizes."""

    use_tuned: bool = True
    """Look the input up in the tuning cache (-fno-pencil-tuned: do not; clangpass.tuning)."""

    cache_sizes: tuple[int, ...] = ()
    """Data-cache sizes in bytes, L1 first, for the tile-size model (--cache-sizes=32K,1M,32M);
    empty: the host's, from sysfs."""

    target: str = "cpu"
    """The target of optimized regions (-fpencil-target=): 'cpu' (llvm_backend.cpu, LLVM for the host)
    or 'opencl' (llvm_backend.opencl: parallel loops as OpenCL kernels, run through runtime/)."""

    parallel: bool = True
    """Run outermost coincident loops on threads (-fno-pencil-parallel disables)."""

    exact_reductions: bool = True
    """Let the updates of one integer array element with one exact operator (clangpass.poly.exact_reductions)
    run in any order when scheduling, on targets that use it (-fno-pencil-exact-reductions disables)."""

    thread_min_work: int = 200_000
    """Granularity model (llvm_backend.cpu.granularity): a parallel loop runs on threads only
    when its estimated work, in IR expression nodes executed, reaches this at run time
    (-fpencil-thread-min-work=N; 0: every parallel loop runs on threads). Measured in
    docs/passes/thread-team.md."""

    thread_start_work: int = 500_000_000
    """Granularity model, first fork: threads start for a team (or a lone parallel loop) only when
    its whole estimated work reaches this too (-fpencil-thread-start-work=N; 0: no such test).
    A fork that must wake a sleeping thread costs milliseconds on a VM's idle vCPU, against the
    microseconds of a warm one; measured in docs/passes/thread-team.md."""

    thread_pin: bool = False
    """Each thread of a started team is bound to a CPU of its own while the team runs, and gets
    its CPU mask back after (llvm_backend.cpu.affinity; Linux; -fpencil-thread-pin). Off by
    default: measured alone, a pinned two-thread team of a few milliseconds was faster than an
    unpinned one and still slower than one thread (docs/passes/thread-team.md, "Pinned teams")."""

    thread_warm_ms: int = 0
    """Warm start (llvm_backend.cpu.warm), off by default (0; docs/passes/thread-team.md, "The warm
    start": at LARGE atax the forked team ran 2.2 ms in some runs and 20 to 50 ms in others): a program whose regions may fork keeps its idle CPUs
    awake (SCHED_IDLE spinners) for this many milliseconds from its start, and inside that window,
    while the spinners find their CPUs idle, a team starts threads when the per-loop threshold says
    so, without the start test (the program's first fork: 1/25 of the start work)
    (-fpencil-thread-warm-ms=N; 0: no spinners, the start test always; PENCILCC_THREAD_WARM_MS
    overrides N when the program runs). Measured in docs/passes/thread-team.md."""

    fusion: str = "auto"
    """-fpencil-fusion=: 'auto' (schedule with maximal and minimal fusion, keep the one the fusion
    model of clangpass.poly.fusion prefers), or 'max'/'min' (isl's scheduler with that fusion only)."""

    cluster: str = "none"
    """-fpencil-cluster=: statement clustering before scheduling (clangpass.passes.cluster_stmts,
    thesis ch. 3): 'none' (default; a region of more than budget.CLUSTER_ABOVE_STATEMENTS statements
    (CLUSTER_ABOVE_RELAXED_STATEMENTS with relaxed false dependences),
    or whose scheduling exceeds the isl budget, gets 'bb' all the same), 'scc' (dense strongly
    connected components within a basic block) or 'bb' (whole basic blocks); measured in
    docs/passes/clustering.md."""

    cluster_decision: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    """-fpencil-cluster-decision=FILE, read by the driver: (region label, clusters of statement
    names) pairs, label '*' for every region. Checked for validity; overrides `cluster`."""

    save_schedule_dir: str = ""
    """-fpencil-save-schedule=DIR: the driver writes the final schedule tree of every optimized region
    there, as isl's YAML (clangpass.poly.schedule_files; '' : none)."""

    report_file: str = ""
    """-fpencil-report=FILE: the driver writes an HTML page of every region there
    (clangpass.report_html); each optimized region then keeps its final schedule tree, its loops
    (clangpass.poly.schedule_loops) and its statements' lines for it ('' : none)."""
    emit_c: str = ""
    """-fpencil-emit-c=FILE: the driver writes the translation unit as C99 with every optimized region
    replaced by its code (clangpass.emit_c); the compile core then prints each optimized region
    (`RegionOutcome.c_source`); '' : none."""

    load_schedule_dir: str = ""
    """-fpencil-load-schedule=DIR: a region whose schedule file is in DIR gets that schedule, checked
    against its dependences (pass `load-schedule`); '' : none."""

    loaded_schedules: tuple[tuple[str, str], ...] = ()
    """The schedule files of `load_schedule_dir`, read by the driver: (file name, contents) pairs
    (their contents are thus part of the compile cache's key)."""

    source_order: str = "streams"
    """-fpencil-source-order=: when the `source-order` pass gives the region its source order back:
    'gain' when the schedule has no tiled band, parallel loop or wavefront; 'streams' (default) also
    when it reads a matrix of a two-deep region from memory more often than the source order does
    (clangpass.poly.memory_streams; measured in docs/passes/source-order.md)."""

    max_coefficient: int = -1
    """isl schedule_max_coefficient (-1: unbounded)."""

    outer_coincidence: bool = False
    """isl schedule_outer_coincidence."""

    isl_max_operations: int = 2_000_000
    """Bound on isl operations per region (dependence analysis, scheduling); when exceeded the
    region keeps its original schedule (scheduling) or falls back to the host compiler (analysis)."""

    max_statements: int = MAX_STATEMENTS
    """-fpencil-max-statements=N: a region of more statements falls back to the host compiler
    before it is analysed (0: no bound; measured at clangpass.poly.budget.MAX_STATEMENTS)."""

    max_loop_depth: int = MAX_LOOP_DEPTH
    """-fpencil-max-loop-depth=N: a region with loops nested deeper falls back to the host compiler
    before it is analysed (0: no bound; measured at clangpass.poly.budget.MAX_LOOP_DEPTH)."""

    time_limit: float = 120.0
    """-fpencil-time-limit=SECONDS: CPU-time bound on the analysis of one region (0: none), with a
    wall-clock backstop of isolate.WALL_FACTOR times it: a safety net only, what the analysis does
    is bounded by the deterministic measures above (clangpass.poly.budget). The analysis of an
    input runs in a child process (clangpass.driver.isolate); a region that exceeds it is compiled
    by the host compiler, with a -Wpencil warning saying that this depends on the machine, and
    `nondeterministic` in its record."""

    memory_limit_mb: int = 4096
    """-fpencil-memory-limit=MiB: address-space bound (RLIMIT_AS) of that child (0: none); running
    out of it makes the input fall back to the host compiler, with a -Wpencil warning."""

    memory: str = "all"
    """-fpencil-memory=: the memory passes of a region (issue 26; docs/passes/): 'none', 'reuse'
    (update in place and in-place folds: an array's values stored in the memory of one that is
    dead, copies removed), 'contract' (arrays whose values die in the region get the smaller
    modular storage of their conflict set) or 'all' (default: both)."""

    detect: bool = False
    """-fpencil-detect: also optimize the static-affine loop nests of ordinary functions, found
    without pragmas (clangpass.detect); a nest not taken is a -Rpass-missed=pencil remark, never a
    warning. Off by default at every -O level (measured in docs/user-guide.md)."""

    disabled_passes: frozenset[str] = frozenset()
    """--disable-pass=NAME."""

    passes: tuple[str, ...] = ()
    """-fpencil-passes=NAME,...: the pass pipeline of every region, run as named (checked before any
    region, clangpass.passes.manager.build_pipeline) instead of the target's of the -O level; empty:
    the target's. The driver also puts here the target's pipeline with the passes of
    -fpencil-pass-plugin modules in it (clangpass.passes.plugins.with_plugin_passes)."""

    pass_plugins: tuple[str, ...] = ()
    """-fpencil-pass-plugin=MODULE: modules the driver imports for the passes they register."""

    dump: frozenset[str] = frozenset()
    """-fpencil-dump=ir,scop,deps,schedule,ast,llvm: stages to dump."""

    dump_dir: str = ""
    """-fpencil-dump-dir=DIR: one numbered file per dump instead of stderr."""

    dump_before: frozenset[str] = frozenset()
    dump_after: frozenset[str] = frozenset()

    time_report: bool = False
    """-ftime-report: per-pass timings on stderr."""

    march: str = ""
    """-march= value; 'native' selects the host CPU and its features."""

    fast_math: bool = False
    """-ffast-math: allow reassociation (vectorised reductions)."""

    fp_contract: bool = False
    """-ffp-contract=fast: let the back end fuse any multiply and add into one FMA in regions
    (the CPU target's `contract` flags, the OpenCL prelude's FP_CONTRACT ON), across
    statements too. The driver sets it as gcc does: -ffp-contract=fast, or no -ffp-contract=
    in a GNU dialect (no -std, -std=gnu*) at -O2 and above (clangpass.driver.cli)."""

    fp_contract_on: bool = False
    """-ffp-contract=on (clang's meaning; gcc has none): the CPU target fuses a multiply into
    the add or subtract of the same expression only (`a*b + c`, `x += a*b`), as one
    `llvm.fmuladd`; nothing fuses across statements or through a variable (C99 6.5p8). The
    driver's default with an ISO -std (c99, c11, ...) at -O2 and above. Ignored under
    `fp_contract` and -ffast-math, which fuse more; the OpenCL target treats it as off."""

    pic: bool = False
    """-fPIC/-fpic/-shared: emit position-independent code."""

    debug: bool = False
    """-g: the back end's object carries line information for the outlined regions."""

    debug_prefix_map: PrefixMap = PrefixMap()
    """-ffile-prefix-map=OLD=NEW and -fdebug-prefix-map=OLD=NEW, in command-line order
    (clangpass.prefix_map): the paths the object carries, the back end's debug information and
    the path region symbols are hashed from, as the map writes them."""
