# SPDX-License-Identifier: MIT
"""The PENCIL lint rules, one valid and one invalid snippet per rule, exact positions.

Every invalid snippet (`snippets/<rule>.bad*.c`) marks each expected diagnostic
with `// EXPECT: pencil-<rule>@<column>` on its line; the test requires exactly
those diagnostics, no more. Every valid snippet (`snippets/<rule>.ok.c`) must
produce no diagnostic at all.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from clangpass.diagnostics import DiagnosticEngine
from clangpass.frontend import parse_file
from clangpass.lint import LintOptions, lint_module
from clangpass.ir.callgraph import cycle_through, recursive_components
from clangpass.lint.rules import RULES, find_rule
from clangpass.lint.walker import spell
from snippet_harness import SNIPPETS, expected_diagnostics, found_diagnostics, lint_diagnostics

RULE_NAMES = sorted(rule_id[len("pencil-"):] for rule_id in RULES)
BAD_SNIPPETS = sorted(SNIPPETS.glob("*.bad*.c"))


def write(tmp_path: Path, source: str, name: str = "t.c") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    return path


@pytest.mark.parametrize("name", RULE_NAMES)
def test_every_rule_has_a_valid_and_an_invalid_snippet(name):
    assert (SNIPPETS / f"{name}.ok.c").is_file()
    bad = list(SNIPPETS.glob(f"{name}.bad*.c"))
    assert bad
    fired = {rule for path in bad for rule, _, _ in expected_diagnostics(path)}
    assert f"pencil-{name}" in fired


@pytest.mark.parametrize("path", sorted(SNIPPETS.glob("*.ok*.c")), ids=lambda p: p.name)
def test_valid_snippet_has_no_diagnostic(path):
    assert found_diagnostics(path) == set()


@pytest.mark.parametrize("path", BAD_SNIPPETS, ids=lambda p: p.name)
def test_invalid_snippet_reports_exactly_the_expected_diagnostics(path):
    expected = expected_diagnostics(path)
    assert expected
    assert found_diagnostics(path) == expected


def test_every_snippet_is_for_a_known_rule():
    for path in SNIPPETS.glob("*.c"):
        name = path.name.split(".")[0]
        assert name == "c-code" or f"pencil-{name}" in RULES, path.name


# ---------------------------------------------------------------------- registry
def test_rule_registry_is_complete_and_documented():
    for rule_id, rule in RULES.items():
        assert rule.id == rule_id and rule_id.startswith("pencil-")
        assert rule.severity in ("error", "warning")
        assert len(rule.explanation) > 80 and rule.title and rule.section
    warnings = {r.id for r in RULES.values() if r.severity == "warning"}
    assert warnings == {"pencil-linearized-subscript", "pencil-nonaffine-subscript", "pencil-reduction-extension"}


def test_find_rule_accepts_the_id_with_or_without_prefix():
    assert find_rule("pencil-goto") is RULES["pencil-goto"]
    assert find_rule("goto") is RULES["pencil-goto"]
    assert find_rule("no-such-rule") is None


# ---------------------------------------------------------------------- notes and messages
def test_recursion_note_names_the_cycle():
    diags = [d for d in lint_diagnostics(SNIPPETS / "recursion.bad.c") if d.id == "pencil-recursion"]
    notes = {(d.message, d.notes[0].message) for d in diags}
    assert notes == {
        ("recursive call to 'count_down'; PENCIL does not allow recursion", "call cycle: count_down -> count_down"),
        ("recursive call to 'pong'; PENCIL does not allow recursion", "call cycle: ping -> pong -> ping"),
        ("recursive call to 'ping'; PENCIL does not allow recursion", "call cycle: pong -> ping -> pong"),
    }
    assert all(d.notes[0].severity == "note" for d in diags)


def test_recursion_through_a_c_function_is_reported_in_the_pencil_function(tmp_path):
    path = write(tmp_path, """
        #include <pencil.h>
        int relay(int x);
        PENCIL int ping(int x)
        {
            return relay(x);
        }
        int relay(int x) __attribute__((const));
        int relay(int x) { return x > 0 ? ping(x - 1) : 0; }
    """)
    diags = lint_diagnostics(path)
    assert [(d.id, d.loc.line, d.loc.col) for d in diags] == [("pencil-recursion", 6, 12)]
    assert diags[0].notes[0].message == "call cycle: ping -> relay -> ping"


def test_loop_bound_note_points_at_the_write():
    diags = [d for d in lint_diagnostics(SNIPPETS / "for-bound.bad.c") if d.loc.line == 9]
    assert len(diags) == 1
    assert (diags[0].notes[0].loc.line, diags[0].notes[0].loc.col) == (10, 9)


def test_call_to_a_c_function_of_the_file_points_at_its_declaration():
    (diag,) = [d for d in lint_diagnostics(SNIPPETS / "call.bad.c") if "c_helper" in d.message]
    assert (diag.notes[0].loc.line, diag.notes[0].loc.col) == (4, 5)


def test_use_of_a_global_notes_its_declaration():
    diags = [d for d in lint_diagnostics(SNIPPETS / "global.bad.c") if d.message.startswith("PENCIL code uses")]
    assert [(d.loc.line, d.loc.col, [(n.severity, n.loc.line, n.loc.col, n.message) for n in d.notes])
            for d in diags] == [
        (11, 23, [("note", 5, 8, "'scale_factor' is declared here")]),
        (12, 5, [("note", 4, 5, "'counter' is declared here")]),
    ]


def test_bitfield_error_notes_the_field_declaration():
    diags = lint_diagnostics(SNIPPETS / "bitfield.bad.c")
    assert [(d.loc.line, [(n.loc.line, n.loc.col, n.message) for n in d.notes]) for d in diags] == [
        (7, [(4, 40, "field 'dirty' is declared here")]),
        (9, [(4, 40, "field 'dirty' is declared here")]),
    ]


def test_global_from_a_header_and_global_with_a_bitfield_note_their_declarations(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "g.h").write_text("extern double table[16];\n")
    path = write(tmp_path, """\
        #include <pencil.h>
        #include "g.h"
        struct flags { int value; unsigned dirty : 1; };
        const struct flags config = { 1, 0 };
        PENCIL void scale(int n, double A[pencil_array n])
        {
            for (int i = 0; i < n; i++)
                A[i] = A[i] * table[i % 16] + config.value;
        }
    """)
    diags = lint_diagnostics(path, parser_args=(f"-I{tmp_path / 'inc'}",))
    assert [(d.id, d.loc.line, d.loc.col) for d in diags] == [("pencil-global", 8, 23), ("pencil-bitfield", 8, 39)]
    table, config = diags
    assert [(n.loc.file, n.loc.line, n.loc.col, n.message) for n in table.notes] == [
        (str(tmp_path / "inc" / "g.h"), 1, 15, "'table' is declared here")]
    assert [(n.loc.line, n.loc.col, n.message) for n in config.notes] == [
        (4, 20, "'config' is declared here"), (3, 36, "field 'dirty' is declared here")]


def test_summary_signature_mismatch_notes_the_summary(tmp_path):
    (diag,) = [d for d in lint_diagnostics(SNIPPETS / "summary-signature.bad.c") if d.loc.line == 9]
    assert diag.message == ("parameter 2 of summary function 'three_summary' has type "
                            "'float[static const restrict n][n]', but 'double[n][n]' in 'three'")
    assert diag.notes[0].loc.line == 5


def test_subscript_messages_quote_the_source_expression():
    messages = {d.message for d in lint_diagnostics(SNIPPETS / "linearized-subscript.bad.c")}
    assert ("subscript 'i * m + j' of 'A' looks linearised ('i * m' multiplies an iterator by a "
            "non-constant); declare 'A' as a multi-dimensional array and index each dimension") in messages


# ---------------------------------------------------------------------- PENCIL scope
def test_only_pencil_code_is_checked_in_a_file_with_c_functions(tmp_path):
    path = write(tmp_path, """
        #include <pencil.h>
        void c_code(int n, int *p) { for (int i = 0; i != n; i += n) p[i] = *p; }
        PENCIL void k(int n, int A[pencil_array n]) { for (int i = 0; i != n; i++) A[i] = 0; }
    """)
    assert found_diagnostics(path) == {("pencil-for-cond", 4, 63)}


def test_a_pencil_file_makes_every_function_but_main_pencil(tmp_path):
    path = write(tmp_path, """
        void f(int n, int *p) { p[0] = n; }
        int main(void) { int x; f(1, &x); return x; }
    """, name="k.pencil.c")
    assert found_diagnostics(path) == {("pencil-pointer", 2, 20)}


def test_force_pencil_checks_every_function(tmp_path):
    path = write(tmp_path, "int twice(int x) { if (x < 0) return 0; return 2 * x; }\n")
    assert found_diagnostics(path) == set()
    diags = lint_diagnostics(path, force_pencil=True)
    assert [(d.id, d.loc.line, d.loc.col) for d in diags] == [("pencil-return", 1, 31)]


def test_force_pencil_does_not_make_a_prototype_pencil(tmp_path):
    path = write(tmp_path, """
        #include <math.h>
        extern void log_value(double v);
        double twice(double v) { log_value(v); return 2.0 * sqrt(v); }
    """)
    assert found_diagnostics(path) == set()
    diags = lint_diagnostics(path, force_pencil=True)
    assert [(d.id, d.loc.line, d.loc.col) for d in diags] == [("pencil-call", 4, 26)]
    assert (diags[0].notes[0].loc.line, diags[0].notes[0].loc.col) == (3, 13)


def test_summarised_c_function_body_is_not_checked_but_explicit_pencil_is(tmp_path):
    path = write(tmp_path, """
        #include <pencil.h>
        void s(int n, int A[pencil_array n]) { USE(A); }
        void c(int n, int A[pencil_array n]) ACCESS(s);
        void c(int n, int A[pencil_array n]) { printf("%d", A[0]); }
        PENCIL void p(int n, int A[pencil_array n]) ACCESS(s);
        void p(int n, int A[pencil_array n]) { printf("%d", A[0]); }
    """)
    assert found_diagnostics(path) == {("pencil-call", 7, 40)}


def test_scop_region_in_a_c_function_is_not_checked(tmp_path):
    path = write(tmp_path, """
        void c(int n, double A[n]) {
          int i;
        #pragma scop
          for (i = 0; i < n; i++) A[i] = 0;
        #pragma endscop
        }
    """)
    assert found_diagnostics(path) == set()


def test_pencil_region_in_a_c_function_is_checked(tmp_path):
    path = write(tmp_path, """
        #include <pencil.h>
        void c(int n) {
          int a[100], i;
          for (i = 0; i < n; i++) a[i] = 0;
        #pragma pencil region
          {
            for (i = 0; i < n; i++) a[i] = 1;
          }
        }
    """)
    assert found_diagnostics(path) == {("pencil-for-init", 8, 10)}


# ---------------------------------------------------------------------- options and engine
def test_options_select_the_rules_that_run():
    path = SNIPPETS / "for-step.bad.c"
    result = parse_file(str(path))
    engine = DiagnosticEngine()
    lint_module(result.module, engine, LintOptions(rules=frozenset({"pencil-for-iterator-write"})))
    assert {d.id for d in engine.diagnostics} == {"pencil-for-iterator-write"}


def test_werror_promotes_warning_rules():
    result = parse_file(str(SNIPPETS / "linearized-subscript.bad.c"))
    engine = DiagnosticEngine(werror=True)
    lint_module(result.module, engine)
    assert {d.severity for d in engine.diagnostics} == {"error"}
    assert engine.has_errors


# ---------------------------------------------------------------------- helpers
def test_call_graph_components_and_cycles():
    graph = {"a": frozenset({"b"}), "b": frozenset({"c", "printf"}), "c": frozenset({"a"}),
             "d": frozenset({"d"}), "e": frozenset({"a"})}
    components = recursive_components(graph)
    assert components == {"a": frozenset("abc"), "b": frozenset("abc"), "c": frozenset("abc"),
                          "d": frozenset("d")}
    assert cycle_through(graph, components["b"], "b", "c") == ["b", "c", "a", "b"]
    assert cycle_through(graph, components["d"], "d", "d") == ["d", "d"]


def test_spell_writes_expressions_back_with_only_the_needed_parentheses(tmp_path):
    path = write(tmp_path, """
        void f(int n, int m, int A[n]) {
          int x = (n + 1) * 2 - -m + A[n * m + 1] + (n < m ? n : m) + (n << 2 | 1) - (n - (m - 1));
        }
    """)
    decl = parse_file(str(path)).module.function("f").body.body[0].decls[0]
    assert spell(decl.init) == "(n + 1) * 2 - -m + A[n * m + 1] + (n < m ? n : m) + (n << 2 | 1) - (n - (m - 1))"


def test_front_end_ignores_comments_on_pragma_lines(tmp_path):
    """Front-end fix: libclang returns comments as tokens; they are not pragma words."""
    path = write(tmp_path, """
        void f(int n, double A[static const restrict n]) {
          double s = 0;
        #pragma pencil independent reduction(+: s) // sum of A
          for (int i = 0; i < n; i++) s += A[i];
          A[0] = s;
        }
    """)
    loop = parse_file(str(path)).module.function("f").body.body[1]
    pragma = loop.pragma("independent")
    assert pragma.errors == ()
    assert pragma.text == "pragma pencil independent reduction(+: s)"
    assert [r.variables for r in pragma.reductions] == [("s",)]


def test_reduction_clause_items_may_name_array_elements(tmp_path):
    """One parser for the compiler and the linter: an element's subscripts are not variables."""
    path = write(tmp_path, """
        void f(int n, int m, int k, double s, double hist[static const restrict m],
               double a[static const restrict n][m]) {
        #pragma pencil independent reduction(+: hist[i]) reduction(max: hist[k]) reduction(+: s, a[f(n-1)][0])
          for (int i = 0; i < n; i++) s += hist[i];
        }
    """)
    pragma = parse_file(str(path)).module.function("f").body.body[0].pragma("independent")
    assert pragma.errors == ()
    assert [(r.op, r.variables, r.subscripts) for r in pragma.reductions] == [
        ("+", ("hist",), (("i",),)), ("max", ("hist",), (("k",),)), ("+", ("s", "a"), ((), ("f(n - 1)", "0")))]
    assert [r.item(k) for r in pragma.reductions for k in range(len(r.variables))] == [
        "hist[i]", "hist[k]", "s", "a[f(n - 1)][0]"]


@pytest.mark.parametrize("clause, column, message", [
    ("a[)", 42, "expected ']' to close the subscript of 'a'"),
    ("a[0][", 45, "expected ']' to close the subscript of 'a'"),
    ("a[]", 42, "expected a subscript in 'a[]'"),
    ("a[0] s", 46, "expected ',' or ')' after 'a[0]', found 's'"),
])
def test_a_malformed_element_is_one_error_and_keeps_its_array(tmp_path, clause, column, message):
    """The array stays named, so that the compiler does not drop the dependences through it."""
    path = write(tmp_path, f"""
        void f(int n, double s, double a[static const restrict 2]) {{
        #pragma pencil independent reduction(+: {clause})
          for (int i = 0; i < n; i++) a[0] += s;
        }}
    """)
    pragma = parse_file(str(path)).module.function("f").body.body[0].pragma("independent")
    assert [(loc.col, text) for loc, text in pragma.errors] == [(column, message)]
    assert pragma.reductions[0].variables[0] == "a"
    assert [(d.id, d.message) for d in lint_diagnostics(path, force_pencil=True)] == [("pencil-pragma", message)]


def test_an_element_with_a_variable_subscript_is_one_error_about_the_element():
    messages = [d.message for d in lint_diagnostics(SNIPPETS / "reduction.bad-element.c")
                if d.id == "pencil-reduction" and d.loc.line == 12]
    assert messages == ["reduction element 'hist[i]' has a subscript that is not a constant ('i' is a loop "
                        "iterator): pencilcc reduces one element with constant subscripts, such as 'hist[0]', "
                        "and keeps the loop's updates of 'hist' in order otherwise"]


def test_user_guide_lists_every_rule_with_its_explanation():
    guide = (Path(__file__).resolve().parents[3] / "docs" / "user-guide.md").read_text()
    section = guide[guide.index("## Linting PENCIL code (--lint)"):]
    for rule in RULES.values():
        assert f"| `{rule.id}` | {rule.severity} | {rule.explanation} " in section
