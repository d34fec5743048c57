"""Descriptive statistics of one cell (one value per invocation)."""

from __future__ import annotations

import numpy as np
from scipy.stats import t as student_t

from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, mean_ci, median_ci
from jvmlab.analyze.model import CellStats, Clean


QUICK_T_FROM_N = 30


def t_interval(x: np.ndarray, level: float = 0.95) -> tuple[float, float] | None:
    """Student-t interval of the mean (the classical one; by the CLT close to the bootstrap's
    for n >= 30 on moderately skewed data, at a fraction of the cost)."""
    n = x.size
    if n < 2:
        return None
    half = float(student_t.ppf(0.5 + level / 2, n - 1)) * float(x.std(ddof=1)) / np.sqrt(n)
    mean = float(x.mean())
    return (mean - half, mean + half)


def describe(cell: str, data: Clean, rng: np.random.Generator,
             n_boot: int = DEFAULT_RESAMPLES, quick: bool = False) -> CellStats:
    """n, mean, sd (n-1 denominator), CV, median, raw MAD, min, max and bootstrap CIs.

    With n = 0 everything is None; with n = 1 the spread and the intervals are None
    (one invocation says nothing about variation). Identical values give sd = 0 and
    point intervals. ``quick`` (for secondary metrics of large experiments) skips the
    median's interval and uses the t interval of the mean from n = 30 on.
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
    return CellStats(
        cell=cell, n=n, n_dropped=data.n_dropped, mean=mean, sd=sd, cv=cv,
        median=median, mad=float(np.median(np.abs(x - median))),
        min=float(x.min()), max=float(x.max()),
        mean_ci95=(t_interval(x) if quick and n >= QUICK_T_FROM_N else mean_ci(x, rng, n_boot)),
        median_ci95=None if quick else median_ci(x, rng, n_boot),
    )
