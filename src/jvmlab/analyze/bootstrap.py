"""Vectorised, seeded bootstrap intervals.

Why BCa for means and ratios: JVM timings are right-skewed (a few slow invocations: a
late JIT deopt, a full GC, a noisy neighbour). The plain percentile interval of a mean of
skewed data is biased towards the long tail's opposite side and under-covers at the
invocation counts people can afford; the bias-corrected and accelerated interval (Efron
1987, "Better bootstrap confidence intervals", JASA 82:171; Efron & Tibshirani 1993,
*An Introduction to the Bootstrap*, ch. 14) corrects both the median bias (z0) and the
skew (acceleration a, from the jackknife) and is second-order accurate.

Why percentile for medians: the jackknife is inconsistent for the median, so the BCa
acceleration is meaningless there; the bootstrap distribution of a median is discrete and
the percentile interval is slightly conservative, which is acceptable.

Everything draws from a ``numpy.random.Generator`` passed in by the caller, so a seed
reproduces every interval bit for bit.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

# scipy.special, not scipy.stats: the same distribution functions at a third of the import time,
# which every `jvmlab report` pays (docs/architecture.md, start-up).
from scipy.special import bdtrc, ndtr, ndtri, stdtrit

from jvmlab.analyze.model import Interval

FloatArray = npt.NDArray[np.float64]

DEFAULT_RESAMPLES = 4000
LEVEL = 0.95


def resample_means(x: FloatArray, rng: np.random.Generator, n_boot: int) -> FloatArray:
    """Means of ``n_boot`` resamples with replacement of ``x`` (one row each)."""
    idx = rng.integers(0, x.size, size=(n_boot, x.size))
    means: FloatArray = x[idx].mean(axis=1)
    return means


def jackknife_means(x: FloatArray) -> FloatArray:
    """Leave-one-out means in closed form (no n x n matrix)."""
    means: FloatArray = (x.sum() - x) / (x.size - 1)
    return means


def acceleration(jackknife_groups: Sequence[FloatArray]) -> float:
    """BCa acceleration from jackknife values of one or more independent samples.

    Multi-sample form of Efron & Tibshirani (1993, eq. 14.15 and problem 14.12): with
    ``U_ki = (n_k - 1)(mean_k - theta_(ki))``, ``a = sum U^3/n^3 / (6 (sum U^2/n^2)^1.5)``.
    For one sample the scale factors cancel and this is the textbook formula.
    """
    num = 0.0
    den = 0.0
    for jk in jackknife_groups:
        n = jk.size
        if n < 2:
            continue
        u = (n - 1) * (jk.mean() - jk)
        num += float(np.sum(u**3)) / n**3
        den += float(np.sum(u**2)) / n**2
    if den <= 0.0 or not np.isfinite(den) or not np.isfinite(num):
        return 0.0
    return float(num / (6.0 * den**1.5))


def bca_interval(theta_hat: float, boot: FloatArray, accel: float,
                 level: float = LEVEL) -> Interval | None:
    """BCa interval from bootstrap replicates ``boot`` of an estimate ``theta_hat``.

    Non-finite replicates (a resample whose baseline mean is 0) are discarded; when fewer
    than half remain the interval is None. A degenerate (constant) distribution gives the
    point interval.
    """
    boot = boot[np.isfinite(boot)]
    if boot.size < 2 or not np.isfinite(theta_hat):
        return None
    lo_b, hi_b = float(boot.min()), float(boot.max())
    if lo_b == hi_b:
        return (lo_b, hi_b)
    b = boot.size
    prop = float(np.count_nonzero(boot < theta_hat) + 0.5 * np.count_nonzero(boot == theta_hat)) / b
    prop = min(max(prop, 1.0 / (b + 1)), b / (b + 1.0))
    z0 = float(ndtri(prop))
    tail = (1.0 - level) / 2.0
    quantiles = []
    for za in (float(ndtri(tail)), float(ndtri(1.0 - tail))):
        shifted = z0 + za
        denom = 1.0 - accel * shifted
        q = float(ndtr(z0 + shifted / denom)) if denom > 0 else (0.0 if za < 0 else 1.0)
        if not np.isfinite(q):  # an infinite tail quantile (tiny n widens the level to ~100%)
            q = 0.0 if za < 0 else 1.0
        quantiles.append(min(max(q, 0.0), 1.0))
    lo, hi = np.quantile(boot, quantiles)
    return (float(lo), float(hi))


def percentile_interval(boot: FloatArray, level: float = LEVEL) -> Interval | None:
    """Plain percentile interval of the finite bootstrap replicates."""
    boot = boot[np.isfinite(boot)]
    if boot.size < 2:
        return None
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(boot, [tail, 1.0 - tail])
    return (float(lo), float(hi))


def expanded_level(n_eff: int, level: float = LEVEL) -> float:
    """Nominal level widened for small samples (Hesterberg's "expanded" bootstrap).

    The bootstrap distribution of a mean has variance (n-1)/n * s^2/n and normal-like
    tails, so at small n its intervals are too narrow. Hesterberg (2015, "What teachers
    should know about the bootstrap", The American Statistician 69:371, sec. 3.4) widens
    the percentile interval by using ``alpha' = 2 Phi(-sqrt(n/(n-1)) t_{alpha/2, n-1})``;
    we apply the same widened level to BCa. ``n_eff`` is the number of independent units
    (observations, or blocks when paired). At n = 30 the 95% level becomes about 96.3%.
    """
    if n_eff < 2:
        return level
    tq = float(stdtrit(n_eff - 1, 1.0 - (1.0 - level) / 2.0))  # Student t quantile
    return float(1.0 - 2.0 * ndtr(-np.sqrt(n_eff / (n_eff - 1.0)) * tq))


def mean_ci(x: FloatArray, rng: np.random.Generator, n_boot: int = DEFAULT_RESAMPLES,
            level: float = LEVEL) -> Interval | None:
    """BCa bootstrap interval of the mean of ``x`` (None when n < 2)."""
    if x.size < 2:
        return None
    boot = resample_means(x, rng, n_boot)
    accel = acceleration([jackknife_means(x)])
    return bca_interval(float(x.mean()), boot, accel, expanded_level(x.size, level))


def median_ci(x: FloatArray, rng: np.random.Generator, n_boot: int = DEFAULT_RESAMPLES,
              level: float = LEVEL) -> Interval | None:
    """Percentile bootstrap interval of the median of ``x`` (None when n < 2), with the
    bootstrap distribution computed exactly rather than by resampling.

    The median of a resample is an order statistic of ``x``: it is at most ``x_(j)`` exactly
    when at least ``m = ceil(n/2)`` of the ``n`` draws are ``<= x_(j)``, a binomial event with
    probability ``j/n`` per draw (Efron 1982, "The Jackknife, the Bootstrap and Other
    Resampling Plans", sec. 10.3; Maritz & Jarrett 1978). This is the limit of infinitely
    many resamples, in O(n log n), so ``rng`` and ``n_boot`` are not needed (kept for a
    uniform signature). For even n the resample median lies between its two middle order
    statistics: the lower bound uses the lower one and the upper bound the upper one, a
    slightly conservative interval.
    """
    n = int(x.size)
    if n < 2:
        return None
    xs = np.sort(x)
    p = np.arange(1, n + 1) / n
    m_low = (n + 1) // 2
    m_high = m_low + 1 if n % 2 == 0 else m_low
    tail = (1.0 - level) / 2.0
    cdf_low = bdtrc(m_low - 1, n, p)  # P(lower middle of a resample <= xs[j])
    cdf_high = bdtrc(m_high - 1, n, p)
    lo = xs[min(n - 1, int(np.searchsorted(cdf_low, tail, side="left")))]
    hi = xs[min(n - 1, int(np.searchsorted(cdf_high, 1.0 - tail, side="left")))]
    return (float(lo), float(hi))


def rng_for(seed: int, *keys: str) -> np.random.Generator:
    """A generator for one (seed, cell, purpose): stable across runs and independent of
    which other cells exist, so adding a cell does not move another cell's interval."""
    words = [zlib.crc32(k.encode("utf-8")) for k in keys]
    return np.random.default_rng([seed & 0xFFFFFFFF, *words])
