# SPDX-License-Identifier: MIT
"""-fpencil-tile-sizes=: the rules' syntax, which rule names a band, what does not fit
(clangpass.tile_spec), and the flag on the command line (clangpass.driver.cli)."""
from __future__ import annotations

import pytest

from clangpass.driver.cli import CommandLineError, parse_command_line
from clangpass.tile_spec import DIRECT, FLAG, MODEL, TUNED, TileSizeRule, TileSpecError, choose, parse_rule, parse_rules


def test_rule_forms() -> None:
    assert parse_rules("32,64") == (TileSizeRule("", -1, (32, 64)),)
    assert parse_rules("gemm=16") == (TileSizeRule("gemm", -1, (16,)),)
    assert parse_rules("kernel_fn:0=32,32,8") == (TileSizeRule("kernel_fn", 0, (32, 32, 8)),)
    assert parse_rules("f#1:2=4, 8 ; g=1") == (TileSizeRule("f#1", 2, (4, 8)), TileSizeRule("g", -1, (1,)))


def test_direct_variant_rules() -> None:
    """`direct:` before a rule names the direct variant of a tiled OpenCL kernel's band: its own
    rules, apart from the band's; `direct:0=8` is band 0 of a function named `direct`."""
    assert parse_rules("direct:kernel_gemm:0=2,64; direct:8,8; direct:f#1=4") == (
        TileSizeRule("kernel_gemm", 0, (2, 64), DIRECT), TileSizeRule("", -1, (8, 8), DIRECT),
        TileSizeRule("f#1", -1, (4,), DIRECT))
    assert parse_rule("direct:0=8") == TileSizeRule("direct", 0, (8,))
    assert parse_rule("direct:direct:0=8") == TileSizeRule("direct", 0, (8,), DIRECT)
    for rule in parse_rules("direct:kernel_gemm:0=2,64; direct:8,8; direct:0=8; direct:direct:0=8; f=1"):
        assert parse_rule(rule.text()) == rule          # text() spells what parses back
    with pytest.raises(TileSpecError, match="'x' in '3,x' is not a size"):
        parse_rule("direct:3,x")
    rules = parse_rules("f:0=16,16,2,2; direct:f:0=1,128; direct:f=4,4")
    plain = choose(rules, (), "f", "f", 0, 2, (16, 16, 0, 0))
    assert (plain.sizes, plain.source) == ((16, 16, 2, 2), FLAG)       # the plain rule only
    direct = choose(rules, (), "f", "f", 0, 2, (16, 16), DIRECT)
    assert (direct.sizes, direct.source) == ((1, 128), FLAG)
    assert choose(rules, (), "f", "f", 1, 2, (16, 16), DIRECT).sizes == (4, 4)
    assert choose((), parse_rules("direct:f=8,32"), "f", "f", 0, 2, (16, 16), DIRECT).source == TUNED
    # Only the work-group: points per work-item do not fit a direct variant.
    points = choose(parse_rules("direct:f=8,8,2,2"), (), "f", "f", 0, 2, (16, 16), DIRECT)
    assert points.source == MODEL and "the direct variant of band 0" in points.problem
    # A direct rule sizes no plain band (the CPU target's tiling included), and back.
    assert choose(parse_rules("direct:9,9"), (), "f", "f", 0, 2, (1, 2)).source == MODEL
    assert choose(parse_rules("9,9"), (), "f", "f", 0, 2, (1, 2), DIRECT).source == MODEL
    assert not TileSizeRule("", -1, (9,), DIRECT).matches("f", "f", 0)


def test_file_with_comments_and_labels() -> None:
    text = "# sizes for the run on the big box\n\nf#1=8,8   # second scop of f\n  g:1=2\n"
    assert parse_rules(text) == (TileSizeRule("f#1", -1, (8, 8)), TileSizeRule("g", 1, (2,)))


@pytest.mark.parametrize("text, why", [
    ("x=", "is not SIZES"), ("3,a", "'a' in '3,a' is not a size"), ("f:x=3", "is not SIZES"),
    ("-3", "'-3' in '-3' is not a size"), ("=3", "is not SIZES"), ("f:0", "'f:0' in 'f:0' is not a size"),
    ("3,,4", "'' in '3,,4' is not a size"), ("f=3=4", "is not SIZES")])
def test_bad_rules(text: str, why: str) -> None:
    with pytest.raises(TileSpecError, match=why):
        parse_rules(text)


def test_most_specific_rule_wins_then_the_last() -> None:
    rules = parse_rules("1,1; f=2,2; f:1=3,3; f#1=4,4; f=5,5")
    pick = lambda label, band: choose(rules, (), label, "f", band, 2, (9, 9)).sizes  # noqa: E731
    assert pick("f", 0) == (5, 5)          # function rules, the last of them
    assert pick("f", 1) == (3, 3)          # a band number beats every band
    assert pick("f#1", 0) == (4, 4)        # the label beats the function name
    assert choose(rules, (), "g", "g", 0, 2, (9, 9)).sizes == (1, 1)


def test_sources_and_what_does_not_fit() -> None:
    flag, tuned = parse_rules("f:0=8"), parse_rules("f=16,16,16; g=0,4")
    assert choose(flag, tuned, "f", "f", 0, 3, (1, 2, 3)) == choose(flag, (), "f", "f", 0, 3, (1, 2, 3))
    first = choose(flag, tuned, "f", "f", 0, 3, (1, 2, 3))
    assert (first.sizes, first.source) == ((8, 2, 3), FLAG)       # inner loops keep the default
    other = choose(flag, tuned, "f", "f", 1, 3, (1, 2, 3))
    assert (other.sizes, other.source) == ((16, 16, 16), TUNED)
    too_many = choose(flag, tuned, "f", "f", 1, 2, (1, 2))
    assert (too_many.sizes, too_many.source) == ((1, 2), MODEL)
    assert "3 sizes for a band of 2 loops" in too_many.problem
    zero = choose((), tuned, "g", "g", 0, 2, (1, 2))
    assert (zero.sizes, zero.source) == ((1, 2), MODEL) and "a size of 0" in zero.problem
    assert choose((), (), "h", "h", 0, 2, (1, 2)) == choose((), tuned, "h", "h", 0, 2, (1, 2))


def test_sizes_beyond_the_loops() -> None:
    """A band whose default is longer than its loops takes that many sizes (the OpenCL target's
    two-dimensional kernels: the work-group, then the points per work-item), and no more."""
    rules = parse_rules("f=8,32,2,1; g=8,32,2; h=1,2,3,4,5")
    assert choose(rules, (), "f", "f", 0, 2, (16, 16, 0, 0)).sizes == (8, 32, 2, 1)
    assert choose(rules, (), "g", "g", 0, 2, (16, 16, 0, 0)).sizes == (8, 32, 2, 0)
    five = choose(rules, (), "h", "h", 0, 2, (16, 16, 0, 0))
    assert (five.sizes, five.source) == ((16, 16, 0, 0), MODEL)
    assert "5 sizes for a band of 2 loops (at most 4)" in five.problem


def test_command_line(tmp_path) -> None:
    sizes = tmp_path / "sizes.txt"
    sizes.write_text("gemm:0=32,32,8\n# none\nmm2#1=16\n")
    config = parse_command_line(["-O3", "-c", "a.c", "-fpencil-tile-sizes=64,64", f"-fpencil-tile-sizes=@{sizes}"])
    assert config.options.tile_sizes == (TileSizeRule("", -1, (64, 64)), TileSizeRule("gemm", 0, (32, 32, 8)),
                                         TileSizeRule("mm2#1", -1, (16,)))
    assert config.options.tuned_tile_sizes == ()
    bad = tmp_path / "bad.txt"
    bad.write_text("gemm=8\nf:0=8,x\n")
    for flag, message in [("-fpencil-tile-sizes=8,x", "'-fpencil-tile-sizes=': 'x' in '8,x' is not a size"),
                          (f"-fpencil-tile-sizes=@{bad}", f"{bad}:2: 'x' in 'f:0=8,x' is not a size"),
                          ("-fpencil-tile-sizes=@/nonexistent/s", "cannot read '/nonexistent/s'"),
                          ("-fpencil-tile-sizes=", "expects sizes such as 32,64")]:
        with pytest.raises(CommandLineError, match=message):
            parse_command_line(["-O3", "-c", "a.c", flag])
