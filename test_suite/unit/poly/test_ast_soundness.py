# SPDX-License-Identifier: MIT
"""Loops that isl's AST generator bounds by their own iterator, and the codegen fallback."""
from __future__ import annotations

import copy

import islpy as isl
import numpy as np

from clangpass.diagnostics import DiagnosticEngine
from clangpass.dumps import DumpSink
from clangpass.options import CompileOptions
from clangpass.passes import codegen as codegen_pass
from clangpass.passes.manager import optimise_region
from clangpass.poly.ast_soundness import Unreadable, _costly, scan_mismatches, strided_statements, self_bounded_loops
from clangpass.report import report_outcomes

from test_suite.e2e import harness
from test_suite.unit.poly.interpreter import AstInterpreter, RegionInterpreter, initial_memory
from test_suite.unit.poly.snippets import optimise, region_of


def fused_strided(options: str) -> str:
    """Three statements of one strided domain ((n + i) odd), fused with offsets i, i + 1 and n - i,
    then scanned along -i: the schedule shape that relax-false-deps let isl's scheduler build for
    random program seed 900227. `options`: the bands' AST build options."""
    band_options = f', options: "{options}"' if options else ""
    return ('{ domain: "[n] -> { A[i] : (1 + n + i) mod 2 = 0 and 4 <= i < n; B[i] : (1 + n + i) mod 2 = 0 and '
            '4 <= i < n; C[i] : (1 + n + i) mod 2 = 0 and 4 <= i < n }", '
            f'child: {{ schedule: "[n] -> [{{ A[i] -> [(i)]; B[i] -> [(1 + i)]; C[i] -> [(n - i)] }}]"{band_options}, '
            f'child: {{ schedule: "[n] -> [{{ A[i] -> [(-i)]; B[i] -> [(-i)]; C[i] -> [(-i)] }}]"{band_options} }} }} }}')


def _ast(schedule_text: str, ctx: isl.Context) -> isl.AstNode:
    schedule = isl.Schedule.read_from_str(ctx, schedule_text)
    return isl.AstBuild.from_context(isl.Set.read_from_str(ctx, "[n] -> { : n >= 0 }")).node_from_schedule(schedule)


def test_a_parity_turned_into_a_loop_condition_is_caught():
    ctx = isl.Context()
    atomic = fused_strided("{ atomic[0] }")
    problems = self_bounded_loops(_ast(atomic, ctx))
    # isl: `c1 < min(-3, -n + 2 * floord(n + c1 + 1, 2))`, false at the second value of c1.
    assert len(problems) == 1 and "floord(n + c1 + 1, 2)" in problems[0], problems
    ctx.set_ast_build_atomic_upper_bound(False)
    # The same parity as a separate conjunct: `c1 <= -4 && (n + c1 + 1) % 2 == 0`.
    assert len(self_bounded_loops(_ast(atomic, ctx))) == 1


def test_ordinary_bounds_are_accepted():
    ctx = isl.Context()
    # isl's default loop types on the same schedule: strides, `n >= c0 + 4` style bounds, guards.
    separated = _ast(fused_strided(""), ctx)
    assert "c0 + 4" in separated.to_C_str()
    assert self_bounded_loops(separated) == []
    triangular = _ast('{ domain: "[n] -> { S[i, j] : 0 <= i < n and i <= j < n and (i + j) mod 3 = 0 }", '
                      'child: { schedule: "[n] -> [{ S[i, j] -> [(i)] }, { S[i, j] -> [(j - i)] }]" } }', ctx)
    assert "for" in triangular.to_C_str()
    assert self_bounded_loops(triangular) == []


STRIDED_TEMPORARIES = harness.REPO_ROOT / "test_suite" / "kernels" / "three_address" / "strided_temporaries.c"


def test_strided_nest_with_temporaries_runs_every_instance(tmp_path):
    # Seed 900227 reduced: at -O3 the AST of the relaxed schedule dropped every iteration of the
    # strided loop but the first; whatever schedule is kept, the AST must do what the source does.
    region, module = region_of(tmp_path, STRIDED_TEMPORARIES.read_text())
    outcome = optimise_region(region, module, CompileOptions(opt_level=3), DumpSink())
    assert outcome.status == "optimized", outcome.reason
    assert self_bounded_loops(outcome.unit.ast) == []
    for n in (9, 10, 12):
        memory = initial_memory(region, n)
        source, optimised = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(source).run(region.body)
        AstInterpreter(outcome.unit, optimised).run()
        for name in ("A", "B", "C"):
            assert np.array_equal(source[name], optimised[name]), (n, name)


SCALE = """\
void f(int n, double A[static const restrict n], double alpha) {
  for (int i = 0; i < n; i++)
    A[i] = alpha * A[i];
}
"""


def test_an_unsound_atomic_ast_is_regenerated_with_isl_loop_types(tmp_path, monkeypatch):
    verdicts = iter([["loop over c0 bounded by itself"], []])
    monkeypatch.setattr(codegen_pass, "self_bounded_loops", lambda ast: next(verdicts))
    outcome = optimise(tmp_path, SCALE, opt_level=3)
    assert outcome.status == "optimized" and outcome.reason == ""
    assert outcome.facts["parallel_loops"] == 1
    assert next(verdicts, "all used") == "all used"


def test_an_unsound_ast_of_a_transformed_schedule_gives_the_source_order(tmp_path, monkeypatch):
    # Atomic loops, then isl's own loop types: both unsound; the source order's AST is sound.
    verdicts = iter([["loop over c0 bounded by itself: c0 = 0; c0 % 2 == 0"], ["again"], []])
    monkeypatch.setattr(codegen_pass, "self_bounded_loops", lambda ast: next(verdicts))
    outcome = optimise(tmp_path, SCALE, opt_level=3)
    assert outcome.status == "optimized"
    assert outcome.reason == ("unsound isl AST (loop over c0 bounded by itself: c0 = 0; c0 % 2 == 0): "
                              "original schedule used")
    assert outcome.facts["parallel_loops"] == 0 and outcome.facts["tiled_bands"] == 0
    # -Rpass-missed=pencil says so, although the region is optimized.
    for missed in (False, True):
        engine = DiagnosticEngine()
        report_outcomes(engine, [outcome], remarks=False, missed_remarks=missed)
        assert [d.message for d in engine.diagnostics] == (
            ["region in 'f' partly missed: " + outcome.reason] if missed else [])


def test_an_unsound_ast_of_the_source_order_leaves_the_region_to_the_host(tmp_path, monkeypatch):
    monkeypatch.setattr(codegen_pass, "self_bounded_loops", lambda ast: ["loop over c0 bounded by itself"])
    outcome = optimise(tmp_path, SCALE, opt_level=1)
    assert outcome.status == "fallback"
    assert outcome.reason == "unsound isl AST of the source order (loop over c0 bounded by itself)"


# ----------------------------------------------------------------------------- semantic check
CONTEXT = "[n] -> { : n >= 0 }"


def _mismatches(schedule_text: str, domain_text: str, ctx: isl.Context) -> list[str]:
    return scan_mismatches(_ast(schedule_text, ctx), isl.UnionSet.read_from_str(ctx, domain_text),
                           isl.Set.read_from_str(ctx, CONTEXT))


def test_an_exact_ast_runs_its_domain():
    ctx = isl.Context()
    for options in ("", "{ atomic[0] }", "{ separate[0] }"):
        text = fused_strided(options)
        domain = isl.Schedule.read_from_str(ctx, text).get_domain()
        if self_bounded_loops(_ast(text, ctx)) == []:
            assert _mismatches(text, str(domain), ctx) == [], options
    tiled = ('{ domain: "[n] -> { S[i, j] : 0 <= i < n and 0 <= j <= i; T[i] : 0 <= i < n and i mod 3 = 1 }", '
             'child: { schedule: "[n] -> [{ S[i, j] -> [(floor(i/4))]; T[i] -> [(floor(i/4))] }, '
             '{ S[i, j] -> [(i)]; T[i] -> [(i)] }]", child: { sequence: [ { filter: "{ S[i, j] }" }, '
             '{ filter: "{ T[i] }" } ] } } }')
    domain = "[n] -> { S[i, j] : 0 <= i < n and 0 <= j <= i; T[i] : 0 <= i < n and i mod 3 = 1 }"
    assert _mismatches(tiled, domain, ctx) == []


def test_missing_extra_and_repeated_instances_are_found():
    ctx = isl.Context()
    schedule = ('{ domain: "[n] -> { S[i] : 0 <= i < n and i mod 2 = 0 }", '
                'child: { schedule: "[n] -> [{ S[i] -> [(i)] }]" } }')
    assert _mismatches(schedule, "[n] -> { S[i] : 0 <= i < n and i mod 2 = 0 }", ctx) == []
    # The AST is compared with another domain: what it runs beyond it, and what it misses.
    extra = _mismatches(schedule, "[n] -> { S[i] : 0 <= i < n and i mod 4 = 0 }", ctx)
    assert len(extra) == 1 and extra[0].startswith("S runs instances outside its domain"), extra
    missed = _mismatches(schedule, "[n] -> { S[i] : 0 <= i < n }", ctx)
    assert len(missed) == 1 and missed[0].startswith("S misses instances of its domain"), missed
    assert _mismatches(schedule, "[n] -> { S[i] : 0 <= i < n and i mod 2 = 0; T[i] : 0 <= i < n }", ctx) \
        == ["T is never called"]
    # Two calls of the same instance (a sequence whose filters overlap).
    twice = ('{ domain: "[n] -> { S[i] : 0 <= i < n }", child: { sequence: [ { filter: "[n] -> { S[i] : i < 5 }" }, '
             '{ filter: "[n] -> { S[i] : i >= 3 }" } ] } }')
    assert "S runs some instances at two calls" in _mismatches(twice, "[n] -> { S[i] : 0 <= i < n }", ctx)


def test_only_strided_statements_are_read_back():
    ctx = isl.Context()
    domain = isl.UnionSet.read_from_str(ctx, "[n] -> { S[i] : 0 <= i < n and i mod 2 = 1; "
                                             "T[i] : exists (k : i = 3k) and 0 <= i < n; U[i, j] : 0 <= i < n and 0 <= j < i }")
    assert strided_statements(domain) == {"S", "T"}
    # Only S is read back: the AST runs U nowhere, which goes unnoticed.
    schedule = ('{ domain: "[n] -> { S[i] : 0 <= i < n and i mod 2 = 1 }", '
                'child: { schedule: "[n] -> [{ S[i] -> [(i)] }]" } }')
    both = "[n] -> { S[i] : 0 <= i < n and i mod 2 = 1; U[i, j] : 0 <= i < n and 0 <= j < i }"
    assert scan_mismatches(_ast(schedule, ctx), isl.UnionSet.read_from_str(ctx, both),
                           isl.Set.read_from_str(ctx, CONTEXT), frozenset({"S"})) == []
    assert _mismatches(schedule, both, ctx) == ["U is never called"]


def test_unions_too_costly_to_compare_are_not_vouched_for(tmp_path, monkeypatch):
    ctx = isl.Context()
    # Divisions by a tile size and a skew (cost grows with their number and size) ...
    tiles = isl.Set.read_from_str(ctx, "{ [i, j] : i mod 256 = 7 and j mod 768 = 3 and 0 <= i < 100; "
                                       "[i, j] : i mod 256 = 9 and j mod 768 = 1 and 200 <= i < 300; "
                                       "[i, j] : i mod 256 = 150 and j mod 768 = 2 and 400 <= i < 500 }")
    assert _costly(tiles)
    # ... not parities: seed 107's and 900227's shapes stay readable.
    parities = isl.Set.read_from_str(ctx, "{ [i, j] : (i + j) mod 2 = 0 and i mod 2 = 1 and 0 <= i, j < 9 }")
    assert not _costly(parities)
    # An AST that cannot be read back: a transformed schedule gives way to the source order.
    monkeypatch.setattr(codegen_pass, "strided_statements", lambda domain: frozenset({"S_0"}))
    def unreadable(*args):
        raise Unreadable("the instances of S_0 need 18 integer divisions by up to 768")
    monkeypatch.setattr(codegen_pass, "scan_mismatches", unreadable)
    outcome = optimise(tmp_path, SCALE, opt_level=3)
    assert outcome.status == "optimized" and outcome.facts["parallel_loops"] == 0
    assert outcome.reason == ("unsound isl AST (AST of a strided domain not verified: the instances of S_0 "
                              "need 18 integer divisions by up to 768): original schedule used")
