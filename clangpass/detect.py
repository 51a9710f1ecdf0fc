# SPDX-License-Identifier: MIT
"""Region detection (-fpencil-detect): the static-affine loop nests of ordinary functions.

Input: a front-end `Module` and the `CompileOptions` (its size bounds). Output: the
candidate regions of kind 'detected' (clangpass.regions.loop_nest_region), in source
order per function: the ones taken, and the loop nests not taken with their reason as
the region's `problems` (the compile core makes those fallbacks; clangpass.report shows
them as -Rpass-missed=pencil remarks only, never as warnings: nobody marked that code).

What is looked at, as Polly's SCoP detection looks at LLVM IR (Grosser et al., "Polly -
polyhedral optimization in LLVM", IMPACT 2011, and Polly's ScopDetection): every function
of the main file that is not a PENCIL function or a summary, outside its marked regions.
A candidate is a maximal run of consecutive statements of one block made of `for` loops
and expression statements, holding a loop. It is taken when
- it can be outlined (clangpass.regions: arguments, storage classes, `return`/`goto`);
- no loop iterator declared outside it is read after it (a marked scop's may be);
- it is within the size bounds of the `extract` pass (clangpass.poly.budget);
- the polyhedral model of it can be built (clangpass.poly.extract: affine bounds and
  conditions of the loops, no pointer declared or dereferenced, calls only of pure
  builtins or of functions whose accesses are known...), and the model has no statement
  run whole as control flow the model cannot follow (a `while`, a data-dependent `if`
  around loops, a loop with a non-affine bound): a detected region is static control
  throughout;
- no `if` in it has a condition with `%` or `/` (`pencil-modulo-condition`: isl's AST
  generation for such guards took two minutes on PolyBench's floyd-warshall `init_array`,
  a cost nobody asked for on unmarked code);
- it holds at least two loops (Polly's profitability test: a single loop has nothing to
  tile or interchange; `pencil-unprofitable`).
A run not taken as a whole is tried statement by statement: the consecutive statements
whose model can be built alone form the new runs (tried whole, then loop by loop), and a
loop whose model cannot be built is reported and its body searched in turn, so that the
regions found are maximal: no enclosing or neighbouring statement could join them.

The model built here is thrown away: the `extract` pass builds it again in the region's
own isl context, under the time limit of the region (clangpass.driver.isolate). A region
taken here may still fall back in a later pass (an alias check that cannot be built):
that too is a missed remark only. Where arrays may overlap, the alias-check pass
(clangpass.poly.alias_check) versions the region as for a marked one.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import islpy as isl

from clangpass.ir import nodes as N
from clangpass.ir.walk import children, descendants
from clangpass.options import CompileOptions
from clangpass.poly.budget import size_problem
from clangpass.poly.extract import NotModelled, extract_region
from clangpass.regions import OptRegion, loop_nest_region, numbered
from clangpass.rejects import Reject

#: The least number of loops of a region taken (Polly's default profitability test).
MIN_LOOPS = 2

_UNPROFITABLE = "pencil-unprofitable"
_MODULO = "pencil-modulo-condition"


def detect_regions(module: N.Module, options: CompileOptions) -> list[OptRegion]:
    """The loop nests of `module`'s ordinary functions, taken or not (see the module's doc)."""
    summaries = module.summary_functions()
    out: list[OptRegion] = []
    for fn in module.functions:
        if (not fn.in_main_file or fn.body is None or fn.is_pencil or fn.name in summaries
                or fn.loc.file != module.file):
            continue
        detector = _Detector(module, options, fn)
        detector.visit(fn.body, False)
        found = sorted(detector.found, key=lambda r: r.extent.start_offset)
        out.extend(numbered(r, k, options.debug_prefix_map) for k, r in enumerate(found))
    return out


def _holds_region(s: N.Stmt) -> bool:
    return any(isinstance(d, N.Region) for d in descendants(s))


def _loops(s: N.Stmt) -> int:
    return sum(isinstance(d, N.For) for d in descendants(s))


def _static_control(reason: str) -> Reject:
    """Why a model with a statement run whole (`ScopStatement.opaque`) is not taken."""
    id = ("pencil-non-affine-condition" if reason.startswith("'if'") else
          "pencil-non-affine-bound" if "non-affine bound" in reason else "pencil-dynamic-control")
    return Reject(id, f"{reason} is not static control")


class _Detector:
    def __init__(self, module: N.Module, options: CompileOptions, fn: N.Function) -> None:
        self.module = module
        self.options = options
        self.fn = fn
        self.found: list[OptRegion] = []

    # ------------------------------------------------------------------ where to look
    def visit(self, s: N.Stmt, in_loop: bool) -> None:
        """The candidates under `s`, which is not itself one."""
        if isinstance(s, N.Region):
            return      # marked by the user: the marked region's business
        if isinstance(s, N.Compound):
            self._block(s, in_loop)
            return
        loop = in_loop or isinstance(s, (N.For, N.While, N.DoWhile))
        for child in children(s):
            if isinstance(child, N.Stmt):
                self.visit(child, loop)

    def _block(self, block: N.Compound, in_loop: bool) -> None:
        k = 0
        body = block.body
        while k < len(body):
            end = k
            while end < len(body) and isinstance(body[end], (N.For, N.ExprStmt)) and not _holds_region(body[end]):
                end += 1
            if any(isinstance(s, N.For) for s in body[k:end]):
                self._run(block, k, end, in_loop)
            if end == k:
                self.visit(body[k], in_loop)
                end += 1
            k = end

    # ------------------------------------------------------------------ what to take
    def _run(self, block: N.Compound, start: int, end: int, in_loop: bool) -> None:
        """Take `block.body[start:end]` whole, or its largest pieces that can be taken."""
        region, why = self._try(block, start, end, in_loop)
        if region is not None and why is None:
            self.found.append(region)
            return
        if end - start == 1:
            self._loop_alone(block, start, in_loop, region, why)
            return
        alone = [self._try(block, k, k + 1, in_loop) for k in range(start, end)]
        k = start
        while k < end:
            region_k, why_k = alone[k - start]
            if region_k is None or (why_k is not None and why_k.id != _UNPROFITABLE):
                if isinstance(block.body[k], N.For):     # outside the model alone: report, look inside
                    self._loop_alone(block, k, in_loop, region_k, why_k)
                k += 1
                continue
            group_end = k
            while group_end < end and alone[group_end - start][0] is not None and (
                    alone[group_end - start][1] is None or alone[group_end - start][1].id == _UNPROFITABLE):
                group_end += 1
            whole = self._try(block, k, group_end, in_loop) if group_end - k > 1 else (None, None)
            if whole[0] is not None and whole[1] is None:
                self.found.append(whole[0])
            else:
                for j in range(k, group_end):
                    if isinstance(block.body[j], N.For):
                        self._loop_alone(block, j, in_loop, *alone[j - start])
            k = group_end

    def _loop_alone(self, block: N.Compound, k: int, in_loop: bool, region: Optional[OptRegion],
                    why: Optional[Reject]) -> None:
        """The loop `block.body[k]` tried alone: taken, or reported and its body searched."""
        if region is not None and why is None:
            self.found.append(region)
            return
        if region is not None and why is not None:
            self.found.append(region if region.problems else _rejected(region, why))
        loop = block.body[k]
        assert isinstance(loop, N.For)
        if why is None or why.id != _UNPROFITABLE:
            self.visit(loop.body, True)

    def _try(self, block: N.Compound, start: int, end: int,
             in_loop: bool) -> tuple[Optional[OptRegion], Optional[Reject]]:
        """The candidate of `block.body[start:end]` and why it is not taken (None: it is); no
        candidate when the statements cannot be one region's text (a macro expanding to several)."""
        region = loop_nest_region(self.module, self.fn, block, start, end, in_loop,
                                  self.options.debug_prefix_map)
        if region is None:
            return None, Reject("pencil-outline", "the loop nest's text is not one piece of the function's file")
        if region.problems:
            return region, region.problems[0]
        too_large = size_problem(region.body, self.options.max_statements, self.options.max_loop_depth)
        if too_large:
            return region, Reject("pencil-region-size", too_large)
        try:
            scop, _ = extract_region(region, self.module, isl.Context())
        except NotModelled as exc:
            return region, Reject(exc.id, exc.reason)
        guard = next((s for s in descendants(region.body) if isinstance(s, N.If) and any(
            isinstance(e, N.Binary) and e.op in ("%", "/") for e in descendants(s.cond))), None)
        if guard is not None:
            return region, Reject(_MODULO, f"the condition of the 'if' at line {guard.loc.line} divides "
                                  "('%' or '/'): the code isl builds for such guards can take minutes")
        opaque = next((s.opaque for s in scop.statements if s.opaque), "")
        if opaque:
            return region, _static_control(opaque)
        loops = _loops(region.body)
        if loops < MIN_LOOPS:
            return region, Reject(_UNPROFITABLE, f"{'one loop' if loops == 1 else 'no loop'}, fewer than the "
                                  f"{MIN_LOOPS} a detected loop nest needs")
        return region, None


def _rejected(region: OptRegion, why: Reject) -> OptRegion:
    """`region` as a loop nest not taken, for `why` (a fallback whose reason the compile core reports)."""
    return replace(region, problems=(why,))
