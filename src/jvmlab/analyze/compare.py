"""One cell against the baseline: ratio of means, its bootstrap CI and a permutation p-value.

Statistic: ``log(mean(cell) / mean(baseline))``. Ratios of means are what a performance
engineer reads ("4% slower"), and means (not medians) add up: total CPU, total pause.

Interval:
  * unpaired: BCa bootstrap (see :mod:`jvmlab.analyze.bootstrap`) of the ratio, cell and
    baseline resampled independently;
  * paired by block: the inverted sign-flip test (:mod:`jvmlab.analyze.inversion`, kind
    ``test-inversion``): every ratio the within-block label swap test below does not reject,
    with the same swaps as the p-value, so the interval leaves out 1 exactly when the
    unadjusted p is below 5%. The paired block bootstrap (:func:`ratio_paired_bca`, whole
    blocks resampled) covered only 79.5-89% under heavy-tailed noise in the seeded simulation
    (docs/statistics.md); the inverted test held 92.7-96.5% at a similar or smaller width.

p-value: a permutation test of the same statistic (Fisher 1935; Good 2005, *Permutation,
Parametric and Bootstrap Tests of Hypotheses*). Unpaired, it permutes the cell/baseline
labels of all values; paired, it swaps the two labels within each block (sign flips),
enumerating all 2^K swaps when K <= 12. Under "no difference" the labels are
exchangeable, so the test holds its level exactly whatever the skew of the data; a
t-test on raw skewed timings does not, and a t-test on logs tests geometric means, not the
ratio the interval is about, and fails on zeros (counts such as full GCs). Monte-Carlo
p-values use ``(1 + hits) / (1 + permutations)`` (Phipson & Smyth 2010), never 0.

Why the decision holds its level on real runs (checked on recorded A/A runs of JDK 17
HelloWorld by ``bench/aa_real.py`` and ``tests/analyze/test_false_positives.py``):

* significance is the permutation p alone (Holm-adjusted across the family); the
  bootstrap interval never decides it (a CI excluding 1 without a significant test is
  "inconclusive", :mod:`jvmlab.results.compare`);
* nothing is cleaned before pairing but missing values: outliers are flagged, never
  dropped, warm-up invocations never reach the statistics (the store leaves them out),
  and a block missing on one side is left out of that pair on both sides
  (:func:`block_sums` keeps common blocks only), so the pairs left are exchangeable;
* the schedule shuffles every block, warm-up included (:mod:`jvmlab.plan.schedule`), so a
  slot's position effect (the first JVM of a block is often slower) is spread at random;
  given the slots a cell and its baseline took in a block, either labelling was equally
  likely, which is what the within-block swap enumerates;
* the swapped statistic is the reported one: :meth:`SwapProducts.log_ratios` computes
  ``log(ratio of means over common blocks)`` on relabelled data, exactly
  :func:`ratio_paired`'s estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from jvmlab.analyze.bootstrap import (
    DEFAULT_RESAMPLES,
    FloatArray,
    acceleration,
    bca_interval,
    expanded_level,
    jackknife_means,
    resample_means,
)
from jvmlab.analyze.inversion import TEST_INVERSION, invert
from jvmlab.analyze.model import Clean, Comparison, Interval
from jvmlab.analyze.smallsample import BCA, RATIO_BCA_FROM_N, T_SMALL_N, ratio_t_interval

DEFAULT_PERMUTATIONS = 5000
MIN_PAIRED_BLOCKS = 8  # below this a paired test cannot reach small p-values (2/2^K)
EXACT_FLIP_LIMIT = 12  # enumerate all 2^K label swaps up to this many blocks


@dataclass(frozen=True, eq=False)
class BlockSums:
    """Per common block: sum and count of cell values and of baseline values."""

    cell_sum: FloatArray
    cell_n: FloatArray
    base_sum: FloatArray
    base_n: FloatArray

    @property
    def n_blocks(self) -> int:
        return int(self.cell_sum.size)


def block_sums(cell: Clean, base: Clean) -> BlockSums | None:
    """Pair two cells by block, or None when pairing is not possible or not worth it.

    Pairing needs block ids on both sides, at least ``MIN_PAIRED_BLOCKS`` blocks in
    common, and the common blocks must hold at least half of each side's values (else
    pairing would throw most of the data away).
    """
    if cell.blocks is None or base.blocks is None:
        return None
    common = np.intersect1d(cell.blocks, base.blocks)
    if common.size < MIN_PAIRED_BLOCKS:
        return None
    in_c = np.isin(cell.blocks, common)
    in_b = np.isin(base.blocks, common)
    if in_c.sum() * 2 < cell.values.size or in_b.sum() * 2 < base.values.size:
        return None
    pos_c = np.searchsorted(common, cell.blocks[in_c])
    pos_b = np.searchsorted(common, base.blocks[in_b])
    k = common.size
    return BlockSums(
        np.asarray(np.bincount(pos_c, weights=cell.values[in_c], minlength=k), dtype=np.float64),
        np.bincount(pos_c, minlength=k).astype(float),
        np.asarray(np.bincount(pos_b, weights=base.values[in_b], minlength=k), dtype=np.float64),
        np.bincount(pos_b, minlength=k).astype(float),
    )


def _ratio(num: FloatArray | float, den: FloatArray | float) -> FloatArray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.divide(num, den), dtype=float)


def ratio_unpaired(a: FloatArray, b: FloatArray, rng: np.random.Generator,
                   n_boot: int = DEFAULT_RESAMPLES) -> tuple[float | None, Interval | None]:
    """mean(a)/mean(b) and its BCa interval, resampling a and b independently; below
    ``RATIO_BCA_FROM_N`` values per side, the wider t interval of the log ratio instead."""
    if a.size == 0 or b.size == 0:
        return None, None
    ma, mb = float(a.mean()), float(b.mean())
    ratio = float(_ratio(ma, mb))
    if not np.isfinite(ratio):
        return None, None
    if a.size < 2 or b.size < 2:
        return ratio, None
    if min(a.size, b.size) < RATIO_BCA_FROM_N:  # the bootstrap under-covers here (smallsample)
        return ratio, ratio_t_interval(a, b)
    boot = _ratio(resample_means(a, rng, n_boot), resample_means(b, rng, n_boot))
    accel = acceleration([_ratio(jackknife_means(a), mb), _ratio(ma, jackknife_means(b))])
    level = expanded_level(min(a.size, b.size))
    return ratio, bca_interval(ratio, boot, accel, level)


def _paired_means(s: BlockSums, idx: np.ndarray | slice = slice(None)) -> tuple[FloatArray, FloatArray]:
    """Means of the cell and of the baseline over the blocks selected by ``idx`` (rows of an
    index matrix; all common blocks by default)."""
    return (_ratio(s.cell_sum[idx].sum(axis=-1), s.cell_n[idx].sum(axis=-1)),
            _ratio(s.base_sum[idx].sum(axis=-1), s.base_n[idx].sum(axis=-1)))


def block_bca(s: BlockSums, contrast: Callable[[FloatArray, FloatArray], FloatArray], rng: np.random.Generator,
              n_boot: int = DEFAULT_RESAMPLES) -> tuple[float, Interval | None]:
    """``contrast(cell mean, baseline mean)`` over common blocks (their ratio, their difference)
    and its BCa interval, resampling whole blocks: the paired block bootstrap, kept for
    comparison in ``bench/heavy_tails.py`` (it under-covers under heavy tails)."""
    k = s.n_blocks
    with np.errstate(divide="ignore", invalid="ignore"):
        estimate = float(contrast(*_paired_means(s)))
        boot = contrast(*_paired_means(s, rng.integers(0, k, size=(n_boot, k))))
        # Leave-one-block-out jackknife, in closed form from the totals.
        jk = contrast(_ratio(s.cell_sum.sum() - s.cell_sum, s.cell_n.sum() - s.cell_n),
                      _ratio(s.base_sum.sum() - s.base_sum, s.base_n.sum() - s.base_n))
    accel = acceleration([jk]) if np.all(np.isfinite(jk)) else 0.0
    return estimate, bca_interval(estimate, boot, accel, expanded_level(k))


def ratio_paired_bca(s: BlockSums, rng: np.random.Generator,
                     n_boot: int = DEFAULT_RESAMPLES) -> tuple[float | None, Interval | None]:
    """:func:`block_bca` of the ratio of means; (None, None) when the ratio is not finite."""
    if not np.isfinite(_ratio(*_paired_means(s))):
        return None, None
    return block_bca(s, _ratio, rng, n_boot)


def ratio_paired(s: BlockSums, rng: np.random.Generator,
                 n_perm: int = DEFAULT_PERMUTATIONS) -> tuple[float | None, Interval | None]:
    """Ratio of means over common blocks and its interval by inverting the sign-flip test."""
    test = paired_test(s, rng, n_perm)
    return test.ratio, test.ci95


@dataclass(frozen=True)
class RatioTest:
    """A comparison's estimate, interval (and how it was made) and p-value."""

    ratio: float | None
    ci95: Interval | None
    ci_kind: str | None
    p_value: float | None


def paired_test(s: BlockSums, rng: np.random.Generator, n_perm: int = DEFAULT_PERMUTATIONS) -> RatioTest:
    """Ratio of means over common blocks, its inverted-test interval and the sign-flip
    p-value of "ratio = 1", all from one set of label swaps. A zero total or a negative
    block sum (the log ratio is undefined) falls back to the block bootstrap's BCa."""
    flips, monte_carlo = flip_matrix(s.n_blocks, rng, n_perm)
    products = SwapProducts.of(s, flips)
    p = p_from(products.log_ratios(), float(_log_ratio(
        np.float64(s.cell_sum.sum()), s.cell_n.sum(), np.float64(s.base_sum.sum()), s.base_n.sum())), monte_carlo)
    ratio = float(_ratio(*_paired_means(s)))
    if not np.isfinite(ratio) or ratio <= 0 or np.any(s.cell_sum < 0) or np.any(s.base_sum < 0):
        r, ci = ratio_paired_bca(s, rng)
        return RatioTest(r, ci, None if ci is None else BCA, p)
    centre = float(np.log(ratio))

    def p_at(log_r: float) -> float:
        value = p_from(products.log_ratios(scale=float(np.exp(-log_r))), centre - log_r, monte_carlo)
        return 1.0 if value is None else value

    with np.errstate(divide="ignore", invalid="ignore"):
        per_block = np.log(s.cell_sum / s.cell_n) - np.log(s.base_sum / s.base_n)
    finite = per_block[np.isfinite(per_block)]
    ci = invert(p_at, centre, float(np.ptp(finite)) / 8.0 if finite.size else 0.0)
    return RatioTest(ratio, ci, None if ci is None else TEST_INVERSION, p)


def _log_ratio(sum_a: FloatArray | np.float64, n_a: float | FloatArray, sum_b: FloatArray | np.float64,
               n_b: float | FloatArray) -> FloatArray:
    """log(mean_a / mean_b); +-inf when one mean is 0 (allowed: counts can be 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(sum_a / n_a) - np.log(sum_b / n_b)


def p_from(stats: FloatArray, observed: float, monte_carlo: bool) -> float | None:
    """Two-sided p-value: share of permuted |stat| at least the observed |stat|."""
    if np.isnan(observed):
        return None
    obs = abs(observed)
    tol = 1e-9 * obs if np.isfinite(obs) else 0.0
    valid = stats[~np.isnan(stats)]
    hits = int(np.count_nonzero(np.abs(valid) >= obs - tol))
    if monte_carlo:
        return (1 + hits) / (1 + valid.size)
    return hits / valid.size if valid.size else None


def permutation_p_unpaired(a: FloatArray, b: FloatArray, rng: np.random.Generator,
                           n_perm: int = DEFAULT_PERMUTATIONS) -> float | None:
    """Permutation p-value for log(mean a / mean b) = 0 with independent samples."""
    if a.size < 2 or b.size < 2:
        return None
    pooled = np.concatenate([a, b])
    total = float(pooled.sum())
    observed = float(_log_ratio(np.float64(a.sum()), a.size, np.float64(b.sum()), b.size))
    perms = rng.permuted(np.broadcast_to(pooled, (n_perm, pooled.size)), axis=1)
    sum_a = perms[:, : a.size].sum(axis=1)
    return p_from(_log_ratio(sum_a, a.size, total - sum_a, b.size), observed, True)


def flip_matrix(k: int, rng: np.random.Generator, n_perm: int) -> tuple[np.ndarray, bool]:
    """Rows of per-block swap decisions: all 2^k when small, else random ones."""
    if k <= EXACT_FLIP_LIMIT and 2**k <= n_perm:
        codes = np.arange(2**k)[:, None]
        return ((codes >> np.arange(k)) & 1).astype(bool), False
    return rng.random((n_perm, k)) < 0.5, True


@dataclass(frozen=True)
class SwapProducts:
    """Each swap row's products with the blocks' sums and counts, computed once. Swapping
    block i moves (base - cell) of that block to the cell side, so the swapped sums are these
    products plus totals; a cell scaled by ``scale`` or shifted by ``shift`` per value changes
    the products linearly, so an interval's bisection (some 50-100 tested values) costs one
    pass over the rows per value instead of a matrix product over every block."""

    s: BlockSums
    f_cell: FloatArray
    f_base: FloatArray
    f_cell_n: FloatArray
    f_base_n: FloatArray

    @classmethod
    def of(cls, s: BlockSums, flips: np.ndarray) -> SwapProducts:
        f = np.asarray(flips, dtype=np.float64)
        return cls(s, f @ np.asarray(s.cell_sum, dtype=np.float64), f @ np.asarray(s.base_sum, dtype=np.float64),
                   f @ np.asarray(s.cell_n, dtype=np.float64), f @ np.asarray(s.base_n, dtype=np.float64))

    def sums(self, scale: float = 1.0, shift: float = 0.0) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
        """Swapped (cell sum, cell n, base sum, base n) per row, the cell's values taken as
        ``value * scale - shift``."""
        s = self.s
        cell_total = scale * float(s.cell_sum.sum()) - shift * float(s.cell_n.sum())
        moved = self.f_base - (scale * self.f_cell - shift * self.f_cell_n)
        moved_n = self.f_base_n - self.f_cell_n
        return (cell_total + moved, s.cell_n.sum() + moved_n, s.base_sum.sum() - moved, s.base_n.sum() - moved_n)

    def log_ratios(self, scale: float = 1.0) -> FloatArray:
        """log(mean cell / mean baseline) after swapping the labels of the blocks flagged in
        each row: the very statistic :func:`ratio_paired` reports (over the same common
        blocks, with the same per-block counts), on the relabelled data (a cell scaled by
        ``scale``). A row of no swaps gives the observed log ratio."""
        return _log_ratio(*self.sums(scale=scale))


def compare(cell_name: str, cell: Clean, base_name: str, base: Clean, metric: str,
            rng: np.random.Generator, n_boot: int = DEFAULT_RESAMPLES,
            n_perm: int = DEFAULT_PERMUTATIONS) -> Comparison:
    """Compare one cell with the baseline; ``p_adjusted``/``significant`` are filled later
    by :func:`jvmlab.analyze.correction.adjust` across the whole family."""
    sums = block_sums(cell, base)
    n_cell, n_base = (int(sums.cell_n.sum()), int(sums.base_n.sum())) if sums is not None else \
        (int(cell.values.size), int(base.values.size))
    if sums is not None:
        # Until the paired interval became the inverted test, the block bootstrap drew these
        # indices before the swaps were drawn: drawing them still keeps every stored
        # experiment's Monte-Carlo p-value, and so its verdict, the one printed when it ran.
        rng.integers(0, sums.n_blocks, size=(n_boot, sums.n_blocks))
        test = paired_test(sums, rng, n_perm)
    else:
        r, interval = ratio_unpaired(cell.values, base.values, rng, n_boot)
        test = RatioTest(r, interval, None if interval is None else T_SMALL_N
                          if min(n_cell, n_base) < RATIO_BCA_FROM_N else BCA,
                          permutation_p_unpaired(cell.values, base.values, rng, n_perm))
    ratio, ci, p, kind = test.ratio, test.ci95, test.p_value, test.ci_kind
    return Comparison(
        cell=cell_name, baseline=base_name, metric=metric, ratio=ratio, ci95=ci,
        rel_diff_pct=None if ratio is None else (ratio - 1.0) * 100.0,
        p_value=p, p_adjusted=None, significant=False,
        n_cell=n_cell, n_baseline=n_base, paired=sums is not None, ci_kind=kind,
    )
