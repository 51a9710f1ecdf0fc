# SPDX-License-Identifier: MIT
"""Which function scalars a region owns, by liveness around it (clangpass.regions._privatize)."""
from __future__ import annotations

import textwrap
from pathlib import Path

from clangpass.frontend import FrontendOptions, parse_file
from clangpass.regions import find_regions

INCLUDE = Path(__file__).resolve().parents[3] / "include"


def kept_and_local(tmp_path, body: str, params: str = "int n, double A[n]"):
    path = tmp_path / "r.c"
    path.write_text(textwrap.dedent(f"""
        #include <pencil.h>
        double f({params}) {{
        {textwrap.indent(textwrap.dedent(body), '  ')}
        }}
    """))
    result = parse_file(str(path), FrontendOptions(("-I", str(INCLUDE))))
    assert result.ok, result.diagnostics
    return [([d.name for d in r.privatized], dict(r.kept_scalars)) for r in find_regions(result.module)]


def test_a_value_overwritten_after_the_region_is_local(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        double t;
        #pragma scop
        for (i = 0; i < n; i++) { t = A[i] * 2.0; A[i] = t + 1.0; }
        #pragma endscop
        if (n > 3) t = 1.0; else t = 2.0;
        return t;
    """) == [(["t"], {})]


def test_a_value_read_after_the_region_on_one_path_is_kept(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        double t;
        #pragma scop
        for (i = 0; i < n; i++) { t = A[i] * 2.0; A[i] = t + 1.0; }
        #pragma endscop
        if (n > 3) t = 1.0;
        return t;
    """) == [([], {"t": "used outside the region"})]


def test_pencil_kill_after_or_at_the_end_of_the_region_kills(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        double t, u;
        #pragma scop
        for (i = 0; i < n; i++) { t = A[i]; u = t * t; A[i] = u; }
        __pencil_kill(u);
        #pragma endscop
        __pencil_kill(t);
        return t + u;
    """) == [(["t", "u"], {})]


def test_a_value_read_before_it_is_written_in_the_region_is_kept(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        double s = 0.0, t;
        t = A[0];
        #pragma scop
        for (i = 0; i < n; i++) { s = s + A[i]; t = t * 0.5; }
        #pragma endscop
        return 0.0;
    """) == [([], {"s": "initialised at its declaration", "t": "its value from before the region is read in it"})]


def test_parameters_passed_by_value(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        #pragma scop
        for (i = 0; i < n; i++) { a = A[i] * 0.5; A[i] = a + b; b = b + 1.0; }
        #pragma endscop
        return 0.0;
    """, params="int n, double A[n], double a, double b") == [(["a"], {"b": "a parameter whose value the region reads"})]


def test_regions_inside_loops_of_the_function(tmp_path):
    assert kept_and_local(tmp_path, """
        int i, r;
        double w, v;
        for (r = 0; r < 2; r++) {
        #pragma scop
          for (i = 1; i < n; i++) { w = A[i - 1]; v = v + w; A[i] = w; }
        #pragma endscop
        }
        return 0.0;
    """) == [(["w"], {"v": "the region is inside a loop of the function"})]


def test_address_taken_is_kept(tmp_path):
    assert kept_and_local(tmp_path, """
        int i;
        double t, *p = &t;
        #pragma scop
        for (i = 0; i < n; i++) { t = A[i]; A[i] = t * t; }
        #pragma endscop
        return *p;
    """) == [([], {"t": "its address is taken"})]
