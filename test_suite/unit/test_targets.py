# SPDX-License-Identifier: MIT
"""clangpass.targets: the registry is the only part of clangpass that names a back end, and
the compile cache's identity covers what every registered target reports as its code."""
from __future__ import annotations

import ast
from pathlib import Path

import clangpass
from clangpass import targets
from clangpass.driver import cache

PACKAGE = Path(clangpass.__file__).resolve().parent


def _names_llvm_backend(path: Path) -> list[int]:
    """Lines of `path` that import llvm_backend or name it in a string (importlib, find_spec)."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "llvm_backend" for a in node.names):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "llvm_backend":
            lines.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.split(".")[0] == "llvm_backend":
            lines.append(node.lineno)
    return lines


def test_only_the_registry_names_a_back_end():
    found = {str(p.relative_to(PACKAGE)): lines for p in sorted(PACKAGE.rglob("*.py"))
             if (lines := _names_llvm_backend(p))}
    assert set(found) == {"targets.py"}, found


def test_the_scan_sees_an_import(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("import os\nfrom llvm_backend.cpu import TARGET\nimportlib.import_module('llvm_backend')\n")
    assert _names_llvm_backend(probe) == [2, 3]


def test_code_roots_are_the_union_of_the_targets():
    roots = targets.code_roots()
    assert roots == tuple(sorted(set(roots)))
    for name in targets.TARGET_MODULES:
        for root in targets.get_target(name).code_roots():
            assert root.resolve() in roots and root.is_dir()
    # The OpenCL runtime's C sources are part of what a compile depends on.
    assert any((root / "pencilcc_runtime.h").is_file() for root in roots)


def test_identity_changes_with_a_target_file(monkeypatch, tmp_path):
    root = tmp_path / "backend"
    root.mkdir()
    (root / "emit.py").write_text("X = 1\n")
    monkeypatch.setattr(targets, "code_roots", lambda: (root,))
    cache.pencilcc_identity.cache_clear()
    try:
        before = cache.pencilcc_identity()
        cache.pencilcc_identity.cache_clear()
        (root / "emit.py").write_text("X = 2\n")
        assert cache.pencilcc_identity() != before
    finally:
        cache.pencilcc_identity.cache_clear()
