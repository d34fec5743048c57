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
    # --until-style sizing: add blocks until every 95% CI half-width is within until_rel of
    # the baseline, at most max_blocks blocks (None: the spec's fixed invocations).
    until_rel: float | None = None
    max_blocks: int | None = None

    def max_invocations(self, n_cells: int) -> int | None:
        """The run's budget in invocations for a plan of ``n_cells`` cells."""
        return None if self.max_blocks is None else self.max_blocks * n_cells

    @property
    def metric_reason(self) -> str:
        """Recorded with the run, so `jvmlab report` compares what the scenario is about."""
        return f"scenario {self.scenario}: {self.metric_why or self.metric}"


class ScenarioSkipped(Exception):
    """The scenario cannot run on this machine (no Maven, no suitable JDK); the message says why."""
