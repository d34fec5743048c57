"""The collector seam.

A :class:`Collector` is configured once per experiment. For each invocation it makes a
:class:`Probe`, which may add JVM flags (``-Xlog:gc*:file=...``), is told the child's pid,
sees each output line with its arrival time, and at the end turns what it gathered into
:class:`Collected` data: metrics (registry names), timelines, documents and hazards.
Executors know nothing of collectors beyond this interface.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from jvmlab.execute.records import ProcessResult
from jvmlab.hazards import Hazard
from jvmlab.jdk.model import JdkInfo


@dataclass(frozen=True)
class ProbeContext:
    """What a probe may know about the invocation it watches."""

    jdk: JdkInfo
    cell_name: str
    flags: tuple[str, ...]  # the cell's JVM flags (after flag checking)
    artifacts_dir: Path  # this invocation's own folder, already created
    final_flags: dict[str, str] = field(default_factory=dict)  # PrintFlagsFinal of the cell
    workload_kind: str = ""  # builtin, main, jar or command: hints that apply to one kind only


@dataclass(frozen=True)
class Timeline:
    """A time series: seconds since the process started, and values in ``unit``."""

    t_s: tuple[float, ...]
    values: tuple[float, ...]
    unit: str


@dataclass
class Collected:
    """What one probe contributes to one invocation's record."""

    metrics: dict[str, float] = field(default_factory=dict)  # registry name -> value
    metric_units: dict[str, str] = field(default_factory=dict)  # units of dynamic metrics
    timelines: dict[str, Timeline] = field(default_factory=dict)  # e.g. "mem.rss_bytes"
    documents: dict[str, Any] = field(default_factory=dict)  # e.g. "gc": summary JSON
    hazards: list[Hazard] = field(default_factory=list)
    failure: str | None = None  # the run's result is refused (e.g. a JMH fork with other flags)

    def merge(self, other: "Collected") -> None:
        self.failure = self.failure or other.failure
        self.metrics.update(other.metrics)
        self.metric_units.update(other.metric_units)
        self.timelines.update(other.timelines)
        self.documents.update(other.documents)
        self.hazards.extend(other.hazards)


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


class Collector(Protocol):
    """Configured once per experiment; makes one probe per invocation."""

    name: str

    def probe(self, ctx: ProbeContext) -> Probe:
        ...


class NullProbe:
    """A probe that adds nothing: a base for probes that only need some hooks."""

    def jvm_args(self) -> list[str]:
        return []

    def on_start(self, pid: int) -> None:
        return None

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        return None

    def on_exit(self) -> None:
        return None

    def finish(self, result: ProcessResult) -> Collected:
        return Collected()
