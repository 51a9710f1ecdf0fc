# SPDX-License-Identifier: MIT
"""`pencilcc-tune`: choose tile sizes (CPU) and work-group sizes (OpenCL) by running the program.

    pencilcc-tune [--run CMD] [--repeat N] [--budget N] -- pencilcc -O3 prog.c -o prog

Input: a pencilcc command line that builds the program (after `--`; its first word may be
`pencilcc`, this installation's, or it may start with the flags), and `--run`, the shell
command that runs the built program (default `./OUTPUT` of the build). Output: for every
optimized region of the command's input files with bands to size, the sizes that ran fastest,
written to the tuning cache (clangpass.tuning) for this machine's device; the program is then
built once more with the user's command line, which picks them up (the record's
`tile_sizes_from` says `tuned`).

Search (model-guided, at most `--budget` builds and timings per region, 20 by default): the
first candidate of a region is exactly the build without tuned sizes (no rule for its bands:
the CPU target's cache model, the OpenCL target's default work-groups), so that the tuner
can only keep something else when it measured it faster. Then coordinate descent from the
model's sizes (on the CPU the record of that build gives them; on the OpenCL target a tiled
kernel's declared work-group, else `OPENCL_START`, which is then tried first as a candidate
of its own, since the runtime picks an untiled kernel's work-group at run time): for each
band and each of its loops, outermost first, the size doubled, then halved, kept while it
makes the program faster, until a whole round changes nothing or the budget is spent. A
candidate replaces the incumbent only when its time is below the incumbent's by more than
`--min-gain` percent (5), so that run-to-run noise does not cache a size that is no faster;
with a budget of 6 or more, the last two evaluations are kept to build and time the default
and the winner once more (when a winner there is), and the winner is kept only if, over all
its runs, it still beats the default's by the margin.
Bands where nothing won keep the default: the cache holds no sizes for them (the record of a
later build says `model` there). Candidates a coarse footprint model rejects are never built
(`plausible`): on the CPU a tile whose estimated footprint (one 8-byte array per pair of
loops of the band) exceeds the L2 cache, on the OpenCL target a work-group of more than
`MAX_WORK_GROUP` work-items. A time is the median of `--repeat` runs (3), on the OpenCL
target after one untimed run that builds the OpenCL program into the runtime's disk cache;
a build or run that fails rules the candidate out. Regions are tuned one after the other,
each with the sizes already chosen for the others.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

from clangpass.driver.cli import CommandLineError, parse_command_line
from clangpass.poly.tile_sizes import host_cache_sizes
from clangpass.tuning import device_name, store

MAX_BUDGET = 20
MAX_WORK_GROUP = 256
MAX_SIZE = 1024
#: The least relative gain (percent) for which a candidate replaces the incumbent.
MIN_GAIN = 5.0
#: From this budget on, two evaluations are kept to time the default and the winner again.
CONFIRM_FROM = 6
#: The OpenCL search's start for a kernel the target does not tile (outer loop first), by
#: kernel dimensions; its default work-group is the runtime's choice at launch, unknown here.
OPENCL_START = {1: (64,), 2: (16, 16), 3: (4, 8, 8)}


class TuneError(Exception):
    pass


def plausible(target: str, sizes: Sequence[int]) -> bool:
    """Whether the footprint model lets `sizes` be built and timed (see the module docstring)."""
    if any(s < 1 or s > MAX_SIZE for s in sizes):
        return False
    if target == "opencl":
        volume = 1
        for s in sizes:
            volume *= s
        return volume <= MAX_WORK_GROUP
    caches = host_cache_sizes()
    l2 = caches[1] if len(caches) > 1 else caches[0]
    footprint = 0
    for a in range(len(sizes)):
        for b in range(a + 1, len(sizes)):
            footprint += 8 * sizes[a] * sizes[b]
    return footprint <= l2


def better(seconds: float, incumbent: float, min_gain: float) -> bool:
    """Whether a candidate of `seconds` replaces an incumbent of `incumbent` seconds: faster by
    more than the fraction `min_gain` of the incumbent's time (any time beats a failure, inf)."""
    return seconds < incumbent * (1.0 - min_gain)


#: Sizes given to some bands of a region (band number -> sizes, outer loop first); a band
#: not named keeps its default (no rule: the model's sizes, the runtime's work-group).
Assignment = dict[int, tuple[int, ...]]


@dataclass(frozen=True)
class SearchResult:
    """What `search` chose for one region."""

    #: The bands that get sizes of their own; the others keep the default.
    chosen: Assignment
    #: The chosen assignment's time, and the default build's (the first candidate).
    seconds: float
    default_seconds: float
    #: Builds and timings used (candidates measured before, e.g. for another region, are free).
    evaluations: int


def search(starts: dict[int, tuple[int, ...]], start_is_default: dict[int, bool],
           measure: Callable[..., tuple[float, bool]], budget: int, target: str,
           min_gain: float) -> SearchResult:
    """Coordinate descent over one region's bands (see the module docstring).

    `starts`: per band the sizes to search around; `start_is_default`: whether a rule of those
    sizes builds what no rule builds (then it is not tried as a candidate of its own);
    `measure(assignment, again=False)`: the time of the program built with `assignment` (inf
    when it fails) and whether that took a build and timing (False: known already); with
    `again`, built and timed once more, the time then being over all its runs. The first
    candidate is the empty assignment, the default build; a candidate replaces the incumbent
    only when `better` by `min_gain`. With a budget of `CONFIRM_FROM` or more, two evaluations
    are kept for the end: when sizes other than the default won, the default and the winner
    are timed again, and the winner stays only if it is still `better` than the default.
    At most `budget` evaluations."""
    used = 0
    seen: dict[tuple, float] = {}
    confirm = budget >= CONFIRM_FROM
    descent = budget - 2 if confirm else budget

    def timed(assignment: Assignment) -> float:
        nonlocal used
        key = tuple(sorted(assignment.items()))
        if key not in seen:
            seconds, fresh = measure(dict(assignment))
            used += bool(fresh)
            seen[key] = seconds
        return seen[key]

    incumbent: Assignment = {}
    best = default = timed(incumbent)
    position = dict(starts)

    def attempt(band: int, sizes: tuple[int, ...]) -> bool:
        nonlocal incumbent, best
        candidate = {b: s for b, s in incumbent.items() if b != band}
        if not (start_is_default.get(band, True) and sizes == starts[band]):
            candidate[band] = sizes
        seconds = timed(candidate)
        if better(seconds, best, min_gain):
            incumbent, best, position[band] = candidate, seconds, sizes
            return True
        return False

    for band in sorted(starts):
        if not start_is_default.get(band, True) and used < descent and plausible(target, starts[band]):
            attempt(band, tuple(starts[band]))
    changed = True
    while changed and used < descent:
        changed = False
        for band in sorted(starts):
            for d in range(len(position[band])):
                for factor in (2, 0.5):
                    while used < descent:
                        sizes = list(position[band])
                        sizes[d] = int(sizes[d] * factor)
                        if not plausible(target, sizes) or not attempt(band, tuple(sizes)):
                            break
                        changed = True
    if confirm and incumbent and default != float("inf"):
        again_default, fresh = measure({}, True)
        used += bool(fresh)
        again_best, fresh = measure(dict(incumbent), True)
        used += bool(fresh)
        default = again_default
        if better(again_best, again_default, min_gain):
            best = again_best
        else:
            incumbent, best = {}, again_default
    return SearchResult(dict(incumbent), best, default, used)


def _arguments(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]]:
    if "--" not in argv:
        raise TuneError("expects the pencilcc command line that builds the program after '--' "
                        "(pencilcc-tune --run ./prog -- pencilcc -O3 prog.c -o prog)")
    split = list(argv).index("--")
    parser = argparse.ArgumentParser(prog="pencilcc-tune", description=__doc__.split("\n\n")[0])
    parser.add_argument("--run", help="shell command running the built program (default: ./OUTPUT)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing, the median counts (3)")
    parser.add_argument("--budget", type=int, default=MAX_BUDGET,
                        help=f"builds and timings per region, at most {MAX_BUDGET} ({MAX_BUDGET})")
    parser.add_argument("--min-gain", type=float, default=MIN_GAIN, metavar="PERCENT",
                        help="how much faster (percent of its time) a candidate must run than the sizes it "
                             f"would replace ({MIN_GAIN:g})")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a build or run may take (600)")
    parser.add_argument("--quiet", action="store_true", help="print only the choices")
    args = parser.parse_args(list(argv[:split]))
    if not 1 <= args.budget <= MAX_BUDGET:
        raise TuneError(f"'--budget' expects 1 to {MAX_BUDGET}, got {args.budget}")
    if not 0 <= args.min_gain < 100:
        raise TuneError(f"'--min-gain' expects a percentage from 0 to below 100, got {args.min_gain:g}")
    if args.repeat < 1:
        raise TuneError(f"'--repeat' expects at least 1, got {args.repeat}")
    build = list(argv[split + 1:])
    if not build:
        raise TuneError("no pencilcc command line after '--'")
    if build[0].startswith("-"):
        build = ["pencilcc", *build]
    if os.path.basename(build[0]).startswith("pencilcc"):
        build = [sys.executable, "-m", "clangpass", *build[1:]]
    return args, build


class Tuner:
    def __init__(self, args: argparse.Namespace, build: list[str]) -> None:
        self.args = args
        self.build_cmd = build
        compiler_args = build[3:] if build[1:3] == ["-m", "clangpass"] else build[1:]
        try:
            config = parse_command_line(compiler_args)
        except CommandLineError as exc:
            raise TuneError(f"the build command: {exc}") from None
        self.target = config.options.target
        if config.options.opt_level < 2:
            raise TuneError("the build command optimizes below -O2: nothing is tiled")
        self.inputs = {os.path.realpath(i.path): i.path for i in config.inputs}
        self.contents = {}
        for real, given in self.inputs.items():
            try:
                self.contents[real] = Path(given).read_bytes()
            except OSError as exc:
                raise TuneError(f"cannot read '{given}': {exc.strerror or exc}") from None
        output = config.output or "a.out"
        self.run_cmd = args.run or shlex.quote(output if os.sep in output else f"./{output}")
        device = device_name(self.target)
        if device is None:
            raise TuneError("no OpenCL device to tune for")
        self.device = device
        self.folder = Path(tempfile.mkdtemp(prefix="pencilcc-tune-"))
        self.record = self.folder / "record.json"
        self.times: dict[str, float] = {}
        self.samples: dict[str, list[float]] = {}
        self.evaluations = 0

    def say(self, text: str) -> None:
        if not self.args.quiet:
            print(f"pencilcc-tune: {text}", flush=True)

    def build(self, rules: str, tuned: bool = False) -> list[dict]:
        """Build with -fpencil-tile-sizes=`rules` (none when ''), without the tuning cache
        unless `tuned`; the record's regions."""
        cmd = [*self.build_cmd, f"-foptimization-record-file={self.record}"]
        if not tuned:
            cmd.append("-fno-pencil-tuned")
        if rules:
            cmd.append(f"-fpencil-tile-sizes={rules}")
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=self.args.timeout)
        except subprocess.TimeoutExpired:
            raise TuneError(f"the build timed out: {shlex.join(cmd)}") from None
        if proc.returncode != 0:
            raise TuneError(f"the build failed ({proc.returncode}): {shlex.join(cmd)}\n{proc.stderr.strip()}")
        try:
            return json.loads(self.record.read_text())["regions"]
        except (OSError, ValueError, KeyError):
            raise TuneError("the build wrote no optimisation record") from None

    def time(self, rules: str, again: bool = False) -> float:
        """The median run time of the program built with `rules` ('': the default build; inf
        when it fails); `again`: build and run it once more, the median over all its runs."""
        if rules in self.times and not (again and self.times[rules] != float("inf")):
            return self.times[rules]
        self.evaluations += 1
        try:
            self.build(rules)
        except TuneError as exc:
            self.say(f"  {rules or 'default'}: not used, {str(exc).splitlines()[0]}")
            self.times[rules] = float("inf")
            return self.times[rules]
        seconds = []
        # On the OpenCL target a first run builds the OpenCL program into the runtime's disk
        # cache; the timed runs load it, as every later run of the program does.
        warm_up = 1 if self.target == "opencl" else 0
        for number in range(warm_up + self.args.repeat):
            start = time.perf_counter()
            try:
                proc = subprocess.run(self.run_cmd, shell=True, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, timeout=self.args.timeout)
            except subprocess.TimeoutExpired:
                seconds = []
                break
            if proc.returncode != 0:
                seconds = []
                break
            if number >= warm_up:
                seconds.append(time.perf_counter() - start)
        if not seconds:
            self.times[rules] = float("inf")
        else:
            self.samples[rules] = self.samples.get(rules, []) + seconds
            self.times[rules] = statistics.median(self.samples[rules])
        self.say(f"  {rules or 'default'}{' again' if again else ''}: {self.times[rules]:.4f} s")
        return self.times[rules]

    def bands(self, regions: list[dict]) -> dict[tuple[str, str], dict[int, tuple[tuple[int, ...], bool]]]:
        """(input path, label) -> band number -> (start sizes, whether a rule of them builds the
        default), of the regions to tune (from the record of the default build)."""
        found: dict[tuple[str, str], dict[int, tuple[tuple[int, ...], bool]]] = {}
        for r in regions:
            real = os.path.realpath(r.get("file", ""))
            if r.get("status") != "optimized" or real not in self.inputs or not r.get("label"):
                continue
            if self.target == "cpu":
                # The cache model's sizes: a rule of the same sizes tiles the band alike.
                bands = {b["band"]: (tuple(b["sizes"]), True) for b in r.get("tile_bands", ())}
            else:
                kernels = [k for k in r.get("mapping", {}).get("kernels", ()) if k.get("work_group_from")]
                bands = {}
                for n, k in enumerate(kernels):
                    if k.get("work_group"):
                        # A tiled kernel declares its tiles' shape (dimension 0 first).
                        bands[n] = (tuple(reversed(k["work_group"])), True)
                    else:
                        bands[n] = (OPENCL_START.get(k["dimensions"], OPENCL_START[1]), False)
            if bands:
                found[(real, r["label"])] = bands
        return found

    def tune(self) -> int:
        self.say(f"device: {self.device} ({self.target})")
        regions = self.build("")        # the default sizes, read from its record
        todo = self.bands(regions)
        if not todo:
            self.say("no region of the inputs has bands to size (nothing tiled, no kernels)")
            return 0
        chosen: dict[tuple[str, str], Assignment] = {key: {} for key in todo}

        def rules(assignments: dict[tuple[str, str], Assignment]) -> str:
            return ";".join(f"{label}:{band}={','.join(map(str, sizes))}"
                            for (_, label), bands in sorted(assignments.items())
                            for band, sizes in sorted(bands.items()))

        for key in sorted(todo):
            real, label = key
            self.say(f"region '{label}' of {self.inputs[real]}: bands "
                     f"{ {b: start for b, (start, _) in sorted(todo[key].items())} }")

            def measure(assignment: Assignment, again: bool = False,
                        key: tuple[str, str] = key) -> tuple[float, bool]:
                before = self.evaluations
                seconds = self.time(rules({**chosen, key: assignment}), again)
                return seconds, self.evaluations > before

            result = search({b: start for b, (start, _) in todo[key].items()},
                            {b: default for b, (_, default) in todo[key].items()}, measure,
                            self.args.budget, self.target, self.args.min_gain / 100.0)
            if result.seconds == float("inf"):
                self.say(f"region '{label}': no candidate built and ran; nothing cached")
                continue
            chosen[key] = result.chosen
            default = round(result.default_seconds, 6) if result.default_seconds != float("inf") else None
            path = store(self.target, self.device, self.contents[real], label, {
                "file": self.inputs[real], "bands": result.chosen, "seconds": round(result.seconds, 6),
                "start_seconds": default, "model_seconds": default, "evaluations": result.evaluations,
                "repeat": self.args.repeat, "min_gain": self.args.min_gain})
            sizes = ("; ".join(f"band {b}: {','.join(map(str, s))}" for b, s in sorted(result.chosen.items()))
                     or "the default sizes kept")
            print(f"pencilcc-tune: {label}: {sizes} ({result.seconds:.4f} s, default "
                  f"{result.default_seconds:.4f} s, {result.evaluations} evaluations) -> {path}", flush=True)
        # The user's build, which now finds the tuned sizes.
        self.build("", tuned=True)
        return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args, build = _arguments(argv)
        tuner = Tuner(args, build)
        try:
            return tuner.tune()
        finally:
            shutil.rmtree(tuner.folder, ignore_errors=True)     # its scratch optimisation record
    except TuneError as exc:
        print(f"pencilcc-tune: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
