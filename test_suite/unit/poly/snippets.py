# SPDX-License-Identifier: MIT
"""Tiny C sources for the polyhedral tests: write, parse, find the regions, build models."""
from __future__ import annotations

import copy
import textwrap
from pathlib import Path

import islpy as isl
import numpy as np

from clangpass.dumps import DumpSink
from clangpass.frontend import parse_file
from clangpass.ir import nodes as N
from clangpass.options import CompileOptions
from clangpass.passes.manager import optimise_region
from clangpass.poly.extract import extract_scop
from clangpass.poly.scop import Scop
from clangpass.regions import OptRegion, find_regions
from clangpass.report import RegionOutcome


def region_of(tmp_path: Path, source: str, name: str = "t.c") -> tuple[OptRegion, N.Module]:
    """The only optimisable region of `source` and its module."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(source))
    result = parse_file(str(path))
    assert result.ok, result.diagnostics
    regions = find_regions(result.module)
    assert len(regions) == 1, regions
    return regions[0], result.module


def scop_of(tmp_path: Path, source: str) -> Scop:
    region, module = region_of(tmp_path, source)
    return extract_scop(region, module, isl.Context())


def optimise(tmp_path: Path, source: str, **options) -> RegionOutcome:
    region, module = region_of(tmp_path, source)
    return optimise_region(region, module, CompileOptions(**options), DumpSink())


def optimised_and_checked(tmp_path: Path, source: str, sizes: tuple[int, ...] = (5,),
                          compared: tuple[str, ...] = (), **options) -> RegionOutcome:
    """`source`'s region optimised at -O3 with `options`, its AST run by the interpreter (parallel
    loops backwards) against the region's source for each size in `sizes`: every argument equal
    (the arguments named in `compared` only, when given: scratch the region kills may differ)."""
    from test_suite.unit.poly.interpreter import AstInterpreter, RegionInterpreter, initial_memory
    region, module = region_of(tmp_path, source)
    outcome = optimise_region(region, module, CompileOptions(opt_level=3, **options), DumpSink())
    assert outcome.status == "optimized", outcome.reason
    for n in sizes:
        memory = initial_memory(region, n)
        expected, got = copy.deepcopy(memory), copy.deepcopy(memory)
        RegionInterpreter(expected).run(region.body)
        AstInterpreter(outcome.unit, got, reverse_parallel=True).run()
        for arg in region.args:
            if compared and arg.name not in compared:
                continue
            if isinstance(expected[arg.name], np.ndarray):
                assert np.array_equal(expected[arg.name], got[arg.name]), (arg.name, n)
            else:
                assert expected[arg.name] == got[arg.name], (arg.name, n)
    return outcome
