"""The difference of means and its interval: coverage on skewed data, pairing, edge cases."""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.bootstrap import rng_for
from jvmlab.analyze.difference import difference_test
from jvmlab.analyze.model import CellData, clean


def test_interval_covers_a_known_difference_on_skewed_data() -> None:
    rng = np.random.default_rng(2026)
    sigma, n = 0.35, 30
    truth = (1.2 - 1.0) * np.exp(sigma**2 / 2)
    hits = 0
    for i in range(600):
        a = clean(CellData.of(1.2 * rng.lognormal(0, sigma, n)))
        b = clean(CellData.of(rng.lognormal(0, sigma, n)))
        ci = difference_test(a, b, rng_for(i, "diff"), n_boot=1000).ci95
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
    paired = difference_test(clean(CellData.of(a, blocks)), clean(CellData.of(b, blocks)), rng_for(1, "p"))
    unpaired = difference_test(clean(CellData.of(a)), clean(CellData.of(b)), rng_for(1, "u"))
    assert paired.difference == unpaired.difference
    assert paired.ci95 is not None and unpaired.ci95 is not None
    assert (paired.ci95[1] - paired.ci95[0]) < 0.5 * (unpaired.ci95[1] - unpaired.ci95[0])


def test_edge_cases() -> None:
    one = clean(CellData.of([1.0]))
    two = clean(CellData.of([1.0, 2.0]))
    none = clean(CellData.of([]))
    same = clean(CellData.of([3.0, 3.0, 3.0]))
    for cell, base, expected in ((one, two, (-0.5, None)), (none, two, (None, None)), (same, same, (0.0, (0.0, 0.0)))):
        test = difference_test(cell, base, rng_for(0))
        assert (test.difference, test.ci95) == expected
