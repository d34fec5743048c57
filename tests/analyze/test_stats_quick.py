"""The quick t interval used for secondary metrics covers a known mean on skewed data."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.describe import describe
from jvmlab.analyze.model import CellData, clean
from jvmlab.analyze.smallsample import t_interval


def test_t_interval_covers_the_mean_of_skewed_data() -> None:
    rng = np.random.default_rng(20261122)
    sigma, n, trials = 0.35, 50, 2000
    truth = float(np.exp(sigma**2 / 2))
    covered = 0
    for _ in range(trials):
        lo, hi = t_interval(rng.lognormal(0.0, sigma, n))
        covered += lo <= truth <= hi
    assert covered / trials >= 0.93


def test_quick_describe_uses_it_from_30_values_and_skips_the_median_interval() -> None:
    rng = np.random.default_rng(1)
    x = rng.lognormal(0.0, 0.2, 40)
    stats = describe("c", clean(CellData.of(x)), np.random.default_rng(2), quick=True)
    assert stats.median_ci95 is None
    assert stats.mean_ci95 == t_interval(x)
    small = describe("c", clean(CellData.of(x[:10])), np.random.default_rng(2), quick=True)
    assert small.mean_ci95 is not None and small.mean_ci95 != t_interval(x[:10])
