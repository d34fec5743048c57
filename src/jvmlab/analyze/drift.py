"""Drift across blocks and outlier flags.

Drift: Spearman's rank correlation between block order and the cell's block medians
(Spearman 1904). Block medians, not raw values, so one odd invocation cannot fake a
trend and each block weighs the same; ranks, so any monotone drift (thermal throttling,
a filling disk, page cache warming) counts, not only a linear one. The Theil-Sen slope
(Sen 1968) of the medians gives the size as a fraction of the cell median per block.

The p-value is the permutation test of rho itself (the null: every order of the block
medians is equally likely), exact up to ``EXACT_DRIFT_BLOCKS`` blocks (all k! orders) and a
seeded Monte-Carlo one above, written ``(1 + hits) / (1 + draws)`` (Phipson & Smyth 2010) so
it is never below its true value by more than the Monte-Carlo error and never 0. The
t approximation scipy's ``spearmanr`` gives is far off at the block counts jvmlab runs: on
4 blocks it printed p = 0 for a perfect trend whose exact p is 2/24 = 0.083, and flagged
7.7% of driftless cells at 4 blocks (1.0-1.6% at 5-10) against the intended 1% (2,000
normal samples per block count; seeded test ``tests/analyze/test_drift_pvalues.py``).

Outliers: the modified z-score of Iglewicz & Hoaglin (1993, *How to Detect and Handle
Outliers*): ``|x - median| / (1.4826 * MAD) > 3.5``. When MAD is 0 (more than half the
values identical) the mean absolute deviation scaled by 1.2533 stands in for it, as they
suggest; when that is 0 too, nothing is an outlier. Outliers are returned as indices and
never dropped: a slow invocation is data about the JVM, and the caller decides what to
show.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import permutations

import numpy as np

from jvmlab.analyze.model import Clean, DriftResult

OUTLIER_THRESHOLD = 3.5
MIN_DRIFT_BLOCKS = 4  # Spearman on fewer points cannot reach p < 0.05 anyway
EXACT_DRIFT_BLOCKS = 8  # all k! orders up to here (40,320), Monte-Carlo above
DRIFT_DRAWS = 20_000  # Monte-Carlo orders above EXACT_DRIFT_BLOCKS: p's MC error < 0.0008 at p = 0.01
_DRIFT_SEED = 0x5EED_D21F  # fixed: a cell's drift p-value is the same on every read


@lru_cache(maxsize=16)
def _all_orders(k: int) -> np.ndarray:
    return np.array(list(permutations(range(k))), dtype=np.int64)


def spearman_p(medians: np.ndarray) -> tuple[float, float]:
    """(rho, two-sided permutation p-value) of block order against ``medians`` (midranks for
    ties): exact up to ``EXACT_DRIFT_BLOCKS`` blocks, seeded Monte-Carlo (never 0) above."""
    from scipy import stats as sps  # here, not at the top: `jvmlab report` start-up

    k = int(medians.size)
    ranks = sps.rankdata(medians)
    centred = np.arange(k) - (k - 1) / 2.0
    observed = float(centred @ ranks)
    dev = ranks - ranks.mean()
    denom = float(np.sqrt((centred @ centred) * (dev @ dev)))
    rho = observed / denom if denom > 0 else 0.0
    if denom == 0:
        return 0.0, 1.0
    tol = 1e-9 * max(abs(observed), 1.0)
    if k <= EXACT_DRIFT_BLOCKS:
        stats = ranks[_all_orders(k)] @ centred
        return rho, float(np.count_nonzero(np.abs(stats) >= abs(observed) - tol)) / stats.size
    rng = np.random.default_rng(_DRIFT_SEED)
    orders = rng.permuted(np.broadcast_to(ranks, (DRIFT_DRAWS, k)), axis=1)
    hits = int(np.count_nonzero(np.abs(orders @ centred) >= abs(observed) - tol))
    return rho, (1 + hits) / (1 + DRIFT_DRAWS)


def drift(cell: str, data: Clean) -> DriftResult:
    """Trend test of the cell's block medians against block order (ascending block id)."""
    if data.blocks is None or data.values.size == 0:
        return DriftResult(cell, 0, None, None, None)
    ids = np.unique(data.blocks)
    medians = np.array([np.median(data.values[data.blocks == b]) for b in ids])
    k = int(ids.size)
    if k < MIN_DRIFT_BLOCKS:
        return DriftResult(cell, k, None, None, None)
    if np.ptp(medians) == 0:
        return DriftResult(cell, k, 0.0, 1.0, 0.0)  # flat: no trend, not "unmeasured"
    from scipy import stats as sps  # here, not at the top: `jvmlab report` start-up

    rho, p = spearman_p(medians)
    centre = float(np.median(data.values))
    slope = float(sps.theilslopes(medians, np.arange(k)).slope)
    return DriftResult(cell, k, rho, p, slope / abs(centre) if centre != 0 else None)


def outlier_positions(values: np.ndarray, threshold: float = OUTLIER_THRESHOLD) -> np.ndarray:
    """Positions (into ``values``, finite values only) whose modified z-score exceeds
    ``threshold``."""
    if values.size < 3:
        return np.empty(0, dtype=np.int64)
    median = np.median(values)
    dev = np.abs(values - median)
    scale = 1.4826 * np.median(dev)
    if scale == 0:
        scale = 1.2533 * dev.mean()
    if scale == 0:
        return np.empty(0, dtype=np.int64)
    return np.flatnonzero(dev / scale > threshold)


def outliers(data: Clean, threshold: float = OUTLIER_THRESHOLD) -> tuple[int, ...]:
    """Outlier indices into the caller's original array (NaN positions accounted for)."""
    return tuple(int(i) for i in data.index[outlier_positions(data.values, threshold)])
