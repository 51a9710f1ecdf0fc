# SPDX-License-Identifier: MIT
"""Running the host C compiler (and the commands built on it) for the driver.

`HostCompiler` is the one place where pencilcc starts processes: it echoes each
command with `-v`, moves very long argument lists into a response file (so that
a long link line from a build system never hits the kernel's argument limit),
and answers questions about the compiler whose answers go into the compile
cache key (`identity`) or into the back end's options (`default_pic`). Every
process it starts has `PENCILCC_HOST_COMMAND` in its environment: a pencilcc that
finds it set was started by its own host compiler command (a wrapper script that
runs pencilcc) and stops with a usage error instead of starting itself again.
What a command prints goes to pencilcc's stdout and stderr, unless the compiler
has a `console` (clangpass.compile's): then it is captured and handed to it, with
the diagnostics it holds as values.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from typing import Optional, Sequence

from clangpass.driver.cli import quote_response_arg
from clangpass.driver.console import Console, tool_diagnostics
from clangpass.toolchain import host_cc

# Beyond this many bytes of arguments, pass them in a response file (Linux allows
# 128 KiB per argument and ~2 MiB in all; stay well below both).
_RESPONSE_FILE_THRESHOLD = 64 * 1024

RECURSION_GUARD = "PENCILCC_HOST_COMMAND"

# Flags whose meaning depends on the machine the compiler runs on.
_NATIVE_FLAGS = ("-march=native", "-mtune=native", "-mcpu=native")


class HostError(Exception):
    """The host compiler could not be started at all (not found, not executable)."""


def starting_host_command() -> str:
    """The host command of the pencilcc that (indirectly) started this one, '' if none did."""
    return os.environ.get(RECURSION_GUARD, "")


@dataclass
class HostCompiler:
    command: list[str] = field(default_factory=host_cc)
    verbose: bool = False
    flags: tuple[str, ...] = ()  # the user's compile flags (what -march=native resolves to)
    workdir: str = ""            # where response files go; '' until the driver has a temp dir
    console: Optional[Console] = None   # where what commands print goes (None: our stdout/stderr)
    _identity: Optional[str] = None
    _pic: dict[tuple[str, ...], bool] = field(default_factory=dict)
    _pic_probes: dict[tuple[str, ...], subprocess.Popen] = field(default_factory=dict)
    _answers: dict[tuple[str, ...], str] = field(default_factory=dict)
    _questions: dict[tuple[str, ...], subprocess.Popen] = field(default_factory=dict)
    _responses: int = 0

    @property
    def name(self) -> str:
        return self.command[0]

    def environment(self) -> dict[str, str]:
        """Our environment plus the recursion guard, for every process we start.

        Once the driver has its private directory, the host compiler's own temporaries
        (gcc's cc*.s, cc*.o) go there too (TMPDIR), so that they are removed with it
        when a signal ends the build while the host compiler runs.
        """
        env = {**os.environ, RECURSION_GUARD: shlex.join(self.command)}
        if self.workdir:
            env["TMPDIR"] = self.workdir
        return env

    def echo(self, argv: Sequence[str]) -> None:
        if self.verbose:
            sys.stderr.write(" " + shlex.join(argv) + "\n")
            sys.stderr.flush()

    def _spill(self, args: list[str]) -> list[str]:
        if not self.workdir or sum(len(a) + 1 for a in args) < _RESPONSE_FILE_THRESHOLD:
            return args
        self._responses += 1
        path = os.path.join(self.workdir, f"args{self._responses}.rsp")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(quote_response_arg(a) for a in args) + "\n")
        return ["@" + path]

    def run(self, args: Sequence[str], *, capture: bool = False, stdout: Optional[int] = None,
            tool: Optional[list[str]] = None) -> subprocess.CompletedProcess:
        """Run the host compiler (or `tool`) with `args`; stdout/stderr captured when `capture`."""
        argv = [*(tool or self.command), *self._spill(list(args))]
        self.echo(argv)
        try:
            if capture:
                return subprocess.run(argv, capture_output=True, env=self.environment())
            if self.console is None or stdout is not None:
                return subprocess.run(argv, stdout=stdout, env=self.environment())
            proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.environment())
        except OSError as exc:
            raise HostError(f"cannot run '{argv[0]}': {exc.strerror or exc}") from None
        printed = proc.stdout.decode(errors="replace")
        self.console.output(printed, tool_diagnostics(printed))
        return subprocess.CompletedProcess(proc.args, proc.returncode)

    def start(self, args: Sequence[str]) -> subprocess.Popen:
        """`run(args, capture=True)` started and not waited for: `communicate()` gives its output."""
        argv = [*self.command, *self._spill(list(args))]
        self.echo(argv)
        try:
            return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=self.environment())
        except OSError as exc:
            raise HostError(f"cannot run '{argv[0]}': {exc.strerror or exc}") from None

    def identity(self) -> str:
        """`cc --version` (and where cc is), and what `-march=native` and its kin stand for
        on this machine when the flags have them, for the compile cache key; computed once."""
        if self._identity is None:
            where = shutil.which(self.name) or self.name
            try:
                stat = os.stat(where)
                stamp = f"{stat.st_size}:{stat.st_mtime_ns}"
            except OSError:
                stamp = ""
            proc = self.run(["--version"], capture=True)
            self._identity = f"{shlex.join(self.command)}\n{where}:{stamp}\n" + \
                proc.stdout.decode(errors="replace") + self._native_target()
        return self._identity

    def _native_target(self) -> str:
        """The compiler's own account (`-###`) of the commands it runs for the native flags:
        gcc spells out the CPU and its features there (`-march=znver3 -mavx2 ...`), clang its
        `-target-cpu`. A cache shared by two machines must not mix their objects."""
        native = [f for f in self.flags if f in _NATIVE_FLAGS]
        if not native:
            return ""
        proc = self.run([*native, "-###", "-E", "-x", "c", os.devnull], capture=True)
        return "\nnative:" + proc.stderr.decode(errors="replace")

    def version_line(self) -> str:
        """The first line of `cc --version`, or why there is none."""
        try:
            proc = subprocess.run([*self.command, "--version"], capture_output=True, timeout=30,
                                  env=self.environment())
        except (OSError, subprocess.SubprocessError) as exc:
            return f"(cannot run '{self.name}': {exc})"
        lines = proc.stdout.decode(errors="replace").splitlines()
        return lines[0] if lines else f"(no version from '{self.name}')"

    def default_pic(self, flags: Sequence[str]) -> bool:
        """Whether the host compiles position-independent code with these flags.

        Debian/Ubuntu/Fedora compilers build PIE executables by default: objects of
        ours linked into them must be PIC too, or the link fails.
        """
        key = tuple(flags)
        if key not in self._pic:
            probe = self._pic_probes.pop(key, None)
            if probe is not None:
                macros = probe.communicate()[0].decode(errors="replace")
            else:
                proc = self.run(self._pic_probe_args(flags), capture=True)
                macros = proc.stdout.decode(errors="replace")
            self._pic[key] = "__pic__" in macros or "__PIC__" in macros or "__pie__" in macros
        return self._pic[key]

    def start_pic_probe(self, flags: Sequence[str]) -> None:
        """Start the command `default_pic(flags)` waits for, so that it runs while the driver
        loads the polyhedral passes and LLVM (about 20 ms of a second core, off every compile's
        wall time); `default_pic` uses its answer."""
        key = tuple(flags)
        if key not in self._pic and key not in self._pic_probes:
            self._pic_probes[key] = self.start(self._pic_probe_args(flags))

    def end_pic_probes(self) -> None:
        """Reap the probes no `default_pic` asked for (no input needed the back end), and the
        questions no `answer` asked for."""
        while self._pic_probes:
            self._pic_probes.popitem()[1].communicate()
        while self._questions:
            self._questions.popitem()[1].communicate()

    def ask_early(self, args: Sequence[str]) -> None:
        """Start the host compiler's answer to `args` (`-print-prog-name=objcopy`), which
        `answer(args)` will take: it runs while the driver does something else (a process of
        the host compiler's driver: 5 ms of wall time each)."""
        key = tuple(args)
        if key not in self._answers and key not in self._questions:
            try:
                self._questions[key] = self.start(args)
            except HostError:
                pass        # `answer` runs it again and says what is wrong

    def answer(self, args: Sequence[str]) -> str:
        """The host compiler's standard output for `args`, stripped; once per command."""
        key = tuple(args)
        if key not in self._answers:
            started = self._questions.pop(key, None)
            out = started.communicate()[0] if started is not None else self.run(args, capture=True).stdout
            self._answers[key] = out.decode(errors="replace").strip()
        return self._answers[key]

    @staticmethod
    def _pic_probe_args(flags: Sequence[str]) -> list[str]:
        # The predefined macros: __pic__/__pie__ say what code the host generates.
        return [*flags, "-dM", "-E", "-x", "c", os.devnull]
