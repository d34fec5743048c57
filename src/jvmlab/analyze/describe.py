"""Descriptive statistics of one cell (one value per invocation)."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze import smallsample as small
from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, mean_ci, median_ci
from jvmlab.analyze.model import CellStats, Clean, Interval
from jvmlab.analyze.tails import BCA_HEAVY_TAIL, heavy_tailed

QUICK_T_FROM_N = 30


def _mean_interval(x: np.ndarray, rng: np.random.Generator, n_boot: int,
                   quick: bool, positive: bool) -> tuple[Interval | None, str | None]:
    """The mean's interval and its kind: t below the bootstrap's trustworthy n (marked),
    BCa in between (marked ``bca-heavy-tail`` when a value lies far out, :mod:`jvmlab.analyze.tails`),
    t from QUICK_T_FROM_N on for secondary metrics (the CLT holds). For a never-negative
    metric (``positive``) the t intervals are on the log scale and n = 2 gives none
    (``not-estimable``); a bootstrap interval of a mean never leaves the data's range."""
    n = x.size
    if n < 2:
        return None, None
    positive = positive and bool(np.all(x >= 0)) and float(x.mean()) > 0
    t_ci = small.log_t_interval if positive else small.t_interval
    if positive and n < small.MEAN_CI_FROM_N_POSITIVE:
        return None, small.NOT_ESTIMABLE
    if n < small.MEAN_BCA_FROM_N:
        return t_ci(x), small.T_SMALL_N
    if quick and n >= QUICK_T_FROM_N:
        return t_ci(x), small.T_LARGE_N
    return mean_ci(x, rng, n_boot), BCA_HEAVY_TAIL if heavy_tailed(x) else small.BCA


def _median_interval(x: np.ndarray, rng: np.random.Generator, n_boot: int) -> tuple[Interval | None, str | None]:
    if x.size < small.MEDIAN_BOOT_FROM_N:
        ci, _ = small.median_order_interval(x)
        return ci, small.ORDER_STAT if ci is not None else None
    return median_ci(x, rng, n_boot), small.PERCENTILE


def describe(cell: str, data: Clean, rng: np.random.Generator,
             n_boot: int = DEFAULT_RESAMPLES, quick: bool = False, positive: bool = False) -> CellStats:
    """n, mean, sd (n-1 denominator), CV, median, raw MAD, min, max and bootstrap CIs.

    With n = 0 everything is None; with n = 1 the spread and the intervals are None
    (one invocation says nothing about variation). Identical values give sd = 0 and
    point intervals. ``quick`` (for secondary metrics of large experiments) skips the
    median's interval and uses the t interval of the mean from n = 30 on. ``positive``: the
    metric is never negative (the registry's ``Metric.never_negative``), so its mean's interval
    never reaches below 0 (:mod:`jvmlab.analyze.smallsample`).
    """
    x = data.values
    n = int(x.size)
    if n == 0:
        return CellStats(cell, 0, data.n_dropped, None, None, None, None, None,
                         None, None, None, None)
    mean = float(x.mean())
    median = float(np.median(x))
    sd = float(x.std(ddof=1)) if n >= 2 else None
    cv = sd / abs(mean) if sd is not None and mean != 0 else None
    mean_ci95, mean_kind = _mean_interval(x, rng, n_boot, quick, positive)
    median_ci95, median_kind = (None, None) if quick else _median_interval(x, rng, n_boot)
    return CellStats(
        cell=cell, n=n, n_dropped=data.n_dropped, mean=mean, sd=sd, cv=cv,
        median=median, mad=float(np.median(np.abs(x - median))),
        min=float(x.min()), max=float(x.max()),
        mean_ci95=mean_ci95, median_ci95=median_ci95, mean_ci_kind=mean_kind, median_ci_kind=median_kind,
    )
