"""What collectors gather for one invocation: metrics, timelines, documents and hazards.

These records live on the ground floor because the executor returns them, the store writes
them and the report reads them back; none of those should import the collectors.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from jvmlab.model.hazards import Hazard


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

    def merge(self, other: Collected) -> None:
        self.failure = self.failure or other.failure
        self.metrics.update(other.metrics)
        self.metric_units.update(other.metric_units)
        self.timelines.update(other.timelines)
        self.documents.update(other.documents)
        self.hazards.extend(other.hazards)
