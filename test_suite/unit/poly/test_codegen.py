# SPDX-License-Identifier: MIT
"""AST generation (clangpass.poly.codegen): the CodegenUnit contract with the back ends."""
from __future__ import annotations

import copy

import islpy as isl
import numpy as np
import pytest

from clangpass.dumps import DumpSink
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.codegen import format_ast, generate_ast, statement_groups

from test_suite.unit.poly.interpreter import AstInterpreter, RegionInterpreter, initial_memory
from test_suite.unit.poly.snippets import optimise, region_of, scop_of

SCALE = """\
void f(int n, double A[static const restrict n], double alpha) {
  for (int i = 0; i < n; i++)
    A[i] = alpha * A[i];
}
"""


def test_ast_of_a_1d_loop(tmp_path):
    outcome = optimise(tmp_path, SCALE, opt_level=3)
    unit = outcome.unit
    assert format_ast(unit).splitlines() == [
        "// parallel",
        "for (int c0 = 0; c0 < n; c0 += 1)",
        "  S_0(c0);",
    ]
    assert unit.parallel_loops == 1 and outcome.facts["tiled_bands"] == 0
    assert unit.ast.get_type() == isl.ast_node_type.mark
    loop = unit.ast.mark_get_node()
    assert loop.get_type() == isl.ast_node_type.for_
    call = loop.for_get_body().user_get_expr()
    assert call.get_op_arg(0).get_id().get_name() == "S_0"
    body = unit.statements["S_0"]
    assert body.iterators == ("i",) and isinstance(body.body, N.ExprStmt)
    assert unit.region is outcome.region


def test_locals_and_kills(tmp_path):
    outcome = optimise(tmp_path, """\
        void f(int n, double A[static const restrict n]) {
          for (int i = 0; i < n; i++) {
            double t;
            t = A[i];
            A[i] = t * t;
          }
        }
    """, opt_level=1)
    unit = outcome.unit
    assert [(d.name, d.init) for d in unit.locals] == [("t", None)]
    # The kill of the uninitialised `t` is not executed code. S_0 and S_1 run together
    # (same loop, same domain, same dates): one call of S_0 runs both bodies in order.
    assert set(unit.statements) == {"S_0", "S_1"}
    assert unit.groups == {"S_0": ("S_0", "S_1")}
    group = unit.statements["S_0"].body
    assert isinstance(group, N.Compound) and len(group.body) == 2
    assert isinstance(group.body[0], N.ExprStmt) and group.body[1] is unit.statements["S_1"].body
    assert format_ast(unit).splitlines() == [
        "// S_0 runs S_0; S_1",
        "for (int c0 = 0; c0 < n; c0 += 1)",
        "  S_0(c0);",
    ]


def test_iterators_do_not_shadow_parameters(tmp_path):
    outcome = optimise(tmp_path, """\
        void f(int c0, double A[static const restrict c0]) {
          for (int i = 0; i < c0; i++)
            A[i] = 0.0;
        }
    """, opt_level=1)
    assert format_ast(outcome.unit).splitlines() == [
        "for (int __pencil_c0 = 0; __pencil_c0 < c0; __pencil_c0 += 1)",
        "  S_0(__pencil_c0);",
    ]


ISL_SEPARATION_BUG = """\
void kernel(int n, double C[n][n], double E[n][n][n], double s0) {
  int i0, i1, i2;
#pragma scop
  for (i0 = 0; i0 <= n - 2; i0++) {
    for (i1 = 0; i1 < n; i1++)
      for (i2 = 0; i2 < i0; i2++)
        C[i2][i2] = C[i2 + 2][i0] + E[n - i1 - 1][i1][i0];
    for (i1 = 0; i1 < n - 2 - i0; i1++) {
      E[i1][i0 + i1][i1] *= 0.75;
      C[i0][i1] = s0;
    }
  }
#pragma endscop
}
"""


def test_tiled_ast_runs_every_instance(tmp_path):
    # With isl's default loop types, the AST of this tiled schedule skips instances of the
    # E statement for n >= 6 (found by the random differential tests); atomic loops do not.
    # keep-streams would leave its two-deep sequential band untiled: this test is about tiles.
    region, module = region_of(tmp_path, ISL_SEPARATION_BUG)
    options = CompileOptions(opt_level=3, tile_size=3, disabled_passes=frozenset({"keep-streams"}))
    outcome = optimise_region(region, module, options, DumpSink())
    assert outcome.facts["tiled_bands"] >= 1
    for n in (5, 6, 7):
        memory = initial_memory(region, n)
        source, optimised = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(source).run(region.body)
        AstInterpreter(outcome.unit, optimised).run()
        for name in ("C", "E"):
            assert np.array_equal(source[name], optimised[name]), (n, name)


def test_ast_generation_failure_falls_back_to_the_source_order(tmp_path, monkeypatch):
    from clangpass.passes import codegen as codegen_pass

    real = codegen_pass.generate_ast

    def fails_on_transformed(scop, unordered_updates):
        if not scop.schedule.plain_is_equal(scop.original_compute_schedule()):
            raise isl.Error("call to isl_ast_build_node_from_schedule failed: unbounded optimum in /isl.c:1")
        return real(scop, unordered_updates)

    monkeypatch.setattr(codegen_pass, "generate_ast", fails_on_transformed)
    outcome = optimise(tmp_path, SCALE.replace("A[i] = alpha * A[i];", "A[i] = alpha * A[i];\n  "
                                                                      "for (int i = 1; i < n; i++) A[i] += A[i - 1];"),
                       opt_level=3)
    assert outcome.status == "optimized"
    assert outcome.reason == "isl AST generation failed (unbounded optimum): original schedule used"
    assert outcome.facts["parallel_loops"] == 0 and outcome.facts["tiled_bands"] == 0


def test_statements_of_other_domains_or_dates_are_not_grouped(tmp_path):
    outcome = optimise(tmp_path, """\
        void f(int n, double A[static const restrict n], double B[static const restrict n]) {
          for (int i = 0; i < n; i++) {
            double t, u;
            t = A[i];
            if (i > 0)
              u = t + 1.0;
            B[i] = t;
            A[i] = 2.0 * t;
          }
          for (int i = 0; i < n; i++)
            B[i] += 1.0;
        }
    """, opt_level=1)
    unit = outcome.unit
    # S_1 (guarded) has a smaller domain and separates S_0 from S_2; S_4 has other dates.
    assert unit.groups == {"S_2": ("S_2", "S_3")}
    assert format_ast(unit).splitlines()[0] == "// S_2 runs S_2; S_3"


def test_a_statement_split_over_two_leaves_is_not_grouped(tmp_path):
    scop = scop_of(tmp_path, """\
        void f(int n, double A[static const restrict n], double B[static const restrict n]) {
          for (int i = 0; i < n; i++) {
            A[i] = 1.0;
            if (i < 5)
              B[i] = 2.0;
          }
        }
    """)
    ctx = scop.context.get_ctx()
    band = isl.MultiUnionPwAff.read_from_str(ctx, "[n] -> [{ S_0[i] -> [(i)]; S_1[i] -> [(i)] }]")
    filters = isl.UnionSetList.alloc(ctx, 3)
    for text in ("[n] -> { S_1[i] }", "[n] -> { S_0[i] : i < 5 }", "[n] -> { S_0[i] : i >= 5 }"):
        filters = filters.add(isl.UnionSet.read_from_str(ctx, text))
    node = isl.Schedule.from_domain(scop.domain).get_root().child(0).insert_partial_schedule(band)
    schedule = node.child(0).insert_sequence(filters).get_schedule()
    # S_1 and the first part of S_0 have the same instances and dates, but grouping them would
    # drop S_0 from the AST, its second leaf included.
    assert statement_groups(scop, schedule, frozenset()) == {}



THREE_LOOPS = """\
void f(int n, double B[static const restrict n], double C[static const restrict n],
       double D[static const restrict n]) {
  for (int i = 0; i < n; i++)
    B[i] = 1.0;
  for (int i = 0; i < n; i++)
    C[i] = B[i] + 2.0;
  for (int i = 0; i < n; i++)
    D[i] = 3.0;
}
"""

# Two coincident bands marked parallel. The first runs S_1 all at its value VALUE: isl
# generates S_0's loop and S_1's apart, so that the mark is above a block.
SPLIT_BAND = """\
domain: "[n] -> { S_0[i] : 0 <= i < n; S_1[i] : 0 <= i < n; S_2[i] : 0 <= i < n }"
child:
  sequence:
  - filter: "[n] -> { S_0[i]; S_1[i] }"
    child:
      mark: "parallel"
      child:
        schedule: "[n] -> [{ S_0[i] -> [(i)]; S_1[i] -> [(VALUE)] }]"
        coincident: [ 1 ]
        child:
          sequence:
          - filter: "[n] -> { S_0[i] }"
          - filter: "[n] -> { S_1[i] }"
            child:
              schedule: "[n] -> [{ S_1[i] -> [(i)] }]"
  - filter: "[n] -> { S_2[i] }"
    child:
      mark: "parallel"
      child:
        schedule: "[n] -> [{ S_2[i] -> [(i)] }]"
        coincident: [ 1 ]
"""


@pytest.mark.parametrize("value, loops", [("n", 2), ("n - 1", 2), ("-1", 1)])
def test_a_band_split_around_statements_run_once(tmp_path, value, loops):
    # The contract wants a `parallel` mark above a for node. S_1 at the band's last value (n, or
    # n - 1 where S_0 runs too, before it) runs after S_0's loop: the same order with S_1 after
    # the band, and S_0's loop keeps its mark. At value -1, S_0's iterations all follow S_1:
    # that mark goes, and only it (PRE adi lost its four parallel loops to one such band).
    # (At -1 the schedule runs S_1 first: valid only where S_1 does not read B.)
    scop = scop_of(tmp_path, THREE_LOOPS if value != "-1" else THREE_LOOPS.replace("B[i] + 2.0", "2.0"))
    schedule = isl.Schedule.read_from_str(scop.context.get_ctx(), SPLIT_BAND.replace("VALUE", value))
    unit = generate_ast(scop.with_schedule(schedule), frozenset())
    text = format_ast(unit)
    assert unit.parallel_loops == loops and text.count("// parallel") == loops, text
    after = [line.strip() for line in text.rsplit("// parallel", 1)[1].strip().splitlines()]
    assert after == ["for (int c0 = 0; c0 < n; c0 += 1)", "S_2(c0);", "}"], text
    for n in (1, 6):
        memory = initial_memory(scop.region, n)
        expected, got = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(expected).run(scop.region.body)
        AstInterpreter(unit, got, reverse_parallel=True).run()
        for name in ("B", "C", "D"):
            assert np.array_equal(expected[name], got[name]), (name, n)
