# SPDX-License-Identifier: MIT
"""Pipelines as data and third-party passes (clangpass.passes.plugins, -fpencil-passes=,
-fpencil-pass-plugin=): every way a pipeline or a plugin can be wrong is a one-line driver
error before anything runs, a plugin's record keeps the optimisation record's keys, and the
compile cache tells pipelines and plugin code apart. test_suite/e2e/test_pass_plugins.py
runs the sample plugin package."""
from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest

from clangpass import api
from clangpass.driver import main as driver_main
from clangpass.driver.cache import plugin_identity
from clangpass.driver.cli import CommandLineError, parse_command_line
from clangpass.passes import plugins
from clangpass.passes.registry import PASSES, Pass, PassRecord
from clangpass.report import OUTCOME_KEYS, fallback

from test_suite.unit.poly.snippets import region_of

PLUGIN = '''\
from dataclasses import dataclass
from clangpass.passes.registry import Pass, PassRecord, register


@dataclass(frozen=True)
class CountRecord(PassRecord):
    counted_statements_{tag}: int = 0


@register
class CountStatements(Pass):
    """Count the statements of the model into the record."""

    name = "count-statements-{tag}"
    requires = frozenset({{"scop"}})
    record = CountRecord
    after = "{after}"

    def run(self, unit, ctx):
        return unit.with_record(CountRecord(len(unit.scop.compute_statements)))
'''


@pytest.fixture
def plugin_path(tmp_path, monkeypatch):
    """A folder on sys.path for plugin modules; the passes they register are unregistered after."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = dict(PASSES)
    yield tmp_path
    PASSES.clear()
    PASSES.update(before)
    plugins._MODULE_PASSES.clear()
    for name, module in list(sys.modules.items()):
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]


def _module(folder: Path, name: str, text: str) -> str:
    (folder / f"{name}.py").write_text(textwrap.dedent(text))
    return name


def _error(argv: list[str], capsys) -> str:
    """The driver's stderr for `argv`, which must fail with status 1 and one error line."""
    assert driver_main.main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith("pencilcc: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_named_pipeline_is_checked_before_anything_runs(capsys):
    err = _error(["-O2", "-fpencil-passes=extract,tiling,codegen", "-c", "absent.c"], capsys)
    assert "unknown pass 'tiling' in '-fpencil-passes=' (passes: extract, alias-check, " in err
    err = _error(["-fpencil-passes=extract,alias-check,tile,codegen", "-c", "absent.c"], capsys)
    assert "pass 'tile' requires ['schedule'], which no earlier pass provides; 'schedule' is provided by pass " \
           "'schedule'" in err
    err = _error(["-fpencil-passes=extract,dependences,live-ranges,privatize-arrays,relax-false-deps,codegen",
                  "-c", "absent.c"], capsys)
    assert "'privatize-arrays' changes the model, which drops 'dependences'" in err
    err = _error(["-fpencil-passes=extract,alias-check", "-c", "absent.c"], capsys)
    assert "no pass builds the AST the target lowers (end the pipeline with 'codegen')" in err
    assert "expects a pass name" in _error(["-fpencil-passes=,", "-c", "absent.c"], capsys)


def test_a_named_pipeline_replaces_the_target_pipeline_and_disable_pass_still_applies():
    options = parse_command_line(["-O3", "-fpencil-passes=extract,alias-check,dependences,schedule,codegen",
                                  "--disable-pass=schedule", "-c", "a.c"]).options
    assert options.passes == ("extract", "alias-check", "dependences", "schedule", "codegen")
    assert options.opt_level == 3 and options.disabled_passes == {"schedule"}
    assert parse_command_line(["-O3", "-c", "a.c"]).options.passes == ()


def test_plugin_modules_that_cannot_be_used_are_driver_errors(plugin_path, capsys):
    assert "cannot find plugin module 'no_such_plugin'" in _error(
        ["-fpencil-pass-plugin=no_such_plugin", "-c", "a.c"], capsys)
    _module(plugin_path, "broken_plugin", "import no_such_dependency\n")
    assert "plugin module 'broken_plugin' failed to import: ModuleNotFoundError: No module named " \
           "'no_such_dependency'" in _error(["-fpencil-pass-plugin=broken_plugin", "-c", "a.c"], capsys)
    _module(plugin_path, "empty_plugin", "X = 1\n")
    assert "plugin module 'empty_plugin' registers no pass" in _error(
        ["-fpencil-pass-plugin=empty_plugin", "-c", "a.c"], capsys)
    _module(plugin_path, "clashing_plugin", PLUGIN.format(tag="x", after="").replace(
        '"count-statements-x"', '"tile"'))
    assert "pass 'tile' registered twice" in _error(["-fpencil-pass-plugin=clashing_plugin", "-c", "a.c"], capsys)
    _module(plugin_path, "keyed_plugin", PLUGIN.format(tag="y", after="").replace(
        "counted_statements_y", "tiled_bands"))
    assert "its record's key 'tiled_bands' is the record of pass 'tile' already" in _error(
        ["-fpencil-pass-plugin=keyed_plugin", "-c", "a.c"], capsys)
    assert "count-statements-y" not in PASSES      # a rejected plugin leaves no pass behind
    _module(plugin_path, "lost_plugin", PLUGIN.format(tag="z", after="no-such-pass"))
    assert "goes after 'no-such-pass', which is no pass" in _error(
        ["-fpencil-pass-plugin=lost_plugin", "-c", "a.c"], capsys)
    assert "expects a Python module name" in _error(["-fpencil-pass-plugin=a/b.py", "-c", "a.c"], capsys)


def test_a_plugin_pass_joins_the_target_pipeline_after_the_pass_it_names(plugin_path):
    _module(plugin_path, "count_plugin", PLUGIN.format(tag="a", after="alias-check"))
    options = parse_command_line(["-O1", "-fpencil-pass-plugin=count_plugin", "-c", "a.c"]).options
    assert options.passes == ("extract", "alias-check", "count-statements-a", "dependences", "codegen")
    assert options.pass_plugins == ("count_plugin",)
    # Named by -fpencil-passes=, it runs only there; after a pass the pipeline lacks, it does not run.
    named = parse_command_line(["-fpencil-pass-plugin=count_plugin",
                                "-fpencil-passes=extract,count-statements-a,codegen", "-c", "a.c"]).options
    assert named.passes == ("extract", "count-statements-a", "codegen")
    _module(plugin_path, "late_plugin", PLUGIN.format(tag="b", after="tile"))
    assert "count-statements-b" not in parse_command_line(
        ["-O1", "-fpencil-pass-plugin=late_plugin", "-c", "a.c"]).options.passes


def _entry_points(monkeypatch, **values: str) -> None:
    """Installed entry points of the group, as `name=module:attribute`."""
    points = {name: [metadata.EntryPoint(name, value, plugins.ENTRY_POINT_GROUP)] for name, value in values.items()}
    monkeypatch.setattr(plugins, "entry_points", lambda: points)


def test_entry_point_passes_load_by_name_and_bad_ones_are_driver_errors(plugin_path, monkeypatch, capsys):
    _module(plugin_path, "ep_plugin", PLUGIN.format(tag="c", after="alias-check") + textwrap.dedent('''
        NOT_A_PASS = 42
        INSTANCE = CountStatements()
        '''))
    _entry_points(monkeypatch, **{"count-statements-c": "ep_plugin:INSTANCE", "not-a-pass": "ep_plugin:NOT_A_PASS",
                                  "misnamed": "ep_plugin:CountStatements", "unloadable": "ep_gone:Pass"})
    # An installed entry point is never run unless named: the -O pipeline stays the target's.
    assert parse_command_line(["-O1", "-c", "a.c"]).options.passes == ()
    options = parse_command_line(["-fpencil-passes=extract,count-statements-c,codegen", "-c", "a.c"]).options
    assert options.passes == ("extract", "count-statements-c", "codegen")
    assert PASSES["count-statements-c"].__name__ == "CountStatements"     # an instance gives its class
    assert "not a subclass of clangpass.passes.registry.Pass" in _error(
        ["-fpencil-passes=extract,not-a-pass,codegen", "-c", "a.c"], capsys)
    assert "an entry point's name must be its pass's name" in _error(["--disable-pass=misnamed", "-c", "a.c"], capsys)
    assert "cannot load the entry point 'unloadable = ep_gone:Pass'" in _error(
        ["--dump-after=unloadable", "-c", "a.c"], capsys)
    assert "count-statements-c" in _error(["--disable-pass=nosuch", "-c", "a.c"], capsys)  # listed as a pass


def test_print_passes_lists_plugins_and_the_pipeline(plugin_path, monkeypatch, capsys):
    _module(plugin_path, "listed_plugin", PLUGIN.format(tag="d", after="alias-check"))
    _entry_points(monkeypatch, broken="listed_gone:X")
    assert driver_main.main(["-O1", "-fpencil-pass-plugin=listed_plugin", "--print-passes"]) == 0
    out, err = capsys.readouterr()
    assert "\nPasses of plugins:\n  count-statements-d" in out and "From listed_plugin, after alias-check." in out
    assert out.endswith("-fpencil-passes=extract,alias-check,count-statements-d,dependences,codegen\n")
    assert err.startswith("pencilcc: warning: cannot load the entry point 'broken = listed_gone:X'")


def test_a_plugin_record_joins_the_optimisation_record_after_the_existing_keys(plugin_path, tmp_path):
    plugins.load_module(_module(plugin_path, "rec_plugin", PLUGIN.format(tag="e", after="")))
    region, _ = region_of(tmp_path, "void f(int n, double A[static const restrict n]) {\n"
                                    "  for (int i = 0; i < n; i++) A[i] = 0;\n}\n")
    outcome = fallback(region, "pencil-pass-disabled", "why")
    record = outcome.as_record()
    assert list(record)[-3:] == ["counted_statements_e", "nondeterministic", "reason_id"]
    assert record["counted_statements_e"] == 0
    assert set(record) == OUTCOME_KEYS | set(outcome.facts)


def test_a_record_may_not_take_a_key_of_the_outcome():
    @dataclass(frozen=True)
    class StatusRecord(PassRecord):
        status: str = ""

    class Tagging(Pass):
        """Tag."""

        name = "tagging"
        record = StatusRecord

        def run(self, unit, ctx):
            return unit

    with pytest.raises(plugins.PluginError, match="key 'status' is one of the optimisation record's own"):
        plugins.check_pass(Tagging, "test")


def test_the_cache_key_sees_the_pipeline_and_the_plugin_code(plugin_path):
    default = parse_command_line(["-O2", "-c", "a.c"]).options
    named = parse_command_line(["-O2", "-fpencil-passes=extract,alias-check,codegen", "-c", "a.c"]).options
    assert repr(default) != repr(named)         # repr(options) is part of the key (driver/compile.py)
    before = plugin_identity()
    path = plugin_path / "cached_plugin.py"
    plugins.load_module(_module(plugin_path, "cached_plugin", PLUGIN.format(tag="f", after="")))
    loaded = plugin_identity()
    assert "count-statements-f=cached_plugin.CountStatements:" in loaded and loaded != before
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 10**9))
    assert plugin_identity() != loaded          # edited plugin code: another key
    # The Python API has no key of its own: it compiles through the driver's Compilation, whose
    # key holds plugin_identity() (test_python_api checks that the two share entries).
    import inspect

    from clangpass.driver.compile import Compilation
    assert "plugin_identity()" in inspect.getsource(Compilation._cache_key)
    assert not hasattr(api, "_plugin_identity")
