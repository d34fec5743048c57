"""The launch helper: a tiny static C program that forks, times and reaps each child.

Why: a child started from jvmlab's own ~110 MB Python process (fork, vfork or posix_spawn
alike) carries Python's high-water RSS into its ``ru_maxrss`` across exec, so every JVM
smaller than jvmlab looked ~92 MiB; and a fork of that process costs milliseconds that
landed in the wall clock. jvmlab instead posix_spawns ``jvmlab-launch`` (source:
``launch.c`` next to this module, built once with the system C compiler into the cache),
which forks the command from its own few hundred KiB, reads CLOCK_MONOTONIC next to fork and
wait, and reports the child's rusage. See the C file for the protocol and the guarantees
(own process group, parent-death kill of the whole group, no Python code between fork and exec).
"""

from __future__ import annotations

import functools
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from jvmlab.native import build

SOURCE = Path(__file__).with_name("launch.c")
REPORT_FD = 3


@dataclass(frozen=True)
class Started:
    """The child exec'd: its pid, and the clock (monotonic seconds) read just before fork."""

    pid: int
    t_start: float


@dataclass(frozen=True)
class Ended:
    """The child exited: when (monotonic seconds), its wait status and its own rusage."""

    t_end: float
    wait_status: int
    timed_out: bool
    user_s: float
    sys_s: float
    max_rss_bytes: int
    minor_faults: int
    major_faults: int
    vol_ctx_switches: int
    invol_ctx_switches: int


def parse_report(line: str) -> Started | Ended | int:
    """One report line: ``S`` as :class:`Started`, ``E`` as :class:`Ended`, ``F errno`` as the errno."""
    parts = line.split()
    try:
        if len(parts) == 2 and parts[0] == "F":
            return int(parts[1])
        if len(parts) == 3 and parts[0] == "S":
            return Started(int(parts[1]), int(parts[2]) / 1e9)
        if len(parts) == 11 and parts[0] == "E":
            v = [int(p) for p in parts[1:]]
            return Ended(v[0] / 1e9, v[1], bool(v[2]), v[3] / 1e6, v[4] / 1e6, v[5] * 1024, v[6], v[7], v[8], v[9])
    except ValueError:
        pass
    raise ValueError(f"unexpected launch helper report {line!r}")


@functools.cache
def launcher_path() -> Path | None:
    """The built helper (built on first use, keyed by its source's hash); None without a C compiler.
    Static first: no dynamic loader on every launch."""
    return build(SOURCE, "launcher", "jvmlab-launch", [["-static"], []])


def spawn(helper: Path, argv: tuple[str, ...], env: dict[str, str], cwd: Path, timeout_s: float,
          stdout_fd: int, stderr_fd: int, report_fd: int) -> int:
    """Start the helper (vfork-like posix_spawn, in jvmlab's process group and session, so the
    command stays in jvmlab's scheduler autogroup): the command's parent. Its pid."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_DUP2, stdout_fd, 1),
        (os.POSIX_SPAWN_DUP2, stderr_fd, 2),
        (os.POSIX_SPAWN_DUP2, report_fd, REPORT_FD),
    ]
    timeout_ms = str(max(1, round(timeout_s * 1000)))
    return os.posix_spawn(str(helper), [str(helper), str(os.getpid()), str(cwd), timeout_ms, "--", *argv], env,
                          file_actions=actions, setsigmask=(),
                          setsigdef=(signal.SIGPIPE, signal.SIGXFSZ))  # Python ignores both


def high_fd(fd: int) -> int:
    """``fd`` moved above 3 if needed, so dup2 onto 0-3 never lands on itself (close-on-exec kept)."""
    if fd > REPORT_FD:
        return fd
    import fcntl

    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved
