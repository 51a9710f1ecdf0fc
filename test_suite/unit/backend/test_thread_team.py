# SPDX-License-Identifier: MIT
"""Thread teams (llvm_backend.cpu.parallel), the granularity model
(llvm_backend.cpu.granularity) and the `thread-team` pass.

A hand-built unit holds a time loop around thread-0 statements and two parallel
loops, under a `thread-team` mark; it is compiled, linked with a driver that runs
the same C compiled by cc -O0, and compared value for value with 1, 2 and 3
threads. The run-time granularity decision is checked at its exact boundary.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import textwrap
from dataclasses import replace
from pathlib import Path

import islpy as isl
import pytest

from clangpass.driver.cli import CommandLineError, parse_command_line
from clangpass.dumps import DumpSink
from clangpass.ir import nodes as N
from clangpass.ir import types as T
from clangpass.frontend import parse_file
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen import format_ast
from clangpass.poly.codegen_unit import TEAM_MARK, CodegenUnit, parallel_regions, thread_teams
from clangpass.regions import find_regions
from clangpass.resources import include_dir
from llvm_backend.cpu import emit_llvm_ir, emit_object, runtime_link_flags
from llvm_backend.cpu.granularity import region_registers, statement_work
from llvm_backend.cpu.warm import FIRST_FRACTION, WARM_ENV
from test_suite.unit.backend.units import statements_of

POLYBENCH = Path(__file__).resolve().parents[2] / "kernels" / "polybench"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="needs a host C compiler")

KERNEL = """
int omp_get_thread_num(void);
void k(int n, int steps, double A[n], double B[n], int who[n])
{
#pragma scop
  for (int t = 0; t < steps; t++) {
    double s;
    s = A[(t * 7) % n] * 0.125 + B[n - 1];
    for (int i = 0; i < n; i++)
      B[i] = A[i] * 0.5 + t + s;
    A[0] = A[0] + B[n / 2];
    for (int i = 0; i < n; i++) {
      A[i] = A[i] * 0.75 + B[n - 1 - i] * 0.25 + s;
      who[i] = omp_get_thread_num();
    }
  }
#pragma endscop
}
"""
DOMAIN = ("[n, steps] -> { S_0[t] : 0 <= t < steps; S_1[t, i] : 0 <= t < steps and 0 <= i < n; "
          "S_2[t] : 0 <= t < steps; S_3[t, i] : 0 <= t < steps and 0 <= i < n; "
          "S_4[t, i] : 0 <= t < steps and 0 <= i < n }")
BANDS = ["{ S_0[t] -> [t]; S_1[t, i] -> [t]; S_2[t] -> [t]; S_3[t, i] -> [t]; S_4[t, i] -> [t] }",
         "{ S_0[t] -> [0]; S_1[t, i] -> [1]; S_2[t] -> [2]; S_3[t, i] -> [3]; S_4[t, i] -> [3] }",
         "{ S_0[t] -> [0]; S_1[t, i] -> [i]; S_2[t] -> [0]; S_3[t, i] -> [i]; S_4[t, i] -> [i] }",
         "{ S_0[t] -> [0]; S_1[t, i] -> [0]; S_2[t] -> [0]; S_3[t, i] -> [0]; S_4[t, i] -> [1] }"]

MAIN = """
int main(int argc, char **argv)
{
  int n = atoi(argv[1]), steps = atoi(argv[2]);
  double (*A)[n] = malloc(2 * sizeof *A), (*B)[n] = malloc(2 * sizeof *B);
  int (*who)[n] = malloc(2 * sizeof *who);
  for (int i = 0; i < n; i++) { A[0][i] = A[1][i] = i * 0.25 - 3; B[0][i] = B[1][i] = 1.0 / (i + 1); }
  k_ref(n, steps, A[0], B[0], who[0]);
  if (argc > 3) {               /* milliseconds to wait before the region */
    struct timespec nap = {atoi(argv[3]) / 1000, atoi(argv[3]) % 1000 * 1000000L};
    nanosleep(&nap, 0);
  }
  OURS(n, steps, A[1], B[1], who[1]);
  for (int i = 0; i < n; i++) printf("%.17g %.17g\\n%.17g %.17g\\n", A[0][i], A[1][i], B[0][i], B[1][i]);
  for (int i = 0; i < n; i++) printf("who %d\\n", who[1][i]);
  char line[256];               /* the process's threads now (libgomp's, the warm start's spinners) */
  FILE *status = fopen("/proc/self/status", "r");
  while (status && fgets(line, sizeof line, status))
    if (strncmp(line, "Threads:", 8) == 0) printf("threads %d\\n", atoi(line + 8));
  if (status) fclose(status);
  cpu_set_t mask;               /* the main thread's CPUs after the region (a team gives them back) */
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) printf("mask %d\\n", CPU_COUNT(&mask));
  return 0;
}
"""


def _team_unit(path: Path, team: bool = True) -> CodegenUnit:
    """The kernel with the time loop (band 0) under a `thread-team` mark and band 2 parallel."""
    result = parse_file(str(path))
    region = next(r for r in find_regions(result.module) if r.function.name == "k")
    statements, local_decls = statements_of(region)
    ctx = isl.DEFAULT_CONTEXT
    node = isl.Schedule.from_domain(isl.UnionSet(DOMAIN, context=ctx)).get_root().child(0)
    for depth, band in enumerate(BANDS):
        node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(isl.UnionMap(band, context=ctx)))
        if depth == 0 and team:
            node = node.insert_mark(isl.Id(TEAM_MARK, context=ctx)).child(0)
        if depth == 2:
            node = node.insert_mark(isl.Id("parallel", context=ctx)).child(0)
        node = node.child(0)
    build = isl.AstBuild.from_context(isl.Set("[n, steps] -> { : n >= 1 }", context=ctx))
    ast = build.node_from_schedule(node.get_schedule())
    return CodegenUnit(region, ast, statements, local_decls, parallel_loops=2)


class Program:
    def __init__(self, tmp_path: Path, team: bool = True, kernel: str = KERNEL) -> None:
        self.dir = tmp_path
        source = tmp_path / "kernel.c"
        source.write_text("#include <pencil.h>\n" + textwrap.dedent(kernel))
        self.unit = _team_unit(source, team)
        reference = textwrap.dedent(kernel).replace("void k(int n,", "void k_ref(int n,")
        (tmp_path / "reference.c").write_text("#include <pencil.h>\n" + reference)

    def build(self, options: CompileOptions, tag: str) -> Path:
        obj = self.dir / f"ours{tag}.o"
        obj.write_bytes(emit_object([self.unit], options, "kernel"))
        driver = self.dir / f"driver{tag}.c"
        driver.write_text(
            '#define _GNU_SOURCE\n#include <sched.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n'
            '#include <time.h>\n#include "reference.c"\n'
            f"void {self.unit.region.symbol}(int, int, void *, void *, void *);\n"
            f"#define OURS {self.unit.region.symbol}\n" + textwrap.dedent(MAIN))
        exe = self.dir / f"prog{tag}"
        subprocess.run(["cc", "-O0", "-std=gnu99", "-w", f"-I{include_dir()}", str(driver), str(obj), "-o", str(exe),
                        *runtime_link_flags([self.unit], options), "-lm"], check=True, capture_output=True, text=True)
        return exe


def _run(exe: Path, n: int, steps: int, threads: int, env: dict[str, str] | None = None,
         wait_ms: int = 0) -> list[int]:
    """Run, check every value against the reference, return the thread of each i of the last loop."""
    return _run_counting(exe, n, steps, threads, env, wait_ms)[0]


def _run_counting(exe: Path, n: int, steps: int, threads: int, env: dict[str, str] | None = None,
                  wait_ms: int = 0) -> tuple[list[int], int]:
    """`_run`, and the number of threads the process had after the region."""
    args = [str(exe), str(n), str(steps)] + ([str(wait_ms)] if wait_ms else [])
    out = subprocess.run(args, check=True, capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PENCILCC_NUM_THREADS": str(threads), **(env or {})}).stdout.splitlines()
    pairs = [line.split() for line in out if not line.startswith(("who", "threads", "mask"))]
    assert len(pairs) == 2 * n and all(ref == ours for ref, ours in pairs), (n, steps, threads, pairs[:4])
    counts = [int(line.split()[1]) for line in out if line.startswith("threads")]
    return [int(line.split()[1]) for line in out if line.startswith("who")], counts[0]


def test_team_forks_once_and_separates_loops_with_barriers(tmp_path: Path) -> None:
    program = Program(tmp_path)
    assert parallel_regions(program.unit.ast) == 1 and thread_teams(program.unit.ast) == 1
    text = emit_llvm_ir([program.unit], CompileOptions(opt_level=0), "kernel")
    assert text.count("call void @GOMP_parallel(") == 1 and "call void @GOMP_barrier()" in text
    # Without the mark, each parallel loop forks on its own: two places start threads.
    (tmp_path / "plain").mkdir()
    plain = Program(tmp_path / "plain", team=False)
    assert parallel_regions(plain.unit.ast) == 2 and thread_teams(plain.unit.ast) == 0
    plain_text = emit_llvm_ir([plain.unit], CompileOptions(opt_level=0), "kernel")
    assert plain_text.count("call void @GOMP_parallel(") == 2 and "GOMP_barrier" not in plain_text


@pytest.mark.parametrize("n, steps", [(1, 1), (2, 3), (3, 2), (37, 5)])
def test_team_matches_reference_with_one_two_three_threads(tmp_path: Path, n: int, steps: int) -> None:
    exe = Program(tmp_path).build(CompileOptions(opt_level=2, thread_min_work=0), "forced")
    for threads in (1, 2, 3):
        who = _run(exe, n, steps, threads)
        # Every loop is shared: contiguous chunks of ceil(n / threads) iterations.
        chunk = -(-n // threads)
        assert who == [i // chunk for i in range(n)], (n, threads, who)


def _mask() -> list[int]:
    return sorted(os.sched_getaffinity(0))


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux and two CPUs")
def test_team_threads_are_pinned_while_it_runs_and_get_their_mask_back(tmp_path: Path) -> None:
    # The last loop records the CPU each iteration ran on instead of the thread number: with
    # two threads pinned (llvm_backend.cpu.affinity), thread 0's chunk runs on one CPU (the one
    # it forked on) and thread 1's on another, every time; after the region the main thread
    # may use all its CPUs again.
    kernel = KERNEL.replace("int omp_get_thread_num(void);", "int sched_getcpu(void);").replace(
        "who[i] = omp_get_thread_num();", "who[i] = sched_getcpu();")
    program = Program(tmp_path, kernel=kernel)
    options = CompileOptions(opt_level=2, thread_min_work=0, thread_pin=True)
    text = emit_llvm_ir([program.unit], replace(options, opt_level=0), "kernel")
    assert "@pencil.team.pin" in text and text.count("call i32 @sched_setaffinity(") == 2
    off = replace(options, thread_pin=False)
    off_text = emit_llvm_ir([program.unit], replace(off, opt_level=0), "kernel")
    assert "affinity" not in off_text and "pencil.team.pin" not in off_text
    exe = program.build(options, "pinned")
    cpus, n = _mask(), 40
    for _ in range(5):
        out = subprocess.run([str(exe), str(n), "3"], check=True, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PENCILCC_NUM_THREADS": "2"}).stdout.splitlines()
        who = [int(line.split()[1]) for line in out if line.startswith("who")]
        first, second = set(who[:n // 2]), set(who[n // 2:])
        assert len(first) == len(second) == 1 and first != second and first | second <= set(cpus), who
        assert [line for line in out if line.startswith("mask")] == [f"mask {len(cpus)}"]
    # More threads than CPUs in the mask (taskset to one CPU): nobody is pinned, the values still match.
    if shutil.which("taskset"):
        subprocess.run(["taskset", "-c", str(cpus[0]), str(exe), str(n), "3"], check=True, capture_output=True,
                       timeout=60, env={**os.environ, "PENCILCC_NUM_THREADS": "2"})
    assert set(_run(program.build(off, "unpinned"), n, 3, 2)) <= set(cpus)


def test_pin_option_on_the_command_line() -> None:
    assert not CompileOptions().thread_pin        # off by default (docs/passes/thread-team.md)
    assert parse_command_line(["-O3", "-fpencil-thread-pin", "-c", "a.c"]).options.thread_pin
    assert not parse_command_line(["-fpencil-thread-pin", "-fno-pencil-thread-pin", "-c", "a.c"]).options.thread_pin


def test_granularity_boundary_decides_threads_at_run_time(tmp_path: Path) -> None:
    program = Program(tmp_path)
    body = program.unit.statements
    registers = region_registers(program.unit)        # scalar locals weigh nothing (registers)
    per_iteration = statement_work(body["S_3"].body, registers) + statement_work(body["S_4"].body, registers)
    assert statement_work(body["S_1"].body, registers) < per_iteration
    # The second loop's estimate is n x per_iteration: at n = 40 it just reaches the threshold.
    exe = program.build(CompileOptions(opt_level=2, thread_min_work=40 * per_iteration, thread_start_work=0),
                        "model")
    assert set(_run(exe, 39, 3, 2)) == {0}
    assert set(_run(exe, 40, 3, 2)) == {0, 1}
    assert set(_run(exe, 40, 3, 1)) == {0}


def test_start_threshold_gates_the_whole_team(tmp_path: Path) -> None:
    # Above the per-loop threshold, the team still starts only when its whole work reaches the
    # start threshold: never at 10**12 units, always at 1.
    program = Program(tmp_path)
    # (No warm start here: in its window the start test is skipped, below.)
    never = program.build(CompileOptions(opt_level=2, thread_min_work=1, thread_start_work=10**12,
                                         thread_warm_ms=0), "never")
    always = program.build(CompileOptions(opt_level=2, thread_min_work=1, thread_start_work=1,
                                          thread_warm_ms=0), "always")
    assert set(_run(never, 40, 3, 2)) == {0}
    assert set(_run(always, 40, 3, 2)) == {0, 1}


def test_warm_window_skips_the_start_test_and_ends(tmp_path: Path) -> None:
    # The start test would keep this team on one thread; the warm start (a constructor that keeps
    # the idle CPU awake, llvm_backend.cpu.warm) lets it start threads inside its window, where
    # the program's first fork (it creates libgomp's threads) needs 1/FIRST_FRACTION of the start work.
    program = Program(tmp_path)
    body = program.unit.statements
    registers = region_registers(program.unit)
    per_iteration = statement_work(body["S_3"].body, registers) + statement_work(body["S_4"].body, registers)
    assert statement_work(body["S_1"].body, registers) < per_iteration
    # First fork at 1000 x per_iteration: n = 2000 over 3 steps weighs 6000 to 12000 x per_iteration
    # (above it, below the start work of 25000 x), n = 40 at most 240 x (below).
    assert CompileOptions().thread_warm_ms == 0          # off by default (docs/passes/thread-team.md)
    options = CompileOptions(opt_level=2, thread_min_work=1, thread_start_work=FIRST_FRACTION * 1000 * per_iteration,
                             thread_warm_ms=200)
    text = emit_llvm_ir([program.unit], options, "kernel")
    assert "@llvm.global_ctors" in text and "@pencilcc_warm_until" in text
    warm = program.build(options, "warm")
    big, small = 2000, 40
    # The gate also asks that the spinner ran in the last half millisecond (its CPU is free):
    # another process on this shared machine may hold that CPU, so a few runs are allowed.
    assert any(set(_run(warm, big, 3, 2)) == {0, 1} for _ in range(20))
    assert set(_run(warm, small, 3, 2)) == {0}          # too small for the first fork
    # Off when the program runs, or the region reached after the window: the start test applies,
    # and the spinner is gone by then (the process has its main thread only).
    assert _run_counting(warm, big, 3, 2, {WARM_ENV: "0"}) == ([0] * big, 1)
    assert _run_counting(warm, big, 3, 2, {WARM_ENV: "30"}, wait_ms=150) == ([0] * big, 1)
    # ... while inside a longer window it still runs (a spinner thread beside main), none on one thread.
    assert _run_counting(warm, small, 3, 1, {WARM_ENV: "5000"}, wait_ms=50) == ([0] * small, 1)
    assert _run_counting(warm, small, 3, 2, {WARM_ENV: "5000"}, wait_ms=50)[1] >= 2
    # Off when it is built: no constructor, no gate, no spinner.
    cold_options = replace(options, thread_warm_ms=0)
    cold_text = emit_llvm_ir([program.unit], cold_options, "kernel")
    assert "global_ctors" not in cold_text and "warm" not in cold_text
    cold = program.build(cold_options, "cold")
    assert _run_counting(cold, big, 3, 2, {WARM_ENV: "5000"}, wait_ms=50) == ([0] * big, 1)


TRIANGLE = """
void tri(int n, double A[n][n], double B[n][n])
{
#pragma scop
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      A[i][j] = B[i][j] * 2 + A[i][j];
#pragma endscop
}
"""


def test_triangular_loop_is_dealt_cyclically(tmp_path: Path) -> None:
    source = tmp_path / "tri.c"
    source.write_text(textwrap.dedent(TRIANGLE))
    result = parse_file(str(source))
    region = next(r for r in find_regions(result.module))
    statements, local_decls = statements_of(region)
    ctx = isl.DEFAULT_CONTEXT
    schedule = isl.Schedule.from_domain(isl.UnionSet("[n] -> { S_0[i, j] : 0 <= j <= i < n }", context=ctx))
    node = schedule.get_root().child(0)
    node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(
        isl.UnionMap("{ S_0[i, j] -> [i] }", context=ctx)))
    node = node.insert_mark(isl.Id("parallel", context=ctx)).child(0).child(0)
    node = node.insert_partial_schedule(isl.MultiUnionPwAff.from_union_map(
        isl.UnionMap("{ S_0[i, j] -> [j] }", context=ctx)))
    ast = isl.AstBuild.from_context(isl.Set("[n] -> { : }", context=ctx)).node_from_schedule(node.get_schedule())
    unit = CodegenUnit(region, ast, statements, local_decls, parallel_loops=1)
    text = emit_llvm_ir([unit], CompileOptions(opt_level=0, thread_min_work=0), "kernel")
    assert "pencil.uneven" in text
    obj = tmp_path / "tri.o"
    obj.write_bytes(emit_object([unit], CompileOptions(opt_level=2, thread_min_work=0), "kernel"))
    driver = tmp_path / "driver.c"
    driver.write_text(textwrap.dedent(f"""
        #include <stdio.h>
        #include "tri.c"
        void {unit.region.symbol}(int, void *, void *);
        int main(void) {{
          enum {{ N = 29 }};
          static double A[2][N][N], B[N][N];
          for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) {{ A[0][i][j] = A[1][i][j] = i - j; B[i][j] = j; }}
          tri(N, A[0], B);
          {unit.region.symbol}(N, A[1], B);
          for (int i = 0; i < N; i++) for (int j = 0; j < N; j++) printf("%.17g %.17g\\n", A[0][i][j], A[1][i][j]);
          return 0;
        }}"""))
    exe = tmp_path / "tri"
    subprocess.run(["cc", "-O0", "-std=gnu99", "-w", str(driver), str(obj), "-o", str(exe), "-fopenmp"],
                   check=True, capture_output=True, text=True)
    for threads in ("1", "2", "3"):
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True, timeout=60,
                             env={**os.environ, "PENCILCC_NUM_THREADS": threads}).stdout.split("\n")
        pairs = [line.split() for line in out if line]
        assert len(pairs) == 29 * 29 and all(a == b for a, b in pairs), threads


def _outcome(path: Path, options: CompileOptions):
    result = parse_file(str(path))
    region = next(r for r in find_regions(result.module))
    return optimise_region(region, result.module, options, DumpSink(stages=frozenset()))


def test_pass_marks_the_sequential_loop_around_parallel_loops() -> None:
    # adi: the time loop is sequential (each step reads the previous one), the sweeps inside are
    # parallel. (durbin served here until its function-scope scalars became region locals: the
    # relaxed schedule fuses its z and y updates with a shift, and neither loop is parallel.)
    source = POLYBENCH / "adi.c"
    outcome = _outcome(source, CompileOptions(opt_level=3, tile_size=32))
    assert outcome.status == "optimized", outcome.reason
    lines = [line.strip() for line in format_ast(outcome.unit).splitlines()]
    assert thread_teams(outcome.unit.ast) == 1 and outcome.thread_teams == 1, lines
    assert lines.count("// thread-team") == 1 and lines.count("// parallel") >= 1, lines
    team = lines.index("// thread-team")
    assert lines.index("// parallel") > team + 1, lines
    assert outcome.parallel_regions == 1 and outcome.facts["parallel_loops"] >= 1, lines
    without = _outcome(source, CompileOptions(opt_level=3, tile_size=32, disabled_passes=frozenset({"thread-team"})))
    assert without.thread_teams == 0 and without.parallel_regions == without.facts["parallel_loops"] >= 1
    assert "// thread-team" not in format_ast(without.unit)
    sequential = _outcome(source, CompileOptions(opt_level=3, tile_size=32, parallel=False))
    assert sequential.thread_teams == 0 and sequential.parallel_regions == 0


def test_pass_makes_one_team_of_a_sequence_of_parallel_loops() -> None:
    # deriche: six row and column sweeps, each a parallel loop, one after the other with scalar
    # statements between them and no loop around them. One team above the sequence starts the
    # threads once per call and weighs the work of all six against the first fork.
    source = POLYBENCH / "deriche.c"
    outcome = _outcome(source, CompileOptions(opt_level=3))
    assert outcome.status == "optimized", outcome.reason
    lines = [line.strip() for line in format_ast(outcome.unit).splitlines()]
    assert lines.index("// thread-team") < lines.index("{") < lines.index("// parallel"), lines
    assert outcome.thread_teams == 1 and outcome.parallel_regions == 1, lines
    assert outcome.facts["parallel_loops"] >= 4, lines
    without = _outcome(source, CompileOptions(opt_level=3, disabled_passes=frozenset({"thread-team"})))
    assert without.thread_teams == 0 and without.parallel_regions == without.facts["parallel_loops"] == outcome.facts["parallel_loops"]


def test_threshold_option_on_the_command_line() -> None:
    config = parse_command_line(["-O3", "-fpencil-thread-min-work=5000", "-c", "a.c"])
    assert config.options.thread_min_work == 5000
    assert not any("thread-min-work" in arg for arg in (*config.host_args, *config.passthrough_args))
    assert parse_command_line(["-O3", "-c", "a.c"]).options.thread_min_work == CompileOptions().thread_min_work > 0
    assert parse_command_line(["-fpencil-thread-min-work=0", "-c", "a.c"]).options.thread_min_work == 0
    with pytest.raises(CommandLineError, match="thread-min-work"):
        parse_command_line(["-fpencil-thread-min-work=lots", "-c", "a.c"])


def test_an_opaque_loop_counts_its_body_unknown_trips_times(tmp_path: Path) -> None:
    """A row loop with array-valued bounds is one statement (an opaque loop): its work is its
    header's expressions plus UNKNOWN_TRIPS times its body's, not one pass over them."""
    from clangpass.ir import nodes as N
    from clangpass.poly.extract import extract_scop
    from llvm_backend.cpu.granularity import UNKNOWN_TRIPS

    source = tmp_path / "rows.c"
    source.write_text("void rows(int n, int m, const int p[static const restrict n + 1],\n"
                      "          const double v[static const restrict m], double y[static const restrict n])\n"
                      "{\n  for (int i = 0; i < n; i++)\n"
                      "    for (int k = p[i]; k < p[i + 1]; k++)\n      y[i] += v[k];\n}\n")
    module = parse_file(str(source)).module
    scop = extract_scop(find_regions(module)[0], module, isl.Context())
    [stmt] = scop.compute_statements
    loop = stmt.body
    assert stmt.opaque and isinstance(loop, N.For)
    header = statement_work(loop.init) + statement_work(N.ExprStmt(loop.cond)) + statement_work(N.ExprStmt(loop.step))
    assert statement_work(loop) == header + UNKNOWN_TRIPS * statement_work(loop.body)


def test_three_address_code_weighs_what_its_expression_weighs() -> None:
    # z[i] = y[i] + alpha * y[j]  against  t1 = alpha * y[j]; t2 = y[i] + t1; z[i] = t2;
    def ref(name: str) -> N.VarRef:
        return N.VarRef(name, type=T.DOUBLE)

    def element(array: str, index: str) -> N.Subscript:
        return N.Subscript(N.VarRef(array, type=T.DOUBLE), N.VarRef(index, type=T.LONG), type=T.DOUBLE)

    def assign(target: N.Expr, value: N.Expr) -> N.ExprStmt:
        return N.ExprStmt(N.Assign("=", target, value, type=T.DOUBLE))

    def binary(op: str, lhs: N.Expr, rhs: N.Expr) -> N.Binary:
        return N.Binary(op, lhs, rhs, type=T.DOUBLE)

    whole = assign(element("z", "i"), binary("+", element("y", "i"), binary("*", ref("alpha"), element("y", "j"))))
    lowered = N.Compound((assign(ref("t1"), binary("*", ref("alpha"), element("y", "j"))),
                          assign(ref("t2"), binary("+", element("y", "i"), ref("t1"))),
                          assign(element("z", "i"), ref("t2"))))
    registers = frozenset({"t1", "t2"})
    assert statement_work(lowered, registers) == statement_work(whole, registers)
    assert statement_work(lowered) > statement_work(whole)     # node by node, the temporaries weigh
