# SPDX-License-Identifier: MIT
"""Tiny C sources for the polyhedral tests: write, parse, find the regions, build models."""
from __future__ import annotations

import textwrap
from pathlib import Path

import islpy as isl

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
