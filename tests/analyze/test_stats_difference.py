"""The difference of means and its interval: coverage on skewed data, pairing, edge cases."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.difference import mean_difference
from jvmlab.analyze.model import CellData, clean


def test_interval_covers_a_known_difference_on_skewed_data() -> None:
    rng = np.random.default_rng(2026)
    sigma, n = 0.35, 30
    truth = (1.2 - 1.0) * np.exp(sigma**2 / 2)
    hits = 0
    for i in range(600):
        a = clean(CellData.of(1.2 * rng.lognormal(0, sigma, n)))
        b = clean(CellData.of(rng.lognormal(0, sigma, n)))
        _, ci = mean_difference(a, b, rng_for(i, "diff"), n_boot=1000)
        hits += ci[0] <= truth <= ci[1]
    print(f"\n  difference CI coverage: {hits / 600:.1%}")
    assert 0.93 <= hits / 600 <= 0.99


def test_pairing_by_block_cancels_a_shared_drift() -> None:
    rng = np.random.default_rng(7)
    k = 20
    shared = np.exp(np.linspace(0, 0.4, k))
    a = 1.1 * shared * rng.lognormal(0, 0.01, k)
    b = shared * rng.lognormal(0, 0.01, k)
    blocks = np.arange(k)
    paired = mean_difference(clean(CellData.of(a, blocks)), clean(CellData.of(b, blocks)), rng_for(1, "p"))
    unpaired = mean_difference(clean(CellData.of(a)), clean(CellData.of(b)), rng_for(1, "u"))
    assert paired[0] == unpaired[0]
    assert (paired[1][1] - paired[1][0]) < 0.5 * (unpaired[1][1] - unpaired[1][0])


def test_edge_cases() -> None:
    one = clean(CellData.of([1.0]))
    two = clean(CellData.of([1.0, 2.0]))
    none = clean(CellData.of([]))
    assert mean_difference(one, two, rng_for(0)) == (-0.5, None)
    assert mean_difference(none, two, rng_for(0)) == (None, None)
    same = clean(CellData.of([3.0, 3.0, 3.0]))
    assert mean_difference(same, same, rng_for(0)) == (0.0, (0.0, 0.0))
