"""A ratio interval that holds its level under heavy tails: the inverted sign-flip test.

Why: the paired BCa bootstrap interval of a ratio of means covers the truth only 79.5-89% of
the time when the noise has heavy tails (Student t with 1.5-3 degrees of freedom, rare 3x
slow invocations) at 8-30 blocks (seeded simulation, ``tests/analyze/test_heavy_tails.py``
and ``bench/heavy_tails.py``, figures in docs/statistics.md): a bootstrap can only resample
the spikes it happened to see. The within-block label swap (sign-flip) test of
:mod:`jvmlab.analyze.compare` needs only exchangeability, not finite variance.

The interval is the set of ratios ``r`` that the test does not reject at 5% (Lehmann &
Romano 2005, *Testing Statistical Hypotheses*, sec. 3.5; for permutation tests Garthwaite
1996, "Confidence intervals from randomization tests", Biometrics 52:1387): divide the
cell's values by ``r`` and run the very test that gives the p-value, the same statistic
(log of the ratio of means over the common blocks) and the same swaps (all ``2^K`` when
``K <= 12``, else one seeded Monte-Carlo set, used for every ``r``). Under a multiplicative
effect (cell = r x baseline within a block) the relabelled data are exchangeable at the
true ``r``, so the interval covers it with probability at least 95% whatever the tails. The
bounds are found by bisection on ``log r`` from the estimate (where p = 1) outwards; the
p-value of a ratio is close to monotone on each side, so the bisection finds its 5%
crossing. At ``r = 1`` the test is the comparison's own: the interval leaves out 1
exactly when the unadjusted p-value is below 5%.

This module is the inversion alone (a test given as a function of ``log r``, or of a shift
``d`` for the paired difference of means, :mod:`jvmlab.analyze.difference`); the paired
statistic and its swaps are :func:`jvmlab.analyze.compare.ratio_paired`'s.

With fewer than 6 blocks even the most extreme swap has p >= 2/2^K > 5%: no ratio is
rejected and the interval is None (paired comparisons need 8 blocks anyway).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from jvmlab.analyze.model import Interval

TEST_INVERSION = "test-inversion"  # Comparison.ci_kind of an inverted sign-flip interval
ALPHA = 0.05
BISECTION_STEPS = 40  # log-ratio bracket halved 40 times: far below any printed digit
MAX_WIDENINGS = 60  # doublings of the outward step before giving up (no ratio is rejected)

PValue = Callable[[float], float]  # log r (or shift d) -> p-value of "the ratio is r" ("the difference is d")


def _bound(p: PValue, centre: float, step: float, sign: float, alpha: float) -> float | None:
    """The last accepted log ratio on one side of ``centre`` (None when none is rejected)."""
    inside, outside = centre, None
    for _ in range(MAX_WIDENINGS):
        probe = centre + sign * step
        if p(probe) < alpha:
            outside = probe
            break
        inside, step = probe, step * 2.0
    if outside is None:
        return None
    for _ in range(BISECTION_STEPS):
        mid = 0.5 * (inside + outside)
        if p(mid) < alpha:
            outside = mid
        else:
            inside = mid
    return inside


def bounds(p: PValue, centre: float, step: float, alpha: float = ALPHA) -> Interval | None:
    """The (1 - alpha) interval of a parameter on the test's own scale (``log r`` for a
    ratio, the shift ``d`` for a difference) from a test of "the parameter is x": bisection
    outwards from ``centre`` (the estimate, where the test accepts), first step ``step``.
    None when one side has no rejected value (the test is too coarse)."""
    lo = _bound(p, centre, max(step, 1e-6), -1.0, alpha)
    hi = _bound(p, centre, max(step, 1e-6), 1.0, alpha)
    if lo is None or hi is None:
        return None
    return (lo, hi)


def invert(p: PValue, centre: float, step: float, alpha: float = ALPHA) -> Interval | None:
    """The (1 - alpha) interval of a ratio from a test of "the ratio is r": :func:`bounds`
    on ``log r`` from ``centre`` (the estimate's log), mapped back to ratios."""
    logs = bounds(p, centre, step, alpha)
    return None if logs is None else (float(np.exp(logs[0])), float(np.exp(logs[1])))
