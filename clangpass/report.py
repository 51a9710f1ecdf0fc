# SPDX-License-Identifier: MIT
"""Outcome of each region and the optimisation record (`-fsave-optimization-record`).

A region is `optimized` only when the polyhedral path built its model, produced a
schedule and AST, and our back end emitted its code; anything else is a
`fallback` with the reason and its reject id (clangpass.rejects), compiled by the host
compiler from the original text; the `-Wpencil` warning names the id's option
(`[-Wpencil-goto]`), so that `-Wno-<id>` silences that kind of fallback alone. A loop
nest that -fpencil-detect found and did not take (kind 'detected') gets no warning,
only its -Rpass-missed=pencil remark: the user did not mark it.
The record follows clang's convention (`<output>.opt.json` or
`-foptimization-record-file=FILE`); `-Rpass=pencil` / `-Rpass-missed=pencil`
print the same facts as remarks.

What the passes did comes from their records (clangpass.passes.registry.PassRecord,
one frozen record per pass, declared beside it): the JSON record holds the region's
own keys and the flattening of those records (`RegionOutcome.facts`), every record
type's keys in every region, with their defaults where a pass did not run.
"""
from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field, replace
from typing import Mapping, Optional

from clangpass.diagnostics import DiagnosticEngine
from clangpass.ir.nodes import SourceLoc
from clangpass.passes.registry import PassRecord, record_fields
from clangpass.poly.alias_check import AliasCheck
from clangpass.poly.annotations import ON_THE_DEVICE, PragmaUse, threads_phrase, unused_pragmas
from clangpass.poly.privatization import source_name
from clangpass.poly.codegen_unit import CodegenUnit, parallel_regions, thread_teams
from clangpass.poly.schedule_loops import LoopFact
from clangpass.regions import DETECTED, OptRegion
from clangpass.rejects import GROUP, Reject, reject_id


class Status(enum.StrEnum):
    """A region's outcome; the value is the record's `status`."""

    OPTIMIZED = "optimized"    # our code runs the region
    FALLBACK = "fallback"      # the host compiler compiles its original text, for `reason` (`reason_id`)


@dataclass(frozen=True)
class RegionOutcome:
    region: OptRegion
    status: Status
    reason: str = ""
    unit: Optional[CodegenUnit] = None
    records: tuple[PassRecord, ...] = ()     # what each pass did (clangpass.passes.registry.PassRecord)
    statements: int = 0
    pragmas: tuple[PragmaUse, ...] = ()       # what each independent/ivdep pragma did (optimized regions)
    target: str = ""                          # the target that emitted an optimized region ('cpu', 'opencl')
    mapping: Mapping[str, object] = field(default_factory=dict)   # how that target mapped it (OpenCL: kernels, host loops)
    scheduling_seconds: float = 0.0
    pass_seconds: Mapping[str, float] = field(default_factory=dict)
    # Statement clustering (clangpass.passes.cluster_stmts, thesis ch. 3): what the scheduler saw.
    clustering: str = ""                     # the heuristic ('scc', 'bb'), 'user', or '' (none)
    scheduled_statements: int = 0            # macro-statements and unclustered statements scheduled
    dependences_before_clustering: int = 0   # dependence relations between statement pairs
    dependences_after_clustering: int = 0    # ... between the scheduled (macro-)statements
    clustering_problems: tuple[str, ...] = ()   # why the user's clustering decision was invalid
    # What made this outcome depend on the machine rather than only on the input and the flags
    # ('time limit': the driver's safety net stopped the analysis); '' for a reproducible one.
    nondeterministic: str = ""
    # A fallback's reject id (clangpass.rejects): what kind of reason `reason` is; '' otherwise.
    reason_id: str = ""
    # The schedule file of the final schedule tree (clangpass.poly.schedule_files), which the
    # driver writes under -fpencil-save-schedule=DIR; '' otherwise. Not part of the record.
    schedule_text: str = ""
    # For -fpencil-report (CompileOptions.report_file), like `schedule_text` not part of the record:
    # the loops of the final schedule tree and the line of each statement (name, line).
    loops: tuple[LoopFact, ...] = ()
    statement_lines: tuple[tuple[str, int], ...] = ()
    # The region's optimized code as a C compound statement (clangpass.emit_c), which the driver
    # writes under -fpencil-emit-c=FILE, or why it cannot be printed; '' otherwise. Not part of the record.
    c_source: str = ""
    c_unprintable: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))   # 'optimized' reads as Status.OPTIMIZED
        if self.reason_id:
            reject_id(self.reason_id)

    @property
    def facts(self) -> dict[str, object]:
        """The pass records flattened: every record type's fields, with their defaults where a pass
        did not run (clangpass.passes.registry.record_fields)."""
        return record_fields(self.records)

    @property
    def clustering_time(self) -> float:
        """Seconds spent deciding, checking and building the clustering (the `cluster-stmts` pass)."""
        return self.pass_seconds.get("cluster-stmts", 0.0)

    @property
    def scheduling_time(self) -> float:
        """Seconds spent in isl's scheduler and the schedule recovery (the `schedule` pass)."""
        return self.pass_seconds.get("schedule", 0.0)

    @property
    def alias_check(self) -> Optional[AliasCheck]:
        """The run-time check the optimized code is guarded by (plain values: it crosses processes)."""
        # getattr: driver tests stand a region in for the unit (test_suite/e2e/test_driver_stubs.py).
        return getattr(self.unit, "alias_check", None) if self.status is Status.OPTIMIZED else None

    @property
    def alias_checks(self) -> tuple[tuple[str, str], ...]:
        """The array pairs the optimized code is guarded against overlapping (run-time check)."""
        return self.alias_check.pairs if self.alias_check is not None else ()

    @property
    def parallel_regions(self) -> int:
        """Places of the optimized code that start threads (thread teams and lone parallel loops)."""
        return parallel_regions(self.unit.ast) if self.unit is not None and self.status is Status.OPTIMIZED else 0

    @property
    def thread_teams(self) -> int:
        """Sequential loops around parallel loops whose threads start once (`thread-team` marks)."""
        return thread_teams(self.unit.ast) if self.unit is not None and self.status is Status.OPTIMIZED else 0

    @property
    def pragma_uses(self) -> tuple[PragmaUse, ...]:
        """What each loop pragma of the region did; in a fallback region, nothing."""
        if self.status is Status.OPTIMIZED:
            return self.pragmas
        return unused_pragmas(self.region.body, f"the region was not optimized: {self.reason}")

    def as_record(self) -> dict:
        r = self.region
        optimized = self.status is Status.OPTIMIZED
        values = {
            "function": r.function.name,
            "file": r.loc.file,
            "line": r.loc.line,
            "kind": r.kind,
            "symbol": r.symbol if optimized else "",
            # The region as -fpencil-tile-sizes= and the remarks name it (`fn`, `fn#1`); a newer
            # key, so after the keys of RECORD_KEYS.
            "label": r.label,
            "status": self.status.value,
            "reason": self.reason,
            "statements": self.statements,
            **{key: _plain(value) for key, value in self.facts.items()},
            "alias_checks": [list(pair) for pair in self.alias_checks],
            "parallel_regions": self.parallel_regions,
            "thread_teams": self.thread_teams,
            "pragmas": [_on_target(self.target, self.mapping, use).as_record() for use in self.pragma_uses],
            "local_variables": [d.name for d in r.privatized],
            "kept_variables": {name: why for name, why in r.kept_scalars},
            "scheduling_seconds": round(self.scheduling_seconds, 6),
            "target": self.target if optimized else "",
            "mapping": dict(self.mapping) if optimized else {},
            "clustering": self.clustering,
            "scheduled_statements": self.scheduled_statements,
            "dependences_before_clustering": self.dependences_before_clustering,
            "dependences_after_clustering": self.dependences_after_clustering,
            "clustering_problems": list(self.clustering_problems),
            "clustering_time": round(self.clustering_time, 6),
            "scheduling_time": round(self.scheduling_time, 6),
            "nondeterministic": self.nondeterministic,
            "reason_id": self.reason_id,
        }
        # Today's keys in their order (scripts read them); keys of newer records follow.
        return {**{key: values.pop(key) for key in RECORD_KEYS if key in values}, **values}


# The keys the outcome writes itself (`as_record`), beside its passes' records: no pass's record
# may have one of these (clangpass.passes.plugins checks a plugin's).
OUTCOME_KEYS = frozenset({
    "function", "file", "line", "kind", "symbol", "status", "reason", "statements", "alias_checks",
    "parallel_regions", "thread_teams", "pragmas", "local_variables", "kept_variables", "scheduling_seconds",
    "target", "mapping", "clustering", "scheduled_statements", "dependences_before_clustering",
    "dependences_after_clustering", "clustering_problems", "clustering_time", "scheduling_time",
    "nondeterministic", "reason_id", "label"})

# The order of the record's keys as they were before the passes kept records of their own.
RECORD_KEYS = ("function", "file", "line", "kind", "symbol", "status", "reason", "statements", "tiled_bands",
               "tile_sizes", "parallel_loops", "wavefronts", "fusion", "fusion_reason", "streaming_bands",
               "source_order", "source_order_reason", "reordered_bands", "vector_loops", "register_tiled_bands",
               "jammed_loops", "untiled_reason", "split_statements", "approximated_accesses", "alias_checks",
               "parallel_regions", "thread_teams", "pragmas", "local_variables", "privatized_arrays",
               "demoted_scalars", "kept_variables", "scheduling_seconds", "target", "mapping", "clustering",
               "scheduled_statements", "dependences_before_clustering", "dependences_after_clustering",
               "clustering_problems", "clustering_time", "scheduling_time", "storage")


def _plain(value: object) -> object:
    """A record field as JSON holds it: tuples as lists."""
    return [_plain(v) for v in value] if isinstance(value, tuple) else value


def fallback(region: OptRegion, reason_id: str, reason: str) -> RegionOutcome:
    """`region` compiled by the host compiler, for `reason` of the registered kind `reason_id`."""
    return RegionOutcome(region, Status.FALLBACK, reason, reason_id=reject_id(reason_id))


def write_record(path: str, source: str, outcomes: list[RegionOutcome],
                 file_fallbacks: Mapping[str, Reject] | None = None) -> None:
    """Write the JSON optimisation record atomically.

    `file_fallbacks` (input path -> why): the inputs that may hold PENCIL code of which
    nothing was analysed, the host compiling them unchanged (clang cannot parse the file, the
    analysis failed outside any region...); they have no region to carry that reason, so the
    record's `file_fallbacks` list does, one `{"file", "status": "fallback", "reason",
    "reason_id"}` each."""
    import os
    from pathlib import Path

    from clangpass.driver.cache import atomic_write   # readers see the old record or the new one

    doc = {"source": source, "regions": [o.as_record() for o in outcomes],
           "file_fallbacks": [{"file": file, "status": Status.FALLBACK.value, "reason": why.reason,
                               "reason_id": why.id}
                              for file, why in (file_fallbacks or {}).items()]}
    atomic_write(Path(os.path.abspath(path)), (json.dumps(doc, indent=2) + "\n").encode())


def _report_loaded_schedule(engine: DiagnosticEngine, o: RegionOutcome, remarks: bool, missed_remarks: bool) -> None:
    """-fpencil-load-schedule: an error for a refused schedule file, remarks for one used or missing
    (clangpass.passes.load_schedule)."""
    facts = o.facts
    path = facts.get("schedule_file")
    if not path:
        return
    where = o.region.loc
    if facts["schedule_problems"]:
        engine.report("pencil-schedule", "error", where,
                      f"loaded schedule for region '{o.region.label}' ({path}) {'; '.join(facts['schedule_problems'])}"
                      if facts["schedule_problems"][0].startswith("violates ") else
                      f"loaded schedule for region '{o.region.label}' refused ({path}): "
                      f"{'; '.join(facts['schedule_problems'])}")
    elif facts["schedule_loaded"]:
        if remarks:
            engine.report("pencil", "remark", where, f"region '{o.region.label}' scheduled as '{path}' says",
                          option="-Rpass=pencil")
    elif missed_remarks:
        engine.report("pencil", "remark", where, f"region '{o.region.label}' scheduled as usual: no schedule "
                      f"file '{path}' (-fpencil-load-schedule)", option="-Rpass-missed=pencil")


def _on_target(target: str, mapping: Mapping[str, object], use: PragmaUse) -> PragmaUse:
    """`use` as it holds on `target` (a region's mapping): on the OpenCL target a reduction a kernel
    performs runs on the device (work-group trees in local memory), not on the host's threads, and
    what was not reduced is said of the device too. The remarks and the record both say this."""
    if target != "opencl":
        return use
    missed = use.missed
    for cpu_words, device_words in ON_THE_DEVICE.items():
        missed = missed.replace(cpu_words, device_words)
    threaded = sorted(v for v, _, on_threads in use.reductions if on_threads)   # as pragma_uses lists them
    if not threaded:
        return replace(use, missed=missed)
    on_device = {r["variable"] for k in mapping.get("kernels", ()) for r in k.get("reductions", ())}
    model = dict(use.renamed)          # the kernels name a demoted scalar's reduction by its array
    device = [v for v in threaded if model.get(v, v) in on_device]
    host = [v for v in threaded if model.get(v, v) not in on_device]
    parts = []
    if device:
        parts.append(f"reduction{'s' if len(device) > 1 else ''} of {', '.join(repr(v) for v in device)} run on the "
                     "OpenCL device (a tree in each work-group's local memory, the groups' results combined "
                     "on the host)")
    if host:
        parts.append(f"{threads_phrase(host)}, on the host: the loop is no kernel")
    return replace(use, detail=use.detail.replace(threads_phrase(threaded), "; ".join(parts)), missed=missed)


def report_outcomes(engine: DiagnosticEngine, outcomes: list[RegionOutcome], remarks: bool,
                    missed_remarks: bool) -> None:
    """-Wpencil warnings for fallbacks; -Rpass=pencil / -Rpass-missed=pencil remarks."""
    for o in outcomes:
        where = o.region.loc
        if o.status is Status.FALLBACK and o.region.kind == DETECTED:
            # A loop nest -fpencil-detect found: nobody marked it, so no warning (clangpass.detect).
            if missed_remarks:
                engine.report(o.reason_id or GROUP, "remark", where,
                              f"loop nest in '{o.region.function.name}' not optimized: {o.reason}",
                              option="-Rpass-missed=pencil")
        elif o.status is Status.FALLBACK:
            # The reject id is the warning's id and option; -Wpencil / -Wno-pencil switch them all
            # (clangpass.driver.cli.DiagnosticPolicy).
            id = o.reason_id or GROUP
            engine.report(id, "warning", where,
                          f"region in '{o.region.function.name}' not optimized, compiled by the host "
                          f"compiler: {o.reason}", option=f"-W{id}")
            if missed_remarks:
                engine.report(id, "remark", where, f"region in '{o.region.function.name}' missed: {o.reason}",
                              option="-Rpass-missed=pencil")
        elif remarks:
            facts = o.facts
            kernels = ""
            if o.target == "opencl":
                # What runs on the device: kernels over parallel loops, one-work-item kernels
                # between them (the mapping: llvm_backend.opencl.mapping).
                made = o.mapping.get("kernels", [])
                singles = sum(1 for k in made if k.get("work_items", "").startswith("one work-item ("))
                kernels = f", {len(made) - singles} OpenCL kernels over parallel loops"
                # Tiled kernels: staged in local memory on GPUs, a direct variant on CPU devices.
                both = sum(1 for k in made if k.get("variants", {}).get("cpu", k["name"]) != k["name"])
                if both:
                    kernels += (f" ({both} tiled in local memory for GPU devices, with a direct variant "
                                "for CPU devices)")
                if singles:
                    kernels += f" and {singles} of one work-item"
            noun = "loop nest" if o.region.kind == DETECTED else "region"
            engine.report("pencil", "remark", where,
                          f"{noun} in '{o.region.function.name}' optimized: {o.statements} statements, "
                          f"{facts['tiled_bands']} tiled bands {list(facts['tile_sizes'])}, "
                          f"{facts['parallel_loops']} parallel loops{kernels}", option="-Rpass=pencil")
            for fact in facts.get("storage", ()):
                if fact.get("technique") in ("contract", "contract-scheduled"):
                    engine.report("pencil", "remark", where,
                                  f"region in '{o.region.function.name}': array '{fact['array']}' contracted to "
                                  f"{fact['mapping']}, {fact['bytes_after']} bytes instead of "
                                  f"{fact['bytes_before']}", option="-Rpass=pencil")
                elif fact.get("technique"):
                    where_now = f"the memory of '{fact['into']}'" if fact.get("into") else "less memory"
                    engine.report("pencil", "remark", where,
                                  f"region in '{o.region.function.name}': array '{fact['array']}' stored in "
                                  f"{where_now} ({fact['technique']}): {fact['bytes_before']} bytes before, "
                                  f"{fact['bytes_after']} after", option="-Rpass=pencil")
            if o.alias_checks:
                pairs = ", ".join(f"'{a}' and '{b}'" for a, b in o.alias_checks)
                engine.report("pencil", "remark", where,
                              f"{noun} in '{o.region.function.name}': the optimized code runs only when "
                              f"arrays {pairs} do not overlap (checked at run time); otherwise the "
                              "original code runs", option="-Rpass=pencil")
        if o.status is Status.OPTIMIZED:
            # Sizes of -fpencil-tile-sizes= (or the tuning cache) that do not fit a band
            # (clangpass.tile_spec): the band keeps its default.
            for problem in (*o.facts.get("tile_size_problems", ()), *o.mapping.get("tile_size_problems", ())):
                engine.report(GROUP, "warning", where, problem, option=f"-W{GROUP}")
        _report_loaded_schedule(engine, o, remarks, missed_remarks)
        if o.clustering_problems:
            engine.report("pencil-cluster", "error", where,
                          f"invalid clustering decision for region '{o.region.label}' "
                          f"(-fpencil-cluster-decision): {'; '.join(o.clustering_problems)}")
        for use in o.pragma_uses:
            use = _on_target(o.target, o.mapping, use)
            at = SourceLoc(use.file, use.line, use.column)
            if use.used and remarks:
                engine.report("pencil", "remark", at, f"'{use.spelling}' used: {use.detail}",
                              option="-Rpass=pencil")
            if use.missed and missed_remarks:
                engine.report("pencil", "remark", at, f"'{use.spelling}' "
                              f"{'partly ' if use.used else 'not '}used: {use.missed}",
                              option="-Rpass-missed=pencil")
        if o.status is Status.OPTIMIZED and missed_remarks:
            # An array a later memory pass stored elsewhere (contract-scheduled after
            # contract-arrays) did not keep its memory.
            from clangpass.poly.contraction import LIVE_OUT

            moved = {f["array"] for f in o.facts.get("storage", ()) if f.get("technique")}
            for fact in o.facts.get("storage", ()):
                # An output array keeping its memory is no missed chance (every kernel has one).
                if fact.get("why_not") and fact["why_not"] != LIVE_OUT and fact["array"] not in moved:
                    engine.report("pencil", "remark", where, f"region in '{o.region.function.name}': array "
                                  f"{source_name(fact['array'])} keeps its memory: {fact['why_not']}",
                                  option="-Rpass-missed=pencil")
        if o.status is Status.OPTIMIZED and missed_remarks and o.target == "opencl":
            # Nothing parallel stays on the host silently (the record's mapping.host_loops).
            for why in o.mapping.get("host_loops", ()):
                engine.report("pencil", "remark", where, f"region in '{o.region.function.name}': a parallel loop "
                              f"runs on the host, not as an OpenCL kernel: {why}", option="-Rpass-missed=pencil")
        if o.status is Status.OPTIMIZED and o.reason and missed_remarks:
            # Optimized, but a transformation was lost on the way (a schedule verify-schedule rejected,
            # an unsound isl AST, a budget): the reason says which.
            engine.report("pencil", "remark", where, f"region in '{o.region.function.name}' partly missed: "
                          f"{o.reason}", option="-Rpass-missed=pencil")
