"""One experiment a scenario runs: a spec's TOML text and the metric its verdict compares."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScenarioRun:
    scenario: str  # the scenario whose verdict reads this run's summary ("cds", "gc", ...)
    title: str
    toml: str
    metric: str = "wall_s"
    metric_why: str = ""  # what the metric measures here, e.g. "steady-state throughput"

    @property
    def metric_reason(self) -> str:
        """Recorded with the run, so `jvmlab report` compares what the scenario is about."""
        return f"scenario {self.scenario}: {self.metric_why or self.metric}"


class ScenarioSkipped(Exception):
    """The scenario cannot run on this machine (no Maven, no suitable JDK); the message says why."""
