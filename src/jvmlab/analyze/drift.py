"""Drift across blocks and outlier flags.

Drift: Spearman's rank correlation between block order and the cell's block medians
(Spearman 1904). Block medians, not raw values, so one odd invocation cannot fake a
trend and each block weighs the same; ranks, so any monotone drift (thermal throttling,
a filling disk, page cache warming) counts, not only a linear one. The Theil-Sen slope
(Sen 1968) of the medians gives the size as a fraction of the cell median per block.

Outliers: the modified z-score of Iglewicz & Hoaglin (1993, *How to Detect and Handle
Outliers*): ``|x - median| / (1.4826 * MAD) > 3.5``. When MAD is 0 (more than half the
values identical) the mean absolute deviation scaled by 1.2533 stands in for it, as they
suggest; when that is 0 too, nothing is an outlier. Outliers are returned as indices and
never dropped: a slow invocation is data about the JVM, and the caller decides what to
show.
"""

from __future__ import annotations

import numpy as np

from jvmlab.analyze.model import Clean, DriftResult

OUTLIER_THRESHOLD = 3.5
MIN_DRIFT_BLOCKS = 4  # Spearman on fewer points cannot reach p < 0.05 anyway


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

    res = sps.spearmanr(np.arange(k), medians)
    centre = float(np.median(data.values))
    slope = float(sps.theilslopes(medians, np.arange(k)).slope)
    return DriftResult(cell, k, float(res.statistic), float(res.pvalue),
                       slope / abs(centre) if centre != 0 else None)


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
