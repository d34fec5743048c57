"""Adaptive stopping against the store: is every comparison's CI narrow enough yet?

It lives in the results layer (not in `execute`): it loads what is stored and runs the
report's statistics, and the runner only calls it back (`precision_check`), so `execute`
never imports upward.
"""

from __future__ import annotations

from dataclasses import dataclass

from jvmlab.analyze import invocations_remaining, precision_reached
from jvmlab.results import compare_cells, load_experiment
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
    results = load_experiment(store, experiment_id, documents=False)
    baseline = results.baseline if len(results.cells) > 1 else None
    # The same entry point, resamples and seed as the report, so the report shows the
    # interval that stopped the run.
    analysis = compare_cells({c.name: results.values(c, metric) for c in results.cells}, baseline, metric,
                             lower_is_better=results.metrics.get(metric).lower_is_better,
                             seed=results.experiment.seed).analysis
    reached = precision_reached(analysis.comparisons, target_rel,
                                stats=analysis.stats.values() if baseline is None else ())
    return Precision(reached, 0 if reached else invocations_remaining(analysis, target_rel))
