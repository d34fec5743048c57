"""Small samples said plainly: where the bootstrap stops being trustworthy, and what replaces it.

The seeded coverage simulation (``tests/analyze/test_small_samples.py``, figures in
docs/statistics.md) finds, on log-normal data (sigma 0.1-0.5, 400-1,000 samples per n):

* the BCa interval of a mean (at Hesterberg's expanded level) covers the true mean
  about 50% of the time at n = 2, 75% at n = 3, 85% at n = 4 and 89-91% at n = 5: it
  is then little more than the data's range (the bootstrap cannot invent spread it has
  not seen). From n = 6 it is at or above 90% and close to 95% by n = 8;
* the BCa interval of a ratio of two means (unpaired) covers about 66% at n = 2, 90% at
  n = 3 and 94-97% from n = 4;
* the Student-t interval of a mean covers 92-97% already from n = 2 (its t quantile at
  1 degree of freedom is 12.7: wide, as it must be).

So below ``MEAN_BCA_FROM_N`` (``RATIO_BCA_FROM_N`` for ratios) jvmlab shows the t-based
interval instead, marked ``t-small-n``: wider, and honest about being an approximation.

A metric that is never negative (a time, a size, a count: the registry's
``Metric.never_negative``) gets that t interval on the log scale (:func:`log_t_interval`:
``mean x exp(+-t s / (sqrt(n) mean))``, the delta method on log(mean)), so it never reaches
below 0: the plain t interval printed "RSS 288 (95% CI -827 ... 1403) MiB" at n = 2. On
log-normal data (sigma 0.1-1) it covers 89-95% at n = 3-30 where the plain t covers 82-95%
(``tests/report/test_positive_intervals.py``). At n = 2 no interval of a never-negative
mean is shown (kind ``not-estimable``): the log interval's upper end is then some 50 times
the mean, which says nothing a reader can use.
For the median, an interval of at least 95% exists only from 6 values (the range covers
the median with probability 1 - 2^(1-n)); below, the distribution-free order-statistic
interval is shown when it reaches 90% (n = 5: the range, 93.75%), else none.
"""

from __future__ import annotations

import numpy as np
from scipy.special import bdtr, stdtrit  # binomial cdf, Student t quantile (lighter than scipy.stats)

from jvmlab.analyze.model import Interval

MEAN_BCA_FROM_N = 6  # BCa coverage of the mean >= 90% from here (simulation)
RATIO_BCA_FROM_N = 4  # BCa coverage of an unpaired ratio >= 90% from here (simulation)
MEDIAN_BOOT_FROM_N = 10  # below: the exact distribution-free interval of the median
COVERAGE_FLOOR = 0.90  # never show an interval below this simulated coverage unmarked

# Interval kinds, as stored in CellStats/Comparison and shown by the renderers.
BCA = "bca"
PERCENTILE = "percentile"  # the median's exact bootstrap percentile interval; factorial effects
PERCENTILE_SMALL_N = "percentile-small-n"  # marked: effects from fewer than MEAN_BCA_FROM_N per cell
T_LARGE_N = "t"  # secondary metrics from 30 invocations on (describe(quick=True))
T_SMALL_N = "t-small-n"  # marked: fewer invocations than the bootstrap needs
ORDER_STAT = "order-statistic"  # exact, distribution-free (median, small n)
NOT_ESTIMABLE = "not-estimable"  # a never-negative mean from 2 values: no interval is shown
MEAN_CI_FROM_N_POSITIVE = 3  # a never-negative mean gets an interval from here


def t_interval(x: np.ndarray, level: float = 0.95) -> Interval | None:
    """Student-t interval of the mean (None when n < 2)."""
    n = x.size
    if n < 2:
        return None
    half = float(stdtrit(n - 1, 0.5 + level / 2)) * float(x.std(ddof=1)) / np.sqrt(n)
    mean = float(x.mean())
    return (mean - half, mean + half)


def log_t_interval(x: np.ndarray, level: float = 0.95) -> Interval | None:
    """Student-t interval of log(mean) by the delta method (var log mean ~ s^2 / (n mean^2)),
    mapped back: ``mean x exp(+-t s / (sqrt(n) mean))``. For values that are never negative:
    the interval stays above 0. None when n < 2 or the mean is not positive."""
    n = x.size
    mean = float(x.mean()) if n else 0.0
    if n < 2 or mean <= 0:
        return None
    half = float(stdtrit(n - 1, 0.5 + level / 2)) * float(x.std(ddof=1)) / (np.sqrt(n) * mean)
    return (mean * float(np.exp(-half)), mean * float(np.exp(half)))


def ratio_t_interval(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> Interval | None:
    """Interval of mean(a)/mean(b) from a Welch t interval of the log ratio (delta method:
    var log mean ~ s^2 / (n mean^2)), with Welch-Satterthwaite degrees of freedom. For
    tiny samples, where the bootstrap sees too little spread; None when a mean is <= 0."""
    if a.size < 2 or b.size < 2:
        return None
    ma, mb = float(a.mean()), float(b.mean())
    if ma <= 0 or mb <= 0:
        return None
    va = float(a.var(ddof=1)) / (a.size * ma * ma)
    vb = float(b.var(ddof=1)) / (b.size * mb * mb)
    se2 = va + vb
    log_r = float(np.log(ma / mb))
    if se2 == 0:
        return (ma / mb, ma / mb)
    df = se2 * se2 / ((va * va) / (a.size - 1) + (vb * vb) / (b.size - 1))
    half = float(stdtrit(df, 0.5 + level / 2)) * float(np.sqrt(se2))
    return (float(np.exp(log_r - half)), float(np.exp(log_r + half)))


def median_order_interval(x: np.ndarray, level: float = 0.95,
                          floor: float = COVERAGE_FLOOR) -> tuple[Interval | None, float | None]:
    """Distribution-free interval of the median from order statistics, and its exact coverage.

    ``[x_(k), x_(n+1-k)]`` covers the median with probability ``1 - 2 P(Bin(n, 1/2) < k)``
    for any continuous distribution; the largest k reaching ``level`` is used, else the
    range when its coverage reaches ``floor`` (n = 5: 93.75%), else (None, None).
    """
    n = int(x.size)
    if n < 2:
        return None, None
    xs = np.sort(x)
    best: tuple[Interval, float] | None = None
    for k in range(1, n // 2 + 1):
        coverage = float(1.0 - 2.0 * bdtr(k - 1, n, 0.5))
        if coverage >= level:
            best = ((float(xs[k - 1]), float(xs[n - k])), coverage)
    if best is not None:
        return best
    coverage = float(1.0 - 2.0 * 0.5**n)
    if coverage >= floor:
        return (float(xs[0]), float(xs[-1])), coverage
    return None, None


def diff_t_interval(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> Interval | None:
    """Welch t interval of mean(a) - mean(b) (None when a side has fewer than 2 values)."""
    if a.size < 2 or b.size < 2:
        return None
    va, vb = float(a.var(ddof=1)) / a.size, float(b.var(ddof=1)) / b.size
    d = float(a.mean() - b.mean())
    if va + vb == 0:
        return (d, d)
    df = (va + vb) ** 2 / (va * va / (a.size - 1) + vb * vb / (b.size - 1))
    half = float(stdtrit(df, 0.5 + level / 2)) * float(np.sqrt(va + vb))
    return (d - half, d + half)
