# SPDX-License-Identifier: MIT
"""-fpencil-report=FILE: one self-contained HTML page of what pencilcc did in one build.

Input: the command line, and for each C input of the build an `InputReport`: its path, its
text, its regions' outcomes (clangpass.report.RegionOutcome, or the driver's detached copies
of them) and, for a file of which nothing was analysed, its fallback (clangpass.rejects.Reject).
Output: the page, a string. It needs nothing but itself: the style sheet is inline, there is
no script, no image, no link outside the page (only `#` anchors between its own sections).

For each region: its source text (line numbers; the lines of its statements flagged with
their names, `S_0`...) beside its final schedule tree (isl's YAML, what
-fpencil-save-schedule writes); a table of the loops of that tree (clangpass.poly.schedule_loops)
with what was decided for each (tiled, parallel, vector, fused, register tile, wavefront) and,
for a loop not run on threads or not vectorised, why, as far as the schedule and the
dependences tell; the region's decisions from its record (tile sizes, fusion, why it was not
tiled, why the source order was kept...), every -Rpass=pencil and -Rpass-missed=pencil remark
it gives (whatever the command line's -R options), and every key of its optimisation record
(the same values as `-fsave-optimization-record`). A fallback region shows its reason and
reason id. Every text that comes from the input or the compile is HTML-escaped.
"""
from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Optional, Sequence

from clangpass.diagnostics import DiagnosticEngine
from clangpass.poly.schedule_loops import LoopFact
from clangpass.poly.validity import PARALLEL_MARK, VECTOR_MARK
from clangpass.rejects import Reject, option as reject_option
from clangpass.report import Status, report_outcomes


@dataclass(frozen=True)
class InputReport:
    """One C input of the build, as the page shows it."""

    path: str
    text: str                                   # its contents (decoded, undecodable bytes replaced)
    outcomes: Sequence[object] = ()             # RegionOutcome (or the driver's DetachedOutcome)
    fallback: Optional[Reject] = None           # why nothing of it was analysed
    headers: dict[str, str] = field(default_factory=dict)   # other files regions lie in: path -> text
    note: str = ""                              # what the page says instead of its regions


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; background: #fff; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #d0d7de; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.4em; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.85em; }
pre { margin: 0; white-space: pre; }
.command { background: #f6f8fa; padding: 0.5em; border-radius: 4px; overflow-x: auto; }
table { border-collapse: collapse; margin: 0.3em 0 1em; }
th, td { border: 1px solid #d0d7de; padding: 0.25em 0.6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
.side { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1em; }
.pane { border: 1px solid #d0d7de; border-radius: 4px; overflow: auto; max-height: 40em; }
.pane h3 { margin: 0; padding: 0.3em 0.6em; background: #f6f8fa; border-bottom: 1px solid #d0d7de; }
.source td { border: none; padding: 0 0.5em; }
.source td.n { color: #8c959f; text-align: right; user-select: none; }
.source tr.stmt { background: #fff8c5; }
.source td.s { color: #9a6700; font-weight: bold; }
.schedule { padding: 0.4em 0.6em; }
.badge { display: inline-block; padding: 0 0.45em; margin: 0.1em; border-radius: 0.8em; font-size: 0.8em;
         border: 1px solid; white-space: nowrap; }
.optimized { background: #dafbe1; border-color: #1a7f37; color: #1a7f37; }
.fallback { background: #ffebe9; border-color: #cf222e; color: #cf222e; }
.tiled { background: #ddf4ff; border-color: #0969da; color: #0969da; }
.parallel { background: #fbefff; border-color: #8250df; color: #8250df; }
.vector { background: #fff1e5; border-color: #bc4c00; color: #bc4c00; }
.fused { background: #dafbe1; border-color: #1a7f37; color: #1a7f37; }
.other { background: #f6f8fa; border-color: #57606a; color: #57606a; }
.why { color: #57606a; }
.reason { background: #ffebe9; padding: 0.5em; border-radius: 4px; }
ul.remarks li { margin: 0.2em 0; }
details { margin: 0.5em 0; }
"""


def render_page(command: str, inputs: Sequence[InputReport]) -> str:
    """The page of one build (see the module's doc)."""
    body: list[str] = [
        "<h1>pencilcc report</h1>",
        f"<p class=\"command\"><code>{_e(command)}</code></p>",
    ]
    regions = [(i, k, o) for i, item in enumerate(inputs) for k, o in enumerate(item.outcomes)]
    body.append(_summary(inputs, regions))
    for i, item in enumerate(inputs):
        body.append(f"<h2 id=\"input-{i}\">{_e(item.path)}</h2>")
        if item.note:
            body.append(f"<p>{_e(item.note)}.</p>")
        elif item.fallback is not None:
            body.append(_fallback_reason(item.fallback.reason, item.fallback.id,
                                         "PENCIL code not optimized, the file is compiled by the host "
                                         "compiler unchanged"))
        elif not item.outcomes:
            body.append("<p>No region: the host compiler compiles this file as it is.</p>")
        for k, outcome in enumerate(item.outcomes):
            body.append(_region(i, k, outcome, item))
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>pencilcc report</title>\n"
            f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n")


def _summary(inputs: Sequence[InputReport], regions: list[tuple[int, int, object]]) -> str:
    rows = ["<table class=\"summary\"><tr><th>region</th><th>where</th><th>status</th><th>tiled bands</th>"
            "<th>parallel loops</th><th>vector loops</th><th>fusion</th></tr>"]
    for i, k, o in regions:
        record = o.as_record()
        optimized = o.status == Status.OPTIMIZED
        rows.append(
            f"<tr><td><a href=\"#region-{i}-{k}\">{_e(o.region.label)}</a></td>"
            f"<td class=\"mono\">{_e(record['file'])}:{_e(record['line'])}</td>"
            f"<td>{_status_badge(o)}</td>"
            + "".join(f"<td>{_e(record.get(key, '')) if optimized else ''}</td>"
                      for key in ("tiled_bands", "parallel_loops", "vector_loops", "fusion"))
            + "</tr>")
    for i, item in enumerate(inputs):
        if item.fallback is not None:
            rows.append(f"<tr><td><a href=\"#input-{i}\">(whole file)</a></td><td class=\"mono\">{_e(item.path)}"
                        f"</td><td><span class=\"badge fallback\">fallback</span></td>"
                        "<td></td><td></td><td></td><td></td></tr>")
    rows.append("</table>")
    if len(rows) == 2:
        return "<p>No PENCIL region in this build.</p>"
    return "\n".join(rows)


def _status_badge(o: object) -> str:
    status = Status(o.status)
    return f"<span class=\"badge {status.value}\">{_e(status.value)}</span>"


def _fallback_reason(reason: str, reason_id: str, what: str) -> str:
    option = f" (<code>{_e(reject_option(reason_id))}</code>)" if reason_id else ""
    return (f"<p class=\"reason\">{_e(what)}: {_e(reason)}<br>reason_id: <code>{_e(reason_id or '-')}</code>"
            f"{option}</p>")


def _region(i: int, k: int, o: object, item: InputReport) -> str:
    region = o.region
    record = o.as_record()
    out = [f"<h3 id=\"region-{i}-{k}\">Region <code>{_e(region.label)}</code> ({_e(region.kind)}) at "
           f"<span class=\"mono\">{_e(region.loc.file)}:{_e(region.loc.line)}</span> {_status_badge(o)}</h3>"]
    if o.status != Status.OPTIMIZED:
        out.append(_fallback_reason(o.reason, o.reason_id, "not optimized, compiled by the host compiler"))
    elif o.reason:
        out.append(f"<p class=\"reason\">partly missed: {_e(o.reason)}</p>")
    schedule = (f"<pre class=\"schedule\">{_e(o.schedule_text)}</pre>" if o.schedule_text else
                "<p class=\"schedule\">No schedule: the region was not optimized.</p>")
    out.append("<div class=\"side\">"
               f"<div class=\"pane\"><h3>Source</h3>{_source(region, item, dict(o.statement_lines))}</div>"
               f"<div class=\"pane\"><h3>Final schedule tree</h3>{schedule}</div></div>")
    if o.status == Status.OPTIMIZED:
        out.append("<h3>Loops</h3>")
        out.append(_loops(o.loops, record.get("target", "")))
        out.append("<h3>Decisions</h3>")
        out.append(_decisions(record))
    out.append("<h3>Remarks</h3>")
    out.append(_remarks(o))
    out.append("<details><summary>Optimisation record</summary>")
    out.append(_record_table(record))
    out.append("</details>")
    return "\n".join(out)


def _source(region: object, item: InputReport, statements: dict[str, int]) -> str:
    """The region's lines of its file, numbered, its statements' lines flagged."""
    extent = region.extent
    file = extent.file if extent is not None else region.loc.file
    text = item.text if file == item.path else item.headers.get(file)
    if text is None:
        return f"<p>The text of <code>{_e(file)}</code> is not available.</p>"
    lines = text.splitlines()
    first = min(region.loc.line, extent.start.line) if extent is not None else region.loc.line
    last = extent.end.line if extent is not None else region.loc.line
    # A `#pragma scop` region's text runs to its `#pragma endscop`, when there is one just after.
    if region.kind == "scop" and last < len(lines) and "endscop" in lines[last]:
        last += 1
    names: dict[int, list[str]] = {}
    for name, line in statements.items():
        names.setdefault(line, []).append(name)
    rows = ["<table class=\"source mono\">"]
    for n in range(max(first, 1), min(last, len(lines)) + 1):
        flagged = names.get(n)
        row = "<tr class=\"stmt\">" if flagged else "<tr>"
        rows.append(f"{row}<td class=\"n\">{n}</td>"
                    f"<td class=\"s\">{_e(', '.join(sorted(flagged)) if flagged else '')}</td>"
                    f"<td><pre>{_e(lines[n - 1])}</pre></td></tr>")
    rows.append("</table>")
    return "".join(rows)


def _loop_name(loop: LoopFact) -> str:
    iterators = ", ".join(loop.iterators)
    if loop.roles[:1] == ("tile",):
        return f"tiles of {iterators}"
    return iterators


def _loops(loops: Sequence[LoopFact], target: str) -> str:
    if not loops:
        return "<p>No loop (or isl could not walk the schedule tree).</p>"
    rows = ["<table class=\"loops\"><tr><th>loop</th><th>statements</th><th>decisions</th>"
            "<th>not parallel / not vector, because</th><th>partial schedule</th></tr>"]
    for index, loop in enumerate(loops):
        rows.append(f"<tr><td class=\"mono\">{'&nbsp;' * 2 * loop.depth}for {_e(_loop_name(loop))}</td>"
                    f"<td class=\"mono\">{_e(', '.join(loop.statements))}</td>"
                    f"<td>{_loop_badges(loop, target)}</td><td class=\"why\">{_e(_why_not(loops, index))}</td>"
                    f"<td class=\"mono\">{_e(loop.schedule)}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _loop_badges(loop: LoopFact, target: str) -> str:
    badges: list[tuple[str, str]] = []
    if "tile" in loop.roles:
        badges.append(("tiled", "tiled: loop over tiles"))
    if "point" in loop.roles:
        badges.append(("tiled", "tiled: loop in a tile"))
    if "register-tile" in loop.roles:
        badges.append(("tiled", "register tile"))
    if PARALLEL_MARK in loop.marks:
        # The CPU runs the outermost parallel loop on threads; OpenCL maps it to work-items.
        badges.append(("parallel", "parallel (work-items)" if target == "opencl" else "parallel (threads)"))
    if VECTOR_MARK in loop.marks:
        badges.append(("vector", "vectorised"))
    if loop.fused:
        badges.append(("fused", f"fused: {', '.join(loop.statements)} from loops apart in the source"))
    for mark in loop.marks:
        if mark not in (PARALLEL_MARK, VECTOR_MARK):
            badges.append(("other", mark))
    if not badges:
        badges.append(("other", "sequential"))
    return "".join(f"<span class=\"badge {cls}\">{_e(text)}</span>" for cls, text in badges)


def _why_not(loops: Sequence[LoopFact], index: int) -> str:
    """Why loop `index` is not run on threads, and (an innermost one) not vectorised; '' if it is both
    that can be."""
    loop = loops[index]
    reasons: list[str] = []
    # A loop marked parallel has independent iterations (the mark's contract, clangpass.poly.codegen_unit).
    carried = "" if PARALLEL_MARK in loop.marks else {
        True: "it carries a dependence", False: "", None: "its dependences are not known"}[loop.carries_dependence]
    if PARALLEL_MARK not in loop.marks:
        outer = _enclosing_parallel(loops, index)
        if carried:
            reasons.append(f"not parallel: {carried}")
        elif outer is not None:
            reasons.append(f"not on threads: it runs inside the parallel loop 'for {_loop_name(outer)}' "
                           "(only the outermost parallel loop gets threads)")
        elif VECTOR_MARK not in loop.marks:
            reasons.append("not on threads: it carries no dependence, but mark-parallel did not choose it "
                           "(see the remarks)")
    if loop.innermost and VECTOR_MARK not in loop.marks:
        reasons.append(f"not vectorised: {carried}" if carried else
                       "not vectorised by pencilcc: mark-vector did not mark it (LLVM's vectoriser may still)")
    return "; ".join(reasons)


def _enclosing_parallel(loops: Sequence[LoopFact], index: int) -> Optional[LoopFact]:
    depth = loops[index].depth
    for k in range(index - 1, -1, -1):
        if loops[k].depth < depth:
            if PARALLEL_MARK in loops[k].marks:
                return loops[k]
            depth = loops[k].depth
    return None


# What the record says of the region's decisions: (key, label), shown when they hold something.
_DECISIONS = (
    ("tiled_bands", "tiled bands"), ("tile_sizes", "tile sizes"), ("untiled_reason", "why not tiled"),
    ("parallel_loops", "parallel loops"), ("parallel_regions", "places that start threads"),
    ("thread_teams", "thread teams"), ("vector_loops", "vector loops"),
    ("register_tiled_bands", "register-tiled bands"), ("packed_arrays", "packed panels"),
    ("jammed_loops", "unroll-and-jammed loops"), ("row_blocks", "nests in blocks of rows"),
    ("fusion", "fusion"), ("fusion_reason", "why this fusion"), ("wavefronts", "wavefronts"),
    ("source_order", "source order kept"), ("source_order_reason", "why the source order"),
    ("reordered_bands", "reordered bands"), ("split_statements", "split statements"),
    ("alias_checks", "run-time alias checks"), ("privatized_arrays", "privatized arrays"),
    ("demoted_scalars", "demoted scalars"),
)


def _decisions(record: dict) -> str:
    rows = ["<table class=\"decisions\">"]
    for key, label in _DECISIONS:
        value = record.get(key)
        if value in (None, "", [], {}) and key not in ("tiled_bands", "parallel_loops", "vector_loops"):
            continue
        rows.append(f"<tr><th>{_e(label)}</th><td>{_e(_plain(value))}</td></tr>")
    for fact in record.get("storage", ()):
        what = fact.get("technique") or f"kept ({fact.get('why_not', '')})"
        rows.append(f"<tr><th>array {_e(fact.get('array', ''))}</th><td>{_e(what)}</td></tr>")
    rows.append("</table>")
    return "\n".join(rows)


def _remarks(o: object) -> str:
    engine = DiagnosticEngine()
    report_outcomes(engine, [o], remarks=True, missed_remarks=True)
    items = [f"<li><span class=\"badge {'fallback' if d.severity != 'remark' else 'other'}\">{_e(d.severity)}"
             f"</span> {_e(d.message)} <code>[{_e(d.option or d.id)}]</code></li>" for d in engine.sorted()]
    return f"<ul class=\"remarks\">{''.join(items)}</ul>" if items else "<p>No remark.</p>"


def _plain(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _record_table(record: dict) -> str:
    rows = ["<table class=\"record\"><tr><th>key</th><th>value</th></tr>"]
    rows += [f"<tr><td class=\"mono\">{_e(key)}</td><td class=\"mono\">{_e(_plain(value))}</td></tr>"
             for key, value in record.items()]
    rows.append("</table>")
    return "\n".join(rows)
