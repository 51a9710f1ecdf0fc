# SPDX-License-Identifier: MIT
"""One benchmark run in a process of its own, with that process's peak resident set size.

Input: a command, its environment, a timeout, and the helper program built by
:func:`build_helper`.  Output: an :class:`Execution` (exit status, standard
output and error, the run's ``ru_maxrss`` in KiB).

Two things make a child's peak RSS wrong if it is read naively:

- ``getrusage(RUSAGE_CHILDREN)`` gives the largest ``ru_maxrss`` over every
  child reaped so far: a small program run after a big one would report the
  big one's peak.  The rusage ``wait4`` returns when it reaps one child is
  that child's alone.
- Linux keeps a process's high-water RSS across ``execve``: the memory of
  the process that forked it (Python, the bench and everything it imported,
  tens of MiB; over 100 MiB under pytest) counts in the executed program's
  ``ru_maxrss``, whether it was started with ``fork``, ``vfork`` or
  ``posix_spawn``.

So a run goes through a helper, a small C program (:data:`HELPER_SOURCE`,
built once per benchmark with the reference compiler): it forks, the child
executes the benchmark program (whose inherited high-water mark is the
helper's, about 1 MiB), and the helper reaps it with ``wait4`` and writes its
``ru_maxrss`` to a file descriptor it was given.  Without the helper (no C
compiler), runs still work but report no RSS.  The helper passes the
program's exit status or signal on; each run is a session of its own, whose
whole process group a timeout kills.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Sequence

#: The helper: ``peak-rss FD PROGRAM ARGS...`` runs PROGRAM as its child, writes the child's
#: ``ru_maxrss`` (decimal, then a newline) to descriptor FD and exits as the child did.
HELPER_SOURCE = r"""/* test_suite/bench/rusage.py: run a program as the child of this small process and
 * write its own peak RSS (wait4's ru_maxrss) to a descriptor. */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
  int fd, status;
  pid_t pid;
  struct rusage usage;
  struct rlimit no_core = {0, 0};

  if (argc < 3)
    return 125;
  fd = atoi(argv[1]);
  if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)   /* the program does not inherit it */
    return 125;
  pid = fork();
  if (pid < 0)
    return 125;
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    _exit(127);
  }
  while (wait4(pid, &status, 0, &usage) < 0)
    if (errno != EINTR)
      return 125;
  dprintf(fd, "%ld\n", (long)usage.ru_maxrss);
  if (WIFSIGNALED(status)) {
    setrlimit(RLIMIT_CORE, &no_core);
    signal(WTERMSIG(status), SIG_DFL);
    raise(WTERMSIG(status));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
}
"""
_BUILD_TIMEOUT_S = 120


@dataclass(frozen=True)
class Execution:
    """A finished (or timed out) run."""

    returncode: int
    stdout: str
    stderr: str
    #: The run's peak resident set size in KiB (None: timed out, or no helper).
    max_rss_kib: Optional[int]
    timed_out: bool = False


def max_rss_kib(ru_maxrss: int, platform: str = sys.platform) -> int:
    """``ru_maxrss`` in KiB: Linux and the BSDs count KiB, macOS bytes."""
    return ru_maxrss // 1024 if platform == "darwin" else ru_maxrss


def build_helper(directory: Path, compiler: str = "gcc") -> tuple[Optional[Path], str]:
    """Build the helper in ``directory``: ``(its path, "")``, or ``(None, why not)``."""
    directory.mkdir(parents=True, exist_ok=True)
    source = directory / "peak-rss.c"
    source.write_text(HELPER_SOURCE)
    helper = directory / "peak-rss"
    try:
        proc = subprocess.run([compiler, "-O2", str(source), "-o", str(helper)], capture_output=True, text=True,
                              timeout=_BUILD_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"cannot build the peak-RSS helper with {compiler}: {exc}"
    if proc.returncode != 0:
        return None, f"cannot build the peak-RSS helper with {compiler}: {proc.stderr.strip()[-300:]}"
    return helper, ""


def execute(command: Sequence[str], env: Mapping[str, str], timeout: float,
            helper: Optional[Path] = None) -> Execution:
    """Run ``command`` to its end (killed after ``timeout`` seconds); its output and, through ``helper``,
    its peak RSS.  :class:`OSError` if it cannot be started."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err, tempfile.TemporaryFile() as rss:
        argv = [str(helper), str(rss.fileno()), *command] if helper is not None else list(command)
        # A session of its own: a timeout kills the helper and the program together.
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=dict(env), start_new_session=True,
                                pass_fds=(rss.fileno(),) if helper is not None else ())
        try:
            proc.wait(timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:  # a timeout, or Ctrl-C while waiting: leave no process behind
            if proc.returncode is None:
                _kill_group(proc)
        peak = None
        if helper is not None and not timed_out:
            rss.seek(0)
            text = rss.read().decode().strip()
            peak = max_rss_kib(int(text)) if text.isdigit() else None
        out.seek(0)
        err.seek(0)
        return Execution(proc.returncode, out.read().decode(errors="replace"),
                         err.read().decode(errors="replace"), peak, timed_out)


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill ``proc``'s process group (the helper and the program) and reap ``proc``."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # not reaped yet: the group is still its own
    except ProcessLookupError:
        pass
    proc.wait()
