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

On the OpenCL target the tuner sizes the kernels the device present runs: the mapping
(clangpass.tuning.opencl_mapping: PENCILCC_OPENCL_MAPPING, else the device's local memory
type, as the runtime decides). Under the `gpu` mapping (devices with local memory) that is
the above. Under the `cpu` mapping (PoCL and other devices whose local memory is global
memory) the runtime launches a tiled kernel's direct variant, one work-item per iteration,
whose work-group is its own (a `direct:` rule, clangpass.tile_spec; the tiled kernel's sizes
would change nothing there), and every band's kernel is then one work-item per iteration
whose default work-group is the runtime's choice at launch. So there every band starts at
`direct_start`, about what the runtime picks for a large grid (a rule of it is not timed: the
default build is that candidate), first tries the `direct_seeds` (a row of work-items along
the inner loop), then descends as above; candidates are the work-groups the device allows
(`DirectFit`: CL_DEVICE_MAX_WORK_GROUP_SIZE, at most `DIRECT_MAX_WORK_GROUP`, and its
per-dimension limits). The choice is cached for the device and the `cpu` mapping apart from
the `gpu` mapping's: a tiled kernel's as `direct_bands`, an untiled one's as `bands`.
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
from clangpass.tile_spec import DIRECT
from clangpass.tuning import CPU_MAPPING, OpenclDevice, device_name, opencl_device, opencl_mapping, store

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
#: The `cpu` mapping's largest work-group candidate (and the device's limit below it).
DIRECT_MAX_WORK_GROUP = 1024
#: The work-items the runtime gives a group of a kernel without reqd_work_group_size at most,
#: and of them along dimension 0 of a multi-dimensional one (runtime/pencilcc_runtime_launch.c's
#: choose_local, for a grid larger than the group and a preferred multiple of 32 or less).
RUNTIME_BUDGET, RUNTIME_INNER = 256, 32


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


@dataclass(frozen=True)
class DirectFit:
    """Which work-groups the `cpu` mapping's search builds on `device`: at most
    min(CL_DEVICE_MAX_WORK_GROUP_SIZE, DIRECT_MAX_WORK_GROUP) work-items, each dimension within
    CL_DEVICE_MAX_WORK_ITEM_SIZES (sizes outer loop first: the last is OpenCL's dimension 0)."""

    device: OpenclDevice

    @property
    def most(self) -> int:
        return min(self.device.max_work_group or MAX_WORK_GROUP, DIRECT_MAX_WORK_GROUP)

    def __call__(self, sizes: Sequence[int]) -> bool:
        if not sizes or any(s < 1 for s in sizes):
            return False
        volume = 1
        for s in sizes:
            volume *= s
        limits = self.device.max_work_items
        return volume <= self.most and all(
            d >= len(limits) or limits[d] == 0 or size <= limits[d] for d, size in enumerate(reversed(sizes)))


def direct_start(dimensions: int, fit: DirectFit) -> tuple[int, ...]:
    """About the work-group the runtime picks for a kernel of `dimensions` without one of its own
    (outer loop first): `RUNTIME_BUDGET` work-items (the device's limit if lower), of them
    `RUNTIME_INNER` along dimension 0 of a multi-dimensional kernel, the rest along dimension 1."""
    budget = min(RUNTIME_BUDGET, fit.most)
    if dimensions == 1:
        return (budget,)
    inner = min(RUNTIME_INNER, budget)
    return (*(1,) * (dimensions - 2), budget // inner, inner)


def direct_seeds(dimensions: int, fit: DirectFit) -> list[tuple[int, ...]]:
    """The `cpu` mapping's shapes tried before the descent: for a multi-dimensional kernel a row
    of `RUNTIME_BUDGET` work-items along the inner loop (dimension 0: consecutive elements, the
    loop a CPU device vectorizes), where the device allows it."""
    if dimensions == 1:
        return []
    row = (*(1,) * (dimensions - 1), min(RUNTIME_BUDGET, fit.most))
    return [row] if fit(row) else []


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
           min_gain: float, fits: Optional[Callable[[int, Sequence[int]], bool]] = None,
           seeds: Optional[dict[int, Sequence[tuple[int, ...]]]] = None) -> SearchResult:
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
    `fits(band, sizes)`: whether a candidate may be built (default: `plausible` for `target`);
    `seeds`: per band, sizes tried after the starts and before the descent, which goes on from
    the best of them. At most `budget` evaluations."""
    fit = fits if fits is not None else (lambda band, sizes: plausible(target, sizes))
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
        if not start_is_default.get(band, True) and used < descent and fit(band, starts[band]):
            attempt(band, tuple(starts[band]))
    for band in sorted(starts):
        for sizes in (seeds or {}).get(band, ()):
            if used < descent and tuple(sizes) != tuple(position[band]) and fit(band, sizes):
                attempt(band, tuple(sizes))
    changed = True
    while changed and used < descent:
        changed = False
        for band in sorted(starts):
            for d in range(len(position[band])):
                for factor in (2, 0.5):
                    while used < descent:
                        sizes = list(position[band])
                        sizes[d] = int(sizes[d] * factor)
                        if not fit(band, sizes) or not attempt(band, tuple(sizes)):
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
        # The OpenCL target: the mapping the device runs (its kernels are what gets sized).
        self.opencl = opencl_device() if self.target == "opencl" else None
        self.mapping = opencl_mapping(self.opencl) if self.target == "opencl" else ""
        #: Per region, the bands sized as a tiled kernel's direct variant (`direct:` rules).
        self.direct: dict[tuple[str, str], set[int]] = {}
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
            elif self.mapping == CPU_MAPPING:
                # Every kernel the mapping launches is one work-item per iteration (a tiled
                # kernel's direct variant, or an untiled kernel) in the runtime's work-group.
                kernels = [k for k in r.get("mapping", {}).get("kernels", ()) if k.get("work_group_from")]
                fit = self.direct_fit()
                bands = {n: (direct_start(k["dimensions"], fit), True) for n, k in enumerate(kernels)}
                direct = {n for n, k in enumerate(kernels) if k.get("tiling")}
                if direct and bands:
                    self.direct[(real, r["label"])] = direct
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

    def direct_fit(self) -> DirectFit:
        return DirectFit(self.opencl or OpenclDevice(self.device))

    def tune(self) -> int:
        self.say(f"device: {self.device} ({self.target}{', ' + self.mapping + ' mapping' if self.mapping else ''})")
        regions = self.build("")        # the default sizes, read from its record
        todo = self.bands(regions)
        if not todo:
            self.say("no region of the inputs has bands to size (nothing tiled, no kernels)")
            return 0
        chosen: dict[tuple[str, str], Assignment] = {key: {} for key in todo}

        def rules(assignments: dict[tuple[str, str], Assignment]) -> str:
            return ";".join(f"{DIRECT + ':' if band in self.direct.get(key, ()) else ''}"
                            f"{key[1]}:{band}={','.join(map(str, sizes))}"
                            for key, bands in sorted(assignments.items())
                            for band, sizes in sorted(bands.items()))

        def named(key: tuple[str, str], band: int) -> str:
            return f"{band} (direct)" if band in self.direct.get(key, ()) else str(band)

        for key in sorted(todo):
            real, label = key
            self.say(f"region '{label}' of {self.inputs[real]}: bands "
                     f"{ {named(key, b): start for b, (start, _) in sorted(todo[key].items())} }")

            def measure(assignment: Assignment, again: bool = False,
                        key: tuple[str, str] = key) -> tuple[float, bool]:
                before = self.evaluations
                seconds = self.time(rules({**chosen, key: assignment}), again)
                return seconds, self.evaluations > before

            fits, seeds = None, None
            if self.mapping == CPU_MAPPING:
                fit = self.direct_fit()
                fits = lambda band, sizes: fit(sizes)     # noqa: E731
                seeds = {b: direct_seeds(len(start), fit) for b, (start, _) in todo[key].items()}
            result = search({b: start for b, (start, _) in todo[key].items()},
                            {b: default for b, (_, default) in todo[key].items()}, measure,
                            self.args.budget, self.target, self.args.min_gain / 100.0, fits, seeds)
            if result.seconds == float("inf"):
                self.say(f"region '{label}': no candidate built and ran; nothing cached")
                continue
            chosen[key] = result.chosen
            default = round(result.default_seconds, 6) if result.default_seconds != float("inf") else None
            direct = self.direct.get(key, set())
            entry = {"file": self.inputs[real],
                     "bands": {b: s for b, s in result.chosen.items() if b not in direct},
                     "seconds": round(result.seconds, 6), "start_seconds": default, "model_seconds": default,
                     "evaluations": result.evaluations, "repeat": self.args.repeat, "min_gain": self.args.min_gain}
            if self.mapping == CPU_MAPPING:
                entry["direct_bands"] = {b: s for b, s in result.chosen.items() if b in direct}
            path = store(self.target, self.device, self.contents[real], label, entry, self.mapping)
            sizes = ("; ".join(f"band {named(key, b)}: {','.join(map(str, s))}"
                               for b, s in sorted(result.chosen.items()))
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
