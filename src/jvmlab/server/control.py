"""How a server run reaches its processes: by POSIX process group, or by process tree.

The local (wait4) executor starts the server as the leader of a new session, so SIGKILL to its
process group ends everything it started. Windows has no process groups (and the psutil
executor is how jvmlab runs there): the stop signal goes to the server's pid, and the final
kill walks its process tree with psutil (descendants seen earlier included). Clients follow
the same rule, so a server run needs nothing POSIX-only when the psutil executor runs it.
"""

from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Protocol, TypedDict

import psutil


class SpawnKwargs(TypedDict, total=False):
    """The ``subprocess.Popen`` arguments a control adds (typed, so ``**`` matches Popen's overloads)."""

    start_new_session: bool
    creationflags: int


class ProcessControl(Protocol):
    @property
    def name(self) -> str: ...  # read-only: the controls are frozen dataclasses

    def spawn_kwargs(self) -> SpawnKwargs:
        """Extra ``subprocess.Popen`` arguments for a client process."""

    def send(self, pid: int, signal_name: str) -> None:
        """Send the stop signal (``SIGTERM``...) to the server's own process."""

    def kill_all(self, pid: int) -> None:
        """SIGKILL (TerminateProcess) ``pid`` and everything it started."""


@dataclass(frozen=True)
class GroupControl:
    """POSIX: each process leads its own session; the kill goes to the whole group."""

    name: str = "process group"

    def spawn_kwargs(self) -> SpawnKwargs:
        return {"start_new_session": True}

    def send(self, pid: int, signal_name: str) -> None:
        try:
            os.kill(pid, signal.Signals[signal_name])
        except ProcessLookupError:
            pass

    def kill_all(self, pid: int) -> None:
        kill_group(pid)


def kill_group(pid: int) -> None:
    """SIGKILL the process group ``pid`` leads (POSIX; nothing elsewhere), gone or not."""
    if os.name == "posix":
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@dataclass(frozen=True)
class TreeControl:
    """psutil: the signal to the pid (SIGTERM is ``terminate()``: TerminateProcess on Windows,
    where a graceful stop needs a ``stop_command``), the kill to the pid's process tree."""

    name: str = "process tree"

    def spawn_kwargs(self) -> SpawnKwargs:
        if os.name == "nt":  # Ctrl-C in jvmlab's console must not reach the clients directly
            return {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
        return {}

    def send(self, pid: int, signal_name: str) -> None:

        try:
            proc = psutil.Process(pid)
            if signal_name == "SIGTERM":
                proc.terminate()
            elif signal_name == "SIGKILL":
                proc.kill()
            else:
                proc.send_signal(signal.Signals[signal_name])
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass

    def kill_all(self, pid: int) -> None:
        kill_tree(pid)


def control_for(executor: object) -> ProcessControl:
    """Tree control for the psutil executor (and on Windows), group control otherwise."""
    if os.name == "nt":
        return TreeControl()
    return TreeControl() if getattr(executor, "tree_control", False) else GroupControl()


def kill_tree(pid: int, known: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Kill ``pid`` and its descendants (those alive now and those seen earlier); return who was killed.

    Descendants are listed before the parent dies: on Windows an orphan loses its parent link.
    """
    targets: dict[int, psutil.Process] = {}
    try:
        parent = psutil.Process(pid)
        targets.update({c.pid: c for c in parent.children(recursive=True)})
        targets[pid] = parent
    except psutil.NoSuchProcess:
        pass
    for other in known:
        if other not in targets:
            try:
                targets[other] = psutil.Process(other)
            except psutil.NoSuchProcess:
                continue
    killed = []
    for proc in targets.values():
        try:
            proc.kill()
            killed.append(proc.pid)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    psutil.wait_procs([p for p in targets.values() if p.pid != pid], timeout=5)
    return killed
