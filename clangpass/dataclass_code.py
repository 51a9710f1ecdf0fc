# SPDX-License-Identifier: MIT
"""Compiled code of the methods `dataclasses` writes for pencilcc's classes, kept between runs.

Why: `@dataclass` writes the source of each class's `__init__`, `__repr__`, `__eq__`,
`__hash__` (and, frozen, `__setattr__` / `__delattr__`) and compiles it when the class is
defined. A compile imports about 160 of pencilcc's dataclasses, whose 900-odd methods took
90 ms of CPU to compile, half of all its imports (issue 28), in every process, although their
source never changes between two runs of the same code. Python keeps modules' bytecode in
`.pyc` files; this keeps the bytecode of those generated methods the same way.

How: `install()` (called by `clangpass/__init__.py`, before any other module of pencilcc is
imported) gives the `dataclasses` module an `exec` of its own, which compiles a source text
of a module of pencilcc (`clangpass.*`, and a back end's package: `own_package`) at most once
and then runs the code object, exactly as the builtin would have (same file name "<string>", no `__future__` flag
inherited: `compile(..., dont_inherit=True)`, as `exec` of a string in `dataclasses`). The
source text itself is the key, so a changed class can never run stale code: its text is
another key. Any other module's dataclasses, or any other use of `exec`, go to the builtin.

Store: `clangpass/__pycache__/dataclass-code.<cache tag>.bin`: the interpreter's bytecode magic
number, then `marshal` of {source text: code object}. It is read once per process; it is
written by `save()` (the driver calls it once its compile path is imported, the analysis child
once it has run) only when something new was compiled, under the rules of `.pyc` files: not
under `PYTHONDONTWRITEBYTECODE` (`sys.dont_write_bytecode`), nothing when the folder cannot be
written, atomically (a temporary file renamed), never an error. A file that cannot be read, of
another interpreter or damaged, counts as empty. `prime()` imports every module of pencilcc
and writes the file whatever `sys.dont_write_bytecode` says (the benchmark's byte-compile
step, test_suite/bench/compilers.py, as `compileall` writes `.pyc` files).
"""
from __future__ import annotations

import builtins
import dataclasses
import marshal
import os
import sys
import tempfile
from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import Optional

#: Top-level packages whose dataclasses' methods are kept (a module's `__name__` before its
#: first dot). clangpass's own; a back-end package adds itself from its `__init__` (`own_package`),
#: so that clangpass names no back end outside its target registry (clangpass/targets.py).
OWN_PACKAGES: set[str] = {"clangpass"}
#: More entries than this in the file: the next save keeps only what that process used.
MAX_ENTRIES = 6000

_FILE_NAME = f"dataclass-code.{sys.implementation.cache_tag}.bin"


class _Store:
    """The source -> code table of this process, loaded from `path` on first use."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.table: Optional[dict[str, CodeType]] = None
        self.used: set[str] = set()
        self.dirty = False

    def _load(self) -> dict[str, CodeType]:
        if self.table is None:
            self.table = {}
            try:
                with open(self.path, "rb") as f:
                    data = f.read()
                if data[:len(MAGIC_NUMBER)] == MAGIC_NUMBER:
                    table = marshal.loads(data[len(MAGIC_NUMBER):])
                    if isinstance(table, dict):
                        self.table = {k: v for k, v in table.items()
                                      if isinstance(k, str) and isinstance(v, CodeType)}
            except (OSError, ValueError, EOFError, TypeError):
                pass        # no file yet, or not one this interpreter can use: compile anew
        return self.table

    def code(self, source: str) -> CodeType:
        table = self._load()
        code = table.get(source)
        if code is None:
            code = compile(source, "<string>", "exec", dont_inherit=True)
            table[source] = code
            self.dirty = True
        self.used.add(source)
        return code

    def save(self, force: bool = False) -> bool:
        """Write the table if it changed (see the module docstring); True if written."""
        if not self.dirty or self.table is None or (sys.dont_write_bytecode and not force):
            return False
        table = self.table
        if len(table) > MAX_ENTRIES:
            table = {k: v for k, v in table.items() if k in self.used}
        folder = os.path.dirname(self.path)
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(prefix=".dataclass-code-", dir=folder)
            try:
                with os.fdopen(fd, "wb") as f:
                    f.write(MAGIC_NUMBER + marshal.dumps(table))
                os.chmod(temporary, 0o644)     # readable by all, as the .pyc files beside it
                os.replace(temporary, self.path)
            except BaseException:
                os.unlink(temporary)
                raise
        except (OSError, ValueError):
            return False    # a read-only install, a full disk: the methods compile as before
        self.dirty = False
        return True


_store: Optional[_Store] = None


def _own(globals_: object) -> bool:
    name = globals_.get("__name__", "") if isinstance(globals_, dict) else ""
    return isinstance(name, str) and name.split(".", 1)[0] in OWN_PACKAGES


def _exec(source, globals=None, locals=None, /, **kwargs):   # noqa: A002 (exec's own names)
    """`dataclasses`' `exec`: pencilcc's generated methods from the store, the rest to the builtin."""
    store = _store
    if isinstance(source, str) and not kwargs:
        # Compiled here as the builtin would have compiled it in `dataclasses` (whose code has
        # no `__future__` flag): called from this module, the builtin would inherit this
        # module's `annotations` flag and make the methods' annotations strings.
        source = store.code(source) if store is not None and _own(globals) else \
            compile(source, "<string>", "exec", dont_inherit=True)
    return builtins.exec(source, globals, locals, **kwargs)


def own_package(name: str) -> None:
    """Keep the dataclass methods of the top-level package `name` too (a back end's `__init__`
    calls it before any of its modules defines a class)."""
    OWN_PACKAGES.add(name.split(".", 1)[0])


def default_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "__pycache__", _FILE_NAME)


def install(path: Optional[str] = None) -> None:
    """Route `dataclasses`' compiles of pencilcc's methods through the store at `path`
    (default: `default_path()`); once per process, later calls change nothing."""
    global _store
    if _store is not None:
        return
    _store = _Store(path or default_path())
    dataclasses.exec = _exec    # type: ignore[attr-defined]  # found before the builtin


def uninstall() -> None:
    """Give `dataclasses` the builtin `exec` back (tests)."""
    global _store
    _store = None
    if getattr(dataclasses, "exec", None) is _exec:
        del dataclasses.exec    # type: ignore[attr-defined]


def save(force: bool = False) -> bool:
    """Write what this process compiled that the file lacked; True if the file was written."""
    return _store.save(force) if _store is not None else False


def prime() -> bool:
    """Import every module of pencilcc's packages and write the file (`force`: even under
    PYTHONDONTWRITEBYTECODE); True if it was written or already held everything."""
    import importlib
    import pkgutil

    from clangpass.targets import TARGET_MODULES

    install()
    packages = ["clangpass"] + sorted({m.split(".", 1)[0] for m in TARGET_MODULES.values()} - {"clangpass"})
    for package_name in packages:
        package = importlib.import_module(package_name)
        for info in pkgutil.walk_packages(package.__path__, package_name + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except Exception:       # an optional dependency missing (numpy for the API...)
                continue
    return save(force=True) or (_store is not None and not _store.dirty)
