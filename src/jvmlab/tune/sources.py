"""Which part of a run measures a metric the tuner may optimise or guard.

A trial runs through the same slot path as `run` (the cell's invocation template, the
collectors the spec switches on), so any stored metric can be an objective or a guardrail:
the process's own (rusage, ready marker) or a collector's (`gc.*`, `mem.*`, `workload.*`...).
What is checked here, before anything runs, is that the collector that makes the metric is on.
"""

from __future__ import annotations

from collections.abc import Mapping

from jvmlab.errors import UserError
from jvmlab.model.stored import PROCESS_METRICS

# Metric name prefix -> the collector (a `[collect]` key) that measures it.
COLLECTOR_OF_PREFIX = {
    "gc.": "gc", "mem.": "proc", "cpu.": "proc", "workload.": "workload_metrics", "progress.": "progress",
    "jfr.": "jfr", "startup.": "startup", "jmh.": "jmh",
}


def collector_of(metric: str) -> str | None:
    """The collector that measures ``metric``; None for the process's own metrics."""
    if metric in PROCESS_METRICS:
        return None
    for prefix, name in COLLECTOR_OF_PREFIX.items():
        if metric.startswith(prefix):
            return name
    raise UserError(f"[tune] {metric!r} is not measured per invocation (the tuner uses the process "
                    f"metrics {', '.join(PROCESS_METRICS)} or a collector's: "
                    f"{', '.join(p + '*' for p in COLLECTOR_OF_PREFIX)})")


def check_measured(metric: str, where: str, collectors_on: Mapping[str, object], ready: bool) -> None:
    """One line, before anything runs, when nothing in this spec would measure ``metric``."""
    if metric == "ready_s" and not ready:
        raise UserError(f"[tune] {where} uses ready_s but the workload has no `ready` regex, so it is not measured")
    name = collector_of(metric)
    if name is None or name == "jmh":
        return
    if not collectors_on.get(name):
        raise UserError(f"[tune] {where} {metric!r} is measured by the {name} collector, which is off: "
                        f"set `[collect] {name} = true`")
