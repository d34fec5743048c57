"""Adaptive stopping on precision: stop when every interval is narrow enough.

Rule: keep adding blocks of invocations until every comparison's 95% CI half-width is at
most ``target_rel`` of the baseline mean (the ratio's half-width is already in units of
the baseline mean), with at least ``MIN_INVOCATIONS`` per cell.

Why this does not inflate false positives, unlike stopping when p < 0.05: the decision
looks at the *width* of the interval, which depends on the spread of the data, not at
where the interval lies. Under "no difference" the spread carries (almost) no information
about the sign or size of the observed difference (for normal data the sample variance is
independent of the sample mean), so the stopping time is unrelated to whether the final
test rejects, and the final test keeps its level. Stopping on significance instead takes
the first of many looks that crosses the line, which drives the false-positive rate
towards 1 (Armitage, McPherson & Rowe 1969). This is Kruschke's "precision as the goal of
data collection" (Kruschke 2013; Kelley, Maxwell & Rausch 2003, "accuracy in parameter
estimation"). For skewed data the spread grows a little with the mean, a weak link that
the seeded simulation in tests/analyze checks (A/A false positives stay <= 6%).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from jvmlab.analyze.model import CellStats, Comparison, MetricAnalysis

MIN_INVOCATIONS = 10  # never stop earlier: a CV from fewer values is too luckily small
MIN_INVOCATIONS_FOR_CI = 30  # per cell: 95% CIs cover >= 93% on skewed (log-normal) data
# Per cell, to detect a 3% difference on data with a 5% CV with >= 90% power (alpha 5%,
# unpaired, one comparison): 2 (z_.975 + z_.95)^2 (cv / d)^2 = 73, rounded up for the
# permutation test and skew. See docs/statistics.md.
RECOMMENDED_INVOCATIONS = 80
Z95 = 1.959963984540054


def half_width_rel(comparison: Comparison) -> float | None:
    """Half-width of the ratio's 95% CI, as a fraction of the baseline mean."""
    if comparison.ci95 is None:
        return None
    lo, hi = comparison.ci95
    return (hi - lo) / 2.0


def cell_half_width_rel(stats: CellStats) -> float | None:
    """Half-width of a cell's mean CI as a fraction of its mean (single-cell experiments)."""
    if stats.mean_ci95 is None or not stats.mean:
        return None
    lo, hi = stats.mean_ci95
    return (hi - lo) / 2.0 / abs(stats.mean)


def precision_reached(comparisons: Iterable[Comparison], target_rel: float,
                      stats: Iterable[CellStats] = (), min_n: int = MIN_INVOCATIONS) -> bool:
    """True when every comparison (and every given cell's mean) is precise enough.

    Pass ``stats`` for experiments without a baseline (or to also bound each cell's own
    mean). With nothing to judge, the answer is False: keep measuring.
    """
    judged = False
    for c in comparisons:
        hw = half_width_rel(c)
        if hw is None or hw > target_rel or min(c.n_cell, c.n_baseline) < min_n:
            return False
        judged = True
    for s in stats:
        hw = cell_half_width_rel(s)
        if hw is None or hw > target_rel or s.n < min_n:
            return False
        judged = True
    return judged


def invocations_needed(cv: float, target_rel: float, z: float = Z95,
                       cv_baseline: float | None = None) -> int:
    """Invocations per cell for a CI half-width of ``target_rel`` (normal approximation).

    One mean: ``n = (z cv / target)^2``. A ratio against a baseline with CV ``cv_b``:
    the log ratio has variance ``(cv^2 + cv_b^2) / n``, so ``n = z^2 (cv^2 + cv_b^2) /
    target^2``. Pairing by block usually needs fewer; this is the unpaired (safe) figure.
    """
    if target_rel <= 0:
        raise ValueError("target_rel must be positive")
    var = cv**2 + (cv_baseline**2 if cv_baseline is not None else 0.0)
    return max(2, math.ceil(z * z * var / (target_rel * target_rel)))


def invocations_remaining(analysis: MetricAnalysis, target_rel: float,
                          min_n: int = MIN_INVOCATIONS) -> int | None:
    """Estimated further invocations per cell until :func:`precision_reached` (for the
    progress bar); None when nothing can be estimated yet (fewer than two values).

    A comparison with an interval extrapolates its own width (half-widths shrink like
    1/sqrt(n), so ``n_needed = n (hw / target)^2``): this credits pairing by block. Without
    comparisons, each cell's CV gives ``(z cv / target)^2``.
    """
    remaining: int | None = None
    if analysis.comparisons:
        for c in analysis.comparisons:
            hw = half_width_rel(c)
            if hw is None:
                continue
            n = min(c.n_cell, c.n_baseline)
            need = max(min_n, math.ceil(n * (hw / target_rel) ** 2))
            remaining = max(remaining or 0, need - n)
        return remaining
    for s in analysis.stats.values():
        if s.cv is None:
            continue
        need = max(min_n, invocations_needed(s.cv, target_rel))
        remaining = max(remaining or 0, need - s.n)
    return remaining


def invocations_to_resolve(n: int, half_width: float, effect: float, max_factor: float = 1000.0) -> int | None:
    """Invocations per cell at which an interval of this half-width around ``effect``
    would exclude zero, extrapolating half-widths like 1/sqrt(n): ``n (hw / |effect|)^2``.

    None when the effect is (nearly) zero, i.e. more than ``max_factor`` times ``n``
    would be needed: there is no visible effect to resolve. An estimate of the order of
    magnitude, not a promise: the effect itself is uncertain.
    """
    if n < 1 or not math.isfinite(half_width) or not math.isfinite(effect) or effect == 0:
        return None
    need = math.ceil(n * (half_width / abs(effect)) ** 2)
    return None if need > max_factor * n else max(need, n + 1)
