# SPDX-License-Identifier: MIT
"""The final schedule of a region, up to the names of its statements and loops (issue 28, item 4).

Input: the text of `pencilcc -fpencil-dump=scop,schedule` for one region. Output: a
`Shape`: the final schedule tree (the last `schedule` dump) with every statement named by
what it accesses and every loop dimension by the array subscripts it appears in, so that
two programs that compute the same thing in different loop orders (gemm written `i-k-j`
and `k-i-j`, test_suite/kernels/loop_orders.py) have equal shapes exactly when pencilcc
gave them the same schedule: the same bands with the same members (loops) in the same
order, the same coincident (parallel) flags, the same marks (`tile`, `parallel`, `point`,
`register-tile`, `vector`, ...) and sequences in the same statement order. Constants
(tile sizes, offsets, strides) are left out: a band member is the set of loops it runs
over per statement.

- A loop dimension's name is the sorted `array@position` list of the subscripts whose
  expression involves it (gemm's `i`: `A@0,C@0`; `k`: `A@1,B@0`); a dimension no
  subscript uses (a time loop) is `_0`, `_1`, ... in domain order.
- A statement's name is the arrays it writes `<-` the arrays it reads (sorted), with
  `#2`, `#3` on repeats in statement order (adi's two `p[i][0] = 0.0`).

The statement set is the one the schedule passes saw: the last `scop` dump before the
first `schedule` dump. `python -m test_suite.e2e.schedule_shape FILE.c [...]` prints the
readable summary of each file's regions.
"""
from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

import islpy as isl

_HEADER_RE = re.compile(r"^;; pencilcc (\w+) '([^']*)' after (\S+)\s*$", re.MULTILINE)
_ACCESS_RE = re.compile(r"^\s+(ReadAccess|MustWriteAccess|MayWriteAccess) :=\s*$")
_STATEMENT_RE = re.compile(r"^    (\w+)\s*$")


@dataclass(frozen=True)
class Statement:
    name: str                   # the statement's own name (S_1)
    key: str                    # its name up to renaming (C<-A,B,C,alpha)
    dims: tuple[str, ...]       # its loop dimensions' names up to renaming


@dataclass(frozen=True)
class Shape:
    """One region's final schedule up to renaming: `tree` compares, `summary` reads."""

    region: str
    tree: tuple
    statements: dict[str, Statement]
    #: Loop name up to renaming -> the iterator this program gives it (`A@0,C@0` -> `i`).
    loop_names: dict[str, str]

    def summary(self, names: Optional[dict[str, str]] = None) -> str:
        """The tree on one line: marks as `name:`, bands as `(a b | c)` with `*` on parallel
        (coincident) members, sequences as `[..; ..]`; loops by `names` (role -> name) where given."""
        return _summary(self.tree, names or {})


def dumps_of(source: Path, flags: Sequence[str] = (), compiler: Sequence[str] = (sys.executable, "-m", "clangpass"),
             env: Optional[dict] = None) -> str:
    """The scop and schedule dumps of compiling `source` with `pencilcc -O3` (no object kept)."""
    import os
    proc = subprocess.run([*compiler, "-O3", "-std=c99", "-fpencil-dump=scop,schedule", *flags, "-c", str(source),
                           "-o", os.devnull], capture_output=True, text=True, env={**os.environ, **(env or {})})
    if proc.returncode != 0:
        raise RuntimeError(f"{source}: pencilcc failed: {proc.stderr[-2000:]}")
    return proc.stderr + proc.stdout


def shapes(dump_text: str) -> dict[str, Shape]:
    """Region label -> final schedule shape, for every region of `dump_text` that was rescheduled."""
    blocks: dict[str, list[tuple[str, str, str]]] = {}
    headers = list(_HEADER_RE.finditer(dump_text))
    for k, m in enumerate(headers):
        end = headers[k + 1].start() if k + 1 < len(headers) else len(dump_text)
        blocks.setdefault(m.group(2), []).append((m.group(1), m.group(3), dump_text[m.end():end]))
    out: dict[str, Shape] = {}
    for region, stages in blocks.items():
        first_schedule = next((k for k, (kind, _, _) in enumerate(stages) if kind == "schedule"), None)
        scops = [text for kind, _, text in stages[:first_schedule] if kind == "scop"]
        if first_schedule is None or not scops:
            continue
        ctx = isl.Context()
        statements = parse_statements(scops[-1], ctx)
        schedule = isl.Schedule.read_from_str(ctx, stages[-1][2] if stages[-1][0] == "schedule" else
                                              [t for kind, _, t in stages if kind == "schedule"][-1])
        names = loop_names(statements, iterator_names(scops[-1]))
        out[region] = Shape(region, _node(schedule.get_root(), statements), statements, names)
    return out


def parse_statements(scop_text: str, ctx: isl.Context) -> dict[str, Statement]:
    """Statement name -> `Statement`, from a `scop` dump (clangpass.poly.scop.format_scop)."""
    domains: dict[str, isl.Set] = {}
    accesses: dict[str, list[tuple[str, isl.Map]]] = {}
    lines = scop_text.splitlines()
    current = None
    for k, line in enumerate(lines):
        m = _STATEMENT_RE.match(line)
        if m and k + 1 < len(lines) and lines[k + 1].strip() == "Domain :=":
            current = m.group(1)
            domains[current] = isl.Set.read_from_str(ctx, lines[k + 2].strip().rstrip(";"))
            accesses[current] = []
            continue
        a = _ACCESS_RE.match(line)
        if a and current is not None:
            accesses[current].append(("write" if "Write" in a.group(1) else "read",
                                      isl.Map.read_from_str(ctx, lines[k + 1].strip().rstrip(";"))))
    seen: dict[str, int] = {}
    out: dict[str, Statement] = {}
    for name, domain in domains.items():
        written = sorted({m.get_tuple_name(isl.dim_type.out) for kind, m in accesses[name] if kind == "write"})
        read = sorted({m.get_tuple_name(isl.dim_type.out) for kind, m in accesses[name] if kind == "read"})
        key = f"{','.join(written)}<-{','.join(read)}"
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            key += f"#{seen[key]}"
        out[name] = Statement(name, key, _dim_roles(domain.dim(isl.dim_type.set), accesses[name]))
    return out


def _dim_roles(n: int, accesses: list[tuple[str, isl.Map]]) -> tuple[str, ...]:
    roles: list[set[str]] = [set() for _ in range(n)]
    for _, access in accesses:
        array = access.get_tuple_name(isl.dim_type.out)
        try:
            function = isl.PwMultiAff.from_map(access)
        except isl.Error:
            continue                                   # not a function (an approximated access)
        for pos in range(access.dim(isl.dim_type.out)):
            piece = function.get_pw_aff(pos)
            for d in range(n):
                if _involves(piece, d):
                    roles[d].add(f"{array}@{pos}")
    names, free = [], 0
    for r in roles:
        if r:
            names.append(",".join(sorted(r)))
        else:
            names.append(f"_{free}")
            free += 1
    return tuple(names)


def _involves(pa: isl.PwAff, d: int) -> bool:
    """Whether the value of `pa` depends on input dimension `d` (its pieces' domains left aside)."""
    return any(aff.involves_dims(isl.dim_type.in_, d, 1) for _, aff in pa.get_pieces())


def _statement(name: str, statements: dict[str, Statement]) -> Statement:
    return statements.get(name) or Statement(name, name, ())


def _member(upa: isl.UnionPwAff, statements: dict[str, Statement]) -> tuple:
    """Per statement (by key, sorted): the loops the member runs over."""
    parts = []
    pieces = upa.get_pw_aff_list()
    for pa in (pieces.get_at(k) for k in range(pieces.n_pw_aff())):
        s = _statement(pa.get_tuple_id(isl.dim_type.in_).get_name(), statements)
        dims = s.dims or tuple(f"d{k}" for k in range(pa.dim(isl.dim_type.in_)))
        used = tuple(dims[d] for d in range(pa.dim(isl.dim_type.in_)) if _involves(pa, d))
        parts.append((s.key, used))
    return tuple(sorted(parts))


def _filter_keys(uset: isl.UnionSet, statements: dict[str, Statement]) -> tuple[str, ...]:
    names: list[str] = []
    uset.foreach_set(lambda s: names.append(s.get_tuple_name()))
    return tuple(sorted(_statement(n, statements).key for n in names))


def _node(node: isl.ScheduleNode, statements: dict[str, Statement]) -> tuple:
    kind = node.get_type()
    children = tuple(_node(node.child(k), statements) for k in range(node.n_children()))
    if kind == isl.schedule_node_type.band:
        partial = node.band_get_partial_schedule()
        members = tuple((_member(partial.get_union_pw_aff(m), statements), bool(node.band_member_get_coincident(m)))
                        for m in range(node.band_n_member()))
        return ("band", members, bool(node.band_get_permutable()), children)
    if kind == isl.schedule_node_type.mark:
        return ("mark", node.mark_get_id().get_name(), children)
    if kind == isl.schedule_node_type.filter:
        return ("filter", _filter_keys(node.filter_get_filter(), statements), children)
    if kind in (isl.schedule_node_type.sequence, isl.schedule_node_type.set):
        return ("sequence" if kind == isl.schedule_node_type.sequence else "set", children)
    if kind == isl.schedule_node_type.leaf:
        return ("leaf",)
    return (str(kind).rsplit(".", 1)[-1], children)


def _loop_name(used: tuple[str, ...], names: dict[str, str]) -> str:
    return "+".join(names.get(u, u) for u in used) or "0"


def _summary(tree: tuple, names: dict[str, str]) -> str:
    kind = tree[0]
    if kind == "band":
        members = []
        for parts, coincident in tree[1]:
            # The member as the loops of the statement with the most loops (the others' are nested in it).
            used = max((u for _, u in parts), key=len, default=())
            members.append(_loop_name(used, names) + ("*" if coincident else ""))
        inner = _children_summary(tree[3], names)
        return f"({' '.join(members)})" + (f" {inner}" if inner else "")
    if kind == "mark":
        inner = _children_summary(tree[2], names)
        return f"{tree[1]}: {inner}" if inner else f"{tree[1]}:"
    if kind in ("sequence", "set"):
        parts = [_summary(c, names) for c in tree[1]]
        return "[" + "; ".join(p for p in parts if p) + "]"
    if kind == "filter":
        return _children_summary(tree[2], names)
    if kind == "leaf":
        return ""
    return _children_summary(tree[1], names)


def _children_summary(children: tuple, names: dict[str, str]) -> str:
    return " ".join(s for s in (_summary(c, names) for c in children) if s)


def loop_names(statements: dict[str, Statement], scop_domains: dict[str, tuple[str, ...]]) -> dict[str, str]:
    """Role -> the iterator name one program gives it (`A@0,C@0` -> `i`), for summaries."""
    out: dict[str, str] = {}
    for name, s in statements.items():
        for role, iterator in zip(s.dims, scop_domains.get(name, ())):
            out.setdefault(role, iterator)
    return out


def iterator_names(scop_text: str) -> dict[str, tuple[str, ...]]:
    """Statement -> its domain's iterator names, from a `scop` dump."""
    out: dict[str, tuple[str, ...]] = {}
    for m in re.finditer(r"\{ (\w+)\[([^\]]*)\] :", scop_text):
        out.setdefault(m.group(1), tuple(x.strip() for x in m.group(2).split(",") if x.strip()))
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    for path in (argv if argv is not None else sys.argv[1:]):
        for region, shape in shapes(dumps_of(Path(path))).items():
            print(f"{path} {region}: {shape.summary(shape.loop_names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
