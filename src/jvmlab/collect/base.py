"""The collector seam.

A :class:`Collector` is configured once per experiment. For each invocation it makes a
probe (:class:`jvmlab.model.probe.Probe`), which may add JVM flags (``-Xlog:gc*:file=...``),
is told the child's pid, sees each output line with its arrival time, and at the end turns
what it gathered into :class:`jvmlab.model.collected.Collected` data. Executors know nothing
of collectors beyond the probe protocol; the records live in ``jvmlab.model``.
"""

from __future__ import annotations

from typing import Protocol

from jvmlab.model.collected import Collected
from jvmlab.model.probe import Probe, ProbeContext
from jvmlab.model.process import ProcessResult


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
