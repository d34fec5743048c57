"""Which metric an experiment compares, and why: recorded at run start, read by the report.

``run --metric ready_s`` and a scenario's own metric (``demo gc`` compares steady
throughput) are part of how the experiment was run; ``report`` and ``export`` without
``--metric`` use the recorded one, so the report answers the question that was asked and
says why it chose that metric. The record lives in the experiment's run options (merged,
since ``--until``/budget settings are kept there too for ``--resume``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from jvmlab.model.documents import RunOptionsRecord

DEFAULT_METRIC = "wall_s"
DEFAULT_REASON = "default (no --metric given and none recorded for this run)"
GIVEN_REASON = "--metric given"


@dataclass(frozen=True)
class MetricChoice:
    metric: str
    reason: str  # e.g. "--metric given", "scenario gc: steady-state throughput"


def remember_metric(store: Any, experiment_id: int, choice: MetricChoice) -> None:
    """Merge ``metric`` and ``metric_reason`` into the experiment's run options."""
    options = store.experiment(experiment_id).run_options
    store.set_run_options(experiment_id, options.but(metric=choice.metric, metric_reason=choice.reason))


def run_metric_reason(metric: str, given: bool) -> str:
    """The reason recorded by ``jvmlab run``."""
    return GIVEN_REASON if given else f"default of `jvmlab run` ({metric})"


def choose_metric(run_options: RunOptionsRecord, given: str | None) -> MetricChoice:
    """``--metric`` when given; else what the run recorded; else the default ``wall_s``."""
    if given is not None:
        return MetricChoice(given, GIVEN_REASON)
    recorded = run_options.metric
    if recorded:
        why = run_options.metric_reason or "recorded"
        return MetricChoice(recorded, f"as the run was made: {why}")
    return MetricChoice(DEFAULT_METRIC, DEFAULT_REASON)
