# SPDX-License-Identifier: MIT
"""The kernel suite through the linter: compliant PENCIL code lints clean, the thesis's
non-PENCIL example is rejected for the reasons the thesis gives (section 4.4.3)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from snippet_harness import lint_diagnostics

KERNELS = Path(__file__).resolve().parents[2] / "kernels"
THESIS = KERNELS / "thesis"

def _thesis_compliance() -> dict[str, bool]:
    """file -> whether README.md's table says its PENCIL functions obey the rules."""
    readme = THESIS / "README.md"
    if not readme.is_file():
        return {}
    table = {}
    for line in readme.read_text().splitlines():
        match = re.match(r"\|\s*`([^`]+\.c)`\s*\|[^|]*\|\s*([^|]*)\|", line)
        if match:
            table[match.group(1)] = match.group(2).strip() != "**no**"
    return table


THESIS_TABLE = _thesis_compliance()


def errors(path: Path, **frontend) -> list:
    return [d for d in lint_diagnostics(path, **frontend) if d.severity == "error"]


@pytest.mark.parametrize("path", sorted((KERNELS / "image").glob("*.c")), ids=lambda p: p.name)
def test_image_kernels_are_pencil_compliant(path):
    assert errors(path) == []


# Kernels that gather through an index array on purpose (CSR): the linter's warning about
# the non-affine subscript is the one diagnostic they may have.
GATHERS = {"spmv.c"}


@pytest.mark.parametrize("path", sorted((KERNELS / "pencil").glob("*.c")), ids=lambda p: p.name)
def test_pencil_polybench_kernels_are_compliant(path):
    found = lint_diagnostics(path)
    if path.name in GATHERS:
        assert {d.id for d in found} == {"pencil-nonaffine-subscript"} and all(d.severity == "warning"
                                                                                for d in found)
    else:
        assert found == []


@pytest.mark.parametrize("name", sorted(n for n, ok in THESIS_TABLE.items() if ok))
def test_thesis_examples_listed_as_pencil_are_compliant(name):
    assert errors(THESIS / name) == []


def test_thesis_readme_lists_the_examples():
    assert len(THESIS_TABLE) >= 10
    assert THESIS_TABLE.get("nonpencil_tree_search.c") is False


def test_thesis_tree_search_is_rejected_for_recursion_pointers_and_early_returns():
    """Section 4.4.3. The file marks nothing PENCIL, so it is linted as PENCIL input (-x pencil)."""
    found = errors(THESIS / "nonpencil_tree_search.c", force_pencil=True)
    by_rule: dict[str, list] = {}
    for d in found:
        by_rule.setdefault(d.id, []).append(d)
    assert set(by_rule) == {"pencil-recursion", "pencil-pointer", "pencil-return"}
    assert [(d.loc.line, d.loc.col) for d in by_rule["pencil-recursion"]] == [(34, 16), (36, 16)]
    assert all(d.notes[0].message == "call cycle: find -> find" for d in by_rule["pencil-recursion"])
    assert [d.loc.line for d in by_rule["pencil-return"]] == [30, 32, 34, 36]
    pointer_messages = " | ".join(d.message for d in by_rule["pencil-pointer"])
    for construct in ("returns a pointer", "pointer parameter 'node'", "reading pointer 'node'",
                      "'node->value' dereferences", "'node->left' dereferences", "'node->right' dereferences"):
        assert construct in pointer_messages
