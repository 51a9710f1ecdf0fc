# SPDX-License-Identifier: MIT
"""``python -m test_suite.bench.compare OLD.json NEW.json``: one compiler's speed in two bench runs.

Input: two ``--json`` documents of ``python -m test_suite.bench`` (say, before and after a
change), the compiler to compare (``--compiler``, default ``pencilcc``) and the reference
that normalises each run (``--reference``, default ``gcc``).  Output: per kernel present in
both (same label and sizes) the compiler's median seconds in each run, each normalised by
the reference's median in the same run, and ``new/old`` of the normalised times (above 1:
slower than before), then their geometric mean.  Normalising by gcc's time in the same run
takes out what changed in the machine between the runs (load, clock) as far as gcc feels it.

A kernel where either run has no usable time (a failure, a mismatch, no reference time)
is listed and left out of the geomean.  ``--limit R`` makes the exit status 1 when the
geomean is above ``R`` (e.g. ``--limit 1.03``: at most 3% slower); 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

from test_suite.bench.report import geometric_mean


@dataclass(frozen=True)
class Row:
    """One kernel in both runs."""

    kernel: str
    size: str
    old: Optional[float]
    old_reference: Optional[float]
    new: Optional[float]
    new_reference: Optional[float]

    @staticmethod
    def _normalised(value: Optional[float], reference: Optional[float]) -> Optional[float]:
        if value is None or not reference or reference <= 0:
            return None
        return value / reference

    @property
    def old_normalised(self) -> Optional[float]:
        return self._normalised(self.old, self.old_reference)

    @property
    def new_normalised(self) -> Optional[float]:
        return self._normalised(self.new, self.new_reference)

    @property
    def change(self) -> Optional[float]:
        """New over old of the normalised times (above 1: slower than before)."""
        old, new = self.old_normalised, self.new_normalised
        if old is None or new is None or old <= 0:
            return None
        return new / old


class CompareError(Exception):
    pass


def load(path: Path) -> dict[str, Any]:
    """A bench JSON document; CompareError when it cannot be read or is not one."""
    try:
        document = json.loads(path.read_text())
    except OSError as exc:
        raise CompareError(f"cannot read '{path}': {exc.strerror or exc}") from None
    except ValueError as exc:
        raise CompareError(f"'{path}' is not JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise CompareError(f"'{path}' is not a bench --json document (no 'results' list)")
    return document


def usable_median(result: dict[str, Any], compiler: str) -> Optional[float]:
    """``compiler``'s median in one kernel's result, if it ran and matched the reference."""
    for outcome in result.get("outcomes", []):
        if outcome.get("compiler") == compiler:
            median = outcome.get("median")
            if outcome.get("error") or outcome.get("mismatches") or not isinstance(median, (int, float)):
                return None
            return float(median)
    return None


def _by_kernel(document: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r.get("kernel", "?"), " ".join(r.get("size", []))): r for r in document["results"]}


def compare(old: dict[str, Any], new: dict[str, Any], compiler: str, reference: str) -> list[Row]:
    """The kernels of both runs (in the new run's order), with ``compiler``'s and ``reference``'s medians."""
    before = _by_kernel(old)
    rows = []
    for key, result in _by_kernel(new).items():
        if key not in before:
            continue
        rows.append(Row(key[0], key[1], usable_median(before[key], compiler), usable_median(before[key], reference),
                        usable_median(result, compiler), usable_median(result, reference)))
    return rows


def _seconds(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3g}"


def _ratio(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.3f}"


def format_rows(rows: Sequence[Row], compiler: str, reference: str) -> str:
    header = ["kernel", "size", f"old {compiler}", f"old {reference}", f"new {compiler}", f"new {reference}",
              f"old {compiler}/{reference}", f"new {compiler}/{reference}", "new/old"]
    table = [[r.kernel, r.size or "defaults", _seconds(r.old), _seconds(r.old_reference), _seconds(r.new),
              _seconds(r.new_reference), _ratio(r.old_normalised), _ratio(r.new_normalised), _ratio(r.change)]
             for r in rows]
    changes = [r.change for r in rows if r.change is not None]
    mean = geometric_mean(changes)
    table.append(["geomean", "", "", "", "", "", "", "", _ratio(mean)])
    widths = [max(len(row[i]) for row in [header, *table]) for i in range(len(header))]
    lines = [f"{compiler}: median kernel seconds in each run, normalised by {reference}'s in the same run; "
             "new/old above 1: slower than before",
             *("  ".join(cell.ljust(widths[i]) if i < 2 else cell.rjust(widths[i])
                         for i, cell in enumerate(row)).rstrip() for row in [header, *table])]
    lines.append(f"geomean over {len(changes)} of {len(rows)} kernels in both runs"
                 + (f"; left out (no usable time in a run): {', '.join(r.kernel for r in rows if r.change is None)}"
                    if len(changes) < len(rows) else ""))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m test_suite.bench.compare",
                                     description="Compare one compiler's kernel times in two bench --json runs, "
                                                 "each normalised by the reference compiler's in its own run.")
    parser.add_argument("old", type=Path, help="the earlier run's --json file")
    parser.add_argument("new", type=Path, help="the later run's --json file")
    parser.add_argument("--compiler", default="pencilcc", help="the compiler to compare (default pencilcc)")
    parser.add_argument("--reference", default="gcc", help="the compiler that normalises each run (default gcc)")
    parser.add_argument("--limit", type=float, metavar="R",
                        help="exit status 1 when the geomean of new/old is above R (e.g. 1.03)")
    args = parser.parse_args(argv)
    try:
        old, new = load(args.old), load(args.new)
    except CompareError as exc:
        print(f"compare: error: {exc}", file=sys.stderr)
        return 2
    rows = compare(old, new, args.compiler, args.reference)
    if not rows:
        print("compare: error: no kernel (with the same sizes) in both runs", file=sys.stderr)
        return 2
    print(format_rows(rows, args.compiler, args.reference))
    mean = geometric_mean([r.change for r in rows if r.change is not None])
    if args.limit is not None:
        if mean is None:
            print(f"compare: no kernel has a usable time in both runs for {args.compiler}", file=sys.stderr)
            return 1
        if mean > args.limit:
            print(f"compare: geomean new/old {mean:.3f} is above the limit {args.limit:g}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
