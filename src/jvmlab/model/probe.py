"""The probe seam: the typed context a probe is given and the protocol an executor drives.

A probe is made by a collector (``collect/``) and driven by an executor (``execute/``): it
may add JVM flags, is told the child's pid, sees each output line with its arrival time,
and at the end turns what it gathered into :class:`Collected` data. The protocol and its
record sit on the ground floor so that collectors (below execute) and executors (above
collect) both name them without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from jvmlab.model.collected import Collected
from jvmlab.model.jdk import JdkInfo
from jvmlab.model.process import ProcessResult


@dataclass(frozen=True)
class ProbeContext:
    """What a probe may know about the invocation it watches."""

    jdk: JdkInfo
    cell_name: str
    flags: tuple[str, ...]  # the cell's JVM flags (after flag checking)
    artifacts_dir: Path  # this invocation's own folder, already created
    final_flags: dict[str, str] = field(default_factory=dict)  # PrintFlagsFinal of the cell
    workload_kind: str = ""  # builtin, main, jar or command: hints that apply to one kind only
    # every cell of the experiment logs class loading alike when one cell's archive is verified with
    # it (-Xlog:class+load): a cost measured on both sides of a comparison, not on one
    class_log: bool = False


class Probe(Protocol):
    """One collector's view of one invocation."""

    def jvm_args(self) -> list[str]:
        """Flags to add before the workload's own (may be empty)."""
        ...

    def on_start(self, pid: int) -> None:
        """The child was started (time zero is the executor's start time)."""
        ...

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        """A line of "stdout" or "stderr" arrived t_s seconds after start. Must be cheap."""
        ...

    def on_exit(self) -> None:
        """The child has exited (and has been reaped): stop threads, close files."""
        ...

    def finish(self, result: ProcessResult) -> Collected:
        """Turn what was gathered into data. Must not raise on a failed or odd run."""
        ...
