# SPDX-License-Identifier: MIT
"""-fpencil-report=FILE: the HTML page of a build (issue 29, item 5).

The page of gemm's build (`-o g`) is written and the program still prints what gcc -O0's
prints; the page of gemm and jacobi-2d compiled in one command holds both, each region's
schedule tree exactly as -fpencil-save-schedule writes it, the loops with their decisions
(tiled, parallel, vectorised, fused, wavefront; why a loop is not parallel), the remarks
(without any -R flag) and the record's numbers (as -foptimization-record-file writes them).
The page needs nothing outside itself. Text from the sources and the compile is escaped (a
file name with `'` and `&`, a comment that would close the `<pre>` and open a script); a
fallback region shows its reason and reason id; a failed command writes no page; a bad path
is pencilcc's error. Where Chromium is installed, it renders the page headless to a PNG that
is checked to hold a picture (a small zlib PNG decoder below reads it).
"""
from __future__ import annotations

import html
import json
import shutil
import struct
import subprocess
import sys
import zlib
from html.parser import HTMLParser
from pathlib import Path

import islpy as isl
import pytest

from test_suite.e2e import harness

PENCILCC = [sys.executable, "-m", "clangpass"]
FLAGS = [*harness.KERNEL_CFLAGS, "-O3"]
GEMM = harness.POLYBENCH_DIR / "gemm.c"
JACOBI = harness.POLYBENCH_DIR / "jacobi-2d.c"


def _pencilcc(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([*PENCILCC, *args], capture_output=True, text=True, cwd=cwd)


class _Page(HTMLParser):
    """What a test reads of a page: the rows of each table (by class), the text of each
    `<pre class="schedule">`, the attributes of every tag."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.schedules: list[str] = []
        self.tags: list[tuple[str, dict]] = []
        self._table: list[str] = []
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._pre: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.append((tag, attrs))
        if tag == "table":
            self._table.append(attrs.get("class", ""))
            self.tables.setdefault(self._table[-1], [])
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "pre" and attrs.get("class") == "schedule":
            self._pre = []
        elif tag == "span" and self._cell is not None:
            self._cell.append("[")

    def handle_endtag(self, tag):
        if tag == "table":
            self._table.pop()
        elif tag == "tr" and self._row is not None and self._table:
            self.tables[self._table[-1]].append(self._row)
            self._row = None
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._cell = None
        elif tag == "pre" and self._pre is not None:
            self.schedules.append("".join(self._pre))
            self._pre = None
        elif tag == "span" and self._cell is not None:
            self._cell.append("]")

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._pre is not None:
            self._pre.append(data)


@pytest.fixture(scope="module")
def gemm_build(tmp_path_factory):
    """gemm linked with -fpencil-report: (folder, page text)."""
    folder = tmp_path_factory.mktemp("gemm")
    proc = _pencilcc(*FLAGS, "-fpencil-report=r.html", str(GEMM), "-o", "g", "-lm", cwd=folder)
    assert proc.returncode == 0, proc.stderr
    return folder, (folder / "r.html").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """gemm and jacobi-2d compiled (-c) in one command with the page, the schedule files and the
    record: (folder, page text, parsed page)."""
    folder = tmp_path_factory.mktemp("both")
    proc = _pencilcc(*FLAGS, "-fpencil-report=both.html", "-fpencil-save-schedule=saved",
                     "-foptimization-record-file=record.json", "-c", str(GEMM), str(JACOBI), cwd=folder)
    assert proc.returncode == 0, proc.stderr
    assert "remark" not in proc.stderr        # the page has the remarks; the command asked for none
    text = (folder / "both.html").read_text(encoding="utf-8")
    return folder, text, _Page(text)


def test_a_linked_build_writes_the_page_and_the_program_matches_gcc(gemm_build, tmp_path):
    folder, text = gemm_build
    assert text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")
    page = _Page(text)
    (summary,) = [row for row in page.tables["summary"][1:]]
    assert summary[0] == "kernel_gemm#0" and summary[2] == "[optimized]"
    harness.assert_matches_gcc_O0(GEMM, folder / "g", tmp_path, harness.KERNEL_CFLAGS, threads=(2,))


def test_one_page_holds_every_input_of_the_command(both):
    folder, text, page = both
    regions = [row[0] for row in page.tables["summary"][1:]]
    assert regions == ["kernel_gemm#0", "kernel_jacobi_2d#0"]
    assert f">{html.escape(str(GEMM))}</h2>" in text and f">{html.escape(str(JACOBI))}</h2>" in text


def test_the_page_needs_nothing_outside_itself(both):
    _, text, page = both
    lowered = text.lower()
    assert "<script" not in lowered and "url(" not in lowered and "@import" not in lowered
    for tag, attrs in page.tags:
        assert "src" not in attrs, tag
        if "href" in attrs:
            assert attrs["href"].startswith("#"), attrs
    anchors = {attrs["id"] for _, attrs in page.tags if "id" in attrs}
    assert {attrs["href"][1:] for _, attrs in page.tags if "href" in attrs} <= anchors


def test_each_schedule_tree_is_the_saved_one(both):
    folder, _, page = both
    saved = sorted((folder / "saved").glob("*.schedule.yaml"))
    assert [p.name for p in saved] == ["gemm.kernel_gemm.0.schedule.yaml",
                                       "jacobi-2d.kernel_jacobi_2d.0.schedule.yaml"]
    assert page.schedules == [p.read_text(encoding="utf-8") for p in saved]
    for tree in page.schedules:     # isl reads what the page shows
        schedule = isl.Schedule.read_from_str(isl.Context(), tree)
        assert schedule.get_domain().n_set() == 2


def _loops(page: _Page, region: int) -> list[list[str]]:
    """The rows of the loops table of the `region`-th optimized region (header dropped)."""
    tables, rows = [], None
    for row in page.tables["loops"]:
        if row[0] == "loop":
            rows = []
            tables.append(rows)
        else:
            rows.append(row)
    return tables[region]


def test_gemm_loops_say_what_was_tiled_parallelised_vectorised_and_fused(both):
    _, _, page = both
    rows = _loops(page, 0)
    loops = [row[0].replace("\xa0", "").strip() for row in rows]
    assert loops[:3] == ["for tiles of i", "for tiles of j", "for tiles of k"]
    decisions = {loop: row[2] for loop, row in zip(loops, rows)}
    why = {loop: row[3] for loop, row in zip(loops, rows)}
    assert "[tiled: loop over tiles]" in decisions["for tiles of i"]
    assert "[parallel (threads)]" in decisions["for tiles of i"] and why["for tiles of i"] == ""
    # S_0 and S_1 share the source's i loop but had j loops of their own: fusion put them in one.
    assert "fused" not in decisions["for tiles of i"] and "fused" in decisions["for tiles of j"]
    assert why["for tiles of k"] == "not parallel: it carries a dependence"
    assert "inside the parallel loop 'for tiles of i'" in why["for tiles of j"]
    vector = [row for row in rows if "[vectorised]" in row[2]]
    # C *= beta (S_0) runs in a nest of its own before the register tiles (register-tile's
    # initialisations first), each with its vectorised j loop; the register tiles of the columns
    # left after the last full column block (half a vector wide: nj mod 4 >= 2) have their own
    assert len(vector) == 3 and all(row[0].strip().endswith("for j") and "[tiled: loop in a tile]" in row[2]
                                    for row in vector), vector
    assert " ".join(row[1] for row in vector).count("S_0") == 1 and "S_1" in " ".join(row[1] for row in vector)
    assert sum("[parallel (threads)]" in row[2] for row in rows) == 1


def test_jacobi_loops_show_the_wavefront_and_the_time_loop_carried(both):
    _, _, page = both
    rows = _loops(page, 1)
    first = rows[0]
    assert first[0].strip() == "for tiles of t, i" and "[wavefront]" in first[2]
    assert first[3] == "not parallel: it carries a dependence"
    assert any("[parallel (threads)]" in row[2] for row in rows)
    assert sum("[vectorised]" in row[2] for row in rows) == 2


def test_the_record_numbers_and_remarks_are_the_compiles(both):
    folder, text, page = both
    record = json.loads((folder / "record.json").read_text())
    shown = page.tables["record"]
    tables, current = [], None
    for row in shown:
        if row == ["key", "value"]:
            current = {}
            tables.append(current)
        else:
            current[row[0]] = row[1]
    assert len(tables) == len(record["regions"]) == 2
    for table, region in zip(tables, record["regions"]):
        assert list(table) == list(region)
        for key in ("tiled_bands", "tile_sizes", "parallel_loops", "vector_loops", "fusion", "status",
                    "alias_checks", "reason_id"):
            value = region[key]
            assert table[key] == (value if isinstance(value, str) else json.dumps(value)), key
    # -Rpass=pencil's remark, though the command had no -R flag.
    tiled = record["regions"][0]["tile_sizes"]
    assert html.escape(f"region in 'kernel_gemm' optimized: 2 statements, 1 tiled bands {tiled}", quote=True) in text


ESCAPING = r"""
void kernel(int n, double A[restrict 100], double B[restrict 100])
{
  int i;
#pragma scop
  for (i = 0; i < n && i < 100; i++)
    A[i] = B[i] < 0.5 ? 1.0 : 2.0;  /* </pre></td></table><script>alert("x & y")</script> */
#pragma endscop
#pragma scop
  for (i = 0; i < n; i++) {
    if (B[i] > 9.0) goto out;
    A[i] = 3.0;
  }
out:;
#pragma endscop
}
"""


def test_everything_from_the_source_is_escaped_and_a_fallback_shows_its_reason(tmp_path):
    source = tmp_path / "it's a&b.c"
    source.write_text(ESCAPING)
    proc = _pencilcc(*FLAGS, "-Wno-pencil", "-fpencil-report=r.html", "-c", source.name, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "<script" not in text and "alert" in text
    assert "&lt;/pre&gt;&lt;/td&gt;&lt;/table&gt;&lt;script&gt;alert(&quot;x &amp; y&quot;)" in text
    assert "i &lt; n &amp;&amp; i &lt; 100" in text
    assert "it&#x27;s a&amp;b.c" in text and "it's a&b.c" not in text
    page = _Page(text)
    statuses = [row[2] for row in page.tables["summary"][1:]]
    assert statuses == ["[optimized]", "[fallback]"]
    assert "reason_id: pencil-goto (-Wpencil-goto)" in html.unescape(
        text[text.index('<p class="reason">not optimized'):].split("</p>", 1)[0].replace("<br>", " ")
        .replace("<code>", "").replace("</code>", ""))
    record = page.tables["record"]
    assert ["reason_id", "pencil-goto"] in record and ["status", "fallback"] in record


def test_a_failed_command_writes_no_page(tmp_path):
    source = tmp_path / "k.c"
    source.write_text(ESCAPING)
    proc = _pencilcc(*FLAGS, "-Werror=pencil", "-fpencil-report=r.html", "-c", "k.c", cwd=tmp_path)
    assert proc.returncode == 1 and "error:" in proc.stderr
    assert not (tmp_path / "r.html").exists() and not (tmp_path / "k.o").exists()


@pytest.mark.parametrize("value, message", [
    ("", "'-fpencil-report=' expects a file name"),
    ("{tmp}", "is a folder; name the HTML file to write"),
    ("{tmp}/no/such/r.html", "cannot write '{tmp}/no/such/r.html': no folder '{tmp}/no/such'"),
])
def test_a_bad_path_is_pencilccs_error(tmp_path, capfd, value, message):
    from clangpass.driver.main import main
    (tmp_path / "k.c").write_text("int f(void) { return 1; }\n")
    value, message = value.format(tmp=tmp_path), message.format(tmp=tmp_path)
    assert main(["-O3", f"-fpencil-report={value}", "-c", str(tmp_path / "k.c"), "-o", str(tmp_path / "k.o")]) == 1
    err = capfd.readouterr().err
    assert err.startswith("pencilcc: error: ") and message in err and "Traceback" not in err
    assert not (tmp_path / "k.o").exists()


def test_a_page_may_not_overwrite_an_input(tmp_path):
    source = tmp_path / "k.c"
    source.write_text("int f(void) { return 1; }\n")
    proc = _pencilcc("-O3", "-fpencil-report=k.c", "-c", "k.c", cwd=tmp_path)
    assert proc.returncode == 1 and "k.c" in proc.stderr
    assert source.read_text() == "int f(void) { return 1; }\n"


# ----------------------------------------------------------------------------- the browser
def _browser() -> str:
    return next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), "")


def _png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the unfiltered rows of an 8-bit RGB or RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and interlace == 0, header
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        kind = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for x in range(bpp, stride):
                line[x] = (line[x] + line[x - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:
            for x in range(stride):
                left = line[x - bpp] if x >= bpp else 0
                line[x] = (line[x] + ((left + previous[x]) >> 1)) & 0xFF
        elif kind == 4:
            for x in range(stride):
                a = line[x - bpp] if x >= bpp else 0
                b, c = previous[x], previous[x - bpp] if x >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line))
        previous = line
    return width, height, rows


@pytest.mark.skipif(not _browser(), reason="no Chromium (chromium, chromium-browser or google-chrome) installed")
def test_chromium_renders_the_page_of_gemm_and_jacobi(both, tmp_path):
    folder, _, _ = both
    shot = tmp_path / "page.png"
    proc = subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
                           "--window-size=900,1200", (folder / "both.html").as_uri()],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and shot.exists(), proc.stderr[-2000:]
    data = shot.read_bytes()
    assert len(data) > 20_000, len(data)
    width, height, rows = _png_pixels(data)
    assert (width, height) == (900, 1200)
    bpp = len(rows[0]) // width
    colours: dict[bytes, int] = {}
    for row in rows[::4]:
        for x in range(0, len(row), bpp * 2):
            pixel = row[x:x + 3]
            colours[pixel] = colours.get(pixel, 0) + 1
    background, most = max(colours.items(), key=lambda kv: kv[1])
    total = sum(colours.values())
    assert len(colours) > 50, len(colours)             # text, badges, table rules: many colours
    assert most < 0.97 * total, (background, most, total)   # not one colour with specks
