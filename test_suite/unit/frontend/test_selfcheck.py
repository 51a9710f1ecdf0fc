# SPDX-License-Identifier: MIT
"""The front end against clang on every corpus file (issue 30, item 2).

`clangpass.frontend.selfcheck` walks each declaration's lowered type beside clang's
canonical type. Here it runs on every C file of the kernel corpora and the random
regression programs, and on random programs of fixed seeds; and it is shown to fail
on the bug that motivated it (extents ordered by source offset) and on other
deliberate misreadings, so that a pass means something.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from clangpass.frontend import FrontendOptions
from clangpass.frontend import lower as lower_module
from clangpass.frontend import selfcheck
from clangpass.frontend import types as types_module
from test_suite.random.generator import generate

REPO = Path(__file__).resolve().parents[3]
OPTIONS = FrontendOptions(("-std=c99", "-I", str(REPO / "include")))
CORPORA = ["test_suite/kernels", "test_suite/random/regressions", "test_suite/e2e/sample_project"]
CORPUS = sorted(p for folder in CORPORA for p in (REPO / folder).rglob("*.c"))
RANDOM_SEEDS = range(9100, 9130)

DECLARATORS = r"""
#define ARR2(name, n, m) name[n + 0][m + 0]
#define ARR3(name, a, b, c) name[a][(b)][c * 1]
#define ROWS(name, m) (*name)[m]
typedef float row_t[8];
struct s { int k; double w[3][4]; };
enum colour { RED, GREEN };
static double ARR2(G, 3, 4);
void f(int n, int m, double ARR2(A, n, m), float ARR3(B, m, n, 2), double ROWS(C, m),
       row_t *D, const double E[static const restrict n][m], enum colour c, struct s *p,
       volatile unsigned short u, long long (*fp)(int, double ARR2(X, n, 2)))
{
  double ARR2(L, n, m + 1);
  const row_t R[2] = {{0}};
  unsigned char *q = 0;
}
"""


def _check(tmp_path: Path, text: str) -> list[selfcheck.Mismatch]:
    path = tmp_path / "t.c"
    path.write_text(textwrap.dedent(text))
    return selfcheck.check_file(str(path), OPTIONS)


def test_the_corpus_is_not_empty() -> None:
    assert len(CORPUS) > 100, CORPUS


@pytest.mark.parametrize("folder", CORPORA)
def test_every_corpus_declaration_reads_as_clang_reads_it(folder: str) -> None:
    files = [p for p in CORPUS if str(p.relative_to(REPO)).startswith(folder)]
    assert files
    includes = [str(d) for d in (REPO / folder).rglob("include")]     # the sample project's headers
    options = FrontendOptions(OPTIONS.parser_args + tuple(f"-I{d}" for d in includes))
    mismatches = [m for p in files for m in selfcheck.check_file(str(p), options)]
    assert mismatches == [], "\n".join(map(str, mismatches))


def test_random_programs_read_as_clang_reads_them(tmp_path: Path) -> None:
    mismatches = []
    for seed in RANDOM_SEEDS:
        path = tmp_path / f"seed{seed}.c"
        path.write_text(generate(seed).source)
        mismatches += selfcheck.check_file(str(path), OPTIONS)
    assert mismatches == [], "\n".join(map(str, mismatches))


def test_declarators_through_macros_agree(tmp_path: Path) -> None:
    assert _check(tmp_path, DECLARATORS) == []


def test_extents_by_source_offset_are_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bug of issue 30 brought back: the check names the reversed declarations."""
    def by_offset(self, cursor):
        init = self._initializer(cursor)
        extents = sorted((c for c in cursor.get_children()
                          if c.kind.is_expression() and (init is None or c != init)),
                         key=lambda c: c.extent.start.offset)
        return self.types.lower(cursor.type, extents) if extents else original(self, cursor)
    original = lower_module.Lowering.decl_type
    monkeypatch.setattr(lower_module.Lowering, "decl_type", by_offset)
    found = {m.name: m for m in _check(tmp_path, DECLARATORS)}
    assert {"A", "B", "L", "X"} <= set(found), found
    assert "extent 'n + 0', lowered as 'm + 0'" in found["A"].detail, found["A"]
    assert "E" not in found and "C" not in found    # written directly or with one extent: same order


def test_lost_qualifiers_are_caught(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(types_module, "_quals", lambda t: {"const": False, "volatile": False, "restrict": False})
    found = {m.name for m in _check(tmp_path, DECLARATORS)}
    assert {"u", "E"} <= found, found


def test_the_command_line_reports_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    good = tmp_path / "good.c"
    good.write_text(DECLARATORS)
    assert selfcheck.main(["-std=c99", str(good)]) == 0
    monkeypatch.setattr(types_module.TypeLowering, "_array",
                        lambda self, t, extents: types_module.T.ArrayType(element=types_module.T.DOUBLE))
    assert selfcheck.main(["-std=c99", str(good)]) == 1
    err = capsys.readouterr().err
    assert f"{good}:" in err and "error: the front end reads" in err
