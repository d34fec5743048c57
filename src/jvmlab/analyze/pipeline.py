"""The one entry point: every statistic of one metric over the cells of an experiment."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, rng_for
from jvmlab.analyze.compare import DEFAULT_PERMUTATIONS, compare
from jvmlab.analyze.correction import adjust
from jvmlab.analyze.describe import describe
from jvmlab.analyze.drift import drift, outliers
from jvmlab.analyze.effects import factorial_effects
from jvmlab.analyze.model import CellData, Comparison, Correction, MetricAnalysis, clean
from jvmlab.metrics import never_negative


def analyze_metric(cells: Mapping[str, CellData | Any], baseline: str | None, metric: str,
                   factors: Mapping[str, Mapping[str, str]] | None = None, seed: int = 0,
                   *, alpha: float = 0.05, correction: Correction = "holm",
                   n_boot: int = DEFAULT_RESAMPLES,
                   n_perm: int = DEFAULT_PERMUTATIONS, positive: bool | None = None) -> MetricAnalysis:
    """Stats per cell, comparisons with the baseline (corrected across this call), factorial
    effects (when ``factors`` has two or more factors), drift and outliers per cell.

    ``cells`` maps cell name -> :class:`CellData` (or a plain sequence of values), one value
    per invocation. ``factors`` maps cell name -> {factor: level}. A missing or empty
    baseline gives no comparisons (and a note); no input raises. ``positive``: the metric is
    never negative (default: what the built-in registry says of ``metric``), so the cells'
    intervals stay above 0.
    """
    data = {name: clean(d if isinstance(d, CellData) else CellData.of(d))
            for name, d in cells.items()}
    notes: list[str] = []
    positive = never_negative(metric) if positive is None else positive
    stats = {name: describe(name, d, rng_for(seed, metric, name, "describe"), n_boot, positive=positive)
             for name, d in data.items()}
    for name, s in stats.items():
        if s.n_dropped:
            notes.append(f"{name}: {s.n_dropped} invocation(s) without a value left out")
    comparisons: tuple[Comparison, ...] = ()
    if baseline is not None and (baseline not in data or data[baseline].values.size == 0):
        notes.append(f"baseline {baseline!r} has no values: no comparisons")
    elif baseline is not None:
        raw = [compare(name, d, baseline, data[baseline], metric,
                       rng_for(seed, metric, name, "compare"), n_boot, n_perm)
               for name, d in data.items() if name != baseline]
        comparisons = adjust(raw, alpha, correction)
    effects = (factorial_effects(data, factors, baseline, rng_for(seed, metric, "effects"), n_boot)
               if factors else ())
    return MetricAnalysis(
        metric=metric, baseline=baseline, alpha=alpha, correction=correction, stats=stats,
        comparisons=comparisons, effects=effects,
        drift={name: drift(name, d) for name, d in data.items()},
        outliers={name: outliers(d) for name, d in data.items()},
        notes=tuple(notes),
    )
