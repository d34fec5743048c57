"""Descriptive statistics of one cell (one value per invocation)."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.bootstrap import DEFAULT_RESAMPLES, mean_ci, median_ci
from jvmlab.analyze.model import CellStats, Clean


def describe(cell: str, data: Clean, rng: np.random.Generator,
             n_boot: int = DEFAULT_RESAMPLES) -> CellStats:
    """n, mean, sd (n-1 denominator), CV, median, raw MAD, min, max and bootstrap CIs.

    With n = 0 everything is None; with n = 1 the spread and the intervals are None
    (one invocation says nothing about variation). Identical values give sd = 0 and
    point intervals.
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
        mean_ci95=mean_ci(x, rng, n_boot), median_ci95=median_ci(x, rng, n_boot),
    )
