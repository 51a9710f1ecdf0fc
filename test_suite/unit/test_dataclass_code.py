# SPDX-License-Identifier: MIT
"""The kept code of pencilcc's dataclass methods (clangpass.dataclass_code): a class of a module of
pencilcc gets from the store the code `dataclasses` would have compiled, and behaves the same;
the file is written only when something was new, read back by the next process, never trusted
when damaged or of another interpreter, and left alone under PYTHONDONTWRITEBYTECODE."""
from __future__ import annotations

import dataclasses
import inspect
import subprocess
import sys
import types
from pathlib import Path

import pytest

from clangpass import dataclass_code

CLASS_TEXT = '''
from dataclasses import dataclass, field
from typing import Optional

@dataclass(frozen=True)
class Point:
    x: int
    y: int = 0
    tags: tuple = field(default=())
    note: Optional[str] = None

@dataclass(order=True)
class Mutable:
    a: float
    b: list = field(default_factory=list)
'''


def _define(module_name: str) -> types.ModuleType:
    module = types.ModuleType(module_name)
    sys.modules[module_name] = module
    try:
        # Compiled without this file's `from __future__ import annotations`, as a module is.
        exec(compile(CLASS_TEXT, module_name, "exec", dont_inherit=True), module.__dict__)
    finally:
        del sys.modules[module_name]
    return module


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dataclass_code._Store:
    fresh = dataclass_code._Store(str(tmp_path / "__pycache__" / "dataclass-code.bin"))
    monkeypatch.setattr(dataclass_code, "_store", fresh)
    monkeypatch.setattr(dataclasses, "exec", dataclass_code._exec, raising=False)
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    return fresh


def _behaviour(module: types.ModuleType) -> list:
    p, q = module.Point(1, 2, ("a",)), module.Point(1, 2, ("a",))
    m = module.Mutable(1.5)
    m.b.append(3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 5     # type: ignore[misc]
    return [repr(p), p == q, hash(p) == hash(q), repr(m), module.Mutable(1.0) < module.Mutable(2.0),
            str(inspect.signature(module.Point)), module.Point.__init__.__annotations__,
            module.Mutable.__init__.__annotations__]


def test_own_classes_come_from_the_store_and_behave_as_compiled_by_python(store) -> None:
    ours = _define("clangpass._dataclass_code_probe")
    assert store.dirty and store.table
    kept = dict(store.table)
    dataclass_code.uninstall()
    try:
        plain = _define("clangpass._dataclass_code_probe")
    finally:
        dataclass_code.install()
    # The annotations are the objects themselves (no __future__ flag leaks into the code).
    assert _behaviour(ours) == _behaviour(plain)
    assert ours.Point.__init__.__annotations__["x"] is int
    # Defined again: every method's code from the table, nothing compiled.
    assert store.save()
    again = _define("clangpass._dataclass_code_probe")
    assert not store.dirty and store.table == kept
    assert again.Point.__init__.__code__ == ours.Point.__init__.__code__


def test_other_modules_classes_are_compiled_by_python(store) -> None:
    theirs = _define("someone_else.module")
    assert not store.table
    # As Python compiles them: annotations the objects, not strings of this module's __future__.
    assert theirs.Point.__init__.__annotations__["x"] is int
    assert str(inspect.signature(theirs.Point)) == "(x: int, y: int = 0, tags: tuple = (), note: Optional[str] = None) -> None"


def test_a_back_end_package_adds_itself(store) -> None:
    # clangpass names no back end outside its registry (test_targets.py): each back end's
    # package registers itself when imported, and prime() finds them through the registry.
    import llvm_backend
    from clangpass.targets import TARGET_MODULES

    assert {m.split(".")[0] for m in TARGET_MODULES.values()} <= dataclass_code.OWN_PACKAGES
    assert llvm_backend.__name__ in dataclass_code.OWN_PACKAGES
    _define("llvm_backend._dataclass_code_probe")
    assert store.dirty


def test_the_file_is_read_by_the_next_store_and_written_only_when_something_was_new(store) -> None:
    _define("clangpass._dataclass_code_probe")
    assert store.save()
    path = Path(store.path)
    written = path.stat().st_mtime_ns
    assert path.read_bytes().startswith(dataclass_code.MAGIC_NUMBER)
    assert not store.save()                      # nothing new since
    later = dataclass_code._Store(str(path))
    source = next(iter(store.table))
    assert later.code(source).co_code == store.table[source].co_code and not later.dirty
    assert path.stat().st_mtime_ns == written


def test_a_damaged_or_foreign_file_counts_as_empty(store, tmp_path: Path) -> None:
    path = Path(store.path)
    path.parent.mkdir(parents=True)
    for data in (b"", b"junk" * 10, dataclass_code.MAGIC_NUMBER + b"\x00garbage",
                 b"\x00\x00\r\n" + b"x" * 20):
        path.write_bytes(data)
        probe = dataclass_code._Store(str(path))
        code = probe.code("def f():\n return 1\n")
        assert probe.dirty and isinstance(code, types.CodeType)


def test_not_written_under_dont_write_bytecode_unless_forced(store, monkeypatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    _define("clangpass._dataclass_code_probe")
    assert not store.save() and not Path(store.path).exists()
    assert store.save(force=True) and Path(store.path).exists()


def test_an_unwritable_folder_is_no_error(tmp_path: Path, monkeypatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    unwritable = dataclass_code._Store(str(blocker / "__pycache__" / "x.bin"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    unwritable.code("def g():\n return 2\n")
    assert unwritable.save() is False and unwritable.dirty


def test_a_new_process_finds_the_compile_paths_methods_kept(tmp_path: Path) -> None:
    # prime() writes the file for the interpreter's own copy of pencilcc; a process importing the
    # compile path then compiles none of its dataclass methods.
    script = ("import clangpass, clangpass.dataclass_code as d\n"
              "assert d.prime()\n")
    subprocess.run([sys.executable, "-c", script], check=True)
    check = ("import clangpass.dataclass_code as d, clangpass.driver.main, clangpass.driver.compile\n"
             "import llvm_backend.cpu\n"
             "print(d._store.dirty, len(d._store.used))\n")
    out = subprocess.run([sys.executable, "-c", check], check=True, capture_output=True, text=True).stdout
    dirty, used = out.split()
    assert dirty == "False" and int(used) > 100
