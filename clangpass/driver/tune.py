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
region starts from the model's sizes (the CPU target's cache model, as the record of a build
without tuned sizes gives them; on the OpenCL target `OPENCL_START`), then coordinate descent:
for each band and each of its loops, outermost first, the size doubled, then halved, kept
while it makes the program faster, until a whole round changes nothing or the budget is spent.
Candidates a coarse footprint model rejects are never built (`plausible`): on the CPU a tile
whose estimated footprint (one 8-byte array per pair of loops of the band) exceeds the L2
cache, on the OpenCL target a work-group of more than `MAX_WORK_GROUP` work-items. A time is
the median of `--repeat` runs (3); a build or run that fails rules the candidate out. Regions
are tuned one after the other, each with the sizes already chosen for the others.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from clangpass.driver.cli import CommandLineError, parse_command_line
from clangpass.poly.tile_sizes import host_cache_sizes
from clangpass.tuning import device_name, store

MAX_BUDGET = 20
MAX_WORK_GROUP = 256
MAX_SIZE = 1024
#: The OpenCL search's start (outer loop first), by kernel dimensions.
OPENCL_START = {1: (64,), 2: (16, 16)}


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
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a build or run may take (600)")
    parser.add_argument("--quiet", action="store_true", help="print only the choices")
    args = parser.parse_args(list(argv[:split]))
    if not 1 <= args.budget <= MAX_BUDGET:
        raise TuneError(f"'--budget' expects 1 to {MAX_BUDGET}, got {args.budget}")
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

    def time(self, rules: str) -> float:
        """The median run time of the program built with `rules` (inf when it fails)."""
        if rules in self.times:
            return self.times[rules]
        self.evaluations += 1
        try:
            self.build(rules)
        except TuneError as exc:
            self.say(f"  {rules or 'model'}: not used, {str(exc).splitlines()[0]}")
            self.times[rules] = float("inf")
            return self.times[rules]
        seconds = []
        for _ in range(self.args.repeat):
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
            seconds.append(time.perf_counter() - start)
        self.times[rules] = statistics.median(seconds) if seconds else float("inf")
        self.say(f"  {rules or 'model'}: {self.times[rules]:.4f} s")
        return self.times[rules]

    def bands(self, regions: list[dict]) -> dict[tuple[str, str], dict[int, tuple[int, ...]]]:
        """(input path, label) -> band number -> start sizes, of the regions to tune."""
        found: dict[tuple[str, str], dict[int, tuple[int, ...]]] = {}
        for r in regions:
            real = os.path.realpath(r.get("file", ""))
            if r.get("status") != "optimized" or real not in self.inputs or not r.get("label"):
                continue
            if self.target == "cpu":
                bands = {b["band"]: tuple(b["sizes"]) for b in r.get("tile_bands", ())}
            else:
                kernels = [k for k in r.get("mapping", {}).get("kernels", ()) if k.get("work_group_from")]
                bands = {n: OPENCL_START.get(k["dimensions"], OPENCL_START[1]) for n, k in enumerate(kernels)}
            if bands:
                found[(real, r["label"])] = bands
        return found

    def tune(self) -> int:
        self.say(f"device: {self.device} ({self.target})")
        regions = self.build("")        # the model's sizes, read from its record
        todo = self.bands(regions)
        if not todo:
            self.say("no region of the inputs has bands to size (nothing tiled, no kernels)")
            return 0
        chosen = {key: dict(bands) for key, bands in todo.items()}

        def rules() -> str:
            return ";".join(f"{label}:{band}={','.join(map(str, sizes))}"
                            for (_, label), bands in sorted(chosen.items()) for band, sizes in sorted(bands.items()))

        for key in sorted(todo):
            real, label = key
            self.say(f"region '{label}' of {self.inputs[real]}: bands {dict(todo[key])}")
            start = self.evaluations
            best = self.time(rules())
            first = best
            changed = True
            while changed and self.evaluations - start < self.args.budget:
                changed = False
                for band in sorted(chosen[key]):
                    for d in range(len(chosen[key][band])):
                        for factor in (2, 0.5):
                            while self.evaluations - start < self.args.budget:
                                sizes = list(chosen[key][band])
                                sizes[d] = int(sizes[d] * factor)
                                if not plausible(self.target, sizes):
                                    break
                                previous = chosen[key][band]
                                chosen[key][band] = tuple(sizes)
                                candidate = rules()
                                if candidate in self.times and self.times[candidate] >= best:
                                    chosen[key][band] = previous
                                    break
                                seconds = self.time(candidate)
                                if seconds < best:
                                    best, changed = seconds, True
                                else:
                                    chosen[key][band] = previous
                                    break
            used = self.evaluations - start
            if best == float("inf"):
                self.say(f"region '{label}': no candidate built and ran; nothing cached")
                continue
            path = store(self.target, self.device, self.contents[real], label, {
                "file": self.inputs[real], "bands": chosen[key], "seconds": round(best, 6),
                "start_seconds": round(first, 6) if first != float("inf") else None,
                "evaluations": used, "repeat": self.args.repeat})
            sizes = "; ".join(f"band {b}: {','.join(map(str, s))}" for b, s in sorted(chosen[key].items()))
            print(f"pencilcc-tune: {label}: {sizes} ({best:.4f} s, {used} evaluations) -> {path}", flush=True)
        # The user's build, which now finds the tuned sizes.
        self.build("", tuned=True)
        return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        args, build = _arguments(argv)
        return Tuner(args, build).tune()
    except TuneError as exc:
        print(f"pencilcc-tune: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
