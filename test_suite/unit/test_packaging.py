# SPDX-License-Identifier: MIT
"""Packaging: every Python package is listed in pyproject.toml, and data files are found."""
from __future__ import annotations

import tomllib
from pathlib import Path

from clangpass import resources

ROOT = Path(__file__).resolve().parents[2]


def test_every_python_package_is_listed_in_pyproject():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    in_tree = {str(p.parent.relative_to(ROOT)).replace("/", ".")
               for top in ("clangpass", "llvm_backend") for p in (ROOT / top).rglob("__init__.py")}
    assert in_tree <= listed
    for data_package, folder in config["package-dir"].items():
        assert data_package in listed and (ROOT / folder).is_dir()


def test_resources_locate_the_header_and_cmake_package():
    assert (resources.include_dir() / "pencil.h").is_file()
    assert (resources.cmake_dir() / "PENCILConfig.cmake").is_file()


def test_the_wheel_ships_every_file_of_the_opencl_runtime():
    """The OpenCL target links the runtime's sources from the installed data package: each
    file it names (and each header) must match clangpass._runtime's package data."""
    from fnmatch import fnmatch

    from llvm_backend.opencl.runtime import RUNTIME_HEADERS, RUNTIME_SOURCES

    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"]["clangpass._runtime"]
    for name in (*RUNTIME_SOURCES, *RUNTIME_HEADERS):
        assert any(fnmatch(name, pattern) for pattern in patterns), name
        assert (resources.runtime_dir() / name).is_file(), name
