"""A stored heap sweep read back as curves: per series (collector x JDK x ...) and metric,
mean and CI at each heap size, and the knee of the time curve. Renderers take this record,
never the store."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from jvmlab.errors import UserError
from jvmlab.metrics import MetricRegistry
from jvmlab.model.documents import HeapLevel, HeapSweepDocument
from jvmlab.results import load_experiment
from jvmlab.sizing.sweep import (
    HEAP_FACTOR,
    Curve,
    CurvePoint,
    KneeComparison,
    KneeEstimate,
    compare_knees,
    curve,
)
from jvmlab.store.protocol import Store

SIDE_METRICS = ("max_rss_bytes", "gc.pause_p99_ms")


@dataclass(frozen=True)
class SweepResult:
    experiment_id: int
    levels: tuple[HeapLevel, ...]
    reference_bytes: int | None  # the minimum heap the multiples are of (None: absolute sizes)
    within: float
    time_metric: str
    curves: dict[str, tuple[Curve, ...]]  # metric -> one curve per series

    def knees(self) -> dict[str, CurvePoint | None]:
        return {c.series: c.knee(self.within) for c in self.curves.get(self.time_metric, ())}

    def knee_estimates(self) -> dict[str, KneeEstimate]:
        """Per series: the knee with its bootstrap interval, or "not resolved" and why."""
        return {c.series: c.knee_estimate(self.within) for c in self.curves.get(self.time_metric, ())}

    def compare_knees(self, a: str, b: str) -> KneeComparison | None:
        """Knee heap of series ``a`` over ``b`` on the time metric (None: a series is missing)."""
        found = {c.series: c for c in self.curves.get(self.time_metric, ())}
        if a not in found or b not in found:
            return None
        return compare_knees(found[a], found[b], self.within)

    def to_json(self) -> dict[str, Any]:
        return {"experiment_id": self.experiment_id, "levels": [lv.to_json() for lv in self.levels],
                "reference_bytes": self.reference_bytes, "within": self.within, "time_metric": self.time_metric,
                "knees": {s: (p.level if p else None) for s, p in self.knees().items()},
                "knee_intervals": {s: k.to_json() for s, k in self.knee_estimates().items()},
                "curves": {m: [{"series": c.series, "points": [p.__dict__ for p in c.points]} for c in cs]
                           for m, cs in self.curves.items()}}


def series_name(jvm: str, levels: dict[str, str]) -> str:
    """"j17 gc=G1": the cell's name without its heap level."""
    return " ".join([jvm] + [f"{k}={v}" for k, v in levels.items() if k != HEAP_FACTOR])


def load_sweep(store: Store, experiment_id: int, time_metric: str = "wall_s", within: float = 0.05) -> SweepResult:
    doc = store.record(experiment_id, HeapSweepDocument)
    if doc is None:
        raise UserError(f"experiment {experiment_id} is not a heap sweep; run `jvmlab minheap SPEC --sweep`")
    levels = doc.levels
    results = load_experiment(store, experiment_id, documents=False)  # the results layer: one load
    cells = {c.id: c for c in results.cells}
    values: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for inv in results.invocations:
        if inv.status != "ok":
            continue
        cell = cells[inv.cell_id]
        series, level = series_name(cell.jvm, cell.levels), cell.levels.get(HEAP_FACTOR, "")
        for metric in (time_metric, *SIDE_METRICS):
            value = inv.value(metric)
            if value is not None:
                values[metric][series][level].append(float(value))
    all_series = sorted({series_name(c.jvm, c.levels) for c in cells.values()})
    curves = {}
    for metric in (time_metric, *SIDE_METRICS):
        lower = results.metrics.get(metric).lower_is_better if _known(results.metrics, metric) else True
        curves[metric] = tuple(curve(s, metric, lower, levels, values[metric][s], seed=experiment_id)
                               for s in all_series)
    return SweepResult(experiment_id, levels, doc.reference_bytes, within, time_metric, curves)


def _known(registry: MetricRegistry, metric: str) -> bool:
    try:
        registry.get(metric)
    except UserError:
        return False
    return True
