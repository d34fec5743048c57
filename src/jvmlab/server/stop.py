"""Stopping a server: its stop command or a signal (SIGTERM by default), a grace period,
then SIGKILL of its whole process group (or process tree: :mod:`jvmlab.server.control`).
The time to stop is measured either way."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from jvmlab.server.control import GroupControl, ProcessControl


@dataclass(frozen=True)
class StopOutcome:
    stop_s: float  # from the stop request to the server's exit (or to the kill)
    forced: bool  # it outlived the grace period and its group was killed
    detail: str | None  # what went wrong with the stop command, if anything


def stop_server(pid: int, exited: Callable[[float], bool], stop_command: list[str] | None,
                stop_signal: str, grace_s: float, control: ProcessControl | None = None,
                cwd: Path | None = None) -> StopOutcome:
    """Ask the server to stop; ``exited(timeout)`` waits for its exit. Kill its group at the end
    of the grace period. Bounded: at most grace + a few seconds. A stop command runs in ``cwd``
    (the server's own folder), its relative program looked up there."""
    control = control or GroupControl()
    t0 = time.perf_counter()
    detail = None
    if stop_command:
        if cwd is not None and "/" in stop_command[0] and not Path(stop_command[0]).is_absolute():
            stop_command = [str(cwd / stop_command[0]), *stop_command[1:]]
        try:
            done = subprocess.run(stop_command, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=grace_s, check=False, **control.spawn_kwargs())
            if done.returncode != 0:
                detail = f"stop command exited with code {done.returncode}"
        except (OSError, subprocess.TimeoutExpired) as err:
            detail = f"stop command failed: {err}"
    else:
        control.send(pid, stop_signal)
    remaining = max(0.0, grace_s - (time.perf_counter() - t0))
    if exited(remaining):
        return StopOutcome(time.perf_counter() - t0, False, detail)
    control.kill_all(pid)
    exited(10.0)
    return StopOutcome(time.perf_counter() - t0, True, detail)
