"""Issue 31 item 15: analyze/'s hand-written BCa bootstrap, permutation and sign-flip tests and
the exact drift test agree with scipy's (``scipy.stats.bootstrap(method="BCa")``,
``scipy.stats.permutation_test``) on seeded data, within Monte-Carlo error.

Why keep our own: the BCa here is vectorised over closed-form resample means and jackknifes
(no statistic callback per resample), the paired test shares one set of swaps between the
p-value and the inverted interval (:mod:`jvmlab.analyze.inversion`), and scipy's version of
each is the reference this test holds them to."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from jvmlab.analyze.bootstrap import acceleration, bca_interval, jackknife_means, resample_means
from jvmlab.analyze.compare import BlockSums, paired_test, permutation_p_unpaired
from jvmlab.analyze.drift import spearman_p

B = 20_000


def _close(ours: tuple[float, float], theirs: tuple[float, float], width_share: float = 0.04) -> None:
    """Both ends within ``width_share`` of the interval's width (the Monte-Carlo error of a
    2.5% quantile from 20,000 resamples is about 0.5% of the width; two of them, plus BCa's
    adjusted levels, stay well inside 4%)."""
    tol = width_share * (theirs[1] - theirs[0])
    assert abs(ours[0] - theirs[0]) <= tol and abs(ours[1] - theirs[1]) <= tol, (ours, theirs)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_bca_interval_of_a_mean_matches_scipy(seed: int) -> None:
    x = np.random.default_rng(seed).lognormal(0.0, 0.6, 25)  # skewed: BCa's corrections matter
    boot = resample_means(x, np.random.default_rng(seed + 100), B)
    ours = bca_interval(float(x.mean()), boot, acceleration([jackknife_means(x)]), 0.95)
    res = sps.bootstrap((x,), np.mean, method="BCa", n_resamples=B, confidence_level=0.95,
                        random_state=np.random.default_rng(seed + 200))
    assert ours is not None
    _close(ours, (float(res.confidence_interval.low), float(res.confidence_interval.high)))


@pytest.mark.parametrize("seed", [4, 5])
def test_bca_interval_of_a_ratio_of_two_means_matches_scipy(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(0.2, 0.5, 20), rng.lognormal(0.0, 0.4, 15)
    boot_rng = np.random.default_rng(seed + 100)
    boot = resample_means(a, boot_rng, B) / resample_means(b, boot_rng, B)
    ratio = float(a.mean() / b.mean())
    accel = acceleration([jackknife_means(a) / b.mean(), a.mean() / jackknife_means(b)])
    ours = bca_interval(ratio, boot, accel, 0.95)

    def stat(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return np.mean(x, axis=axis) / np.mean(y, axis=axis)

    res = sps.bootstrap((a, b), stat, method="BCa", n_resamples=B, paired=False, confidence_level=0.95,
                        random_state=np.random.default_rng(seed + 200))
    assert ours is not None
    _close(ours, (float(res.confidence_interval.low), float(res.confidence_interval.high)))


def _abs_log_ratio(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    return np.abs(np.log(np.mean(x, axis=axis) / np.mean(y, axis=axis)))


@pytest.mark.parametrize(("seed", "shift"), [(6, 1.15), (7, 1.25), (8, 1.0)])
def test_unpaired_permutation_p_matches_scipy(seed: int, shift: float) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.lognormal(np.log(shift), 0.3, 14), rng.lognormal(0.0, 0.3, 12)
    ours = permutation_p_unpaired(a, b, np.random.default_rng(seed + 100), B)
    theirs = sps.permutation_test((a, b), _abs_log_ratio, permutation_type="independent", alternative="greater",
                                  n_resamples=B, vectorized=True, random_state=np.random.default_rng(seed + 200))
    assert ours is not None
    p = float(theirs.pvalue)
    assert abs(ours - p) <= 4 * np.sqrt(max(p * (1 - p), 1e-4) * 2 / B) + 1e-4, (ours, p)


@pytest.mark.parametrize("seed", [9, 10, 11])
def test_paired_sign_flip_p_is_scipys_exact_paired_permutation_p(seed: int) -> None:
    """Ten blocks, one value per cell per block: all 2^10 within-block swaps on both sides, so
    the two p-values are the same count of swaps, but for exact ties: swapping every block
    gives the observed |log ratio| again, which scipy's float tolerance (100 eps relative) can
    miss when its summation order differs (seed 9: 862 of 1,024 against our 864, the identity
    and its complement). So: equal, or ours higher by at most those 2 swaps."""
    rng = np.random.default_rng(seed)
    block = rng.lognormal(0.0, 0.3, 10)
    base = block * rng.lognormal(0.0, 0.05, 10)
    cell = block * rng.lognormal(0.03, 0.05, 10)
    ones = np.ones(10)
    ours = paired_test(BlockSums(cell, ones, base, ones), np.random.default_rng(0)).p_value
    theirs = sps.permutation_test((cell, base), _abs_log_ratio, permutation_type="samples", alternative="greater",
                                  n_resamples=np.inf, vectorized=True)
    assert ours is not None
    assert 0 <= ours - float(theirs.pvalue) <= 2 / 1024 + 1e-12, (ours, float(theirs.pvalue))


@pytest.mark.parametrize("k", [4, 6, 8])
def test_exact_drift_p_is_scipys_exact_pairings_permutation_p(k: int) -> None:
    medians = np.random.default_rng(k).normal(0.0, 1.0, k) + 0.3 * np.arange(k)

    def rho(x: np.ndarray) -> float:
        return float(np.abs(sps.spearmanr(np.arange(k), x).statistic))

    _, ours = spearman_p(medians)
    theirs = sps.permutation_test((medians,), rho, permutation_type="pairings", alternative="greater",
                                  n_resamples=np.inf, vectorized=False)
    assert ours == pytest.approx(float(theirs.pvalue), abs=1e-12)
