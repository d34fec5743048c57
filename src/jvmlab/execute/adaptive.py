"""Adaptive stopping against the store: is every comparison's CI narrow enough yet?"""

from __future__ import annotations

from dataclasses import dataclass

from jvmlab.analyze import analyze_metric, invocations_remaining, precision_reached
from jvmlab.analyze.stored import load_values
from jvmlab.store.protocol import Store


@dataclass(frozen=True)
class Precision:
    """Whether the width rule holds, and an estimate of invocations per cell still needed."""

    reached: bool
    remaining_per_cell: int | None

    def __bool__(self) -> bool:
        return self.reached


def store_precision_reached(store: Store, experiment_id: int, metric: str, target_rel: float) -> Precision:
    """Analyse what is stored so far (ok, measured invocations) and apply the width rule."""
    experiment = store.experiment(experiment_id)
    cells = store.cells(experiment_id)
    invocations = [i for i in store.invocations(experiment_id) if i.status == "ok"]
    data = {c.name: load_values([i for i in invocations if i.cell_id == c.id], metric) for c in cells}
    baseline = next((c.name for c in cells if c.idx == experiment.baseline_cell), None)
    if len(cells) == 1:
        baseline = None
    # The same resamples and seed as the report, so the report shows the interval that stopped the run.
    analysis = analyze_metric(data, baseline, metric, seed=experiment.seed)
    reached = precision_reached(analysis.comparisons, target_rel,
                                stats=analysis.stats.values() if baseline is None else ())
    return Precision(reached, 0 if reached else invocations_remaining(analysis, target_rel))
