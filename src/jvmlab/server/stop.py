"""Stopping a server: its stop command or a signal (SIGTERM by default), a grace period,
then SIGKILL of its whole process group. The time to stop is measured either way."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class StopOutcome:
    stop_s: float  # from the stop request to the server's exit (or to the kill)
    forced: bool  # it outlived the grace period and its group was killed
    detail: str | None  # what went wrong with the stop command, if anything


def stop_server(pid: int, exited: Callable[[float], bool], stop_command: list[str] | None,
                stop_signal: str, grace_s: float) -> StopOutcome:
    """Ask the server to stop; ``exited(timeout)`` waits for its exit. Kill its group at the end
    of the grace period. Bounded: at most grace + a few seconds."""
    t0 = time.perf_counter()
    detail = None
    if stop_command:
        try:
            done = subprocess.run(stop_command, stdin=subprocess.DEVNULL, capture_output=True,
                                  timeout=grace_s, start_new_session=True, check=False)
            if done.returncode != 0:
                detail = f"stop command exited with code {done.returncode}"
        except (OSError, subprocess.TimeoutExpired) as err:
            detail = f"stop command failed: {err}"
    else:
        try:
            os.kill(pid, signal.Signals[stop_signal])
        except ProcessLookupError:
            pass
    remaining = max(0.0, grace_s - (time.perf_counter() - t0))
    if exited(remaining):
        return StopOutcome(time.perf_counter() - t0, False, detail)
    kill_group(pid)
    exited(10.0)
    return StopOutcome(time.perf_counter() - t0, True, detail)


def kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
