"""Workload-reported metrics: lines like ``jvmlab-metric name=x value=1.5 unit=ms`` on
stdout become metrics ``workload.x`` of the invocation (the last value of a name wins)."""

from __future__ import annotations

from jvmlab.collect.base import NullProbe
from jvmlab.model.collected import Collected
from jvmlab.model.probe import ProbeContext
from jvmlab.model.process import ProcessResult
from jvmlab.workloads.metric_line import parse_metric_line


class WorkloadMetricsProbe(NullProbe):
    def __init__(self) -> None:
        self.values: dict[str, float] = {}
        self.units: dict[str, str] = {}

    def on_line(self, stream: str, t_s: float, line: str) -> None:
        if stream != "stdout" or "jvmlab-metric" not in line:
            return
        metric = parse_metric_line(line)
        if metric is not None:
            name = f"workload.{metric.name}"
            self.values[name] = metric.value
            self.units[name] = metric.unit

    def finish(self, result: ProcessResult) -> Collected:
        return Collected(metrics=dict(self.values), metric_units=dict(self.units))


class WorkloadMetricsCollector:
    name = "workload_metrics"

    def probe(self, ctx: ProbeContext) -> WorkloadMetricsProbe:
        return WorkloadMetricsProbe()
