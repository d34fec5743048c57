"""Seeded coverage simulation of jvmlab's intervals under heavy-tailed noise.

The model of one run: ``n`` blocks, one invocation per cell and block; a block factor
(log-normal, sigma 5%: the machine's moment, shared by the cell and its baseline) times an
invocation's noise, times the true effect for the cell. The noises (all positive, right-
skewed like timings, each with a finite mean so that a ratio of means exists):

* ``normal``: 1 + 3% N(0, 1);
* ``t3``, ``t1.5``: 1 + 2% |t| with 3 or 1.5 degrees of freedom (t1.5: infinite variance);
* ``spikes``: log-normal 3% noise, and 5% of invocations 3x slower (a full GC, a deopt).

Under a multiplicative effect the true ratio of means is the effect itself. A printed
interval counts as covering when it holds the truth, or when it is marked (a marked interval
says it may not hold its level, which is what issue 11 asks: never an unmarked interval
below 90%). Used by ``tests/analyze/test_heavy_tails.py`` and ``bench/heavy_tails.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from jvmlab.analyze.bootstrap import mean_ci
from jvmlab.analyze.compare import block_bca, block_sums, compare, ratio_paired_bca, ratio_unpaired
from jvmlab.analyze.describe import describe
from jvmlab.analyze.difference import difference_test
from jvmlab.analyze.model import Clean, Interval
from jvmlab.analyze.smallsample import T_SMALL_N
from jvmlab.analyze.tails import BCA_HEAVY_TAIL

NOISES = ("normal", "t3", "t1.5", "spikes")
BLOCK_SIGMA = 0.05
SPIKE_SHARE, SPIKE_FACTOR, SPIKE_SIGMA = 0.05, 3.0, 0.03
T_SCALE, NORMAL_SD = 0.02, 0.03
MARKED = (T_SMALL_N, BCA_HEAVY_TAIL)  # interval kinds that say they may not hold their level


def noise(kind: str, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` invocation factors of one noise kind."""
    if kind == "normal":
        return 1.0 + NORMAL_SD * rng.standard_normal(size)
    if kind in ("t3", "t1.5"):
        return 1.0 + T_SCALE * np.abs(rng.standard_t(float(kind[1:]), size))
    if kind == "spikes":
        return rng.lognormal(0.0, SPIKE_SIGMA, size) * np.where(rng.random(size) < SPIKE_SHARE, SPIKE_FACTOR, 1.0)
    raise ValueError(f"unknown noise {kind!r}; one of {', '.join(NOISES)}")


def noise_mean(kind: str) -> float:
    """The population mean of :func:`noise` (E|t_v| = 2 sqrt(v) G((v+1)/2) / (sqrt(pi) (v-1) G(v/2)))."""
    if kind == "normal":
        return 1.0
    if kind in ("t3", "t1.5"):
        v = float(kind[1:])
        abs_t = 2.0 * np.sqrt(v) * np.exp(gammaln((v + 1) / 2) - gammaln(v / 2)) / (np.sqrt(np.pi) * (v - 1))
        return float(1.0 + T_SCALE * abs_t)
    if kind == "spikes":
        return float(np.exp(SPIKE_SIGMA**2 / 2) * (1 - SPIKE_SHARE + SPIKE_SHARE * SPIKE_FACTOR))
    raise ValueError(f"unknown noise {kind!r}; one of {', '.join(NOISES)}")


@dataclass(frozen=True)
class Coverage:
    """Shares of simulated runs whose interval held the truth, for one grid point."""

    n_blocks: int
    noise: str
    effect: float  # true ratio of means, 1.05 = 5% slower
    reps: int
    printed: float  # the comparison jvmlab prints: covers, or is marked
    printed_kind: str  # its ci_kind in the last run ("test-inversion" when paired)
    bca: float  # the BCa bootstrap (paired by block when compare() pairs, else unpaired)
    width_ratio: float | None  # median log-width printed / BCa (None: no finite widths)
    marked: float  # share of printed intervals that were marked
    mean_bca: float  # the cell's BCa interval of the mean (expanded level), unmarked
    mean_printed: float  # the cell's interval of the mean as printed: covers, or is marked
    diff_printed: float  # the difference of means as printed (covers, or is marked); NaN: not run
    diff_kind: str  # its ci_kind in the last run ("test-inversion" when paired)
    diff_bca: float  # the difference's BCa bootstrap (by block when paired, else as printed)
    diff_width_ratio: float | None  # median width printed / BCa of the difference


def _clean(values: np.ndarray) -> Clean:
    return Clean(values, np.arange(values.size, dtype=np.int64), np.arange(values.size, dtype=np.int64), 0)


def _holds(ci: Interval | None, truth: float) -> bool:
    return ci is not None and ci[0] <= truth <= ci[1]


def _log_width(ci: Interval | None) -> float:
    return float(np.log(ci[1] / ci[0])) if ci is not None and ci[0] > 0 else float("nan")


def _width(ci: Interval | None) -> float:
    return float(ci[1] - ci[0]) if ci is not None else float("nan")


def _median_ratio(printed: list[float], bca: list[float]) -> float | None:
    wp, wb = np.array(printed), np.array(bca)
    ok = np.isfinite(wp) & np.isfinite(wb)
    return float(np.median(wp[ok]) / np.median(wb[ok])) if ok.any() and np.median(wb[ok]) > 0 else None


def coverage(n_blocks: int, kind: str, effect: float, reps: int, seed: int,
             n_boot: int = 1000, n_perm: int = 1000, means: bool = True, ratios: bool = True,
             diffs: bool = True) -> Coverage:
    """Simulate ``reps`` runs of one grid point (seeded) and count what covered
    (``means=False`` skips the cell mean's intervals, ``ratios=False`` the ratio's,
    ``diffs=False`` the difference's: their shares are then NaN). The difference's intervals
    draw from their own seeded generator, so adding them left the ratio's figures as they were.
    The true difference of means is ``(effect - 1)`` times the baseline's population mean."""
    rng = np.random.default_rng([seed, n_blocks, NOISES.index(kind), round(effect * 1000)])
    diff_rng = np.random.default_rng([seed, n_blocks, NOISES.index(kind), round(effect * 1000), 1])
    printed = bca = marked = mean_bca = mean_printed = diff_printed = diff_bca = 0
    widths_p: list[float] = []
    widths_b: list[float] = []
    dwidths_p: list[float] = []
    dwidths_b: list[float] = []
    last_kind = diff_kind = ""
    base_mean = float(np.exp(BLOCK_SIGMA**2 / 2) * noise_mean(kind))
    true_mean, true_diff = base_mean * effect, base_mean * (effect - 1.0)
    for _ in range(reps):
        block = rng.lognormal(0.0, BLOCK_SIGMA, n_blocks)
        cell = _clean(effect * block * noise(kind, rng, n_blocks))
        base = _clean(block * noise(kind, rng, n_blocks))
        sums = block_sums(cell, base)
        if diffs:
            dt = difference_test(cell, base, diff_rng, n_boot, n_perm)
            d_bca = block_bca(sums, np.subtract, diff_rng, n_boot)[1] if sums is not None else dt.ci95
            diff_kind = dt.ci_kind or ""
            diff_printed += dt.ci_kind in MARKED or _holds(dt.ci95, true_diff)
            diff_bca += _holds(d_bca, true_diff)
            dwidths_p.append(_width(dt.ci95))
            dwidths_b.append(_width(d_bca))
        if not ratios:
            continue
        comp = compare("cell", cell, "base", base, "wall_s", rng, n_boot, n_perm)
        _, boot_ci = ratio_paired_bca(sums, rng, n_boot) if sums is not None else \
            ratio_unpaired(cell.values, base.values, rng, n_boot)
        last_kind = comp.ci_kind or ""
        is_marked = comp.ci_kind in MARKED
        marked += is_marked
        printed += is_marked or _holds(comp.ci95, effect)
        bca += _holds(boot_ci, effect)
        widths_p.append(_log_width(comp.ci95))
        widths_b.append(_log_width(boot_ci))
        if not means:
            continue
        st = describe("cell", cell, rng, n_boot)
        mean_printed += st.mean_ci_kind in MARKED or _holds(st.mean_ci95, true_mean)
        mean_bca += _holds(mean_ci(cell.values, rng, n_boot), true_mean)
    nan = float("nan")
    with_means = means and ratios

    def share(count: int, ran: bool) -> float:
        return count / reps if ran else nan

    return Coverage(n_blocks, kind, effect, reps, share(printed, ratios), last_kind, share(bca, ratios),
                    _median_ratio(widths_p, widths_b), share(marked, ratios), share(mean_bca, with_means),
                    share(mean_printed, with_means), share(diff_printed, diffs), diff_kind,
                    share(diff_bca, diffs), _median_ratio(dwidths_p, dwidths_b))
